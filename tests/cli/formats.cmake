# The readers of other frameworks' configs (src/formats/, docs/formats.md), through the binary.
set(meg ${PROJECT_SOURCE_DIR}/tests/config/megatron)
set(fmt_dir ${PROJECT_SOURCE_DIR}/tests/config/formats)
set(a100 --gpu|a100-sxm4-80gb|--interconnect|ib-hdr)

# The real Megatron-LM example scripts (tests/config/megatron/README.md): layout, batch, precision.
tpcost_cli_case("megatron gpt3 175b script: t=8 p=16, b=1 G=1536, fp16"
  ARGS convert ${meg}/train_gpt3_175b_distributed.sh --set NUM_NODES=16 RC 0
  STDERR "train_gpt3_175b_distributed\\.sh:40:5: --step-batch-size-schedule: a batch-size ramp-up"
  STDOUT "\"global_batch\": 1536,\n    \"micro_batch\": 1\n.*\"dtype\": \"fp16\".*\"heads\": 96,\n    \"hidden\": 12288,.*\"layers\": 96,\n    \"seq\": 2048,\n    \"vocab\": 51200.*\"gpus\": 128,\n    \"pp\": 16,\n    \"tp\": 8\n")
# --fp8-format hybrid (recipe delayed by default) is --precision fp8 over bf16 weights; the
# Megatron-Core switches carry over as the megatron-core stack's options.
tpcost_cli_case("megatron llama3 8b fp8 script: t=1 p=1, b=1 G=128, fp8, SP, distributed optimizer"
  ARGS convert -q ${meg}/train_llama3_8b_h100_fp8.sh RC 0
  STDOUT "\"global_batch\": 128,\n    \"micro_batch\": 1\n.*\"dtype\": \"bf16\".*\"arch\": \"llama\",\n    \"attention_dropout\": 0\\.0,\n    \"ffn\": 14336,\n    \"heads\": 32,\n    \"hidden\": 4096,\n    \"hidden_dropout\": 0\\.0,\n    \"kv_heads\": 8,.*\"fp8_param_gather\": true,\n    \"grad_reduce_in_bf16\": true,\n    \"overlap_grad_reduce\": true,\n    \"overlap_param_gather\": true,\n    \"precision\": \"fp8\",\n    \"sp\": true,\n    \"stack\": \"megatron-core\",\n    \"zero\": 1\n.*\"pp\": 1,\n    \"tp\": 1\n")
# Megatron-Bridge's recipe names and MixedPrecisionConfig fields give the precision.
tpcost_cli_case("megatron-bridge yaml: bf16_with_mxfp8_mixed is --precision mxfp8 over bf16"
  ARGS convert -q ${fmt_dir}/llama3_8b_bridge_mxfp8.yaml RC 0
  STDOUT "\"dtype\": \"bf16\".*\"precision\": \"mxfp8\"")
tpcost_cli_case("megatron-bridge yaml: fp8_recipe tensorwise is --precision fp8-current"
  ARGS convert -q ${fmt_dir}/llama3_8b_bridge_fp8_tensorwise.yaml RC 0
  STDOUT "\"fp8_param_gather\": true,\n.*\"precision\": \"fp8-current\"")
# Megatron's --context-parallel-size and --cp-comm-type are the config's CP keys (d = N/(t*p*cp)).
tpcost_cli_case("megatron script: --context-parallel-size is /parallel/cp"
  ARGS convert -q ${meg}/train_llama3_8b_h100_fp8.sh --set CP_SIZE=2 RC 0
  STDOUT "\"parallel\": \\{\n    \"cp\": 2,\n    \"gpus\": 8,")
# Megatron's MoE flags are the config's expert keys; ETP defaults to the TP degree
# (arguments.py), --moe-ffn-hidden-size to --ffn-hidden-size.
tpcost_cli_case("megatron mixtral script: the MoE flags are the expert keys"
  ARGS convert -q ${meg}/train_mixtral_8x7b_distributed.sh RC 0
  STDOUT "\"expert_ffn\": 14336,\n    \"experts\": 8,.*\"top_k\": 2,.*\"moe_token_dispatcher\": \"alltoall\",.*\"ep\": 8,\n    \"etp\": 1,")
tpcost_cli_case("megatron mixtral script on 4 nodes: the step prices the EP all-to-all"
  ARGS check ${meg}/train_mixtral_8x7b_distributed.sh --set NNODES=4 --gpu h100-sxm
       --interconnect ib-ndr --rule min_mfu=0.3 RC 0 STDOUT "PASS  min_mfu")
tpcost_cli_case("megatron mixtral script on one node: EP 8 does not fold over d = 2"
  ARGS check ${meg}/train_mixtral_8x7b_distributed.sh --gpu h100-sxm --rule min_mfu=0.3 RC 2
  STDERR "EP\\*ETP = 8\\*1 does not divide the t\\*cp\\*d = 2 ranks")
# --kv-channels is /model/head_dim where it differs from h/heads (Qwen3: 128, not 2048/32).
tpcost_cli_case("megatron qwen3-30b-a3b script: --kv-channels 128 is /model/head_dim"
  ARGS convert -q ${meg}/qwen3_30b_a3b_kv_channels.sh RC 0
  STDOUT "\"ffn\": 6144,\n    \"head_dim\": 128,\n")
add_test(NAME "cli: megatron qwen3-30b-a3b script costs what the preset costs"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--config|${meg}/qwen3_30b_a3b_kv_channels.sh|--gpu|h100-sxm|--quiet"
    "-DARGS_B=step|--config|${meg}/qwen3_30b_a3b_preset.json|--gpu|h100-sxm|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
# Contradictions Megatron's validate_args refuses: one line naming file:line and both values.
tpcost_cli_case("megatron script: a global batch not divisible by d*b is refused"
  ARGS convert ${meg}/qwen3_30b_a3b_kv_channels.sh --set GBS=1538 --set MBS=4 RC 2
  STDERR "qwen3_30b_a3b_kv_channels\\.sh:[0-9]+:[0-9]+: --global-batch-size: G = 1538 is not a multiple of d\\*b = 8\\*4 = 32")
tpcost_cli_case("megatron script: a micro-batch larger than the global batch is refused"
  ARGS convert ${meg}/qwen3_30b_a3b_kv_channels.sh --set GBS=4 --set MBS=8 RC 2
  STDERR "qwen3_30b_a3b_kv_channels\\.sh:[0-9]+:[0-9]+: --micro-batch-size: the micro-batch 8 is larger than the global batch 4")
tpcost_cli_case("megatron script: EP not dividing the experts is refused"
  ARGS convert ${meg}/qwen3_30b_a3b_kv_channels.sh --set EP=3 RC 2
  STDERR "qwen3_30b_a3b_kv_channels\\.sh:[0-9]+:[0-9]+: --expert-model-parallel-size: EP 3 does not divide the 128 experts")
tpcost_cli_case("megatron script: GPUs not a multiple of t*p*cp are refused"
  ARGS convert ${meg}/train_gpt3_175b_distributed.sh RC 2
  STDERR "train_gpt3_175b_distributed\\.sh:[0-9]+:[0-9]+: --nproc_per_node 8 x --nnodes 1: 8 GPUs are not a multiple of t\\*p\\*cp = 8\\*16\\*1 = 128")
tpcost_cli_case("megatron deepseek-v3 script: the MLA and MTP flags are the config's keys"
  ARGS convert -q ${meg}/deepseek_v3_layer_freq.sh RC 0
  STDOUT "\"kv_lora_rank\": 512,.*\"mtp_layers\": 1,\n    \"q_lora_rank\": 1536,\n    \"qk_nope_head_dim\": 128,\n    \"qk_rope_head_dim\": 64,.*\"v_head_dim\": 128,.*\"pp_layout\": \"first=3,last=2\",")
# The script costs what the preset costs with the same layout (MLA and MTP both change the
# step: --set MLA= drops them, and the report differs).
add_test(NAME "cli: megatron deepseek-v3 script costs what --model deepseek-v3 costs"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--config|${meg}/deepseek_v3_layer_freq.sh|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    "-DARGS_B=step|--model|deepseek-v3|--tp|1|--pp|16|--pp-layout|first=3,last=2|--ep|64|--etp|1|--gpus|1024|--batch|1|--global-batch|8192|--zero|1|--dtype|bf16|--moe-token-dispatcher|flex|--stack|megatron-core|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
add_test(NAME "cli: megatron-bridge deepseek-v3 yaml costs what --model deepseek-v3 costs"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--config|${fmt_dir}/deepseek_v3_bridge.yaml|--gpus|1024|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    "-DARGS_B=step|--model|deepseek-v3|--tp|1|--pp|16|--pp-layout|first=3,last=2|--ep|64|--etp|1|--gpus|1024|--batch|1|--global-batch|8192|--zero|1|--dtype|bf16|--stack|megatron-core|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
tpcost_cli_case("megatron: the allgather dispatcher is read"
  ARGS convert -q ${fmt_dir}/moe_allgather.sh RC 0
  STDOUT "\"moe_token_dispatcher\": \"allgather\",")
tpcost_cli_case("megatron: allgather is costed as an NCCL all-gather of every token"
  ARGS step --from ${fmt_dir}/moe_allgather.sh --gpu h100-sxm RC 0
  STDOUT "EP all-gather, reduce-scatter back \\(all-gather\\): one dispatch sends")
tpcost_cli_case("megatron: an alltoall_seq dispatcher is refused with the ones costed"
  ARGS convert ${fmt_dir}/bad/alltoall_seq.sh RC 2
  STDERR "alltoall_seq\\.sh:6:5: --moe-token-dispatcher-type: 'alltoall_seq' is not a dispatcher tpcost costs; expected allgather, alltoall or flex\n$")
tpcost_cli_case("megatron --moe-layer-freq ([0]*3+[1]*58): three leading dense layers"
  ARGS convert -q ${meg}/deepseek_v3_layer_freq.sh --set MLA= RC 0
  STDOUT "\"moe_dense_layers\": 3,.*\"shared_expert_ffn\": 2048,\n    \"top_k\": 8,.*\"moe_token_dispatcher\": \"flex\",.*\"ep\": 64,")
tpcost_cli_case("megatron: node-limited routing, --moe-router-num-groups and --moe-router-group-topk"
  ARGS convert -q ${meg}/deepseek_v3_layer_freq.sh RC 0
  STDOUT "\"moe_router_group_topk\": 4,\n    \"moe_router_num_groups\": 8,")
tpcost_cli_case("megatron: group top-k without the groups is refused, as Megatron-Core refuses it"
  ARGS convert -q ${meg}/deepseek_v3_layer_freq.sh --set "GROUPS=--moe-router-group-topk 4" RC 2
  STDERR "deepseek_v3_layer_freq\\.sh:[0-9]+:[0-9]+: --moe-router-group-topk: group-limited routing without --moe-router-num-groups; Megatron-Core requires it\n$")
tpcost_cli_case("megatron: --moe-router-num-groups alone routes over every expert"
  ARGS step --from ${meg}/deepseek_v3_layer_freq.sh --set "GROUPS=--moe-router-num-groups 8" --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "experts: 58 MoE layers, E=256 top-8; EP=64")
tpcost_cli_case("megatron: the deprecated --moe-router-topk-limited-devices is N of EP groups"
  ARGS convert -q ${meg}/deepseek_v3_layer_freq.sh --set "GROUPS=--moe-router-topk-limited-devices 2" RC 0
  STDOUT "\"moe_router_group_topk\": 2,\n    \"moe_router_num_groups\": 64,")
tpcost_cli_case("step: node-limited routing is named with the experts"
  ARGS step --from ${meg}/deepseek_v3_layer_freq.sh --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "experts: 58 MoE layers, E=256 top-8 within 4 of 8 groups; EP=64")
tpcost_cli_case("step: --moe-router-num-groups without --moe-router-group-topk is refused"
  ARGS step --model qwen3-30b-a3b --moe-router-num-groups 8 --gpus 16 --global-batch 64 --ep 8 RC 2
  STDERR "^tpcost: error: --moe-router-group-topk: not given; group-limited routing over 8 groups needs the groups each token's experts come from, e\\.g\\. --moe-router-group-topk 4\n$")
tpcost_cli_case("step: routing groups that do not divide the experts name the flag"
  ARGS step --model deepseek-v3 --moe-router-num-groups 7 --gpus 1024 --global-batch 8192 --ep 64 --pp 16 RC 2
  STDERR "^tpcost: error: --moe-router-num-groups: 7 routing groups do not divide the 256 routed experts; each group holds E/groups experts\n$")
tpcost_cli_case("megatron --moe-layer-freq list: one entry per layer"
  ARGS convert -q ${meg}/deepseek_v3_layer_freq.sh --set FREQ=[0,0,1,1] RC 2
  STDERR "gives 4 layers, the model has 61")
tpcost_cli_case("megatron --moe-layer-freq list: a pattern tpcost cannot express"
  ARGS convert -q ${meg}/deepseek_v3_layer_freq.sh --set "FREQ=([1]*3+[0]*58)" RC 2
  STDERR "leading dense layers, then experts every k-th layer; this pattern is not one")
tpcost_cli_case("megatron --moe-layer-freq list: a repetition too long to expand"
  ARGS convert -q ${meg}/deepseek_v3_layer_freq.sh --set "FREQ=[1]*99999999999" RC 2
  STDERR "is not an integer or a list expression")
# A file refused as it is read prints its error alone: the reader's warnings (the ramp-up) go
# with the reading it throws away.
tpcost_cli_case("megatron gpt3 script as committed: 8 GPUs cannot hold t*p = 128"
  ARGS check ${meg}/train_gpt3_175b_distributed.sh ${a100} --rule min_memory_headroom=0 RC 2
  STDERR "^tpcost: error: [^\n]*train_gpt3_175b_distributed\\.sh:23:5: --nproc_per_node 8 x --nnodes 1: 8 GPUs are not a multiple of t\\*p\\*cp = 8\\*16\\*1 = 128\n$")
tpcost_cli_case("megatron gpt3 script on 16 nodes passes its rules"
  ARGS check ${meg}/train_gpt3_175b_distributed.sh --set NUM_NODES=16 ${a100}
       --rule min_memory_headroom=0 --rule min_mfu=0.3 RC 0 STDERR "ramp-up is not modelled"
  STDOUT "t=8 p=16 d=1, b=1 G=1536.*PASS  min_mfu .*PASS  min_memory_headroom")
tpcost_cli_case("megatron gpt3 script fails a rule the model says it misses"
  ARGS check ${meg}/train_gpt3_175b_distributed.sh --set NUM_NODES=16 ${a100} --rule min_mfu=0.6
  RC 1 STDERR "ramp-up" STDOUT "FAIL  min_mfu")
tpcost_cli_case("megatron ramp-up is an error with --strict"
  ARGS convert --strict ${meg}/train_gpt3_175b_distributed.sh RC 2
  STDERR "--step-batch-size-schedule: a batch-size ramp-up is not modelled.*\\(an error with --strict\\)")
add_test(NAME "cli: megatron log gives the same check as its script"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=check|${meg}/gpt3_175b_training.log|--gpu|a100-sxm4-80gb|--interconnect|ib-hdr|--rule|min_mfu=0.3|--rule|min_memory_headroom=0"
    "-DARGS_B=check|${meg}/train_gpt3_175b_distributed.sh|--set|NUM_NODES=16|--gpu|a100-sxm4-80gb|--interconnect|ib-hdr|--rule|min_mfu=0.3|--rule|min_memory_headroom=0"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
add_test(NAME "cli: convert round trip of a script: the same check"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DCONVERT_ARGS=${meg}/train_gpt3_175b_distributed.sh|--set|NUM_NODES=16"
    -DOUT=${CMAKE_CURRENT_BINARY_DIR}/gpt3_converted.json
    "-DARGS_A=check|${CMAKE_CURRENT_BINARY_DIR}/gpt3_converted.json|--gpu|a100-sxm4-80gb|--interconnect|ib-hdr|--rule|min_mfu=0.3"
    "-DARGS_B=check|${meg}/train_gpt3_175b_distributed.sh|--set|NUM_NODES=16|--gpu|a100-sxm4-80gb|--interconnect|ib-hdr|--rule|min_mfu=0.3"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
add_test(NAME "cli: convert round trip of a tpcost config: the same check"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DCONVERT_ARGS=${PROJECT_SOURCE_DIR}/examples/configs/gpt3-175b-dgx-a100.json"
    -DOUT=${CMAKE_CURRENT_BINARY_DIR}/tpcost_converted.json
    "-DARGS_A=check|${CMAKE_CURRENT_BINARY_DIR}/tpcost_converted.json"
    "-DARGS_B=check|${PROJECT_SOURCE_DIR}/examples/configs/gpt3-175b-dgx-a100.json"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
tpcost_cli_case("step --from a megatron log"
  ARGS step --from ${meg}/gpt3_175b_training.log ${a100} RC 0 STDOUT "MFU")
tpcost_cli_case("sarif for a failed rule points at the layout's line"
  ARGS check ${meg}/train_gpt3_175b_distributed.sh --set NUM_NODES=16 ${a100} --rule min_mfu=0.6
       --format sarif RC 1 STDERR "ramp-up"
  STDOUT "\"startLine\": 56.*\"ruleId\": \"min_mfu\".*\"version\": \"2\\.1\\.0\"")

# The other formats.
tpcost_cli_case("megatron-bridge yaml: t=2, G=512, bf16, GQA, selective, distributed optimizer"
  ARGS convert -q ${fmt_dir}/llama3_8b_bridge.yaml RC 0
  STDOUT "\"global_batch\": 512.*\"dtype\": \"bf16\".*\"kv_heads\": 8.*\"recompute\": \"selective\",\n    \"sp\": true,\n    \"stack\": \"megatron-core\",\n    \"zero\": 1.*\"tp\": 2\n.*megatron-bridge-yaml")
tpcost_cli_case("megatron-bridge yaml: the MoE fields, moe_layer_freq as a list, ETP = TP"
  ARGS convert -q ${fmt_dir}/moe_bridge.yaml RC 0
  STDOUT "\"expert_ffn\": 1408,\n    \"experts\": 64,.*\"moe_dense_layers\": 1,.*\"shared_expert_ffn\": 2816,\n    \"top_k\": 6,.*\"ep\": 8,\n    \"etp\": 2,")
tpcost_cli_case("torchtitan toml: llama-3-8b preset, FSDP as ZeRO-3, d=32"
  ARGS convert -q ${fmt_dir}/llama3_8b_torchtitan.toml RC 0
  STDOUT "\"global_batch\": 32,.*\"name\": \"llama-3-8b\".*\"stack\": \"fsdp2\",\n    \"zero\": 3.*\"dp\": 32,.*\"tp\": 2\n.*fsdp2")
tpcost_cli_case("torchtitan toml: [compile] enable with the model in components is torch.compile"
  ARGS convert -q ${fmt_dir}/llama3_8b_torchtitan_compile.toml RC 0
  STDOUT "\"stack\": \"fsdp2\",\n    \"torch_compile\": true,")
tpcost_cli_case("torchtitan toml: step of a compiled job prices the compiled kernels"
  ARGS step --from ${fmt_dir}/llama3_8b_torchtitan_compile.toml --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "\n  kernels +torch-compile +flag: [^\n]*eta: torchtitan \\(PyTorch kernels\\) on H100 BF16: eta_mm 0\\.492[^\n]*fitted")
tpcost_cli_case("torchtitan toml: enable_async_tensor_parallel is --async-tp"
  ARGS convert -q ${fmt_dir}/llama3_8b_torchtitan_async_tp.toml RC 0
  STDOUT "\"options\": {\n    \"async_tp\": true,\n.*\"stack\": \"fsdp2\",\n    \"torch_compile\": true,")
tpcost_cli_case("torchtitan toml: step of an async-TP job hides its TP behind the GEMMs, and says so"
  ARGS step --from ${fmt_dir}/llama3_8b_torchtitan_async_tp.toml --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "\n  tp_overlap +1\\.00 +flag: --async-tp: inductor's micro-pipelined")
tpcost_cli_case("torchtitan toml: torch.compile of the loss alone leaves the model eager, and says so"
  ARGS convert -q ${fmt_dir}/llama3_8b_torchtitan_compile_loss.toml RC 0
  STDERR "compile\\.components: torch\\.compile without \"model\" in components: the model is costed with PyTorch eager kernels")
tpcost_cli_case("torchtitan toml: context_parallel_degree is cp, its rotate method the exchange"
  ARGS convert -q ${fmt_dir}/llama3_8b_torchtitan_cp.toml RC 0
  STDOUT "\"cp\": 8,\n    \"cp_comm_type\": \"all_gather\",")
tpcost_cli_case("torchtitan toml: a qwen3 MoE flavour is its preset, expert_parallel_degree is ep"
  ARGS convert -q ${fmt_dir}/qwen3_30b_a3b_torchtitan.toml RC 0
  STDOUT "\"name\": \"qwen3-30b-a3b\".*\"dp\": 16,\n    \"ep\": 8,\n    \"etp\": 1,")
tpcost_cli_case("torchtitan toml: v0.2.2's expert_tensor_parallel_degree is etp (= tp here)"
  ARGS convert -q ${fmt_dir}/qwen3_30b_a3b_torchtitan_etp.toml RC 0
  STDOUT "\"dp\": 8,\n    \"ep\": 4,\n    \"etp\": 2,")
tpcost_cli_case("torchtitan toml: check costs the MoE job with its EP all-to-all"
  ARGS check ${fmt_dir}/qwen3_30b_a3b_torchtitan.toml --gpu h100-sxm --interconnect ib-ndr
       --rule min_mfu=0.15 RC 0 STDOUT "step: qwen3-30b-a3b, t=1 p=1 d=16.*PASS  min_mfu")
tpcost_cli_case("deepspeed json with an hf config: d = 256/(2*4) = 32, ZeRO-3"
  ARGS convert -q ${fmt_dir}/ds_config.json ${PROJECT_SOURCE_DIR}/examples/hf/llama-3-8b.json RC 0
  STDOUT "\"micro_batch\": 2.*\"hf_config\": \"[^\"]*llama-3-8b\\.json\".*\"stack\": \"deepspeed\",\n    \"zero\": 3.*\"dp\": 32,\n    \"gpus\": 32")
# zero_optimization.stage is the ZeRO stage (ds_config_stage2.json is ds_config.json at stage 2);
# DeepSpeed has no stage 4.
tpcost_cli_case("deepspeed json: zero_optimization.stage 2 is ZeRO-2"
  ARGS convert -q ${fmt_dir}/ds_config_stage2.json ${PROJECT_SOURCE_DIR}/examples/hf/llama-3-8b.json
  RC 0 STDOUT "\"stack\": \"deepspeed\",\n    \"zero\": 2\n")
tpcost_cli_case("deepspeed json: a stage DeepSpeed does not have names its line"
  ARGS convert ${fmt_dir}/bad/ds_stage4.json ${PROJECT_SOURCE_DIR}/examples/hf/llama-3-8b.json RC 2
  STDERR "ds_stage4\\.json:8: zero_optimization\\.stage: found 4; expected a ZeRO stage 0\\.\\.3")
# zero_optimization.offload_optimizer / offload_param (ZeRO-Offload, ZeRO-Infinity): the GPU
# memory they free is costed, the host Adam step and the PCIe copies are not (a warning each).
tpcost_cli_case("deepspeed json: offload_optimizer and offload_param are read, with warnings"
  ARGS convert -q ${fmt_dir}/ds_config_offload.json ${PROJECT_SOURCE_DIR}/examples/hf/llama-3-8b.json
  RC 0 STDOUT "\"offload_optimizer\": true,\n    \"offload_param\": true,"
  STDERR "ds_config_offload\\.json:11: zero_optimization\\.offload_optimizer: offloaded to the cpu: the GPU memory it frees is costed, the host step and the PCIe copies are not\n[^\n]*ds_config_offload\\.json:12: zero_optimization\\.offload_param: offloaded")
tpcost_cli_case("deepspeed json offload: the step keeps 0 state bytes and the gathered layers"
  ARGS step --from ${fmt_dir}/ds_config_offload.json --from ${PROJECT_SOURCE_DIR}/examples/hf/llama-3-8b.json
       --seq 8k --gpu h100-sxm --interconnect ib-ndr RC 0 STDERR "offload_param: offloaded to the cpu"
  STDOUT "state_bytes_per_param +0\\+0\\+0 B/param.*memory per GPU [^\n]*: weights 0\\.8 GiB, gradients 0\\.0 GiB, optimizer 0\\.0 GiB")
tpcost_cli_case("--offload-param without ZeRO-3 is refused"
  ARGS step --model llama-3-8b --gpus 16 --global-batch 64 --seq 8k --offload-param --gpu h100-sxm
  RC 2 STDERR "^tpcost: error: --offload-param: needs --zero 3: DeepSpeed offloads the parameter partitions of ZeRO-3 only\n$")
tpcost_cli_case("an hf config alone is not a check"
  ARGS check ${PROJECT_SOURCE_DIR}/examples/hf/llama-3-8b.json RC 2
  STDERR "llama-3-8b\\.json: a Hugging Face config\\.json describes only a model")

# Bad input: one line naming file:line, exit 2, nothing on stdout.
set(badf ${fmt_dir}/bad)
tpcost_cli_case("yaml syntax error names file:line:column" ARGS convert ${badf}/syntax.yaml RC 2
  STDERR "syntax\\.yaml:4:6: malformed YAML")
# A sequence as a map key is valid YAML; yaml-cpp's as<std::string>() threw on it (the reader
# fuzzer's first crash).
tpcost_cli_case("yaml with a sequence as a key names file:line" ARGS convert ${badf}/sequence_key.yaml
  RC 2 STDERR "sequence_key\\.yaml:2:5: .*a map key must be a plain name")
tpcost_cli_case("toml syntax error names file:line:column" ARGS check ${badf}/syntax.toml
  --rule min_efficiency=0.5 RC 2 STDERR "syntax\\.toml:3:28: malformed TOML")
# A float where an integer goes: toml++ would cast 3e22 to int64 unchecked (UB; the reader
# fuzzer's find). Refused by type before any conversion.
tpcost_cli_case("toml float degree is not an integer" ARGS convert ${badf}/float_degree.toml RC 2
  STDERR "float_degree\\.toml:3:28: parallelism\\.pipeline_parallel_degree: expected an integer")
tpcost_cli_case("toml: an unknown context_parallel_rotate_method names file:line"
  ARGS convert ${badf}/cp_rotate.toml RC 2
  STDERR "cp_rotate\\.toml:3:[0-9]+: parallelism\\.context_parallel_rotate_method: 'ring' is not a rotate method; expected allgather or alltoall\n$")
tpcost_cli_case("toml: expert_tensor_parallel_degree neither 1 nor the TP degree names file:line"
  ARGS convert ${badf}/expert_tp.toml RC 2
  STDERR "expert_tp\\.toml:4:[0-9]+: parallelism\\.expert_tensor_parallel_degree: 2 is neither 1 nor tensor_parallel_degree = 4")
tpcost_cli_case("a script without megatron arguments" ARGS convert ${badf}/no_args.sh RC 2
  STDERR "no_args\\.sh:1: no Megatron-LM arguments found")
tpcost_cli_case("global batch not a multiple of DP x micro-batch names the script's line"
  ARGS check ${badf}/bad_batch.sh --gpu h100-sxm --rule min_memory_headroom=0 RC 2
  STDERR "bad_batch\\.sh:7:5: --global-batch-size: G = 12 is not a multiple of d\\*b = 4\\*2 = 8")
tpcost_cli_case("an unresolved variable where a number is needed" ARGS convert ${badf}/unresolved.sh
  RC 2 STDERR "unresolved\\.sh:5:5: --tensor-model-parallel-size: .*\\$TP_SIZE is not set in the script \\(give --set TP_SIZE=VALUE\\)")
tpcost_cli_case("--set resolves it" ARGS convert -q ${badf}/unresolved.sh --set TP_SIZE=4 RC 0
  STDERR "vocabulary size is not stated" STDOUT "\"tp\": 4")
tpcost_cli_case("a bad --rule" ARGS check ${meg}/gpt3_175b_training.log --rule min_mfu=2 RC 2
  STDERR "--rule: min_mfu: ")
# --kv-channels is the head dimension (Qwen3-32B: 128, not 5120 / 64 = 80); the script costs
# what its config.json costs at Megatron's padded vocabulary (151936 -> 152576 at t = 8).
tpcost_cli_case("megatron qwen3-32b script: --kv-channels 128 is the head dimension"
  ARGS convert -q ${meg}/qwen3_32b_kv_channels.sh RC 0
  STDOUT "\"ffn\": 25600,\n    \"head_dim\": 128,\n    \"heads\": 64,")
tpcost_cli_case("megatron qwen3-32b script: the step its config.json costs"
  ARGS step --config ${meg}/qwen3_32b_kv_channels.sh --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "step time 16\\.38 s   64016 tokens/s")
tpcost_cli_case("qwen3-32b config.json: the same step as its launch script"
  ARGS step --hf-config ${PROJECT_SOURCE_DIR}/tests/cli/data/qwen3_32b_config.json --vocab 152576
       --seq 4096 --tp 8 --pp 1 --dp 4 --batch 1 --global-batch 256 --sp --zero 1
       --stack megatron-core --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "step time 16\\.38 s   64016 tokens/s")
# Megatron-Core's precision-aware optimizer (issue 25): its dtypes set the model states.
tpcost_cli_case("megatron: the precision-aware optimizer's dtypes are read"
  ARGS convert -q ${meg}/qwen3_32b_precision_aware.sh RC 0
  STDOUT "\"exp_avg_dtype\": \"bf16\",\n *\"exp_avg_sq_dtype\": \"bf16\",\n *\"main_grads_dtype\": \"bf16\",\n *\"main_params_dtype\": \"fp32\",.*\"use_precision_aware_optimizer\": true")
tpcost_cli_case("megatron: bf16 gradients and moments, 16-bit master remainders: 2+2+6 bytes"
  ARGS step --config ${meg}/qwen3_32b_precision_aware.sh --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "state_bytes_per_param +2\\+2\\+6 B/param +flag: --use-precision-aware-optimizer.*memory per GPU \\(fullest stage 0, fused attention\\): weights 7\\.6 GiB, gradients 7\\.6 GiB, optimizer 5\\.7 GiB")
tpcost_cli_case("megatron: a dtype Megatron does not know names its line"
  ARGS step --config ${meg}/qwen3_32b_precision_aware.sh --gpu h100-sxm --interconnect ib-ndr --set EXP_AVG=fp9 RC 2
  STDERR "^tpcost: error: [^\n]*qwen3_32b_precision_aware\\.sh:18:5: --exp-avg-dtype: 'fp9'; expected fp32, fp16, bf16 or fp8\n$")
tpcost_cli_case("step: an optimizer dtype without --use-precision-aware-optimizer"
  ARGS step --model llama-3-8b --gpu h100-sxm --gpus 8 -G 8 --exp-avg-dtype bf16 RC 2
  STDERR "^tpcost: error: --exp-avg-dtype: bf16: needs --use-precision-aware-optimizer \\(Megatron-Core asserts fp32 without it\\)\n$")
tpcost_cli_case("step: a bf16 master weight is refused as Megatron refuses it"
  ARGS step --model llama-3-8b --gpu h100-sxm --gpus 8 -G 8 --use-precision-aware-optimizer --main-params-dtype bf16 RC 2
  STDERR "^tpcost: error: --main-params-dtype: must be fp32 or fp16")
tpcost_cli_case("step: the precision-aware optimizer on another stack"
  ARGS step --model llama-3-8b --gpu h100-sxm --gpus 8 -G 8 --stack fsdp2 --use-precision-aware-optimizer RC 2
  STDERR "^tpcost: error: --use-precision-aware-optimizer: is a Megatron-Core flag; --stack fsdp2 does not take it")

# Sourced files (issue 29): SC21's run_table_1.sh picks a row in an if/elif chain on
# $MODEL_SIZE, then sources `pwd`/CONFIG.sh, whose exported MEGATRON_PARAMS holds the flags.
set(sc21 ${meg}/sc21/run_table_1.sh)
tpcost_cli_case("sc21 run_table_1.sh --set MODEL_SIZE=76B: the row's layout, model and batch"
  ARGS convert -q ${sc21} --set MODEL_SIZE=76B RC 0
  STDOUT "\"global_batch\": 1792,\n    \"micro_batch\": 2\n.*\"dtype\": \"fp16\".*\"heads\": 80,\n    \"hidden\": 10240,\n    \"kv_heads\": 80,\n    \"layers\": 60,\n    \"seq\": 2048,\n    \"vocab\": 51200\n.*\"recompute\": \"full\",.*\"pp\": 4,\n    \"tp\": 8,\n    \"vpp\": 3\n")
tpcost_cli_case("sc21 run_table_1.sh as committed: the 1.7B row the script names, torch DDP"
  ARGS convert -q ${sc21} RC 0
  STDOUT "\"global_batch\": 512,\n    \"micro_batch\": 16\n.*\"hidden\": 2304,.*\"vocab\": 50304\n.*\"dp_overlap\": 1\\.0,.*\"stack\": \"megatron-2021\".*\"pp\": 1,\n    \"tp\": 1\n")
# Costed with the inputs the SC21 reference (tests/reference/sc21.hpp, stack_dev_test.cpp)
# gives the step model: the 76B row of Table 1 on 1,024 A100s, V = 51200, full recomputation,
# fp16, the megatron-2021 stack (--DDP-impl is a Megatron-LM v2 flag) with local DDP.
add_test(NAME "cli: sc21 run_table_1.sh 76B costs what the row's flags cost"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--config|${sc21}|--set|MODEL_SIZE=76B|--gpus|1024|--gpu|a100-sxm4-80gb|--interconnect|ib-hdr|--quiet"
    "-DARGS_B=step|--layers|60|--hidden|10240|--heads|80|--seq|2048|--vocab|51200|--arch|gpt|--tp|8|--pp|4|--vpp|3|--dp|32|--batch|2|--global-batch|1792|--recompute|full|--dtype|fp16|--stack|megatron-2021|--gpu|a100-sxm4-80gb|--interconnect|ib-hdr|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
tpcost_cli_case("a sourced file that does not exist names the source line"
  ARGS convert ${badf}/source_missing.sh RC 2
  STDERR "source_missing\\.sh:4:1: source \\./cluster_config\\.sh: [^ ]*bad/cluster_config\\.sh does not exist")
tpcost_cli_case("a cycle of sourced files is refused"
  ARGS convert ${badf}/source_cycle_a.sh RC 2
  STDERR "source_cycle_b\\.sh:4:1: source source_cycle_a\\.sh: sources [^ ]*source_cycle_a\\.sh, which is already being read: a cycle")
tpcost_cli_case("sourced files more than 8 deep are refused"
  ARGS convert ${badf}/source_deep.sh RC 2
  STDERR "level_8\\.sh:3:1: source \\./level_9\\.sh: sources [^ ]*level_9\\.sh more than 8 files deep")
# `. $CONF/model.sh` and `source "${CONF}/parallel.sh"`: a path through a variable the script
# sets, relative to the script's folder; an error in the sourced file names that file's line.
set(sourced ${fmt_dir}/sourced/train.sh)
tpcost_cli_case("sourced files through a variable the script sets: the model and the layout they hold"
  ARGS convert -q ${sourced} RC 0
  STDOUT "\"heads\": 16,\n    \"hidden\": 2048,.*\"layers\": 24,.*\"gpus\": 8,\n    \"pp\": 2,\n    \"tp\": 2\n")
tpcost_cli_case("a bad value in a sourced file names the sourced file's line"
  ARGS convert ${sourced} --set HEADS=abc RC 2
  STDERR "sourced/conf/model\\.sh:6:5: --num-attention-heads: 'abc' is not a whole number")
tpcost_cli_case("flags in a plain variable of a sourced file: read where the script expands them"
  ARGS convert -q ${fmt_dir}/sourced/train_flags.sh RC 0
  STDOUT "\"heads\": 16,\n    \"hidden\": 2048,.*\"layers\": 24,.*\"tp\": 2\n")
tpcost_cli_case("a bad flag in a plain variable of a sourced file names the line that assigns it"
  ARGS convert ${fmt_dir}/sourced/train_flags.sh --set HEADS=abc RC 2
  STDERR "sourced/conf/flags\\.sh:4:1: --num-attention-heads: 'abc' is not a whole number")
tpcost_cli_case("a sourced path through an unset variable asks for --set"
  ARGS convert ${badf}/source_unknown_var.sh RC 2
  STDERR "source_unknown_var\\.sh:3:1: source \\$\\{CONFIG_DIR\\}/model\\.sh: \\$CONFIG_DIR is not set in the script \\(give --set CONFIG_DIR=VALUE\\)")

# Megatron-FSDP (issue 29): --data-parallel-sharding-strategy no_shard, optim, optim_grads,
# optim_grads_params are ZeRO 0-3. Megatron-LM's own example (examples/megatron_fsdp).
set(mfsdp ${meg}/train_llama3_8b_fsdp_h100_fp8.sh)
tpcost_cli_case("megatron-fsdp script: optim_grads_params is ZeRO-3"
  ARGS convert -q ${mfsdp} RC 0 STDOUT "\"zero\": 3\n")
tpcost_cli_case("megatron-fsdp script: optim is ZeRO-1"
  ARGS convert -q ${mfsdp} --set SHARDING_STRATEGY=optim RC 0 STDOUT "\"zero\": 1\n")
tpcost_cli_case("megatron-fsdp script: no_shard is ZeRO-0"
  ARGS convert -q ${mfsdp} --set SHARDING_STRATEGY=no_shard RC 0 STDOUT "\"zero\": 0\n")
tpcost_cli_case("megatron-fsdp script: without --use-megatron-fsdp the distributed optimizer, ZeRO-1"
  ARGS convert -q ${mfsdp} --set USE_MEGATRON_FSDP=0 RC 0 STDOUT "\"zero\": 1\n")
tpcost_cli_case("megatron-fsdp script: check costs ZeRO-3"
  ARGS check ${mfsdp} --gpu h100-sxm --rule min_mfu=0.3 RC 0 STDOUT "t=1 p=1 d=8, b=1 G=128.*ZeRO-3")
# The script costs what the llama-3-8b preset costs with the layout, batch, precision and
# sharding it states (and its --cross-entropy-loss-fusion): the same step (--quiet's breakdown, where ZeRO-1 and 3 tie) and the same
# ZeRO-3 memory (optim_grads_params; ZeRO-1 would need 96.1 GiB).
add_test(NAME "cli: megatron-fsdp script costs what --model llama-3-8b --zero 3 costs"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--config|${mfsdp}|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    "-DARGS_B=step|--model|llama-3-8b|--tp|1|--pp|1|--gpus|8|--batch|1|--global-batch|128|--seq|8192|--zero|3|--dtype|bf16|--precision|fp8|--fp8-param-gather|--attention|fused|--sp|--overlap-grad-reduce|--overlap-param-gather|--hidden-dropout|0|--attention-dropout|0|--stack|megatron-core|--no-gradient-accumulation-fusion|--cross-entropy-loss-fusion|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
set(llama_fsdp_mem "ZeRO 3 .*step time 10\\.47 s .*memory per GPU \\(fullest stage 0, fused attention\\): weights 2\\.7 GiB, gradients 3\\.7 GiB, optimizer 11\\.2 GiB, activations 40\\.0 GiB = 57\\.7 GiB")
tpcost_cli_case("megatron-fsdp script: the ZeRO-3 step and memory"
  ARGS step --config ${mfsdp} --gpu h100-sxm --interconnect ib-ndr RC 0 STDOUT "${llama_fsdp_mem}")
tpcost_cli_case("llama-3-8b preset at the megatron-fsdp script's settings: the same step and memory"
  ARGS step --model llama-3-8b --tp 1 --pp 1 --gpus 8 --batch 1 --global-batch 128 --seq 8192
       --zero 3 --dtype bf16 --precision fp8 --fp8-param-gather --attention fused --sp
       --overlap-grad-reduce --overlap-param-gather --hidden-dropout 0 --attention-dropout 0
       --stack megatron-core --no-gradient-accumulation-fusion --cross-entropy-loss-fusion
       --gpu h100-sxm --interconnect ib-ndr RC 0 STDOUT "${llama_fsdp_mem}")
tpcost_cli_case("megatron-fsdp script: an unknown strategy names the flag"
  ARGS convert ${mfsdp} --set SHARDING_STRATEGY=full RC 2
  STDERR "train_llama3_8b_fsdp_h100_fp8\\.sh:117:9: --data-parallel-sharding-strategy: 'full' is not a Megatron-FSDP sharding strategy")
tpcost_cli_case("megatron-fsdp default without a release: optim_grads_params, with a warning"
  ARGS convert ${meg}/megatron_fsdp_default.sh RC 0
  STDERR "megatron_fsdp_default\\.sh:11:5: --use-megatron-fsdp: the script does not name its Megatron-LM release .* taken as optim_grads_params \\(ZeRO-3\\)"
  STDOUT "\"zero\": 3\n")
tpcost_cli_case("megatron-fsdp default at core_v0.17.1: no_shard"
  ARGS convert -q ${meg}/megatron_fsdp_default.sh --set MCORE_RELEASE=core_v0.17.1 RC 0
  STDOUT "\"zero\": 0\n")
tpcost_cli_case("megatron-bridge yaml: ddp.use_megatron_fsdp with optim_grads is ZeRO-2"
  ARGS convert -q ${fmt_dir}/llama3_8b_bridge_fsdp.yaml RC 0 STDOUT "\"zero\": 2\n")
# Gradient accumulation outside the GEMM (stack_profiles.hpp): Megatron-LM's store_false flag,
# and the Bridge YAML's model.gradient_accumulation_fusion: false.
tpcost_cli_case("megatron-fsdp script: --no-gradient-accumulation-fusion is read"
  ARGS convert -q ${mfsdp} RC 0 STDOUT "\"no_gradient_accumulation_fusion\": true")
tpcost_cli_case("megatron-bridge yaml: model.gradient_accumulation_fusion false is read"
  ARGS convert -q ${fmt_dir}/llama3_8b_bridge_fsdp.yaml RC 0
  STDOUT "\"no_gradient_accumulation_fusion\": true")

# torchtitan's global batch (issue 29): local_batch_size x DP, DP from --gpus when the TOML says
# data_parallel_shard_degree = -1; its one warning printed once.
set(tt_auto ${fmt_dir}/llama3_8b_torchtitan_dp_auto.toml)
tpcost_cli_case("torchtitan toml with --gpus 64: G = local_batch_size x DP = 2 x 32"
  ARGS check ${tt_auto} --gpus 64 --gpu h100-sxm --interconnect ib-ndr --rule min_mfu=0.25 RC 0
  STDERR "^tpcost: warning: [^\n]*selective_ac_option: checkpointing every 2 layers[^\n]*\n$"
  STDOUT "step: llama-3-8b, t=2 p=1 d=32, b=2 G=64,.*PASS  min_mfu")
tpcost_cli_case("torchtitan toml: a --gpus its degrees do not fill names both and where the degrees are"
  ARGS check ${fmt_dir}/llama3_8b_torchtitan.toml --gpus 48 --gpu h100-sxm --rule min_mfu=0.1 RC 2
  STDERR "^tpcost: error: --gpus: t\\*p\\*d = 2\\*1\\*32 = 64 is not N = 48 \\(the file's degrees: [^\n]*llama3_8b_torchtitan\\.toml:26:26: parallelism\\.tensor_parallel_degree; [^\n]*:27:28: parallelism\\.pipeline_parallel_degree; [^\n]*:25:30: parallelism\\.data_parallel_shard_degree\\)\n$")
tpcost_cli_case("torchtitan toml: step --from with --gpus 64 derives G"
  ARGS step --from ${tt_auto} --gpus 64 --gpu h100-sxm --interconnect ib-ndr RC 0
  STDERR "selective_ac_option" STDOUT "t=2 p=1 d=32  b=2 G=64 ")
tpcost_cli_case("torchtitan toml: --dp 16 derives G = 32"
  ARGS step --from ${tt_auto} --gpus 64 --dp 16 --pp 2 --gpu h100-sxm --interconnect ib-ndr RC 0
  STDERR "selective_ac_option" STDOUT "d=16  b=2 G=32 ")
tpcost_cli_case("torchtitan toml without --gpus: check asks for the GPU count"
  ARGS check ${fmt_dir}/llama3_8b_torchtitan_tokens_auto.toml --gpu h100-sxm --interconnect ib-ndr
       --rule min_mfu=0.3 RC 2
  STDERR "tokens_auto\\.toml: the step rules \\(min_mfu\\) need the GPU count: --gpus N with the command \\(the global batch is [^ ]*tokens_auto\\.toml:[0-9]+:[0-9]+: training\\.num_tokens_per_microbatch_per_dp_rank x DP")
tpcost_cli_case("torchtitan toml: tokens per micro-batch x DP with --gpus 64"
  ARGS check ${fmt_dir}/llama3_8b_torchtitan_tokens_auto.toml --gpus 64 --gpu h100-sxm
       --interconnect ib-ndr --rule min_mfu=0.3 RC 0 STDOUT "t=2 p=1 d=32, b=2 G=64,")
tpcost_cli_case("torchtitan toml: the token-counted batch of b5bcd76"
  ARGS convert -q ${fmt_dir}/llama3_8b_torchtitan_tokens.toml RC 0
  STDOUT "\"global_batch\": 256,\n    \"micro_batch\": 2\n.*\"seq\": 8192")
tpcost_cli_case("torchtitan toml: tokens that are not whole sequences name the key"
  ARGS convert ${badf}/tokens_seq.toml RC 2
  STDERR "tokens_seq\\.toml:3:[0-9]+: training\\.num_tokens_per_microbatch_per_dp_rank: 10000 tokens are not a whole number of sequences of training\\.max_context_length = 8192")
# Exit 2 is one line (issue 29): a reader's warning is held until the command gets past
# validation, so a run that then fails on invalid input prints its error alone, and one that
# succeeds prints the warning as before.
tpcost_cli_case("torchtitan toml: a warning before a --gpus the degrees do not divide is not printed"
  ARGS step --from ${tt_auto} --gpus 63 --gpu h100-sxm RC 2
  STDERR "^tpcost: error: --gpus: 63 GPUs are not a multiple of t\\*p = 2")
tpcost_cli_case("torchtitan toml: check of an invalid step prints its error alone"
  ARGS check ${tt_auto} --gpus 63 --gpu h100-sxm --rule min_mfu=0.1 RC 2
  STDERR "^tpcost: error: [^\n]*dp_auto\\.toml")
tpcost_cli_case("megatron script: a warning before a batch the GPUs do not divide is not printed"
  ARGS step --from ${meg}/megatron_fsdp_default.sh --gpus 7 --gpu h100-sxm RC 2
  STDERR "^tpcost: error: [^\n]*megatron_fsdp_default\\.sh:10:26: --global-batch-size: G = 128 is not a multiple of d\\*b = 7\\*1 = 7")
tpcost_cli_case("megatron-bridge yaml: a warning before a batch the GPUs do not divide is not printed"
  ARGS step --from ${fmt_dir}/llama3_8b_bridge_ddp_instances.yaml --gpus 12 --gpu h100-sxm RC 2
  STDERR "^tpcost: error: [^\n]*ddp_instances\\.yaml:28:22: train\\.global_batch_size: G = 512 is not a multiple of d\\*b = 6\\*1 = 6")
tpcost_cli_case("megatron-bridge yaml: the same warning on a run that succeeds"
  ARGS step --from ${fmt_dir}/llama3_8b_bridge_ddp_instances.yaml --gpus 16 --gpu h100-sxm
       --interconnect ib-ndr -q RC 0
  STDERR "^tpcost: warning: [^\n]*ddp_instances\\.yaml:38:40: ddp\\.num_distributed_optimizer_instances: 2 instances without use_distributed_optimizer or use_megatron_fsdp: nothing is sharded[^\n]*\n")
tpcost_cli_case("convert: the first file's warning is not printed when the second is refused"
  ARGS convert ${meg}/megatron_fsdp_default.sh ${badf}/global_batch_local.toml RC 2
  STDERR "^tpcost: error: [^\n]*global_batch_local\\.toml:9:21: ")

# torchtitan's own batch contradictions, refused by convert as its trainer refuses them.
tpcost_cli_case("torchtitan toml: a global batch not a multiple of local_batch_size x DP"
  ARGS convert ${badf}/global_batch_local.toml RC 2
  STDERR "global_batch_local\\.toml:9:21: training\\.global_batch_size: G = 66 is not a multiple of training\\.local_batch_size x DP = 2 x 32 = 64")
tpcost_cli_case("torchtitan toml: a local batch larger than the global batch"
  ARGS convert ${badf}/local_over_global.toml RC 2
  STDERR "local_over_global\\.toml:7:20: training\\.local_batch_size: the local batch 4 is larger than the global batch 2 \\(training\\.global_batch_size\\)")
# data_parallel_shard_degree = -1: the same rules once --gpus fixes DP. 96 is a multiple of the
# micro-batches (2) x DP = 16 but not of local_batch_size x DP = 4 x 16 = 64.
tpcost_cli_case("torchtitan toml, DP from --gpus: a global batch not a multiple of local_batch_size x DP"
  ARGS step --from ${badf}/global_batch_dp_auto.toml --gpus 64 --gpu h100-sxm --interconnect ib-ndr RC 2
  STDERR "^tpcost: error: [^\n]*global_batch_dp_auto\\.toml:12:21: training\\.global_batch_size: G = 96 is not a multiple of training\\.local_batch_size x DP = 4 x 16 = 64 \\(DP = --gpus 64 / t\\*p\\*cp 4\\)")
tpcost_cli_case("torchtitan toml, DP from --gpus: check refuses the same global batch"
  ARGS check ${badf}/global_batch_dp_auto.toml --gpus 64 --gpu h100-sxm --interconnect ib-ndr
       --rule min_mfu=0.1 RC 2
  STDERR "global_batch_dp_auto\\.toml:12:21: training\\.global_batch_size: G = 96 is not a multiple of training\\.local_batch_size x DP = 4 x 16 = 64")
tpcost_cli_case("torchtitan toml, DP from --gpus: a global batch that is a multiple is costed"
  ARGS step --from ${badf}/global_batch_dp_auto.toml --gpus 32 --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "t=2 p=2 d=8  b=2 G=96 m=6 ")
tpcost_cli_case("torchtitan toml, DP from --gpus: check passes a global batch that is a multiple"
  ARGS check ${badf}/global_batch_dp_auto.toml --gpus 32 --gpu h100-sxm --interconnect ib-ndr
       --rule min_mfu=0.1 RC 0
  STDOUT "step: llama-3-8b, t=2 p=2 d=8, b=2 G=96,")
tpcost_cli_case("torchtitan toml, DP from the GPUs: a local batch larger than the global batch"
  ARGS step --from ${badf}/local_over_global_dp_auto.toml --gpus 8 --gpu h100-sxm RC 2
  STDERR "local_over_global_dp_auto\\.toml:8:20: training\\.local_batch_size: the local batch 4 is larger than the global batch 2 \\(training\\.global_batch_size\\)")
tpcost_cli_case("torchtitan toml: pipeline micro-batches that do not divide the local batch"
  ARGS check ${badf}/pp_microbatch.toml --gpus 16 --gpu h100-sxm --rule min_mfu=0.1 RC 2
  STDERR "pp_microbatch\\.toml:14:37: parallelism\\.pipeline_parallel_microbatch_size: micro-batches of 3 do not divide training\\.local_batch_size = 8")

# Megatron's tokenizers whose type fixes the vocabulary (issue 29), padded to a multiple of
# 128 x t = 512 (_vocab_size_with_padding).
set(tok ${meg}/tokenizers.sh)
tpcost_cli_case("megatron GPT2BPETokenizer: 50257 tokens, padded to 50688 at t = 4"
  ARGS convert -q ${tok} RC 0 STDOUT "\"vocab\": 50688\n")
tpcost_cli_case("megatron Llama2Tokenizer: 32000 tokens, padded to 32256 at t = 4"
  ARGS convert -q ${tok} --set TOK=Llama2Tokenizer RC 0 STDOUT "\"vocab\": 32256\n")
tpcost_cli_case("megatron TikTokenizer without --vocab-size: 2^17"
  ARGS convert -q ${tok} --set TOK=TikTokenizer --set VOCAB_ARGS=--tokenizer-model=t.json RC 0
  STDOUT "\"vocab\": 131072\n")
tpcost_cli_case("megatron NullTokenizer: --vocab-size + its EOD token, 128257 padded to 128512"
  ARGS convert -q ${tok} --set TOK=NullTokenizer --set VOCAB_ARGS=--vocab-size=128256 RC 0
  STDOUT "\"vocab\": 128512\n")
tpcost_cli_case("megatron HuggingFaceTokenizer: the size is asked for in the script's terms"
  ARGS convert -q ${tok} --set TOK=HuggingFaceTokenizer --set VOCAB_ARGS=--tokenizer-model=m RC 0
  STDERR "tokenizers\\.sh:10:12: --tokenizer-type: the vocabulary size is not stated \\(HuggingFaceTokenizer reads it from its files\\): add --vocab-size N to the script's arguments")

# check names everything a file lacks in one run, once, in the file's own terms (issue 29).
tpcost_cli_case("check of a script: every missing value at once, as flags"
  ARGS check ${tok} --set TOK=HuggingFaceTokenizer --set VOCAB_ARGS=--tokenizer-model=m
       --rule min_mfu=0.3 RC 2
  STDERR "tokenizers\\.sh: the step rules \\(min_mfu\\) need the model's --vocab-size N in the script \\(or --vocab N with the command\\) [^;]*; the GPU: --gpu NAME with the command")
tpcost_cli_case("check of a script without a rule: --rule, not a JSON checks block"
  ARGS check ${tok} RC 2
  STDERR "tokenizers\\.sh: no rule is enabled and no whole step to judge the memory of; give a rule with the command, e.g. --rule min_mfu=0.4 \\(or, to judge the memory, the GPU: --gpu NAME with the command, e\\.g\\. --gpu h100-sxm\\)\n$")
tpcost_cli_case("check of a torchtitan TOML without a rule names the one flag its memory needs"
  ARGS check ${fmt_dir}/llama3_8b_torchtitan.toml RC 2
  STDERR "llama3_8b_torchtitan\\.toml: no rule is enabled [^\n]*e\\.g\\. --rule min_mfu=0\\.4 \\(or, to judge the memory, the GPU: --gpu NAME with the command, e\\.g\\. --gpu h100-sxm\\)\n$")
tpcost_cli_case("check of a Bridge YAML without a rule: the GPU and the GPU count"
  ARGS check ${fmt_dir}/llama3_8b_bridge.yaml RC 2
  STDERR "llama3_8b_bridge\\.yaml: no rule is enabled [^\n]*\\(or, to judge the memory, the GPU: --gpu NAME with the command, e\\.g\\. --gpu h100-sxm; the GPU count: --gpus N with the command\\)\n$")
tpcost_cli_case("check of a Bridge YAML with the GPU and the GPU count judges its memory"
  ARGS check ${fmt_dir}/llama3_8b_bridge.yaml --gpu h100-sxm --gpus 16 --interconnect ib-ndr RC 0
  STDOUT "PASS  fits_memory")
tpcost_cli_case("check takes --vocab for a script whose tokenizer reads it from its files"
  ARGS check ${tok} --set TOK=HuggingFaceTokenizer --set VOCAB_ARGS=--tokenizer-model=m
       --rule min_mfu=0.2 --vocab 128256 --gpu h100-sxm RC 0
  STDOUT "t=4 p=1 d=2, b=1 G=64.*PASS  min_mfu")
tpcost_cli_case("check of a Bridge YAML: the GPU and the GPU count at once"
  ARGS check ${fmt_dir}/llama3_8b_bridge.yaml --rule min_mfu=0.3 RC 2
  STDERR "llama3_8b_bridge\\.yaml: the step rules \\(min_mfu\\) need the GPU: --gpu NAME with the command, e.g. --gpu h100-sxm; the GPU count: --gpus N with the command\n$")
tpcost_cli_case("torchrun without --nnodes is one node"
  ARGS convert -q ${badf}/unresolved.sh --set TP_SIZE=4 RC 0 STDERR "vocabulary size is not stated"
  STDOUT "\"gpus_per_node\": 8\n.*\"gpus\": 8,")

# if/elif/else on known strings is decided; a file test is not, and both branches are read.
tpcost_cli_case("script if chain: the default branch"
  ARGS convert -q ${fmt_dir}/if_chain.sh RC 0 STDOUT "\"pp\": 4,\n    \"tp\": 2\n")
tpcost_cli_case("script if chain: --set MODE=large takes the elif, and skips a nested if"
  ARGS convert -q ${fmt_dir}/if_chain.sh --set MODE=large RC 0 STDOUT "\"pp\": 4,\n    \"tp\": 4\n")
tpcost_cli_case("script if chain: no branch true takes the else"
  ARGS convert -q ${fmt_dir}/if_chain.sh --set MODE=huge RC 0 STDOUT "\"pp\": 4,\n    \"tp\": 8\n")

# torchtitan's data-parallel degrees: replicate alone is DDP (ZeRO-0), replicate x shard HSDP.
tpcost_cli_case("torchtitan toml: data_parallel_replicate_degree alone is DDP, ZeRO-0"
  ARGS convert -q ${fmt_dir}/llama3_8b_torchtitan_ddp.toml RC 0
  STDOUT "\"stack\": \"fsdp2\",\n    \"zero\": 0\n.*\"dp\": 32,")
tpcost_cli_case("torchtitan toml: replicate x shard is HSDP, ZeRO-3 in 4 replicas of 8"
  ARGS convert -q ${fmt_dir}/llama3_8b_torchtitan_hsdp.toml RC 0 STDERR "^$"
  STDOUT "\"zero\": 3\n.*\"dp\": 32,\n    \"dp_replicas\": 4,")

# --recompute-modules (a list), --recompute-method/--recompute-num-layers, --cpu-offloading:
# read into the step's recompute recipe (Megatron-Core core_v0.16.0).
tpcost_cli_case("megatron --recompute-modules are read as a comma list"
  ARGS convert -q ${fmt_dir}/recompute_modules.sh RC 0
  STDOUT "\"recompute\": \"selective\",\n    \"recompute_modules\": \"core_attn,moe_act,mlp\"")
tpcost_cli_case("megatron --recompute-modules core_attn is the default, kept as given"
  ARGS convert -q ${fmt_dir}/recompute_modules.sh --set MODULES=core_attn RC 0
  STDOUT "\"recompute_modules\": \"core_attn\"")
tpcost_cli_case("megatron --recompute-modules with a name Megatron does not know fails"
  ARGS convert -q ${fmt_dir}/recompute_modules.sh --set MODULES=attn RC 2
  STDERR "recompute_modules\\.sh:8:[0-9]+: --recompute-modules: 'attn' is not a recompute module")
tpcost_cli_case("megatron-bridge yaml: recompute_modules as a list"
  ARGS convert -q ${fmt_dir}/llama3_8b_bridge_recompute_modules.yaml RC 0
  STDOUT "\"recompute_modules\": \"core_attn,mlp\"")
tpcost_cli_case("megatron-bridge yaml: recompute_modules reach the step and its memory"
  ARGS step --from ${fmt_dir}/llama3_8b_bridge_recompute_modules.yaml --gpu h100-sxm --interconnect ib-ndr --gpus 16 RC 0
  STDOUT "recompute selective \\(core_attn,mlp\\).*recompute_modules +core_attn,mlp +flag: --recompute-modules: the memory each module's recomputation frees")
tpcost_cli_case("megatron --recompute-method block --recompute-num-layers N"
  ARGS convert -q ${fmt_dir}/recompute_block.sh RC 0
  STDOUT "\"recompute\": \"full\",\n    \"recompute_method\": \"block\",\n    \"recompute_num_layers\": 4")
tpcost_cli_case("megatron block recomputation of more layers than a stage has: one line, exit 2"
  ARGS step --from ${fmt_dir}/recompute_block.sh --set N=13 --gpu h100-sxm --interconnect ib-ndr RC 2
  STDERR "--recompute-num-layers: 13 is out of range; expected 0\\.\\.12, the layers of a model chunk")
tpcost_cli_case("megatron --cpu-offloading: the layers offloaded, the PCIe time said to be uncosted"
  ARGS step --from ${fmt_dir}/cpu_offloading.sh --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "recompute none, 6 layers offloaded.*cpu_offloading_num_layers +6 +flag: --cpu-offloading-num-layers: those layers' activations leave the GPU; the PCIe copies to the host and back are not costed")
# --fine-grained-activation-offloading --offload-modules (nargs words; Bridge: a YAML list).
tpcost_cli_case("megatron --offload-modules are read as a list with the switch"
  ARGS convert -q ${fmt_dir}/fine_grained_offloading.sh RC 0
  STDOUT "\"fine_grained_activation_offloading\": true,\n *\"offload_modules\": \"qkv_linear,core_attn,attn_proj\"")
tpcost_cli_case("megatron --offload-modules attn_proj without core_attn fails as Megatron does"
  ARGS convert -q ${fmt_dir}/fine_grained_offloading.sh --set MODULES=attn_proj RC 2
  STDERR "fine_grained_offloading\\.sh:[0-9]+:[0-9]+: --offload-modules: attn_proj needs core_attn too")
tpcost_cli_case("megatron --offload-modules with a name Megatron does not know fails"
  ARGS convert -q ${fmt_dir}/fine_grained_offloading.sh --set MODULES=fused_group_mlp RC 2
  STDERR "--offload-modules: 'fused_group_mlp' is not an offload module")
tpcost_cli_case("megatron functional test with m in its layout and all seven offload modules"
  ARGS step --from ${fmt_dir}/moe_mla_mtp_offload.sh --gpus 8 --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "v=4 +recompute selective.*offload_modules +attn_norm,qkv_linear,core_attn,attn_proj,mlp_norm,expert_fc1,moe_act .*activations 2\\.3 GiB = 6\\.8 GiB.*warning: the layout's model chunks differ in size within a stage \\(9 layers first, 6 last, in 4 chunks each\\)")
tpcost_cli_case("megatron-bridge yaml: offload_modules reach the step"
  ARGS step --from ${fmt_dir}/llama3_8b_bridge_offload_modules.yaml --gpu h100-sxm --interconnect ib-ndr --gpus 16 RC 0
  STDOUT "offload_modules +core_attn,attn_proj +flag: --fine-grained-activation-offloading")
tpcost_cli_case("megatron --window-size=(4096,0), tuple_type's parenthesised form: 4097 keys, no warning"
  ARGS convert -q ${tok} "--set" "VOCAB_ARGS=--window-size=(4096,0)" RC 0
  STDERR "^$" STDOUT "\"sliding_window\": 4097,.*\"vocab\": 50688")
tpcost_cli_case("a file given twice warns once"
  ARGS step --config ${tt_auto} --from ${tt_auto} --gpus 64 --gpu h100-sxm --interconnect ib-ndr
  RC 0 STDERR "^tpcost: warning: [^\n]*selective_ac_option[^\n]*\n$" STDOUT "G=64")
# check takes every model and layout flag of step: the MLA and MTP flags on the command line
# put back what --set MLA= takes out of the DeepSeek-V3 script.
add_test(NAME "cli: check takes step's MLA and MTP flags"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=check|${meg}/deepseek_v3_layer_freq.sh|--memory|200GiB|--gpu|h100-sxm|--interconnect|ib-ndr|--rule|min_mfu=0.1"
    "-DARGS_B=check|${meg}/deepseek_v3_layer_freq.sh|--memory|200GiB|--set|MLA=|--kv-lora-rank|512|--q-lora-rank|1536|--qk-nope-head-dim|128|--qk-rope-head-dim|64|--v-head-dim|128|--mtp-layers|1|--gpu|h100-sxm|--interconnect|ib-ndr|--rule|min_mfu=0.1"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
# A hybrid Mamba-Transformer is refused, naming the flag (its --num-layers are mostly Mamba).
tpcost_cli_case("megatron: a hybrid Mamba model is refused where its flag is"
  ARGS step --config ${badf}/hybrid_mamba.sh --gpu gb200 RC 2
  STDERR "^tpcost: error: [^\n]*hybrid_mamba\\.sh:6:5: --mamba-num-heads[^\n]*: a hybrid Mamba-Transformer model: tpcost costs transformer layers, not Mamba layers\n$")
# Dropout 0 keeps no masks (issue 25): the same GPT script with --hidden-dropout and
# --attention-dropout 0 needs 2 bytes per s*b*h and 3 per unfused score less.
tpcost_cli_case("megatron: --cross-entropy-loss-fusion and its impl are read"
  ARGS convert -q ${meg}/ce_fusion_te.sh RC 0
  STDOUT "\"options\": {\n    \"cross_entropy_fusion_impl\": \"te\",\n    \"cross_entropy_loss_fusion\": true,")
tpcost_cli_case("plan --emit bridge writes the recipe's cross entropy, and an unfused one as false"
  ARGS plan -m llama-3-8b -g h100-sxm -n 8 -G 64 --stack megatron-core --emit bridge RC 0
  STDOUT "\n  cross_entropy_loss_fusion: false\n")
tpcost_cli_case("plan --emit megatron under megatron-bridge writes Transformer Engine's cross entropy"
  ARGS plan -m llama-3-8b -g h100-sxm -n 8 -G 64 --emit megatron RC 0
  STDOUT "\n +--cross-entropy-loss-fusion \\\\\n +--cross-entropy-fusion-impl te \\\\\n")
tpcost_cli_case("megatron: dropout 0 is read" ARGS convert -q ${meg}/gpt_no_dropout.sh --set DROP=0 RC 0
  STDOUT "\"attention_dropout\": 0\\.0,.*\"hidden_dropout\": 0\\.0,")
tpcost_cli_case("megatron: with Megatron's default dropout the masks are kept"
  ARGS step --config ${meg}/gpt_no_dropout.sh --gpu h100-sxm RC 0
  STDOUT "activations 3\\.8 GiB = 4\\.9 GiB of 80\\.0 GiB")
tpcost_cli_case("megatron: without dropout they are not"
  ARGS step --config ${meg}/gpt_no_dropout.sh --gpu h100-sxm --set DROP=0 RC 0
  STDOUT "activations 2\\.7 GiB = 3\\.7 GiB of 80\\.0 GiB")
tpcost_cli_case("megatron: a dropout probability out of range names its line"
  ARGS step --config ${meg}/gpt_no_dropout.sh --gpu h100-sxm --set DROP=1.5 RC 2
  STDERR "^tpcost: error: [^\n]*gpt_no_dropout\\.sh:7:5: --hidden-dropout: '1\\.5' is not a dropout probability; expected 0 <= P < 1\n$")
tpcost_cli_case("step: --hidden-dropout out of range"
  ARGS step --model llama-3-8b --gpu h100-sxm --gpus 8 -G 8 --hidden-dropout 2 RC 2
  STDERR "^tpcost: error: --hidden-dropout: 2 is not a dropout probability; expected 0 <= P < 1\n$")

# Attention windows through the Megatron readers (issue 29): --window-size L,R is a causal
# window of L+1 keys (Transformer Engine's window_size, inclusive), --window-attn-skip-freq N
# makes every N-th layer full (megatron/core/transformer/utils.py, core_v0.16.0).
set(oss ${meg}/gpt_oss_120b_window.sh)
tpcost_cli_case("megatron --window-size 127,0 --window-attn-skip-freq 2: a 128-key window, every 2nd layer full"
  ARGS convert -q ${oss} RC 0
  STDOUT "\"seq\": 4096,\n    \"sliding_window\": 128,\n    \"top_k\": 4,\n    \"vocab\": 201088,\n    \"window_full_every\": 2\n")
add_test(NAME "cli: megatron gpt-oss script with windows costs what the tpcost config costs"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--config|${oss}|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    "-DARGS_B=step|--config|${meg}/gpt_oss_120b_window.json|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
add_test(NAME "cli: megatron-bridge yaml with windows costs what the script costs"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--config|${fmt_dir}/gpt_oss_bridge_window.yaml|--gpus|64|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    "-DARGS_B=step|--config|${oss}|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
tpcost_cli_case("megatron gpt-oss script: the windows make the step shorter than full attention"
  ARGS step --config ${oss} --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "step time 5\\.47 s.*model FLOPs: 3 x forward with the full s\\*s attention scores, the 18 windowed layers of 36 on their window of 128 \\(Narayanan")
tpcost_cli_case("megatron --window-attn-skip-freq 1: every layer full attention, the full step"
  ARGS step --config ${oss} --set SKIP=1 --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "step time 5\\.682 s.*model FLOPs: 3 x forward with the full s\\*s attention scores \\(Narayanan")
tpcost_cli_case("megatron --window-size -1,0: an infinite left window is full causal attention"
  ARGS convert -q ${oss} --set WINDOW=-1,0 RC 0 STDOUT "\"seq\": 4096,\n    \"top_k\": 4,\n    \"vocab\": 201088\n")
tpcost_cli_case("megatron --window-attn-skip-freq as a list: [1,1,0]*12 is every 3rd layer full"
  ARGS convert -q ${oss} --set "SKIP=[1,1,0]*12" RC 0 STDOUT "\"window_full_every\": 3\n")
tpcost_cli_case("megatron --window-attn-skip-freq list of all 1s: every layer windowed"
  ARGS convert -q ${oss} --set "SKIP=[1]*36" RC 0 STDOUT "\"sliding_window\": 128,\n    \"top_k\": 4,\n    \"vocab\": 201088\n  \\}")
tpcost_cli_case("megatron --window-attn-skip-freq: an irregular list is refused, naming the layer"
  ARGS convert ${oss} --set "SKIP=[1,0]*17+[0,0]" RC 2
  STDERR "^tpcost: error: [^\n]*gpt_oss_120b_window\\.sh:29:5: --window-attn-skip-freq: '\\[1,0\\]\\*17\\+\\[0,0\\]': layer 35 is full; tpcost models every g-th layer full and the rest windowed \\(here g = 2\\), not another pattern\n$")
tpcost_cli_case("megatron --window-attn-skip-freq: a list of the wrong length is refused"
  ARGS convert ${oss} --set "SKIP=[1,0]*17" RC 2 STDERR "--window-attn-skip-freq: '\\[1,0\\]\\*17' gives 34 layers, the model has 36\n$")
tpcost_cli_case("megatron --window-size with a right window is refused: not causal"
  ARGS convert ${oss} --set WINDOW=128,4 RC 2
  STDERR "^tpcost: error: [^\n]*gpt_oss_120b_window\\.sh:28:5: --window-size: '128,4': a right window of 4 lets a query see later keys; tpcost costs causal attention, whose right window is 0 \\(e\\.g\\. 128,0\\)\n$")
tpcost_cli_case("megatron --window-size of one number is refused"
  ARGS convert ${oss} --set WINDOW=128 RC 2
  STDERR "--window-size: '128' is not a window L,R \\(two integers, -1 for an infinite side, e\\.g\\. 127,0\\)\n$")
tpcost_cli_case("megatron-bridge yaml: window_size [127, 1] is refused, naming the key"
  ARGS convert ${badf}/window_right.yaml RC 2
  STDERR "window_right\\.yaml:[0-9]+:[0-9]+: model\\.window_size: '127,1': a right window of 1 lets a query see later keys")

# Slurm's job size (issue 29): without torchrun's flags, sbatch --nodes / -N / #SBATCH --nodes
# times --gpus-per-node, GPUS_PER_NODE or --ntasks-per-node is the GPU count. SC21's SBATCH.sh
# submits SRUN.sh with --nodes=${NNODES}; SRUN.sh's #SBATCH --ntasks-per-node=8.
tpcost_cli_case("sc21 run_table_1.sh 76B: sbatch --nodes=128 x SRUN.sh's --ntasks-per-node=8 = 1024 GPUs"
  ARGS convert -q ${sc21} --set MODEL_SIZE=76B RC 0
  STDOUT "\"gpus_per_node\": 8\n.*\"gpus\": 1024,\n")
add_test(NAME "cli: sc21 run_table_1.sh 76B without --gpus costs what the row's flags on 1024 GPUs cost"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--from|${sc21}|--set|MODEL_SIZE=76B|--gpu|a100-sxm4-80gb|--interconnect|ib-hdr|--quiet"
    "-DARGS_B=step|--layers|60|--hidden|10240|--heads|80|--seq|2048|--vocab|51200|--arch|gpt|--tp|8|--pp|4|--vpp|3|--dp|32|--batch|2|--global-batch|1792|--recompute|full|--dtype|fp16|--stack|megatron-2021|--gpu|a100-sxm4-80gb|--interconnect|ib-hdr|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
tpcost_cli_case("sc21 run_table_1.sh 1T: 384 nodes, 3072 GPUs, from the script alone"
  ARGS step --from ${sc21} --set MODEL_SIZE=1T --gpu a100-sxm4-80gb --interconnect ib-hdr RC 0
  STDOUT "on 3072 x A100-SXM4-80GB.*t=8 p=64 d=6 ")
tpcost_cli_case("a batch script's #SBATCH --nodes=4 --gpus-per-node=h100:8: 32 GPUs"
  ARGS convert -q ${meg}/slurm_batch.sh RC 0 STDOUT "\"gpus_per_node\": 8\n.*\"gpus\": 32,\n")
tpcost_cli_case("torchrun --nnodes $SLURM_NNODES takes the #SBATCH --nodes"
  ARGS convert -q ${meg}/slurm_batch.sh --set LAUNCH=torchrun RC 0
  STDOUT "\"gpus_per_node\": 8\n.*\"gpus\": 32,\n")
tpcost_cli_case("sbatch -N 16 to SRUN.sh (--ntasks-per-node=8): 128 GPUs"
  ARGS convert -q ${meg}/sbatch_nodes.sh RC 0 STDOUT "\"gpus_per_node\": 8\n.*\"gpus\": 128,\n")
tpcost_cli_case("GPUS_PER_NODE wins over --ntasks-per-node: 16 nodes x 4"
  ARGS convert -q ${meg}/sbatch_nodes.sh --set GPUS_PER_NODE=4 RC 0
  STDOUT "\"gpus_per_node\": 4\n.*\"gpus\": 64,\n")
tpcost_cli_case("sbatch -N 16 wins over the submitted script's #SBATCH --nodes=4, without a warning"
  ARGS convert -q ${meg}/sbatch_nodes.sh --set SCRIPT=slurm_batch.sh RC 0 STDERR "^$"
  STDOUT "\"gpus_per_node\": 8\n.*\"gpus\": 128,\n")
tpcost_cli_case("sbatch -N with a range of nodes is refused"
  ARGS convert ${meg}/sbatch_nodes.sh --set NODES=2-4 RC 2
  STDERR "^tpcost: error: [^\n]*sbatch_nodes\\.sh:11:8: -N: '2-4' is a range of node counts; tpcost costs one job size: give --gpus N with the command\n$")

# HSDP (Megatron-FSDP or the distributed optimizer with --num-distributed-optimizer-instances N):
# sharded over DP/N, replicated N times: /parallel/dp_replicas.
tpcost_cli_case("megatron --num-distributed-optimizer-instances 2 with FSDP: HSDP, 2 replicas"
  ARGS convert -q ${meg}/megatron_fsdp_default.sh --set MCORE_RELEASE=core_v0.18.0
       "--set" "HSDP=--num-distributed-optimizer-instances 2" RC 0 STDERR "^$"
  STDOUT "\"zero\": 3\n.*\"dp_replicas\": 2,")
tpcost_cli_case("megatron HSDP: the step lists the replicas among the stack's settings"
  ARGS step --config ${meg}/megatron_fsdp_default.sh --set MCORE_RELEASE=core_v0.18.0
       "--set" "HSDP=--num-distributed-optimizer-instances 2" --gpu h100-sxm
       --interconnect ib-ndr RC 0
  STDOUT "dp_replicas +2 ")
tpcost_cli_case("step --dp-replicas: the DP sentence says where HSDP's reduction runs"
  ARGS step --model llama-3-8b --gpus 32 --global-batch 64 --seq 8k --zero 3 --stack fsdp2
       --dp-replicas 4 --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "HSDP: the reduce-scatters and gathers run in 4 groups of 8 DP ranks, and each gradient shard is all-reduced across the 4 replicas\\.")
tpcost_cli_case("step --dp-replicas with CP: HSDP's groups split the d*cp ranks that hold the same weights"
  ARGS step --model llama-3-8b --seq 131072 --gpus 64 --tp 1 --cp 4 --global-batch 32 --zero 3
       --dp-replicas 2 --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "HSDP: the reduce-scatters and gathers run in 2 groups of 32 DP ranks, and each gradient shard is all-reduced across the 2 replicas\\.")
tpcost_cli_case("step --dp-replicas 3 of d = 32 is refused"
  ARGS step --model llama-3-8b --gpus 32 --global-batch 64 --seq 8k --zero 3 --stack fsdp2
       --dp-replicas 3 --gpu h100-sxm RC 2
  STDERR "^tpcost: error: --dp-replicas: 3 HSDP replicas do not divide the d = 32 data-parallel ranks")

# torchtitan's GPT-OSS flavours (torchtitan/models/gpt_oss at v0.2.2) are the presets, windows
# and all: 128 keys on every other layer.
set(tt_oss ${fmt_dir}/gpt_oss_120b_torchtitan.toml)
tpcost_cli_case("torchtitan toml: gpt_oss 120b is the gpt-oss-120b preset"
  ARGS convert -q ${tt_oss} RC 0 STDERR "^$" STDOUT "\"name\": \"gpt-oss-120b\",")
add_test(NAME "cli: torchtitan gpt_oss 120b costs what the preset costs, windows included"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--from|${tt_oss}|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    "-DARGS_B=step|--model|gpt-oss-120b|--gpus|64|--ep|8|--etp|1|--zero|3|--stack|fsdp2|--micro-batch|1|--global-batch|64|--seq|4096|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
tpcost_cli_case("torchtitan gpt_oss 120b: the step counts the windowed layers"
  ARGS step --from ${tt_oss} --gpu h100-sxm --interconnect ib-ndr RC 0
  STDOUT "the 18 windowed layers of 36 on their window of 128")
# A training log prints the window as a tuple and the frequency list expanded (_print_args).
add_test(NAME "cli: megatron log with window_size (127, 0) and the list expanded costs what the script costs"
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tpcost_cli>
    "-DARGS_A=step|--from|${meg}/gpt_oss_120b_window.log|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    "-DARGS_B=step|--from|${oss}|--gpu|h100-sxm|--interconnect|ib-ndr|--quiet"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/same_report.cmake)
# torchao float8 (either converter name) is --precision fp8-current over bf16; row-wise scaling
# has no tpcost recipe of its own and is costed as tensorwise, with a warning at its line.
tpcost_cli_case("torchtitan toml: the float8 converter is fp8-current, rowwise costed as tensorwise"
  ARGS convert ${fmt_dir}/llama3_8b_torchtitan_float8_rowwise.toml RC 0
  STDERR "llama3_8b_torchtitan_float8_rowwise\\.toml:20:15: .*float8 recipe 'rowwise' is costed as tensorwise scaling \\(fp8-current\\)"
  STDOUT "\"dtype\": \"bf16\".*\"precision\": \"fp8-current\"")

# CUDA graphs (Megatron-Core core_v0.16.0 --cuda-graph-impl, --cuda-graph-scope a list; a Bridge
# YAML's sequence, under core_v0.18.0's cuda_graph_modules), read into the step (not costed).
tpcost_cli_case("megatron --cuda-graph-impl and the --cuda-graph-scope list are read"
  ARGS convert -q ${fmt_dir}/moe_cuda_graphs.sh RC 0
  STDOUT "\"cuda_graph_impl\": \"transformer_engine\",\n    \"cuda_graph_scope\": \"attn,moe_router,moe_preprocess\",")
tpcost_cli_case("megatron --cuda-graph-scope with a scope Megatron does not know fails"
  ARGS convert -q ${fmt_dir}/moe_cuda_graphs.sh --set SCOPE=router RC 2
  STDERR "moe_cuda_graphs\\.sh:[0-9]+:[0-9]+: --cuda-graph-scope: 'router' is not a CUDA graph scope")
tpcost_cli_case("megatron --cuda-graph-scope moe_preprocess alone fails as Megatron asserts"
  ARGS convert -q ${fmt_dir}/moe_cuda_graphs.sh --set SCOPE=moe_preprocess RC 2
  STDERR "--cuda-graph-scope: moe_preprocess is only supported with moe_router\n$")
tpcost_cli_case("megatron CUDA graphs reach the step"
  ARGS step --from ${fmt_dir}/moe_cuda_graphs.sh --gpu h100-sxm RC 0
  STDOUT "cuda_graphs +transformer_engine attn,moe_router,moe_preprocess +flag: --cuda-graph-impl")
tpcost_cli_case("megatron-bridge yaml: cuda_graph_modules as a list"
  ARGS convert -q ${fmt_dir}/moe_bridge_cuda_graphs.yaml RC 0
  STDOUT "\"cuda_graph_impl\": \"transformer_engine\",\n    \"cuda_graph_scope\": \"attn,moe_router\",")
tpcost_cli_case("megatron log: cuda_graph_scope printed as CudaGraphScope members is read"
  ARGS convert -q ${meg}/gpt_oss_120b_window_cuda_graphs.log RC 0
  STDOUT "\"cuda_graph_impl\": \"transformer_engine\",\n    \"cuda_graph_scope\": \"attn,moe_router,moe_preprocess\",")
tpcost_cli_case("megatron --enable-cuda-graph (deprecated: local) with --cuda-graph-scope full_iteration"
  ARGS convert -q ${fmt_dir}/moe_cuda_graphs.sh --set GRAPHS=--enable-cuda-graph --set SCOPE=full_iteration RC 0
  STDOUT "\"cuda_graph_impl\": \"local\",\n    \"cuda_graph_scope\": \"full_iteration\",")
tpcost_cli_case("megatron --cuda-graph-impl none: the scope has no effect and is listed as ignored"
  ARGS convert ${fmt_dir}/moe_cuda_graphs.sh --set "GRAPHS=--cuda-graph-impl none" RC 0
  STDERR "ignored \\(no effect on what tpcost models\\): --cuda-graph-scope, --cuda-graph-warmup-steps")
