// One whole training step across TP × PP × DP: time, its breakdown, throughput, MFU/HFU, μ and
// memory per GPU.
//
// For N = t·p·d GPUs, global batch G, micro-batch b and m = G/(d·b) micro-batches:
//
//   layer   = compute (forward, recomputed forward, backward; compute_model.hpp)
//           + gradient accumulation + exposed TP collectives (count per recompute/SP mode)
//   stage   = its layers × layer (+ the output layer and its loss on the last stage)
//   step    = m·(slowest stage + p2p) + (p−1)/v·(average stage + p2p)      pipeline, 1F1B
//           + exposed DP gradient sync + embedding all-reduce + optimizer
//
// The pipeline term is the interleaved 1F1B schedule of Narayanan et al. 2021 (Sec. 2.2):
// m micro-batches paced by the slowest stage plus the bubble (p−1)/v of one stage's time.
// Gradient accumulation runs the DP sync once per step, after the last micro-batch; a fraction
// `dp_overlap` of it hides behind that micro-batch's backward (1 ≈ PyTorch DDP buckets, 0 =
// Megatron's "local" DDP). ZeRO-2 and ZeRO-3 shard the gradients (and weights), so they sync
// every micro-batch instead (m reduce-scatters; ZeRO-3 also two weight all-gathers each).
// TP collectives run on the TP group's link (intra-node while t fits
// a node), DP collectives on the DP group's placement (Megatron's rank order puts TP fastest,
// so a node holds gpus_per_node/t members of a DP group), p2p between stages on the inter-node
// link once t·d fills a node. docs/step.md gives the derivation and the validation.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tpcost/comm/collectives.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/hardware/hardware.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/memory.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/model/pipeline_parallel.hpp"
#include "tpcost/step/compute_model.hpp"

namespace tpcost {

/// How the software runs the step (what a framework overlaps and how it talks).
struct step_options {
  double tp_overlap = 0.0;     ///< share of TP collectives hidden behind compute, in [0, 1]
  double dp_overlap = 0.0;     ///< share of the DP sync hidden behind the last backward, [0, 1]
  bool scatter_gather = true;  ///< Megatron's p2p split over the TP ranks (Narayanan Sec. 4.1)
  int activation_bytes = 2;    ///< 16-bit activations and gradients on the wire
  /// The attention kernel: its time (compute_model.hpp) and what it keeps for the backward
  /// pass (memory.hpp). The CLI defaults to fused.
  attention_kernel attention = attention_kernel::unfused;
};

/// Everything one step evaluation needs.
struct step_inputs {
  transformer_spec model;
  parallel_config par;
  compute_device gpu;
  bytes memory_capacity{};
  cluster_topology topology;
  step_options options;
};

/// Where the time of a step goes, on the critical (slowest) GPU.
struct step_breakdown {
  seconds compute{};    ///< matmuls and element-wise kernels, recomputation included
  seconds tp_comm{};    ///< exposed TP collectives
  seconds bubble{};     ///< pipeline fill and drain
  seconds p2p{};        ///< activations sent between stages
  seconds dp_comm{};    ///< exposed gradient sync, embedding all-reduce included
  seconds optimizer{};  ///< the optimizer step
  [[nodiscard]] constexpr seconds total() const {
    return compute + tp_comm + bubble + p2p + dp_comm + optimizer;
  }
};

/// The outcome of one step evaluation; rendering reads it and computes nothing.
struct step_result {
  std::int64_t gpus = 0;           ///< N = t·p·d
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
  // Per micro-batch and per step communication, before overlap:
  seconds tp_comm_per_layer{};  ///< one layer, one micro-batch
  double tp_collectives_per_layer = 0.0;
  bytes tp_message{};  ///< b·s·h·2 per collective
  collective_algorithm tp_algorithm = collective_algorithm::ring;
  seconds dp_sync{};  ///< all DP traffic of a step, before overlap (m per-micro-batch syncs with
                      ///< ZeRO-2/3)
  bytes dp_bytes_per_gpu{};  ///< 2·params on this GPU
  collective_algorithm dp_algorithm = collective_algorithm::ring;
  bytes p2p_message{};
  double bubble_fraction = 0.0;  ///< (p−1)/(v·m)
  memory_report memory;
  std::vector<std::string> warnings;
};

namespace detail {

/// The fastest α–β algorithm for `op` over `group` (auto, as NCCL's tuner picks), without
/// allocating.
inline algorithm_cost fastest_collective(const cluster_topology& topology,
                                         const group_placement& group, collective_op op,
                                         bytes message) {
  algorithm_cost best{collective_algorithm::ring,
                      collective_cost_in(topology, group, op, collective_algorithm::ring, message)};
  for (const auto algorithm : {collective_algorithm::tree, collective_algorithm::hierarchical}) {
    if (!implements(algorithm, op) ||
        (algorithm == collective_algorithm::hierarchical && !group.spans_nodes())) {
      continue;
    }
    const auto cost = collective_cost_in(topology, group, op, algorithm, message);
    if (cost.time < best.cost.time) {
      best = {algorithm, cost};
    }
  }
  return best;
}

/// A DP group in Megatron's rank order (TP fastest, then DP, then PP): a node holds
/// gpus_per_node / t consecutive DP ranks when t divides the node, else one.
constexpr group_placement dp_placement(const cluster_topology& topology, std::int64_t tp,
                                       std::int64_t dp) {
  const std::int64_t fit = tp < topology.gpus_per_node && topology.gpus_per_node % tp == 0
                               ? topology.gpus_per_node / tp
                               : 1;
  const std::int64_t per_node = std::min(dp, std::max<std::int64_t>(1, fit));
  return {.ranks = dp, .per_node = per_node, .nodes = (dp + per_node - 1) / per_node};
}

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

/// Validates the inputs (throws `invalid_spec` naming the field) and evaluates one step.
inline step_result evaluate_step(const step_inputs& in) {
  const auto& model = in.model;
  const auto& par = in.par;
  const auto pipe = summarize_pipeline(model, par, in.options.activation_bytes,
                                       in.options.scatter_gather);  // validates model and par
  validate_step_environment(in.gpu, in.topology, in.options);

  const auto t = par.tp;
  const auto p = par.pp;
  const auto d = par.dp;
  const auto v = par.vpp;
  const auto m = pipe.micro_batches;
  step_result r;
  r.gpus = t * p * d;
  r.micro_batches = m;
  r.warnings = pipe.warnings;
  r.bubble_fraction = pipe.bubble_fraction;

  // One layer, one micro-batch, one GPU.
  const auto kernels = layer_compute_time(model, par.micro_batch, t, in.gpu, in.options.attention);
  const seconds layer_compute = kernels.total(par.recompute) + kernels.grad_accumulation;
  const auto tp_group = place_group(in.topology, t, "tp");
  r.tp_message = static_cast<double>(par.micro_batch * model.seq * model.hidden *
                                     in.options.activation_bytes) *
                 units::B;
  const auto counts = tp_collectives_per_layer(par.recompute, par.sequence_parallel);
  seconds tp_layer{};
  if (t > 1) {
    const auto ar =
        detail::fastest_collective(in.topology, tp_group, collective_op::all_reduce, r.tp_message);
    const auto rs = detail::fastest_collective(in.topology, tp_group, collective_op::reduce_scatter,
                                               r.tp_message);
    const auto ag =
        detail::fastest_collective(in.topology, tp_group, collective_op::all_gather, r.tp_message);
    tp_layer = counts.all_reduce * ar.cost.time + counts.reduce_scatter * rs.cost.time +
               counts.all_gather * ag.cost.time;
    r.tp_algorithm = counts.all_reduce > 0 ? ar.algorithm : rs.algorithm;
  }
  r.tp_collectives_per_layer = counts.all_reduce + counts.reduce_scatter + counts.all_gather;
  r.tp_comm_per_layer = tp_layer;
  const seconds tp_exposed = (1.0 - in.options.tp_overlap) * tp_layer;

  // The output layer on the last stage: logits, loss, and the TP all-reduce of its input grad.
  const seconds logits_compute = logits_compute_time(model, par.micro_batch, t, in.gpu);
  const seconds logits_tp =
      t > 1 ? (1.0 - in.options.tp_overlap) * detail::fastest_collective(in.topology, tp_group,
                                                                         collective_op::all_reduce,
                                                                         r.tp_message)
                                                  .cost.time
            : seconds{};

  // Pipeline: the slowest stage paces the m micro-batches; the bubble costs (p−1)/v of an
  // average stage.
  const double layers_max = static_cast<double>(pipe.max_layers);
  const double layers_last = static_cast<double>(pipe.layers.back());
  const seconds per_layer = layer_compute + tp_exposed;
  const bool last_is_slowest =
      layers_last * per_layer + logits_compute + logits_tp >= layers_max * per_layer;
  // The critical GPU's compute and exposed TP time per micro-batch.
  const seconds stage_compute =
      last_is_slowest ? layers_last * layer_compute + logits_compute : layers_max * layer_compute;
  const seconds stage_tp =
      last_is_slowest ? layers_last * tp_exposed + logits_tp : layers_max * tp_exposed;
  const seconds slowest = stage_compute + stage_tp;
  const seconds average = static_cast<double>(model.layers) / static_cast<double>(p) * per_layer +
                          (logits_compute + logits_tp) / static_cast<double>(p);
  seconds p2p{};
  r.p2p_message = pipe.p2p_message;
  if (p > 1) {
    // Stage boundaries cross nodes once a stage (t·d GPUs) fills a node.
    const bool across_nodes = t * d >= in.topology.gpus_per_node;
    const auto& link = across_nodes ? in.topology.inter : in.topology.intra;
    seconds one = link.latency + pipe.p2p_message / link.bandwidth;
    if (in.options.scatter_gather && !par.sequence_parallel && t > 1) {
      // The receiver all-gathers the t slices over NVLink.
      one += ring_cost(collective_op::all_gather, t, r.tp_message, in.topology.intra).time;
    }
    p2p = 2.0 * static_cast<double>(v) * one;
  }
  const double fm = static_cast<double>(m);
  const seconds steady = fm * (slowest + p2p);
  const seconds bubble = static_cast<double>(p - 1) / static_cast<double>(v) * (average + p2p);

  // Data parallelism: one gradient sync per step (gradient accumulation), 16-bit gradients of
  // this GPU's parameters; ZeRO-1/distributed optimizer: reduce-scatter + all-gather, same bytes.
  // ZeRO-2 and 3 sync every micro-batch (below).
  // The GPU with the most parameters (the first or last stage, which hold the embeddings).
  const double params_here = std::max(params_per_gpu(model, par, 0, pipe.layers.front()),
                                      params_per_gpu(model, par, p - 1, pipe.layers.back()));
  r.dp_bytes_per_gpu = 2.0 * params_here * units::B;
  seconds dp_exposed{};
  if (d > 1) {
    const auto group = detail::dp_placement(in.topology, t, d);
    if (group.spans_nodes() && in.topology.inter.bandwidth.value() <= 0.0) {
      throw invalid_spec("inter-bandwidth",
                         "the DP group of " + std::to_string(d) +
                             " replicas spans nodes; give the inter-node link (e.g. --interconnect "
                             "ib-ndr)");
    }
    const double f = in.options.dp_overlap;
    if (par.zero == zero_stage::none || par.zero == zero_stage::optimizer) {
      const auto sync = detail::fastest_collective(in.topology, group, collective_op::all_reduce,
                                                   r.dp_bytes_per_gpu);
      r.dp_sync = sync.cost.time;
      r.dp_algorithm = sync.algorithm;
      // The window the sync can hide in: the last micro-batch's backward on the last stage, with
      // the backward's share of the TP collectives taken as a third (2 of the 6 with full
      // recomputation; an approximation for the other modes, mirrored in planner.hpp).
      const seconds last_backward = layers_last * (kernels.backward + tp_exposed / 3.0);
      dp_exposed = r.dp_sync - f * min(r.dp_sync, last_backward);
    } else {
      // ZeRO-2 keeps only this rank's shard of the gradients, so every micro-batch's gradients
      // are reduce-scattered as its backward produces them (m times a step, each hidden behind
      // that backward by `dp_overlap`), and the updated weights are all-gathered once.
      // ZeRO-3 also shards the weights: every micro-batch all-gathers them before its forward
      // and again before its backward (recomputation, when on, reuses the second gather), and
      // reduce-scatters the gradients: 3 half-all-reduces of 2 bytes/param per micro-batch,
      // hidden behind that micro-batch's compute by `dp_overlap` (Rajbhandari et al. 2020,
      // Sec. 7.2.2: 1.5x the all-reduce traffic per gradient sync).
      const auto rs = detail::fastest_collective(in.topology, group, collective_op::reduce_scatter,
                                                 r.dp_bytes_per_gpu);
      const auto ag = detail::fastest_collective(in.topology, group, collective_op::all_gather,
                                                 r.dp_bytes_per_gpu);
      r.dp_algorithm = rs.algorithm;
      if (par.zero == zero_stage::gradients) {
        const seconds backward = layers_last * (kernels.backward + tp_exposed / 3.0);
        r.dp_sync = fm * rs.cost.time + ag.cost.time;
        dp_exposed = fm * (rs.cost.time - f * min(rs.cost.time, backward)) + ag.cost.time;
      } else {
        const seconds per_micro_batch = 2.0 * ag.cost.time + rs.cost.time;
        const seconds compute = layers_last * layer_compute;
        r.dp_sync = fm * per_micro_batch;
        dp_exposed = fm * (per_micro_batch - f * min(per_micro_batch, compute));
      }
    }
  }
  if (p > 1 && model.tied_embeddings) {
    // First and last stage both hold the word embedding: all-reduce its gradient.
    const auto& link =
        in.topology.inter.bandwidth.value() > 0.0 ? in.topology.inter : in.topology.intra;
    dp_exposed += ring_cost(collective_op::all_reduce, 2,
                            2.0 * static_cast<double>(model.vocab * model.hidden) /
                                static_cast<double>(t) * units::B,
                            link)
                      .time;
  }

  // Optimizer: memory-bound over this GPU's (ZeRO-partitioned) parameters.
  const double optimizer_params =
      par.zero == zero_stage::none ? params_here : params_here / static_cast<double>(d);
  const seconds optimizer = optimizer_time(optimizer_params, in.gpu);

  r.step_time = steady + bubble + dp_exposed + optimizer;
  r.time.compute = fm * stage_compute;
  r.time.tp_comm = fm * stage_tp;
  r.time.bubble = bubble;
  r.time.p2p = fm * p2p;
  r.time.dp_comm = dp_exposed;
  r.time.optimizer = optimizer;

  r.flops = flops_per_step(model, par.global_batch, model.seq, par.recompute);
  const double n = static_cast<double>(r.gpus);
  r.tokens_per_second = static_cast<double>(par.global_batch * model.seq) / r.step_time.value();
  r.model_flops_per_gpu = r.flops.model / r.step_time / n;
  r.hardware_flops_per_gpu = r.flops.hardware / r.step_time / n;
  r.mfu = model_flops_utilisation(r.flops.model, r.step_time, r.gpus, in.gpu.peak);
  r.hfu = hardware_flops_utilisation(r.flops.hardware, r.step_time, r.gpus, in.gpu.peak);
  r.utilisation = r.time.compute / r.step_time;
  r.memory = memory_per_gpu(model, par, in.memory_capacity, in.options.attention);
  return r;
}

}  // namespace tpcost
