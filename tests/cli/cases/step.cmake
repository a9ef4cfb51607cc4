# End-to-end cases of `tpcost step`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

tpcost_cli_case("step: DOES NOT FIT is the first line, then the assumed NIC"
  ARGS step --model llama-3-70b --gpu h100 --gpus 64 -t 8 -G 512
  --stack megatron-core RC 0 STDOUT "^DOES NOT FIT: [^\n]*\nassumed: --interconnect IB-NDR [^\n]*\nTraining step: llama-3-70b on 64 x H100-SXM, IB-NDR between nodes\n.*inter-node 50 GB/s")
tpcost_cli_case("step: the assumed NIC is in the JSON" ARGS step --model llama-3-8b --gpu b200 --gpus 16 -G 64 --format json
  RC 0 STDOUT "\"interconnect\": \"IB-NDR\",\n *\"interconnect_assumed\": \"assumed: --interconnect IB-NDR [^\"]*DGX B200")
tpcost_cli_case("step: a named interconnect is no assumption" ARGS step --model llama-3-8b --gpu h100 --interconnect ib-ndr --gpus 16 -G 64 --format json
  RC 0 STDOUT "\"interconnect_assumed\": null")
tpcost_cli_case("step --recompute-modules names the modules and frees their memory"
  ARGS ${rc_step} --recompute selective --recompute-modules core_attn,mlp RC 0
  STDOUT "recompute selective \\(core_attn,mlp\\).*activations 8\\.0 GiB")
tpcost_cli_case("step --recompute-method block --recompute-num-layers recomputes part of each chunk"
  ARGS ${rc_step} --recompute full --recompute-method block --recompute-num-layers 5 RC 0
  STDOUT "recompute full \\(block 5\\).*recompute_layers +block 5 +flag: --recompute-method block")
tpcost_cli_case("unknown recompute module: one line, exit 2"
  ARGS ${rc_step} --recompute selective --recompute-modules core_attn,attn RC 2
  STDERR "^tpcost: error: --recompute-modules: 'attn' is not a recompute module; expected core_attn, moe_act, layernorm, mla_up_proj, mlp, moe or shared_experts")
tpcost_cli_case("recompute modules without selective recomputation: exit 2"
  ARGS ${rc_step} --recompute full --recompute-modules mlp RC 2
  STDERR "--recompute-modules: applies to --recompute selective only")
tpcost_cli_case("recompute-num-layers above a chunk's layers: one line, exit 2"
  ARGS ${rc_step} --recompute full --recompute-num-layers 21 RC 2
  STDERR "^tpcost: error: --recompute-num-layers: 21 is out of range; expected 1\\.\\.20, the layers of a model chunk \\(L/\\(p\\*v\\) = 80/4\\)")
tpcost_cli_case("negative --recompute-num-layers: one line, exit 2"
  ARGS ${rc_step} --recompute full --recompute-method block --recompute-num-layers -1 RC 2
  STDERR "^tpcost: error: --recompute-num-layers: -1 is out of range; expected 0\\.\\.20")
tpcost_cli_case("unknown recompute method: exit 2"
  ARGS ${rc_step} --recompute full --recompute-method blocks RC 2
  STDERR "--recompute-method: 'blocks' is not a recompute method; expected uniform or block")
tpcost_cli_case("CPU offloading with pipelines is refused as Megatron refuses it: exit 2"
  ARGS ${rc_step} --cpu-offloading-num-layers 4 RC 2
  STDERR "--cpu-offloading-num-layers: needs p = 1 and no recomputation")
# --fine-grained-activation-offloading with --offload-modules (Megatron-Core core_v0.16.0):
# listed, the memory it frees, and each refusal of TransformerConfig.__post_init__ in one line.
tpcost_cli_case("step --fine-grained-activation-offloading lists the modules, the copies uncosted"
  ARGS ${rc_step} --recompute selective --fine-grained-activation-offloading --offload-modules qkv_linear,core_attn,attn_proj RC 0
  STDOUT "offload_modules +qkv_linear,core_attn,attn_proj +flag: --fine-grained-activation-offloading: what these modules save leaves the GPU[^\n]*not costed in the step time.*activations 17\\.0 GiB")
tpcost_cli_case("unknown offload module: one line, exit 2"
  ARGS ${rc_step} --fine-grained-activation-offloading --offload-modules core_attn,mlp RC 2
  STDOUT "^$" STDERR "^tpcost: error: --offload-modules: 'mlp' is not an offload module; expected attn_norm, qkv_linear, core_attn, attn_proj, mlp_norm, expert_fc1 or moe_act\n$")
tpcost_cli_case("offload module attn_proj without core_attn: one line, exit 2"
  ARGS ${rc_step} --fine-grained-activation-offloading --offload-modules qkv_linear,attn_proj RC 2
  STDOUT "^$" STDERR "^tpcost: error: --offload-modules: attn_proj needs core_attn too [^\n]*\n$")
tpcost_cli_case("fine-grained offloading without modules: one line, exit 2"
  ARGS ${rc_step} --fine-grained-activation-offloading RC 2
  STDOUT "^$" STDERR "^tpcost: error: --offload-modules: is empty; fine-grained activation offloading needs at least one module [^\n]*\n$")
tpcost_cli_case("fine-grained offloading with --cpu-offloading-num-layers: one line, exit 2"
  ARGS step --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 8 -G 64 --cpu-offloading-num-layers 4 --fine-grained-activation-offloading --offload-modules core_attn RC 2
  STDOUT "^$" STDERR "^tpcost: error: --fine-grained-activation-offloading: cannot be used with --cpu-offloading-num-layers [^\n]*\n$")
tpcost_cli_case("--offload-modules without the switch: one line, exit 2"
  ARGS ${rc_step} --offload-modules core_attn RC 2
  STDOUT "^$" STDERR "^tpcost: error: --offload-modules: needs --fine-grained-activation-offloading [^\n]*\n$")
tpcost_cli_case("fine-grained offloading under torchtitan's stack: one line, exit 2"
  ARGS step --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 8 -G 64 --stack fsdp2 --fine-grained-activation-offloading --offload-modules core_attn RC 2
  STDOUT "^$" STDERR "^tpcost: error: --fine-grained-activation-offloading: is Megatron-Core's[^\n]*\n$")
tpcost_cli_case("a bandwidth without a unit is refused, with the units it takes"
  ARGS step --model llama-3-8b --gpu h100 --gpus 16 --tp 16 --global-batch 16 --inter-bandwidth 400 RC 2
  STDOUT "^$" STDERR "^tpcost: error: --inter-bandwidth: '400' has no unit; expected a bandwidth such as 600GB/s, 600e9B/s or 200Gb/s \\(bits\\)\n$")
tpcost_cli_case("step --model qwen3-32b"
  ARGS step --model qwen3-32b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --tp 8 -G 256 RC 0
  STDOUT "Training step: qwen3-32b on 64 x H100-SXM")
tpcost_cli_case("step costs GPT-OSS's config.json with its 128-token windows on alternate layers" ARGS step --hf-config ${hf}/gpt-oss-120b.json --seq 4096 --gpu H100-SXM --gpus 64 --ep 8 --global-batch 512 --stack megatron-core RC 0 STDOUT
  "step time 6\\.363 s")
tpcost_cli_case("step's model-FLOPs line under --mfu-flops megatron names the windows Megatron-LM's count leaves full" ARGS step --model gpt-oss-120b --gpu H100-SXM --gpus 64 --ep 8 --global-batch 512 --mfu-flops megatron RC 0 STDOUT
  "model FLOPs: Megatron-LM's num_floating_point_operations \\(causal attention halved, no router\\), the 18 windowed layers of 36 on their window of 128 \\(Megatron-LM's own count leaves them full\\); --mfu-flops full")
tpcost_cli_case("context parallelism with a window shorter than s is refused" ARGS step --model gpt-oss-120b --gpu H100-SXM --gpus 64 --ep 8 --cp 2 --global-batch 512 RC 2 STDERR
  "--cp: context parallelism with sliding-window or chunked attention is not modelled")
tpcost_cli_case("step costs an MoE model with its experts" ARGS step --model mixtral-8x7b --gpu H100-SXM --gpus 8 --global-batch 8 --ep 8 RC 0 STDOUT
  "experts: 32 MoE layers, E=8 top-2; EP=8 ETP=1 expert-DP=1")
tpcost_cli_case("step prints the breakdown, MFU/HFU and memory" ARGS ${step_175b} RC 0 STDOUT
  "t=8 p=16 d=8  b=1 G=1536 m=192.*MFU [0-9.]+%   HFU [0-9.]+%.*exposed TP collectives.*pipeline bubble.*p2p between stages.*exposed DP sync.*optimizer step.*memory per GPU.*fits")
tpcost_cli_case("step explains the accumulation point" ARGS ${step_175b} --stack megatron-core RC 0 STDOUT
  "m = 192 micro-batches per step\\. TP: 6 collectives of 50\\.33 MB per layer.*accumulation divides the DP cost by m, never the TP cost")
tpcost_cli_case("step derives d from --gpus" ARGS step --gpu a100-sxm4-80gb --model llama-3-8b --gpus 64 --tp 2 --pp 2 --global-batch 512 RC 0
  STDOUT "t=2 p=2 d=16 ")
tpcost_cli_case("step reports a layout that does not fit" ARGS step --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 8 --tp 8 --global-batch 8 RC 0
  STDOUT "DOES NOT FIT, [0-9.]+ GiB over")
tpcost_cli_case("step: N not a multiple of t*p" ARGS step --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 1000 --tp 8 --pp 16 --global-batch 1536 RC 2
  STDERR "--gpus: 1000 GPUs are not a multiple of t\\*p = 128")
tpcost_cli_case("step: t*p*d is not N" ARGS step --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 1024 --tp 8 --pp 16 --dp 4 --global-batch 1536 RC 2
  STDERR "--gpus: t\\*p\\*d = 8\\*16\\*4 = 512 is not N = 1024")
tpcost_cli_case("step: G not a multiple of d*b" ARGS step --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 1024 --tp 8 --pp 16 --global-batch 1540 RC 2
  STDERR "--global-batch: G = 1540 is not a multiple of d\\*b = 8\\*1 = 8; use a multiple, e\\.g\\. 1544")
tpcost_cli_case("step: t does not divide the heads" ARGS step --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 1280 --tp 10 --pp 16 --global-batch 1536 RC 2
  STDERR "--tp: t = 10 does not divide the 96 attention heads")
tpcost_cli_case("step: p does not fit the layers" ARGS step --gpu a100-sxm4-80gb --model megatron-1.7b --gpus 256 --tp 1 --pp 32 --global-batch 512 RC 2
  STDERR "--pp: p = 32 stages for 24 layers")
tpcost_cli_case("step: global batch is required" ARGS step --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 1024 --tp 8 --pp 16 RC 2
  STDERR "--global-batch: is required")
tpcost_cli_case("step: unknown GPU preset" ARGS step --model gpt-3-175b --gpu h1OO --global-batch 8 RC 2
  STDERR "--gpu: 'h1OO' is not a GPU preset")
tpcost_cli_case("step: overlap outside [0,1]" ARGS step --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --global-batch 8 --dp-overlap 1.5 RC 2
  STDERR "--dp-overlap: '1\\.5' is not a fraction in \\[0, 1\\]")
tpcost_cli_case("step: unknown attention kernel" ARGS step --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --global-batch 8 --attention flash2 RC 2
  STDERR "--attention: 'flash2' is not one of fused\\|unfused")
tpcost_cli_case("step: fused attention keeps no s*s scores, a 32k sequence fits" ARGS ${step_8b_32k} --stack megatron-core RC 0 STDOUT
  "recompute none  SP on  ZeRO 1  attention fused\n.*memory per GPU \\(fullest stage 0, fused attention\\): .*activations 42\\.1 GiB = 64\\.5 GiB of 80\\.0 GiB: fits")
tpcost_cli_case("step: unfused attention keeps the scores, the same 32k layout does not fit" ARGS ${step_8b_32k} --attention unfused RC 0 STDOUT
  "attention unfused\n.*memory per GPU \\(fullest stage 0, unfused attention\\): .*DOES NOT FIT")
tpcost_cli_case("step --format json names the attention kernel" ARGS ${step_8b_32k} --format json RC 0 STDOUT
  "\"attention\": \"fused\"")
tpcost_cli_case("step: TP across nodes needs whole nodes" ARGS step --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 1536 --tp 12 --pp 16 --global-batch 1536 RC 2
  STDERR "--tp: 12 spans nodes of 8 GPUs")
tpcost_cli_case("step --cp: Llama 3 405B at 128k shows the CP exchange and what is hidden" ARGS ${step_405b_cp} RC 0 STDOUT
  "layout:  t=8 p=16 cp=16 d=8  b=1 G=128 m=16 .*context parallel: cp=16 p2p, causal 2\\*cp = 32 chunks, 8192 tokens per rank; exchange per layer and micro-batch [0-9.]+ MB sent, [0-9.]+ ms \\([0-9.]+ ms forward, [0-9.]+ ms backward\\), exposed 0 ns; per step exposed 0 ns, hidden behind attention 1\\.[0-9]+ s\n.*MFU [0-9.]+% of BF16 peak   HFU.*  exposed CP exchange +0 ns +0\\.0%\n  step ")
tpcost_cli_case("step --cp --format json: the CP exchange per layer and per step" ARGS ${step_405b_cp} --format json RC 0 STDOUT
  "\"context_parallel\": \\{\n +\"chunks\": 32,\n +\"comm_type\": \"p2p\",\n +\"cp\": 16,\n +\"per_layer_micro_batch\": \\{\n +\"backward_s\": [0-9.e-]+,\n +\"exposed_s\": 0\\.0,\n +\"forward_s\": [0-9.e-]+,\n +\"hidden_s\": [0-9.e-]+,\n +\"sent_bytes\": [0-9.e+]+\n +\\},\n +\"per_step\": \\{\n +\"exposed_s\": 0\\.0,\n +\"hidden_s\": 1\\.[0-9]+\n")
tpcost_cli_case("step --precision fp8: both MFUs, labelled" ARGS ${step_405b_cp} --precision fp8 RC 0 STDOUT
  "precision: linear layers fp8-delayed \\(TE DelayedScaling\\) at the FP8 peak 1\\.979 PFLOP/s, attention core BF16, logits BF16\n.*linear layers at the FP8 rate -[0-9.]+ s\n.*MFU [0-9.]+% of BF16 peak, [0-9.]+% of FP8 peak   HFU")
tpcost_cli_case("step --precision fp8 --format json: the precision and both MFUs" ARGS ${step_405b_cp} --precision fp8 --format json RC 0 STDOUT
  "\"mfu_bf16_peak\": 0\\.[0-9]+,\n +\"mfu_precision_peak\": 0\\.[0-9]+,\n +\"mfu_precision_peak_rate\": \"fp8\",.*\"precision\": \\{\n +\"attention\": \"bf16\",\n +\"fp8_param_gather\": false,\n +\"linear\": \"fp8-delayed\",\n +\"linear_peak_flops_per_s\": 1\\.9789e\\+15,\n +\"logits\": \"bf16\"")
tpcost_cli_case("step --cp-comm-type all_gather: Llama 3's all-gather is exposed" ARGS ${step_8b_cp} --cp-comm-type all_gather RC 0 STDOUT
  "context parallel: cp=8 all_gather, [^\n]* exposed [1-9][0-9.]* ms; per step exposed [1-9][0-9.]* ms, hidden behind attention 0 ns")
tpcost_cli_case("step --cp-comm-type a2a+p2p --hierarchical-cp-sizes" ARGS ${step_8b_cp} --cp-comm-type a2a+p2p --hierarchical-cp-sizes 2,4 RC 0 STDOUT
  "context parallel: cp=8 a2a\\+p2p, ")
tpcost_cli_case("step --fp8-attention: the attention core in FP8, Q,K,V exchanged in 1 byte" ARGS ${step_8b_cp} --precision fp8 --fp8-attention RC 0 STDOUT
  "attention core FP8, logits BF16\ncontext parallel: [^\n]*469\\.8 MB sent")
tpcost_cli_case("step --fp8-param-gather: the FP8 copy is the parameter, no BF16 weight" ARGS ${step_8b_cp} --precision fp8 --fp8-param-gather RC 0 STDOUT
  "parameters in FP8 \\(--fp8-param-gather\\)\n.*memory per GPU [^\n]*weights 7\\.5 GiB")
tpcost_cli_case("step --precision fp8 keeps the FP8 weight and its Hopper transpose" ARGS ${step_8b_cp} --precision fp8 RC 0 STDOUT
  "memory per GPU [^\n]*weights 14\\.0 GiB")
tpcost_cli_case("step reads the recompute recipe keys of a config" ARGS step --config ${PROJECT_SOURCE_DIR}/tests/config/step/recompute_recipe.json RC 0 STDOUT
  "recompute full \\(block 5\\).*recompute_layers +block 5 .*activations 17\\.3 GiB")
tpcost_cli_case("step reads the CP and precision keys of a config" ARGS step --config ${PROJECT_SOURCE_DIR}/tests/config/step/cp_fp8_h100.json RC 0 STDOUT
  "t=2 p=1 cp=8 d=4 .*attention core FP8, logits BF16, parameters in FP8 \\(--fp8-param-gather\\)\ncontext parallel: cp=8 all_gather")
tpcost_cli_case("step: cp must divide s in 2*cp chunks" ARGS ${step_8b} --gpus 48 --cp 3 --seq 131072 RC 2
  STDERR "^tpcost: error: --cp: 3 does not fit seq = 131072: causal load balancing cuts the sequence into 2\\*cp = 6 equal chunks")
tpcost_cli_case("step: t*p*cp*d is not N" ARGS ${step_8b} --gpus 64 --tp 2 --cp 4 --dp 4 --seq 131072 RC 2
  STDERR "^tpcost: error: --gpus: t\\*p\\*cp\\*d = 2\\*1\\*4\\*4 = 32 is not N = 64")
tpcost_cli_case("step: N not a multiple of t*p*cp" ARGS ${step_8b} --gpus 60 --tp 2 --cp 4 --seq 131072 RC 2
  STDERR "^tpcost: error: --gpus: 60 GPUs are not a multiple of t\\*p\\*cp = 8; choose t, p and cp whose product divides N")
tpcost_cli_case("step: --cp 0" ARGS ${step_8b} --cp 0 RC 2 STDERR "^tpcost: error: --cp: 0 is out of range; expected cp >= 1")
tpcost_cli_case("step: a2a needs the heads of a TP rank to divide by cp" ARGS ${step_8b_cp} --cp-comm-type a2a RC 2
  STDERR "^tpcost: error: --cp: a2a splits the heads of a TP rank \\(16 query, 4 KV\\) over 8 ranks, which does not divide them; use --cp-comm-type p2p or all_gather")
tpcost_cli_case("step: unknown CP communication type" ARGS ${step_8b_cp} --cp-comm-type ring RC 2
  STDERR "^tpcost: error: --cp-comm-type: 'ring' is not a CP communication type; expected p2p, all_gather, a2a or a2a\\+p2p")
tpcost_cli_case("step: hierarchical CP sizes must multiply to cp" ARGS ${step_8b_cp} --cp-comm-type a2a+p2p --hierarchical-cp-sizes 2,2 RC 2
  STDERR "^tpcost: error: --hierarchical-cp-sizes: 2,2: the sizes' product must be cp = 8")
tpcost_cli_case("step: hierarchical CP sizes without a2a+p2p" ARGS ${step_8b_cp} --hierarchical-cp-sizes 2,4 RC 2
  STDERR "^tpcost: error: --hierarchical-cp-sizes: applies to --cp-comm-type a2a\\+p2p only")
tpcost_cli_case("step: CP needs the fused attention kernel" ARGS ${step_8b_cp} --attention unfused RC 2
  STDERR "--attention fused")
tpcost_cli_case("step: nvfp4 on a GPU without FP4" ARGS ${step_8b} --gpus 64 --precision nvfp4 RC 2
  STDERR "^tpcost: error: --precision: nvfp4 needs NVFP4 tensor cores, NVIDIA Blackwell or later; H100-SXM has none \\(give --precision bf16 or fp8\\)")
tpcost_cli_case("step: fp8 on A100" ARGS step --model llama-3-8b --gpu a100-sxm4-80gb --interconnect ib-hdr --gpus 64 --global-batch 64 --precision fp8 RC 2
  STDERR "^tpcost: error: --precision: fp8-delayed needs FP8 tensor cores; A100-SXM4-80GB has none \\(give --precision bf16\\)")
tpcost_cli_case("step: --dtype fp8 on A100 is refused as --precision fp8" ARGS step --model llama-3-8b --gpu a100-sxm4-80gb --interconnect ib-hdr --gpus 64 --global-batch 64 --dtype fp8 RC 2
  STDERR "A100-SXM4-80GB has none")
tpcost_cli_case("step: --dtype fp8 contradicting --precision" ARGS ${step_8b} --gpus 64 --dtype fp8 --precision mxfp8 RC 2
  STDERR "^tpcost: error: --dtype: fp8 means --precision fp8 \\(fp8-delayed\\); it contradicts --precision mxfp8: give one of them")
tpcost_cli_case("step: mxfp8 before Blackwell" ARGS ${step_8b} --gpus 64 --precision mxfp8 RC 2
  STDERR "^tpcost: error: --precision: mxfp8 needs block-scaled \\(MX\\) tensor cores")
tpcost_cli_case("step: unknown precision" ARGS ${step_8b} --gpus 64 --precision fp6 RC 2
  STDERR "^tpcost: error: --precision: 'fp6' is not a precision; expected bf16, fp8")
tpcost_cli_case("step: --fp8-param-gather needs an FP8 precision" ARGS ${step_8b} --gpus 64 --fp8-param-gather RC 2
  STDERR "^tpcost: error: --precision: --fp8-param-gather needs an FP8 precision")
tpcost_cli_case("step: nvfp4 on B200" ARGS step --model llama-3-8b --gpu b200 --interconnect ib-ndr --gpus 64 --global-batch 64 --precision nvfp4 RC 0 STDOUT
  "linear layers nvfp4 \\(TE NVFP4BlockScaling\\) at the FP4 peak 9 PFLOP/s.*MFU [0-9.]+% of BF16 peak, [0-9.]+% of FP4 peak")
tpcost_cli_case("step reads a config file, flags override it" ARGS step --config ${PROJECT_SOURCE_DIR}/examples/step/gpt3-175b-1024-a100.json --pp 8
  RC 0 STDOUT "t=8 p=8 d=16  b=1 G=1536 m=96  v=1  recompute full")
tpcost_cli_case("step reads the step keys of a config" ARGS step --config ${configs}/llama3-70b-h100.json
  RC 0 STDOUT "layout: +t=4 p=4 d=32  b=1 G=512 m=16  v=5  recompute selective  SP on  ZeRO 1  attention fused\n")

# A CLI that forgives and fits the shell (issue 16).
tpcost_cli_case("did you mean: a mistyped flag names itself and the flag meant" ARGS step --global-bach 512 RC 2
  STDERR "^tpcost: error: tpcost step: unknown flag '--global-bach'; did you mean '--global-batch'\\? \\(see tpcost step --help\\)\n$")
tpcost_cli_case("short flags: -s -G -n -t -p -m -g -i in step" ARGS step -m llama-3-8b -g h100-sxm -i ib-ndr -n 16 -t 4 -p 2 -G 64 -s 4096 RC 0
  STDOUT "t=4 p=2 d=2 ")
tpcost_cli_case("sizes: 32K in step" ARGS step -m llama-3-8b -g h100-sxm -i ib-ndr -n 8 -t 8 -G 8 -s 32K --format json RC 0
  STDOUT "\"seq\": 32768")
tpcost_cli_case("no silent hardware: step without --gpu says how to name it" ARGS step -m llama-3-8b -G 8 RC 2
  STDERR "^tpcost: error: --gpu: no GPU given; name the hardware, e.g. --gpu h100-sxm --interconnect ib-ndr \\('tpcost hardware list'")

tpcost_cli_case("CSV: step, one row with the layout and the step time" ARGS step -m llama-3-8b -g h100-sxm -i ib-ndr -n 16 -t 8 -G 64 -s 4096 --format csv --stack megatron-core RC 0
  STDOUT "^model,tp,pp,dp,vpp,micro_batch,global_batch,sp,recompute,zero,step_s,.*,fits,cp,cp_comm_exposed_s,cp_comm_type,cp_comm_hidden_s,precision,mfu_precision_peak,mfu_precision_peak_rate\nllama-3-8b,8,1,2,1,1,64,off,none,0,[0-9.e-]+,.*,yes,1,0,none,0,bf16,0\\.[0-9]+,bf16\n$")
tpcost_cli_case("CSV: step with CP and FP8 carries the exchange, the recipe and both MFUs"
  ARGS step --model llama-3-8b --seq 131072 --gpu h100-sxm --interconnect ib-ndr --gpus 64 --tp 2
  --cp 8 --global-batch 8 --sp --zero 1 --precision fp8 --format csv --no-header RC 0
  STDOUT "^llama-3-8b,2,1,4,[^\n]*,yes,8,0,p2p,[0-9.e-]+,fp8-delayed,0\\.[0-9]+,fp8\n$")
tpcost_cli_case("CSV: --no-header leaves the rows" ARGS step -m llama-3-8b -g h100-sxm -i ib-ndr -n 16 -t 8 -G 64 -s 4096 --format csv --no-header RC 0
  STDOUT "^llama-3-8b,8,1,2,")

# -q means what it means in sweep: the table alone; the notes, if any, on stderr.
tpcost_cli_case("step -q prints the breakdown table alone"
  ARGS step --model llama-3-8b --gpu h100 --interconnect ib-ndr --gpus 8 -t 8 -G 64 --seq 4k -q
  RC 0 STDOUT "^breakdown on the critical GPU +time +share\n  compute \\(recompute included\\) [^\n]*\n(  [a-z][^\n]*\n)*  step +[0-9.]+ [mu]?s +100\\.0%\n$")
tpcost_cli_case("step -q says its assumption and a misfit on stderr"
  ARGS step --model llama-3-70b --gpu h100 --gpus 64 -t 8 -G 512 -q
  --stack megatron-core RC 0 STDOUT "^breakdown on the critical GPU"
  STDERR "^tpcost: note: assumed: --interconnect IB-NDR [^\n]*\ntpcost: warning: DOES NOT FIT: the fullest stage needs [0-9.]+ GiB per GPU of the 80\\.0 GiB there is\n$")
tpcost_cli_case("step says what DP sends under ZeRO-1: once per step"
  ARGS step --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --tp 2 -G 256 --zero 1
  --stack megatron-core RC 0 STDOUT "DP: the distributed optimizer reduce-scatters 16\\.06 GB of gradients and all-gathers the updated weights once per step")
tpcost_cli_case("step says what DP sends under ZeRO-2: every micro-batch"
  ARGS step --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --tp 2 -G 256 --zero 2 --stack deepspeed
  RC 0 STDOUT "DP: ZeRO-2 reduce-scatters [0-9.]+ GB of gradients every micro-batch and all-gathers the weights once \\(ring, [0-9.]+ ms per step\\): accumulation does not divide")
tpcost_cli_case("step says how MFU counts FLOPs, and --mfu-flops megatron halves causal attention"
  ARGS step --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --tp 4 --pp 4 --pp-layout first=19,last=19 -G 512 --sp --zero 1 --mfu-flops megatron
  --stack megatron-core RC 0 STDOUT "\nMFU 49\\.9%   HFU 49\\.9% [^\n]*\nmodel FLOPs: Megatron-LM's num_floating_point_operations \\(causal attention halved")
tpcost_cli_case("--mfu-flops takes full or megatron"
  ARGS step --model llama-3-8b --gpu h100-sxm --gpus 8 -G 8 --mfu-flops palm
  RC 2 STDERR "^tpcost: error: --mfu-flops: 'palm' is not one of full\\|megatron\n$")
tpcost_cli_case("step prints the stack profile and where each default comes from" ARGS ${stack_step} --stack megatron-core RC 0 STDOUT
  "\nstack: +megatron-core \\(NVIDIA/Megatron-LM core_v0\\.16\\.0[^\n]*\n +attention +fused +default: megatron/core/transformer/enums\\.py[^\n]*\n +selective_recompute +attention core +default: megatron/core/transformer/transformer_config\\.py[^\n]*\n[^\n]*\n +input_grad_overlap +all-reduce\\+reduce-scatter +default: megatron/core/tensor_parallel/layers\\.py[^\n]*\n +sp_input_regather +yes +default: megatron/core/tensor_parallel/layers\\.py[^\n]*\n +tp_contention +0\\.51 +default: fitted: [^\n]*\n[^\n]*\n[^\n]*\n +grad_wire_bytes +4 B \\(fp32\\) +default: megatron/training/arguments\\.py")
tpcost_cli_case("step without --stack runs the megatron-bridge recipes, and says so" ARGS ${stack_step} RC 0 STDOUT
  "\nlayout: [^\n]* SP on  ZeRO 1 [^\n]*\nstack: +megatron-bridge ")
tpcost_cli_case("step --stack megatron-bridge: SP on at t > 1, overlaps on, bf16 gradients, ZeRO-1" ARGS ${stack_step} --stack megatron-bridge RC 0 STDOUT
  "layout: [^\n]* SP on  ZeRO 1 [^\n]*\nstack: +megatron-bridge \\(NVIDIA-NeMo/Megatron-Bridge 067f987df0[^\n]*\n(  [^\n]*\n)* +tp_overlap +1\\.00 +default: recipes/llama/h100/llama3\\.py[^\n]*\n(  [^\n]*\n)* +grad_wire_bytes +2 B \\(16-bit\\)[^\n]*\n(  [^\n]*\n)* +sequence_parallel +on +default: the perf recipes")
tpcost_cli_case("step --stack megatron-bridge --no-sp: no SP, and no TP overlap without it" ARGS ${stack_step} --stack megatron-bridge --no-sp RC 0 STDOUT
  "SP off[^\n]*\n(  [^\n]*\n|stack:[^\n]*\n)* +tp_overlap +0\\.00 +default: training/comm_overlap\\.py: TP overlap disabled without sequence parallelism")
tpcost_cli_case("step: --tp-comm-overlap without SP is refused, as Megatron-LM asserts" ARGS ${stack_step} --tp-comm-overlap --stack megatron-core RC 2
  STDERR "^tpcost: error: --tp-comm-overlap: needs sequence parallelism \\(--sp\\), as Megatron-LM asserts")
tpcost_cli_case("step: a TP group across NVLink domains gets no userbuffers overlap, and says so" ARGS step --gpu h100-sxm --interconnect ib-ndr --model gpt-3-175b --gpus 32 --tp 16 --pp 2 --global-batch 64 RC 0 STDOUT
  "\n +tp_overlap +0\\.00 +default: Transformer Engine's userbuffers run within one NVLink domain; t = 16 spans 8 GPUs per domain\n")
tpcost_cli_case("step: --sp and --no-sp contradict" ARGS ${stack_step} --sp --no-sp RC 2
  STDERR "^tpcost: error: --no-sp: contradicts --sp; give one of them\n$")
tpcost_cli_case("step: --no-overlap-p2p-communication under another stack is refused" ARGS ${stack_step} --stack fsdp2 --no-overlap-p2p-communication RC 2
  STDERR "--no-overlap-p2p-communication: is a Megatron-Core flag; --stack fsdp2 does not take it")
tpcost_cli_case("step: --no-gradient-accumulation-fusion under another stack is refused" ARGS ${stack_step} --stack deepspeed --no-gradient-accumulation-fusion RC 2
  STDERR "--no-gradient-accumulation-fusion: is a Megatron-Core flag; --stack deepspeed does not take it")
tpcost_cli_case("step: --no-gradient-accumulation-fusion is listed with its flag" ARGS ${stack_step} --stack megatron-core --no-gradient-accumulation-fusion RC 0
  STDOUT "\n +grad_accumulation_fusion +no +flag: --no-gradient-accumulation-fusion")
tpcost_cli_case("step: Megatron-Bridge's fusion is listed as the layout gets it, no at ZeRO-3" ARGS ${stack_step} --stack megatron-bridge --zero 3 RC 0
  STDOUT "\n +grad_accumulation_fusion +no +default: [^\n]*; this layout runs ZeRO-3 \\(Megatron-FSDP\\)\n")
tpcost_cli_case("step: Megatron-Bridge's fusion is listed as the layout gets it, yes at ZeRO-1" ARGS ${stack_step} --stack megatron-bridge --zero 1 RC 0
  STDOUT "\n +grad_accumulation_fusion +yes +default: ")
tpcost_cli_case("step --tp-contention: listed with its flag, and 0 prices hidden TP as free" ARGS ${stack_step} --stack megatron-bridge --sp --tp-contention 0 RC 0
  STDOUT "\n +tp_contention +0\\.00 +flag: --tp-contention\n")
tpcost_cli_case("step --tp-contention: out of range is one line" ARGS ${stack_step} --tp-contention 1.5 RC 2
  STDERR "^tpcost: error: --tp-contention: [^\n]*\n$")
tpcost_cli_case("step --attention-efficiency: out of range is one line" ARGS ${stack_step} --attention-efficiency 1.5 RC 2
  STDERR "^tpcost: error: --attention-efficiency: [^\n]*\n$")
# Per-GPU efficiency (hardware/efficiency.hpp): the same layout on GB200 and GB300 differs in
# the GEMMs' η, which the GPU line prints.
tpcost_cli_case("step on GB300 runs its GEMMs at GB300's fitted eta, not GB200's" ARGS step --model llama-3-8b --gpu gb300 --gpus 8 -G 128 -b 2 --precision fp8-current RC 0 STDOUT
  "\nGPU: +peak 2\\.5 PFLOP/s, HBM 288\\.0 GiB[^\n]*efficiency 0\\.50 of peak \\(matmul\\)")
tpcost_cli_case("step on GB200 keeps the B200 fits" ARGS step --model llama-3-8b --gpu gb200 --gpus 8 -G 128 -b 2 --precision fp8-current RC 0 STDOUT
  "\nGPU: +peak 2\\.5 PFLOP/s, HBM 186\\.0 GiB[^\n]*efficiency 0\\.39 of peak \\(matmul\\)")
tpcost_cli_case("step: a Megatron flag overrides the profile and says so" ARGS ${stack_step} --sp --tp-comm-overlap --grad-reduce-in-bf16 RC 0 STDOUT
  "\n +tp_overlap +1\\.00 +flag: --tp-comm-overlap[^\n]*\n.*\n +grad_wire_bytes +2 B \\(16-bit\\) +flag: --grad-reduce-in-bf16")
# The kernels a stack runs, and whose efficiencies price them (docs/stacks.md).
tpcost_cli_case("step --stack fsdp2 runs PyTorch eager kernels by default, with the fitted eta"
  ARGS ${stack_step} --stack fsdp2 RC 0
  STDOUT "\n  kernels +pytorch-eager +default: torchtitan/config/job_config\\.py: \\[compile\\] enable = False[^\n]*eta: torchtitan \\(PyTorch kernels\\) on H100 BF16: eta_mm 0\\.492[^\n]*\n(  [^\n]*\n)*GPU: [^\n]*efficiency 0\\.49 of peak")
tpcost_cli_case("step --stack fsdp2 --torch-compile is faster than eager"
  ARGS ${stack_step} --stack fsdp2 --torch-compile -q RC 0
  STDOUT "step +4\\.539 s")
tpcost_cli_case("step --stack fsdp2 eager step time"
  ARGS ${stack_step} --stack fsdp2 -q RC 0
  STDOUT "step +4\\.959 s")
tpcost_cli_case("step: a Megatron stack says its kernels are the fused ones the eta were fitted on"
  ARGS ${stack_step} --stack megatron-core RC 0
  STDOUT "\n  kernels +megatron-fused +default: megatron/core/models/gpt/gpt_layer_specs\\.py[^\n]*eta: Hopper BF16: eta_mm 0\\.710")
tpcost_cli_case("step --stack fsdp2 --async-tp hides the TP collectives behind the GEMMs"
  ARGS ${stack_step} --stack fsdp2 --torch-compile --async-tp -q RC 0
  STDOUT "step +4\\.435 s")
tpcost_cli_case("step: --async-tp without --torch-compile is refused, as torchtitan raises"
  ARGS ${stack_step} --stack fsdp2 --async-tp RC 2
  STDERR "^tpcost: error: --async-tp: needs --torch-compile, as torchtitan raises: 'Async TP requires torch\\.compile'\n$")
tpcost_cli_case("step: --async-tp under a Megatron stack is refused"
  ARGS ${stack_step} --stack megatron-core --async-tp RC 2
  STDERR "^tpcost: error: --async-tp: is a torchtitan flag\; --stack megatron-core does not take it")
tpcost_cli_case("step: --async-tp with --no-sp contradicts"
  ARGS ${stack_step} --stack fsdp2 --torch-compile --async-tp --no-sp RC 2
  STDERR "^tpcost: error: --async-tp: fuses sequence parallelism's all-gathers")
tpcost_cli_case("step --stack megatron-bridge runs Transformer Engine's fused cross entropy, as the perf scripts set it"
  ARGS ${stack_step} RC 0
  STDOUT "\n  cross_entropy +te +default: models/gpt_provider\\.py: cross_entropy_loss_fusion = True\; scripts/performance/utils/overrides\\.py")
tpcost_cli_case("step: --cross-entropy-loss-fusion with its impl is listed with the flags"
  ARGS ${stack_step} --stack megatron-core --cross-entropy-loss-fusion --cross-entropy-fusion-impl te RC 0
  STDOUT "\n  cross_entropy +te +flag: --cross-entropy-loss-fusion --cross-entropy-fusion-impl te\n")
tpcost_cli_case("step: --cross-entropy-loss-fusion keeps the impl megatron-bridge's recipes set"
  ARGS ${stack_step} --cross-entropy-loss-fusion RC 0
  STDOUT "\n  cross_entropy +te +flag: --cross-entropy-loss-fusion \\(the impl the profile sets: ")
tpcost_cli_case("step: --cross-entropy-fusion-impl without the fusion is refused, as Megatron-Core ignores it"
  ARGS ${stack_step} --stack megatron-core --cross-entropy-fusion-impl te RC 2
  STDERR "^tpcost: error: --cross-entropy-fusion-impl: has no effect without --cross-entropy-loss-fusion")
tpcost_cli_case("step: --cross-entropy-loss-fusion under a stack that is not Megatron's is refused"
  ARGS ${stack_step} --stack fsdp2 --cross-entropy-loss-fusion RC 2
  STDERR "^tpcost: error: --cross-entropy-loss-fusion: is a Megatron-Core flag\; --stack fsdp2 does not take it\n$")
tpcost_cli_case("step: --torch-compile under a Megatron stack is refused"
  ARGS ${stack_step} --stack megatron-core --torch-compile RC 2
  STDERR "^tpcost: error: --torch-compile: is a torchtitan flag\; --stack megatron-core runs Megatron-LM / Transformer Engine kernels \\(use --stack fsdp2\\)\n$")
tpcost_cli_case("step: --torch-compile with --no-torch-compile is refused"
  ARGS ${stack_step} --stack fsdp2 --torch-compile --no-torch-compile RC 2
  STDERR "^tpcost: error: --no-torch-compile: contradicts --torch-compile\; give one of them\n$")
tpcost_cli_case("step JSON carries the stack and its settings" ARGS ${stack_step} --stack fsdp2 --format json RC 0 STDOUT
  "\"stack\": \\{[^}]*\"name\": \"fsdp2\",[^}]*\"release\": \"pytorch/torchtitan v0\\.2\\.2")
tpcost_cli_case("step: an unknown stack lists the choices" ARGS ${stack_step} --stack nemo RC 2
  STDERR "--stack: 'nemo' is not a stack; expected megatron-core\\|megatron-2021\\|deepspeed\\|fsdp2")
tpcost_cli_case("step: a Megatron flag under another stack is refused" ARGS ${stack_step} --stack deepspeed --overlap-grad-reduce RC 2
  STDERR "--overlap-grad-reduce: is a Megatron-Core flag; --stack deepspeed does not take it")
tpcost_cli_case("step: --overlap-param-gather needs --overlap-grad-reduce, as Megatron asserts" ARGS ${stack_step} --overlap-param-gather RC 2
  STDERR "--overlap-param-gather: needs --overlap-grad-reduce")
tpcost_cli_case("step: megatron-2021 has no distributed optimizer" ARGS ${stack_step} --stack megatron-2021 --zero 1 RC 2
  STDERR "--zero: ZeRO-1 under megatron-2021, which offers stages 0\\.\\.0")
tpcost_cli_case("step: ZeRO-3 with PP is refused under deepspeed" ARGS ${stack_step} --pp 2 --zero 3 --stack deepspeed RC 2
  STDERR "--zero: ZeRO-3 with p = 2 stages under deepspeed")
tpcost_cli_case("step: ZeRO-3 with PP runs under fsdp2" ARGS ${stack_step} --pp 2 --zero 3 --stack fsdp2 RC 0
  STDOUT "ZeRO 3")
tpcost_cli_case("step: the stack from a config file" ARGS ${stack_step} --config ${CMAKE_CURRENT_SOURCE_DIR}/data/stack_fsdp2.json RC 0
  STDOUT "\nstack: +fsdp2 ")
tpcost_cli_case("step --ep: the all-to-all per layer, where it runs, the expert memory" ARGS ${step_qwen3_30b} --ep 8 RC 0 STDOUT
  "  exposed EP all-to-all +[0-9.]+ ms +[0-9.]+%
.*experts: 48 MoE layers, E=128 top-8; EP=8 ETP=1 expert-DP=4 \\(folded over t\\*cp\\*d\\); 16 experts and 32768 token copies per GPU and micro-batch; load factor 1\\.00 \\(dropless\\)\nEP all-to-all \\(all-to-all\\): one dispatch sends [0-9.]+ MB over NVLink and 0 B over the NIC per GPU in [0-9.]+ us, inside one node: NVLink; 4 per layer and micro-batch = [0-9.]+ [mu]s, not overlapped; exposed per step [0-9.]+ ms.*expert memory: [0-9.]+B routed-expert parameters on this GPU \\(sharded by EP\\*ETP = 8\\)")
tpcost_cli_case("step --ep 16: the group leaves the node and its all-to-all crosses the NICs" ARGS ${step_qwen3_30b} --ep 16 RC 0 STDOUT
  "one dispatch sends [0-9.]+ MB over NVLink and [1-9][0-9.]* MB over the NIC per GPU in [0-9.]+ ms, across 2 nodes \\(8 per node\\): NIC and NVLink")
tpcost_cli_case("step --etp 2 --moe-token-dispatcher flex --overlap-moe-expert-parallel-comm" ARGS ${step_qwen3_30b} --ep 8 --etp 2 --moe-token-dispatcher flex --overlap-moe-expert-parallel-comm RC 0 STDOUT
  "EP=8 ETP=2 expert-DP=2 .*EP all-to-all \\(deep-ep\\): .*overlapped with compute \\(--overlap-moe-expert-parallel-comm\\)")
tpcost_cli_case("step --moe-load-imbalance --moe-expert-capacity-factor" ARGS ${step_qwen3_30b} --ep 8 --moe-load-imbalance 1.5 --moe-expert-capacity-factor 1.2 RC 0 STDOUT
  "load factor 1\\.20 \\(capacity factor 1\\.20\\)")
tpcost_cli_case("step --ep --format json: the experts object" ARGS ${step_qwen3_30b} --ep 16 --format json RC 0 STDOUT
  "\"experts\": \\{\n +\"all_to_all\": \\{\n +\"exposed_per_step_s\": [0-9.e-]+,\n +\"inter_node_bytes\": [0-9.e+]+,\n +\"intra_node_bytes\": [0-9.e+]+,\n +\"nodes\": 2,\n +\"per_layer\": 4\\.0,\n +\"per_layer_s\": [0-9.e-]+,\n +\"spans_nodes\": true,")
tpcost_cli_case("step reads the MoE keys of a config" ARGS step --config ${PROJECT_SOURCE_DIR}/tests/config/step/moe_qwen3_30b_h100.json RC 0 STDOUT
  "EP=8 ETP=1 expert-DP=4")
# 32768 copies x h = 2048 x 2 B (BF16), 7/8 of them to the other GPUs of the node: 117.4 MB.
tpcost_cli_case("step --precision fp8-blockwise costs an MoE model, its dispatch BF16" ARGS ${step_qwen3_30b} --ep 8 --precision fp8-blockwise RC 0 STDOUT
  "precision: linear layers fp8-blockwise \\(TE Float8BlockScaling\\) at the FP8 peak .*linear layers at the FP8 rate -[0-9.]+ m?s
.*experts: 48 MoE layers[^\n]*
EP all-to-all \\(all-to-all\\): one dispatch sends 117\\.4 MB over NVLink")
tpcost_cli_case("step: EP must divide the experts" ARGS ${step_qwen3_30b} --ep 3 RC 2
  STDERR "^tpcost: error: --ep: EP = 3 does not divide the 128 experts; each GPU of the group holds E/EP whole experts\n$")
tpcost_cli_case("step: EP*ETP must divide t*cp*d" ARGS ${step_qwen3_30b} --ep 32 --etp 2 RC 2
  STDERR "^tpcost: error: --ep: EP\\*ETP = 32\\*2 does not divide the t\\*cp\\*d = 32 ranks of a stage that the expert groups fold over\n$")
tpcost_cli_case("step --etp 4 divides the expert FFN of 768" ARGS ${step_qwen3_30b} --ep 8 --etp 4 --moe-load-imbalance 1 RC 0 STDOUT "ETP=4")
tpcost_cli_case("step: an expert FFN that ETP does not divide" ARGS ${step_qwen3_30b} --ep 1 --etp 5 RC 2
  STDERR "^tpcost: error: --etp: ETP = 5 does not divide the expert FFN size 768\n$")
tpcost_cli_case("step: EP on a dense model" ARGS ${step_8b} --gpus 8 --ep 2 RC 2
  STDERR "^tpcost: error: --ep: expert parallelism needs a mixture-of-experts model; this one is dense\n$")
tpcost_cli_case("step: MoE with t > 1 needs SP" ARGS ${step_qwen3_30b} --tp 2 --ep 8 --stack megatron-core RC 2
  STDERR "sequence parallelism \\(--sp\\)")
tpcost_cli_case("step: an unknown token dispatcher" ARGS ${step_qwen3_30b} --ep 8 --moe-token-dispatcher ring RC 2
  STDERR "^tpcost: error: --moe-token-dispatcher: 'ring' is not a token dispatcher")
tpcost_cli_case("step: load imbalance below 1" ARGS ${step_qwen3_30b} --ep 8 --moe-load-imbalance 0.5 RC 2
  STDERR "moe-load-imbalance: must be at least 1")
tpcost_cli_case("step: a capacity factor of 0" ARGS ${step_qwen3_30b} --ep 8 --moe-expert-capacity-factor 0 RC 2
  STDERR "^tpcost: error: --moe-expert-capacity-factor: 0 is not positive")
tpcost_cli_case("step costs DeepSeek-V3's MLA and puts its MTP module on the last stage" ARGS ${step_deepseek_v3} RC 0
  STDOUT "stages:  8 layers on the first, 8 on each middle one, 6 on the last \\(1 of them MTP\\)")
tpcost_cli_case("step: CP with MLA exchanges MLA's keys and values (TE v2.16 on)" ARGS ${step_deepseek_v3} --cp 2 RC 0
  STDOUT "context parallel: cp=2 p2p, causal 2\\*cp = 4 chunks, 2048 tokens per rank; exchange per layer and micro-batch 503\\.3 MB sent")
tpcost_cli_case("step: t not dividing an MLA model's sizes" ARGS step --model deepseek-v3 --seq 4096 --gpu h800-sxm --gpus 384 --tp 3 --pp 8 --global-batch 256 --sp RC 2
  STDERR "^tpcost: error: --tp: t = 3 does not divide [^\n]*\n$")

# --stack fsdp2 without --zero shards as torchtitan does (fully_shard: ZeRO-3); --zero wins.
tpcost_cli_case("step --stack fsdp2 defaults to ZeRO-3 and says where from"
  ARGS step --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 8 -G 64 --stack fsdp2 RC 0
  STDOUT "layout: [^\n]*ZeRO 3 .*\n  zero +3 +default: torchtitan/config/job_config\\.py")
tpcost_cli_case("step --stack fsdp2 --zero 1 keeps the flag's stage"
  ARGS step --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 8 -G 64 --stack fsdp2 --zero 1 RC 0
  STDOUT "layout: [^\n]*ZeRO 1 .*\n  zero +1 +flag: --zero")

# The error band (docs/error-band.md): beside the step time, its basis named; plan's ties;
# check's pessimistic edge and the rules that pass only at the central value; the bad inputs.
tpcost_cli_case("step: the error band names its group and rows" ARGS step --model llama-3-70b
  --gpu h100-sxm --interconnect ib-ndr --gpus 512 --tp 8 --pp 4 --global-batch 1024 --sp
  RC 0 STDOUT "\n  likely [0-9.]+ s to [0-9.]+ s \\(17 Hopper dense 16-bit megatron-core runs, leave-one-out/plain mean [0-9.]+%, worst [0-9.]+%\\); [0-9]+ to [0-9]+ tokens/s, MFU [0-9.]+% to [0-9.]+%\n")
tpcost_cli_case("step: a GPU with an assumed efficiency has no comparable measured runs" ARGS step
  --model gpt3-175b --gpu mi300x --gpus 1024 --tp 8 --pp 16 --global-batch 1536
  RC 0 STDOUT "likely [0-9.]+ s to [0-9.]+ s \\(no comparable measured runs \\(an assumed efficiency\\)")
tpcost_cli_case("step json: step_time_band_s beside step_time_s" ARGS step --model llama-3-70b
  --gpu h100-sxm --interconnect ib-ndr --gpus 512 --tp 8 --pp 4 --global-batch 1024 --format json
  RC 0 STDOUT "\"step_time_band_s\": \\[\n +[0-9.]+,\n +[0-9.]+\n +\\]")
tpcost_cli_case("step --error-band of a missing file: one line, exit 2"
  ARGS ${band_step} --error-band ${band_dir}/none.json
  RC 2 STDERR "^tpcost: error: --error-band: [^\n]*none\\.json: cannot open the file\n$")
tpcost_cli_case("step --pessimistic: step has no such flag" ARGS step --model llama-3-70b --pessimistic
  RC 2 STDERR "^tpcost: error: tpcost step: unknown flag '--pessimistic'")
tpcost_cli_case("step: the first line says it fits" ARGS step --model llama-3-8b --gpu H100-SXM --interconnect IB-NDR --gpus 8 --global-batch 8 --tp 8 RC 0 STDOUT
  "^fits: the fullest stage \\([0-9]+\\) needs [0-9.]+ GiB per GPU of the 80\\.0 GiB there is \\(about [0-9.]+ GiB reserved by PyTorch's caching allocator\\), [0-9.]+ GiB headroom\n")
tpcost_cli_case("step --stack fsdp2: selective is torchtitan's per-op policy" ARGS ${_tt_sac} RC 0 STDOUT
  "\n +selective_recompute +per-op +default: torchtitan's Llama 3 configs: \\[activation_checkpoint\\] mode = \"selective\", selective_ac_option = \"op\"")
# fp16 runs keep and reduce fp16 gradients under Megatron-Core (arguments.py forces fp32 only
# under --bf16): half the gradient bytes on the wire and in memory, said in the listing.
tpcost_cli_case("step --dtype fp16 --stack megatron-core reduces 2-byte gradients"
  ARGS step --model gpt-3-175b --gpu a100 --gpus 1024 --tp 8 --pp 8 -G 1536 --dtype fp16 --stack megatron-core RC 0
  STDOUT "grad_wire_bytes +2 B \\(16-bit\\) +default: --dtype fp16: Megatron-LM keeps and reduces fp16 gradients.*2\\+2\\+12 B/param")

# CUDA graphs (step/cuda_graphs.hpp): read and checked as Megatron-Core checks them, listed with
# the stack's settings; the MoE host time does not depend on them (docs/moe.md).
tpcost_cli_case("step --cuda-graph-impl transformer_engine --cuda-graph-scope: listed with the stack"
  ARGS ${step_qwen3_30b} --ep 8 --cuda-graph-impl transformer_engine --cuda-graph-scope attn,moe_router,moe_preprocess RC 0
  STDOUT "cuda_graphs +transformer_engine attn,moe_router,moe_preprocess +flag: --cuda-graph-impl/--cuda-graph-scope: read and checked as Megatron-Core checks them, not costed")
tpcost_cli_case("step --cuda-graph-impl full_iteration" ARGS ${step_qwen3_30b} --ep 8 --cuda-graph-impl full_iteration RC 0
  STDOUT "cuda_graphs +full_iteration +flag")
tpcost_cli_case("step: an unknown CUDA graph implementation" ARGS ${step_qwen3_30b} --ep 8 --cuda-graph-impl te RC 2
  STDERR "^tpcost: error: --cuda-graph-impl: [^\n]*te[^\n]*\n$")
tpcost_cli_case("step: an unknown CUDA graph scope" ARGS ${step_qwen3_30b} --ep 8 --cuda-graph-impl local --cuda-graph-scope attn,router RC 2
  STDERR "^tpcost: error: --cuda-graph-scope: 'router' is not a CUDA graph scope; expected attn, mlp, moe, moe_router, moe_preprocess, mamba or full_iteration\n$")
tpcost_cli_case("step: a scope without an implementation" ARGS ${step_qwen3_30b} --ep 8 --cuda-graph-scope attn RC 2
  STDERR "^tpcost: error: --cuda-graph-scope: needs --cuda-graph-impl local or transformer_engine \\(none captures nothing\\)\n$")
tpcost_cli_case("step: the moe scope of a dropless layer" ARGS ${step_qwen3_30b} --ep 8 --cuda-graph-impl transformer_engine --cuda-graph-scope moe RC 2
  STDERR "^tpcost: error: --cuda-graph-scope: moe is only supported with drop-and-pad MoE")
tpcost_cli_case("step: moe_router on a dense model" ARGS ${step_8b} --gpus 8 --cuda-graph-impl transformer_engine --cuda-graph-scope moe_router RC 2
  STDERR "^tpcost: error: --cuda-graph-scope: moe and moe_router need a model with experts\n$")
tpcost_cli_case("step: full recomputation with layer graphs" ARGS ${step_qwen3_30b} --ep 8 --recompute full --cuda-graph-impl transformer_engine --cuda-graph-scope attn RC 2
  STDERR "^tpcost: error: --cuda-graph-impl: --recompute full is only supported with the whole iteration captured \\(full_iteration\\)\n$")
