// How Megatron-LM counts the FLOPs behind the TFLOP/s it prints, and so behind the MoE tables
// built on it (Megatron-MoE-ModelZoo, the Megatron-Core MoE report arXiv:2603.07685, the
// Megatron-LM MoE recipes): `num_floating_point_operations` in megatron/training/training.py
// (NVIDIA/Megatron-LM at 1e05700595, May 2025, the code of the ModelZoo's Qwen3 rows; the same
// terms at d98e8a64dd). It differs from flops.hpp in two places, nowhere else:
//  - the core attention is halved for the causal mask: 6·s·q_dim per token and layer (MLA:
//    6·s·a·(d_qk + d_v)/2) where flops.hpp counts the full s×s score matrix, 12·s·q_dim;
//  - the router's h×E matmul is left out.
// The MLA projections add MLA's two norms (q_lora + kv_lora "+1" terms) as if they were
// matmul columns, and an MTP module counts 3h for its norms; both are below 0.01%. Model
// FLOPs only: recomputation is not counted. docs/moe.md holds the reconciliation with the
// published rows (the ModelZoo's Qwen3-235B TFLOP/s imply 147.3-148.2 GFLOP per token; this
// count gives 148.0).
#pragma once

#include <cstdint>

#include "tpcost/base/units.hpp"
#include "tpcost/model/model.hpp"

namespace tpcost {

/// Model FLOPs per token (forward and backward) as Megatron-LM counts them for `spec` at
/// sequence length `seq`, with the vocabulary as the spec holds it (give the padded V to match
/// a run's log to the last digit).
constexpr flops megatron_model_flops_per_token(const transformer_spec& spec, std::int64_t seq) {
  const auto h = static_cast<double>(spec.hidden);
  const auto s = static_cast<double>(seq);
  const auto a = static_cast<double>(spec.heads);
  const auto mtp = static_cast<double>(spec.mtp_layers);
  const auto layers = static_cast<double>(spec.layers) + mtp;
  double attention = 0.0;
  double core = 0.0;
  if (is_mla(spec.mla)) {
    const auto& m = spec.mla;
    const auto qk = static_cast<double>(mla_qk_head_dim(m));
    const auto ql = static_cast<double>(m.q_lora_rank);
    const auto kvl = static_cast<double>(m.kv_lora_rank);
    const auto v = static_cast<double>(m.v_head_dim);
    const double q_term = m.q_lora_rank > 0 ? ql * (h + a * qk + 1.0) : h * a * qk;
    attention = q_term + kvl * (h + a * (static_cast<double>(m.qk_nope_head_dim) + v) + 1.0) +
                h * static_cast<double>(m.qk_rope_head_dim) + a * v * h;
    core = s * (a * qk / 2.0 + a * v / 2.0);
  } else {
    const auto q = static_cast<double>(q_dim(spec));
    const auto kv = static_cast<double>(kv_dim(spec));
    attention = h * (q + 2.0 * kv) + q * h;
    core = s * q;  // QKᵀ and ·V, each 2·s·q/2 under the causal mask, as multiply-adds: s·q
  }
  const auto m = static_cast<double>(mlp_matrices(spec));
  const auto moe_count =
      static_cast<double>(moe_layers(spec)) + (last_layer_is_moe(spec) ? mtp : 0.0);
  const auto dense_count = layers - moe_count;
  const auto& e = spec.moe;
  const double mlp =
      h * m *
      (static_cast<double>(ffn_of(spec)) * dense_count +
       static_cast<double>(e.expert_ffn * e.top_k + e.shared_experts * shared_ffn_of(e)) *
           moe_count);
  const double mtp_extra = mtp * (3.0 * h + 2.0 * h * h);
  const double logits = h * static_cast<double>(spec.vocab) * (1.0 + mtp);
  // 3 (forward, two backward GEMMs) x 2 (FLOP per multiply-add).
  // Windowed layers (model.hpp) keep their share of the causal pairs; Megatron-LM's count
  // has no window term, so this is its count as it would be with one.
  const double core_layers =
      static_cast<double>(spec.layers) * attention_pair_fraction(spec, seq) + mtp;
  return 6.0 * (layers * attention + core_layers * core + mlp + mtp_extra + logits) * units::FLOP;
}

}  // namespace tpcost
