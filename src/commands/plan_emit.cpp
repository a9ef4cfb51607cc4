// `tpcost plan --emit`: the layout as a Megatron-LM launch, a Megatron-Bridge YAML override or a
// torchtitan job config, each in the form tpcost's reader of that format reads back
// (formats/megatron.cpp, formats/nemo_yaml.cpp, formats/torchtitan_toml.cpp).
#include "commands/plan_emit.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "tpcost/base/quote.hpp"
#include "tpcost/model/model_presets.hpp"
#include "tpcost/step/stack_profiles.hpp"

namespace tpcost::cli {

namespace {

/// --moe-token-dispatcher-type's value for `d` (Megatron-Core arguments.py).
const char* megatron_dispatcher_name(token_dispatcher d) {
  switch (d) {
    case token_dispatcher::all_to_all:
      return "alltoall";
    case token_dispatcher::deep_ep:
      return "flex";
    case token_dispatcher::all_gather:
      break;
  }
  return "allgather";
}

const char* name_of(emit_format f) {
  return f == emit_format::megatron ? "megatron"
         : f == emit_format::bridge ? "bridge"
                                    : "torchtitan";
}

[[noreturn]] void refuse(emit_format f, const std::string& what) {
  throw invalid_spec("--emit", std::string(name_of(f)) + ": " + what);
}

/// N = t·p·cp·d, and the torchrun split of it: whole nodes of `per_node` GPUs, or one node.
struct launch_size {
  std::int64_t gpus = 0, per_node = 0, nodes = 1;
};

launch_size launch_of(const plan_request& req, const plan_candidate& c) {
  const auto& p = c.par;
  launch_size l;
  l.gpus = p.tp * p.pp * p.dp * c.par.cp;
  const auto per_node = req.topology.gpus_per_node;
  const bool whole_nodes = per_node > 0 && l.gpus % per_node == 0;
  l.per_node = whole_nodes ? per_node : l.gpus;
  l.nodes = whole_nodes ? l.gpus / per_node : 1;
  return l;
}

/// The software plan priced the layout with must be what the file's reader gives: the stack the
/// format runs on, and no tpcost-only knob the format has no key for.
void check_software(emit_format f, const software_flags& s) {
  const std::string want = f == emit_format::torchtitan ? "fsdp2" : "megatron-core";
  const std::string stack(
      stack_profile_by_name(
          s.stack.stack.empty() ? default_stack_name : std::string_view(s.stack.stack), "--stack")
          .name);
  // megatron-bridge is Megatron-Core with the recipe's switches, which the file then writes.
  if (stack != want && !(want == "megatron-core" && stack == "megatron-bridge")) {
    refuse(f, fmt::format("plan priced the layout on the {} stack, and a {} file is costed on {}; "
                          "plan with --stack {}",
                          stack, name_of(f), want, want));
  }
  for (const auto& [text, flag] :
       {std::pair{&s.attention, "--attention"}, std::pair{&s.tp_overlap, "--tp-overlap"},
        std::pair{&s.dp_overlap, "--dp-overlap"}}) {
    if (!text->empty()) {
      refuse(f, fmt::format("{} is tpcost's own knob, which the file cannot carry (step would "
                            "cost it with the {} stack's default); plan without it",
                            flag, want));
    }
  }
  if (f == emit_format::torchtitan) {
    for (const auto& [on, flag] :
         {std::pair{s.stack.tp_comm_overlap, "--tp-comm-overlap"},
          std::pair{s.stack.overlap_grad_reduce, "--overlap-grad-reduce"},
          std::pair{s.stack.overlap_param_gather, "--overlap-param-gather"},
          std::pair{s.stack.grad_reduce_in_bf16, "--grad-reduce-in-bf16"},
          std::pair{s.stack.no_grad_accumulation_fusion, "--no-gradient-accumulation-fusion"},
          std::pair{s.stack.precision_aware_optimizer, "--use-precision-aware-optimizer"},
          std::pair{s.stack.cross_entropy_loss_fusion, "--cross-entropy-loss-fusion"},
          std::pair{!s.stack.cross_entropy_fusion_impl.empty(), "--cross-entropy-fusion-impl"}}) {
      if (on) {
        refuse(f, std::string(flag) + " is a Megatron-Core switch torchtitan has no key for");
      }
    }
  }
}

/// The linear layers' recipe plan priced every layout at (--precision), which the file must
/// carry. --dtype fp8 is --precision fp8 over FP8 "weights", which no format writes; the FP8
/// attention core (--fp8-attention) is not read back by any of tpcost's readers.
linear_precision emitted_precision(emit_format f, const plan_request& req,
                                   const emit_context& ctx) {
  const auto& opts = req.precision.options;
  if (ctx.dtype == "fp8" || ctx.dtype == "e4m3" || ctx.dtype == "e5m2") {
    refuse(f, fmt::format("--dtype {}: write the recipe as --precision fp8 with --dtype bf16 (the "
                          "weights and the wire stay 16-bit)",
                          ctx.dtype));
  }
  if (opts.fp8_attention) {
    refuse(f,
           "--fp8-attention: the FP8 attention core (Megatron --fp8-dot-product-attention) is "
           "not read back by tpcost's readers; plan without it");
  }
  if (opts.linear != linear_precision::bf16 && ctx.dtype != "bf16" && ctx.dtype != "fp16") {
    refuse(f, fmt::format("--precision {} over --dtype {}: the recipes run over bf16 or fp16",
                          to_string(opts.linear), ctx.dtype));
  }
  if (opts.fp8_param_gather && opts.linear == linear_precision::bf16) {
    refuse(f, "--fp8-param-gather without an FP8 recipe (--precision)");
  }
  return opts.linear;
}

// ---- Megatron-LM and Megatron-Bridge: one list of settings, two spellings ----

/// One setting: the ConfigContainer section and key it has in a Megatron-Bridge YAML and the
/// pretrain_gpt.py flag it has in a launch (either may be empty: not written in that form).
/// A value "true" is a bare flag in the launch; "false" is left out of it.
struct setting {
  std::string section, key, flag, value;
};

struct megatron_settings {
  std::vector<setting> list;

  void add(const char* section, const char* key, const char* flag, const std::string& value) {
    list.push_back({section, key, flag, value});
  }
  template <class T>
  void add(const char* section, const char* key, const char* flag, T value) {
    if constexpr (std::is_same_v<T, bool>) {
      add(section, key, flag, std::string(value ? "true" : "false"));
    } else {
      add(section, key, flag, fmt::format("{}", value));
    }
  }
};

/// Refuses the model features the Megatron readers do not read back yet.
void check_megatron_model(emit_format f, const transformer_spec& m) {
  if (m.mla.kv_lora_rank > 0) {
    refuse(f, "Multi-head Latent Attention is not written yet (--q-lora-rank, --kv-lora-rank ...)");
  }
  if (architecture_of(m) == architecture::custom) {
    refuse(f,
           "the model's architecture is neither gpt nor llama; the reader takes --swiglu as "
           "llama");
  }
  if (m.moe.experts > 0 && (m.moe.shared_experts > 0 || m.moe.dense_layers > 0 ||
                            m.moe.layer_freq != 1 || m.moe.shared_gate)) {
    refuse(f, "shared experts, dense leading layers and MoE layer frequencies are not written yet");
  }
  if (m.attention_window > 0 || m.attention_chunk > 0) {
    refuse(f, "windowed attention (--sliding-window, --attention-chunk) is not written yet");
  }
}

/// The model's shape: sizes, the padded vocabulary, the gpt or llama architecture, dropout,
/// MTP; refuses a vocabulary Megatron-LM would pad at `tp`.
void add_model_shape(megatron_settings& s, emit_format f, const transformer_spec& m,
                     std::int64_t tp) {
  s.add("model", "num_layers", "--num-layers", m.layers);
  s.add("model", "hidden_size", "--hidden-size", m.hidden);
  s.add("model", "ffn_hidden_size", "--ffn-hidden-size", m.ffn > 0 ? m.ffn : 4 * m.hidden);
  s.add("model", "num_attention_heads", "--num-attention-heads", m.heads);
  if (m.kv_heads > 0 && m.kv_heads != m.heads) {
    s.add("", "", "--group-query-attention", true);
    s.add("model", "num_query_groups", "--num-query-groups", m.kv_heads);
  }
  if (m.head_dim > 0) {
    s.add("model", "kv_channels", "--kv-channels", m.head_dim);
  }
  s.add("model", "seq_length", "--seq-length", m.seq);
  s.add("", "", "--max-position-embeddings", m.seq);
  s.add("dataset", "sequence_length", "", m.seq);  // ConfigContainer checks it equals the model's
  // The reader pads the vocabulary to a multiple of make_vocab_size_divisible_by times t.
  std::int64_t divisor = 1;
  for (std::int64_t d = 128; d > 1; d /= 2) {
    if (m.vocab % (d * tp) == 0) {
      divisor = d;
      break;
    }
  }
  if (m.vocab % (divisor * tp) != 0) {
    refuse(f, fmt::format("a vocabulary of {} is not a multiple of t = {}: Megatron-LM pads it",
                          m.vocab, tp));
  }
  s.add("model", "vocab_size", "--vocab-size", m.vocab);
  s.add("model", "make_vocab_size_divisible_by", "--make-vocab-size-divisible-by", divisor);
  const bool llama = architecture_of(m) == architecture::llama;
  s.add("", "", "--swiglu", llama);
  s.add("model", "gated_linear_unit", "", llama);
  s.add("model", "normalization", "--normalization", llama ? "RMSNorm" : "LayerNorm");
  s.add("", "", "--disable-bias-linear", llama);
  s.add("model", "add_bias_linear", "", !llama);
  s.add("model", "position_embedding_type", "--position-embedding-type",
        llama ? "rope" : "learned_absolute");
  s.add("", "", "--untie-embeddings-and-output-weights", llama);
  s.add("model", "share_embeddings_and_output_weights", "", !llama);
  if (!m.hidden_dropout) {
    s.add("model", "hidden_dropout", "--hidden-dropout", 0);
  }
  if (!m.attention_dropout) {
    s.add("model", "attention_dropout", "--attention-dropout", 0);
  }
  if (m.mtp_layers > 0) {
    s.add("model", "mtp_num_layers", "--mtp-num-layers", m.mtp_layers);
  }
}

/// The experts, their dispatcher and their parallelism.
void add_experts(megatron_settings& s, const plan_request& req, const parallel_config& p) {
  const auto& moe = req.model.moe;
  s.add("model", "num_moe_experts", "--num-experts", moe.experts);
  s.add("model", "moe_router_topk", "--moe-router-topk", moe.top_k);
  s.add("model", "moe_ffn_hidden_size", "--moe-ffn-hidden-size", moe.expert_ffn);
  if (moe.routing.groups > 1) {
    s.add("model", "moe_router_num_groups", "--moe-router-num-groups", moe.routing.groups);
    s.add("model", "moe_router_group_topk", "--moe-router-group-topk",
          moe.routing.groups_per_token);
  }
  s.add("model", "moe_token_dispatcher_type", "--moe-token-dispatcher-type",
        megatron_dispatcher_name(req.options.experts.dispatcher));
  s.add("model", "overlap_moe_expert_parallel_comm", "--overlap-moe-expert-parallel-comm",
        req.options.experts.overlap_comm);
  s.add("model", "expert_model_parallel_size", "--expert-model-parallel-size", p.ep);
  s.add("model", "expert_tensor_parallel_size", "--expert-tensor-parallel-size", p.etp);
}

/// TP, PP with its stages, CP and SP.
void add_layout(megatron_settings& s, const plan_request& req, const plan_candidate& c) {
  const auto& p = c.par;
  s.add("model", "tensor_model_parallel_size", "--tensor-model-parallel-size", p.tp);
  s.add("model", "pipeline_model_parallel_size", "--pipeline-model-parallel-size", p.pp);
  if (p.vpp > 1) {
    s.add("model", "virtual_pipeline_model_parallel_size", "--num-virtual-stages-per-pipeline-rank",
          p.vpp);
  }
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0) {
    s.add("model", "num_layers_in_first_pipeline_stage", "--decoder-first-pipeline-num-layers",
          p.first_stage_layers);
    s.add("model", "num_layers_in_last_pipeline_stage", "--decoder-last-pipeline-num-layers",
          p.last_stage_layers);
  }
  if (p.embedding_in_split) {
    s.add("model", "account_for_embedding_in_pipeline_split",
          "--account-for-embedding-in-pipeline-split", true);
  }
  if (p.loss_in_split) {
    s.add("model", "account_for_loss_in_pipeline_split", "--account-for-loss-in-pipeline-split",
          true);
  }
  s.add("model", "context_parallel_size", "", c.par.cp);
  if (c.par.cp > 1) {
    s.add("", "", "--context-parallel-size", c.par.cp);
    s.add("model", "cp_comm_type", "--cp-comm-type", to_string(req.options.cp.comm));
  }
  s.add("model", "sequence_parallel", "--sequence-parallel", p.sequence_parallel);
}

/// Activation recomputation: the granularity, and the modules of a selective one when they
/// are not the default; and fine-grained activation offloading, whatever the recomputation.
void add_recompute(megatron_settings& s, emit_format f, const plan_request& req,
                   const plan_candidate& c) {
  const auto& p = c.par;
  if (const auto offload = req.options.recompute.offload_modules; offload != 0U) {
    // TransformerConfig.fine_grained_activation_offloading and offload_modules (core_v0.16.0),
    // a list as recompute_modules (parse_offload_modules reads it back).
    auto list = offload_modules_to_string(offload);
    if (f == emit_format::bridge) {
      std::string items;
      for (const char ch : list) {
        items += ch == ',' ? std::string(", ") : std::string(1, ch);
      }
      list = "[" + items + "]";
    } else {
      std::replace(list.begin(), list.end(), ',', ' ');
    }
    s.add("model", "fine_grained_activation_offloading", "--fine-grained-activation-offloading",
          true);
    s.add("model", "offload_modules", "--offload-modules", list);
  }
  if (p.recompute == recompute_mode::none) {
    return;
  }
  s.add("model", "recompute_granularity", "--recompute-granularity", to_string(p.recompute));
  if (p.recompute == recompute_mode::full) {  // the method and layers plan priced
    const auto recipe = recompute_recipe_of(req, c);
    s.add("model", "recompute_method", "--recompute-method", std::string(to_string(recipe.method)));
    s.add("model", "recompute_num_layers", "--recompute-num-layers", recipe.num_layers);
  }
  const auto modules = req.options.recompute.modules;
  if (p.recompute == recompute_mode::selective && modules != recompute_recipe{}.modules) {
    // A list: the script's words after the flag, the YAML's flow sequence (as the readers
    // read them: parse_recompute_modules).
    auto list = recompute_modules_to_string(modules, ' ');
    if (f == emit_format::bridge) {
      std::string items;
      for (const char ch : list) {
        items += ch == ' ' ? std::string(", ") : std::string(1, ch);
      }
      list = "[" + items + "]";
    }
    s.add("model", "recompute_modules", "--recompute-modules", list);
  }
}

/// The batch, and the sharding of the optimizer (ZeRO-1) or of more (Megatron FSDP).
void add_batch_and_sharding(megatron_settings& s, const parallel_config& p) {
  s.add("train", "micro_batch_size", "--micro-batch-size", p.micro_batch);
  s.add("train", "global_batch_size", "--global-batch-size", p.global_batch);
  const bool fsdp = p.zero == zero_stage::gradients || p.zero == zero_stage::parameters;
  s.add("ddp", "use_distributed_optimizer", "--use-distributed-optimizer",
        p.zero == zero_stage::optimizer);
  s.add("optimizer", "use_distributed_optimizer", "", p.zero == zero_stage::optimizer);
  if (fsdp) {
    s.add("ddp", "use_megatron_fsdp", "--use-megatron-fsdp", true);
    s.add("ddp", "data_parallel_sharding_strategy", "--data-parallel-sharding-strategy",
          p.zero == zero_stage::gradients ? "optim_grads" : "optim_grads_params");
  }
}

/// The Megatron-Core switches plan priced with (or the Megatron-Bridge recipe's), the
/// optimizer's dtypes and the 16-bit dtype; `priced`, the step options plan ran.
void add_stack_switches(megatron_settings& s, const parallel_config& p, const emit_context& ctx,
                        const step_options& priced) {
  const auto& st = ctx.software.stack;
  const auto& profile = stack_profile_by_name(
      st.stack.empty() ? default_stack_name : std::string_view(st.stack), "--stack");
  // --stack megatron-bridge: the recipe's switches (stack_profiles.hpp), written out.
  const bool recipe = profile.name == "megatron-bridge";
  // TE's userbuffers run only under SP (Megatron-LM asserts it; the core prices none without).
  if ((st.tp_comm_overlap || recipe) && p.sequence_parallel && p.tp > 1) {
    s.add("comm_overlap", "tp_comm_overlap", "--tp-comm-overlap", true);
  }
  if (st.overlap_grad_reduce || recipe) {
    s.add("ddp", "overlap_grad_reduce", "--overlap-grad-reduce", true);
  }
  if (st.overlap_param_gather || recipe) {
    s.add("ddp", "overlap_param_gather", "--overlap-param-gather", true);
  }
  if (st.grad_reduce_in_bf16 || recipe) {
    s.add("", "", "--grad-reduce-in-bf16", true);
    s.add("ddp", "grad_reduce_in_fp32", "", false);  // the reader inverts it (nemo_yaml.cpp)
  }
  // Gradient accumulation outside the GEMM: by flag, or where the stack's profile runs it so
  // for this layout (the recipe's Megatron-FSDP configurations, stack_profiles.hpp).
  if (st.no_grad_accumulation_fusion || !accumulation_fused(options_of(profile), p.zero)) {
    s.add("", "", "--no-gradient-accumulation-fusion", true);
    s.add("model", "gradient_accumulation_fusion", "", false);  // the reader inverts it
  }
  if (st.precision_aware_optimizer) {
    s.add("optimizer", "use_precision_aware_optimizer", "--use-precision-aware-optimizer", true);
  }
  // The cross entropy plan priced (the profile's, or the flags'); a Bridge YAML says false
  // where it is unfused, as Megatron-Bridge's GPTModelProvider would fuse it.
  const auto cross_entropy = priced.cross_entropy;
  if (cross_entropy != cross_entropy_kernel::unfused) {
    s.add("model", "cross_entropy_loss_fusion", "--cross-entropy-loss-fusion", true);
    s.add("model", "cross_entropy_fusion_impl", "--cross-entropy-fusion-impl",
          std::string(name_of(cross_entropy_kernel_names, cross_entropy)));
  } else {
    s.add("model", "cross_entropy_loss_fusion", "", false);  // the reader inverts it
  }
  for (const auto& [text, key, flag] :
       {std::tuple{&st.main_grads_dtype, "main_grads_dtype", "--main-grads-dtype"},
        std::tuple{&st.main_params_dtype, "main_params_dtype", "--main-params-dtype"},
        std::tuple{&st.exp_avg_dtype, "exp_avg_dtype", "--exp-avg-dtype"},
        std::tuple{&st.exp_avg_sq_dtype, "exp_avg_sq_dtype", "--exp-avg-sq-dtype"}}) {
    if (!text->empty()) {
      s.add("optimizer", key, flag, *text);
    }
  }
  if (ctx.dtype == "bf16" || ctx.dtype == "fp16") {
    s.add("", "", ("--" + ctx.dtype).c_str(), true);
  }
}

/// The recipe, as Megatron-LM's flags spell it (megatron/training/arguments.py at core_v0.15.0,
/// _add_transformer_engine_args): --fp8-format {e4m3,hybrid} (dest fp8) with --fp8-recipe
/// {tensorwise,delayed,mxfp8,blockwise}; --fp4-format e2m1 (dest fp4) with --fp4-recipe nvfp4;
/// --fp8-param-gather. The Megatron reader maps them back (formats/megatron.cpp); MXFP8 is E4M3
/// throughout, as Megatron-Bridge's bf16_with_mxfp8_mixed sets it.
void add_linear_recipe(megatron_settings& s, emit_format f, const plan_request& req,
                       const emit_context& ctx) {
  const auto precision = emitted_precision(f, req, ctx);
  if (precision == linear_precision::nvfp4) {
    if (req.precision.options.fp8_param_gather) {
      refuse(f,
             "--fp8-param-gather with nvfp4: the reader reads --fp8-param-gather with an FP8 "
             "recipe only");
    }
    s.add("", "", "--fp4-format", "e2m1");
    s.add("", "", "--fp4-recipe", "nvfp4");
  } else if (precision != linear_precision::bf16) {
    const char* fp8_recipe = precision == linear_precision::fp8_delayed     ? "delayed"
                             : precision == linear_precision::fp8_current   ? "tensorwise"
                             : precision == linear_precision::fp8_blockwise ? "blockwise"
                                                                            : "mxfp8";
    s.add("", "", "--fp8-format", precision == linear_precision::mxfp8 ? "e4m3" : "hybrid");
    s.add("", "", "--fp8-recipe", fp8_recipe);
    s.add("", "", "--fp8-param-gather", req.precision.options.fp8_param_gather);
  }
}

/// The model's shape, the batch, the layout and the Megatron-Core switches plan priced it with,
/// as the Megatron reader maps them (formats/megatron.cpp).
megatron_settings megatron_settings_of(emit_format f, const plan_request& req,
                                       const plan_candidate& c, const emit_context& ctx) {
  const auto& p = c.par;
  check_megatron_model(f, req.model);
  check_software(f, ctx.software);
  // The settings in the order the launch and each YAML section list them.
  megatron_settings s;
  add_model_shape(s, f, req.model, p.tp);
  if (req.model.moe.experts > 0) {
    add_experts(s, req, p);
  }
  add_layout(s, req, c);
  add_recompute(s, f, req, c);
  add_batch_and_sharding(s, p);
  add_stack_switches(s, p, ctx, req.options);
  add_linear_recipe(s, f, req, ctx);
  return s;
}

/// Megatron-Bridge's mixed-precision recipe for the 16-bit dtype and the linear recipe: its
/// name and whether it sets fp8_param_gather (megatron/bridge/training/mixed_precision.py at
/// v0.6.0, 51885cf: bf16_mixed, bf16_with_fp8_delayed_scaling_mixed (fp8 hybrid, delayed,
/// fp8_param_gather True), bf16_with_fp8_current_scaling_mixed (hybrid, tensorwise),
/// bf16_with_fp8_subchannel_scaling_mixed (hybrid, blockwise), bf16_with_mxfp8_mixed (e4m3,
/// mxfp8, fp8_param_gather True), bf16_with_nvfp4_mixed (fp4 e2m1, nvfp4; bf16 only), and
/// the fp16_ forms of the FP8 ones). nemo_yaml.cpp reads the names back.
std::pair<std::string, bool> bridge_recipe(linear_precision p, const std::string& dtype) {
  switch (p) {
    case linear_precision::bf16:
      return {dtype + "_mixed", false};
    case linear_precision::fp8_delayed:
      return {dtype + "_with_fp8_delayed_scaling_mixed", true};
    case linear_precision::fp8_current:
      return {dtype + "_with_fp8_current_scaling_mixed", false};
    case linear_precision::fp8_blockwise:
      return {dtype + "_with_fp8_subchannel_scaling_mixed", false};
    case linear_precision::mxfp8:
      return {dtype + "_with_mxfp8_mixed", true};
    case linear_precision::nvfp4:
      if (dtype != "bf16") {
        refuse(emit_format::bridge,
               "nvfp4 over fp16: Megatron-Bridge names bf16_with_nvfp4_mixed "
               "only; plan with --dtype bf16");
      }
      return {"bf16_with_nvfp4_mixed", false};
  }
  return {};
}

std::string megatron_launch(const plan_request& req, const plan_candidate& c,
                            const emit_context& ctx) {
  const auto s = megatron_settings_of(emit_format::megatron, req, c, ctx);
  const auto l = launch_of(req, c);
  std::vector<std::string> a;
  for (const auto& e : s.list) {
    if (e.flag.empty() || e.value == "false") {
      continue;
    }
    a.push_back(e.value == "true" ? e.flag : e.flag + " " + e.value);
  }
  std::string out =
      "#!/bin/bash\n"
      "# Written by tpcost plan --emit megatron: the model, the batch and the layout only.\n"
      "# Not set here: the data (--data-path, --split), the tokenizer (--tokenizer-type and its\n"
      "# files), checkpointing (--save, --load, --save-interval), the learning-rate schedule\n"
      "# (--lr, --train-iters ...), logging, and the launcher's rendezvous for more than one "
      "node.\n";
  out += fmt::format("torchrun --nproc_per_node {} --nnodes {} pretrain_gpt.py \\\n", l.per_node,
                     l.nodes);
  for (std::size_t i = 0; i < a.size(); ++i) {
    out += "    " + a[i] + (i + 1 < a.size() ? " \\\n" : "\n");
  }
  return out;
}

std::string bridge_yaml(const plan_request& req, const plan_candidate& c, const emit_context& ctx) {
  const auto s = megatron_settings_of(emit_format::bridge, req, c, ctx);
  const auto l = launch_of(req, c);
  const auto& p = c.par;
  std::string out = fmt::format(
      "# Written by tpcost plan --emit bridge: a Megatron-Bridge ConfigContainer override with\n"
      "# the model's shape, the batch and the layout only, for N = t*p*cp*d = {}*{}*{}*{} = {} "
      "GPUs\n"
      "# (torchrun --nproc_per_node {} --nnodes {}; the world size is the launcher's, so give\n"
      "# tpcost step --from this file --gpus {}).\n"
      "# Not set here: the recipe it overrides, the data (dataset: paths, blend, split), the\n"
      "# tokenizer (tokenizer: type and files), checkpointing (checkpoint:), the optimizer's\n"
      "# learning rate and schedule (optimizer:, scheduler:, train.train_iters), logging.\n",
      p.tp, p.pp, c.par.cp, p.dp, l.gpus, l.per_node, l.nodes, l.gpus);
  for (const char* section : {"model", "train", "dataset", "ddp", "optimizer", "comm_overlap"}) {
    std::string body;
    for (const auto& e : s.list) {
      if (e.section == section) {
        body += fmt::format("  {}: {}\n", e.key, e.value);
      }
    }
    if (!body.empty()) {
      out += std::string(section) + ":\n" + body;
    }
  }
  if (ctx.dtype == "bf16" || ctx.dtype == "fp16") {
    const auto precision = req.precision.options.linear;
    const auto [name, param_gather] = bridge_recipe(precision, ctx.dtype);
    if (param_gather != req.precision.options.fp8_param_gather) {
      refuse(
          emit_format::bridge,
          fmt::format("the recipe {} sets fp8_param_gather {} (mixed_precision.py at v0.6.0), "
                      "and plan priced it {}; plan {} --fp8-param-gather",
                      name, param_gather ? "True" : "False",
                      param_gather ? "without it" : "with it", param_gather ? "with" : "without"));
    }
    out += "mixed_precision: " + name + "\n";
  }
  return out;
}

// ---- torchtitan v0.2.2 ----

/// torchtitan v0.2.2's model names and flavours (torchtitan/models/*/__init__.py at 73a0e69) of
/// tpcost's presets, as formats/torchtitan_toml.cpp maps them back.
struct torchtitan_model {
  std::string_view preset, name, flavor;
};
constexpr std::array<torchtitan_model, 7> torchtitan_models{{
    {"llama-3-8b", "llama3", "8B"},
    {"llama-3-70b", "llama3", "70B"},
    {"llama-3.1-405b", "llama3", "405B"},
    {"qwen3-30b-a3b", "qwen3", "30B-A3B"},
    {"qwen3-235b-a22b", "qwen3", "235B-A22B"},
    {"deepseek-v2", "deepseek_v3", "236B"},
    {"deepseek-v3", "deepseek_v3", "671B"},
}};

/// Every field of the two specs but the sequence length (the TOML's training.seq_len).
bool same_but_seq(transformer_spec a, transformer_spec b) {
  const auto fields = [](const transformer_spec& s) {
    const auto& e = s.moe;
    const auto& l = s.mla;
    return std::tuple{s.layers,
                      s.hidden,
                      s.heads,
                      s.kv_heads,
                      s.ffn,
                      s.gated_mlp,
                      s.vocab,
                      s.linear_biases,
                      s.norm,
                      s.positions,
                      s.tied_embeddings,
                      s.head_dim,
                      l.q_lora_rank,
                      l.kv_lora_rank,
                      l.qk_nope_head_dim,
                      l.qk_rope_head_dim,
                      l.v_head_dim,
                      e.experts,
                      e.top_k,
                      e.expert_ffn,
                      e.shared_experts,
                      e.shared_ffn,
                      e.dense_layers,
                      e.layer_freq,
                      e.layer_offset,
                      e.shared_gate,
                      e.routing.groups,
                      e.routing.groups_per_token,
                      s.mtp_layers,
                      s.hidden_dropout,
                      s.attention_dropout,
                      s.attention_window,
                      s.attention_chunk,
                      s.window_full_every};
  };
  return fields(a) == fields(b);
}

/// The torchtitan flavour of the model: a preset, unmodified but for the sequence length.
const torchtitan_model& torchtitan_model_of(const transformer_spec& m) {
  for (const auto& t : torchtitan_models) {
    if (same_but_seq(m, model_preset_named(t.preset, "--model").spec)) {
      return t;
    }
  }
  std::string names;
  for (const auto& t : torchtitan_models) {
    names += (names.empty() ? "" : ", ") + std::string(t.preset);
  }
  refuse(emit_format::torchtitan,
         "the model is not one torchtitan v0.2.2 names as a flavour that the reader maps to "
         "a preset (" +
             names + ", unmodified but for --seq)");
}

/// The parameter dtype and the linear recipe, refused where the TOML has no key for them.
linear_precision torchtitan_precision(const plan_request& req, const emit_context& ctx) {
  constexpr auto f = emit_format::torchtitan;
  if (ctx.dtype != "bf16" && ctx.dtype != "fp32") {
    refuse(f, fmt::format("--dtype {}: training.mixed_precision_param is bfloat16 or float32",
                          ctx.dtype));
  }
  // torchao's float8 and MX linears through the model converters (torchtitan v0.2.2, 73a0e69:
  // torchtitan/components/quantization/float8.py and mx.py register "quantize.linear.float8"
  // and "quantize.linear.mx"; job_config.py's Float8Linear.recipe_name is tensorwise, rowwise
  // or rowwise_with_gw_hp, MXLinear.recipe_name defaults to "mxfp8_cublas"). Tensorwise is
  // dynamic per-tensor scaling: tpcost's fp8-current. formats/torchtitan_toml.cpp reads them.
  const auto precision = emitted_precision(f, req, ctx);
  if (precision == linear_precision::fp8_delayed || precision == linear_precision::fp8_blockwise ||
      precision == linear_precision::nvfp4) {
    refuse(f, fmt::format("--precision {}: torchtitan v0.2.2's converters have no {} (float8: "
                          "tensorwise, rowwise; mx: mxfp8); plan with --precision fp8-current "
                          "or mxfp8",
                          to_string(precision),
                          precision == linear_precision::fp8_delayed     ? "delayed scaling"
                          : precision == linear_precision::fp8_blockwise ? "block scaling"
                                                                         : "NVFP4 recipe"));
  }
  if (req.precision.options.fp8_param_gather) {
    refuse(f,
           "--fp8-param-gather: the reader does not read float8's enable_fsdp_float8_all_gather");
  }
  return precision;
}

/// Refuses a layout that torchtitan cannot run, or that its reader would cost otherwise.
void check_torchtitan_layout(const plan_request& req, const plan_candidate& c) {
  constexpr auto f = emit_format::torchtitan;
  const auto& p = c.par;
  if (p.tp > 1 && !p.sequence_parallel) {
    refuse(f,
           "sp=off with t > 1: torchtitan's TP plan always shards the norms' activations "
           "(sequence parallelism); plan --compare with sp=on");
  }
  if (p.vpp > 1) {
    refuse(f, fmt::format("v = {}: interleaved stages (pipeline_parallel_schedule "
                          "Interleaved1F1B with pipeline_parallel_layers_per_stage) are costed "
                          "by the reader as 1F1B",
                          p.vpp));
  }
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0 || p.embedding_in_split ||
      p.loss_in_split) {
    refuse(f,
           "uneven end stages (first=, last=): the reader has no key for them "
           "(pipeline_parallel_first_stage_less_layers weighs the embedding instead)");
  }
  if (p.zero == zero_stage::optimizer || p.zero == zero_stage::gradients) {
    refuse(f, fmt::format("ZeRO-{}: FSDP2 shards parameters, gradients and optimizer state "
                          "(ZeRO-3) or, with data_parallel_shard_degree = 1, nothing (ZeRO-0)",
                          static_cast<int>(p.zero)));
  }
  if (p.zero == zero_stage::none && c.par.cp > 1) {
    refuse(f, "ZeRO-0 with cp > 1: torchtitan applies FSDP whenever context parallelism is on");
  }
  if (p.dp == 1 && c.par.cp == 1 && p.zero == zero_stage::parameters) {
    refuse(f, "ZeRO-3 with d = 1: nothing to shard over, and the reader costs d = 1 as ZeRO-0");
  }
  if (p.pp > 1 && micro_batches(p) < p.pp) {
    refuse(f, fmt::format("{} micro-batches on {} stages: torchtitan v0.2.2 needs at least one "
                          "a stage (torchtitan/distributed/pipeline_parallel.py)",
                          micro_batches(p), p.pp));
  }
  if (p.recompute == recompute_mode::selective &&
      req.options.recompute.modules != recompute_recipe{}.modules) {
    refuse(f, fmt::format("--recompute-modules {}: torchtitan's selective recomputation is its "
                          "own per-op policy, not Megatron-Core's modules",
                          recompute_modules_to_string(req.options.recompute.modules)));
  }
  if (req.options.recompute.offload_modules != 0U) {
    refuse(f, "--fine-grained-activation-offloading is Megatron-Core's; torchtitan has none");
  }
  if (const auto recipe = recompute_recipe_of(req, c);
      p.recompute == recompute_mode::full && !recipe.full_is_default()) {
    refuse(f, fmt::format("--recompute-method {} --recompute-num-layers {}: torchtitan's full "
                          "activation checkpointing wraps every block alone",
                          to_string(recipe.method), recipe.num_layers));
  }
  if (c.par.cp > 1 && req.options.cp.comm != cp_comm_type::p2p &&
      req.options.cp.comm != cp_comm_type::all_gather) {
    refuse(f, fmt::format("--cp-comm-type {}: context_parallel_rotate_method is allgather or "
                          "alltoall (the ring, p2p)",
                          to_string(req.options.cp.comm)));
  }
}

/// Refuses the MoE settings torchtitan has no key for.
void check_torchtitan_experts(const plan_request& req, const plan_candidate& c) {
  constexpr auto f = emit_format::torchtitan;
  const auto& p = c.par;
  if (req.options.experts.dispatcher == token_dispatcher::deep_ep) {
    refuse(f,
           "--moe-token-dispatcher flex: the reader does not read "
           "expert_parallel_comm_backend = \"deepep\"");
  }
  if (req.options.experts.dispatcher == token_dispatcher::all_gather) {
    refuse(f, "--moe-token-dispatcher allgather: torchtitan's MoE dispatches with all-to-alls");
  }
  if (req.options.experts.overlap_comm) {
    refuse(f, "--overlap-moe-expert-parallel-comm has no torchtitan key");
  }
  if (p.ep == 1 && p.etp != 1) {
    refuse(f, fmt::format("etp = {} with ep = 1: expert_tensor_parallel_degree applies with "
                          "expert parallelism only",
                          p.etp));
  }
  if (p.ep > 1 && p.etp != 1 && p.etp != p.tp) {
    refuse(f, fmt::format("etp = {}: torchtitan v0.2.2 runs the experts with "
                          "expert_tensor_parallel_degree 1 or t = {} (parallel_dims.py)",
                          p.etp, p.tp));
  }
}

/// The job config's [parallelism] table.
std::string torchtitan_parallelism(const plan_request& req, const plan_candidate& c) {
  const auto& p = c.par;
  const bool shard = p.zero == zero_stage::parameters;
  std::string out = fmt::format(
      "\n[parallelism]\ndata_parallel_replicate_degree = {}\ndata_parallel_shard_degree = {}\n"
      "tensor_parallel_degree = {}\npipeline_parallel_degree = {}\n",
      shard ? 1 : p.dp, shard ? p.dp : 1, p.tp, p.pp);
  if (p.pp > 1) {
    out += fmt::format(
        "pipeline_parallel_schedule = \"1F1B\"\npipeline_parallel_microbatch_size = {}\n"
        "pipeline_parallel_first_stage_less_layers = 0\n"
        "pipeline_parallel_last_stage_less_layers = 0\n",
        p.micro_batch);
  }
  out += fmt::format("context_parallel_degree = {}\n", c.par.cp);
  if (c.par.cp > 1) {
    out += fmt::format("context_parallel_rotate_method = \"{}\"\n",
                       req.options.cp.comm == cp_comm_type::all_gather ? "allgather" : "alltoall");
  }
  if (req.model.moe.experts > 0) {
    out += fmt::format("expert_parallel_degree = {}\nexpert_tensor_parallel_degree = {}\n", p.ep,
                       p.etp);
  }
  return out;
}

std::string torchtitan_toml(const plan_request& req, const plan_candidate& c,
                            const emit_context& ctx) {
  const auto& m = req.model;
  const auto& p = c.par;
  // The checks in this order: the first refusal is the one plan prints.
  const torchtitan_model& model = torchtitan_model_of(m);
  check_software(emit_format::torchtitan, ctx.software);
  const auto precision = torchtitan_precision(req, ctx);
  check_torchtitan_layout(req, c);
  if (m.moe.experts > 0) {
    check_torchtitan_experts(req, c);
  }
  const auto l = launch_of(req, c);
  std::string out = fmt::format(
      "# Written by tpcost plan --emit torchtitan: a torchtitan job config with the model, the\n"
      "# batch and the layout only, for N = t*p*cp*d = {}*{}*{}*{} = {} GPUs (torchrun\n"
      "# --nproc_per_node {} --nnodes {} -m torchtitan.train --job.config_file FILE).\n"
      "# For torchtitan v0.2.2 (73a0e69), its last release that reads a TOML job config: from\n"
      "# 9810191 (#2386, \"Config System Refactor: TOML to Python Dataclass Registry\") on, newer\n"
      "# releases take their configuration as Python dataclasses instead.\n"
      "# Not set here: the dataset (training.dataset, dataset_path), the tokenizer\n"
      "# (model.hf_assets_path), checkpointing ([checkpoint]), the optimizer and learning-rate\n"
      "# schedule ([optimizer], [lr_scheduler], training.steps), logging ([metrics]); compile\n"
      "# and async TP only when plan priced them (--torch-compile, --async-tp).\n",
      p.tp, p.pp, c.par.cp, p.dp, l.gpus, l.per_node, l.nodes);
  out += fmt::format("\n[model]\nname = \"{}\"\nflavor = \"{}\"\n", model.name, model.flavor);
  const char* converter = precision == linear_precision::fp8_current ? "quantize.linear.float8"
                          : precision == linear_precision::mxfp8     ? "quantize.linear.mx"
                                                                     : nullptr;
  if (converter != nullptr) {
    out += fmt::format("converters = [\"{}\"]\n", converter);
  }
  // local_batch_size is per DP rank and micro-batch, gradients accumulating up to
  // global_batch_size (torchtitan/train.py); under PP it is split into micro-batches of
  // pipeline_parallel_microbatch_size instead (torchtitan/distributed/pipeline_parallel.py).
  out += fmt::format(
      "\n[training]\nlocal_batch_size = {}\nglobal_batch_size = {}\nseq_len = {}\n"
      "mixed_precision_param = \"{}\"\n",
      p.pp > 1 ? p.micro_batch * micro_batches(p) : p.micro_batch, p.global_batch, m.seq,
      ctx.dtype == "bf16" ? "bfloat16" : "float32");
  out += torchtitan_parallelism(req, c);
  if (ctx.software.stack.async_tp && p.tp > 1) {  // plan priced it (--async-tp)
    out += "enable_async_tensor_parallel = true\n";
  }
  out += fmt::format("\n[activation_checkpoint]\nmode = \"{}\"\n", to_string(p.recompute));
  if (p.recompute == recompute_mode::selective) {
    out += "selective_ac_option = \"op\"\n";
  }
  if (converter != nullptr) {
    out += fmt::format("\n[{}]\nrecipe_name = \"{}\"\n", converter,
                       precision == linear_precision::mxfp8 ? "mxfp8_cublas" : "tensorwise");
  }
  if (ctx.software.stack.torch_compile) {  // plan priced the compiled kernels (job_config.py)
    out += "\n[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n";
  }
  return out;
}

}  // namespace

emit_format parse_emit_format(const std::string& text) {
  for (const auto f : {emit_format::megatron, emit_format::bridge, emit_format::torchtitan}) {
    if (text == name_of(f)) {
      return f;
    }
  }
  throw invalid_spec("--emit", quote_value(text) + ": expected megatron, bridge or torchtitan");
}

std::string emit_plan(emit_format format, const plan_request& req, const plan_candidate& c,
                      const emit_context& context) {
  switch (format) {
    case emit_format::megatron:
      return megatron_launch(req, c, context);
    case emit_format::bridge:
      return bridge_yaml(req, c, context);
    case emit_format::torchtitan:
      return torchtitan_toml(req, c, context);
  }
  return {};
}

bool emit_writes(emit_format format, const precision_options& p, const std::string& dtype) {
  if (p.fp8_attention ||
      (p.linear != linear_precision::bf16 && dtype != "bf16" && dtype != "fp16")) {
    return false;
  }
  switch (format) {
    case emit_format::megatron:
      return !(p.linear == linear_precision::nvfp4 && p.fp8_param_gather);
    case emit_format::bridge:
      return (p.linear != linear_precision::nvfp4 || dtype == "bf16") &&
             bridge_recipe(p.linear, dtype).second == p.fp8_param_gather;
    case emit_format::torchtitan:
      return !p.fp8_param_gather &&
             (p.linear == linear_precision::bf16 || p.linear == linear_precision::fp8_current ||
              p.linear == linear_precision::mxfp8);
  }
  return false;
}

std::string emit_winner(emit_format format, const plan_request& req,
                        const std::vector<planned_layout>& top, const emit_context& context) {
  try {
    return emit_plan(format, req, top.front().candidate, context);
  } catch (const invalid_spec& e) {
    for (std::size_t i = 1; i < top.size(); ++i) {
      try {
        (void)emit_plan(format, req, top[i].candidate, context);
      } catch (const invalid_spec&) {
        continue;
      }
      const auto& c = top[i].candidate;
      throw invalid_spec(
          "--emit",
          fmt::format("{}; the best of the top {} that {} can express is #{}, {:.4g} s "
                      "against the winner's {:.4g} s: --compare \"{}\"",
                      e.detail(), top.size(), name_of(format), i + 1,
                      top[i].result.step_time.value(), top.front().result.step_time.value(),
                      describe_layout(c.par, c.par.cp, with_full_recompute({}, c))));
    }
    throw;
  }
}

}  // namespace tpcost::cli
