# End-to-end cases of `tpcost plan`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

tpcost_cli_case("plan: the assumed NIC is the first line" ARGS plan --model llama-3-8b --gpu gb300 --gpus 144 -G 288
  RC 0 STDOUT "^assumed: --interconnect IB-XDR [^\n]*GB300 NVL72[^\n]*\nPlan: llama-3-8b on 144 x GB300-NVL72, IB-XDR between nodes")
tpcost_cli_case("plan prices DeepSeek-V3 (MLA, MTP) in the report's family, the MTP module on the last stage"
  ARGS plan --model deepseek-v3 --gpu h800 --interconnect ib-ndr --gpus 2048 --global-batch 15360 --fixed-tp 1 --fixed-pp 16
  --moe-token-dispatcher flex --overlap-moe-expert-parallel-comm --top 1 RC 0 STDOUT
  "winner: --compare t=1,p=16,ep=[0-9]+,d=128,b=1,v=1,sp=off,recompute=full,zero=1,first=4,last=1")
tpcost_cli_case("plan: the MoE overlap flag on a dense model" ARGS plan --model llama-3-8b --gpu H100-SXM --gpus 8 --global-batch 8 --overlap-moe-expert-parallel-comm RC 2 STDERR
  "^tpcost: error: --overlap-moe-expert-parallel-comm: applies to mixture-of-experts models; this one is dense\n$")
tpcost_cli_case("plan searches ep for an MoE model and shows it in the layout" ARGS plan --model mixtral-8x7b --gpu H100-SXM --gpus 16 --global-batch 32 --seq 4096 --top 1 RC 0 STDOUT
  "search: [0-9]+ \\(t, p, cp, ep, etp\\).*  #   t   p  cp  ep etp    d.*winner: --compare t=[0-9]+,p=[0-9]+(,ep=[0-9]+)?(,etp=[0-9]+)?,d=")
tpcost_cli_case("plan --ep that does not divide the experts" ARGS plan --model mixtral-8x7b --gpu H100-SXM --gpus 16 --global-batch 32 --ep 3 RC 2 STDERR
  "--ep: EP = 3 does not divide the 8 experts")
tpcost_cli_case("plan --compare names an ep change" ARGS plan --model mixtral-8x7b --gpu H100-SXM --gpus 16 --global-batch 32 --seq 4096 --compare t=2,ep=8,d=8,sp=on t=2,ep=2,d=8,sp=on RC 0 STDOUT
  "B - A: ep 8 -> 2.*exposed EP all-to-all")
tpcost_cli_case("plan: --dtype fp8 is --precision fp8, and the header says the recipe" ARGS ${plan_8b_h100} --dtype fp8 --top 1 RC 0 STDOUT
  "^Plan: [^\n]*\nprecision: linear layers fp8-delayed \\(TE DelayedScaling\\) at the FP8 peak 1\\.979 PFLOP/s, attention core BF16, logits BF16\n")
tpcost_cli_case("plan: a BF16 search says no precision line" ARGS ${plan_8b_h100} --top 1 RC 0 STDOUT
  "^Plan: [^\n]*\nGPU: ")
tpcost_cli_case("plan: nvfp4 on Hopper is refused naming the GPU and the recipe" ARGS ${plan_8b_h100} --precision nvfp4 RC 2
  STDERR "^tpcost: error: --precision: nvfp4 needs NVFP4 tensor cores, NVIDIA Blackwell or later; H100-SXM has none \\(give --precision bf16 or fp8\\)\n$")
tpcost_cli_case("plan: mxfp8 on Hopper is refused naming the GPU and the recipe" ARGS ${plan_8b_h100} --precision mxfp8 RC 2
  STDERR "^tpcost: error: --precision: mxfp8 needs block-scaled \\(MX\\) tensor cores, Blackwell or later; H100-SXM has none")
tpcost_cli_case("plan: --precision auto searches the recipes Hopper runs and says the fastest" ARGS ${plan_8b_h100} --precision auto --top 1 RC 0 STDOUT
  "\nprecision auto: bf16 [0-9.]+ m?s, fp8-delayed [0-9.]+ m?s, fp8-current [0-9.]+ m?s \\(costs as fp8-delayed\\), fp8-blockwise [0-9.]+ m?s\; fastest fp8-delayed, tied with fp8-current, fp8-blockwise \\(the first searched is kept\\)\n")
tpcost_cli_case("plan: --precision auto with --compare" ARGS ${plan_8b_h100} --precision auto --compare t=8 t=4 RC 2
  STDERR "^tpcost: error: --precision: auto is a search over the recipes\; --compare costs two layouts at one")
tpcost_cli_case("plan: --moe-token-dispatcher auto says each dispatcher's best and the fastest" ARGS ${plan_moe_h100} --moe-token-dispatcher auto --top 1 RC 0 STDOUT
  "\nmoe-token-dispatcher auto: all-to-all [0-9.]+ m?s, deep-ep [0-9.]+ m?s, all-gather [0-9.]+ m?s\; fastest [a-z-]+\n.*  winner: --compare t=[^\n]*,dispatcher=[a-z-]+\n")
tpcost_cli_case("plan: --cp-comm-type auto says each exchange's best and the fastest" ARGS plan --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 32 --seq 131072 --cp-comm-type auto --top 1 RC 0 STDOUT
  "\ncp-comm-type auto: p2p [0-9.]+ m?s, all_gather [0-9.]+ m?s, a2a [0-9.]+ m?s, a2a\\+p2p [0-9.]+ m?s\; fastest [a-z2+_]+\n")
tpcost_cli_case("plan: --cp-comm-type auto under --stack fsdp2 searches what torchtitan rotates by" ARGS plan --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 32 --seq 131072 --stack fsdp2 --cp-comm-type auto --top 1 RC 0 STDOUT
  "\ncp-comm-type auto: p2p [0-9.]+ m?s, all_gather [0-9.]+ m?s\; fastest ")
tpcost_cli_case("plan: --moe-token-dispatcher auto on a dense model" ARGS ${plan_8b_h100} --moe-token-dispatcher auto RC 2
  STDERR "^tpcost: error: --moe-token-dispatcher auto: applies to mixture-of-experts models\; this one is dense\n$")
tpcost_cli_case("plan: --cp-comm-type auto with no CP to search" ARGS ${plan_8b_h100} --cp-comm-type auto RC 2
  STDERR "^tpcost: error: --cp-comm-type: auto searches the CP exchanges, but no cp > 1 is searched")
tpcost_cli_case("plan: --moe-token-dispatcher auto with --compare" ARGS ${plan_moe_h100} --moe-token-dispatcher auto --compare t=1 t=2 RC 2
  STDERR "^tpcost: error: --moe-token-dispatcher: auto is a search over the dispatchers\; --compare costs two layouts at one: give the dispatcher, or dispatcher=VALUE in a layout\n$")
tpcost_cli_case("plan: --compare names what separates two layouts' dispatchers" ARGS ${plan_moe_h100} --compare t=1,ep=8,dispatcher=alltoall t=1,ep=8,dispatcher=flex RC 0 STDOUT
  "where the time goes \\(B - A: dispatcher all-to-all -> deep-ep\\)")
tpcost_cli_case("plan: a layout's dispatcher that is not one" ARGS ${plan_moe_h100} --compare t=1,ep=8,dispatcher=nccl t=1 RC 2
  STDERR "dispatcher = 'nccl'\; expected all-to-all, deep-ep or all-gather")
# --recompute-modules: a list as step reads it, or auto.
tpcost_cli_case("plan: --recompute-modules auto says the fastest module sets" ARGS ${plan_moe_h100} --recompute-modules auto --top 1 RC 0 STDOUT
  "\nrecompute-modules auto: [^\n]* \\(the fastest 6 of 12 searched\\)\; fastest [a-z_,-]+")
tpcost_cli_case("plan: --recompute-modules auto with --compare" ARGS ${plan_moe_h100} --recompute-modules auto --compare t=1 t=2 RC 2
  STDERR "^tpcost: error: --recompute-modules: auto is a search over the module sets\; --compare costs two layouts at one: give the module set, or modules=VALUE in a layout\n$")
tpcost_cli_case("plan: --recompute-modules under torchtitan's stack" ARGS ${plan_8b_h100} --stack fsdp2 --recompute-modules auto RC 2
  STDERR "^tpcost: error: --recompute-modules: are Megatron-Core's\; this stack's selective recomputation is torchtitan's per-op policy\n$")
# --recompute-method and --recompute-num-layers: as step reads them, or auto (the fewest block
# layers each full layout fits with).
set(plan_405b_zero1 plan --model llama-3-405b --gpu h100-sxm --interconnect ib-ndr --gpus 512 --global-batch 512 --zero 1)
tpcost_cli_case("plan: --recompute-num-layers auto runs full layouts at the fewest block layers that fit" ARGS ${plan_405b_zero1} --recompute-num-layers auto --top 1 RC 0 STDOUT
  "\n  1   8  32   1    2   1   256   1  on   block:1      1 [^\n]*\n  winner: --compare t=8,p=32,d=2,b=1,v=1,sp=on,recompute=full,zero=1,first=3,last=3,block=1\n")
tpcost_cli_case("plan: a fixed --recompute-method block --recompute-num-layers holds for the full layouts" ARGS ${plan_405b_zero1} --recompute-method block --recompute-num-layers 2 --top 1 --format csv RC 0 STDOUT
  ",recompute_method,recompute_num_layers\n1,llama-3.1-405b,8,32,2,1,1,512,on,full,[^\n]*,\"t=8,p=32,d=2,b=1,v=1,sp=on,recompute=full,zero=1,first=3,last=3,block=2\",,block,2\n$")
tpcost_cli_case("plan: a config's recompute_num_layers \"auto\" is the flag's auto" ARGS plan -c ${bad}/../plan_recompute_auto.json --gpus 512 --top 1 -q RC 0 STDOUT
  "\n  1   8  32   1    2   1   256   1  on   block:1      1 ")
tpcost_cli_case("step: a config's recompute_num_layers \"auto\" is plan's search" ARGS step -c ${bad}/../plan_recompute_auto.json --gpus 512 --tp 8 --pp 16 --recompute full RC 2
  STDERR "^tpcost: error: [^\n]*plan_recompute_auto\.json: /options/recompute_num_layers: auto is a search, which plan runs\; step costs one count of layers\n$")
tpcost_cli_case("plan: --recompute-num-layers auto with uniform" ARGS ${plan_405b_zero1} --recompute-num-layers auto --recompute-method uniform RC 2
  STDERR "^tpcost: error: --recompute-num-layers: auto searches the block method's layers per model chunk\; --recompute-method uniform recomputes every layer\n$")
tpcost_cli_case("plan: --recompute-num-layers 0" ARGS ${plan_405b_zero1} --recompute-num-layers 0 RC 2
  STDERR "^tpcost: error: --recompute-num-layers: 0 is out of range\; expected 1..126 \\(layers per model chunk, at most each layout's L/\\(p\\*v\\)\\), or auto\n$")
tpcost_cli_case("plan: --recompute-num-layers auto with --compare" ARGS ${plan_405b_zero1} --recompute-num-layers auto --compare t=8 t=4 RC 2
  STDERR "^tpcost: error: --recompute-num-layers: auto is a search over the layer counts\; --compare costs two layouts at one: give the layer count, or block=VALUE in a layout\n$")
tpcost_cli_case("plan: --recompute-num-layers auto under torchtitan's stack" ARGS ${plan_405b_zero1} --recompute-num-layers auto --stack fsdp2 RC 2
  STDERR "^tpcost: error: --recompute-num-layers: auto searches Megatron-Core's block method\; torchtitan's full activation checkpointing wraps every block alone\n$")
tpcost_cli_case("plan: block= in a layout without full recomputation" ARGS ${plan_405b_zero1} --compare t=8,p=32,recompute=none,block=2 t=8,p=32 RC 2
  STDERR "^tpcost: error: --compare: 't=8,p=32,recompute=none,block=2': block = N sets full recomputation's layers\; it needs recompute=full\n$")
tpcost_cli_case("plan --compare costs block= as step does and names the change" ARGS ${plan_405b_zero1} --compare t=8,p=32,sp=on,zero=1,first=3,last=3,recompute=full,block=1 t=8,p=32,sp=on,zero=1,first=3,last=3,recompute=full RC 0 STDOUT
  "\nA: t=8,p=32,d=2,b=1,v=1,sp=on,recompute=full,zero=1,first=3,last=3,block=1  [^\n]*\n   step 45 s,.*\nB: t=8,p=32,d=2,b=1,v=1,sp=on,recompute=full,zero=1,first=3,last=3  [^\n]*\n.*B - A: recompute block:1 -> full")
tpcost_cli_case("plan: --recompute-modules auto with nothing that fits counts every layout" ARGS plan --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 7 --global-batch 64 --recompute-modules auto RC 2
  STDERR "^tpcost: error: --gpus: no layout of 7 GPUs [^\n]*\; of their 84 layouts, rejected 9 [^\n]*, 75 \\(does not fit")
tpcost_cli_case("plan: --recompute-modules mla_up_proj without MLA" ARGS ${plan_8b_h100} --recompute-modules core_attn,mla_up_proj RC 2
  STDERR "^tpcost: error: --recompute-modules: mla_up_proj needs multi-latent attention")
tpcost_cli_case("plan: a layout's modules that are not ones" ARGS ${plan_8b_h100} --compare t=8,recompute=selective,modules=attn t=4 RC 2
  STDERR "modules = 'attn'\; expected recompute modules joined by \\+, e.g. core_attn\\+mlp")
tpcost_cli_case("plan: --compare names what separates two layouts' recompute modules" ARGS ${plan_8b_h100} --compare t=8,recompute=selective,modules=mlp t=8,recompute=selective RC 0 STDOUT
  "where the time goes \\(B - A: modules mlp -> core_attn\\)")
tpcost_cli_case("plan: a precision that is not one" ARGS ${plan_8b_h100} --precision fp6 RC 2
  STDERR "^tpcost: error: --precision: 'fp6' is not a precision")
tpcost_cli_case("plan: --emit torchtitan refuses fp8-delayed, which torchao float8 has not" ARGS ${plan_8b_h100} --precision fp8 --stack fsdp2 --emit torchtitan RC 2
  STDERR "^tpcost: error: --emit: torchtitan: --precision fp8-delayed: torchtitan v0\\.2\\.2's converters have no delayed scaling \\(float8: tensorwise, rowwise\; mx: mxfp8\\)\; plan with --precision fp8-current or mxfp8\n$")
tpcost_cli_case("plan: --emit bridge refuses a recipe whose fp8_param_gather plan did not price" ARGS ${plan_8b_h100} --precision fp8 --emit bridge RC 2
  STDERR "^tpcost: error: --emit: bridge: the recipe bf16_with_fp8_delayed_scaling_mixed sets fp8_param_gather True .*\; plan with --fp8-param-gather\n$")
tpcost_cli_case("plan: --emit megatron writes --fp8-format and --fp8-recipe" ARGS ${plan_8b_h100} --precision fp8-blockwise --emit megatron RC 0
  STDOUT "    --bf16 \\\\\n    --fp8-format hybrid \\\\\n    --fp8-recipe blockwise\n$")
tpcost_cli_case("plan: --tp that does not divide N" ARGS ${plan_8b_h100} --tp 3 RC 2
  STDERR "^tpcost: error: --tp: t = 3 does not divide N = 64 GPUs\n$")
tpcost_cli_case("plan: --fixed-tp is --tp" ARGS ${plan_8b_h100} --fixed-tp 3 RC 2
  STDERR "^tpcost: error: --tp: t = 3 does not divide N = 64 GPUs\n$")
tpcost_cli_case("plan: --pp beyond the layers" ARGS ${plan_8b_h100} --pp 64 RC 2
  STDERR "^tpcost: error: --pp: p = 64 is more stages than the 32 layers\n$")
tpcost_cli_case("plan: --micro-batch that does not divide G" ARGS ${plan_8b_h100} --micro-batch 3 RC 2
  STDERR "^tpcost: error: --micro-batch: b = 3 does not divide G = 64 sequences")
tpcost_cli_case("plan: --vpp without pipeline stages" ARGS ${plan_8b_h100} --pp 1 --vpp 2 RC 2
  STDERR "^tpcost: error: --vpp: v = 2 interleaves pipeline stages; p = 1 has none\n$")
tpcost_cli_case("plan: --zero 4" ARGS ${plan_8b_h100} --zero 4 RC 2 STDERR "^tpcost: error: --zero: ")
tpcost_cli_case("plan: -t, -p and -b fix t, p and b" ARGS ${plan_8b_h100} -t 2 -p 2 -b 1 --top 2 -q RC 0 STDOUT
  "\n  1 +2 +2 +1 +16 +1 [^\n]*\n  2 +2 +2 +1 +16 +1 ")
tpcost_cli_case("plan: a ZeRO stage no layout of d = 1 has" ARGS ${plan_8b_h100} --tp 8 --pp 8 --zero 1 RC 2
  STDERR "^tpcost: error: --gpus: no layout of 64 GPUs")
tpcost_cli_case("plan: the seed's 175B case keeps TP <= 8" ARGS ${plan_175b} RC 0 STDOUT
  "best 5 layouts .*\n  1 +[1248] +[0-9]+ .*winner: --compare t=[1248],")
tpcost_cli_case("plan prints the counts, the runner-up difference and the per-pair table" ARGS ${plan_175b} RC 0 STDOUT
  "search: [0-9]+ \\(t, p, cp\\) with t\\*p\\*cp dividing N = 512 \\(--max-cp [0-9]+[^)]*\\), [0-9]+ searched.*rejected \\(t, p, cp\\):\n +[0-9]+  t does not divide the attention heads.*rejected layouts:.*does not fit in GPU memory less the reserve\n\nbest 5 layouts.*winner vs runner-up: .*<- largest.*best layout per \\(t, p, cp\\).*\n    16 .*  \\(TP crosses nodes\\)\n")
tpcost_cli_case("plan --compare: TP 8 beats TP 16 at the same N and d" ARGS ${plan_175b}
  --compare "t=16,p=4,recompute=full" "t=8,p=8,recompute=full" RC 0 STDOUT
  "A: t=16,p=4,d=8,.*16 GPUs on 2 nodes \\(crosses IB-HDR\\).*B: t=8,p=8,d=8.*exposed TP collectives .*<- largest.*B is faster by 1\\.[0-9]+x")
tpcost_cli_case("plan --compare says when a layout does not fit" ARGS ${plan_175b}
  --compare "t=8,p=1,d=64,recompute=full,zero=1" "t=8,p=8" RC 0 STDOUT "memory [0-9.]+ GiB of 80\\.0 GiB: DOES NOT FIT")
tpcost_cli_case("plan --fixed-tp 16 crosses nodes because it is asked to" ARGS ${plan_175b} --fixed-tp 16 --top 1 RC 0 STDOUT
  "fit; [^\n]*\n.*\n  1 +16 .*\\(TP crosses nodes\\)")
tpcost_cli_case("plan --format json" ARGS ${plan_175b} --top 2 --format json RC 0 STDOUT
  "\"schema\": \"tpcost.plan/1\"")
tpcost_cli_case("plan names the attention kernel its memory and time assume" ARGS ${plan_175b} --top 1 --attention unfused --stack megatron-core RC 0 STDOUT
  "^Plan: gpt-3-175b on 512 x A100-SXM4-80GB, IB-HDR between nodes; G = 1536 sequences of 2048 tokens; unfused attention; stack megatron-core\n")
tpcost_cli_case("plan: N prime finds an uneven pipeline (32 layers on 7 stages)" ARGS plan --gpu a100-sxm4-80gb --model llama-3-8b --gpus 7 --global-batch 64 RC 0
  STDOUT "winner: --compare t=1,p=7,d=1,[^\n]*first=5,last=2")
# Without CP (--max-cp 1): with it, cp absorbs GPUs that d = N/(t*p*cp) cannot.
tpcost_cli_case("plan: G too small for N" ARGS plan --gpu a100-sxm4-80gb --model megatron-1.7b --gpus 1024 --global-batch 4 --max-cp 1 RC 2
  STDERR "--gpus: no layout of 1024 GPUs .*20 \\(d = N/\\(t\\*p\\*cp\\) does not divide the global batch\\).*--global-batch 16 ")
tpcost_cli_case("plan: the model does not fit N GPUs" ARGS plan --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 8 --global-batch 1536 RC 2
  STDERR "--gpus: no layout of 8 GPUs .*\\(does not fit in GPU memory less the reserve\\); what would work: --gpus [0-9]+")
tpcost_cli_case("plan: --gpus is required" ARGS plan --gpu a100-sxm4-80gb --model gpt-3-175b --global-batch 1536 RC 2
  STDERR "--gpus: is required")
tpcost_cli_case("plan: --global-batch is required" ARGS plan --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 512 RC 2
  STDERR "--global-batch: is required")
tpcost_cli_case("plan: --top 0" ARGS ${plan_175b} --top 0 RC 2 STDERR "--top: 0 is out of range")
tpcost_cli_case("plan: --cp that does not divide N" ARGS ${plan_175b} --cp 3 RC 2
  STDERR "^tpcost: error: --cp: 3 does not divide N = 512 GPUs\n$")
tpcost_cli_case("plan: --cp whose 2*cp chunks do not divide s" ARGS ${plan_175b} --seq 2000 --cp 32 RC 2
  STDERR "^tpcost: error: --cp: 32 does not fit seq = 2000: causal load balancing cuts the sequence into 2\\*cp = 64 equal chunks\n$")
tpcost_cli_case("plan: --max-cp 0" ARGS ${plan_175b} --max-cp 0 RC 2
  STDERR "^tpcost: error: --max-cp: 0 is out of range; expected a whole number in 1\\.\\.[0-9]+\n$")
tpcost_cli_case("plan: a bad --cp-comm-type" ARGS ${plan_175b} --cp-comm-type ring RC 2
  STDERR "^tpcost: error: --cp-comm-type: 'ring' is not a CP communication type; expected p2p, all_gather, a2a or a2a\\+p2p\n$")
tpcost_cli_case("plan --compare reads cp= and shows the CP terms" ARGS plan --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 64 --seq 131072
  --compare "t=2,p=1,cp=4,recompute=full" "t=2,p=1,recompute=full,sp" RC 0 STDOUT
  "A: t=2,p=1,cp=4,d=8,.*   CP: 4 ranks \\(p2p\\), [^\n]* exposed, [^\n]* hidden behind attention.*  of compute: attention, s keys .*  exposed CP exchange ")
tpcost_cli_case("plan at 128k: Llama 3 8B on 64 H100 proposes CP" ARGS ${plan_8b_128k} --top 3 -q
  RC 0 STDOUT "\n +1 +[0-9]+ +[0-9]+ +(2|4|8|16) +[0-9]+ [^\n]*\n +2 +[0-9]+ +[0-9]+ +(2|4|8|16) +")
tpcost_cli_case("plan at 128k: Llama 3 70B on 256 H100 proposes CP" ARGS ${plan_70b_128k} --top 3 -q
  RC 0 STDOUT "\n +1 +[0-9]+ +[0-9]+ +(2|4|8|16) +[0-9]+ [^\n]*\n +2 +[0-9]+ +[0-9]+ +(2|4|8|16) +")
tpcost_cli_case("plan --compare at 128k: the 8B's CP layout beats its best cp = 1 one, and why"
  ARGS ${plan_8b_128k} --compare "t=8,p=2,sp,zero=1" "t=2,p=1,cp=8,zero=1" RC 0 STDOUT
  "A: t=8,p=2,d=4,[^\n]*\n   step [^\n]*: fits[^\n]*\nB: t=2,p=1,cp=8,d=4,[^\n]*\n   step [^\n]*: fits[^\n]*\n   CP: 8 ranks \\(p2p\\), 0 ns of exchange per step exposed.*  exposed TP collectives .*  pipeline bubble .*B is faster by 1\\.1[0-4]x")
tpcost_cli_case("plan --compare at 128k: the 70B's CP layout needs no recomputation"
  ARGS ${plan_70b_128k} --compare "t=4,p=1,sp,recompute=full,zero=3" "t=8,p=2,cp=8,v=8,sp,zero=1"
  RC 0 STDOUT "B: t=8,p=2,cp=8,d=2,[^\n]*recompute=none[^\n]*\n   step [^\n]*: fits[^\n]*\n.*B is faster by 1\\.[1-9][0-9]*x[^\n]* the largest part of the difference is compute \\(recompute included\\)")
tpcost_cli_case("plan: a bad --compare key" ARGS ${plan_175b} --compare "t=8,x=1" "t=8" RC 2
  STDERR "--compare: 't=8,x=1': 'x' is not a layout key")
tpcost_cli_case("plan: an invalid --compare layout" ARGS ${plan_175b} --compare "t=32,p=16,v=4" "t=8" RC 2
  STDERR "--compare: 't=32,p=16,v=4': v = 4 does not divide the layers of every stage \\(6 first, 6 middle, 6 last\\)")
tpcost_cli_case("plan: --compare needs two layouts" ARGS ${plan_175b} --compare "t=8" RC 2
  STDERR "--compare")

# plan --chart: one stacked bar per proposed layout (issue 7).
tpcost_cli_case("plan --chart draws one bar per proposed layout" ARGS plan --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 512 --global-batch 1536 --top 2 --chart --ascii
  --stack megatron-core RC 0 STDOUT "Step time of each proposed layout, best first.*# compute   = exposed TP( \\+ CP)? +\\+ pipeline: bubble \\+ p2p(   |\n)- exposed DP \\+ optimizer\n +layout +step\n *#1 t[0-9]+ p[0-9]+ (cp[0-9]+ )?d[0-9]+ \\|#+=+\\+*-* +[0-9.]+ s\n *#2 t[0-9]+ p[0-9]+ (cp[0-9]+ )?d[0-9]+ \\|")
tpcost_cli_case("plan --chart needs the table format" ARGS plan --gpu a100-sxm4-80gb --model gpt-3-175b --gpus 512 --global-batch 1536 --chart --format json RC 2
  STDERR "--chart: charts are drawn below a table")
tpcost_cli_case("did you mean: --flag=value" ARGS plan --global-bach=512 RC 2
  STDERR "unknown flag '--global-bach'; did you mean '--global-batch'")
tpcost_cli_case("short flags: -s and -m in plan" ARGS plan -m llama-3-8b -g h100-sxm -i ib-ndr -n 16 -G 64 -s 4k -q RC 0)
tpcost_cli_case("no silent hardware: plan follows the same rule" ARGS plan -m llama-3-8b -n 8 -G 8 RC 2
  STDERR "--gpu: no GPU given")
tpcost_cli_case("CSV: plan, one row per layout, best first" ARGS plan -m llama-3-8b -g h100-sxm -i ib-ndr -n 16 -G 64 -s 4096 --top 3 --format csv RC 0
  STDOUT "^rank,model,tp,.*\n1,llama-3-8b,.*\n2,llama-3-8b,.*\n3,llama-3-8b,[^\n]*\n$")
tpcost_cli_case("CSV: plan closes each row with the layout's other dimensions and its --compare string"
  ARGS plan -m mixtral-8x7b -g h100-sxm -i ib-ndr -n 64 -G 256 --max-tp 2 --top 1 --format csv --stack megatron-core RC 0
  STDOUT ",mfu_precision_peak_rate,ep,etp,micro_batches,first_stage_layers,last_stage_layers,embedding_in_split,loss_in_split,layout,dispatcher,recompute_method,recompute_num_layers\n1,mixtral-8x7b,2,2,4,[^\n]*,8,1,64,0,0,off,off,\"t=2,p=2,cp=4,ep=8,d=4,b=1,v=[0-9]+,sp=on,recompute=none,zero=1\",all-to-all,,\n$")
# plan --emit: what a format cannot express is one line naming it, exit 2, nothing written.
tpcost_cli_case("plan --emit torchtitan: a layout priced on another stack than fsdp2"
  ARGS plan -m llama-3-8b -g h100-sxm -n 8 -G 8 --emit torchtitan --stack megatron-core RC 2
  STDERR "^tpcost: error: --emit: torchtitan: plan priced the layout on the megatron-core stack, and a torchtitan file is costed on fsdp2\; plan with --stack fsdp2\n$")
tpcost_cli_case("plan --emit torchtitan --torch-compile writes the [compile] table the reader maps back"
  ARGS plan -m llama-3-8b -g h100-sxm -n 8 -G 8 --stack fsdp2 --torch-compile --emit torchtitan
  RC 0 STDOUT "\n\\[compile\\]\nenable = true\ncomponents = \\[\"model\", \"loss\"\\]\n$")
tpcost_cli_case("plan --emit torchtitan --async-tp writes enable_async_tensor_parallel at t > 1"
  ARGS plan -m llama-3-8b -g h100-sxm -n 16 -G 64 --stack fsdp2 --torch-compile --async-tp --fixed-tp 2 --emit torchtitan
  RC 0 STDOUT "\ntensor_parallel_degree = 2\npipeline_parallel_degree = 1\ncontext_parallel_degree = 1\nenable_async_tensor_parallel = true\n")
tpcost_cli_case("plan --emit torchtitan: interleaved stages"
  ARGS plan -m llama-3-8b -g h100-sxm -n 16 -G 64 --stack fsdp2 --emit torchtitan
  --compare t=2,p=4,d=2,v=2,sp=on t=1 RC 2
  STDERR "--emit: torchtitan: v = 2: interleaved stages .* costed by the reader as 1F1B\n$")
tpcost_cli_case("plan --emit torchtitan: ZeRO-1"
  ARGS plan -m llama-3-8b -g h100-sxm -n 16 -G 64 --stack fsdp2 --emit torchtitan
  --compare t=2,d=8,sp=on,zero=1 t=1 RC 2 STDERR "--emit: torchtitan: ZeRO-1: FSDP2 shards")
tpcost_cli_case("plan --emit torchtitan: a model torchtitan has no flavour for"
  ARGS plan -m gpt-3-175b -g h100-sxm -n 512 -G 1536 --stack fsdp2 --emit torchtitan RC 2
  STDERR "--emit: torchtitan: the model is not one torchtitan v0\\.2\\.2 names as a flavour")
tpcost_cli_case("plan --emit bridge: --tp-overlap has no key"
  ARGS plan -m llama-3-8b -g h100-sxm -n 8 -G 8 --tp-overlap 0.5 --emit bridge RC 2
  STDERR "--emit: bridge: --tp-overlap is tpcost's own knob")
tpcost_cli_case("plan --emit torchtitan: a winner it cannot write names the best of the top it can"
  ARGS plan -m llama-3-70b -s 32768 -g h100-sxm -i ib-ndr -n 64 -G 64 --stack fsdp2 --fixed-pp 2
  --top 10 --emit torchtitan RC 2
  STDERR "--emit: torchtitan: v = [0-9]+: .*\\; the best of the top 10 that torchtitan can express is #[0-9]+, [0-9.]+ s against the winner's [0-9.]+ s: --compare \"t=[^\"]*,v=1,sp=on,[^\"]*\"\n$")
tpcost_cli_case("plan --emit: an unknown format before the search"
  ARGS plan -m llama-3-8b -g h100-sxm -n 8 -G 8 --emit deepspeed RC 2
  STDERR "--emit: 'deepspeed': expected megatron, bridge or torchtitan\n$")
tpcost_cli_case("plan --compare -q prints the difference table alone, headed by the layouts"
  ARGS plan --model llama-3-8b --gpu h100 --gpus 64 -G 256 --compare t=1,p=1 t=2,p=1 -q
  RC 0 STDOUT "^ +t=1,p=1 +t=2,p=1 +difference\n  compute \\(recompute included\\) [^\n]*\n(  [a-zA-Z][^\n]*\n)*  MFU +[0-9.]+% +[0-9.]+% +-[0-9.]+pt\n$"
  STDERR "^tpcost: note: assumed: --interconnect IB-NDR [^\n]*\ntpcost: warning: t=1,p=1 DOES NOT FIT: [^\n]*\ntpcost: warning: t=2,p=1 DOES NOT FIT: the fullest stage needs [0-9.]+ GiB per GPU of the 80\\.0 GiB there is\n$")
tpcost_cli_case("plan -q prints the ranked layouts alone"
  ARGS plan --model llama-3-8b --gpu h100 --interconnect ib-ndr --gpus 8 -G 64 --seq 4k -q
  RC 0 STDOUT "^  #   t   p  cp    d [^\n]*\n(  [0-9]+ [^\n]*\n)+$")
tpcost_cli_case("plan: --max-global-batch finds a layout for 5,128 GPUs and G = 2,520" ARGS plan --gpu h100-sxm --interconnect ib-ndr --model gpt-3-175b --gpus 5128 --max-global-batch 2520 --top 2 RC 0
  STDOUT "G <= 2520 sequences.*G  samples/s\n  1 [^\n]* 641 [^\n]* 1923 +[0-9.]+\n")
tpcost_cli_case("plan: --global-batch and --max-global-batch together" ARGS plan --gpu h100-sxm --model gpt-3-175b --gpus 512 --global-batch 1536 --max-global-batch 2048 RC 2
  STDERR "--max-global-batch: give --global-batch \\(G exactly\\) or --max-global-batch")
tpcost_cli_case("plan --etp that does not divide the expert FFN" ARGS plan --model qwen3-30b-a3b --gpu H100-SXM --gpus 16 --global-batch 32 --etp 5 RC 2 STDERR
  "--etp: ETP = 5 does not divide the expert FFN size 768")
tpcost_cli_case("plan --etp on a dense model" ARGS plan --model llama-3-8b --gpu H100-SXM --gpus 16 --global-batch 32 --etp 2 RC 2 STDERR
  "--etp: expert parallelism needs a mixture-of-experts model; this one is dense")
tpcost_cli_case("plan searches etp and --etp fixes it" ARGS plan --model qwen3-30b-a3b --gpu H100-SXM --gpus 16 --global-batch 64 --seq 4096 --top 1 --etp 2 RC 0 STDOUT
  "--compare .*,etp=2")
tpcost_cli_case("plan: layouts within the winner's band are marked indistinguishable" ARGS plan
  --model llama-3-70b --seq 8192 --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 512
  --top 3 RC 0 STDOUT "winner likely [0-9.]+ s to [0-9.]+ s \\(17 Hopper.*\n  indistinguishable from the winner within the model's error: [0-9]+ of the other 2 listed layouts")
tpcost_cli_case("plan --pessimistic: plan has no rule to judge" ARGS plan --model llama-3-8b --pessimistic
  RC 2 STDERR "^tpcost: error: tpcost plan: unknown flag '--pessimistic'")
tpcost_cli_case("plan --error-band of another schema: one line, exit 2"
  ARGS plan --model llama-3-70b --gpu h100-sxm --gpus 64 --global-batch 512 --error-band ${band_dir}/other_schema.json
  RC 2 STDERR "^tpcost: error: --error-band: [^\n]*other_schema\\.json: not a tpcost\\.error-band/1 document")
tpcost_cli_case("plan: the winner's memory against the default reserve" ARGS ${_reserve_plan} RC 0 STDOUT
  "winner's memory: stage [0-9]+ peaks at [0-9.]+ GiB allocated \\(about [0-9.]+ GiB reserved\\) of 80\\.0 GiB; 12\\.[89] GiB kept free \\(--memory-reserve\\), [0-9.]+ GiB to spare beyond it")
tpcost_cli_case("plan: --memory-reserve as a share" ARGS ${_reserve_plan} --memory-reserve 50% RC 0 STDOUT
  "40\\.0 GiB kept free \\(--memory-reserve\\)")
tpcost_cli_case("plan: a unit-less --memory-reserve" ARGS ${_reserve_plan} --memory-reserve 8 RC 2 STDERR
  "^tpcost: error: --memory-reserve: '8' has no unit; give a size such as 8GiB or a share of the GPU's memory such as 10%\n$")
tpcost_cli_case("plan: a negative --memory-reserve" ARGS ${_reserve_plan} --memory-reserve=-1GiB RC 2 STDERR
  "^tpcost: error: --memory-reserve: -1GiB: must be a non-negative size, e\\.g\\. 8GiB \\(80\\.0 GiB\\)\n$")
tpcost_cli_case("plan: a --memory-reserve of the whole GPU" ARGS ${_reserve_plan} --memory-reserve 96GiB RC 2 STDERR
  "^tpcost: error: --memory-reserve: 96GiB: must be less than the GPU's memory \\(80\\.0 GiB\\)\n$")
tpcost_cli_case("plan: a --memory-reserve of 100%" ARGS ${_reserve_plan} --memory-reserve 100% RC 2 STDERR
  "less than 100%")
tpcost_cli_case("plan: a reserve so large nothing fits" ARGS ${_reserve_plan} --memory-reserve 79GiB RC 2 STDERR
  "does not fit in GPU memory less the reserve")
tpcost_cli_case("plan --compare: a given layout inside the reserve says so"
  ARGS plan --model llama-3-70b --seq 8192 --gpu H100-SXM --interconnect IB-NDR --gpus 64 --global-batch 512
       --compare t=4,p=4,d=4,sp=on,zero=1,first=19,last=19 t=1,p=1,d=64,b=2,recompute=full,zero=3 --stack megatron-core RC 0 STDOUT
  "memory 78\\.5 GiB of 80\\.0 GiB: fits, inside the 12\\.9 GiB reserve plan keeps free \\(--memory-reserve\\)\n.*memory 58\\.5 GiB of 80\\.0 GiB: fits\n")

# --fine-grained-activation-offloading: fixed for every layout plan prices, checked as step checks it.
tpcost_cli_case("plan: fine-grained offloading frees the winner's memory"
  ARGS ${plan_moe_h100} --fine-grained-activation-offloading --offload-modules expert_fc1,moe_act --top 1 RC 0
  STDOUT "winner's memory: stage [0-9]+ peaks at 46\\.0 GiB allocated")
tpcost_cli_case("plan: attn_proj without core_attn is refused"
  ARGS ${plan_8b_h100} --fine-grained-activation-offloading --offload-modules attn_proj RC 2
  STDOUT "^$" STDERR "^tpcost: error: --offload-modules: attn_proj needs core_attn too [^\n]*\n$")
tpcost_cli_case("plan: --emit megatron writes the offload modules back as nargs words"
  ARGS ${plan_8b_h100} --fine-grained-activation-offloading --offload-modules qkv_linear,core_attn --emit megatron RC 0
  STDOUT "--fine-grained-activation-offloading \\\\\n +--offload-modules qkv_linear core_attn")
tpcost_cli_case("plan: --emit bridge writes the offload modules back as a YAML list"
  ARGS ${plan_8b_h100} --fine-grained-activation-offloading --offload-modules qkv_linear,core_attn --emit bridge RC 0
  STDOUT "fine_grained_activation_offloading: true\n +offload_modules: \\[qkv_linear, core_attn\\]")
tpcost_cli_case("plan: --emit torchtitan refuses fine-grained offloading"
  ARGS ${plan_8b_h100} --stack fsdp2 --fine-grained-activation-offloading --offload-modules core_attn --emit torchtitan RC 2
  STDERR "^tpcost: error: --fine-grained-activation-offloading: is Megatron-Core's")
