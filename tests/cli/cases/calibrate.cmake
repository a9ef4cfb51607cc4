# End-to-end cases of `tpcost calibrate`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

tpcost_cli_case("calibrate the DGX H100 sweep" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --min-size 1KiB RC 0 STDOUT
  "all_reduce over 8 ranks: 50 points from 1 KiB to 16 GiB.*ranks from busbw/algbw.*one line +alpha = 1\\.345 us +beta = 423\\.9 GB/s +busbw error: median 10\\.4%, worst 55\\.3% at 8 MiB\n +band +-29\\.7% to \\+42\\.2% of the line's time: [^\n]*50 points left out one size at a time[^\n]*\n3 lines +busbw error: median 2\\.7%.*32 MiB +\\.\\. +16 GiB +alpha = +5\\.525 us +beta = +472\\.2 GB/s.*\n +16 GiB +in +62636\\.00 +479\\.99 +423\\.78 +-11\\.7% +-13\\.0% +471\\.61 +-1\\.7%\n$")
tpcost_cli_case("calibrate the ND A100 v4 sweep, in-place only" ARGS calibrate ${NCCL_DATA}/azure-nd-a100-v4-8gpu-all_reduce.txt --segments 1 RC 0 STDOUT
  "24 points from 1 KiB to 8 GiB, in-place timings\n.*alpha = 3\\.16 us +beta = 204\\.7 GB/s +busbw error: median 7\\.3%, worst 43\\.2% at 16 MiB\n +band +-27\\.9% to \\+35\\.6% of the line's time: 85% split-conformal, 24 points left out one size at a time \\(mean 12\\.4%, worst 45\\.2%\\)\n\n +size +placement +time us +busbw GB/s +line GB/s +error +left out\n")
tpcost_cli_case("calibrate as JSON" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --format json RC 0 STDOUT
  "\"bandwidth_convention\": \"per-direction link bandwidth \\(nccl-tests busbw at large M\\)\".*\"schema\": \"tpcost\\.calibration/1\"")
tpcost_cli_case("calibrate a garbage file" ARGS calibrate ${NCCL_DATA}/bad/garbage.txt RC 2 STDERR
  "^tpcost: error: .*/bad/garbage\\.txt: no nccl-tests data rows in 3 lines")
tpcost_cli_case("calibrate a truncated row" ARGS calibrate ${NCCL_DATA}/bad/truncated-all_reduce.txt RC 2 STDERR
  "^tpcost: error: .*/bad/truncated-all_reduce\\.txt:31: a data row with 7 fields")
tpcost_cli_case("calibrate a header without rows" ARGS calibrate ${NCCL_DATA}/bad/header-only-all_reduce.txt RC 2 STDERR
  "header-only-all_reduce\\.txt: no nccl-tests data rows in 3 lines")
tpcost_cli_case("calibrate a run that failed its check" ARGS calibrate ${NCCL_DATA}/bad/failed-check-all_reduce.txt RC 2 STDERR
  "failed-check-all_reduce\\.txt:4: nccl-tests found 3 wrong elements in the in-place result")
tpcost_cli_case("calibrate a missing file" ARGS calibrate /nonexistent/ar.txt RC 2 STDERR
  "^tpcost: error: /nonexistent/ar\\.txt: cannot open the file")
tpcost_cli_case("calibrate a directory" ARGS calibrate ${NCCL_DATA} RC 2 STDERR "nccl: is not a regular file")
tpcost_cli_case("calibrate with a rank count the bandwidths contradict" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --ranks 16 RC 2 STDERR
  "dgx-h100-8gpu-all_reduce\\.txt:[0-9]+: busbw/algbw = .* but all_reduce over 16 ranks \\(from --gpus.*check --gpus and --op")
tpcost_cli_case("calibrate with one rank" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --ranks 1 RC 2 STDERR
  "--gpus: 1 is out of range")
tpcost_cli_case("calibrate with an unknown collective" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --collective broadcast RC 2 STDERR
  "--op: 'broadcast' is not all-reduce, all-gather or reduce-scatter")
tpcost_cli_case("calibrate: --op names the collective, as in collective" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --op all-gather RC 2 STDERR
  "fits all_gather for no number of ranks.*check --op \\(collective from --op\\)")
tpcost_cli_case("calibrate with an empty size range" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --min-size 1GiB --max-size 1MiB RC 2 STDERR
  "--max-size: '1MiB' is below --min-size '1GiB'")
tpcost_cli_case("calibrate with a range that holds no size" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --min-size 32GiB RC 2 STDERR
  "all_reduce over 8 ranks: no measurement is left")
tpcost_cli_case("calibrate with too many segments" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --segments 9 RC 2 STDERR
  "--segments: 9 is out of range; expected 1\\.\\.8")
tpcost_cli_case("calibrate with a bad placement" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --placement inplace RC 2 STDERR
  "--placement: 'inplace' is not one of both\\|in-place\\|out-of-place")
tpcost_cli_case("calibrate offers table and json only" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --format csv RC 2 STDERR
  "--format: 'csv' is not one of table\\|json")
tpcost_cli_case("calibrate needs a file" ARGS calibrate RC 2 STDERR "files is required")
tpcost_cli_case("calibrate cannot write the profile" ARGS calibrate ${NCCL_DATA}/dgx-h100-8gpu-all_reduce.txt --out /nonexistent/dir/p.json RC 3 STDERR
  "^tpcost: error: --out: '/nonexistent/dir/p\\.json' cannot be written: No such file or directory")
tpcost_cli_case("calibrate: a file with mixed node sizes"
  ARGS calibrate ${PROJECT_SOURCE_DIR}/tests/data/nccl/bad/mixed-node-sizes-all_reduce.txt RC 2
  STDERR "^tpcost: error: [^\n]*mixed-node-sizes-all_reduce\\.txt: mixed node sizes: host 'node-b' runs 4 ranks and host 'node-a' 8; [^\n]*")
tpcost_cli_case("calibrate: --ranks-per-node when the file has no host lines"
  ARGS calibrate ${PROJECT_SOURCE_DIR}/tests/data/nccl/synthetic-2node-h100-nohosts-all_reduce.txt --ranks-per-node 8 RC 0
  STDOUT "all_reduce over 16 ranks on 2 nodes: .*measured: inter-node: 2 nodes x 8 ranks \\(--ranks-per-node\\)")
tpcost_cli_case("calibrate: --nodes 1 says the run measured NVLink"
  ARGS calibrate ${PROJECT_SOURCE_DIR}/tests/data/nccl/synthetic-2node-h100-nohosts-all_reduce.txt --nodes 1 RC 0
  STDOUT "measured: intra-node: 1 node x 16 ranks \\(--nodes\\); beta is the NVLink bus bandwidth")
# Rank lines without hosts give the ranks, not the nodes (the min/max over an empty host map
# read out of bounds: io_fuzzer, under ASan).
tpcost_cli_case("calibrate: rank lines without hosts take --ranks-per-node"
  ARGS calibrate ${PROJECT_SOURCE_DIR}/tests/data/nccl/synthetic-2node-h100-rank-lines-no-hosts-all_reduce.txt --ranks-per-node 8 RC 0
  STDOUT "all_reduce over 16 ranks on 2 nodes: .*measured: inter-node: 2 nodes x 8 ranks \\(--ranks-per-node\\)")
tpcost_cli_case("calibrate: ranks not a multiple of --ranks-per-node"
  ARGS calibrate ${PROJECT_SOURCE_DIR}/tests/data/nccl/synthetic-2node-h100-nohosts-all_reduce.txt --ranks-per-node 5 RC 2
  STDERR "^tpcost: error: --ranks-per-node: 16 ranks \\(from busbw/algbw\\) are not a multiple of 5 ranks per node")
tpcost_cli_case("calibrate: --nodes against the file's host lines"
  ARGS calibrate ${PROJECT_SOURCE_DIR}/tests/data/nccl/synthetic-2node-h100-all_reduce.txt --nodes 4 RC 2
  STDERR "^tpcost: error: --nodes: the run's '#  Rank \\.\\.\\. on HOST' lines give 2 nodes, not 4")
