# End-to-end cases of `tpcost collective`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

tpcost_cli_case("collective table: time, wire bytes, algbw, busbw per algorithm"
  ARGS collective --op all-reduce --size 1GiB --ranks 8 RC 0 STDOUT
  "\nring +simple +3\\.14 ms +14 +1\\.879 GB +0 B +- +341\\.9 GB/s +598\\.4 GB/s\ntree +simple +3\\.955 ms +14 +1\\.879 GB .*cheapest \\(auto\\): ring, what NCCL's tuner picks")
tpcost_cli_case("collective across nodes: auto is NCCL's pick (the ring at 64 MB), not the textbook hierarchical bound"
  ARGS collective --size 64MB --ranks 16 --intra-bandwidth 450GB/s --intra-latency 3us
       --inter-bandwidth 50GB/s --inter-latency 10us --algorithm auto RC 0 STDOUT
  "\nring +simple +469\\.9 us +30 +120 MB +15 MB +15 MB +136\\.2 GB/s +255\\.4 GB/s\n\nno measured band: the links are presets or flags.*\ncheapest \\(auto\\): ring")
tpcost_cli_case("collective with a profile written before residuals: no band, and says so"
  ARGS collective --interconnect-file ${PROJECT_SOURCE_DIR}/tests/config/profiles/dgx-h100-nvlink.json --size 64MiB --ranks 8 RC 0 STDOUT
  "\n\nno measured band: [^\n]*dgx-h100-nvlink\\.json holds no residuals \\(written before tpcost calibrate kept them\\); rerun tpcost calibrate --out\ncheapest")
tpcost_cli_case("collective with a profile whose residual is impossible: one line, exit 2"
  ARGS collective --interconnect-file ${PROJECT_SOURCE_DIR}/tests/config/profiles/bad-residual.json --size 64MiB RC 2 STDOUT "^$"
  STDERR "^tpcost: error: --interconnect-file: [^\n]*bad-residual\\.json: /profiles/0/residuals/leave_one_size_out/1/residual: is -1\\.5, expected a finite residual > -1 \\(measured / fitted - 1\\)\n$")
tpcost_cli_case("collective help has examples" ARGS collective --help RC 0 STDOUT "Examples:.*tpcost collective")
tpcost_cli_case("collective with presets" ARGS collective --gpu h100 --interconnect ndr --ranks 16 --size 64MiB RC 0
  STDOUT "links: intra-node 450 GB/s, α = 3\\.4 us; inter-node 50 GB/s, α = 14 us per NIC, one NIC per GPU\nhardware: H100-SXM .*cheapest \\(auto\\): nvls-tree, what NCCL's tuner picks")
tpcost_cli_case("a GPU given as the interconnect" ARGS collective --interconnect h100 RC 2
  STDERR "--interconnect: 'h100' is a GPU preset \\(H100-SXM\\), not an interconnect preset")
# Placement errors of `collective`, and calibrate's node count (issue 11).
tpcost_cli_case("collective: ranks not a multiple of ranks per node"
  ARGS collective --gpu h100-sxm --interconnect ndr --gpus 12 --ranks-per-node 8 --size 1GiB RC 2
  STDERR "^tpcost: error: --gpus: 12 ranks are not a multiple of 8 ranks per node \\(--ranks-per-node\\)")
tpcost_cli_case("collective: more ranks per node than GPUs per node"
  ARGS collective --gpu h100-sxm --interconnect ndr --ranks 18 --ranks-per-node 9 --size 1GiB RC 2
  STDERR "^tpcost: error: --ranks-per-node: 9 is more ranks per node than its 8 GPUs \\(--gpus-per-node\\)")
tpcost_cli_case("collective across nodes needs an inter-node link" ARGS collective --ranks 16 RC 2
  STDERR "--inter-bandwidth: a group of 16 spans 2 nodes of 8 GPUs")
tpcost_cli_case("a size without a unit is refused" ARGS collective --size 1024 RC 2
  STDERR "^tpcost: error: --size: '1024' has no unit; expected a size such as 80GiB")
tpcost_cli_case("collective: unknown op" ARGS collective --op broadcast RC 2
  STDERR "--op: 'broadcast' is not one of all-reduce\\|reduce-scatter\\|all-gather")
tpcost_cli_case("collective: tree has no all-gather" ARGS collective --op all-gather --algorithm tree RC 2
  STDERR "--algorithm: tree does not run all-gather on this group and hardware")
tpcost_cli_case("collective: unknown algorithm" ARGS collective --algorithm butterfly RC 2
  STDERR "--algorithm: 'butterfly' is not one of")
tpcost_cli_case("collective: ranks spanning nodes unevenly" ARGS collective --gpus 12 --inter-bandwidth 50GB/s RC 2
  STDERR "--gpus: 12 spans nodes of 8 GPUs")
tpcost_cli_case("collective: zero ranks" ARGS collective --gpus 0 RC 2 STDERR "^tpcost: error: --gpus: 0 is out of range")
tpcost_cli_case("collective --help names the group size --gpus" ARGS collective --help RC 0
  STDOUT "\n +-n,--gpus,--ranks N=8 +N: GPUs in the job .*collective: the GPUs in the group")
tpcost_cli_case("collective: negative size" ARGS collective --size=-1GiB RC 2 STDERR "--size: must be a finite number of bytes >= 0")
tpcost_cli_case("collective --algorithm seed is the article row"
  ARGS collective --algorithm seed RC 0 STDOUT "\narticle +- +1\\.79 ms ")
tpcost_cli_case("collective --pessimistic: collective has no rule to judge" ARGS collective --pessimistic
  RC 2 STDERR "^tpcost: error: tpcost collective: unknown flag '--pessimistic'")
