#include "options/stack_flags.hpp"

#include <algorithm>

#include <tuple>

#include <fmt/format.h>

#include "options/cli_options.hpp"
#include "options/flag_options.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/model/optimizer_states.hpp"

namespace tpcost::cli {

void add_stack_flags(CLI::Option_group& group, stack_flags& f) {
  add_flag(group, "--stack", f.stack);
  add_flag(group, "--tp-comm-overlap", f.tp_comm_overlap);
  add_flag(group, "--overlap-grad-reduce", f.overlap_grad_reduce);
  add_flag(group, "--overlap-param-gather", f.overlap_param_gather);
  add_flag(group, "--grad-reduce-in-bf16", f.grad_reduce_in_bf16);
  add_flag(group, "--no-overlap-p2p-communication", f.no_overlap_p2p);
  add_flag(group, "--no-gradient-accumulation-fusion", f.no_grad_accumulation_fusion);
  add_flag(group, "--use-precision-aware-optimizer", f.precision_aware_optimizer);
  add_flag(group, "--offload-optimizer", f.offload_optimizer);
  add_flag(group, "--offload-param", f.offload_param);
  add_flag(group, "--torch-compile", f.torch_compile);
  add_flag(group, "--no-torch-compile", f.no_torch_compile);
  add_flag(group, "--async-tp", f.async_tp);
  add_flag(group, "--cross-entropy-loss-fusion", f.cross_entropy_loss_fusion);
  add_flag(group, "--no-cross-entropy-loss-fusion", f.no_cross_entropy_loss_fusion);
  add_flag(group, "--cross-entropy-fusion-impl", f.cross_entropy_fusion_impl);
  add_flag(group, "--tp-contention", f.tp_contention);
  for (auto [flag, value] : {std::pair{"--main-grads-dtype", &f.main_grads_dtype},
                             std::pair{"--main-params-dtype", &f.main_params_dtype},
                             std::pair{"--exp-avg-dtype", &f.exp_avg_dtype},
                             std::pair{"--exp-avg-sq-dtype", &f.exp_avg_sq_dtype}}) {
    add_flag(group, flag, *value);
  }
}

namespace {

std::string bytes_name(int n) {
  return fmt::format("{} B ({})", n, n == 4 ? "fp32" : n == 2 ? "16-bit" : "8-bit");
}

/// Records a setting as `step` prints it; `flag`: a flag, not the profile, chose the value.
void add_setting(stack_choice& out, const char* field, std::string value, std::string source,
                 bool flag) {
  out.settings.push_back({field, std::move(value), std::move(source), flag});
}

/// The Megatron-Core flags, refused on a stack that is not Megatron's, and the pair
/// Megatron-Core asserts.
void check_megatron_flags(const stack_flags& f, const stack_profile& p) {
  // Megatron-Bridge recipes are Megatron-Core configurations: the same flags override them.
  const bool megatron =
      p.stack == software_stack::megatron_core || p.stack == software_stack::megatron_bridge;
  struct megatron_flag {
    const char* name;
    bool given;
    bool overlap;  ///< --tp-overlap/--dp-overlap say the same under any stack
  };
  for (const auto& [flag, given, overlap] :
       {megatron_flag{"--tp-comm-overlap", f.tp_comm_overlap, true},
        megatron_flag{"--no-overlap-p2p-communication", f.no_overlap_p2p, false},
        megatron_flag{"--no-gradient-accumulation-fusion", f.no_grad_accumulation_fusion, false},
        megatron_flag{"--overlap-grad-reduce", f.overlap_grad_reduce, true},
        megatron_flag{"--overlap-param-gather", f.overlap_param_gather, true},
        megatron_flag{"--grad-reduce-in-bf16", f.grad_reduce_in_bf16, false},
        megatron_flag{"--use-precision-aware-optimizer", f.precision_aware_optimizer, false},
        megatron_flag{"--cross-entropy-loss-fusion", f.cross_entropy_loss_fusion, false},
        megatron_flag{"--no-cross-entropy-loss-fusion", f.no_cross_entropy_loss_fusion, false},
        megatron_flag{"--cross-entropy-fusion-impl", !f.cross_entropy_fusion_impl.empty(),
                      false}}) {
    if (given && !megatron) {
      throw invalid_spec(flag, std::string("is a Megatron-Core flag; --stack ") +
                                   std::string(p.name) + " does not take it" +
                                   (overlap ? " (use --tp-overlap/--dp-overlap)" : ""));
    }
  }
  if (f.overlap_param_gather && !f.overlap_grad_reduce) {
    // megatron/training/arguments.py: 'Must use --overlap-param-gather with
    // --overlap-grad-reduce'.
    throw invalid_spec("--overlap-param-gather",
                       "needs --overlap-grad-reduce, as Megatron-Core asserts");
  }
}

/// The attention kernel (--attention, else the profile's) and the selective recompute policy.
void resolve_attention(stack_choice& out, const std::string& attention) {
  const auto& p = *out.profile;
  auto& o = out.options;
  if (!attention.empty()) {
    const auto kernel = value_named(attention_kernel_names, attention);
    if (!kernel) {
      throw invalid_spec("--attention", "'" + attention + "' is not one of fused|unfused");
    }
    o.attention = *kernel;
  }
  add_setting(out, "attention", std::string(to_string(o.attention)),
              attention.empty() ? std::string(p.attention.source) : "--attention",
              !attention.empty());
  add_setting(out, "selective_recompute",
              o.selective == selective_policy::per_op ? "per-op" : "attention core",
              std::string(p.selective.source), false);
}

/// torchtitan's async TP, which it runs only with torch.compile (torchtitan
/// models/llama3/infra/parallelize.py: "Async TP requires torch.compile").
void check_async_tp(const stack_flags& f, const stack_profile& p) {
  if (!f.async_tp) {
    return;
  }
  if (p.stack != software_stack::fsdp2) {
    throw invalid_spec("--async-tp", std::string("is a torchtitan flag; --stack ") +
                                         std::string(p.name) +
                                         " does not take it (use --stack fsdp2, or "
                                         "--tp-comm-overlap under Megatron)");
  }
  if (!f.torch_compile) {
    throw invalid_spec("--async-tp",
                       "needs --torch-compile, as torchtitan raises: 'Async TP requires "
                       "torch.compile'");
  }
}

/// TP overlap: --tp-comm-overlap or --async-tp, then --tp-overlap over them.
void resolve_tp_overlap(stack_choice& out, const stack_flags& f, const std::string& tp_overlap) {
  auto& o = out.options;
  std::string tp_source(out.profile->tp_overlap.source);
  check_async_tp(f, *out.profile);
  if (f.tp_comm_overlap) {
    o.tp_overlap = 1.0;
    o.tp_overlap_needs_sp = true;
    tp_source =
        "--tp-comm-overlap: every TP all-gather/reduce-scatter overlapped with its GEMM "
        "(Transformer Engine userbuffers), capped by that compute";
  }
  if (f.async_tp) {
    // torchtitan/distributed/tensor_parallel.py maybe_enable_async_tp: inductor's
    // _micro_pipeline_tp fuses SP's all-gather + matmul and matmul + reduce-scatter, over
    // symmetric memory on the TP group: SP or nothing, within one NVLink domain.
    o.tp_overlap = 1.0;
    o.tp_overlap_needs_sp = true;
    tp_source =
        "--async-tp: inductor's micro-pipelined all-gather/reduce-scatter matmuls "
        "(torch._inductor.config._micro_pipeline_tp, symmetric memory) hide the TP collectives "
        "behind their GEMMs, capped by that compute";
  }
  if (!tp_overlap.empty()) {
    o.tp_overlap = fraction_flag(tp_overlap, "--tp-overlap");
    o.tp_overlap_needs_sp = false;  // the share given applies as it is
    tp_source = "--tp-overlap";
  }
  add_setting(out, "tp_overlap", fmt::format("{:.2f}", o.tp_overlap), tp_source,
              f.tp_comm_overlap || f.async_tp || !tp_overlap.empty());
  // The input gradients' collectives behind their weight-gradient GEMMs; a share given with
  // --tp-overlap is all that hides.
  std::string async_source(out.profile->input_grad_overlap.source);
  if (!tp_overlap.empty()) {
    o.input_grad_overlap = async_input_grad::none;
    async_source = "--tp-overlap: the share given is all that hides";
  }
  add_setting(out, "input_grad_overlap", std::string(async_input_grad_name(o.input_grad_overlap)),
              async_source, !tp_overlap.empty());
  add_setting(out, "sp_input_regather", o.sp_input_regather ? "yes" : "no",
              std::string(out.profile->sp_input_regather.source), false);
  if (!f.tp_contention.empty()) {
    o.tp_contention = fraction_flag(f.tp_contention, "--tp-contention");
  }
  add_setting(
      out, "tp_contention", fmt::format("{:.2f}", o.tp_contention),
      f.tp_contention.empty() ? std::string(detail::efficiency::tp_contention) : "--tp-contention",
      !f.tp_contention.empty());
}

/// DP overlap. --overlap-grad-reduce alone hides the gradient reduction only; the core takes
/// its share of the sync from the collectives' own times (stages.hpp, overlap_grad_reduce_only).
void resolve_dp_overlap(stack_choice& out, const stack_flags& f, const std::string& dp_overlap) {
  const auto& p = *out.profile;
  auto& o = out.options;
  std::string dp_source(p.dp_overlap.source);
  std::string dp3_source(p.dp_overlap_zero3.source);
  // The Megatron-Bridge recipes gather the weights overlapped already; the flag adds nothing.
  const bool param_gather = f.overlap_param_gather || p.stack == software_stack::megatron_bridge;
  if (f.overlap_grad_reduce) {
    o.dp_overlap = 1.0;
    o.dp_overlap_zero3 = o.dp_overlap;
    o.overlap_grad_reduce_only = !param_gather;
    dp_source = param_gather
                    ? "--overlap-grad-reduce --overlap-param-gather: gradient buckets during the "
                      "backward, the weight all-gather behind the forward"
                    : "--overlap-grad-reduce without --overlap-param-gather: the gradient "
                      "reduction hides (all of DDP's all-reduce; the reduce-scatter's share of "
                      "the distributed optimizer's sync, 2/3 with fp32 gradients, 1/2 with bf16), "
                      "the weight all-gather does not";
    dp3_source = dp_source;
  }
  if (!dp_overlap.empty()) {
    o.dp_overlap = fraction_flag(dp_overlap, "--dp-overlap");
    o.dp_overlap_zero3 = o.dp_overlap;
    o.overlap_grad_reduce_only = false;  // the share given applies to the whole sync
    dp_source = dp3_source = "--dp-overlap";
  }
  const bool dp_flag = f.overlap_grad_reduce || !dp_overlap.empty();
  add_setting(out, "dp_overlap", fmt::format("{:.2f}", o.dp_overlap), dp_source, dp_flag);
  add_setting(out, "dp_overlap_zero3", fmt::format("{:.2f}", o.dp_overlap_zero3), dp3_source,
              dp_flag);
}

/// The precision-aware optimizer's dtypes as the flags give them, validated; a dtype other
/// than fp32 needs --use-precision-aware-optimizer.
precision_aware_adam precision_aware_adam_of(const stack_flags& f) {
  precision_aware_adam adam;
  for (auto [flag, text, dtype] :
       {std::tuple{"--main-grads-dtype", &f.main_grads_dtype, &adam.main_grads},
        std::tuple{"--main-params-dtype", &f.main_params_dtype, &adam.main_params},
        std::tuple{"--exp-avg-dtype", &f.exp_avg_dtype, &adam.exp_avg},
        std::tuple{"--exp-avg-sq-dtype", &f.exp_avg_sq_dtype, &adam.exp_avg_sq}}) {
    if (text->empty()) {
      continue;
    }
    *dtype = parse_optimizer_dtype(*text, flag);
    if (!f.precision_aware_optimizer && *dtype != optimizer_dtype::fp32) {
      // megatron/core/optimizer/optimizer_config.py, OptimizerConfig.__post_init__.
      throw invalid_spec(flag, *text +
                                   ": needs --use-precision-aware-optimizer (Megatron-Core "
                                   "asserts fp32 without it)");
    }
  }
  try {
    validate(adam);
  } catch (const invalid_spec& e) {
    throw invalid_spec("--" + e.field(), e.detail());
  }
  return adam;
}

/// Gradient dtype on the wire and in memory, the optimizer's state bytes, and what the
/// offload flags move to the host.
void resolve_state_bytes(stack_choice& out, const stack_flags& f) {
  const auto& p = *out.profile;
  auto& o = out.options;
  std::string wire_source(p.grad_wire_bytes.source);
  std::string state_source(p.state.source);
  if (o.grad_wire_bytes != options_of(p).grad_wire_bytes) {  // options_of(p, fp16) halved them
    wire_source = state_source =
        "--dtype fp16: Megatron-LM keeps and reduces fp16 gradients in fp16 (arguments.py, "
        "core_v0.16.0: fp32 only under --bf16)";
  }
  if (f.grad_reduce_in_bf16) {
    o.grad_wire_bytes = 2;
    o.state = mixed_precision_adam;
    wire_source = "--grad-reduce-in-bf16";
    state_source = "--grad-reduce-in-bf16: bf16 main_grad buffer, 2 + 2 + 12 bytes";
  }
  // The precision-aware optimizer: its dtypes set the states (optimizer_states.hpp).
  const precision_aware_adam adam = precision_aware_adam_of(f);
  if (f.precision_aware_optimizer) {
    o.state = state_bytes_of(adam);
    state_source = fmt::format(
        "--use-precision-aware-optimizer: gradients {}, master weights {} ({}), moments {} + "
        "{} (Transformer Engine FusedAdam)",
        bytes_name(static_cast<int>(bytes_of(adam.main_grads))),
        adam.main_params == optimizer_dtype::fp32 ? "fp32" : "fp16",
        adam.main_params == optimizer_dtype::fp32 ? "kept as 16-bit remainders" : "2 B",
        bytes_name(static_cast<int>(bytes_of(adam.exp_avg))),
        bytes_name(static_cast<int>(bytes_of(adam.exp_avg_sq))));
    if (adam.main_grads == optimizer_dtype::bf16) {
      o.grad_wire_bytes = 2;  // the bf16 gradient buffer is what the DP sync reduces
      wire_source = "--main-grads-dtype bf16: the bf16 gradient buffer is reduced";
    }
  }
  // DeepSpeed's offload (ZeRO-Offload, Ren et al. 2021, arXiv:2101.06840, Sec. 4: the fp16
  // gradients go to the host after their reduction, where the fp32 master weights and Adam
  // states are updated; ZeRO-Infinity's offload_param keeps the partitioned fp16 weights there).
  // The GPU keeps none of those bytes; the reduce buckets are not counted.
  if (f.offload_optimizer) {
    o.state.gradients = 0.0;
    o.state.optimizer = 0.0;
    state_source +=
        "; --offload-optimizer: gradients and optimizer states in host memory (the "
        "CPU Adam step and the PCIe copies are not costed)";
  }
  if (f.offload_param) {
    o.state.weights = 0.0;
    state_source +=
        "; --offload-param: the sharded weights in host memory, each layer gathered "
        "on the GPU (the PCIe copies are not costed)";
  }
  const bool state_flag = f.grad_reduce_in_bf16 || f.precision_aware_optimizer ||
                          f.offload_optimizer || f.offload_param;
  add_setting(out, "grad_wire_bytes", bytes_name(o.grad_wire_bytes), wire_source,
              f.grad_reduce_in_bf16 || adam.main_grads == optimizer_dtype::bf16);
  add_setting(
      out, "state_bytes_per_param",
      fmt::format("{:g}+{:g}+{:g} B/param", o.state.weights, o.state.gradients, o.state.optimizer),
      state_source, state_flag);
}

/// Pipeline sends and receives under the interleaved schedule, then the rules the stack's
/// sharding follows (no flag changes them).
void resolve_pipeline_and_sharding(stack_choice& out, const stack_flags& f) {
  const auto& p = *out.profile;
  auto& o = out.options;
  std::string p2p_source(p.p2p_overlap.source);
  if (f.no_overlap_p2p) {
    o.p2p_overlap = 0.0;
    p2p_source = "--no-overlap-p2p-communication";
  }
  add_setting(out, "p2p_overlap", fmt::format("{:.2f}", o.p2p_overlap), p2p_source,
              f.no_overlap_p2p);
  std::string fusion_source(p.grad_accumulation_fusion.source);
  if (f.no_grad_accumulation_fusion) {
    o.grad_accumulation_fusion = fused_accumulation::never;
    fusion_source = "--no-gradient-accumulation-fusion: a pass over each micro-batch's gradients";
  }
  add_setting(out, "grad_accumulation_fusion",
              std::string(fused_accumulation_name(o.grad_accumulation_fusion)), fusion_source,
              f.no_grad_accumulation_fusion);

  add_setting(out, "max_zero", std::to_string(p.max_zero.value), std::string(p.max_zero.source),
              false);
  add_setting(out, "sharding_with_pp", p.sharding_with_pp.value ? "yes" : "no",
              std::string(p.sharding_with_pp.source), false);
  add_setting(out, "zero3_gathers_per_micro_batch", std::to_string(p.gathers_per_micro_batch.value),
              std::string(p.gathers_per_micro_batch.source), false);
  add_setting(out, "zero3_gathered_layers", std::to_string(p.gathered_layers.value),
              std::string(p.gathered_layers.source), false);
}

/// The kernels: torchtitan runs PyTorch eager unless torch.compile is on.
void resolve_kernels(stack_choice& out, const stack_flags& f) {
  const auto& p = *out.profile;
  if (f.torch_compile && f.no_torch_compile) {
    throw invalid_spec("--no-torch-compile", "contradicts --torch-compile; give one of them");
  }
  const bool compile_flag = f.torch_compile || f.no_torch_compile;
  if (compile_flag && p.stack != software_stack::fsdp2) {
    throw invalid_spec(f.torch_compile ? "--torch-compile" : "--no-torch-compile",
                       std::string("is a torchtitan flag; --stack ") + std::string(p.name) +
                           " runs Megatron-LM / Transformer Engine kernels (use --stack fsdp2)");
  }
  out.kernels = f.torch_compile ? kernel_stack::pytorch_compiled : p.kernels.value;
  add_setting(out, "kernels", std::string(kernel_stack_name(out.kernels)),
              f.torch_compile      ? "--torch-compile: inductor fuses the element-wise ops"
              : f.no_torch_compile ? "--no-torch-compile"
                                   : std::string(p.kernels.source),
              compile_flag);
}

/// The cross entropy's kernels: the profile's, or Megatron-Core's flags (--cross-entropy-loss-
/// fusion with --cross-entropy-fusion-impl, default native), or --no-cross-entropy-loss-fusion.
void resolve_cross_entropy(stack_choice& out, const stack_flags& f) {
  auto& o = out.options;
  if (f.cross_entropy_loss_fusion && f.no_cross_entropy_loss_fusion) {
    throw invalid_spec("--no-cross-entropy-loss-fusion",
                       "contradicts --cross-entropy-loss-fusion; give one of them");
  }
  std::string source(out.profile->cross_entropy.source);
  if (f.cross_entropy_loss_fusion && o.cross_entropy == cross_entropy_kernel::unfused) {
    o.cross_entropy = cross_entropy_kernel::native;  // Megatron-Core's default impl
    source = "--cross-entropy-loss-fusion (impl native, Megatron-Core's default)";
  } else if (f.cross_entropy_loss_fusion) {  // the profile fuses already: its impl stays
    source = "--cross-entropy-loss-fusion (the impl the profile sets: " + source + ")";
  }
  if (f.no_cross_entropy_loss_fusion) {
    o.cross_entropy = cross_entropy_kernel::unfused;
    source = "--no-cross-entropy-loss-fusion";
  }
  if (!f.cross_entropy_fusion_impl.empty()) {
    const auto impl = value_named(cross_entropy_kernel_names, f.cross_entropy_fusion_impl);
    if (!impl || *impl == cross_entropy_kernel::unfused) {
      throw invalid_spec("--cross-entropy-fusion-impl",
                         quote_value(f.cross_entropy_fusion_impl) + " is not one of native|te");
    }
    if (o.cross_entropy == cross_entropy_kernel::unfused) {
      throw invalid_spec("--cross-entropy-fusion-impl",
                         "has no effect without --cross-entropy-loss-fusion (Megatron-Core reads "
                         "the impl only with the fusion on)");
    }
    o.cross_entropy = *impl;
    source = (f.cross_entropy_loss_fusion ? "--cross-entropy-loss-fusion " : "") +
             std::string("--cross-entropy-fusion-impl ") + f.cross_entropy_fusion_impl;
  }
  add_setting(out, "cross_entropy",
              std::string(name_of(cross_entropy_kernel_names, o.cross_entropy)), source,
              f.cross_entropy_loss_fusion || f.no_cross_entropy_loss_fusion ||
                  !f.cross_entropy_fusion_impl.empty());
}

}  // namespace

stack_choice resolve_stack(const stack_flags& f, const std::string& attention,
                           const std::string& tp_overlap, const std::string& dp_overlap,
                           bool fp16) {
  stack_choice out;
  out.profile = &stack_profile_by_name(
      f.stack.empty() ? default_stack_name : std::string_view(f.stack), "--stack");
  check_megatron_flags(f, *out.profile);
  out.options = options_of(*out.profile, fp16);
  // The order of the steps is the order of the settings `step` prints, and of the errors.
  resolve_attention(out, attention);
  resolve_tp_overlap(out, f, tp_overlap);
  resolve_dp_overlap(out, f, dp_overlap);
  resolve_state_bytes(out, f);
  resolve_pipeline_and_sharding(out, f);
  resolve_kernels(out, f);
  resolve_cross_entropy(out, f);
  return out;
}

std::string_view kernel_stack_name(kernel_stack kernels) {
  switch (kernels) {
    case kernel_stack::megatron_fused:
      return "megatron-fused";
    case kernel_stack::pytorch_eager:
      return "pytorch-eager";
    case kernel_stack::pytorch_compiled:
      return "torch-compile";
  }
  return "megatron-fused";
}

namespace {

/// The setting named `field` of `choice`, if it has one.
stack_setting* setting(stack_choice& choice, std::string_view field) {
  const auto it = std::find_if(choice.settings.begin(), choice.settings.end(),
                               [&](const stack_setting& s) { return s.field == field; });
  return it == choice.settings.end() ? nullptr : &*it;
}

}  // namespace

void note_kernel_efficiency(stack_choice& choice, std::string_view efficiency_source) {
  if (auto* s = setting(choice, "kernels")) {
    s->source += fmt::format("; eta: {}", efficiency_source);
  }
}

void apply_stack_sequence_parallel(bool sp_flag, bool no_sp_flag, bool tp_comm_overlap_flag,
                                   std::int64_t gpus_per_node, stack_choice& choice,
                                   parallel_config& par) {
  if (sp_flag && no_sp_flag) {
    throw invalid_spec("--no-sp", "contradicts --sp; give one of them");
  }
  const auto& p = *choice.profile;
  const bool from_stack = !sp_flag && !no_sp_flag && p.sequence_parallel.value && par.tp > 1;
  par.sequence_parallel = sp_flag || from_stack;
  choice.settings.push_back({.field = "sequence_parallel",
                             .value = par.sequence_parallel ? "on" : "off",
                             .source = sp_flag       ? std::string("--sp")
                                       : no_sp_flag  ? std::string("--no-sp")
                                       : par.tp == 1 ? std::string("t = 1: nothing to split")
                                                     : std::string(p.sequence_parallel.source),
                             .from_flag = sp_flag || no_sp_flag});
  // Under fsdp2 only --async-tp asks for SP (check_async_tp).
  const bool async_tp = p.stack == software_stack::fsdp2 && choice.options.tp_overlap_needs_sp;
  if (choice.options.tp_overlap_needs_sp && par.tp > 1 && !par.sequence_parallel) {
    if (async_tp) {  // torchtitan applies SequenceParallel whenever TP is on
      throw invalid_spec("--async-tp",
                         "fuses sequence parallelism's all-gathers and reduce-scatters into the "
                         "matmuls, and --no-sp turns SP off (torchtitan runs SP whenever TP is "
                         "on); give one of them");
    }
    if (tp_comm_overlap_flag) {  // --tp-comm-overlap: megatron/training/arguments.py asserts it
      throw invalid_spec("--tp-comm-overlap",
                         "needs sequence parallelism (--sp), as Megatron-LM asserts: "
                         "'Tensor parallel communication/GEMM overlap can happen only when "
                         "sequence parallelism is enabled'");
    }
    if (auto* s = setting(choice, "tp_overlap")) {  // the step model applies none (stages.hpp)
      s->value = "0.00";
      s->source = "training/comm_overlap.py: TP overlap disabled without sequence parallelism";
    }
  } else if (choice.options.tp_overlap_needs_sp && gpus_per_node > 0 && par.tp > gpus_per_node) {
    // TP is the fastest dimension: t > GPUs per domain spans domains (stages.hpp applies none).
    if (auto* s = setting(choice, "tp_overlap")) {
      s->value = "0.00";
      s->source = fmt::format(
          "{} run within one NVLink domain; t = {} spans {} GPUs per domain",
          async_tp ? "async TP's symmetric-memory buffers" : "Transformer Engine's userbuffers",
          par.tp, gpus_per_node);
    }
  }
}

void apply_stack_zero(zero_stage zero, stack_choice& choice) {
  if (choice.options.grad_accumulation_fusion != fused_accumulation::except_zero3) {
    return;  // the same at every stage, or turned off by its flag
  }
  if (auto* s = setting(choice, "grad_accumulation_fusion")) {
    const bool fused = accumulation_fused(choice.options, zero);
    s->value = fused ? "yes" : "no";
    if (!fused) {
      s->source += "; this layout runs ZeRO-3 (Megatron-FSDP)";
    }
  }
}

std::string stack_text(const stack_choice& c) {
  std::string o = fmt::format("stack:   {} ({}): {}\n", c.profile->name, c.profile->release,
                              c.profile->summary);
  for (const auto& s : c.settings) {
    o += fmt::format("  {:<30} {:<22} {}: {}\n", s.field, s.value, s.from_flag ? "flag" : "default",
                     s.source);
  }
  return o;
}

nlohmann::json stack_json(const stack_choice& c) {
  auto settings = nlohmann::json::array();
  for (const auto& s : c.settings) {
    settings.push_back({{"field", s.field},
                        {"value", s.value},
                        {"source", s.source},
                        {"from", s.from_flag ? "flag" : "default"}});
  }
  return {{"name", c.profile->name},
          {"release", c.profile->release},
          {"summary", c.profile->summary},
          {"settings", settings}};
}

}  // namespace tpcost::cli
