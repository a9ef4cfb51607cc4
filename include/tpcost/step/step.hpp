// One whole training step across TP × PP × CP × DP (and EP folded over them): time, its
// breakdown, throughput, MFU/HFU, μ and memory per GPU.
//
// For N = t·p·d GPUs (cp = 1; long_context.hpp gives the step with cp > 1 or an FP8/FP4
// recipe as the step of a view plus the terms it leaves out, which evaluate_step adds), global
// batch G, micro-batch b and m = G/(d·b) micro-batches:
//
//   layer   = compute (forward, recomputed forward, backward; compute_model.hpp)
//           + gradient accumulation + exposed TP collectives (count per recompute/SP mode)
//   stage   = its layers × layer (+ the embedding's TP collectives on the first stage, the
//             output layer, its TP collectives and the loss's all-reduces on the last)
//   step    = m·(slowest stage + p2p) + (p−1)/v·(average stage + p2p)      pipeline, 1F1B
//           + exposed DP gradient sync + embedding all-reduce + optimizer
//
// The pipeline term is the interleaved 1F1B schedule of Narayanan et al. 2021 (Sec. 2.2):
// m micro-batches paced by the slowest stage plus the bubble (p−1)/v of one stage's time.
// Gradient accumulation runs the DP sync once per step, after the last micro-batch; a fraction
// `dp_overlap` of it hides behind that micro-batch's backward (1 ≈ PyTorch DDP buckets, 0 =
// Megatron's "local" DDP). ZeRO-2 and ZeRO-3 shard the gradients (and weights), so they sync
// every micro-batch instead (m reduce-scatters; ZeRO-3 also two weight all-gathers each).
// Where each group lies (TP, DP, the p2p hop, the embedding pair) is decided in one place,
// `place` (stages.hpp), in Megatron's rank order. The arithmetic lives in stages.hpp, which the
// planner shares; this file validates and reports. docs/step.md gives the derivation and the
// validation.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tpcost/base/checked.hpp"
#include "tpcost/comm/collectives.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/hardware/hardware.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/memory.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/model/pipeline_parallel.hpp"
#include "tpcost/model/precision.hpp"
#include "tpcost/step/compute_model.hpp"
#include "tpcost/step/context_parallel.hpp"
#include "tpcost/step/long_context.hpp"
#include "tpcost/step/stages.hpp"

namespace tpcost {

/// Everything one step evaluation needs.
struct step_inputs {
  transformer_spec model;
  parallel_config par;  ///< par.dp = d, the replicas of the whole model: N = t·p·cp·d
  compute_device gpu;   ///< the BF16 peak and η
  /// The linear layers' recipe and its rates on this GPU (precision_device_for); the default
  /// is BF16, which changes nothing.
  precision_device precision{};
  bytes memory_capacity{};
  cluster_topology topology;
  step_options options;
};

/// Where the time of a step goes, on the critical (slowest) GPU.
struct step_breakdown {
  seconds compute{};    ///< matmuls and element-wise kernels, recomputation included
  seconds tp_comm{};    ///< exposed TP collectives (ETP's too)
  seconds ep_comm{};    ///< exposed MoE dispatch and combine all-to-alls
  seconds bubble{};     ///< pipeline fill and drain
  seconds p2p{};        ///< activations sent between stages
  seconds dp_comm{};    ///< exposed gradient sync, embedding all-reduce included
  seconds optimizer{};  ///< the optimizer step
  [[nodiscard]] constexpr seconds total() const {
    return compute + tp_comm + ep_comm + bubble + p2p + dp_comm + optimizer;
  }
};

/// The parts of a step's breakdown, in the order the step reports them.
struct breakdown_part {
  std::string_view key;  ///< JSON key
  seconds step_breakdown::*time;
};
inline constexpr std::array<breakdown_part, 7> breakdown_parts{{
    {"compute", &step_breakdown::compute},
    {"tp_comm", &step_breakdown::tp_comm},
    {"ep_comm", &step_breakdown::ep_comm},
    {"bubble", &step_breakdown::bubble},
    {"p2p", &step_breakdown::p2p},
    {"dp_comm", &step_breakdown::dp_comm},
    {"optimizer", &step_breakdown::optimizer},
}};

/// What context parallelism and the precision recipe add to the step of the view
/// (long_context.hpp), per step unless named otherwise; the step's time, breakdown and memory
/// include them.
struct long_context_terms {
  /// Whether the step has them: cp > 1, or a recipe that changes the step (changes_step).
  /// Otherwise they are all zero and the step is the BF16 step without CP, exactly.
  bool added = false;
  cp_layer_comm cp_per_layer;  ///< one layer, one micro-batch
  seconds cp_exposed{};        ///< the exposed CP exchange (added to the step time, and
                               ///< reported apart from the breakdown)
  seconds cp_hidden{};         ///< the CP exchange hidden behind attention
  seconds attention_extra{};   ///< attention against s keys beyond the s/cp view
  seconds linear_saving{};     ///< linear GEMMs at the precision rate vs BF16
};

/// The outcome of one step evaluation; rendering reads it and computes nothing.
struct step_result {
  std::int64_t gpus = 0;           ///< N = t·p·cp·d
  std::int64_t micro_batches = 0;  ///< m = G/(d·b)
  step_breakdown time;
  seconds step_time{};
  step_flops flops;  ///< model and hardware FLOPs of the step
  double tokens_per_second = 0.0;
  flops_per_second model_flops_per_gpu{};  ///< achieved, model FLOPs
  flops_per_second
      hardware_flops_per_gpu{};  ///< achieved, with recomputation (the papers' TFLOP/s)
  double mfu = 0.0;
  double hfu = 0.0;
  double utilisation = 0.0;  ///< μ = compute / step = 1/(1+R̄), R̄ = every overhead / compute
  /// MFU against the BF16 peak and against the peak of the linear layers' own rate.
  utilisation_report peak_utilisation;
  // Per micro-batch and per step communication, before overlap:
  seconds tp_comm_per_layer{};  ///< one layer, one micro-batch
  double tp_collectives_per_layer = 0.0;
  bytes tp_message{};  ///< b·s·h·2 per collective
  collective_algorithm tp_algorithm = collective_algorithm::ring;
  seconds dp_sync{};  ///< all DP traffic of a step, before overlap (m per-micro-batch syncs with
                      ///< ZeRO-2/3)
  bytes dp_bytes_per_gpu{};  ///< the gradients of this GPU's parameters, in the stack's wire dtype
  collective_algorithm dp_algorithm = collective_algorithm::ring;
  bytes p2p_message{};
  double bubble_fraction = 0.0;  ///< (p−1)/(v·m)
  /// MoE (all zero for a dense model): one MoE layer and micro-batch, before overlap.
  struct expert_figures {
    std::int64_t moe_layers = 0;     ///< layers with experts
    std::int64_t expert_dp = 1;      ///< t·cp·d/(ep·etp)
    ep_all_to_all_cost dispatch;     ///< one dispatch (a combine costs the same)
    group_placement ep_group;        ///< where it runs
    double all_to_alls = 0.0;        ///< dispatches and combines per layer (4, or 6 with full
                                     ///< recomputation)
    seconds all_to_all_per_layer{};  ///< their time
    seconds tp_per_layer{};          ///< the layer's TP and ETP collectives
    double routed_copies = 0.0;      ///< (token, expert) copies the busiest GPU's experts run
    bytes expert_states{};           ///< the peak stage's expert weights, grads, optimizer
  } experts;
  std::string dispatcher;  ///< the token dispatcher, for the report
  memory_report memory;
  std::vector<std::string> warnings;
  long_context_terms long_context;  ///< cp > 1 or an FP8/FP4 recipe (long_context.hpp)
};

namespace detail {

inline void require_fraction(const char* field, double value) {
  if (!(value >= 0.0 && value <= 1.0)) {
    throw invalid_spec(field, "must be a fraction in [0, 1]");
  }
}

}  // namespace detail

/// Throws `invalid_spec` naming the field when the GPU, the cluster or the options cannot be
/// evaluated: a non-positive peak or HBM bandwidth, an efficiency outside (0, 1], an overlap
/// outside [0, 1], or an invalid topology (`validate(cluster_topology)`).
inline void validate_step_environment(const compute_device& gpu, const cluster_topology& topology,
                                      const step_options& options) {
  validate(topology);
  detail::require_fraction("tp-overlap", options.tp_overlap);
  detail::require_fraction("dp-overlap", options.dp_overlap);
  detail::require_fraction("dp-overlap", options.dp_overlap_zero3);
  const auto& load = options.experts.load;
  if (!(load.load_imbalance >= 1.0 && load.load_imbalance <= 1e6)) {
    throw invalid_spec("moe-load-imbalance",
                       "must be at least 1 (the busiest GPU's tokens over the balanced share)");
  }
  if (!(load.capacity_factor == 0.0 ||
        (load.capacity_factor > 0.0 && load.capacity_factor <= 1e6))) {
    throw invalid_spec("moe-expert-capacity-factor",
                       "must be positive (tokens kept per expert over the balanced share), or 0 "
                       "for dropless");
  }
  for (const auto& [field, value] : {std::pair{"matmul-efficiency", gpu.efficiency.matmul},
                                     std::pair{"memory-efficiency", gpu.efficiency.memory}}) {
    if (!(value > 0.0 && value <= 1.0)) {
      throw invalid_spec(field, "must be a fraction in (0, 1]");
    }
  }
  if (!(gpu.peak.value() > 0.0) || !(gpu.memory_bandwidth.value() > 0.0)) {
    throw invalid_spec("gpu", "needs a positive peak FLOP/s and HBM bandwidth");
  }
}

/// The environment of a step's inputs or a plan's request (all but the layout): the model,
/// GPU, memory, topology and options they hold under those names.
template <class Inputs>
requires requires(const Inputs& in) {
  in.model;
  in.gpu;
  in.memory_capacity;
  in.topology;
  in.options;
}
step_environment environment_of(const Inputs& in) {
  return {.model = in.model,
          .gpu = in.gpu,
          .memory_capacity = in.memory_capacity,
          .topology = in.topology,
          .options = in.options};
}

/// The model and hardware FLOPs of a step as its recipe runs it: the hardware FLOPs count what
/// selective recomputation's modules rerun (flops_per_step), and with block recomputation the
/// forward of the block_recompute_share of the layers only.
inline step_flops recipe_flops_per_step(const transformer_spec& model, const parallel_config& par,
                                        const step_options& options) {
  auto f = flops_per_step(model, par.global_batch, model.seq, par.recompute, options.mfu_flops,
                          options.selective, options.recompute.modules);
  const double recomputed = block_recompute_share(model, par, options.recompute);
  if (recomputed < 1.0) {
    const auto plain = flops_per_step(model, par.global_batch, model.seq, recompute_mode::none,
                                      options.mfu_flops, options.selective);
    f.hardware = recomputed * f.hardware + (1.0 - recomputed) * plain.hardware;
  }
  return f;
}

namespace detail {

/// Validates and evaluates the step of a layout without CP and with BF16 linear layers (the
/// inputs' cp and recipe are not read): the stages of stages.hpp, and the report around them.
/// evaluate_step runs it as it stands, or on the view of long_context.hpp.
inline step_result evaluate_view(const step_inputs& in) {
  const auto& model = in.model;
  const auto& par = in.par;
  const auto pipe = summarize_pipeline(model, par, in.options.activation_bytes,
                                       in.options.scatter_gather);  // validates model and par
  validate_step_environment(in.gpu, in.topology, in.options);
  const auto& stack = profile_of(in.options.stack);
  if (static_cast<int>(par.zero) > stack.max_zero.value) {
    throw invalid_spec("zero",
                       "ZeRO-" + std::to_string(static_cast<int>(par.zero)) + " under " +
                           std::string(stack.name) + ", which offers stages 0.." +
                           std::to_string(stack.max_zero.value) +
                           "; pick a --stack that offers it (megatron-core, deepspeed, fsdp2)");
  }
  if (!sharding_allowed(in.options, par.zero, par.pp)) {
    throw invalid_spec("zero", "ZeRO-" + std::to_string(static_cast<int>(par.zero)) +
                                   " with p = " + std::to_string(par.pp) + " stages under " +
                                   std::string(stack.name) +
                                   ": sharded gradients or weights need p = 1 (DeepSpeed's "
                                   "pipeline engine refuses them); use --zero 1 with pipelines, "
                                   "or --stack fsdp2");
  }
  const auto env = environment_of(in);

  const group_sizes sizes{.tp = par.tp,
                          .pp = par.pp,
                          .dp = par.dp,
                          .ep = par.ep,
                          .etp = par.etp,
                          .dp_replicas = par.dp_replicas};
  const auto x = group_stage(env, sizes, pipe.split);
  const auto y = batch_stage(env, x, par.micro_batch, par.global_batch);
  const layout_choice choice{.vpp = par.vpp,
                             .sequence_parallel = par.sequence_parallel,
                             .recompute = par.recompute,
                             .zero = par.zero};
  auto timing = combine_step(env, x, y, choice);
  // Block recomputation (Megatron-Core, transformer_block.py _checkpointed_forward,
  // core_v0.16.0) reruns the forward of N of a chunk's layers and of no other: the step is the
  // full-recomputation step for that share of the layers and the step without recomputation
  // for the rest (every term is a sum over layers, or proportional to one).
  const double recomputed = block_recompute_share(model, par, in.options.recompute);
  if (recomputed < 1.0) {
    layout_choice none = choice;
    none.recompute = recompute_mode::none;
    timing = blend(timing, combine_step(env, x, y, none), recomputed);
  }

  step_result r;
  r.gpus = sizes.gpus();
  r.micro_batches = pipe.micro_batches;
  r.warnings = pipe.warnings;
  r.bubble_fraction = pipe.bubble_fraction;
  r.tp_message = y.tp_message;
  r.tp_comm_per_layer = timing.tp_comm_per_layer;
  r.tp_collectives_per_layer = timing.tp_collectives_per_layer;
  r.tp_algorithm = timing.tp_algorithm;
  r.dp_sync = timing.dp_sync;
  r.dp_bytes_per_gpu = x.dp_bytes;
  r.dp_algorithm = timing.dp_algorithm;
  r.p2p_message = pipe.p2p_message;
  r.step_time = timing.step_time;
  r.time.compute = timing.compute;
  r.time.tp_comm = timing.tp_comm;
  r.time.ep_comm = timing.ep_comm;
  if (is_moe(model.moe)) {
    r.experts.moe_layers = moe_layers(model);
    r.experts.expert_dp = par.tp * par.dp / (par.ep * par.etp);
    r.experts.dispatch = y.dispatch.cost;
    r.experts.ep_group = x.ep_group;
    r.experts.all_to_alls = timing.ep_all_to_alls_per_layer;
    r.experts.all_to_all_per_layer = timing.ep_comm_per_layer;
    r.experts.tp_per_layer = timing.moe_tp_comm_per_layer;
    r.experts.routed_copies = y.tokens.routed;
    r.dispatcher = std::string(to_string(in.options.experts.dispatcher));
  }
  r.time.bubble = timing.bubble;
  r.time.p2p = timing.p2p;
  r.time.dp_comm = timing.dp_comm;
  r.time.optimizer = timing.optimizer;

  r.flops = recipe_flops_per_step(model, par, in.options);
  const double n = static_cast<double>(r.gpus);
  r.tokens_per_second = static_cast<double>(par.global_batch * model.seq) / r.step_time.value();
  r.model_flops_per_gpu = r.flops.model / r.step_time / n;
  r.hardware_flops_per_gpu = r.flops.hardware / r.step_time / n;
  r.mfu = model_flops_utilisation(r.flops.model, r.step_time, r.gpus, in.gpu.peak);
  r.hfu = hardware_flops_utilisation(r.flops.hardware, r.step_time, r.gpus, in.gpu.peak);
  r.utilisation = r.time.compute / r.step_time;
  // The times are finite (combine_step checks them); a peak near the largest double can still
  // make the rates overflow.
  for (const double rate : {r.tokens_per_second, r.model_flops_per_gpu.value(),
                            r.hardware_flops_per_gpu.value(), r.mfu, r.hfu, r.utilisation}) {
    (void)require_finite_result("flops", rate, "throughput");
  }
  r.memory =
      memory_per_gpu(model, par, in.memory_capacity, in.options.attention, in.options.state,
                     zero3_gathered_layers(profile_of(in.options.stack), par.pp, model.layers),
                     in.options.experts.load, in.options.selective, in.options.recompute);
  r.experts.expert_states = r.memory.peak().expert_states;
  r.peak_utilisation =
      utilisation(r.flops.model, r.step_time, r.gpus, in.gpu.peak, in.gpu.peak, tensor_rate::bf16);
  return r;
}

}  // namespace detail

/// Validates the inputs (throws `invalid_spec` naming the field: "cp", "precision", "gpus",
/// ...) and evaluates one step. With cp = 1 and a recipe that does not change the step, the
/// stages of stages.hpp; otherwise those of the view (t, p, d·cp) on s/cp-token sequences plus
/// what the view leaves out (long_context.hpp), in the pipeline as compute is, with the
/// recipe's weight copies in memory and the FLOPs and utilisation of the real sequences.
inline step_result evaluate_step(const step_inputs& in) {
  if (in.par.cp == 1 && !changes_step(in.precision.options)) {
    return detail::evaluate_view(in);
  }
  const auto& s = in;
  const auto c = context_parallel_of(s.par.cp, s.options.cp);
  validate(s.model);
  validate(c, s.model, s.par.tp, s.topology.gpus_per_node, "cp");
  if (c.cp > 1 && s.options.attention != attention_kernel::fused) {
    throw invalid_spec("cp",
                       "context parallelism runs on a fused attention kernel (TE's "
                       "DotProductAttention); use --attention fused");
  }
  step_inputs view = s;
  view.model.seq = s.model.seq / c.cp;
  view.options = view_options(s.options, s.precision.options);
  view.par = view_layout(s.par);
  auto r = detail::evaluate_view(view);
  auto& lc = r.long_context;
  lc.added = true;

  const auto t = s.par.tp;
  const auto terms = long_context_layer_stage(environment_of(view), s.model, s.par.micro_batch, t,
                                              c, s.precision, s.par.ep, s.par.etp);
  lc.cp_per_layer = terms.cp;

  // Per layer and micro-batch → per step: m micro-batches on the slowest stage (L/p layers)
  // plus the bubble's (p−1)/v of a stage.
  const double pipeline =
      long_context_pipeline_factor(s.model.layers, s.par.pp, s.par.vpp, r.micro_batches);
  // The block method reruns the attention and the linear layers' forward of its share of the
  // layers only, as evaluate_view blends the rest of the step.
  const double recomputed = block_recompute_share(s.model, s.par, s.options.recompute);
  const auto& modules = s.options.recompute.modules;
  lc.attention_extra =
      pipeline * block_mix(terms.attention_extra(s.par.recompute, s.options.selective, modules),
                           terms.attention_extra(recompute_mode::none), recomputed);
  lc.linear_saving = pipeline * block_mix(terms.linear_saving(s.par.recompute),
                                          terms.linear_saving(recompute_mode::none), recomputed);
  lc.cp_exposed = pipeline * lc.cp_per_layer.exposed();
  lc.cp_hidden = pipeline * lc.cp_per_layer.hidden();
  r.time.compute += lc.attention_extra - lc.linear_saving;
  r.step_time += lc.attention_extra - lc.linear_saving + lc.cp_exposed;

  // The quantized weight copies TE keeps between micro-batches (weight_copies_of).
  const auto copies = weight_copies_of(s.model, s.precision, t, s.par.ep, s.par.etp, s.par.zero,
                                       shard_degree(view.par));
  if (copies.per_layer != 0.0) {
    auto& mem = r.memory;
    for (auto& stage : mem.stages) {
      add_weight_copies(stage, copies);
    }
    for (std::size_t i = 0; i < mem.stages.size(); ++i) {
      if (mem.stages[i].total() > mem.stages[mem.peak_stage].total()) {
        mem.peak_stage = i;
      }
    }
  }

  // FLOPs and utilisation of the real model (sequences of s tokens, G of them).
  r.flops = recipe_flops_per_step(s.model, s.par, s.options);
  const double n = static_cast<double>(r.gpus);
  r.tokens_per_second = static_cast<double>(s.par.global_batch * s.model.seq) / r.step_time.value();
  r.model_flops_per_gpu = r.flops.model / r.step_time / n;
  r.hardware_flops_per_gpu = r.flops.hardware / r.step_time / n;
  r.mfu = model_flops_utilisation(r.flops.model, r.step_time, r.gpus, s.gpu.peak);
  r.hfu = hardware_flops_utilisation(r.flops.hardware, r.step_time, r.gpus, s.gpu.peak);
  r.utilisation = r.time.compute / r.step_time;
  const auto rate = linear_rate(s.precision.options);
  const flops_per_second own = rate == tensor_rate::bf16 || !(s.precision.linear_peak.value() > 0.0)
                                   ? s.gpu.peak
                                   : s.precision.linear_peak;
  r.peak_utilisation = utilisation(r.flops.model, r.step_time, r.gpus, s.gpu.peak, own, rate);
  return r;
}

}  // namespace tpcost
