// A TP sweep: the seed's per-layer model evaluated at each degree, plus the summary scalars
// (t*, the largest degree that keeps a target efficiency, μ there).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "tpcost/metrics.hpp"
#include "tpcost/tensor_parallel.hpp"

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
  out.ratio_closed_form = seed_ratio_closed_form(layer, device, static_cast<double>(tp));
  out.half_critical_tp = out.sweep.critical_tp / 2.0;
  out.efficiency_at_half_critical =
      efficiency(out.sweep.single_gpu_compute, out.sweep.comm, out.half_critical_tp);
  return out;
}

}  // namespace tpcost
