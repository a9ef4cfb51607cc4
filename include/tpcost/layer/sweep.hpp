// A TP sweep: the seed's per-layer model evaluated at each degree, plus the summary scalars
// (t*, the largest degree that keeps a target efficiency, μ there); and the same for the
// refined model of tp_layer_options.hpp (collective algorithms on a topology, SP,
// recomputation, overlap).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "tpcost/comm/topology.hpp"
#include "tpcost/layer/metrics.hpp"
#include "tpcost/layer/tensor_parallel.hpp"
#include "tpcost/layer/tp_layer_options.hpp"

namespace tpcost {

/// One row of a sweep: one TP degree.
struct scaling_row {
  std::int64_t tp = 1;
  seconds compute{};        ///< T_calc = A/t
  seconds comm{};           ///< T_comm = C
  seconds serial{};         ///< T_calc + T_comm
  seconds overlapped{};     ///< max(T_calc, T_comm)
  double ratio = 0.0;       ///< R
  double efficiency = 0.0;  ///< E = 1/(1+R)
  double comm_share = 0.0;  ///< R/(1+R) = 1 − E, the share of time spent communicating
  double speedup = 0.0;     ///< A / serial
};

/// Everything a sweep reports; rendering reads it and computes nothing.
struct sweep_result {
  layer_spec layer;
  device_spec device;
  double efficiency_target = 0.7;
  bytes message{};                   ///< b·s·h·d
  bytes comm_bytes{};                ///< 4·b·s·h·d per layer
  flops layer_flops{};               ///< 72·b·s·h²
  seconds single_gpu_compute{};      ///< A
  seconds comm{};                    ///< C
  double critical_tp = 0.0;          ///< t* = A/C
  double tp_bound_for_target = 0.0;  ///< largest real t with E(t) >= target
  std::vector<scaling_row> rows;
  /// The largest swept degree with E >= target, and μ there (none if no degree qualifies).
  std::optional<std::int64_t> best_swept_tp;
  double utilisation_at_best = 0.0;
};

/// One row at degree `tp`, from the per-layer cost.
constexpr scaling_row make_row(const layer_spec& layer, const device_spec& device,
                               std::int64_t tp) {
  const auto cost = tp_cost_per_layer(layer, device, tp);
  const auto a = single_gpu_compute_time(layer, device);
  const double ratio = comm_compute_ratio(cost.comm, cost.compute);
  const auto serial = serial_time(cost.compute, cost.comm);
  return scaling_row{
      .tp = tp,
      .compute = cost.compute,
      .comm = cost.comm,
      .serial = serial,
      .overlapped = overlapped_time(cost.compute, cost.comm),
      .ratio = ratio,
      .efficiency = efficiency_from_ratio(ratio),
      .comm_share = ratio / (1.0 + ratio),
      .speedup = speedup(a, serial),
  };
}

/// Validates the inputs (throws `invalid_spec`) and evaluates every degree in `degrees`.
/// `efficiency_target` in (0, 1) sets the "largest TP that keeps E >= target" summary.
inline sweep_result sweep_tp(const layer_spec& layer, const device_spec& device,
                             const std::vector<std::int64_t>& degrees,
                             double efficiency_target = 0.7) {
  validate(layer, device);
  if (degrees.empty()) {
    throw invalid_spec("tp", "the list of degrees is empty");
  }
  if (!(efficiency_target > 0.0 && efficiency_target < 1.0)) {
    throw invalid_spec("min-efficiency", "must be strictly between 0 and 1");
  }
  sweep_result result;
  result.layer = layer;
  result.device = device;
  result.efficiency_target = efficiency_target;
  result.message = message_bytes(layer);
  result.comm_bytes = tp_comm_bytes_per_layer(layer);
  result.layer_flops = layer_flops(layer);
  result.single_gpu_compute = single_gpu_compute_time(layer, device);
  result.comm = comm_time(layer, device);
  result.critical_tp = critical_tp_degree(result.single_gpu_compute, result.comm);
  result.tp_bound_for_target =
      max_tp_for_efficiency(result.single_gpu_compute, result.comm, efficiency_target);
  result.rows.reserve(degrees.size());
  for (const auto tp : degrees) {
    validate_tp(tp);
    result.rows.push_back(make_row(layer, device, tp));
    const auto& row = result.rows.back();
    if (row.efficiency >= efficiency_target) {
      result.best_swept_tp = tp;
      const std::array<time_split, 1> parts{{{row.compute, row.comm}}};
      result.utilisation_at_best = utilisation(parts);
    }
  }
  return result;
}

/// What `explain` walks through: the one-degree sweep plus the seed's closed form of R and
/// the efficiency at the seed's rule of thumb t = t*/2.
struct tp_explanation {
  sweep_result sweep;                        ///< exactly one row, at the explained degree
  double ratio_closed_form = 0.0;            ///< t·P·d / (18·h·B), equal to rows[0].ratio
  double half_critical_tp = 0.0;             ///< t*/2
  double efficiency_at_half_critical = 0.0;  ///< E(t*/2) = 2/3
};

/// Validates the inputs and explains one TP degree.
inline tp_explanation explain_tp(const layer_spec& layer, const device_spec& device,
                                 std::int64_t tp, double efficiency_target = 0.7) {
  tp_explanation out;
  out.sweep = sweep_tp(layer, device, {tp}, efficiency_target);
  out.ratio_closed_form = article_ratio_closed_form(layer, device, static_cast<double>(tp));
  out.half_critical_tp = out.sweep.critical_tp / 2.0;
  out.efficiency_at_half_critical =
      efficiency(out.sweep.single_gpu_compute, out.sweep.comm, out.half_critical_tp);
  return out;
}

/// One degree of a refined sweep: the seed's columns (with `serial`, `overlapped`, `ratio`
/// from T_calc and T_comm; `efficiency` = T_calc/T, `comm_share` = exposed/T and `speedup` =
/// A/T, T the partially overlapped time) and the refined layer cost behind them.
struct refined_row {
  scaling_row row;
  refined_layer_cost cost;
};

/// Everything a refined sweep reports; rendering reads it and computes nothing.
struct refined_sweep_result {
  layer_spec layer;
  device_spec device;
  cluster_topology topology;  ///< intra.bandwidth is --intra-bandwidth or --bandwidth
  tp_options options;
  std::int64_t heads = 0;  ///< a, as used
  dtype wire;              ///< the wire dtype, as used
  double efficiency_target = 0.7;
  bytes message{};                ///< b·s·h·d_wire
  layer_collectives collectives;  ///< per layer
  flops layer_flops{};            ///< 72 or 96 ·b·s·h², or the model's layer (tp_options)
  /// With a model: its layer's forward FLOPs per token, by term, at the layer's s.
  std::optional<layer_token_flops> model_layer;
  seconds single_gpu_compute{};  ///< A = layer_flops / P
  /// For comparison: the seed's C = 4·M/B on the same message, with B = --bandwidth under the
  /// seed collective and the intra-node link under the α–β ones.
  seconds article_comm{};
  bytes_per_second article_comparison_bandwidth{};
  std::vector<refined_row> rows;
  /// The largest swept degree with E >= target, and μ = E there (none if no degree qualifies).
  std::optional<std::int64_t> best_swept_tp;
  double utilisation_at_best = 0.0;
  /// The smallest swept degree at which T_comm >= T_calc (the refined model's t*, on the grid).
  std::optional<std::int64_t> first_tp_comm_over_compute;
  /// Where the swept degrees cross the node boundary (α–β collectives only): the last row
  /// inside one node, the first row spanning nodes, and T_comm's growth between them.
  struct node_boundary {
    std::size_t last_inside = 0;        ///< index into rows
    std::size_t first_spanning = 0;     ///< index into rows
    std::optional<double> comm_growth;  ///< T_comm(first_spanning) / T_comm(last_inside)
  };
  std::optional<node_boundary> boundary;
};

namespace detail {
inline void require_finite_link(const link_spec& link, bytes message, const char* bandwidth_field,
                                const char* latency_field) {
  // At most 12 collectives per layer, each sending at most 2·M.
  if (link.bandwidth.value() > 0.0 && !std::isfinite((24.0 * message / link.bandwidth).value())) {
    throw invalid_spec(bandwidth_field,
                       "makes the comm time overflow a double; check the units (bytes/s, e.g. "
                       "450GB/s)");
  }
  // At most 2(t−1) latency terms per collective, 12 collectives per layer.
  if (!std::isfinite(link.latency.value() * 24.0 * static_cast<double>(max_tp_degree))) {
    throw invalid_spec(latency_field, "makes the comm time overflow a double");
  }
}
}  // namespace detail

/// Validates everything the refined model reads; throws `invalid_spec` naming the flag.
inline void validate(const layer_spec& layer, const device_spec& device,
                     const cluster_topology& topology, const tp_options& options) {
  validate(layer, device);
  validate(options);
  if (options.collective != collective_choice::article) {
    validate(topology);
    layer_spec on_wire = layer;
    on_wire.element = wire_dtype(layer, options);
    const auto message = message_bytes(on_wire);
    detail::require_finite_link(topology.intra, message, "intra-bandwidth", "intra-latency");
    detail::require_finite_link(topology.inter, message, "inter-bandwidth", "inter-latency");
  }
}

/// One refined row at degree `tp`.
inline refined_row make_refined_row(const layer_spec& layer, const device_spec& device,
                                    const cluster_topology& topology, const tp_options& options,
                                    std::int64_t tp) {
  auto cost = tp_cost_per_layer(layer, device, topology, options, tp);
  if (!std::isfinite(cost.step.value()) || !std::isfinite(cost.wire_bytes.value())) {
    throw invalid_spec("collective", "the comm time of TP " + std::to_string(tp) +
                                         " overflows a double; check the link bandwidths and "
                                         "latencies");
  }
  const auto a = layer_flops(layer, options) / device.peak;
  const double ratio = comm_compute_ratio(cost.comm, cost.compute);
  const double e = cost.compute / cost.step;
  scaling_row row{
      .tp = tp,
      .compute = cost.compute,
      .comm = cost.comm,
      .serial = serial_time(cost.compute, cost.comm),
      .overlapped = overlapped_time(cost.compute, cost.comm),
      .ratio = ratio,
      .efficiency = e,
      .comm_share = cost.exposed_comm / cost.step,
      .speedup = speedup(a, cost.step),
  };
  return refined_row{.row = row, .cost = std::move(cost)};
}

/// The refined sweep: validates, then evaluates every degree. With `is_article_model(layer,
/// options)` the numbers equal `sweep_tp(layer, device, ...)`'s; the CLI then uses the seed's
/// sweep itself, so that its output stays byte for byte the seed's.
inline refined_sweep_result sweep_tp(const layer_spec& layer, const device_spec& device,
                                     const cluster_topology& topology, const tp_options& options,
                                     const std::vector<std::int64_t>& degrees,
                                     double efficiency_target = 0.7) {
  validate(layer, device, topology, options);
  if (degrees.empty()) {
    throw invalid_spec("tp", "the list of degrees is empty");
  }
  if (!(efficiency_target > 0.0 && efficiency_target < 1.0)) {
    throw invalid_spec("min-efficiency", "must be strictly between 0 and 1");
  }
  refined_sweep_result r;
  r.layer = layer;
  r.device = device;
  r.topology = topology;
  r.options = options;
  r.heads = attention_heads(layer, options);
  r.wire = wire_dtype(layer, options);
  r.efficiency_target = efficiency_target;
  layer_spec on_wire = layer;
  on_wire.element = r.wire;
  r.message = message_bytes(on_wire);
  r.collectives = collectives_per_layer(options);
  r.layer_flops = layer_flops(layer, options);
  if (options.model) {
    r.model_layer = layer_forward_flops_per_token(*options.model, layer.seq);
  }
  r.single_gpu_compute = r.layer_flops / device.peak;
  r.article_comparison_bandwidth = options.collective == collective_choice::article
                                       ? device.bandwidth
                                       : topology.intra.bandwidth;
  r.article_comm = static_cast<double>(article_collectives_per_layer) * r.message /
                   r.article_comparison_bandwidth;
  r.rows.reserve(degrees.size());
  for (const auto tp : degrees) {
    validate_tp(tp);
    validate_tp_for_model(options, tp);
    r.rows.push_back(make_refined_row(layer, device, topology, options, tp));
    const auto& row = r.rows.back().row;
    if (row.efficiency >= efficiency_target) {
      r.best_swept_tp = tp;
      r.utilisation_at_best = row.efficiency;
    }
    if (!r.first_tp_comm_over_compute && row.comm >= row.compute) {
      r.first_tp_comm_over_compute = tp;
    }
  }
  // Degree lists are sorted, so the rows inside one node come first.
  for (std::size_t i = 0; i + 1 < r.rows.size(); ++i) {
    const auto& here = r.rows[i].cost.group;
    const auto& next = r.rows[i + 1].cost.group;
    if (here && next && !here->spans_nodes() && next->spans_nodes()) {
      refined_sweep_result::node_boundary b{
          .last_inside = i, .first_spanning = i + 1, .comm_growth = {}};
      if (r.rows[i].row.comm.value() > 0.0) {
        b.comm_growth = r.rows[i + 1].row.comm / r.rows[i].row.comm;
      }
      r.boundary = b;
    }
  }
  return r;
}

/// What `explain` walks through under the refined model: the one-degree sweep and, for each
/// kind of collective in the layer, the cost of every α–β algorithm that implements it (empty
/// under the seed collective) and, under auto, what NCCL's tuner costs each of its algorithms at
/// (the one auto takes is the cheapest of those).
struct refined_explanation {
  refined_sweep_result sweep;                           ///< exactly one row
  std::vector<std::vector<algorithm_cost>> candidates;  ///< parallel to rows[0].cost.collectives
  /// Parallel to candidates; empty unless the collective is auto. NCCL's algorithms only: the
  /// textbook hierarchical that nccl_candidate_costs appends for reference is left out.
  std::vector<std::vector<algorithm_cost>> nccl_candidates;
};

/// Validates the inputs and explains one TP degree under the refined model.
inline refined_explanation explain_tp(const layer_spec& layer, const device_spec& device,
                                      const cluster_topology& topology, const tp_options& options,
                                      std::int64_t tp, double efficiency_target = 0.7) {
  refined_explanation out;
  out.sweep = sweep_tp(layer, device, topology, options, {tp}, efficiency_target);
  const auto& cost = out.sweep.rows.front().cost;
  for (const auto& use : cost.collectives) {
    if (cost.group) {
      out.candidates.push_back(candidate_costs(topology, *cost.group, use.op, cost.message));
    } else {
      out.candidates.emplace_back();
    }
    auto& nccl = out.nccl_candidates.emplace_back();
    if (cost.group && options.collective == collective_choice::automatic) {
      nccl = nccl_candidate_costs(topology, *cost.group, use.op, cost.message);
      std::erase_if(nccl, [](const algorithm_cost& c) {
        return c.algorithm == collective_algorithm::hierarchical;
      });
    }
  }
  return out;
}

}  // namespace tpcost
