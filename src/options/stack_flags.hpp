// --stack NAME and Megatron-Core's own overlap and precision flags, shared by `step`, `plan`
// and `check`: the profile (tpcost/step/stack_profiles.hpp) fills the software half of the
// step model, explicit flags override it, and the report lists every value with its source.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "tpcost/step/stages.hpp"

namespace tpcost::cli {

/// Kept as given; empty text and false mean "from the stack".
struct stack_flags {
  std::string stack;  ///< "" = default_stack_name (megatron-bridge)
  bool tp_comm_overlap = false;
  bool overlap_grad_reduce = false;
  bool overlap_param_gather = false;
  bool grad_reduce_in_bf16 = false;
  bool no_overlap_p2p = false;               ///< --no-overlap-p2p-communication
  bool no_grad_accumulation_fusion = false;  ///< --no-gradient-accumulation-fusion
  /// torchtitan's [compile] enable: --torch-compile / --no-torch-compile (neither: the stack's).
  bool torch_compile = false, no_torch_compile = false;
  /// torchtitan's enable_async_tensor_parallel: --async-tp (needs --torch-compile).
  bool async_tp = false;
  /// Megatron-Core's --cross-entropy-loss-fusion and --cross-entropy-fusion-impl, and tpcost's
  /// --no-cross-entropy-loss-fusion (what a Bridge YAML's cross_entropy_loss_fusion: false says).
  bool cross_entropy_loss_fusion = false, no_cross_entropy_loss_fusion = false;
  std::string cross_entropy_fusion_impl;
  // Megatron-Core's precision-aware optimizer (tpcost/model/optimizer_states.hpp).
  bool precision_aware_optimizer = false;
  std::string main_grads_dtype, main_params_dtype, exp_avg_dtype, exp_avg_sq_dtype;
  /// DeepSpeed's zero_optimization.offload_optimizer / offload_param with a device (cpu, nvme).
  bool offload_optimizer = false, offload_param = false;
  /// --tp-contention: what hidden TP costs the compute (step_options::tp_contention).
  std::string tp_contention;
};

/// One value of the software half and where it came from.
struct stack_setting {
  std::string field;   ///< the step option ("tp_overlap", "grad_wire_bytes", ...)
  std::string value;   ///< as printed ("0.00", "4 B (fp32)", "fused")
  std::string source;  ///< the profile's citation, or the flag that set it
  bool from_flag = false;
};

/// The resolved software: the profile, the step options, and every setting with its source.
struct stack_choice {
  const stack_profile* profile = nullptr;
  step_options options;
  std::vector<stack_setting> settings;
  /// The kernels the step runs (the profile's, or torch.compile's by flag): whose η price it.
  kernel_stack kernels = kernel_stack::megatron_fused;
};

/// Registers --stack, --tp-comm-overlap, --overlap-grad-reduce, --overlap-param-gather and
/// --grad-reduce-in-bf16 in `group`.
void add_stack_flags(CLI::Option_group& group, stack_flags& flags);

/// The profile (for a run that trains in fp16 when `fp16`: options_of(profile, fp16)), then
/// the Megatron flags, then --attention, --tp-overlap and --dp-overlap (empty: not given).
/// Throws `invalid_spec` naming the flag.
stack_choice resolve_stack(const stack_flags& flags, const std::string& attention,
                           const std::string& tp_overlap, const std::string& dp_overlap,
                           bool fp16 = false);

/// Sequence parallelism as the stack turns it on (--sp / --no-sp override; a contradiction
/// throws), recorded as a setting. Without it at t > 1 TP overlap by userbuffers does not run
/// (the core applies none, stages.hpp): --tp-comm-overlap then throws, as Megatron-LM asserts;
/// the megatron-bridge profile's default says it is off, as its comm_overlap.py turns it off,
/// and says so too for a TP group wider than the `gpus_per_node` of one NVLink domain.
void apply_stack_sequence_parallel(bool sp_flag, bool no_sp_flag, bool tp_comm_overlap_flag,
                                   std::int64_t gpus_per_node, stack_choice& choice,
                                   parallel_config& par);

/// The setting a profile states as a rule on the ZeRO stage, made the layout's own value:
/// gradient-accumulation fusion under Megatron-Bridge is "yes", or "no" at ZeRO-3
/// (accumulation_fused, stages.hpp), not "yes, not under ZeRO-3".
void apply_stack_zero(zero_stage zero, stack_choice& choice);

/// The name `step` prints for `kernels`: "megatron-fused", "pytorch-eager", "torch-compile".
std::string_view kernel_stack_name(kernel_stack kernels);

/// Sets the "kernels" setting's source to the profile's (or the flag's) and where the η of
/// those kernels on the GPU come from (`efficiency_source`, efficiency.hpp).
void note_kernel_efficiency(stack_choice& choice, std::string_view efficiency_source);

/// The profile and its settings as `step` prints them: a header line, then one line a setting
/// ("default" from the profile, "flag" where a flag overrode it).
std::string stack_text(const stack_choice& choice);
/// {"name", "release", "summary", "settings": [{"field", "value", "source", "from"}]}.
nlohmann::json stack_json(const stack_choice& choice);

}  // namespace tpcost::cli
