# End-to-end cases of `tpcost explain`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

tpcost_cli_case("explain shows the NVLink example R = 0.3617" ARGS explain --tp 8 RC 0 STDOUT
  "R = T_comm / T_calc = 0\\.895 ms / 2\\.474 ms = 0\\.361690.*comm share R/\\(1\\+R\\) = 26\\.6%")
tpcost_cli_case("explain shows the PCIe example R = 0.7234" ARGS explain --tp 8 --bandwidth 300GB/s RC 0
  STDOUT "= 0\\.723380.*comm share R/\\(1\\+R\\) = 42\\.0%")
tpcost_cli_case("explain help has examples" ARGS explain --help RC 0 STDOUT "Examples:.*tpcost explain --tp 8")
tpcost_cli_case("explain TP below 1" ARGS explain --tp 0 RC 2 STDERR "--tp: 0 is out of range")
tpcost_cli_case("format not offered by explain" ARGS explain --format csv RC 2 STDERR "--format: 'csv' is not one of table\\|json")
tpcost_cli_case("explain substitutes the textbook hierarchical formula and names NCCL's pick"
  ARGS explain --tp 16 --collective auto --intra-bandwidth 450GB/s --intra-latency 3us
       --inter-bandwidth 50GB/s --inter-latency 10us --dtype bf16 --flops 989.4T RC 0 STDOUT
  "= 2\\*\\(8-1\\)\\*3 us \\+ 2\\*\\(8-1\\)/8\\*67\\.11 MB / 450 GB/s \\+ 2\\*\\(2-1\\)\\*10 us \\+ 2\\*\\(2-1\\)/2\\*\\(67\\.11 MB/8\\) / 50 GB/s = 490\\.8 us.*NCCL's tuner \\(auto[^\n]*\\): ring 485 us, tree 559\\.3 us\n +used: ring \\(NCCL's pick\\)")
tpcost_cli_case("explain shows overlap and activation memory"
  ARGS explain --tp 8 --sp --overlap 0.5 RC 0 STDOUT
  "T = T_calc \\+ T_comm - f\\*min\\(T_calc, T_comm\\) = 2\\.474 ms \\+ 0\\.895 ms - 0\\.5\\*0\\.895 ms = 2\\.921 ms.*TP \\+ SP: s\\*b\\*h/t\\*\\(34 \\+ 5\\*a\\*s/h\\) = 2048\\*2\\*8192/8\\*\\(34 \\+ 5\\*64\\*2048/8192\\) = 478\\.2 MB")
tpcost_cli_case("preset explain: every value with its source"
  ARGS explain --gpu h100-sxm --interconnect ndr --tp 16 RC 0 STDOUT
  "P   = 989\\.4 TFLOP/s +H100-SXM, dense bf16 peak\n +NVIDIA Hopper whitepaper \\(2022\\): BF16 Tensor 989\\.4 TFLOPS dense.*β_i = 450 GB/s +H100-SXM, NVLink 4 \\(NVSwitch\\)\n.*α_i = 3\\.4 us .*hwLat\\[NVLINK\\]\\[Ring\\]\\[Simple\\].*g   = 8 GPUs per node +H100-SXM\n.*β_e = 50 GB/s per GPU +IB-NDR, InfiniBand NDR 400 Gb/s\n.*α_e = 14 us .*hwLat\\[NET\\].*used: nvls-tree \\(NCCL's pick\\)")
tpcost_cli_case("preset with fp32 takes the vector rate, tf32 the tensor cores"
  ARGS explain --gpu a100 --dtype tf32 --tp 8 RC 0 STDOUT "P   = 156 TFLOP/s +A100-SXM4-80GB, dense tf32 peak")
tpcost_cli_case("a two-node profile replaces the inter-node link"
  ARGS explain --gpu h100 --interconnect-file ${profiles}/two-node-synthetic.json --tp 16 RC 0
  STDOUT "β_e = 5\\.625 GB/s per GPU +fitted beta of .*two-node-synthetic\\.json \\(all-reduce over 16 ranks on 2 nodes\\)")
tpcost_cli_case("unknown interconnect preset" ARGS explain --interconnect ndrr RC 2
  STDERR "--interconnect: 'ndrr' is not an interconnect preset; did you mean 'IB-NDR'\\?")
tpcost_cli_case("explain TP 12 on 8-GPU nodes" ARGS explain --collective auto --inter-bandwidth 50GB/s --tp 12 RC 2
  STDERR "--tp: 12 spans nodes of 8 GPUs")
tpcost_cli_case("ASCII: explain under LANG=C" ARGS explain --tp 16 --gpu h100-sxm --interconnect ib-ndr RC 0
  ENV LANG=C LC_ALL= LC_CTYPE= STDOUT "^[\t\n -~]+$")
