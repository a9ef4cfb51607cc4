// The seed's scaling metrics: comm/compute ratio R, efficiency E(t), critical degree t*,
// speed-up, overlap and cluster utilisation μ. Pure functions of times; no model inside.
#pragma once

#include <span>

#include "tpcost/base/units.hpp"

namespace tpcost {

/// `R = T_comm / T_calc`.
constexpr double comm_compute_ratio(seconds comm, seconds compute) { return comm / compute; }

/// `E = 1 / (1 + R)`: the share of a GPU's time spent computing when nothing overlaps.
constexpr double efficiency_from_ratio(double ratio) { return 1.0 / (1.0 + ratio); }

/// `E(t) = (A/t) / (A/t + C) = A / (A + C·t)`, with `A` the single-GPU compute time and `C`
/// the (constant) comm time.
constexpr double efficiency(seconds single_gpu_compute, seconds comm, double tp) {
  return single_gpu_compute / (single_gpu_compute + comm * tp);
}

/// `t* = A / C`: the TP degree at which comm time equals compute time, so `E(t*) = 1/2`.
constexpr double critical_tp_degree(seconds single_gpu_compute, seconds comm) {
  return single_gpu_compute / comm;
}

/// The largest (real) `t` with `E(t) >= target`: `t = t*·(1 − target)/target`.
/// For target 0.7 this is 3/7·t* ≈ 0.43·t*; the seed's rule of thumb `t ≤ t*/2` gives 2/3.
constexpr double max_tp_for_efficiency(seconds single_gpu_compute, seconds comm, double target) {
  return critical_tp_degree(single_gpu_compute, comm) * (1.0 - target) / target;
}

/// `T = T_calc + T_comm`: nothing overlaps (the seed's "total").
constexpr seconds serial_time(seconds compute, seconds comm) { return compute + comm; }

/// `T_opt = max(T_calc, T_comm)`: the lower bound that perfect overlap reaches.
constexpr seconds overlapped_time(seconds compute, seconds comm) { return max(compute, comm); }

/// `T = T_calc + T_comm − f·min(T_calc, T_comm)`, a fraction `f ∈ [0, 1]` of the shorter of the
/// two hidden behind the longer: f = 0 is `serial_time`, f = 1 is `overlapped_time`. Computed as
/// `max + (1 − f)·min`, the same value, so that both endpoints are exact.
constexpr seconds partially_overlapped_time(seconds compute, seconds comm, double f) {
  return max(compute, comm) + (1.0 - f) * min(compute, comm);
}

/// `S(t) = A / T(t)`: speed-up against one GPU that computes the whole layer and never
/// communicates.
constexpr double speedup(seconds single_gpu_compute, seconds time_at_t) {
  return single_gpu_compute / time_at_t;
}

/// Compute and communication time of one part of a step (a layer, a stage, a dimension).
struct time_split {
  seconds compute{};
  seconds comm{};
};

/// `μ = 1 / (1 + R̄)` with `R̄ = ΣT_comm / ΣT_calc` over all parts: the cluster's utilisation.
/// An empty set, or one with no compute, has no defined utilisation and returns 0.
constexpr double utilisation(std::span<const time_split> parts) {
  seconds compute{};
  seconds comm{};
  for (const auto& part : parts) {
    compute += part.compute;
    comm += part.comm;
  }
  if (compute.value() <= 0.0) {
    return 0.0;
  }
  return efficiency_from_ratio(comm / compute);
}

}  // namespace tpcost
