// Pipeline parallelism: how layers are split over p stages, the 1F1B and interleaved bubbles,
// and the point-to-point activation traffic between stages (Narayanan et al. 2021, SC21,
// arXiv:2104.04473, Sec. 2.2 and 4.1).
//
// Uneven stages: when p does not divide L, each stage holds ⌊L/p⌋ or ⌈L/p⌉ layers, and the
// shorter stages are placed at the ends first (first, last, second, second-to-last, ...),
// where the embedding and the output layer already add work and memory. Llama 3 405B's 126
// layers on 16 stages come out as Meta ran them: 7 on the first and last stage, 8 on the
// others (Llama 3 paper, arXiv:2407.21783, Sec. 3.3.2). The slowest stage, ⌈L/p⌉ layers, sets
// the pace; the layout is reported with a warning, not rejected.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tpcost/base/error.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/parallelism.hpp"

namespace tpcost {

/// Pipeline bubble as a fraction of the ideal (bubble-free) step time: `(p−1)/m` for 1F1B and
/// GPipe, `(p−1)/(v·m)` for the interleaved schedule with v model chunks per GPU
/// (Narayanan et al. 2021, Sec. 2.2.1 and 2.2.2).
constexpr double bubble_fraction(std::int64_t stages, std::int64_t micro_batches,
                                 std::int64_t virtual_stages = 1) {
  return static_cast<double>(stages - 1) /
         (static_cast<double>(virtual_stages) * static_cast<double>(micro_batches));
}

/// Bubble time `t_pb = (p−1)/(v·m) · t_ideal`, where `ideal` is the time of the m micro-batches
/// on one stage without any bubble.
constexpr seconds bubble_time(seconds ideal, std::int64_t stages, std::int64_t micro_batches,
                              std::int64_t virtual_stages = 1) {
  return ideal * bubble_fraction(stages, micro_batches, virtual_stages);
}

/// Bytes one GPU sends across one stage boundary for one micro-batch in one direction: the
/// activation (forward) or its gradient (backward), `b·s·h·d`. Divided by t when the t ranks
/// of a stage each send a 1/t slice: with sequence parallelism the activation is already split,
/// and Megatron-LM's scatter/gather optimisation (Narayanan et al. 2021 Sec. 4.1) splits it
/// and all-gathers it over NVLink at the receiver.
constexpr bytes p2p_message_bytes(std::int64_t micro_batch, std::int64_t seq, std::int64_t hidden,
                                  int element_bytes, std::int64_t tp, bool split_over_tp) {
  const double full = static_cast<double>(micro_batch) * static_cast<double>(seq) *
                      static_cast<double>(hidden) * static_cast<double>(element_bytes);
  return (split_over_tp ? full / static_cast<double>(tp) : full) * units::B;
}

/// Point-to-point transfers of one step in one pipeline.
struct p2p_transfer_count {
  std::int64_t boundaries = 0;  ///< p·v − 1 chunk boundaries a micro-batch crosses each way
  std::int64_t per_step = 0;    ///< 2·m·(p·v − 1): activations forward plus gradients backward
  std::int64_t max_sends_per_gpu = 0;  ///< the busiest stage's sends (2·m·v for p >= 3)
};

/// Transfers per step: every micro-batch crosses the p·v − 1 chunk boundaries forward with its
/// activation and backward with its gradient. Stage i sends m·v activations (m·(v−1) on the
/// last stage) and m·v gradients (m·(v−1) on the first).
constexpr p2p_transfer_count p2p_transfers_per_step(std::int64_t stages, std::int64_t micro_batches,
                                                    std::int64_t virtual_stages = 1) {
  const auto p = stages;
  const auto m = micro_batches;
  const auto v = virtual_stages;
  // A middle stage sends 2·m·v; with p = 2 both stages are ends, m·v + m·(v−1); with p = 1
  // there is no boundary.
  const std::int64_t max_sends = p >= 3 ? 2 * m * v : (p == 2 ? m * (2 * v - 1) : 0);
  return p2p_transfer_count{
      .boundaries = p * v - 1,
      .per_step = 2 * m * (p * v - 1),
      .max_sends_per_gpu = max_sends,
  };
}

/// Layers on each of the p stages (see the file comment for uneven splits). `layers >= p >= 1`.
inline std::vector<std::int64_t> layers_per_stage(std::int64_t layers, std::int64_t stages) {
  const auto base = layers / stages;
  if (layers % stages == 0) {
    return std::vector<std::int64_t>(static_cast<std::size_t>(stages), base);
  }
  std::vector<std::int64_t> out(static_cast<std::size_t>(stages), base + 1);
  const auto shorter = stages - layers % stages;  // stages with ⌊L/p⌋ layers
  for (std::int64_t k = 0; k < shorter; ++k) {
    const auto index = k % 2 == 0 ? k / 2 : stages - 1 - k / 2;  // 0, p−1, 1, p−2, ...
    out[static_cast<std::size_t>(index)] = base;
  }
  return out;
}

/// Micro-batches whose activations stage `stage` holds at its peak, counted in layers' worth of
/// one micro-batch's activations. 1F1B (v = 1): stage i holds min(p − i, m) micro-batches of its
/// layers. Interleaved (v > 1): Megatron-LM's schedule warms up (p − i − 1)·2 + (v − 1)·p chunks
/// and holds one more, each chunk being L/(p·v) layers; on the first stage that is
/// L·(1 + (p−1)/(p·v)) layers' worth, the factor of Korthikanti et al. 2022 Sec. 4.2.3.
inline double layers_in_flight(std::int64_t layers_on_stage, std::int64_t stage,
                               std::int64_t stages, std::int64_t micro_batches,
                               std::int64_t virtual_stages) {
  const auto p = stages;
  const auto m = micro_batches;
  const auto v = virtual_stages;
  if (v == 1) {
    return static_cast<double>(layers_on_stage) * static_cast<double>(std::min(p - stage, m));
  }
  const auto chunks = std::min((p - stage - 1) * 2 + (v - 1) * p + 1, m * v);
  return static_cast<double>(chunks) * static_cast<double>(layers_on_stage) /
         static_cast<double>(v);
}

/// The pipeline of one layout: stage sizes, bubble, p2p traffic, and what deserves a warning.
struct pipeline_summary {
  std::int64_t stages = 1;
  std::int64_t virtual_stages = 1;
  std::int64_t micro_batches = 1;
  std::vector<std::int64_t> layers;  ///< per stage
  std::int64_t max_layers = 0;       ///< the slowest stage's layers, ⌈L/p⌉
  double bubble_fraction = 0.0;      ///< of the ideal step time
  bytes p2p_message{};               ///< per boundary, micro-batch and direction, per GPU
  p2p_transfer_count transfers{};
  std::vector<std::string> warnings;  ///< valid but inefficient choices
};

/// Checks the pipeline part of a layout and summarises it. Throws `invalid_spec` for "vpp"
/// when v > 1 with p = 1, or when p·v does not divide L (Megatron-LM requires whole chunks).
/// Warns, without failing, when p does not divide L, when m < p (with v = 1 the bubble then
/// lasts at least as long as the ideal step), and when interleaving with m not a multiple of p
/// (Megatron-LM's interleaved schedule has required it). `element_bytes` is the activation dtype's
/// size; `scatter_gather` is Megatron-LM's p2p optimisation (see `p2p_message_bytes`).
inline pipeline_summary summarize_pipeline(const transformer_spec& model,
                                           const parallel_config& par, int element_bytes,
                                           bool scatter_gather) {
  validate(model, par);
  const auto p = par.pp;
  const auto v = par.vpp;
  const auto m = micro_batches(par);
  const auto L = model.layers;
  if (v > 1 && p == 1) {
    throw invalid_spec("vpp", "v = " + std::to_string(v) +
                                  " virtual stages need pipeline parallelism (p >= 2); use v = 1");
  }
  if (v > 1 && L % (p * v) != 0) {
    throw invalid_spec("vpp", "p*v = " + std::to_string(p) + "*" + std::to_string(v) + " = " +
                                  std::to_string(p * v) + " does not divide the " +
                                  std::to_string(L) +
                                  " layers; the interleaved schedule needs whole model chunks");
  }
  pipeline_summary out;
  out.stages = p;
  out.virtual_stages = v;
  out.micro_batches = m;
  out.layers = layers_per_stage(L, p);
  out.max_layers = *std::max_element(out.layers.begin(), out.layers.end());
  out.bubble_fraction = bubble_fraction(p, m, v);
  out.p2p_message = p2p_message_bytes(par.micro_batch, model.seq, model.hidden, element_bytes,
                                      par.tp, par.sequence_parallel || scatter_gather);
  out.transfers = p2p_transfers_per_step(p, m, v);
  if (L % p != 0) {
    out.warnings.push_back("p = " + std::to_string(p) + " does not divide L = " +
                           std::to_string(L) + ": stages hold " + std::to_string(L / p) + " or " +
                           std::to_string(L / p + 1) + " layers, and the longest sets the pace");
  }
  if (p > 1 && m < p) {
    out.warnings.push_back("m = " + std::to_string(m) + " micro-batches for p = " +
                           std::to_string(p) + " stages: the bubble (p-1)/(v*m) is " +
                           std::to_string(static_cast<int>(out.bubble_fraction * 100.0 + 0.5)) +
                           "% of the ideal time; m >= p (better m >> p) is recommended");
  }
  if (v > 1 && m % p != 0) {
    out.warnings.push_back("m = " + std::to_string(m) +
                           " is not a multiple of p = " + std::to_string(p) +
                           "; Megatron-LM's interleaved schedule has required it");
  }
  return out;
}

}  // namespace tpcost
