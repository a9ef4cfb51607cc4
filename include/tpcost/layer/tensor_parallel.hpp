// The seed article's per-layer model of tensor parallelism (Megatron-style TP, one layer).
//
// A transformer layer split over `t` GPUs runs two all-reduces in the forward pass (after the
// attention output projection and after the second MLP matmul) and two in the backward pass.
// Each moves the full activation, `b·s·h·d` bytes, whatever `t` is. The layer's matmuls cost
// `72·b·s·h²` FLOP forward and backward (Megatron's count without the attention-score term),
// split evenly over the `t` GPUs. Communication is charged at `B` bytes/s on the full
// message, the seed's convention.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "tpcost/base/dtype.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/units.hpp"

namespace tpcost {

/// The activation shape of one layer and the element type on the wire.
struct layer_spec {
  std::int64_t batch = 2;      ///< b, micro-batch size (sequences)
  std::int64_t seq = 2048;     ///< s, sequence length (tokens)
  std::int64_t hidden = 8192;  ///< h, hidden size
  dtype element{"fp32", 4};    ///< d = element.size_bytes
};

/// One GPU as the seed sees it: a compute rate and a communication bandwidth.
struct device_spec {
  flops_per_second peak{1e15};       ///< P
  bytes_per_second bandwidth{6e11};  ///< B, applied to the full message
};

/// The largest dimension accepted for b, s and h; tensor dimensions are 32-bit in practice.
inline constexpr std::int64_t max_dimension = std::numeric_limits<std::int32_t>::max();
/// The largest TP degree accepted; far beyond any cluster, small enough to stay exact.
inline constexpr std::int64_t max_tp_degree = std::int64_t{1} << 24;

/// Collectives per layer in the seed: 2 all-reduces forward, 2 backward.
inline constexpr int article_collectives_per_layer = 4;
/// FLOP per b·s·h² for a layer's forward and backward pass (Megatron, no attention scores).
inline constexpr double article_flops_coefficient = 72.0;

/// `M_msg = b·s·h·d`: the bytes of one collective's message, independent of `t`.
constexpr bytes message_bytes(const layer_spec& layer) {
  return static_cast<double>(layer.batch) * static_cast<double>(layer.seq) *
         static_cast<double>(layer.hidden) * static_cast<double>(layer.element.size_bytes) *
         units::B;
}

/// `M_layer = 4·b·s·h·d`: TP bytes per layer, forward and backward.
constexpr bytes tp_comm_bytes_per_layer(const layer_spec& layer) {
  return article_collectives_per_layer * message_bytes(layer);
}

/// `F_layer = 72·b·s·h²`: the whole layer's FLOP, forward and backward.
constexpr flops layer_flops(const layer_spec& layer) {
  const auto h = static_cast<double>(layer.hidden);
  return article_flops_coefficient * static_cast<double>(layer.batch) *
         static_cast<double>(layer.seq) * h * h * units::FLOP;
}

/// `A = F_layer / P`: the layer's compute time on one GPU.
constexpr seconds single_gpu_compute_time(const layer_spec& layer, const device_spec& device) {
  return layer_flops(layer) / device.peak;
}

/// `T_calc(t) = 72·b·s·h² / (t·P)`: per-GPU compute time at TP degree `t`.
constexpr seconds compute_time(const layer_spec& layer, const device_spec& device, double tp) {
  return single_gpu_compute_time(layer, device) / tp;
}

/// `C = T_comm = 4·b·s·h·d / B`: per-GPU communication time; it does not shrink with `t`.
constexpr seconds comm_time(const layer_spec& layer, const device_spec& device) {
  return tp_comm_bytes_per_layer(layer) / device.bandwidth;
}

/// `R = t·P·d / (18·h·B)`: the seed's closed form of T_comm / T_calc.
constexpr double article_ratio_closed_form(const layer_spec& layer, const device_spec& device,
                                           double tp) {
  return tp * device.peak.value() * static_cast<double>(layer.element.size_bytes) /
         (18.0 * static_cast<double>(layer.hidden) * device.bandwidth.value());
}

/// One layer at one TP degree: what each GPU moves and computes, and how long it takes.
struct tp_layer_cost {
  std::int64_t tp = 1;
  bytes message{};      ///< b·s·h·d, one collective
  bytes comm_bytes{};   ///< 4·b·s·h·d per layer (fwd+bwd)
  flops layer_flops{};  ///< 72·b·s·h², whole layer
  flops gpu_flops{};    ///< layer_flops / t, one GPU's share
  seconds compute{};    ///< T_calc
  seconds comm{};       ///< T_comm
};

/// Per-layer cost at TP degree `tp` (the seed's model).
constexpr tp_layer_cost tp_cost_per_layer(const layer_spec& layer, const device_spec& device,
                                          std::int64_t tp) {
  const auto t = static_cast<double>(tp);
  return tp_layer_cost{
      .tp = tp,
      .message = message_bytes(layer),
      .comm_bytes = tp_comm_bytes_per_layer(layer),
      .layer_flops = layer_flops(layer),
      .gpu_flops = layer_flops(layer) / t,
      .compute = compute_time(layer, device, t),
      .comm = comm_time(layer, device),
  };
}

namespace detail {
inline void require_dimension(const char* field, std::int64_t value) {
  if (value < 1 || value > max_dimension) {
    throw invalid_spec(field, std::to_string(value) +
                                  " is out of range; expected a whole number in 1.." +
                                  std::to_string(max_dimension));
  }
}
inline void require_positive_finite(const char* field, double value, const char* unit) {
  if (!std::isfinite(value) || value <= 0.0) {
    throw invalid_spec(field, "must be a positive finite number of " + std::string(unit));
  }
}
inline bool is_usable(double v) {
  return std::isfinite(v) && v >= std::numeric_limits<double>::min();
}
}  // namespace detail

/// Throws `invalid_spec` naming the field when the inputs are out of range, or when the
/// derived times overflow or vanish in double precision (e.g. --flops 1e-320).
inline void validate(const layer_spec& layer, const device_spec& device) {
  detail::require_dimension("batch", layer.batch);
  detail::require_dimension("seq", layer.seq);
  detail::require_dimension("hidden", layer.hidden);
  if (layer.element.size_bytes < 1 || layer.element.size_bytes > 16) {
    throw invalid_spec("dtype", std::to_string(layer.element.size_bytes) +
                                    " bytes per element is out of range; expected 1..16");
  }
  detail::require_positive_finite("flops", device.peak.value(), "FLOP/s");
  detail::require_positive_finite("bandwidth", device.bandwidth.value(), "bytes/s");
  const double compute = single_gpu_compute_time(layer, device).value();
  const double comm = comm_time(layer, device).value();
  if (!detail::is_usable(compute)) {
    throw invalid_spec("flops",
                       "makes the per-layer compute time overflow or underflow a double; "
                       "check the units (FLOP/s, e.g. 1PFLOP/s)");
  }
  if (!detail::is_usable(comm)) {
    throw invalid_spec("bandwidth",
                       "makes the per-layer comm time overflow or underflow a double; "
                       "check the units (bytes/s, e.g. 600GB/s)");
  }
}

/// Throws `invalid_spec` unless 1 <= tp <= max_tp_degree.
inline void validate_tp(std::int64_t tp) {
  if (tp < 1 || tp > max_tp_degree) {
    throw invalid_spec("tp", std::to_string(tp) +
                                 " is out of range; expected a whole number in 1.." +
                                 std::to_string(max_tp_degree));
  }
}

}  // namespace tpcost
