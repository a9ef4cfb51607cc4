// Multi-head Latent Attention (DeepSeek-V2, arXiv:2405.04434, Sec. 2.1): the keys and values
// of every head are up-projected from one compressed latent of `kv_lora_rank` per token, and
// the queries from one of `q_lora_rank` (or directly from h when q_lora_rank is 0, as in
// DeepSeek-V2-Lite). Each query/key head has a `qk_nope_head_dim` part without positions and a
// `qk_rope_head_dim` part with rotary positions, the latter's key shared by all heads; each
// value head has `v_head_dim`. model.hpp counts its parameters with `mla_params` and flops.hpp its
// FLOPs, with the matrices of HF modeling_deepseek.py (DeepseekV3Attention):
//   q_a_proj h × q_lora, q_a_layernorm q_lora, q_b_proj q_lora × a·(nope + rope)
//     (or q_proj h × a·(nope + rope) without q_lora)
//   kv_a_proj_with_mqa h × (kv_lora + rope), kv_a_layernorm kv_lora,
//   kv_b_proj kv_lora × a·(nope + v), o_proj a·v × h.
#pragma once

#include <cstdint>
#include <string>

#include "tpcost/base/error.hpp"

namespace tpcost {

/// The dimensions of MLA; `kv_lora_rank == 0` is ordinary multi-head (or grouped) attention.
struct mla_spec {
  std::int64_t q_lora_rank = 0;       ///< query latent; 0 = queries projected from h directly
  std::int64_t kv_lora_rank = 0;      ///< key/value latent; 0 = not MLA
  std::int64_t qk_nope_head_dim = 0;  ///< per head, the query/key part without positions
  std::int64_t qk_rope_head_dim = 0;  ///< per head, the query/key part with rotary positions
  std::int64_t v_head_dim = 0;        ///< per head, the value width
};

/// Whether `mla` describes Multi-head Latent Attention.
constexpr bool is_mla(const mla_spec& mla) { return mla.kv_lora_rank > 0; }

/// Query/key width of one head: nope + rope.
constexpr std::int64_t mla_qk_head_dim(const mla_spec& mla) {
  return mla.qk_nope_head_dim + mla.qk_rope_head_dim;
}

/// Weights and norm parameters of one MLA block with `heads` heads on hidden size `h`.
constexpr std::int64_t mla_params(const mla_spec& mla, std::int64_t h, std::int64_t heads) {
  const auto qk = heads * mla_qk_head_dim(mla);
  const auto q =
      mla.q_lora_rank > 0 ? h * mla.q_lora_rank + mla.q_lora_rank + mla.q_lora_rank * qk : h * qk;
  const auto kv = h * (mla.kv_lora_rank + mla.qk_rope_head_dim) + mla.kv_lora_rank +
                  mla.kv_lora_rank * heads * (mla.qk_nope_head_dim + mla.v_head_dim);
  const auto out = heads * mla.v_head_dim * h;
  return q + kv + out;
}

/// The MLA parameters Megatron-Core splits over TP (core_v0.16.0, megatron/core/transformer/
/// multi_latent_attention.py, MLASelfAttention.__init__): the column-parallel up projections
/// linear_q_up_proj (or linear_q_proj without q_lora) and linear_kv_up_proj, and the
/// row-parallel linear_proj: `ql·a·(nope + rope) + kvl·a·(nope + v) + a·v·h` (h·a·(nope+rope)
/// for the queries without q_lora).
constexpr std::int64_t mla_tp_split_params(const mla_spec& mla, std::int64_t h,
                                           std::int64_t heads) {
  const auto qk = heads * mla_qk_head_dim(mla);
  const auto q = mla.q_lora_rank > 0 ? mla.q_lora_rank * qk : h * qk;
  return q + mla.kv_lora_rank * heads * (mla.qk_nope_head_dim + mla.v_head_dim) +
         heads * mla.v_head_dim * h;
}

/// The MLA parameters every TP rank holds whole: the down projections linear_q_down_proj and
/// linear_kv_down_proj, which the TE spec builds as TELinear with parallel_mode "duplicated"
/// (gpt_layer_specs.py, backend.linear()), and the q/kv latent norms.
constexpr std::int64_t mla_duplicated_params(const mla_spec& mla, std::int64_t h,
                                             std::int64_t heads) {
  return mla_params(mla, h, heads) - mla_tp_split_params(mla, h, heads);
}

/// Forward matmul FLOPs of one token through the MLA projections (2 per multiply-add; the
/// norms are not matmuls and are not counted).
constexpr double mla_projection_flops(const mla_spec& mla, std::int64_t h, std::int64_t heads) {
  const auto hd = static_cast<double>(h);
  const auto qk = static_cast<double>(heads * mla_qk_head_dim(mla));
  const auto ql = static_cast<double>(mla.q_lora_rank);
  const auto kvl = static_cast<double>(mla.kv_lora_rank);
  const double q = mla.q_lora_rank > 0 ? hd * ql + ql * qk : hd * qk;
  const double kv = hd * (kvl + static_cast<double>(mla.qk_rope_head_dim)) +
                    kvl * static_cast<double>(heads * (mla.qk_nope_head_dim + mla.v_head_dim));
  const double out = static_cast<double>(heads * mla.v_head_dim) * hd;
  return 2.0 * (q + kv + out);
}

/// Throws `invalid_spec` naming the field ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim",
/// "qk_rope_head_dim", "v_head_dim") when MLA is on and a dimension is outside 1..2^16 (the
/// ranks and q_lora_rank may be 0 only where said), or when it is off and a dimension is set.
inline void validate(const mla_spec& mla) {
  constexpr std::int64_t max_dim = std::int64_t{1} << 16;
  if (!is_mla(mla)) {
    if (mla.kv_lora_rank < 0 || mla.q_lora_rank != 0 || mla.qk_nope_head_dim != 0 ||
        mla.qk_rope_head_dim != 0 || mla.v_head_dim != 0) {
      throw invalid_spec("kv_lora_rank", std::to_string(mla.kv_lora_rank) +
                                             ": MLA dimensions without a KV latent; give "
                                             "kv_lora_rank >= 1 or none of them");
    }
    return;
  }
  const auto check = [&](const char* field, std::int64_t v, std::int64_t lo) {
    if (v < lo || v > max_dim) {
      throw invalid_spec(field, std::to_string(v) + " is out of range; expected " +
                                    std::to_string(lo) + ".." + std::to_string(max_dim));
    }
  };
  check("kv_lora_rank", mla.kv_lora_rank, 1);
  check("q_lora_rank", mla.q_lora_rank, 0);
  check("qk_nope_head_dim", mla.qk_nope_head_dim, 1);
  check("qk_rope_head_dim", mla.qk_rope_head_dim, 0);
  check("v_head_dim", mla.v_head_dim, 1);
}

}  // namespace tpcost
