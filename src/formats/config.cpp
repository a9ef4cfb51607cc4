#include "formats/config.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tpcost/base/degree_list.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/suggest.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/io/hf_config.hpp"
#include "tpcost/io/profile_json.hpp"
#include "tpcost/layer/tensor_parallel.hpp"

namespace tpcost::cli {

namespace {

using json = nlohmann::json;

// The config format. Sections group keys by what they describe; a key's flag has the same
// meaning as on the command line. Keys without a flag are read by one command (checks).
constexpr std::array<config_key, 112> keys{{
    {"/$schema", "", value_kind::text, "the JSON Schema this file follows (ignored by tpcost)", ""},
    {"/name", "", value_kind::text, "a name for reports, e.g. \"GPT-3 175B on DGX A100\"", ""},
    {"/description", "", value_kind::text, "free text (ignored by tpcost)", ""},
    {"/model/name", "--model", value_kind::text,
     "model preset (tpcost model list): every dimension for step and plan; h, s and heads for "
     "the per-layer commands",
     ""},
    {"/model/hf_config", "--hf-config", value_kind::hf_config_path,
     "a Hugging Face config.json instead of a preset, relative to this file's directory", ""},
    {"/model/arch", "--arch", value_kind::choice,
     "conventions: gpt (biases, LayerNorm, tied, GeLU MLP) or llama (no biases, RMSNorm, untied, "
     "SwiGLU) (step, plan)",
     "gpt|llama"},
    {"/model/layers", "--layers", value_kind::count, "L: transformer layers (step, plan)", ""},
    {"/model/hidden", "--hidden", value_kind::count,
     "h: hidden size (default: the model's, else 8192)", ""},
    {"/model/seq", "--seq", value_kind::count,
     "s: sequence length, tokens (default: the model's, else 2048)", ""},
    {"/model/heads", "--heads", value_kind::count,
     "a: attention heads, for activation memory (default: h/128)", ""},
    {"/model/kv_heads", "--kv-heads", value_kind::count,
     "key/value heads (GQA; default: heads) (step, plan)", ""},
    {"/model/hidden_dropout", "--hidden-dropout", value_kind::fraction,
     "hidden dropout probability (Megatron --hidden-dropout; 0 keeps no masks) (step, plan)", ""},
    {"/model/attention_dropout", "--attention-dropout", value_kind::fraction,
     "attention dropout probability (Megatron --attention-dropout) (step, plan)", ""},
    {"/model/head_dim", "--head-dim", value_kind::count,
     "per-head width of queries, keys and values (Megatron --kv-channels, HF head_dim; "
     "default: hidden/heads) (step, plan)",
     ""},
    {"/model/ffn", "--ffn", value_kind::count, "MLP inner size (default 4h) (step, plan)", ""},
    {"/model/vocab", "--vocab", value_kind::count, "V: vocabulary size (step, plan)", ""},
    {"/model/experts", "--experts", value_kind::count,
     "E: routed experts per MoE layer (Megatron --num-experts) (step, plan)", ""},
    {"/model/top_k", "--top-k", value_kind::count,
     "k: routed experts each token visits (Megatron --moe-router-topk) (step, plan)", ""},
    {"/model/expert_ffn", "--expert-ffn", value_kind::count,
     "inner size of one routed expert (Megatron --moe-ffn-hidden-size) (step, plan)", ""},
    {"/model/shared_expert_ffn", "--shared-expert-ffn", value_kind::count,
     "inner size of all shared experts together (Megatron "
     "--moe-shared-expert-intermediate-size) (step, plan)",
     ""},
    {"/model/moe_dense_layers", "--moe-dense-layers", value_kind::count,
     "leading layers with a dense MLP (DeepSeek first_k_dense_replace; leave out for none) "
     "(step, plan)",
     ""},
    {"/model/moe_layer_freq", "--moe-layer-freq", value_kind::count,
     "after the dense layers, every k-th layer has experts (Megatron --moe-layer-freq k) (step, "
     "plan)",
     ""},
    {"/model/q_lora_rank", "--q-lora-rank", value_kind::count,
     "MLA: the query latent (Megatron --q-lora-rank, HF q_lora_rank; leave out for queries "
     "projected from h) (step, plan)",
     ""},
    {"/model/kv_lora_rank", "--kv-lora-rank", value_kind::count,
     "MLA: the key/value latent; makes the attention Multi-head Latent Attention (Megatron "
     "--kv-lora-rank) (step, plan)",
     ""},
    {"/model/qk_nope_head_dim", "--qk-nope-head-dim", value_kind::count,
     "MLA: per head, the query/key part without positions (Megatron --qk-head-dim) (step, plan)",
     ""},
    {"/model/qk_rope_head_dim", "--qk-rope-head-dim", value_kind::count,
     "MLA: per head, the query/key part with rotary positions (Megatron --qk-pos-emb-head-dim) "
     "(step, plan)",
     ""},
    {"/model/v_head_dim", "--v-head-dim", value_kind::count,
     "MLA: per head, the value width (Megatron --v-head-dim) (step, plan)", ""},
    {"/model/mtp_layers", "--mtp-layers", value_kind::count,
     "multi-token prediction modules (Megatron --mtp-num-layers, DeepSeek-V3 1) (step, plan)", ""},
    {"/model/sliding_window", "--sliding-window", value_kind::count,
     "sliding-window attention: keys per query (HF sliding_window; GPT-OSS 128)", ""},
    {"/model/attention_chunk", "--attention-chunk", value_kind::count,
     "chunked attention: the chunk a query attends within (HF attention_chunk_size; Llama 4 "
     "8192)",
     ""},
    {"/model/window_full_every", "--window-full-every", value_kind::count,
     "with a window or chunk, every G-th layer full attention (GPT-OSS 2, Llama 4 4)", ""},
    {"/batch/micro_batch", "--micro-batch", value_kind::count, "b: micro-batch size, sequences",
     ""},
    {"/batch/global_batch", "--global-batch", value_kind::count,
     "G: sequences per optimizer step (step, plan)", ""},
    {"/hardware/gpu", "--gpu", value_kind::gpu_preset,
     "GPU preset (tpcost hardware list): P, the intra-node link, GPUs per node; the other "
     "hardware keys override it",
     ""},
    {"/hardware/interconnect", "--interconnect", value_kind::interconnect_preset,
     "inter-node link preset (tpcost hardware list)", ""},
    {"/hardware/interconnect_file", "--interconnect-file", value_kind::profile_path,
     "interconnect profile written by tpcost calibrate --out, relative to this file's "
     "directory; replaces the link it measured",
     ""},
    {"/hardware/dtype", "--dtype", value_kind::dtype,
     "d: element type (default: bf16 with a GPU preset, else fp32)", ""},
    {"/hardware/flops", "--flops", value_kind::flop_rate,
     "P: per-GPU compute rate (default: the GPU preset's dense peak for dtype)", ""},
    {"/hardware/memory", "--memory", value_kind::byte_size,
     "HBM capacity per GPU, e.g. \"80GiB\" (step; default: the GPU preset's)", ""},
    {"/hardware/memory_bandwidth", "--memory-bandwidth", value_kind::bandwidth,
     "HBM bandwidth per GPU (step; default: the GPU preset's)", ""},
    {"/hardware/matmul_efficiency", "--matmul-efficiency", value_kind::share,
     "achievable share of the BF16 peak for large matmuls (step; default: the GPU "
     "generation's, e.g. 0.75 A100, 0.73 H100)",
     ""},
    {"/hardware/attention_efficiency", "--attention-efficiency", value_kind::share,
     "achievable share of the attention rate's peak for the fused attention kernel, on the "
     "FLOPs it runs (step; default: the GPU's, e.g. 0.31 H100)",
     ""},
    {"/hardware/memory_efficiency", "--memory-efficiency", value_kind::share,
     "achievable share of HBM bandwidth for element-wise kernels (step; default: the GPU "
     "generation's, 0.66)",
     ""},
    {"/hardware/bandwidth", "--bandwidth", value_kind::bandwidth,
     "B: per-GPU bandwidth; the intra-node link of the alpha-beta collectives", ""},
    {"/hardware/gpus_per_node", "--gpus-per-node", value_kind::node_size,
     "GPUs per node (default: the GPU preset's, else 8)", ""},
    {"/hardware/intra_bandwidth", "--intra-bandwidth", value_kind::bandwidth,
     "intra-node link per GPU and direction", ""},
    {"/hardware/intra_latency", "--intra-latency", value_kind::duration,
     "intra-node latency per ring step", ""},
    {"/hardware/inter_bandwidth", "--inter-bandwidth", value_kind::bandwidth,
     "inter-node link per GPU and direction", ""},
    {"/hardware/inter_latency", "--inter-latency", value_kind::duration,
     "inter-node latency per ring step", ""},
    {"/parallel/tp", "--tp", value_kind::degrees, "t: TP degree (a list for sweep)", ""},
    {"/parallel/pp", "--pp", value_kind::count, "p: pipeline stages (step)", ""},
    {"/parallel/dp", "--dp", value_kind::count, "d: data-parallel replicas (step)", ""},
    {"/parallel/cp", "--cp", value_kind::count,
     "cp: context-parallel degree, the sequence split over cp ranks; s must divide by 2*cp "
     "(step, check's step rules)",
     ""},
    {"/parallel/cp_comm_type", "--cp-comm-type", value_kind::choice,
     "how CP ranks exchange keys and values, Megatron's --cp-comm-type (step)",
     "p2p|all_gather|a2a|a2a+p2p"},
    {"/parallel/hierarchical_cp_sizes", "--hierarchical-cp-sizes", value_kind::text,
     "a2a+p2p: \"A,B\", the a2a group and the p2p ring, A*B = cp (Megatron "
     "--hierarchical-context-parallel-sizes) (step)",
     ""},
    {"/parallel/ep", "--ep", value_kind::count,
     "EP: expert-parallel degree, folded over the t*cp*d ranks of a stage; divides the experts "
     "(step)",
     ""},
    {"/parallel/etp", "--etp", value_kind::count,
     "ETP: expert tensor-parallel degree; EP*ETP divides t*cp*d (step)", ""},
    {"/options/moe_token_dispatcher", "--moe-token-dispatcher", value_kind::choice,
     "how tokens reach their experts, Megatron's --moe-token-dispatcher-type (step)",
     "alltoall|flex|allgather"},
    {"/options/overlap_moe_expert_parallel_comm", "--overlap-moe-expert-parallel-comm",
     value_kind::boolean, "hide the MoE all-to-alls behind another micro-batch's compute (step)",
     ""},
    {"/options/moe_load_imbalance", "--moe-load-imbalance", value_kind::positive,
     "the busiest GPU's expert tokens over the balanced share, >= 1 (step)", ""},
    {"/options/moe_expert_capacity_factor", "--moe-expert-capacity-factor", value_kind::positive,
     "drop tokens beyond this many times an expert's balanced share (step; default dropless)", ""},
    {"/parallel/vpp", "--vpp", value_kind::count, "v: interleaved model chunks per GPU (step)", ""},
    {"/parallel/pp_layout", "--pp-layout", value_kind::text,
     "uneven pipeline stages: first=N,last=M or Megatron's --pipeline-model-parallel-layout "
     "string, e.g. \"Et*7|(t*8|)*14t*7L\" (step)",
     ""},
    {"/parallel/account_for_embedding_in_pipeline_split",
     "--account-for-embedding-in-pipeline-split", value_kind::boolean,
     "the embedding counts as a layer of the first stage in the split (Megatron-Core) (step)", ""},
    {"/parallel/account_for_loss_in_pipeline_split", "--account-for-loss-in-pipeline-split",
     value_kind::boolean,
     "the output layer and loss count as a layer of the last stage in the split (Megatron-Core) "
     "(step)",
     ""},
    {"/parallel/gpus", "--gpus", value_kind::count, "N: GPUs in the job (step, plan)", ""},
    {"/parallel/dp_replicas", "--dp-replicas", value_kind::count,
     "HSDP: N groups of d/N DP ranks, ZeRO sharded within each, gradient shards all-reduced "
     "across them (torchtitan data_parallel_replicate_degree, Megatron "
     "--num-distributed-optimizer-instances) (step)",
     ""},
    {"/options/collective", "--collective", value_kind::choice,
     "collective algorithm (default: auto with a preset or profile, else article)",
     "article|seed|ring|tree|hierarchical|auto"},
    {"/options/bandwidth_kind", "--bandwidth-kind", value_kind::choice,
     "with collective article: what bandwidth is (algbw, the article's, or nccl-tests busbw)",
     "algbw|busbw"},
    {"/options/sp", "--sp", value_kind::boolean, "sequence parallelism (Megatron-SP)", ""},
    {"/options/no_sp", "--no-sp", value_kind::boolean,
     "no sequence parallelism, where the stack would turn it on (step)", ""},
    {"/options/recompute", "--recompute", value_kind::choice,
     "activation recomputation: full reruns the forward in the backward; selective reruns the "
     "attention core (step and check's step rules only)",
     "none|selective|full"},
    {"/options/recompute_modules", "--recompute-modules", value_kind::text,
     "with recompute selective: the modules it reruns, a comma list of core_attn, mlp, moe, "
     "moe_act, layernorm, mla_up_proj, shared_experts (Megatron-Core's recompute_modules) (step)",
     ""},
    {"/options/recompute_method", "--recompute-method", value_kind::choice,
     "with recompute full: uniform (units of recompute_num_layers layers) or block (only that "
     "many layers per model chunk) (step)",
     "uniform|block"},
    {"/options/recompute_num_layers", "--recompute-num-layers", value_kind::count,
     "with recompute full: layers per unit (uniform) or recomputed layers per model chunk "
     "(block) (step)",
     ""},
    {"/options/cpu_offloading_num_layers", "--cpu-offloading-num-layers", value_kind::count,
     "layers whose activations Megatron's cpu_offloading keeps on the host; the PCIe copies are "
     "not costed (step)",
     ""},
    {"/options/overlap", "--overlap", value_kind::fraction,
     "f: the share of min(T_calc, T_comm) hidden by overlap (0 serial, 1 max)", ""},
    {"/options/comm_dtype", "--comm-dtype", value_kind::dtype, "dtype on the wire (default: dtype)",
     ""},
    {"/options/zero", "--zero", value_kind::zero_stage,
     "ZeRO stage 0..3, the distributed optimizer (step)", ""},
    {"/options/mfu_flops", "--mfu-flops", value_kind::choice,
     "model FLOPs behind MFU: full (the s*s attention scores) or megatron (Megatron-LM's count, "
     "causal attention halved) (step, plan, the step rules)",
     "full|megatron"},
    {"/options/attention", "--attention", value_kind::choice,
     "attention kernel: fused (FlashAttention: no s*s scores kept) or unfused (Megatron-LM 2021); "
     "the step's compute time and memory (step, plan, the step rules)",
     "fused|unfused"},
    {"/options/precision", "--precision", value_kind::choice,
     "the linear layers' recipe as Transformer Engine runs it (fp8 = fp8-delayed); attention "
     "and logits stay BF16 (step)",
     "bf16|fp8|fp8-current|fp8-blockwise|mxfp8|nvfp4"},
    {"/options/fp8_attention", "--fp8-attention", value_kind::boolean,
     "the attention core in FP8 too (Megatron --fp8-dot-product-attention) (step)", ""},
    {"/options/fp8_param_gather", "--fp8-param-gather", value_kind::boolean,
     "parameters stored in FP8, no BF16 copy (Megatron --fp8-param-gather) (step)", ""},
    {"/options/stack", "--stack", value_kind::choice,
     "software stack profile: how the framework runs the step, each choice cited "
     "(docs/stacks.md) (step, plan, the step rules)",
     "megatron-core|megatron-2021|deepspeed|fsdp2|megatron-bridge"},
    {"/options/tp_comm_overlap", "--tp-comm-overlap", value_kind::boolean,
     "Megatron-Core's --tp-comm-overlap (step, plan)", ""},
    {"/options/overlap_grad_reduce", "--overlap-grad-reduce", value_kind::boolean,
     "Megatron-Core's --overlap-grad-reduce (step, plan)", ""},
    {"/options/overlap_param_gather", "--overlap-param-gather", value_kind::boolean,
     "Megatron-Core's --overlap-param-gather (step, plan)", ""},
    {"/options/grad_reduce_in_bf16", "--grad-reduce-in-bf16", value_kind::boolean,
     "Megatron-Core's --grad-reduce-in-bf16 (step, plan)", ""},
    {"/options/offload_optimizer", "--offload-optimizer", value_kind::boolean,
     "DeepSpeed's offload_optimizer: gradients and optimizer states in host memory (step, plan)",
     ""},
    {"/options/offload_param", "--offload-param", value_kind::boolean,
     "DeepSpeed's offload_param (ZeRO-3): the weights in host memory (step, plan)", ""},
    {"/options/no_overlap_p2p_communication", "--no-overlap-p2p-communication", value_kind::boolean,
     "Megatron-Core's --no-overlap-p2p-communication (step, plan)", ""},
    {"/options/torch_compile", "--torch-compile", value_kind::boolean,
     "torchtitan's [compile] enable: torch.compile the model, priced with the compiled kernels' "
     "efficiencies (--stack fsdp2) (step, plan)",
     ""},
    {"/options/no_torch_compile", "--no-torch-compile", value_kind::boolean,
     "torchtitan's PyTorch eager kernels, its default (--stack fsdp2) (step, plan)", ""},
    {"/options/use_precision_aware_optimizer", "--use-precision-aware-optimizer",
     value_kind::boolean,
     "Megatron-Core's --use-precision-aware-optimizer: the dtypes below set the states (step, "
     "plan)",
     ""},
    {"/options/main_grads_dtype", "--main-grads-dtype", value_kind::choice,
     "with the precision-aware optimizer, the gradient buffer's dtype (step, plan)", "fp32|bf16"},
    {"/options/main_params_dtype", "--main-params-dtype", value_kind::choice,
     "with the precision-aware optimizer, the master weights' dtype (step, plan)", "fp32|fp16"},
    {"/options/exp_avg_dtype", "--exp-avg-dtype", value_kind::choice,
     "with the precision-aware optimizer, Adam's first moment's dtype (step, plan)",
     "fp32|fp16|bf16|fp8"},
    {"/options/exp_avg_sq_dtype", "--exp-avg-sq-dtype", value_kind::choice,
     "with the precision-aware optimizer, Adam's second moment's dtype (step, plan)",
     "fp32|fp16|bf16|fp8"},
    {"/options/tp_overlap", "--tp-overlap", value_kind::fraction,
     "share of the TP collectives hidden behind compute (step)", ""},
    {"/options/dp_overlap", "--dp-overlap", value_kind::fraction,
     "share of the DP gradient sync hidden behind the last backward (step)", ""},
    {"/source/format", "", value_kind::text,
     "the format tpcost convert read (megatron-lm-script, megatron-lm-log, megatron-bridge-yaml, "
     "torchtitan-toml, deepspeed-json); informational",
     ""},
    {"/source/file", "", value_kind::text, "the file tpcost convert read; informational", ""},
    {"/source/framework", "", value_kind::text,
     "the training framework the file is for (megatron-core, deepspeed, fsdp2); convert also "
     "writes it to /options/stack, which the step reads",
     ""},
    {"/checks/min_efficiency", "--min-efficiency", value_kind::open_fraction,
     "rule: E(t) >= this (also the sweep footer's target)", ""},
    {"/checks/max_ratio", "", value_kind::positive, "rule: R(t) <= this", ""},
    {"/checks/tp_within_half_critical", "", value_kind::boolean,
     "rule: t <= t*/2 (the article's guidance for E around 70%)", ""},
    {"/checks/tp_within_node", "", value_kind::boolean,
     "rule: t <= GPUs per node (hardware.gpus_per_node, the GPU preset's, or 8)", ""},
    {"/checks/min_utilisation", "", value_kind::open_fraction,
     "rule: utilisation mu >= this (one layer)", ""},
    {"/checks/min_mfu", "", value_kind::open_fraction,
     "rule: the whole step's model FLOPs utilisation >= this (needs the step keys)", ""},
    {"/checks/min_memory_headroom", "", value_kind::byte_size,
     "rule: HBM capacity minus the fullest stage's memory >= this, e.g. \"4GiB\"; 0: the "
     "layout fits (needs the step keys)",
     ""},
    {"/checks/max_step_time", "", value_kind::duration,
     "rule: the predicted step time <= this, e.g. \"12s\" (needs the step keys)", ""},
}};

/// The values of a choice key, e.g. {"article", "ring", ...}.
std::vector<std::string> choices_of(const config_key& key) {
  std::vector<std::string> out;
  std::string_view rest = key.choices;
  while (!rest.empty()) {
    const auto bar = rest.find('|');
    out.emplace_back(rest.substr(0, bar));
    rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
  }
  return out;
}

std::string_view expected_text(value_kind kind) {
  switch (kind) {
    case value_kind::count:
      return "a whole number in 1..2147483647";
    case value_kind::degrees:
      return "a TP degree >= 1, or a degree list string such as \"1..64\"";
    case value_kind::bandwidth:
      return "a number of bytes/s > 0, or a string such as \"600GB/s\"";
    case value_kind::flop_rate:
      return "a number of FLOP/s > 0, or a string such as \"989.4TFLOP/s\"";
    case value_kind::dtype:
      return "a dtype name (fp32, tf32, bf16, fp16, fp8, fp64) or a byte count 1..16";
    case value_kind::duration:
      return "a number of seconds >= 0, or a string such as \"3us\"";
    case value_kind::open_fraction:
      return "a number strictly between 0 and 1";
    case value_kind::share:
      return "a number in (0, 1]";
    case value_kind::byte_size:
      return "a number of bytes >= 0, or a string such as \"80GiB\"";
    case value_kind::zero_stage:
      return "a ZeRO stage: 0, 1, 2 or 3";
    case value_kind::fraction:
      return "a number in [0, 1]";
    case value_kind::positive:
      return "a number > 0";
    case value_kind::node_size:
      return "a whole number of GPUs in 1..1048576";
    case value_kind::boolean:
      return "true or false";
    case value_kind::text:
      return "a non-empty string";
    case value_kind::choice:
      return "one of the listed values";
    case value_kind::gpu_preset:
      return "a GPU preset name (tpcost hardware list)";
    case value_kind::interconnect_preset:
      return "an interconnect preset name (tpcost hardware list)";
    case value_kind::profile_path:
      return "the path of a profile written by tpcost calibrate --out";
    case value_kind::hf_config_path:
      return "the path of a Hugging Face config.json";
  }
  return "?";
}

std::string_view type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

/// The value as it appears in the file, shortened for a one-line message.
/// A value as an error quotes it after its type ("found an array [1,2,3]"): a scalar or a
/// short flat list as written (cut at a UTF-8 boundary), anything bigger by its size ("found an
/// array of 20 items"), so that an error never serialises a large part of an untrusted file.
std::string shown(const json& v) {
  constexpr std::size_t max_shown_members = 16;
  const bool flat_and_short =
      !v.is_structured() ||
      (v.size() <= max_shown_members &&
       std::none_of(v.begin(), v.end(), [](const json& m) { return m.is_structured(); }));
  if (!flat_and_short) {
    return "of " + std::to_string(v.size()) + (v.is_array() ? " items" : " keys");
  }
  std::string s = v.dump();
  if (s.size() > 40) {
    s = s.substr(0, tpcost::detail::quoted_prefix(s, 37)) + "...";
  }
  return s;
}

[[noreturn]] void fail_at(const std::string& source, std::string_view pointer,
                          const std::string& detail) {
  throw config_error(fmt::format("{}: {}", source, pointer), detail);
}

[[noreturn]] void wrong_value(const std::string& source, const config_key& key, const json& v) {
  if (key.kind == value_kind::choice) {
    std::string hint;
    if (v.is_string()) {
      if (const auto best = closest_match(v.get<std::string>(), choices_of(key))) {
        hint = fmt::format("; did you mean \"{}\"?", *best);
      }
    }
    fail_at(source, key.pointer,
            fmt::format("found {} {}; expected one of {}{}", type_name(v), shown(v), key.choices,
                        hint));
  }
  fail_at(source, key.pointer,
          fmt::format("found {} {}; expected {}", type_name(v), shown(v), expected_text(key.kind)));
}

/// A relative path (a profile, a config.json) read from the config at `source` is relative to
/// the config's directory (a config from stdin: to the working directory).
std::string resolve_beside(const std::string& source, const std::string& path) {
  const std::filesystem::path p(path);
  if (source == "-" || p.is_absolute()) {
    return path;
  }
  const auto dir = std::filesystem::path(source).parent_path();
  return dir.empty() ? path : (dir / p).lexically_normal().string();
}

/// The shortest text that reads back as `v` (e.g. 600000000000.0 -> "600000000000").
std::string number_text(const json& v) {
  if (v.is_number_integer()) {
    return std::to_string(v.get<std::int64_t>());
  }
  if (v.is_number_unsigned()) {
    return std::to_string(v.get<std::uint64_t>());
  }
  return fmt::format("{}", v.get<double>());
}

/// A quantity >= 0: a number in SI units, or a string with a unit that `parse` reads (it throws
/// naming the field for a malformed one) and that must not be negative.
template <class Parse>
std::string non_negative_text(const std::string& source, const config_key& key, const json& v,
                              std::string_view expected, const Parse& parse,
                              std::string_view si_unit) {
  if (v.is_number() && v.get<double>() >= 0.0) {
    return number_text(v) + std::string(si_unit);  // a JSON number is SI
  }
  if (!v.is_string()) {
    wrong_value(source, key, v);
  }
  const auto& text = v.get<std::string>();
  if (parse(text) < 0.0) {
    fail_at(source, key.pointer, fmt::format("'{}' is negative; expected {}", text, expected));
  }
  return text;
}

/// Checks `v` against `key` and returns the text its flag takes.
std::string to_flag_text(const std::string& source, const config_key& key, const json& v) {
  const std::string field = source + ": " + std::string(key.pointer);
  switch (key.kind) {
    case value_kind::count: {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
          v.get<std::int64_t>() > max_dimension) {
        wrong_value(source, key, v);
      }
      return number_text(v);
    }
    case value_kind::degrees: {
      if (v.is_number_integer() && v.get<std::int64_t>() >= 1 &&
          v.get<std::int64_t>() <= max_tp_degree) {
        return number_text(v);
      }
      if (v.is_string()) {
        (void)parse_degree_list(v.get<std::string>(), field);
        return v.get<std::string>();
      }
      wrong_value(source, key, v);
    }
    case value_kind::bandwidth:
    case value_kind::flop_rate: {
      // A JSON number is SI (B/s, FLOP/s); the flag's text takes it with its unit.
      if (v.is_number() && v.get<double>() > 0.0) {
        return number_text(v) + (key.kind == value_kind::bandwidth ? "B/s" : "FLOP/s");
      }
      if (v.is_string()) {
        const auto& s = v.get<std::string>();
        (void)(key.kind == value_kind::bandwidth ? parse_bandwidth(s, field).value()
                                                 : parse_flop_rate(s, field).value());
        return s;
      }
      wrong_value(source, key, v);
    }
    case value_kind::dtype: {
      if (v.is_number_integer() && v.get<std::int64_t>() >= 1 && v.get<std::int64_t>() <= 16) {
        return number_text(v);
      }
      if (v.is_string()) {
        (void)parse_dtype(v.get<std::string>(), field);
        return v.get<std::string>();
      }
      wrong_value(source, key, v);
    }
    case value_kind::duration:
      return non_negative_text(
          source, key, v, "a duration >= 0, e.g. 3us",
          [&](const std::string& t) { return parse_duration(t, field).value(); }, "s");
    case value_kind::byte_size:
      return non_negative_text(
          source, key, v, "a size >= 0, e.g. 4GiB",
          [&](const std::string& t) { return parse_bytes(t, field).value(); }, "B");
    case value_kind::open_fraction: {
      if (!v.is_number() || !(v.get<double>() > 0.0 && v.get<double>() < 1.0)) {
        wrong_value(source, key, v);
      }
      return number_text(v);
    }
    case value_kind::share: {
      if (!v.is_number() || !(v.get<double>() > 0.0 && v.get<double>() <= 1.0)) {
        wrong_value(source, key, v);
      }
      return number_text(v);
    }
    case value_kind::zero_stage: {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 3) {
        wrong_value(source, key, v);
      }
      return number_text(v);
    }
    case value_kind::fraction: {
      if (!v.is_number() || !(v.get<double>() >= 0.0 && v.get<double>() <= 1.0)) {
        wrong_value(source, key, v);
      }
      return number_text(v);
    }
    case value_kind::node_size: {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
          v.get<std::int64_t>() > max_gpus_per_node) {
        wrong_value(source, key, v);
      }
      return number_text(v);
    }
    case value_kind::choice: {
      if (v.is_string()) {
        const auto choices = choices_of(key);
        if (std::find(choices.begin(), choices.end(), v.get<std::string>()) != choices.end()) {
          return v.get<std::string>();
        }
      }
      wrong_value(source, key, v);
    }
    case value_kind::gpu_preset:
    case value_kind::interconnect_preset: {
      if (!v.is_string() || v.get<std::string>().empty()) {
        wrong_value(source, key, v);
      }
      const auto& name = v.get<std::string>();
      try {
        if (key.kind == value_kind::gpu_preset) {
          (void)gpu_preset_by_name(name, field);
        } else {
          (void)interconnect_preset_by_name(name, field);
        }
      } catch (const invalid_spec& e) {
        std::string hint;
        if (key.kind == value_kind::gpu_preset && find_interconnect_preset(name) != nullptr) {
          hint = "; did you mean /hardware/interconnect?";
        } else if (key.kind == value_kind::interconnect_preset &&
                   find_gpu_preset(name) != nullptr) {
          hint = "; did you mean /hardware/gpu?";
        }
        throw config_error(e.field(), e.detail() + hint);
      }
      return name;
    }
    case value_kind::profile_path: {
      if (!v.is_string() || v.get<std::string>().empty()) {
        wrong_value(source, key, v);
      }
      // Read now, so a missing or malformed profile is an error of the config that names it.
      const auto path = resolve_beside(source, v.get<std::string>());
      try {
        (void)primary_profile(read_profile_file(path, field), field);
      } catch (const invalid_spec& e) {
        throw config_error(e.field(), e.detail());
      }
      return path;
    }
    case value_kind::hf_config_path: {
      if (!v.is_string() || v.get<std::string>().empty()) {
        wrong_value(source, key, v);
      }
      // Read now, so a missing or malformed config.json is an error of the config naming it.
      const auto path = resolve_beside(source, v.get<std::string>());
      try {
        (void)io::load_hf_config(path, field);
      } catch (const invalid_spec& e) {
        throw config_error(e.field(), e.detail());
      }
      return path;
    }
    case value_kind::positive: {
      if (!v.is_number() || !(v.get<double>() > 0.0)) {
        wrong_value(source, key, v);
      }
      return number_text(v);
    }
    case value_kind::boolean: {
      if (!v.is_boolean()) {
        wrong_value(source, key, v);
      }
      return v.get<bool>() ? "true" : "false";
    }
    case value_kind::text: {
      if (!v.is_string() || v.get<std::string>().empty()) {
        wrong_value(source, key, v);
      }
      return v.get<std::string>();
    }
  }
  wrong_value(source, key, v);
}

/// Every pointer a config may contain: the keys and the sections that hold them.
std::vector<std::string> known_pointers() {
  std::vector<std::string> out;
  for (const auto& key : keys) {
    for (auto slash = key.pointer.find('/', 1); slash != std::string_view::npos;
         slash = key.pointer.find('/', slash + 1)) {
      std::string section(key.pointer.substr(0, slash));
      if (std::find(out.begin(), out.end(), section) == out.end()) {
        out.push_back(std::move(section));
      }
    }
    out.emplace_back(key.pointer);
  }
  return out;
}

/// "Did you mean ...?" for an unknown key: the same key name in another section, else the
/// closest name in the same section, else the closest name anywhere.
std::string suggestion_for(std::string_view pointer) {
  const auto parent = [](std::string_view p) { return p.substr(0, p.rfind('/') + 1); };
  const auto leaf = [](std::string_view p) { return p.substr(p.rfind('/') + 1); };
  const auto all = known_pointers();
  for (const auto& p : all) {
    if (leaf(p) == leaf(pointer)) {
      return fmt::format("; did you mean {}?", p);
    }
  }
  std::vector<std::string> siblings;  // leaf names of the same section
  for (const auto& p : all) {
    if (parent(p) == parent(pointer)) {
      siblings.emplace_back(leaf(p));
    }
  }
  if (const auto best = closest_match(leaf(pointer), siblings)) {
    return fmt::format("; did you mean {}{}?", parent(pointer), *best);
  }
  std::vector<std::string> leaves;
  for (const auto& p : all) {
    leaves.emplace_back(leaf(p));
  }
  if (const auto best = closest_match(leaf(pointer), leaves)) {
    for (const auto& p : all) {
      if (leaf(p) == *best) {
        return fmt::format("; did you mean {}?", p);
      }
    }
  }
  return {};
}

bool is_section(std::string_view pointer) {
  for (const auto& key : keys) {
    if (key.pointer.size() > pointer.size() && key.pointer.substr(0, pointer.size()) == pointer &&
        key.pointer[pointer.size()] == '/') {
      return true;
    }
  }
  return false;
}

const config_key* find_key(std::string_view pointer) {
  for (const auto& key : keys) {
    if (key.pointer == pointer) {
      return &key;
    }
  }
  return nullptr;
}

/// Escapes a member name for a JSON pointer (RFC 6901).
std::string pointer_token(const std::string& name) {
  std::string out;
  for (const char c : name) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

void walk(const std::string& source, const json& node, const std::string& pointer,
          config_document& doc) {
  for (const auto& [name, value] : node.items()) {
    const std::string child = pointer + "/" + pointer_token(name);
    if (const auto* key = find_key(child)) {
      std::string text = to_flag_text(source, *key, value);
      if (key->pointer == "/name") {
        doc.name = text;
      }
      doc.entries.push_back({key, std::move(text)});
    } else if (is_section(child)) {
      if (!value.is_object()) {
        fail_at(source, child,
                fmt::format("found {} {}; expected an object", type_name(value), shown(value)));
      }
      walk(source, value, child, doc);
    } else {
      fail_at(source, child, "unknown key" + suggestion_for(child));
    }
  }
}

/// 1-based line and column of byte `offset` in `text`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

/// Parses JSON, rejecting duplicate keys and deep nesting while parsing (nlohmann keeps the
/// last duplicate silently, which would hide a reviewer's mistake).
json parse_strict(std::string_view text, const std::string& source) {
  std::vector<std::set<std::string>> seen;
  std::vector<std::string> path;
  const auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > max_config_depth) {
      throw config_error(source, fmt::format("nesting deeper than {} levels; the format is two "
                                             "levels deep",
                                             max_config_depth));
    }
    switch (event) {
      case json::parse_event_t::object_start:
        seen.emplace_back();
        path.emplace_back();
        break;
      case json::parse_event_t::object_end:
        seen.pop_back();
        path.pop_back();
        break;
      case json::parse_event_t::key: {
        const auto name = parsed.get<std::string>();
        if (!seen.empty() && !seen.back().insert(name).second) {
          std::string pointer;
          for (std::size_t i = 0; i + 1 < path.size(); ++i) {
            pointer += '/';
            pointer += pointer_token(path[i]);
          }
          throw config_error(fmt::format("{}: {}/{}", source, pointer, pointer_token(name)),
                             "duplicate key; each key may appear once");
        }
        if (!path.empty()) {
          path.back() = name;
        }
        break;
      }
      default:
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), callback);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    const auto colon = what.find(": ", what.find("column"));
    const std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    std::string ascii;  // nlohmann quotes the bytes it read, which may not be UTF-8
    for (const char c : reason.substr(0, 160)) {
      const auto u = static_cast<unsigned char>(c);
      ascii += (u < 0x20 || u >= 0x7f) ? fmt::format("\\x{:02x}", u) : std::string(1, c);
    }
    throw config_error(fmt::format("{}:{}:{}", source, line, column), "malformed JSON: " + ascii);
  } catch (const json::out_of_range& e) {  // e.g. a number too large for a double
    throw config_error(source,
                       fmt::format("malformed JSON: {}", std::string(e.what()).substr(0, 160)));
  }
}

// --- JSON Schema generation --------------------------------------------------------------

std::string number_pattern() { return R"([+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?)"; }

/// A regex fragment matching `text` literally, in any ASCII case if `any_case` is set.
std::string regex_literal(std::string_view text, bool any_case) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (any_case && std::isalpha(u) != 0) {
      out += fmt::format("[{}{}]", static_cast<char>(std::tolower(u)),
                         static_cast<char>(std::toupper(u)));
    } else if (std::isalnum(u) == 0) {
      out += fmt::format("[{}]", c);  // '/', '.' and the like, taken literally
    } else {
      out += c;
    }
  }
  return out;
}

/// The strings parse.hpp accepts for a quantity with these unit stems and prefixes.
template <class Stems, class Prefixes = decltype(detail::magnitude_prefixes)>
std::string quantity_pattern(const Stems& stems,
                             const Prefixes& prefix_list = detail::magnitude_prefixes) {
  std::string prefixes;
  for (const auto& p : prefix_list) {
    if (!p.text.empty()) {
      prefixes += prefixes.empty() ? "" : "|";
      prefixes += p.text;
    }
  }
  std::string units;
  for (const auto& stem : stems) {
    if (!stem.text.empty()) {
      units += units.empty() ? "" : "|";
      units += regex_literal(stem.text, stem.case_insensitive);
    }
  }
  return fmt::format(R"(^\s*{}\s*({})?({})?\s*$)", number_pattern(), prefixes, units);
}

/// The names presets.hpp accepts for these presets: every name and alias, any case, with
/// '-', '_', ' ' and '.' anywhere (detail::normalise_preset_name).
template <class Presets>
json preset_schema(const Presets& presets) {
  std::string alternatives;
  std::string names;
  const auto add = [&](std::string_view name) {
    if (name.empty()) {
      return;
    }
    std::string pattern;
    for (const char c : detail::normalise_preset_name(name)) {
      pattern += regex_literal(std::string_view(&c, 1), true) + "[-_ .]*";
    }
    alternatives += fmt::format("{}{}", alternatives.empty() ? "" : "|", pattern);
  };
  for (const auto& p : presets) {
    add(p.name);
    for (const auto alias : p.aliases) {
      add(alias);
    }
    names += fmt::format("{}{}", names.empty() ? "" : ", ", p.name);
  }
  return {{"type", "string"},
          {"pattern", fmt::format("^[-_ .]*({})$", alternatives)},
          {"examples", json::array({std::string(presets.front().name)})},
          {"$comment", "case, '-', '_', ' ' and '.' are ignored; presets: " + names}};
}

json schema_for(const config_key& key) {
  json s;
  switch (key.kind) {
    case value_kind::count:
      s = {{"type", "integer"}, {"minimum", 1}, {"maximum", max_dimension}};
      break;
    case value_kind::degrees:
      s = {
          {"oneOf",
           {{{"type", "integer"}, {"minimum", 1}, {"maximum", max_tp_degree}},
            {{"type", "string"},
             {"pattern",
              R"(^\s*[0-9]+(\s*[.][.]\s*[0-9]+(:[+x][0-9]+)?)?(\s*,\s*[0-9]+(\s*[.][.]\s*[0-9]+(:[+x][0-9]+)?)?)*\s*$)"}}}}};
      break;
    case value_kind::bandwidth:
      s = {{"oneOf",
            {{{"type", "number"}, {"exclusiveMinimum", 0}},
             {{"type", "string"}, {"pattern", quantity_pattern(detail::bandwidth_stems)}}}}};
      break;
    case value_kind::flop_rate:
      s = {{"oneOf",
            {{{"type", "number"}, {"exclusiveMinimum", 0}},
             {{"type", "string"}, {"pattern", quantity_pattern(detail::flop_rate_stems)}}}}};
      break;
    case value_kind::dtype: {
      std::string names;
      for (const auto& n : detail::dtype_names) {
        names += names.empty() ? "" : "|";
        names += regex_literal(n.name, true);
      }
      s = {{"oneOf",
            {{{"type", "integer"}, {"minimum", 1}, {"maximum", 16}},
             {{"type", "string"},
              {"pattern", fmt::format(R"(^\s*({}|[1-9]|1[0-6])\s*$)", names)}}}}};
      break;
    }
    case value_kind::duration:
      s = {{"oneOf",
            {{{"type", "number"}, {"minimum", 0}},
             {{"type", "string"},
              {"pattern", quantity_pattern(detail::duration_stems, detail::time_prefixes)}}}}};
      break;
    case value_kind::byte_size:
      s = {{"oneOf",
            {{{"type", "number"}, {"minimum", 0}},
             {{"type", "string"}, {"pattern", quantity_pattern(detail::byte_stems)}}}}};
      break;
    case value_kind::open_fraction:
      s = {{"type", "number"}, {"exclusiveMinimum", 0}, {"exclusiveMaximum", 1}};
      break;
    case value_kind::share:
      s = {{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 1}};
      break;
    case value_kind::zero_stage:
      s = {{"type", "integer"}, {"minimum", 0}, {"maximum", 3}};
      break;
    case value_kind::fraction:
      s = {{"type", "number"}, {"minimum", 0}, {"maximum", 1}};
      break;
    case value_kind::node_size:
      s = {{"type", "integer"}, {"minimum", 1}, {"maximum", max_gpus_per_node}};
      break;
    case value_kind::choice:
      s = {{"type", "string"}, {"enum", choices_of(key)}};
      break;
    case value_kind::gpu_preset:
      s = preset_schema(gpu_presets);
      break;
    case value_kind::interconnect_preset:
      s = preset_schema(interconnect_presets);
      break;
    case value_kind::profile_path:
    case value_kind::hf_config_path:
      s = {{"type", "string"}, {"minLength", 1}};
      break;
    case value_kind::positive:
      s = {{"type", "number"}, {"exclusiveMinimum", 0}};
      break;
    case value_kind::boolean:
      s = {{"type", "boolean"}};
      break;
    case value_kind::text:
      s = {{"type", "string"}, {"minLength", 1}};
      break;
  }
  s["description"] =
      fmt::format("{}{}", key.help, key.flag.empty() ? "" : fmt::format(" (flag {})", key.flag));
  return s;
}

}  // namespace

std::span<const config_key> config_keys() { return keys; }

const config_entry* config_document::find(std::string_view pointer) const {
  for (const auto& e : entries) {
    if (e.key->pointer == pointer) {
      return &e;
    }
  }
  return nullptr;
}

config_document parse_config(std::string_view text, const std::string& source) {
  if (text.size() > max_config_bytes) {
    throw config_error(source, fmt::format("file is {} bytes; a config is at most {} bytes",
                                           text.size(), max_config_bytes));
  }
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    const auto [line, column] = line_column(text, nul);
    throw config_error(fmt::format("{}:{}:{}", source, line, column),
                       "malformed JSON: a NUL byte; a config is UTF-8 text");
  }
  if (detail::trim(text).empty()) {
    throw config_error(source,
                       "file is empty; expected a JSON object such as "
                       "{\"parallel\": {\"tp\": 8}}");
  }
  const json root = parse_strict(text, source);
  if (!root.is_object()) {
    throw config_error(source + ": /", fmt::format("found {} {}; expected a JSON object",
                                                   type_name(root), shown(root)));
  }
  config_document doc;
  doc.source = source;
  walk(source, root, "", doc);
  return doc;
}

namespace {
/// At most `limit` + 1 bytes of `in`: a device (/dev/zero) or an endless pipe is cut short
/// instead of filling memory, while a pipe or process substitution (<(...)) still works.
std::string read_at_most(std::istream& in, std::size_t limit) {
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}
}  // namespace

std::string read_config_text(const std::string& path) {
  std::string text;
  if (path == "-") {
    text = read_at_most(std::cin, max_config_bytes);
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      throw config_error(path_for_message(path), "cannot read the file (is it a directory?)");
    }
    if (const auto size = std::filesystem::file_size(path, ec); !ec && size > max_config_bytes) {
      throw config_error(
          path_for_message(path),
          fmt::format("file is {} bytes; a config is at most {} bytes", size, max_config_bytes));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      throw config_error(path_for_message(path), "cannot open the file");
    }
    text = read_at_most(in, max_config_bytes);
    if (in.bad()) {
      throw config_error(path_for_message(path), "cannot read the file");
    }
  }
  if (text.size() > max_config_bytes) {
    throw config_error(path_for_message(path),
                       fmt::format("more than {} bytes; a config is at most {} bytes",
                                   max_config_bytes, max_config_bytes));
  }
  return text;
}

config_document load_config(const std::string& path) {
  return parse_config(read_config_text(path), path);
}

std::string config_schema() {
  json schema = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", "https://github.com/tpcost/tpcost/schema/tpcost-config.schema.json"},
      {"title", "tpcost config"},
      {"description",
       "A training config for tpcost. Every key has the meaning of the flag it names; flags on "
       "the command line override the file. Generated by `tpcost schema`."},
      {"type", "object"},
      {"additionalProperties", false},
      {"properties", json::object()},
  };
  for (const auto& key : keys) {
    json* node = &schema;
    std::string_view rest = key.pointer.substr(1);
    while (true) {
      const auto slash = rest.find('/');
      const std::string name(rest.substr(0, slash));
      json& props = (*node)["properties"];
      if (slash == std::string_view::npos) {
        props[name] = schema_for(key);
        break;
      }
      if (!props.contains(name)) {
        props[name] = {
            {"type", "object"}, {"additionalProperties", false}, {"properties", json::object()}};
      }
      node = &props[name];
      rest = rest.substr(slash + 1);
    }
  }
  return schema.dump(2) + "\n";
}

}  // namespace tpcost::cli
