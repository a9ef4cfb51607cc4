# End-to-end cases of `tpcost sweep`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

# The seed's demo table, cell for cell as the article prints it.
tpcost_cli_case("default sweep prints the article's table" ARGS sweep RC 0 STDOUT
  " 1 +19\\.791 +0\\.895 +20\\.686 +19\\.791 +0\\.0452 +95\\.7%.*\n 2 +9\\.896 +0\\.895 +10\\.790 .* 91\\.7%.*\n 4 +4\\.948 +0\\.895 +5\\.843 .* 84\\.7%.*\n 8 +2\\.474 +0\\.895 +3\\.369 .* 73\\.4%.*\n16 +1\\.237 +0\\.895 +2\\.132 .* 58\\.0%.*\n32 +0\\.618 +0\\.895 +1\\.513 .* 40\\.9%")
tpcost_cli_case("default sweep footer gives t* and the 70% bound" ARGS sweep RC 0 STDOUT
  "t\\* = A/C = 19\\.791 ms / 0\\.895 ms = 22\\.12.*t <= 9\\.48; largest swept TP meeting it: 8")
tpcost_cli_case("markdown table" ARGS sweep --format markdown --tp 8 RC 0 STDOUT
  "\\| TP \\| compute ms .*\\| -+: .*\\|  8 \\|  +2\\.474 \\|")
tpcost_cli_case("csv header and SI values" ARGS sweep --format csv --tp 1 RC 0 STDOUT
  "^tp,compute_s,comm_s,serial_s,overlapped_s,ratio,efficiency,comm_share,speedup\n1,0\\.019791")
tpcost_cli_case("every integer in a range" ARGS sweep --tp 1..5:+1 --format csv RC 0 STDOUT
  "\n1,.*\n2,.*\n3,.*\n4,.*\n5,")
tpcost_cli_case("bf16 halves R" ARGS sweep --dtype bf16 --tp 8 --format csv RC 0 STDOUT
  "\n8,[^,]+,[^,]+,[^,]+,[^,]+,0\\.180844")
tpcost_cli_case("sweep help has examples" ARGS sweep --help RC 0 STDOUT "Examples:.*tpcost sweep --dtype bf16")

# Bad input: one line on stderr naming the flag, exit code 2, nothing on stdout.
tpcost_cli_case("zero batch" ARGS sweep --micro-batch 0 RC 2 STDERR "^tpcost: error: --micro-batch: 0 is out of range")
# -b,--micro-batch in every command that has a micro-batch; --batch, the old name, still read.
tpcost_cli_case("sweep: --batch is still read, as --micro-batch" ARGS sweep --batch 4 --tp 8 RC 0
  STDOUT "inputs: +b=4 ")
tpcost_cli_case("sweep: -b is --micro-batch" ARGS sweep -b 4 --tp 8 RC 0 STDOUT "inputs: +b=4 ")
tpcost_cli_case("negative seq" ARGS sweep --seq -5 RC 2 STDERR "--seq: -5 is out of range")
tpcost_cli_case("fractional hidden" ARGS sweep --hidden 8192.5 RC 2 STDERR "--hidden: '8192.5' is not a whole number")
tpcost_cli_case("hidden too large" ARGS sweep --hidden 99999999999 RC 2 STDERR "--hidden: 99999999999 is out of range; expected a whole number in 1..2147483647")
tpcost_cli_case("non-numeric batch" ARGS sweep --batch two RC 2 STDERR "--micro-batch: 'two' is not a whole number")
tpcost_cli_case("NaN flops" ARGS sweep --flops nan RC 2 STDERR "--flops: 'nan' is not a finite number")
tpcost_cli_case("inf bandwidth" ARGS sweep --bandwidth inf RC 2 STDERR "--bandwidth: 'inf' is not a finite number")
tpcost_cli_case("zero bandwidth" ARGS sweep --bandwidth 0GB/s RC 2 STDERR "--bandwidth: must be a positive finite number of bytes/s")
tpcost_cli_case("negative flops" ARGS sweep --flops -1PFLOP/s RC 2 STDERR "--flops: must be a positive")
tpcost_cli_case("unknown unit" ARGS sweep --bandwidth 600XB/s RC 2 STDERR "--bandwidth: '600XB/s' has an unknown unit 'XB/s'")
tpcost_cli_case("wrong kind of unit" ARGS sweep --flops 600GB/s RC 2 STDERR "--flops: '600GB/s' has an unknown unit")
tpcost_cli_case("unknown dtype" ARGS sweep --dtype int3 RC 2 STDERR "--dtype: 'int3' is not a dtype")
tpcost_cli_case("zero-byte dtype" ARGS sweep --dtype 0 RC 2 STDERR "--dtype: '0' is not a byte count in 1..16")
tpcost_cli_case("TP zero" ARGS sweep --tp 0 RC 2 STDERR "--tp: '0' contains a degree below 1")
tpcost_cli_case("TP fractional" ARGS sweep --tp 2.5 RC 2 STDERR "--tp: '2.5' is not a whole number")
tpcost_cli_case("TP empty range" ARGS sweep --tp 8..1 RC 2 STDERR "--tp: '8..1' is an empty range")
tpcost_cli_case("TP absurd range" ARGS sweep --tp 1..10000000:+1 RC 2 STDERR "--tp: .* expands to more than 4096 degrees")
tpcost_cli_case("TP too large" ARGS sweep --tp 99999999 RC 2 STDERR "--tp: 99999999 is out of range")
tpcost_cli_case("flops underflow" ARGS sweep --flops 1e-300FLOP/s RC 2 STDERR "--flops: makes the per-layer compute time overflow")
tpcost_cli_case("bandwidth underflow" ARGS sweep --bandwidth 1e-300B/s RC 2 STDERR "--bandwidth: makes the per-layer comm time overflow")
tpcost_cli_case("efficiency target out of range" ARGS sweep --min-efficiency 1.5 RC 2 STDERR "--min-efficiency: '1.5' is not a fraction")
tpcost_cli_case("unknown format" ARGS sweep --format xml RC 2 STDERR "--format: 'xml' is not one of table\\|json\\|csv\\|markdown")
tpcost_cli_case("unknown flag" ARGS sweep --bandwith 1 RC 2 STDERR "^tpcost: error: .*bandwith")
tpcost_cli_case("unwritable output" ARGS sweep --output /nonexistent/dir/x.json RC 3 STDERR "--output: '/nonexistent/dir/x.json' cannot be written: No such file or directory")
tpcost_cli_case("cliff sweep: NCCL's ring inside the node and across it, efficiency 67% -> 39%"
  ARGS ${cliff_args} RC 0 STDOUT
  "\n 8 +1 +ring +469\\.8 +0\\.0 +2\\.500 +1\\.246 +1\\.246 +3\\.746 .* 66\\.8% .*\n16 +2 +ring +503\\.3 +62\\.9 +1\\.250 +1\\.940 .* 39\\.2% ")
tpcost_cli_case("cliff sweep footer names the node boundary" ARGS ${cliff_args} RC 0 STDOUT
  "node boundary: TP 8 \\(1 node\\) -> TP 16 \\(2 nodes\\): T_comm 1\\.246 ms -> 1\\.940 ms \\(x1\\.56\\), efficiency 66\\.8% -> 39\\.2%")
tpcost_cli_case("flat ring across nodes is paced by the inter-node link"
  ARGS sweep --tp 8,16 --collective ring --intra-bandwidth 450GB/s --intra-latency 3us
       --inter-bandwidth 50GB/s --inter-latency 10us --dtype bf16 --flops 989.4T RC 0
  STDOUT "\n16 +2 +ring +503\\.3 +503\\.3 +1\\.250 +11\\.266 ")
tpcost_cli_case("explicit seed collective keeps the seed's table" ARGS sweep --collective seed RC 0
  STDOUT "the article's model\\).*\n 8 +2\\.474 +0\\.895 +3\\.369")
tpcost_cli_case("--collective article is the article's model" ARGS sweep --collective article --tp 8 RC 0
  STDOUT "^TP sweep [^\n]*\\(the article's model\\)\n.*\n 8 +2\\.474 +0\\.895 +3\\.369")
tpcost_cli_case("--help names the article, not the seed" ARGS sweep --help RC 0
  STDOUT "--collective \\{article,ring,tree,hierarchical,auto\\}\n +article \\(the article's M/B per all-reduce\\) \\| ring")
tpcost_cli_case("SP reports activation memory with and without SP"
  ARGS sweep --sp --dtype bf16 --tp 8 RC 0 STDOUT
  "act MB +act MB no SP\n 8 +- +article +268\\.4 .* 478\\.2 +771\\.8\n")
tpcost_cli_case("recompute full: 6 collectives and 96*b*s*h^2"
  ARGS sweep --recompute full --tp 8 RC 0 STDOUT
  "6 all-reduces of M = 134\\.2 MB.*96\\*b\\*s\\*h\\^2 = 26\\.39 TFLOP.*\n 8 +- +article +805\\.3 +- +3\\.299 +1\\.342 ")
tpcost_cli_case("overlap 1 is the seed's max" ARGS sweep --overlap 1 --tp 8,32 RC 0 STDOUT
  "\n 8 .* 2\\.474 +0\\.895 +0\\.000 +2\\.474 .*\n32 .* 0\\.618 +0\\.895 +0\\.276 +0\\.895 ")
tpcost_cli_case("busbw convention charges 2(t-1)/t of the message"
  ARGS sweep --bandwidth-kind busbw --tp 1,8 --format csv RC 0 STDOUT
  "\n1,0\\.019791[0-9]*,0,.*\n8,0\\.002473[0-9]*,0\\.0015658")
tpcost_cli_case("refined csv header" ARGS sweep --sp --tp 2 --format csv RC 0 STDOUT
  "^tp,compute_s,comm_s,serial_s,overlapped_s,ratio,efficiency,comm_share,speedup,step_s,exposed_comm_s,nodes,algorithm,wire_bytes")
tpcost_cli_case("fp8 on the wire halves bf16's wire bytes"
  ARGS sweep --dtype bf16 --comm-dtype fp8 --tp 8 RC 0 STDOUT "wire d=1 B \\(fp8\\).*\n 8 +- +article +134\\.2 ")
tpcost_cli_case("preset sweep: H100 and NDR, the cliff at TP 16 under a rule"
  ARGS sweep --gpu h100-sxm --interconnect ndr --tp 1..64 RC 0 STDOUT
  "hardware: +H100-SXM \\(NVLink 4 \\(NVSwitch\\), 8 GPUs per node; P = its dense bf16 peak\\) \\+ IB-NDR .*inputs: +b=2  s=2048  h=8192  a=64  d=2 B \\(bf16\\)  P=989\\.4 TFLOP/s\nlinks: +intra-node 450 GB/s, α = 3\\.4 us; inter-node 50 GB/s, α = 14 us per NIC, one NIC per GPU; 8 GPUs per node\ncollectives: .*auto .*\n 8 +1 +nvls +302\\.0 +0\\.0 +2\\.500 +1\\.107 .* 69\\.3% +5\\.55x\n-- node boundary: a group of more than 8 GPUs spans nodes and pays the inter-node link -+\n16 +2 +nvls-tree +285\\.2 +62\\.9 +1\\.250 +1\\.523 .* 45\\.1% ")
tpcost_cli_case("preset with fp8 takes the fp8 dense peak" ARGS sweep --gpu h100 --dtype fp8 --tp 8 RC 0
  STDOUT "d=1 B \\(fp8\\)  wire d=2 B \\(bf16\\)  P=1\\.979 PFLOP/s")
tpcost_cli_case("flags override the preset and are listed"
  ARGS sweep --gpu h100 --interconnect ndr --flops 500T --inter-latency 5us --tp 16 RC 0
  STDOUT "given explicitly: --flops, --inter-latency.*P=500 TFLOP/s\nlinks: +intra-node 450 GB/s, α = 3\\.4 us; inter-node 50 GB/s, α = 5 us per NIC, one NIC per GPU")
tpcost_cli_case("preset with the seed's collective: its P and B in the seed's model"
  ARGS sweep --gpu a100 --collective seed --tp 8 RC 0
  STDOUT "\\(the article's model\\)\nhardware: +A100-SXM4-80GB .*P=312 TFLOP/s  B=300 GB/s.*\n 8 +7\\.929 +0\\.895 ")
tpcost_cli_case("GB200 NVL72: 72 GPUs in one NVLink domain"
  ARGS sweep --gpu gb200 --interconnect xdr --tp 8,72,144 RC 0
  STDOUT "\n +72 +1 +[a-z]+ [^\n]*\n-- node boundary: a group of more than 72 GPUs [^\n]*\n144 +2 +nvls-tree ")
tpcost_cli_case("a one-node profile replaces the intra-node link"
  ARGS sweep --gpu h100 --interconnect ndr --interconnect-file ${profiles}/dgx-h100-nvlink.json --tp 8 RC 0
  STDOUT "dgx-h100-nvlink\\.json \\(all-reduce over 8 ranks\\), calibrated: the intra-node link.*links: +intra-node 440\\.1 GB/s, α = 2\\.168 us; inter-node 50 GB/s, α = 14 us per NIC, one NIC per GPU")
tpcost_cli_case("unknown GPU preset" ARGS sweep --gpu h10 RC 2
  STDERR "^tpcost: error: --gpu: 'h10' is not a GPU preset; did you mean 'H100-SXM'\\?")
tpcost_cli_case("a dtype the preset has no rate for" ARGS sweep --gpu a100 --dtype fp8 RC 2
  STDERR "--dtype: A100-SXM4-80GB has no dense fp8 rate \\(Ampere has no FP8 tensor cores\\); give --flops")
tpcost_cli_case("a byte-count dtype with a preset" ARGS sweep --gpu h100 --dtype 2 RC 2
  STDERR "--dtype: a byte count \\(2 B\\) names no peak rate of the H100-SXM preset; give --flops")
tpcost_cli_case("a missing profile" ARGS sweep --interconnect-file ${profiles}/none.json RC 2
  STDERR "--interconnect-file: .*none\\.json: cannot open the file")
tpcost_cli_case("a profile that is a config" ARGS sweep --interconnect-file ${PROJECT_SOURCE_DIR}/examples/configs/llama3-70b-h100.json RC 2
  STDERR "--interconnect-file: .*llama3-70b-h100\\.json: /\\$schema: unknown key")
tpcost_cli_case("a preset's topology still needs whole nodes" ARGS sweep --gpu h100 --interconnect ndr --tp 12 RC 2
  STDERR "--tp: 12 spans nodes of 8 GPUs \\(--gpus-per-node\\) but is not a multiple of 8")
# No network named: the GPU's reference system's NIC (presets.hpp), said on the first line of a
# report, in JSON, and on stderr for the outputs programs read. One rule for every command.
tpcost_cli_case("a GPU preset without an interconnect takes its reference NIC, first line" ARGS sweep --gpu h100 --tp 16
  RC 0 STDOUT "^assumed: --interconnect IB-NDR between nodes, as in the H100-SXM's reference system \\(DGX H100: [^\n]*\\); name yours with --interconnect\n.*inter-node 50 GB/s.*\n16 +2 ")
tpcost_cli_case("the assumed NIC of a B300 is XDR" ARGS sweep --gpu b300 --tp 16
  RC 0 STDOUT "^assumed: --interconnect IB-XDR .*DGX B300.*inter-node 100 GB/s")
tpcost_cli_case("a named interconnect is no assumption" ARGS sweep --gpu h100 --interconnect ib-hdr --tp 16
  RC 0 STDOUT "^TP sweep .*inter-node 25 GB/s")
tpcost_cli_case("the assumed NIC is in the JSON" ARGS sweep --gpu h100 --tp 16 --format json
  RC 0 STDOUT "\"interconnect\": \"IB-NDR\",\n *\"interconnect_assumed\": \"assumed: --interconnect IB-NDR ")
tpcost_cli_case("the assumed NIC goes to stderr beside CSV" ARGS sweep --gpu h100 --tp 16 --format csv
  RC 0 STDOUT "^tp," STDERR "^tpcost: note: assumed: --interconnect IB-NDR ")
tpcost_cli_case("the assumed NIC goes to stderr under -q" ARGS sweep --gpu a100 --tp 16 -q
  RC 0 STDOUT "^TP " STDERR "^tpcost: note: assumed: --interconnect IB-HDR .*DGX A100")

# The refined model's bad input: one line naming the flag, exit 2.
tpcost_cli_case("negative intra latency" ARGS sweep --collective ring --intra-latency -3us RC 2
  STDERR "^tpcost: error: --intra-latency: must be a finite duration >= 0")
tpcost_cli_case("negative inter latency" ARGS sweep --collective ring --inter-bandwidth 50GB/s --inter-latency=-1us RC 2
  STDERR "--inter-latency: must be a finite duration >= 0")
tpcost_cli_case("overlap above 1" ARGS sweep --overlap 1.5 RC 2 STDERR "--overlap: '1\\.5' is not a fraction in \\[0, 1\\]")
tpcost_cli_case("overlap not a number" ARGS sweep --overlap half RC 2 STDERR "--overlap: 'half' is not a number")
tpcost_cli_case("unknown collective" ARGS sweep --collective foo RC 2
  STDERR "--collective: 'foo' is not one of article\\|ring\\|tree\\|hierarchical\\|auto")
tpcost_cli_case("TP 12 spans 8-GPU nodes without filling them"
  ARGS sweep --collective ring --inter-bandwidth 50GB/s --tp 12 RC 2
  STDERR "--tp: 12 spans nodes of 8 GPUs \\(--gpus-per-node\\) but is not a multiple of 8")
tpcost_cli_case("spanning nodes needs an inter-node link" ARGS sweep --collective ring --tp 16 RC 2
  STDERR "--inter-bandwidth: TP 16 spans 2 nodes of 8 GPUs; give the inter-node link")
tpcost_cli_case("topology flags need an alpha-beta collective" ARGS sweep --intra-latency 3us RC 2
  STDERR "--intra-latency: the article's model has one bandwidth \\(--bandwidth\\) and no topology")
tpcost_cli_case("bandwidth kind is the seed's" ARGS sweep --collective ring --bandwidth-kind busbw RC 2
  STDERR "--bandwidth-kind: applies to --collective article only")
tpcost_cli_case("unknown bandwidth kind" ARGS sweep --bandwidth-kind seed RC 2
  STDERR "--bandwidth-kind: 'seed' is not one of algbw\\|busbw")
tpcost_cli_case("unknown recompute mode" ARGS sweep --recompute partial RC 2
  STDERR "--recompute: 'partial' is not a recompute mode; expected none, selective or full")
tpcost_cli_case("unknown wire dtype" ARGS sweep --comm-dtype int4 RC 2 STDERR "--comm-dtype: 'int4' is not a dtype")
tpcost_cli_case("zero heads" ARGS sweep --heads 0 RC 2 STDERR "--heads: 0 is out of range")
tpcost_cli_case("zero GPUs per node" ARGS sweep --collective ring --gpus-per-node 0 RC 2
  STDERR "--gpus-per-node: 0 is out of range")
tpcost_cli_case("a JSON number in a config is SI: B/s" ARGS sweep --config ${PROJECT_SOURCE_DIR}/tests/config/bandwidth_number.json --tp 8 RC 0
  STDOUT "B=300 GB/s")
tpcost_cli_case("zero inter bandwidth" ARGS sweep --collective ring --inter-bandwidth 0 RC 2
  STDERR "--inter-bandwidth: must be a positive finite number")
tpcost_cli_case("intra bandwidth overflow" ARGS sweep --collective ring --tp 8 --intra-bandwidth 1e-300B/s RC 2
  STDERR "--intra-bandwidth: makes the comm time overflow")
tpcost_cli_case("a value error names the file and pointer" ARGS sweep --config ${bad}/../zero_seq_unit.json RC 2
  STDERR "zero_seq_unit\\.json: /hardware/bandwidth: must be a positive finite number of bytes/s")
tpcost_cli_case("the command line overrides the config" ARGS sweep --config ${configs}/llama3-70b-h100.json --tp 4 --format csv
  RC 0 STDOUT "^tp,[^\n]*\n4,")
tpcost_cli_case("print-config merges file and command line" ARGS sweep --config ${configs}/llama3-70b-h100.json --tp 16 --print-config
  RC 0 STDOUT "\"gpu\": \"h100-sxm\".*\"sp\": true.*\"tp\": 16")
tpcost_cli_case("a config sets every refined option" ARGS sweep --config ${PROJECT_SOURCE_DIR}/tests/config/refined_options.json RC 0
  STDOUT "a=32  d=2 B \\(bf16\\)  wire d=1 B \\(fp8\\)  P=989\\.4 TFLOP/s\nlinks: +intra-node 450 GB/s, α = 3 us; inter-node 50 GB/s, α = 10 us per NIC, one NIC per GPU; 4 GPUs per node\ncollectives: 6 all-gathers \\+ 6 reduce-scatters .*ring \\(textbook; across nodes.*options: +SP on, recompute full .*overlap f = 0\\.5\n.*\n 4 +1 +ring .*\n 8 +2 +ring ")
tpcost_cli_case("the command line overrides a boolean and a fraction of the config"
  ARGS sweep --config ${PROJECT_SOURCE_DIR}/tests/config/refined_options.json --sp=false --overlap 0 RC 0
  STDOUT "options: +SP off, recompute full .*overlap f = 0\n")
tpcost_cli_case("print-config shows the profile path resolved and absolute"
  ARGS sweep --config ${PROJECT_SOURCE_DIR}/tests/config/profile_relative.json --print-config RC 0
  STDOUT "\"interconnect_file\": \"/[^\"]*tests/config/profiles/dgx-h100-nvlink\\.json\"")
tpcost_cli_case("sweep refuses an MoE model by name" ARGS sweep --model qwen3-30b-a3b RC 2 STDERR
  "--model: the model has mixture-of-experts layers")
tpcost_cli_case("quiet prints the table alone" ARGS sweep --quiet RC 0 STDOUT
  "^TP  compute ms  comm ms[^\n]*\n 1 [^\n]*\n 2 .*\n32 [^\n]*\n$")
tpcost_cli_case("chart below the table" ARGS sweep --chart RC 0 ENV LANG=C.UTF-8 LC_ALL= LC_CTYPE= STDOUT
  "40\\.9%.*Efficiency E = 1/\\(1\\+R\\).*t\\*=22\\.1.*TP degree t \\(log2 scale\\).*Time per layer.*32 │")
tpcost_cli_case("chart in ASCII under the C locale" ARGS sweep --chart RC 0 ENV LANG=C LC_ALL= LC_CTYPE= STDOUT
  "100% \\+.*\n 1 \\|#+=+ +20\\.686 ms")
tpcost_cli_case("no colour in a pipe by default" ARGS sweep --chart RC 0 ENV LANG=C.UTF-8 LC_ALL= LC_CTYPE= STDOUT
  "^[^${TPCOST_ESC}]*$")
tpcost_cli_case("colour when asked, even with NO_COLOR" ARGS sweep --chart --color always RC 0
  ENV LANG=C.UTF-8 LC_ALL= LC_CTYPE= NO_COLOR=1 STDOUT "${TPCOST_ESC}.32m")  # "." for "[": an open bracket would join list items
tpcost_cli_case("--color never" ARGS sweep --chart --color never RC 0 STDOUT "^[^${TPCOST_ESC}]*$")
tpcost_cli_case("chart needs a table" ARGS sweep --chart --format json RC 2 STDERR
  "^tpcost: error: --chart: charts are drawn below a table")
tpcost_cli_case("bad colour mode" ARGS sweep --chart --color sometimes RC 2 STDERR
  "--color: 'sometimes' is not one of auto\\|always\\|never")
tpcost_cli_case("plot needs svg or png" ARGS sweep --plot out.pdf RC 2 STDERR
  "--plot: 'out.pdf' must end in .svg or .png")
tpcost_cli_case("gnuplot missing names the package" ARGS sweep --plot out.svg RC 5
  ENV TPCOST_GNUPLOT=/nonexistent/gnuplot STDERR
  "--plot: gnuplot not found .*install the Debian package gnuplot-nox")
tpcost_cli_case("gnuplot failing is reported" ARGS sweep --plot out.svg RC 5
  ENV TPCOST_GNUPLOT=/bin/false STDERR "--plot: '/bin/false' failed")
tpcost_cli_case("unwritable plot script" ARGS sweep --plot-script /nonexistent/dir/x.gp RC 3 STDERR
  "--plot-script: '/nonexistent/dir/x\\.gp' cannot be written: No such file or directory")
tpcost_cli_case("sweep --model takes h, s and heads from the preset" ARGS sweep --model gpt-3-175b --tp 8 --gpu a100
  RC 0 STDOUT "inputs: +b=2  s=2048  h=12288  a=96 ")
tpcost_cli_case("sweep --recompute selective changes the activation memory alone" ARGS sweep --recompute selective --tp 8 --collective ring
  RC 0 STDOUT "options: +SP off, recompute selective \\(72\\*b\\*s\\*h\\^2")
tpcost_cli_case("sweep --hf-config takes the config's layer, and s from --seq"
  ARGS sweep --hf-config ${PROJECT_SOURCE_DIR}/examples/hf/llama-3-8b.json --seq 4k --tp 2 RC 0
  STDOUT "inputs: +b=2  s=4096  h=4096  a=32  d=4 B \\(fp32\\)  kv=8  f=14336 \\(gated MLP\\)"
  STDERR "^tpcost: note: no hardware named: the article's hypothetical device \\(P = 1 PFLOP/s, B = 600 GB/s\\), not a real GPU; name yours with --gpu \\(and --interconnect\\)\n$")
# A model swept without hardware flags: one note says whose device it is; none with a GPU.
tpcost_cli_case("sweep --model without hardware notes the article's hypothetical device"
  ARGS sweep --model llama-3-70b --tp 8 --format json RC 0 STDOUT "\"critical_tp\""
  STDERR "^tpcost: note: no hardware named: the article's hypothetical device \\(P = 1 PFLOP/s, B = 600 GB/s\\)")
tpcost_cli_case("sweep --model --flops: B alone is the hypothetical device's"
  ARGS sweep --model llama-3-70b --tp 8 --flops 989.4T RC 0
  STDERR "^tpcost: note: B = 600 GB/s is the article's hypothetical device's, not a real GPU's; name yours with --gpu or --bandwidth\n$")
tpcost_cli_case("sweep --model --gpu: no note"
  ARGS sweep --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --tp 8 RC 0
  STDOUT "hardware: +H100-SXM")
# A degree the model cannot take is skipped with a note, not the end of the sweep.
tpcost_cli_case("sweep skips a degree the model cannot take"
  ARGS sweep --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --tp 1,3,8 RC 0
  STDOUT "\n 1 [^\n]*\n 8 "
  STDERR "^tpcost: note: --tp: skipped 3: t must divide the model's 64 attention heads, 8 KV heads and MLP size 28672 \\(as in step\\)\n$")
tpcost_cli_case("sweep: no degree the model can take is one error line"
  ARGS sweep --model llama-3-70b --tp 3,5,16 RC 2
  STDERR "^tpcost: error: --tp: the model takes none of 3, 5, 16: t must divide the model's 64 attention heads, 8 KV heads")
tpcost_cli_case("sweep takes --model or --hf-config, not both"
  ARGS sweep --hf-config ${PROJECT_SOURCE_DIR}/examples/hf/llama-3-8b.json --model gpt-3-175b RC 2
  STDERR "--hf-config: give --model NAME or --hf-config FILE, not both")
tpcost_cli_case("a stray value is named, not a flag" ARGS sweep 512 RC 2
  STDERR "tpcost sweep: unexpected argument '512'")
tpcost_cli_case("sizes: --seq 8k is 8192" ARGS sweep --seq 8k --tp 1 --format csv RC 0 STDOUT "\n1,0\\.0791")
tpcost_cli_case("sizes: a fractional size that is not whole is refused" ARGS sweep --seq 1.3k RC 2
  STDERR "--seq: '1\\.3k' is not a whole number")
tpcost_cli_case("percentages: --min-efficiency 70% is 0.7" ARGS sweep --min-efficiency 70% RC 0
  STDOUT "t <= 9\\.48; largest swept TP meeting it: 8")
tpcost_cli_case("percentages: --overlap 150% is out of range" ARGS sweep --overlap 150% RC 2
  STDERR "--overlap: '150%' is not a fraction in \\[0, 1\\]")
tpcost_cli_case("ASCII: --ascii spells the formulas' symbols in ASCII" ARGS sweep --gpu h100-sxm --interconnect ib-ndr --ascii RC 0
  STDOUT "alpha = 3\\.4 us.*\\(mu = ")
tpcost_cli_case("ASCII: under LANG=C every byte of the text output is ASCII" ARGS sweep --gpu h100-sxm --interconnect ib-ndr --chart RC 0
  ENV LANG=C LC_ALL= LC_CTYPE= STDOUT "^[\t\n -~]+$")
tpcost_cli_case("ASCII: JSON stays UTF-8 under LANG=C" ARGS sweep --gpu h100-sxm --interconnect ib-ndr --format json RC 0
  ENV LANG=C LC_ALL= LC_CTYPE= STDOUT "\"tp\"")
tpcost_cli_case("CSV: sweep --no-header" ARGS sweep --tp 1 --format csv --no-header RC 0 STDOUT "^1,0\\.019791")
tpcost_cli_case("CSV: --no-header needs csv" ARGS sweep --no-header RC 2 STDERR "--no-header: applies to --format csv only")
tpcost_cli_case("the article's model is called article, and its old name seed is still read"
  ARGS sweep --collective seed --sp --tp 8 -q RC 0 STDOUT "\n 8 +- +article +")
tpcost_cli_case("sweep --pessimistic: sweep has no band" ARGS sweep --pessimistic
  RC 2 STDERR "^tpcost: error: tpcost sweep: unknown flag '--pessimistic'")
