#include "formats/flag_registry.hpp"

#include <algorithm>
#include <array>

#include "tpcost/hardware/presets.hpp"
#include "tpcost/model/model_presets.hpp"

namespace tpcost::cli {

namespace {

// Grouped as --help groups them: the model, the batch, the hardware, the layout, the stack's
// choices, then each command's own. The help is the one line every command prints; where a
// command reads the flag its own way, the line says how ("plan: fixes it, else searches it").
constexpr flag_spec flags[] = {
    {"--model", 'm', "", value_kind::model_preset, "", "", "/model/name", cmd::job | cmd::layer,
     "model preset (tpcost model list): every dimension in step and plan; in sweep, explain and "
     "check's per-layer rules its layer (GQA, MLP, attention FLOPs), h, s and heads, and its TP "
     "rules; without one, the article's GPT layer"},
    {"--hf-config", '\0', "", value_kind::hf_config_path, "", "", "/model/hf_config",
     cmd::job | cmd::layer | cmd::model,
     "a Hugging Face config.json instead of --model, read the same way (sweep and explain need "
     "--seq: the config gives the context window)"},
    {"--arch", '\0', "", value_kind::choice, "gpt|llama", "", "/model/arch", cmd::job | cmd::model,
     "conventions: gpt (biases, LayerNorm, learned positions, tied embeddings, GeLU MLP) or llama "
     "(no biases, RMSNorm, rotary, untied, SwiGLU)"},
    {"--layers", '\0', "", value_kind::count, "", "", "/model/layers", cmd::job | cmd::model,
     "L: transformer layers (over the --model's)"},
    {"--hidden", '\0', "", value_kind::count, "", "", "/model/hidden",
     cmd::job | cmd::layer | cmd::model,
     "h: hidden size (over the --model's; the article's GPT layer: 8192)"},
    {"--seq", 's', "", value_kind::count, "", "", "/model/seq", cmd::job | cmd::layer | cmd::model,
     "s: sequence length, tokens, also the FLOPs-per-token length (over the --model's; the "
     "article's layer: 2048)"},
    {"--heads", '\0', "", value_kind::count, "", "", "/model/heads",
     cmd::job | cmd::layer | cmd::model,
     "a: attention heads (over the --model's; the article's layer: h/128, 64 at h=8192)"},
    {"--kv-heads", '\0', "", value_kind::count, "", "", "/model/kv_heads", cmd::job | cmd::model,
     "key/value heads (GQA; over the --model's, else --heads)"},
    {"--hidden-dropout", '\0', "", value_kind::fraction, "", "", "/model/hidden_dropout",
     cmd::job | cmd::model, "P: hidden dropout (Megatron's default 0.1); 0 keeps no masks"},
    {"--attention-dropout", '\0', "", value_kind::fraction, "", "", "/model/attention_dropout",
     cmd::job | cmd::model,
     "P: attention dropout (Megatron's default 0.1); 0 keeps no mask or copy of the unfused "
     "softmax output"},
    {"--head-dim", '\0', "", value_kind::count, "", "", "/model/head_dim", cmd::job | cmd::model,
     "per-head width of queries, keys and values (Megatron --kv-channels, HF head_dim; over the "
     "--model's, else h/heads)"},
    {"--ffn", '\0', "", value_kind::count, "", "", "/model/ffn", cmd::job | cmd::model,
     "MLP inner size (over the --model's, else 4h)"},
    {"--vocab", '\0', "", value_kind::count, "", "", "/model/vocab", cmd::job | cmd::model,
     "V: vocabulary size (over the --model's)"},
    {"--experts", '\0', "", value_kind::count, "", "", "/model/experts", cmd::job | cmd::model,
     "E: routed experts per MoE layer (Megatron --num-experts; HF n_routed_experts, "
     "num_local_experts or num_experts)"},
    {"--top-k", '\0', "", value_kind::count, "", "", "/model/top_k", cmd::job | cmd::model,
     "k: routed experts each token visits (Megatron --moe-router-topk, HF num_experts_per_tok)"},
    {"--expert-ffn", '\0', "", value_kind::count, "", "", "/model/expert_ffn",
     cmd::job | cmd::model,
     "inner size of one routed expert (Megatron --moe-ffn-hidden-size; HF moe_intermediate_size, "
     "Mixtral's intermediate_size)"},
    {"--shared-expert-ffn", '\0', "", value_kind::count, "", "", "/model/shared_expert_ffn",
     cmd::job | cmd::model,
     "inner size of all shared experts together (Megatron --moe-shared-expert-intermediate-size)"},
    {"--moe-dense-layers", '\0', "", value_kind::count, "", "", "/model/moe_dense_layers",
     cmd::job | cmd::model,
     "leading layers with a dense MLP of --ffn (DeepSeek first_k_dense_replace)"},
    {"--moe-layer-freq", '\0', "", value_kind::count, "", "", "/model/moe_layer_freq",
     cmd::job | cmd::model,
     "after them, every k-th layer has experts (Megatron --moe-layer-freq k)"},
    {"--moe-router-num-groups", '\0', "", value_kind::count, "", "", "/model/moe_router_num_groups",
     cmd::job | cmd::model,
     "G: group-limited routing over G groups of E/G experts (Megatron --moe-router-num-groups, HF "
     "n_group; DeepSeek-V3 8); 1: top-k over all experts"},
    {"--moe-router-group-topk", '\0', "", value_kind::count, "", "", "/model/moe_router_group_topk",
     cmd::job | cmd::model,
     "the groups a token's experts come from (Megatron --moe-router-group-topk, HF topk_group; "
     "DeepSeek-V3 4): a flex dispatch reaches fewer nodes"},
    {"--q-lora-rank", '\0', "", value_kind::count, "", "", "/model/q_lora_rank",
     cmd::job | cmd::model,
     "the query latent; 0: queries projected from h (Megatron --q-lora-rank)"},
    {"--kv-lora-rank", '\0', "", value_kind::count, "", "", "/model/kv_lora_rank",
     cmd::job | cmd::model,
     "the key/value latent: MLA instead of MHA/GQA (Megatron --kv-lora-rank)"},
    {"--qk-nope-head-dim", '\0', "", value_kind::count, "", "", "/model/qk_nope_head_dim",
     cmd::job | cmd::model,
     "per head, the query/key part without positions (Megatron --qk-head-dim)"},
    {"--qk-rope-head-dim", '\0', "", value_kind::count, "", "", "/model/qk_rope_head_dim",
     cmd::job | cmd::model, "per head, the rotary query/key part (Megatron --qk-pos-emb-head-dim)"},
    {"--v-head-dim", '\0', "", value_kind::count, "", "", "/model/v_head_dim",
     cmd::job | cmd::model, "per head, the value width"},
    {"--mtp-layers", '\0', "", value_kind::count, "", "", "/model/mtp_layers",
     cmd::job | cmd::model, "multi-token prediction modules (Megatron --mtp-num-layers)"},
    {"--sliding-window", '\0', "", value_kind::count, "", "", "/model/sliding_window",
     cmd::job | cmd::model, "W: sliding-window attention, W keys per query (HF sliding_window)"},
    {"--attention-chunk", '\0', "", value_kind::count, "", "", "/model/attention_chunk",
     cmd::job | cmd::model, "C: chunked attention within C-token chunks (HF attention_chunk_size)"},
    {"--window-full-every", '\0', "", value_kind::count, "", "", "/model/window_full_every",
     cmd::job | cmd::model, "G: every G-th layer full attention (GPT-OSS 2, Llama 4 4); 0: none"},
    {"--micro-batch", 'b', "--batch", value_kind::count, "", "", "/batch/micro_batch",
     cmd::job | cmd::layer,
     "b: sequences per micro-batch (default: a config's, else 1 in step and in check's step rules, "
     "and 2, the article's demo, in sweep, explain and check's per-layer rules; plan: fixes it, "
     "else searches it)"},
    {"--global-batch", 'G', "", value_kind::count, "", "", "/batch/global_batch", cmd::job,
     "G: sequences per step (step and plan need it)"},
    {"--gpu", 'g', "", value_kind::gpu_preset, "", "", "/hardware/gpu",
     cmd::job | cmd::layer | cmd::collective,
     "GPU preset (tpcost hardware list): its dense peak for --dtype, HBM, intra-node link and GPUs "
     "per node; in sweep and explain it selects --collective auto"},
    {"--interconnect", 'i', "", value_kind::interconnect_preset, "", "", "/hardware/interconnect",
     cmd::job | cmd::layer | cmd::collective,
     "inter-node link preset, per GPU (step, plan and check's step rules default to the NIC of the "
     "--gpu's reference system, e.g. IB-NDR for H100-SXM as in DGX H100, and say so); in sweep and "
     "explain it selects --collective auto"},
    {"--interconnect-file", '\0', "", value_kind::profile_path, "", "",
     "/hardware/interconnect_file", cmd::job | cmd::layer | cmd::collective,
     "a profile from 'tpcost calibrate --out': its fitted alpha and beta replace the inter-node "
     "link if it was measured across nodes, else the intra-node link"},
    {"--dtype", '\0', "", value_kind::dtype, "", "", "/hardware/dtype", cmd::job | cmd::layer,
     "d: element type, fp32|tf32|bf16|fp16|fp8|fp64 or bytes 1..16: picks the --gpu preset's dense "
     "peak and, in sweep and explain, the bytes on the wire unless --comm-dtype (default bf16 with "
     "--gpu, else fp32, the article's); in step and plan fp8 is --precision fp8 (the linear layers "
     "in FP8, MFU against the BF16 peak), and fp16 keeps megatron-core's gradients in fp16, as "
     "Megatron-LM does"},
    {"--flops", '\0', "", value_kind::flop_rate, "", "", "/hardware/flops", cmd::job | cmd::layer,
     "P: per-GPU peak, e.g. 1PFLOP/s, 989.4T, 312e12FLOP/s (default: the --gpu preset's dense peak "
     "for --dtype; without --gpu, the article's 1PFLOP/s)"},
    {"--memory", '\0', "", value_kind::byte_size, "", "", "/hardware/memory", cmd::job,
     "HBM capacity per GPU, e.g. 80GiB"},
    {"--memory-bandwidth", '\0', "", value_kind::bandwidth, "", "", "/hardware/memory_bandwidth",
     cmd::job, "HBM bandwidth, e.g. 2039GB/s"},
    {"--matmul-efficiency", '\0', "", value_kind::share, "", "", "/hardware/matmul_efficiency",
     cmd::job,
     "achievable share of the BF16 peak for large matmuls (default: the GPU generation's, e.g. "
     "0.75 A100, 0.700 H100; tpcost hardware show)"},
    {"--attention-efficiency", '\0', "", value_kind::share, "", "",
     "/hardware/attention_efficiency", cmd::job,
     "achievable share of the attention rate's peak for the fused attention kernel, on the FLOPs "
     "it runs (default: the GPU's, e.g. 0.31 H100; tpcost hardware show)"},
    {"--memory-efficiency", '\0', "", value_kind::share, "", "", "/hardware/memory_efficiency",
     cmd::job,
     "achievable share of HBM bandwidth for element-wise kernels (default: the GPU generation's, "
     "0.66)"},
    {"--bandwidth", '\0', "", value_kind::bandwidth, "", "", "/hardware/bandwidth",
     cmd::layer | cmd::check | cmd::collective,
     "B: per-GPU bandwidth, e.g. 600GB/s, 600e9B/s, 400Gb/s: the whole message's under "
     "--collective article, else the intra-node link unless --intra-bandwidth is given (default: "
     "the profile's or the --gpu preset's intra-node link, else 600GB/s)"},
    {"--gpus-per-node", '\0', "", value_kind::node_size, "", "", "/hardware/gpus_per_node",
     cmd::job | cmd::layer | cmd::collective,
     "GPUs per node (default: the --gpu preset's, else 8)"},
    {"--intra-bandwidth", '\0', "", value_kind::bandwidth, "", "", "/hardware/intra_bandwidth",
     cmd::job | cmd::layer | cmd::collective,
     "intra-node link, per GPU and direction, e.g. 450GB/s (default: --bandwidth where the command "
     "has it, else the profile's or the --gpu preset's)"},
    {"--intra-latency", '\0', "", value_kind::duration, "", "", "/hardware/intra_latency",
     cmd::job | cmd::layer | cmd::collective,
     "intra-node latency per step, e.g. 3us (default: the profile's or the --gpu preset's, else "
     "0)"},
    {"--inter-bandwidth", '\0', "", value_kind::bandwidth, "", "", "/hardware/inter_bandwidth",
     cmd::job | cmd::layer | cmd::collective,
     "inter-node link per GPU and direction, e.g. 50GB/s (400Gb/s NIC); needed when a group spans "
     "nodes (default: the profile's or the --interconnect preset's)"},
    {"--inter-latency", '\0', "", value_kind::duration, "", "", "/hardware/inter_latency",
     cmd::job | cmd::layer | cmd::collective,
     "inter-node latency per step, e.g. 10us (default: the profile's or the --interconnect "
     "preset's, else 0)"},
    {"--tp", 't', "--fixed-tp", value_kind::degrees, "", "", "/parallel/tp", cmd::job | cmd::layer,
     "t: tensor-parallel degree (step: default 1; plan: fixes it, else searches it); sweep takes a "
     "list: 1,2,4,8 | 1..64 (doubling) | 1..16:+1 (every integer) | 2..54:x3"},
    {"--pp", 'p', "--fixed-pp", value_kind::count, "", "", "/parallel/pp", cmd::job,
     "p: pipeline stages (step: default 1; plan: fixes it, else searches it)"},
    {"--dp", '\0', "", value_kind::count, "", "", "/parallel/dp", cmd::check | cmd::step,
     "d: data-parallel replicas (default N/(t*p*cp), or 1)"},
    {"--cp", '\0', "", value_kind::count, "", "", "/parallel/cp", cmd::job,
     "cp: context-parallel degree, the sequence split over cp ranks (Megatron "
     "--context-parallel-size; s must divide by 2*cp; plan: fixes it, else searches it)"},
    {"--cp-comm-type", '\0', "", value_kind::choice, "p2p|all_gather|a2a|a2a+p2p|auto", "",
     "/parallel/cp_comm_type", cmd::job,
     "how CP ranks exchange K,V: p2p (ring, hidden behind attention) | all_gather (Llama 3) | a2a "
     "(Ulysses) | a2a+p2p (Megatron --cp-comm-type); auto, in plan: one search per exchange, the "
     "fastest reported"},
    {"--hierarchical-cp-sizes", '\0', "", value_kind::text, "", "A,B",
     "/parallel/hierarchical_cp_sizes", cmd::check | cmd::step,
     "with --cp-comm-type a2a+p2p: A,B, the a2a group and the p2p ring, A*B = cp (Megatron "
     "--hierarchical-context-parallel-sizes)"},
    {"--ep", '\0', "", value_kind::count, "", "", "/parallel/ep", cmd::job,
     "EP: expert-parallel degree, folded over the t*cp*d ranks of a stage (Megatron "
     "--expert-model-parallel-size; must divide the experts; plan: fixes it, else searches every "
     "ep dividing the experts)"},
    {"--etp", '\0', "", value_kind::count, "", "", "/parallel/etp", cmd::job,
     "ETP: expert tensor-parallel degree (Megatron --expert-tensor-parallel-size); EP*ETP must "
     "divide t*cp*d (plan: fixes it, else searches every etp dividing the expert FFN size)"},
    {"--moe-token-dispatcher", '\0', "", value_kind::choice, "alltoall|flex|allgather|auto", "",
     "/options/moe_token_dispatcher", cmd::job,
     "alltoall (NCCL all-to-all of every token-expert copy) | flex (DeepEP/HybridEP: one copy per "
     "GPU and per node) | allgather (every token to every GPU of the EP group, Megatron's "
     "default); Megatron --moe-token-dispatcher-type; auto, in plan: one search per dispatcher, "
     "the fastest reported"},
    {"--overlap-moe-expert-parallel-comm", '\0', "", value_kind::boolean, "", "",
     "/options/overlap_moe_expert_parallel_comm", cmd::job,
     "hide the dispatch/combine all-to-alls behind another micro-batch's compute (Megatron's flag; "
     "default off)"},
    {"--moe-load-imbalance", '\0', "", value_kind::positive, "", "", "/options/moe_load_imbalance",
     cmd::check | cmd::step,
     "tokens the busiest GPU's experts get over the balanced share (1: balanced, as the published "
     "benchmarks force)"},
    {"--moe-expert-capacity-factor", '\0', "", value_kind::positive, "", "",
     "/options/moe_expert_capacity_factor", cmd::check | cmd::step,
     "drop tokens beyond this many times an expert's balanced share (Megatron's flag; default "
     "dropless)"},
    {"--cuda-graph-impl", '\0', "", value_kind::choice,
     "none|local|transformer_engine|full_iteration", "", "/options/cuda_graph_impl",
     cmd::check | cmd::step,
     "CUDA graphs (Megatron --cuda-graph-impl, core_v0.16.0; full_iteration as core_v0.18.0 "
     "names it): none (default) | local | transformer_engine; read and checked, not costed (the "
     "MoE host time does not depend on it: docs/moe.md)"},
    {"--cuda-graph-scope", '\0', "", value_kind::text, "", "LIST", "/options/cuda_graph_scope",
     cmd::check | cmd::step,
     "with --cuda-graph-impl: what it captures, a list of attn, mlp, moe, moe_router, "
     "moe_preprocess, mamba, full_iteration (Megatron --cuda-graph-scope, core_v0.18.0 "
     "--cuda-graph-modules); empty: the whole layer; checked as Megatron-Core checks it"},
    {"--vpp", '\0', "", value_kind::count, "", "", "/parallel/vpp", cmd::job,
     "v: interleaved model chunks per GPU (plan: fixes it, else searches it)"},
    {"--pp-layout", '\0', "", value_kind::text, "", "LAYOUT", "/parallel/pp_layout",
     cmd::check | cmd::step,
     "uneven stages: first=N,last=N (layers on the end stages, the middle ones share the rest), or "
     "Megatron-Core's --pipeline-model-parallel-layout string, e.g. 'Et*7|(t*8|)*14t*7L'"},
    {"--account-for-embedding-in-pipeline-split", '\0', "", value_kind::boolean, "", "",
     "/parallel/account_for_embedding_in_pipeline_split", cmd::check | cmd::step,
     "Megatron-Core: the embedding counts as one layer of the first stage"},
    {"--account-for-loss-in-pipeline-split", '\0', "", value_kind::boolean, "", "",
     "/parallel/account_for_loss_in_pipeline_split", cmd::check | cmd::step,
     "Megatron-Core: the loss counts as one layer of the last stage"},
    {"--gpus", 'n', "--ranks", value_kind::count, "", "", "/parallel/gpus",
     cmd::job | cmd::calibrate | cmd::collective,
     "N: GPUs in the job (step: the missing one of --tp/--pp/--dp is N/(the others); plan needs "
     "it); collective: the GPUs in the group; calibrate: the ranks of the measured run (default: "
     "its '#  Rank' lines, else busbw/algbw, else nThread x nGpus); --ranks, the old name"},
    {"--dp-replicas", '\0', "", value_kind::count, "", "", "/parallel/dp_replicas",
     cmd::check | cmd::step,
     "HSDP: N groups of d/N DP ranks; ZeRO shards within a group and each gradient shard is "
     "all-reduced across the N (torchtitan data_parallel_replicate_degree, Megatron "
     "--num-distributed-optimizer-instances); default 1"},
    {"--collective", '\0', "", value_kind::choice, "article|ring|tree|hierarchical|auto", "",
     "/options/collective", cmd::layer | cmd::check,
     "article (the article's M/B per all-reduce) | ring | tree | hierarchical (textbook alpha-beta "
     "costs) | auto (what NCCL's tuner picks, as in collective, step and plan); default: auto with "
     "--gpu, --interconnect or --interconnect-file, else article"},
    {"--bandwidth-kind", '\0', "", value_kind::choice, "algbw|busbw", "", "/options/bandwidth_kind",
     cmd::layer | cmd::check,
     "with --collective article, what --bandwidth is: algbw (the default and the article's: an "
     "all-reduce takes M/B) | busbw (nccl-tests bus bandwidth: 2(t-1)/t*M/B)"},
    {"--sp", '\0', "", value_kind::boolean, "", "", "/options/sp",
     cmd::layer | cmd::check | cmd::step,
     "sequence parallelism (Megatron-SP): an all-gather and a reduce-scatter for each all-reduce, "
     "the activations between them split by t (step default: the --stack's, on at t > 1 under "
     "megatron-bridge and fsdp2)"},
    {"--no-sp", '\0', "", value_kind::boolean, "", "", "/options/no_sp", cmd::check | cmd::step,
     "no sequence parallelism, whatever the stack does"},
    {"--recompute", '\0', "", value_kind::choice, "none|selective|full", "", "/options/recompute",
     cmd::layer | cmd::check | cmd::step,
     "activation recomputation: none | selective (the attention core rerun, or "
     "--recompute-modules: less activation memory, the same collectives) | full (the forward rerun "
     "in backward: its collectives and FLOPs again)"},
    {"--recompute-modules", '\0', "", value_kind::text, "", "LIST", "/options/recompute_modules",
     cmd::job,
     "with --recompute selective: what it reruns, a comma list of core_attn, mlp, moe, moe_act, "
     "layernorm, mla_up_proj, shared_experts (Megatron-Core's recompute_modules; default "
     "core_attn); auto, in plan: every set of the modules the model has, one search each, the "
     "fastest reported"},
    {"--recompute-method", '\0', "", value_kind::choice, "uniform|block", "",
     "/options/recompute_method", cmd::job,
     "with --recompute full (in plan: the layouts with full recomputation): uniform (units of "
     "--recompute-num-layers layers) or block (only that many layers of each model chunk); "
     "default uniform"},
    {"--recompute-num-layers", '\0', "", value_kind::count_or_auto, "", "",
     "/options/recompute_num_layers", cmd::job,
     "with --recompute full: layers per unit (uniform) or recomputed layers per model chunk "
     "(block); default 1; auto, in plan: the fewest block layers each layout fits with"},
    {"--cpu-offloading-num-layers", '\0', "", value_kind::count, "", "",
     "/options/cpu_offloading_num_layers", cmd::check | cmd::step,
     "layers whose activations Megatron's --cpu-offloading keeps on the host (p = 1, no "
     "recomputation); the PCIe copies are not costed"},
    {"--fine-grained-activation-offloading", '\0', "", value_kind::boolean, "", "",
     "/options/fine_grained_activation_offloading", cmd::job,
     "Megatron-Core's module-level offloading: what the --offload-modules save for their "
     "backward goes to the host (tensors of 1Mi elements or more); the host copies are not "
     "costed"},
    {"--offload-modules", '\0', "", value_kind::text, "", "LIST", "/options/offload_modules",
     cmd::job,
     "with --fine-grained-activation-offloading: a comma list of attn_norm, qkv_linear, "
     "core_attn, attn_proj (with core_attn), mlp_norm, expert_fc1, moe_act (Megatron-Core's "
     "offload_modules)"},
    {"--overlap", '\0', "", value_kind::fraction, "", "", "/options/overlap",
     cmd::layer | cmd::check,
     "f in [0,1]: T = T_calc + T_comm - f*min(T_calc, T_comm); 0 serial, 1 max"},
    {"--comm-dtype", '\0', "", value_kind::dtype, "", "", "/options/comm_dtype",
     cmd::layer | cmd::check, "dtype on the wire, e.g. fp8 with --dtype bf16 (default: --dtype)"},
    {"--zero", '\0', "", value_kind::zero_stage, "", "", "/options/zero", cmd::job,
     "ZeRO stage 0..3 (1 is Megatron's distributed optimizer; default: the --stack's, 0, or 3 "
     "under --stack fsdp2; plan: fixes it, else searches it)"},
    {"--mfu-flops", '\0', "", value_kind::choice, "full|megatron", "", "/options/mfu_flops",
     cmd::job,
     "model FLOPs behind MFU: full (the s*s attention scores, as Narayanan et al. and PaLM count) "
     "or megatron (Megatron-LM's count: causal attention halved)"},
    {"--attention", '\0', "", value_kind::choice, "fused|unfused", "", "/options/attention",
     cmd::job,
     "attention kernel: fused (FlashAttention: no s*s scores in HBM) or unfused (Megatron-LM 2021, "
     "as in the SC21 validation); default: the --stack's"},
    {"--precision", '\0', "", value_kind::choice,
     "bf16|fp8|fp8-current|fp8-blockwise|mxfp8|nvfp4|auto", "", "/options/precision", cmd::job,
     "linear layers' recipe, as Transformer Engine runs it: bf16|fp8 (= "
     "fp8-delayed)|fp8-current|fp8-blockwise|mxfp8|nvfp4; attention and logits stay BF16; auto, in "
     "plan: one search per recipe the GPU runs (with --emit, per recipe the format writes), the "
     "fastest reported"},
    {"--fp8-attention", '\0', "", value_kind::boolean, "", "", "/options/fp8_attention", cmd::job,
     "attention core in FP8 too (Megatron --fp8-dot-product-attention)"},
    {"--fp8-param-gather", '\0', "", value_kind::boolean, "", "", "/options/fp8_param_gather",
     cmd::job, "parameters kept in FP8, no BF16 copy (Megatron --fp8-param-gather)"},
    {"--stack", '\0', "", value_kind::choice,
     "megatron-core|megatron-2021|deepspeed|fsdp2|megatron-bridge", "", "/options/stack", cmd::job,
     "software stack profile: how the framework runs the step (default megatron-bridge, the "
     "Megatron-Bridge performance recipes; megatron-core: Megatron-LM's own argument defaults; "
     "docs/stacks.md)"},
    {"--tp-comm-overlap", '\0', "", value_kind::boolean, "", "", "/options/tp_comm_overlap",
     cmd::job,
     "Megatron-Core: TE userbuffers overlap the TP collectives with their GEMMs (--tp-overlap 1)"},
    {"--overlap-grad-reduce", '\0', "", value_kind::boolean, "", "", "/options/overlap_grad_reduce",
     cmd::job, "Megatron-Core: gradient reduce-scatter/all-reduce in buckets during the backward"},
    {"--overlap-param-gather", '\0', "", value_kind::boolean, "", "",
     "/options/overlap_param_gather", cmd::job,
     "Megatron-Core: the distributed optimizer's weight all-gather behind the next forward"},
    {"--grad-reduce-in-bf16", '\0', "", value_kind::boolean, "", "", "/options/grad_reduce_in_bf16",
     cmd::job, "Megatron-Core: reduce gradients in bf16 (default fp32)"},
    {"--offload-optimizer", '\0', "", value_kind::boolean, "", "", "/options/offload_optimizer",
     cmd::job,
     "DeepSpeed ZeRO-Offload (offload_optimizer): the gradient partitions, fp32 master weights and "
     "Adam moments in host memory; the CPU Adam step and the PCIe copies are not costed"},
    {"--offload-param", '\0', "", value_kind::boolean, "", "", "/options/offload_param", cmd::job,
     "DeepSpeed ZeRO-3 offload_param: the 16-bit weights in host memory, each layer's gathered on "
     "the GPU for its use; the PCIe copies are not costed"},
    {"--no-overlap-p2p-communication", '\0', "", value_kind::boolean, "", "",
     "/options/no_overlap_p2p_communication", cmd::job,
     "Megatron-Core: keep the interleaved schedule's pipeline sends and receives exposed (default: "
     "overlapped with compute when --vpp > 1)"},
    {"--no-gradient-accumulation-fusion", '\0', "", value_kind::boolean, "", "",
     "/options/no_gradient_accumulation_fusion", cmd::job,
     "Megatron-Core: add each micro-batch's weight gradients into the main-grad buffer in a pass "
     "of their own (default: the weight-gradient GEMMs accumulate themselves)"},
    {"--torch-compile", '\0', "", value_kind::boolean, "", "", "/options/torch_compile", cmd::job,
     "torchtitan (--stack fsdp2): torch.compile the model ([compile] enable): its element-wise ops "
     "fused, priced with the compiled kernels' efficiencies"},
    {"--no-torch-compile", '\0', "", value_kind::boolean, "", "", "/options/no_torch_compile",
     cmd::job, "torchtitan (--stack fsdp2): PyTorch eager kernels (torchtitan's default)"},
    {"--cross-entropy-loss-fusion", '\0', "", value_kind::boolean, "", "",
     "/options/cross_entropy_loss_fusion", cmd::job,
     "Megatron-Core: the fused vocab-parallel cross entropy (impl native unless "
     "--cross-entropy-fusion-impl); megatron-bridge's recipes run it (te)"},
    {"--no-cross-entropy-loss-fusion", '\0', "", value_kind::boolean, "", "",
     "/options/no_cross_entropy_loss_fusion", cmd::job,
     "the unfused cross entropy (Megatron-Core's default; a Bridge YAML's "
     "cross_entropy_loss_fusion: false)"},
    {"--cross-entropy-fusion-impl", '\0', "", value_kind::choice, "native|te", "",
     "/options/cross_entropy_fusion_impl", cmd::job,
     "with the fusion on: native (jit-fused ops) or te (Transformer Engine's Triton kernels)"},
    {"--async-tp", '\0', "", value_kind::boolean, "", "", "/options/async_tp", cmd::job,
     "torchtitan (--stack fsdp2): async TP ([parallelism] enable_async_tensor_parallel): "
     "inductor's micro-pipelined matmuls hide SP's all-gathers and reduce-scatters behind their "
     "GEMMs within one NVLink domain (--tp-overlap 1); needs --torch-compile"},
    {"--use-precision-aware-optimizer", '\0', "", value_kind::boolean, "", "",
     "/options/use_precision_aware_optimizer", cmd::job,
     "Megatron-Core: Transformer Engine's FusedAdam with the dtypes below; fp32 master weights "
     "kept as 16-bit remainders (docs/memory.md)"},
    {"--main-grads-dtype", '\0', "", value_kind::choice, "fp32|bf16", "",
     "/options/main_grads_dtype", cmd::job,
     "with --use-precision-aware-optimizer, the gradient buffer: fp32|bf16 (default fp32)"},
    {"--main-params-dtype", '\0', "", value_kind::choice, "fp32|fp16", "",
     "/options/main_params_dtype", cmd::job,
     "with --use-precision-aware-optimizer, the master weights: fp32|fp16 (default fp32)"},
    {"--exp-avg-dtype", '\0', "", value_kind::choice, "fp32|fp16|bf16|fp8", "",
     "/options/exp_avg_dtype", cmd::job,
     "with --use-precision-aware-optimizer, the Adam's first moment: fp32|fp16|bf16|fp8 (default "
     "fp32)"},
    {"--exp-avg-sq-dtype", '\0', "", value_kind::choice, "fp32|fp16|bf16|fp8", "",
     "/options/exp_avg_sq_dtype", cmd::job,
     "with --use-precision-aware-optimizer, the Adam's second moment: fp32|fp16|bf16|fp8 (default "
     "fp32)"},
    {"--tp-overlap", '\0', "", value_kind::fraction, "", "", "/options/tp_overlap", cmd::job,
     "share of TP comm hidden behind compute (default: the --stack's)"},
    {"--tp-contention", '\0', "", value_kind::fraction, "", "", "/options/tp_contention", cmd::job,
     "share of each second of TP comm that --tp-overlap (userbuffers) hides that the compute "
     "still loses to it (the SMs and HBM bandwidth the collective takes; default 0.51, fitted on "
     "H100 rows; 0: hidden TP is free)"},
    {"--dp-overlap", '\0', "", value_kind::fraction, "", "", "/options/dp_overlap", cmd::job,
     "share of the DP gradient sync hidden behind the last backward (default: the --stack's)"},
    {"--min-efficiency", '\0', "", value_kind::open_fraction, "", "", "/checks/min_efficiency",
     cmd::layer | cmd::check, "efficiency target for the 'largest TP' summary, in (0,1)"},
    {"--algorithm", '\0', "", value_kind::text, "", "ALGORITHM", "", cmd::collective,
     "all | auto (what NCCL's tuner picks) | article | ring | tree | nvls | nvls-tree | pat | "
     "collnet-direct | collnet-chain | hierarchical"},
    {"--ascii", '\0', "", value_kind::boolean, "", "", "", cmd::sweep | cmd::plan,
     "draw charts in pure ASCII (the default when the locale is not UTF-8)"},
    {"--chart", '\0', "", value_kind::boolean, "", "", "", cmd::sweep | cmd::plan,
     "draw charts below the table: E over TP with t* and the node boundary, and compute vs exposed "
     "comm per TP"},
    {"--collnet", '\0', "", value_kind::boolean, "", "", "", cmd::collective,
     "the network switches have SHARP (NCCL's CollNet; also enables NVLS across nodes)"},
    {"--color", '\0', "", value_kind::choice, "auto|always|never", "", "", cmd::sweep | cmd::plan,
     "colour in charts: auto (only on a terminal, not with NO_COLOR), always or never"},
    {"--compare", '\0', "", value_kind::text, "", "LAYOUT", "", cmd::plan,
     "evaluate two layouts side by side instead of searching, each as "
     "\"t=16,p=4,cp=1,d=8,b=1,v=1,sp=off,recompute=full,zero=0\" (missing keys: d = N/(t*p*cp), "
     "others 1/off/none/0; cp_comm=, dispatcher= and modules=a+b override --cp-comm-type, "
     "--moe-token-dispatcher and --recompute-modules for that layout)"},
    {"--config", 'c', "", value_kind::text, "", "FILE", "", cmd::layer | cmd::step | cmd::plan,
     "read flag values from a config FILE ('-' for stdin): tpcost's JSON, or any format --from "
     "reads; flags given on the command line win"},
    {"--emit", '\0', "", value_kind::choice, "megatron|bridge|torchtitan", "", "", cmd::plan,
     "megatron|bridge|torchtitan: print the winner (or --compare's first layout) as a Megatron-LM "
     "launch, a Megatron-Bridge YAML override or a torchtitan v0.2.2 TOML job config that `tpcost "
     "step --from FILE` reads back"},
    {"--error-band", '\0', "", value_kind::text, "", "FILE", "", cmd::job,
     "a band document written by `make validate` (tpcost_error_band --write) in place of the "
     "compiled-in data/error_band.json (docs/error-band.md)"},
    {"--format", 'f', "", value_kind::choice, "", "", "",
     cmd::job | cmd::layer | cmd::schema | cmd::model | cmd::calibrate | cmd::hardware |
         cmd::collective | cmd::convert,
     "output format (the command's own list; table is the default)"},
    {"--from", '\0', "", value_kind::text, "", "FILE", "", cmd::layer | cmd::step | cmd::plan,
     "read the job from FILE (repeatable): a Megatron-LM launch script or training log, a "
     "Megatron-Bridge/NeMo YAML, a torchtitan TOML, a DeepSpeed JSON, a Hugging Face config.json "
     "(the model), or a tpcost config; see docs/formats.md"},
    {"--max-cp", '\0', "", value_kind::count, "", "", "", cmd::plan,
     "largest context-parallel degree to consider (cp divides N/(t*p), s divides by 2*cp; default "
     "s/8192: at least 8,192 tokens per CP rank, as Llama 3's CP 16 at 128k)"},
    {"--max-global-batch", '\0', "", value_kind::count, "", "", "", cmd::plan,
     "G at most: each layout runs d*floor(G/d) sequences (a multiple of d*b), ranked by samples/s"},
    {"--max-size", '\0', "", value_kind::byte_size, "", "", "", cmd::calibrate,
     "fit only sizes <= this, e.g. 16GiB"},
    {"--max-tp", '\0', "", value_kind::count, "", "", "", cmd::plan,
     "largest TP degree to consider"},
    {"--memory-reserve", '\0', "", value_kind::byte_size, "", "", "", cmd::plan,
     "SIZE or PCT%: GPU memory kept free of allocated bytes (default: the caching allocator's 15% "
     "and 1 GiB for CUDA and NCCL, 12.85 GiB of 80 GiB; docs/memory.md)"},
    {"--min-size", '\0', "", value_kind::byte_size, "", "", "", cmd::calibrate,
     "fit only sizes >= this, e.g. 1KiB"},
    {"--nics-per-node", '\0', "", value_kind::count, "", "", "", cmd::collective,
     "NICs of --interconnect per node (default: one per GPU, as on DGX A100/H100/B200)"},
    {"--no-header", '\0', "", value_kind::boolean, "", "", "",
     cmd::sweep | cmd::step | cmd::plan | cmd::model, "with --format csv: the rows alone"},
    {"--nodes", '\0', "", value_kind::count, "", "", "", cmd::calibrate,
     "nodes of the run, when its output has no '#  Rank ... on HOST' lines"},
    {"--op", '\0', "", value_kind::choice, "all-reduce|reduce-scatter|all-gather", "", "",
     cmd::calibrate | cmd::collective,
     "the collective: all-reduce | reduce-scatter | all-gather (calibrate: default from the file's "
     "'# Collective test starting' line or its name)"},
    {"--out", '\0', "", value_kind::text, "", "FILE", "", cmd::calibrate,
     "write the interconnect profile (JSON) here, for --interconnect-file"},
    {"--output", 'o', "", value_kind::text, "", "FILE", "",
     cmd::job | cmd::layer | cmd::model | cmd::hardware | cmd::collective | cmd::convert |
         cmd::completion | cmd::manpage,
     "write to FILE instead of stdout"},
    {"--pessimistic", '\0', "", value_kind::boolean, "", "", "", cmd::check,
     "judge min_mfu and max_step_time at the error band's pessimistic edge (the slow end of the "
     "step time; docs/error-band.md) instead of the central value"},
    {"--placement", '\0', "", value_kind::choice, "both|in-place|out-of-place", "", "",
     cmd::calibrate, "timings to fit: both, in-place, out-of-place"},
    {"--plot", '\0', "", value_kind::text, "", "FILE", "", cmd::sweep | cmd::plan,
     "draw the charts with gnuplot into FILE.svg or FILE.png (needs gnuplot-nox)"},
    {"--plot-script", '\0', "", value_kind::text, "", "FILE", "", cmd::sweep | cmd::plan,
     "write the gnuplot script with its data inline to FILE.gp, to restyle and run with 'gnuplot "
     "FILE.gp'"},
    {"--print-config", '\0', "", value_kind::boolean, "", "", "",
     cmd::layer | cmd::step | cmd::plan,
     "print the merged config (file + command line) as JSON and exit"},
    {"--quiet", 'q', "", value_kind::boolean, "", "", "",
     cmd::sweep | cmd::step | cmd::plan | cmd::convert,
     "print the result alone: no title, inputs or summary lines (step: its notes go to stderr; "
     "convert: no list of ignored arguments)"},
    {"--ranks-per-node", '\0', "", value_kind::count, "", "", "", cmd::calibrate | cmd::collective,
     "GPUs of the group on each node: in collective at most --gpus-per-node (default: fill nodes; "
     "1 = a DP-style ring with one GPU per node); in calibrate the ranks per node of the measured "
     "run when its output has no host lines"},
    {"--require-fit", '\0', "", value_kind::boolean, "", "", "", cmd::step,
     "exit 1 (after printing) when the layout does not fit in GPU memory"},
    {"--rule", '\0', "", value_kind::text, "", "NAME=VALUE", "", cmd::check,
     "NAME=VALUE: a rule over every file's checks section, e.g. --rule min_mfu=0.4 --rule "
     "min_memory_headroom=4GiB (repeatable)"},
    {"--segments", '\0', "", value_kind::count, "", "", "", cmd::calibrate,
     "lines of the piecewise fit shown beside the single line (1 = none), 1..8"},
    {"--set", '\0', "", value_kind::text, "", "NAME=VALUE", "",
     cmd::job | cmd::layer | cmd::convert,
     "VAR=VALUE: the value of a launch script's $VAR (wins over the script's own assignment)"},
    {"--size", '\0', "", value_kind::byte_size, "", "", "", cmd::collective,
     "M: the full message, e.g. 1GiB, 64MB, 134217728B"},
    {"--strict", '\0', "", value_kind::boolean, "", "", "", cmd::job | cmd::layer | cmd::convert,
     "a value tpcost reads but cannot model (an unknown --recompute-granularity, a pipeline "
     "schedule) is an error, not a warning"},
    {"--threads", '\0', "", value_kind::count, "", "", "", cmd::plan,
     "threads for the search; 0 = every core"},
    {"--top", '\0', "", value_kind::count, "", "", "", cmd::plan,
     "K: layouts to print, best first"},
};

/// "{A100-SXM4-80GB,...}": the presets' names, for --help and the shell completions.
template <class Presets>
std::string preset_choices(const Presets& presets) {
  std::string out;
  for (const auto& p : presets) {
    out += out.empty() ? "{" : ",";
    out += std::string(p.name);
  }
  return out + "}";
}

}  // namespace

std::uint32_t command_bit(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::uint32_t>, 13> bits{{
      {"sweep", cmd::sweep},
      {"explain", cmd::explain},
      {"check", cmd::check},
      {"schema", cmd::schema},
      {"model", cmd::model},
      {"calibrate", cmd::calibrate},
      {"hardware", cmd::hardware},
      {"collective", cmd::collective},
      {"step", cmd::step},
      {"plan", cmd::plan},
      {"convert", cmd::convert},
      {"completion", cmd::completion},
      {"manpage", cmd::manpage},
  }};
  for (const auto& [command, bit] : bits) {
    if (command == name) {
      return bit;
    }
  }
  return 0;
}

std::span<const flag_spec> flag_specs() { return flags; }

namespace {

/// The rows' indices by name, sorted at compile time: every command looks up each of its flags
/// at start-up, which a scan of the table made 4% of `tpcost sweep`'s instructions.
constexpr auto by_name = [] {
  std::array<std::uint16_t, std::size(flags)> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::uint16_t>(i);
  }
  std::sort(out.begin(), out.end(),
            [](std::uint16_t a, std::uint16_t b) { return flags[a].name < flags[b].name; });
  return out;
}();

}  // namespace

const flag_spec* find_flag(std::string_view name) {
  const auto it =
      std::lower_bound(by_name.begin(), by_name.end(), name,
                       [](std::uint16_t i, std::string_view n) { return flags[i].name < n; });
  if (it != by_name.end() && flags[*it].name == name) {
    return &flags[*it];
  }
  for (const auto& f : flags) {  // an old name (--batch, --ranks): rare
    for (std::string_view rest = f.old_names; !rest.empty();) {
      const auto comma = rest.find(',');
      if (rest.substr(0, comma) == name) {
        return &f;
      }
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  return nullptr;
}

std::string cli_names(const flag_spec& spec) {
  std::string out =
      spec.short_name == '\0' ? std::string() : std::string{'-', spec.short_name, ','};
  out += spec.name;
  if (!spec.old_names.empty()) {
    out += ',';
    out += spec.old_names;
  }
  return out;
}

std::string value_name(const flag_spec& spec) {
  if (!spec.value_name.empty()) {
    return std::string(spec.value_name);
  }
  switch (spec.kind) {
    case value_kind::count:
    case value_kind::node_size:
    case value_kind::degrees:
      return "N";
    case value_kind::count_or_auto:
      return "N|auto";
    case value_kind::bandwidth:
      return "BANDWIDTH";
    case value_kind::flop_rate:
      return "FLOP/S";
    case value_kind::duration:
      return "TIME";
    case value_kind::byte_size:
      return "SIZE";
    case value_kind::dtype:
      return "DTYPE";
    case value_kind::open_fraction:
    case value_kind::share:
    case value_kind::fraction:
      return "FRACTION";
    case value_kind::positive:
      return "X";
    case value_kind::zero_stage:
      return "{0,1,2,3}";
    case value_kind::choice: {
      std::string out = "{";
      for (const char c : spec.choices) {
        out += c == '|' ? ',' : c;
      }
      return out + "}";
    }
    case value_kind::gpu_preset:
      return preset_choices(gpu_presets);
    case value_kind::interconnect_preset:
      return preset_choices(interconnect_presets);
    case value_kind::model_preset:
      return preset_choices(model_presets);
    case value_kind::profile_path:
    case value_kind::hf_config_path:
      return "FILE";
    case value_kind::boolean:
      return "";
    case value_kind::text:
      break;
  }
  return "TEXT";
}

std::string flag_names(std::string_view long_name) {
  const auto* spec = find_flag(long_name);
  if (spec == nullptr || spec->short_name == '\0' || spec->name != long_name) {
    return std::string(long_name);
  }
  return std::string{'-', spec->short_name, ','} + std::string(long_name);
}

}  // namespace tpcost::cli
