// Activation memory of one transformer layer per GPU, with and without sequence parallelism.
//
// Source: V. Korthikanti, J. Casper, S. Lym, L. McAfee, M. Andersch, M. Shoeybi, B. Catanzaro,
// "Reducing Activation Recomputation in Large Transformer Models", MLSys 2023
// (arXiv:2205.05198), section 4 and Table 2. Symbols: s sequence length, b micro-batch, h
// hidden size, a attention heads, t TP degree. The constants (34, 10, 24, 5) count bytes with
// 16-bit activations and 1-byte dropout masks, as in the paper; they do not follow --dtype.
//  - no parallelism:        s·b·h·(34 + 5·a·s/h)
//  - TP (Megatron):         s·b·h·(10 + 24/t + 5·a·s/(h·t))   (LayerNorm and dropout inputs,
//                           10·s·b·h, are replicated on every TP rank)
//  - TP + SP:               s·b·h/t·(34 + 5·a·s/h)            (everything is sharded)
//  - full recomputation:    2·s·b·h, only the layer's input is kept (Table 2); with SP that
//                           input is sequence-sharded, so 2·s·b·h/t (our reading: Table 2 has
//                           no SP + full recomputation row).
#pragma once

#include <cstdint>

#include "tpcost/base/units.hpp"

namespace tpcost {

/// The shape that activation memory depends on.
struct activation_shape {
  std::int64_t batch = 2;      ///< b
  std::int64_t seq = 2048;     ///< s
  std::int64_t hidden = 8192;  ///< h
  std::int64_t heads = 64;     ///< a
};

namespace detail {
constexpr double sbh(const activation_shape& x) {
  return static_cast<double>(x.seq) * static_cast<double>(x.batch) * static_cast<double>(x.hidden);
}
/// 5·a·s/h: the attention scores, softmax output and its dropout mask per s·b·h.
constexpr double attention_term(const activation_shape& x) {
  return 5.0 * static_cast<double>(x.heads) * static_cast<double>(x.seq) /
         static_cast<double>(x.hidden);
}
}  // namespace detail

/// `s·b·h·(34 + 5·a·s/h)` bytes: one layer's activations without any parallelism
/// (Korthikanti et al. 2022, section 4.1, Table 2).
constexpr bytes activation_bytes_unsharded(const activation_shape& x) {
  return detail::sbh(x) * (34.0 + detail::attention_term(x)) * units::B;
}

/// `s·b·h·(10 + 24/t + 5·a·s/(h·t))` bytes per GPU with tensor parallelism alone
/// (Korthikanti et al. 2022, section 4.2.1, Table 2). Equals the unsharded value at t = 1.
constexpr bytes activation_bytes_tp(const activation_shape& x, std::int64_t tp) {
  const auto t = static_cast<double>(tp);
  return detail::sbh(x) * (10.0 + 24.0 / t + detail::attention_term(x) / t) * units::B;
}

/// `s·b·h/t·(34 + 5·a·s/h)` bytes per GPU with tensor and sequence parallelism
/// (Korthikanti et al. 2022, section 4.2.2, Table 2): the unsharded value divided by t.
constexpr bytes activation_bytes_tp_sp(const activation_shape& x, std::int64_t tp) {
  return activation_bytes_unsharded(x) / static_cast<double>(tp);
}

/// Selective recomputation keeps everything but the attention core's scores, softmax and
/// dropout mask, which the backward recomputes (Korthikanti et al. 2022, section 5, Table 2):
/// `s·b·h·(10 + 24/t)` bytes per GPU with TP, `s·b·h·34/t` with TP and SP.
constexpr bytes activation_bytes_selective(const activation_shape& x, std::int64_t tp,
                                           bool sequence_parallel) {
  const auto t = static_cast<double>(tp);
  return detail::sbh(x) * (sequence_parallel ? 34.0 / t : 10.0 + 24.0 / t) * units::B;
}

/// `2·s·b·h` bytes per GPU with full recomputation: only the layer's 16-bit input is kept
/// (Korthikanti et al. 2022, Table 2); `/t` with sequence parallelism.
constexpr bytes activation_bytes_full_recompute(const activation_shape& x, std::int64_t tp,
                                                bool sequence_parallel) {
  const bytes input = 2.0 * detail::sbh(x) * units::B;
  return sequence_parallel ? input / static_cast<double>(tp) : input;
}

}  // namespace tpcost
