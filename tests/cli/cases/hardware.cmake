# End-to-end cases of `tpcost hardware`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

# Hardware presets.
tpcost_cli_case("hardware list shows every GPU and interconnect" ARGS hardware list RC 0 STDOUT
  "A100-SXM4-80GB +312 TFLOP/s.*H100-SXM +989\\.4 TFLOP/s +1\\.979 PFLOP/s +- +80 GiB +3\\.35 TB/s +NVLink 4 \\(NVSwitch\\) +450 GB/s +3\\.4 us +8 .*GB200-NVL72 .* 72 .*MI300X.*IB-NDR +InfiniBand NDR 400 Gb/s +50 GB/s +14 us.*RoCE-400G")
tpcost_cli_case("hardware list as JSON" ARGS hardware list --format json RC 0 STDOUT
  "\"bf16\": \\{[^}]*\"source\": \"NVIDIA A100 datasheet \\(2021\\).*\"schema\": \"tpcost\\.hardware-list/1\"")
tpcost_cli_case("hardware show gives every field with its source" ARGS hardware show h100 RC 0 STDOUT
  "^H100-SXM: NVIDIA H100 SXM5 80GB.*bf16 \\(tensor core\\) +989\\.4 TFLOP/s\n +NVIDIA Hopper whitepaper \\(2022\\).*link bandwidth, per direction +450 GB/s\n +NVIDIA H100 datasheet \\(2023\\): NVLink 900 GB/s.*link latency, per ring step +3\\.4 us\n +NCCL 2\\.20\\.3")
tpcost_cli_case("hardware show accepts any case and alias" ARGS hardware show H100-SXM5-80GB RC 0 STDOUT "^H100-SXM: ")
tpcost_cli_case("hardware show an interconnect as JSON" ARGS hardware show ndr --format json RC 0 STDOUT
  "\"bandwidth_bytes_per_s\": \\{[^}]*\"value\": 50000000000\\.0.*\"name\": \"IB-NDR\"")
tpcost_cli_case("hardware show a typo suggests the preset" ARGS hardware show h10 RC 2 STDERR
  "^tpcost: error: hardware show: 'h10' is not a GPU or interconnect preset; did you mean 'H100-SXM'\\?")
tpcost_cli_case("hardware show an unknown name lists the presets" ARGS hardware show quantum RC 2 STDERR
  "known presets: A100-SXM4-80GB, .*RoCE-400G")
tpcost_cli_case("hardware needs list or show" ARGS hardware RC 2 STDERR "subcommand is required")
tpcost_cli_case("hardware show needs a name" ARGS hardware show RC 2 STDERR "name is required")
