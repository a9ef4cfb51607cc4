// Software stacks as named, cited profiles: how a framework runs the step (`--stack NAME`).
//
// A profile fills the software half of the step model (step_options, stages.hpp) with what a
// framework does when it is launched without the flags that change it, and says where each
// choice comes from (the framework's source at a named release). Explicit flags override a
// profile (the CLI records which; `step` prints the profile and every default it applied).
// Each field maps onto the step model's own machinery, not a second one:
//
//   tp_overlap        share of the TP collectives hidden behind compute (capped by that compute)
//   input_grad_overlap which column-parallel input-gradient collectives (all-reduce,
//                     reduce-scatter) run behind their weight-gradient GEMMs
//   grad_accumulation_fusion  whether the weight-gradient GEMMs add into the main-grad buffer
//                     themselves (no separate pass over the gradients per micro-batch)
//   dp_overlap        share of the gradient sync hidden behind the last backward; for ZeRO-2/3
//                     the share of each micro-batch's collectives hidden behind its compute
//   grad_wire_bytes   bytes per gradient element in the DP reduction
//   state             bytes per parameter of weights, gradients and optimizer state in memory
//   attention         the attention kernel (time and what it keeps for the backward)
//   max_zero          the highest ZeRO stage the framework offers (0: none; 1: distributed
//                     optimizer)
//   sharding_with_pp  whether ZeRO-2/3 (sharded gradients or weights) may run with p > 1
//   gathers_per_micro_batch  ZeRO-3/FSDP weight all-gathers per micro-batch (2: forward and
//                     backward; 1: the weights stay gathered from forward to backward)
//   gathered_layers   ZeRO-3/FSDP: full layers of 16-bit weights held at once (the one being
//                     computed and the one prefetched; 0: the whole stage, never resharded)
//   p2p_overlap       share of the steady-state pipeline sends/receives hidden behind compute
//                     under the interleaved schedule (v > 1); warm-up and flush stay exposed
//   sequence_parallel whether the stack turns sequence parallelism on when t > 1
//
// What sharding means differs by stack and is written in the step model once (combine_step):
// stage 1 (Megatron's distributed optimizer, DeepSpeed ZeRO-1) reduce-scatters gradients and
// all-gathers weights once per step; stage 2 (DeepSpeed) reduce-scatters every micro-batch;
// stage 3 (DeepSpeed ZeRO-3, FSDP2) all-gathers each layer's weights before its forward and
// backward, with prefetch, and reduce-scatters every micro-batch. docs/stacks.md has the table.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/hardware/efficiency.hpp"
#include "tpcost/model/memory.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/step/compute_model.hpp"

namespace tpcost {

/// A value a profile sets and where it comes from.
template <class T>
struct cited {
  T value{};
  std::string_view source;  ///< the framework file (or doc) at the profile's release
};

/// The order is the table's below (profile_of indexes it by this value).
enum class software_stack : int { megatron_core, megatron_2021, deepspeed, fsdp2, megatron_bridge };

/// Which TP collectives of a column-parallel linear's input gradient (stages.hpp) run
/// asynchronously behind the linear's weight-gradient GEMM: none; the reduce-scatter of
/// sequence parallelism only; or also the all-reduce without it.
enum class async_input_grad : int { none, reduce_scatter, all };

inline constexpr std::array<enum_name<async_input_grad>, 3> async_input_grad_names{{
    {"none", async_input_grad::none},
    {"reduce-scatter", async_input_grad::reduce_scatter},
    {"all-reduce+reduce-scatter", async_input_grad::all},
}};

constexpr std::string_view async_input_grad_name(async_input_grad value) {
  return name_of(async_input_grad_names, value);
}

/// Whether the weight-gradient GEMMs accumulate into the main-grad buffer themselves
/// (Megatron's gradient_accumulation_fusion): never, always, or except under sharded weights
/// (ZeRO-3, Megatron-FSDP), where the recipes that run it turn the fusion off.
enum class fused_accumulation : int { never, always, except_zero3 };

inline constexpr std::array<enum_name<fused_accumulation>, 3> fused_accumulation_names{{
    {"no", fused_accumulation::never},
    {"yes", fused_accumulation::always},
    {"yes, not under ZeRO-3", fused_accumulation::except_zero3},
}};

constexpr std::string_view fused_accumulation_name(fused_accumulation value) {
  return name_of(fused_accumulation_names, value);
}

struct stack_profile {
  software_stack stack = software_stack::megatron_core;
  std::string_view name;     ///< the --stack name
  std::string_view release;  ///< the framework release the sources below are read at
  std::string_view summary;  ///< one line: what the profile runs
  cited<double> tp_overlap;
  cited<async_input_grad> input_grad_overlap;
  cited<fused_accumulation> grad_accumulation_fusion;
  /// ZeRO 0-2; DeepSpeed overlaps only stage 3 by default, so stage 3 has its own value.
  cited<double> dp_overlap;
  cited<double> dp_overlap_zero3;
  cited<int> grad_wire_bytes;
  cited<state_bytes> state;
  cited<attention_kernel> attention;
  /// What --recompute selective recomputes (parallelism.hpp, selective_policy).
  cited<selective_policy> selective;
  cited<int> max_zero;
  /// The ZeRO stage a job of this stack runs when --zero is not given (with d > 1).
  cited<int> default_zero;
  cited<bool> sharding_with_pp;
  cited<int> gathers_per_micro_batch;
  cited<std::int64_t> gathered_layers;
  cited<double> p2p_overlap;
  cited<bool> sequence_parallel;
  /// Whether a column-parallel linear under SP saves its input sharded and all-gathers it again
  /// in the backward for its weight gradient (stages.hpp, tp_comm_of_layer), or saves the
  /// gathered input.
  cited<bool> sp_input_regather;
  /// The vocab-parallel cross entropy's kernels (compute_model.hpp, cross_entropy_kernel).
  cited<cross_entropy_kernel> cross_entropy;
  /// The kernels the stack runs when launched without the flags that change them: whose
  /// efficiencies (hardware/efficiency.hpp, default_efficiency with a kernel_stack) price it.
  cited<kernel_stack> kernels;
};

// clang-format off
inline constexpr std::array<stack_profile, 5> stack_profiles{{
    {.stack = software_stack::megatron_core,
     .name = "megatron-core",
     .release = "NVIDIA/Megatron-LM core_v0.16.0 (3bec9aa)",
     .summary = "Megatron-Core as launched without its overlap flags: DDP or the distributed "
                "optimizer, nothing overlapped, fp32 gradient reduction, TE fused attention",
     .tp_overlap = {0.0, "megatron/core/model_parallel_config.py: tp_comm_overlap = False "
                         "(--tp-comm-overlap: Transformer Engine userbuffers overlap every TP "
                         "all-gather/reduce-scatter with its GEMM, tpcost 1.0)"},
     .input_grad_overlap = {async_input_grad::all,
                           "megatron/core/tensor_parallel/layers.py: "
                           "LinearWithGradAccumulationAndAsyncCommunication.backward starts "
                           "a column-parallel linear's input-gradient all-reduce "
                           "(allreduce_dgrad), or under SP its reduce-scatter, before the "
                           "weight-gradient GEMM and waits after it (Transformer Engine's "
                           "linear.py: \"Overlap dgrad-RS/AR with wgrad\")"},
     .grad_accumulation_fusion = {fused_accumulation::always,
                                 "megatron/training/arguments.py: "
                                 "--no-gradient-accumulation-fusion is store_false, so "
                                 "gradient_accumulation_fusion is on: the weight-gradient GEMM "
                                 "adds into the fp32 main_grad (tensor_parallel/layers.py "
                                 "fused_weight_gradient_mlp_cuda; TE's fuse_wgrad_accumulation)"},
     .dp_overlap = {0.0, "megatron/core/distributed/distributed_data_parallel_config.py: "
                         "overlap_grad_reduce = False, overlap_param_gather = False "
                         "(--overlap-grad-reduce, --overlap-param-gather)"},
     .dp_overlap_zero3 = {0.0, "as dp_overlap (Megatron-FSDP, --use-megatron-fsdp)"},
     .grad_wire_bytes = {4, "megatron/training/arguments.py: with bf16, "
                            "accumulate_allreduce_grads_in_fp32 = True unless "
                            "--grad-reduce-in-bf16"},
     .state = {mixed_precision_adam_fp32_grads,
               "docs/user-guide/features/dist_optimizer.md: bf16 parameters, fp32 gradients: 18 "
               "bytes, 6 + 12/d with the distributed optimizer"},
     .attention = {attention_kernel::fused,
                   "megatron/core/transformer/enums.py AttnBackend.auto: Transformer Engine "
                   "picks its flash or fused (cuDNN) kernel"},
     .selective = {selective_policy::attention_core,
                   "megatron/core/transformer/transformer_config.py: recompute_granularity "
                   "'selective' recomputes recompute_modules, default ['core_attn']"},
     .max_zero = {3, "--use-distributed-optimizer (stage 1); Megatron-FSDP "
                     "--data-parallel-sharding-strategy optim_grads / optim_grads_params "
                     "(stages 2, 3)"},
     .default_zero = {0, "megatron/training/arguments.py: use_distributed_optimizer = False (DDP)"},
     .sharding_with_pp = {false, "Megatron-Core pipelines its distributed optimizer (stage 1) "
                                 "only; tpcost keeps DeepSpeed's rule for stages 2 and 3"},
     .gathers_per_micro_batch = {2, "Megatron-FSDP re-gathers weights for the backward"},
     .gathered_layers = {2, "the layer computed and the one prefetched"},
     .p2p_overlap = {1.0, "megatron/training/arguments.py: --no-overlap-p2p-communication is "
                          "store_false, so overlap_p2p_comm is on; turned off without the "
                          "interleaved schedule (schedules.py posts isend/irecv before the "
                          "micro-batch's compute and waits after it)"},
     .sequence_parallel = {false, "megatron/training/arguments.py: --sequence-parallel is off "
                                  "unless given"},
     .sp_input_regather = {true, "megatron/core/tensor_parallel/layers.py "
                                 "LinearWithGradAccumulationAndAsyncCommunication.backward: the "
                                 "saved s/t input is all-gathered again, async before the "
                                 "input-gradient GEMM (Transformer Engine 2.x "
                                 "layernorm_linear.py, layernorm_mlp.py: ln_out gathered again, "
                                 "or in the userbuffers bulk-dgrad overlap)"},
     .cross_entropy = {cross_entropy_kernel::unfused,
                       "megatron/core/model_parallel_config.py: cross_entropy_loss_fusion = "
                       "False (--cross-entropy-loss-fusion, then --cross-entropy-fusion-impl "
                       "native|te, default native)"},
     .kernels = {kernel_stack::megatron_fused,
                 "megatron/core/models/gpt/gpt_layer_specs.py: the Transformer Engine layer spec "
                 "(TE GEMMs, fused norms, cuDNN/flash attention)"}},
    {.stack = software_stack::megatron_2021,
     .name = "megatron-2021",
     .release = "NVIDIA/Megatron-LM v2.5 (e269e20, Aug 2021), the SC21 runs",
     .summary = "Megatron-LM of the SC21 paper: fp16, local DDP (no overlap), no distributed "
                "optimizer, unfused attention (scores in HBM)",
     .tp_overlap = {0.0, "megatron/mpu/layers.py: TP all-reduces run on the compute stream"},
     .input_grad_overlap = {async_input_grad::reduce_scatter,
                           "megatron/mpu/layers.py (v2.5): the input-gradient "
                           "all-reduce is synchronous (the async one came with "
                           "--async-tensor-model-parallel-allreduce, 3f65246, Sep 2021); "
                           "SP's reduce-scatter came overlapped with the weight gradient "
                           "(02bb1f5, Mar 2022): a run with --sp ran that code"},
     .grad_accumulation_fusion = {fused_accumulation::never,
                                 "megatron/model/distributed.py (v2.5): a hook adds each "
                                 "gradient into main_grad (main_grad.add_); the fusion came "
                                 "in 83b1e42 (Feb 2022)"},
     .dp_overlap = {0.0, "megatron/arguments.py: --DDP-impl default 'local', which all-reduces "
                         "after the backward (examples/sc21/run_table_1.sh picks torch DDP for "
                         "the small rows: --dp-overlap 1)"},
     .dp_overlap_zero3 = {0.0, "no ZeRO-3 in Megatron-LM v2.5"},
     .grad_wire_bytes = {2, "examples/sc21/CONFIG.sh: --fp16 without "
                            "--accumulate-allreduce-grads-in-fp32 (megatron/arguments.py)"},
     .state = {mixed_precision_adam, "fp16 weights and gradients, fp32 Adam: 2 + 2 + 12 bytes"},
     .attention = {attention_kernel::unfused,
                   "megatron/model/transformer.py: QK^T, fused scaled-masked softmax, PV as "
                   "separate kernels; the s*s scores are kept for the backward"},
     .selective = {selective_policy::attention_core,
                   "Korthikanti et al. 2022, Sec. 5: the attention core (--recompute-activations)"},
     .max_zero = {0, "no distributed optimizer before Megatron-LM 2022"},
     .default_zero = {0, "Megatron-LM v2.5 has no distributed optimizer"},
     .sharding_with_pp = {false, "no sharding"},
     .gathers_per_micro_batch = {2, "no sharding"},
     .gathered_layers = {2, "no sharding"},
     .p2p_overlap = {0.0, "megatron/schedules.py (v2.5): blocking p2p before and after each "
                          "micro-batch"},
     .sequence_parallel = {false, "no sequence parallelism before Megatron-LM v3 (2022)"},
     .sp_input_regather = {true, "with --sequence-parallel, Megatron-LM v3's (2022) "
                                 "megatron/mpu/layers.py: the saved s/t input is all-gathered "
                                 "again in the backward, async before the input-gradient GEMM"},
     .cross_entropy = {cross_entropy_kernel::unfused,
                       "megatron/mpu/cross_entropy.py (v2.5): vocab_parallel_cross_entropy, no "
                       "fused variant"},
     .kernels = {kernel_stack::megatron_fused,
                 "megatron/fused_kernels: fused scaled-masked softmax, bias-GeLU, "
                 "bias-dropout-add (the A100 eta are calibrated on these runs)"}},
    {.stack = software_stack::deepspeed,
     .name = "deepspeed",
     .release = "deepspeedai/DeepSpeed v0.19.5",
     .summary = "DeepSpeed ZeRO-1/2/3: ZeRO-2 reduce-scatters every micro-batch, ZeRO-3 gathers "
                "each layer's weights in forward and backward with prefetch; bf16 on the wire",
     .tp_overlap = {0.0, "no TP overlap in DeepSpeed's engine (TP from Megatron or AutoTP)"},
     .input_grad_overlap = {async_input_grad::none,
                           "assumed: DeepSpeed's engine adds no TP overlap (Megatron-DeepSpeed's "
                           "or AutoTP's collectives are costed as run inline)"},
     .grad_accumulation_fusion = {fused_accumulation::never,
                                 "assumed: DeepSpeed's engine accumulates the gradients "
                                 "autograd writes (no fused weight-gradient accumulation)"},
     .dp_overlap = {0.0, "deepspeed/runtime/zero/config.py: overlap_comm defaults to "
                         "stage == 3 (False for ZeRO 0-2)"},
     .dp_overlap_zero3 = {1.0, "deepspeed/runtime/zero/config.py: overlap_comm defaults to True "
                               "for stage 3 (stage3_prefetch_bucket_size 5e7)"},
     .grad_wire_bytes = {2, "deepspeed/runtime/engine.py communication_data_type(): the "
                            "bf16/fp16 training dtype unless communication_data_type is set"},
     .state = {mixed_precision_adam, "ZeRO's count (Rajbhandari et al. 2020, Sec. 3.1): 2 + 2 + "
                                     "12 bytes per parameter"},
     .attention = {attention_kernel::fused,
                   "DeepSpeed leaves attention to the model code; HF Transformers' default is "
                   "SDPA (flash)"},
     .selective = {selective_policy::attention_core,
                   "DeepSpeed checkpoints whole layers; tpcost keeps Korthikanti et al.'s selective "
                   "count"},
     .max_zero = {3, "deepspeed/runtime/zero/config.py: stage 0..3"},
     .default_zero = {0, "deepspeed/runtime/zero/config.py: stage = 0 unless zero_optimization.stage is set"},
     .sharding_with_pp = {false, "deepspeed/runtime/pipe/engine.py: \"ZeRO-2 and ZeRO-3 are "
                                 "incompatible with pipeline parallelism\""},
     .gathers_per_micro_batch = {2, "deepspeed/runtime/zero/partitioned_param_coordinator.py: "
                                    "parameters fetched before each module's forward and "
                                    "backward"},
     .gathered_layers = {2, "the layer computed and the one prefetched (prefetch bucket 5e7 "
                            "parameters, about a layer of a 7B model)"},
     .p2p_overlap = {0.0, "deepspeed/runtime/pipe/engine.py: 1F1B without interleaving; "
                          "sends and receives are instructions of the schedule"},
     .sequence_parallel = {false, "DeepSpeed's engine has no Megatron-SP (Ulysses is CP)"},
     .sp_input_regather = {true, "with --sequence-parallel, Megatron-DeepSpeed's layers.py is "
                                 "Megatron-LM's of 2022: the saved s/t input is all-gathered "
                                 "again in the backward (costed inline, as this profile costs "
                                 "its TP collectives)"},
     .cross_entropy = {cross_entropy_kernel::unfused,
                       "Megatron-DeepSpeed's vocab_parallel_cross_entropy (Megatron-LM's of "
                       "2022, unfused)"},
     .kernels = {kernel_stack::megatron_fused,
                 "Megatron-DeepSpeed runs Megatron's fused kernels (the SC21 Table 2 rows); a "
                 "Hugging Face model under DeepSpeed runs PyTorch eager, not priced apart"}},
    {.stack = software_stack::fsdp2,
     .name = "fsdp2",
     .release = "pytorch/torchtitan v0.2.2 (73a0e69)",
     .summary = "torchtitan with FSDP2 (fully_shard: --zero 3), per-layer all-gathers "
                "with implicit prefetch, fp32 reduce-scatter every micro-batch",
     .tp_overlap = {0.0, "torchtitan/config/job_config.py: enable_async_tensor_parallel = False"},
     .input_grad_overlap = {async_input_grad::none,
                           "torchtitan: DTensor's TP collectives run inline unless async TP "
                           "(enable_async_tensor_parallel = False)"},
     .grad_accumulation_fusion = {fused_accumulation::never,
                                 "PyTorch autograd accumulates .grad (Megatron-LM's "
                                 "arguments.py asserts --use-torch-fsdp2 runs without the "
                                 "fusion)"},
     .dp_overlap = {1.0, "FSDP2 reduce-scatters each layer's gradients on a separate stream as "
                         "its backward ends (torch.distributed.fsdp.fully_shard)"},
     .dp_overlap_zero3 = {1.0, "FSDP2 prefetches the next layer's all-gather (forward and "
                               "backward) on a separate stream"},
     .grad_wire_bytes = {4, "torchtitan/config/job_config.py: mixed_precision_reduce = "
                            "\"float32\""},
     .state = {{4.0, 4.0, 8.0}, "fp32 sharded parameters and gradients, Adam moments: 4 + 4 + 8 "
                                "bytes (job_config.py: mixed_precision_param bf16 only for the "
                                "gathered copy)"},
     .attention = {attention_kernel::fused,
                   "torchtitan/models/attention.py: F.scaled_dot_product_attention (flash)"},
     .selective = {selective_policy::per_op,
                   "torchtitan's Llama 3 configs: [activation_checkpoint] mode = \"selective\", "
                   "selective_ac_option = \"op\" (every second matmul and the element-wise ops "
                   "recomputed)"},
     .max_zero = {3, "fully_shard = stage 3; tpcost's stage 1 and 2 stand for HSDP-like "
                     "choices torchtitan does not name"},
     .default_zero = {3, "torchtitan/config/job_config.py: data_parallel_shard_degree = -1, every block under fully_shard"},
     .sharding_with_pp = {true, "torchtitan/models/llama3/infra/parallelize.py apply_fsdp: FSDP "
                                "runs with PP, reshard_after_forward = not pp_enabled"},
     .gathers_per_micro_batch = {2, "apply_fsdp: reshard_after_forward = True without PP (1 with "
                                    "PP: the weights stay gathered for the backward)"},
     .gathered_layers = {2, "the layer computed and the one prefetched (all of the stage with "
                            "PP: reshard_after_forward = False)"},
     .p2p_overlap = {0.0, "torch.distributed.pipelining: tpcost keeps the sends and receives "
                          "exposed (no measurement of their overlap)"},
     .sequence_parallel = {true, "torchtitan/models/llama3/infra/parallelize.py apply_tp: "
                                 "SequenceParallel on the norms whenever TP is on"},
     .sp_input_regather = {false, "torch.distributed.tensor.parallel ColwiseParallel: the "
                                  "all-gathered DTensor input is what autograd saves for the "
                                  "weight gradient; nothing is gathered again"},
     .cross_entropy = {cross_entropy_kernel::unfused,
                       "assumed: torch's cross_entropy over the vocab-parallel logits "
                       "(loss_parallel), costed as Megatron's unfused kernels"},
     .kernels = {kernel_stack::pytorch_eager,
                 "torchtitan/config/job_config.py: [compile] enable = False (components "
                 "[\"model\", \"loss\"]): PyTorch eager kernels; --torch-compile"}},
    {.stack = software_stack::megatron_bridge,
     .name = "megatron-bridge",
     .release = "NVIDIA-NeMo/Megatron-Bridge 067f987df0 (2026-08-22, after v0.2.0rc6), the "
                "performance recipes (src/megatron/bridge/perf_recipes)",
     .summary = "Megatron-Bridge / NeMo 2.0 performance recipes: sequence parallelism when t > 1, "
                "the distributed optimizer, gradient and weight sync overlapped, TP and p2p "
                "overlap, bf16 gradient reduction, TE fused attention",
     .tp_overlap = {1.0, "recipes/llama/h100/llama3.py (70B): CommOverlapConfig(tp_comm_overlap="
                         "True) with TE userbuffers; training/comm_overlap.py turns it off at "
                         "t < 2 or without sequence parallelism"},
     .input_grad_overlap = {async_input_grad::all,
                           "Megatron-Core's linear layers (megatron/core/tensor_parallel/"
                           "layers.py, core_v0.16.0, and Transformer Engine's linear.py): "
                           "the input-gradient all-reduce or reduce-scatter behind the "
                           "weight-gradient GEMM, where userbuffers are off"},
     .grad_accumulation_fusion = {fused_accumulation::except_zero3,
                                 "models/gpt_provider.py: gradient_accumulation_fusion = "
                                 "fusions.can_enable_gradient_accumulation_fusion() (on with "
                                 "Transformer Engine); the Megatron-FSDP performance configs "
                                 "(llama3_70b_gb200/b200_64gpus_*_config) set it False"},
     .dp_overlap = {1.0, "recipes/common.py _pretrain_common: DistributedDataParallelConfig("
                         "overlap_grad_reduce=True, overlap_param_gather=True)"},
     .dp_overlap_zero3 = {1.0, "as dp_overlap (Megatron-FSDP, ddp.use_megatron_fsdp)"},
     .grad_wire_bytes = {2, "perf_recipes/_common.py _benchmark_common and _perf_precision: "
                            "grad_reduce_in_fp32 = False (bf16 gradients reduced)"},
     .state = {mixed_precision_adam,
               "grad_reduce_in_fp32 = False keeps a bf16 main_grad buffer: 2 + 2 + 12 bytes, "
               "the distributed optimizer's 4 + 12/d"},
     .attention = {attention_kernel::fused,
                   "Transformer Engine's fused attention (the recipes' transformer_impl)"},
     .selective = {selective_policy::attention_core,
                   "Megatron-Core's recompute_modules default ['core_attn']"},
     .max_zero = {3, "ddp.use_distributed_optimizer (stage 1); Megatron-FSDP "
                     "data_parallel_sharding_strategy optim_grads / optim_grads_params"},
     .default_zero = {1, "recipes/common.py _pretrain_common: use_distributed_optimizer=True"},
     .sharding_with_pp = {false, "as megatron-core"},
     .gathers_per_micro_batch = {2, "Megatron-FSDP re-gathers weights for the backward"},
     .gathered_layers = {2, "the layer computed and the one prefetched"},
     .p2p_overlap = {1.0, "training/comm_overlap.py: overlap_p2p_comm = True when p > 1 and "
                          "v > 1 (batch_p2p_comm otherwise)"},
     .sequence_parallel = {true, "the perf recipes set model.sequence_parallel = True whenever "
                                 "tensor_model_parallel_size > 1 (perf_recipes/llama/h100/"
                                 "llama3.py)"},
     .sp_input_regather = {true, "as megatron-core (Transformer Engine's linears; under "
                                 "tp_comm_overlap the gather runs in the bulk-dgrad "
                                 "userbuffers overlap)"},
     .cross_entropy = {cross_entropy_kernel::te,
                       "models/gpt_provider.py: cross_entropy_loss_fusion = True; "
                       "scripts/performance/utils/overrides.py sets cross_entropy_fusion_impl = "
                       "\"te\" for every performance run"},
     .kernels = {kernel_stack::megatron_fused,
                 "the recipes' transformer_impl = \"transformer_engine\""}},
}};
// clang-format on

/// The stack a step runs without --stack: the Megatron-Bridge / NeMo performance recipes,
/// which the published Megatron runs of the development data were launched from (the DGX Cloud
/// Nemotron-4, NeMo long-sequence, Megatron-Bridge GB300 and MoE recipe rows all ran with SP,
/// the distributed optimizer and the overlaps on); Megatron-LM's own argument defaults are
/// --stack megatron-core, which a launch script read by --from is costed on.
inline constexpr std::string_view default_stack_name = "megatron-bridge";

/// "megatron-core|megatron-2021|deepspeed|fsdp2|megatron-bridge".
inline std::string stack_choices() {
  std::string out;
  for (const auto& p : stack_profiles) {
    out += (out.empty() ? "" : "|") + std::string(p.name);
  }
  return out;
}

/// The profile named `name`; throws `invalid_spec(field, ...)` listing the choices.
inline const stack_profile& stack_profile_by_name(std::string_view name, std::string_view field) {
  for (const auto& p : stack_profiles) {
    if (p.name == name) {
      return p;
    }
  }
  throw invalid_spec(std::string(field),
                     quote_value(name) + " is not a stack; expected " + stack_choices());
}

constexpr const stack_profile& profile_of(software_stack stack) {
  return stack_profiles[static_cast<std::size_t>(stack)];
}

/// The rule on sharding with pipelines, the same in `step` and `plan`: ZeRO-2 and 3 need p = 1
/// unless the stack runs them with pipelines (FSDP2 in torchtitan).
constexpr bool sharding_allowed(const stack_profile& stack, zero_stage zero, std::int64_t pp) {
  return static_cast<int>(zero) < 2 || pp == 1 || stack.sharding_with_pp.value;
}

/// ZeRO-3/FSDP weight all-gathers per micro-batch: forward and backward, or one when the stack
/// keeps the weights gathered for the backward with pipelines (torchtitan's
/// reshard_after_forward = not pp_enabled).
constexpr double zero3_gathers_per_micro_batch(const stack_profile& stack, std::int64_t pp) {
  return stack.stack == software_stack::fsdp2 && pp > 1
             ? 1.0
             : static_cast<double>(stack.gathers_per_micro_batch.value);
}

/// ZeRO-3/FSDP: the full layers of 16-bit weights a GPU holds at once, for a stage of `layers`:
/// the one computed and the one prefetched, or the whole stage when it is not resharded after
/// the forward (FSDP2 with PP).
constexpr std::int64_t zero3_gathered_layers(const stack_profile& stack, std::int64_t pp,
                                             std::int64_t layers) {
  const auto held =
      stack.stack == software_stack::fsdp2 && pp > 1 ? layers : stack.gathered_layers.value;
  return held < layers ? held : layers;
}

}  // namespace tpcost
