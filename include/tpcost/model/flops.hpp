// FLOPs of a training step from matmul counts, with the attention-score and logit terms,
// and the two utilisations the papers report: model FLOPs (MFU) and hardware FLOPs (HFU).
//
// Convention (Narayanan et al. 2021, SC21, arXiv:2104.04473, Sec. 5.1 and Appendix): only
// matrix multiplications count, 2 FLOP per multiply-add; the backward pass costs twice the
// forward pass; the full s×s score matrix is counted (causal kernels that skip the masked half
// do less work); the embedding lookup, norms, softmax, activation functions and biases are not
// counted. docs/flops.md derives every term.
//
// Forward FLOPs per token of a layer, with kv_dim = kv_heads·h/a, f the MLP size and m = 2
// (plain) or 3 (gated) MLP matrices:
//   Q, K, V and output projections   2·(h·h + 2·h·kv_dim + h·h) = 4h² + 4h·kv_dim
//   scores QKᵀ and attention over V  2·s·h + 2·s·h             = 4sh
//   MLP                              2·m·h·f
// and once per token the logits, 2hV. Model FLOPs are 3 × forward (no recomputation, whatever
// the run did); hardware FLOPs add the recomputed forward work: the attention core with
// selective recomputation, every layer's forward pass with full recomputation (Korthikanti et
// al. 2022, arXiv:2205.05198, Sec. 6). For GPT (f = 4h, kv = a) this is exactly Narayanan et
// al. eq. (3): 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h)) with full recomputation and
// 72·B·s·L·h²·(1 + s/(6h) + V/(12·L·h)) without.
//
// Mixture of experts, MLA, head_dim and MTP (model.hpp; docs/moe.md): FLOPs follow the active
// parameters. With q_dim = a·head_dim the projections are 4h·q_dim + 4h·kv_dim and the core
// 4s·q_dim; MLA's projections are `mla_projection_flops` and its core 2s·a·(d_qk + d_v). An MoE
// layer's MLP is 2·m·h·(k·f_expert + S·f_shared) for the k routed and S shared experts a token
// visits, plus the router 2hE (Megatron-Core's count leaves the router out: docs/moe.md). Each
// MTP module adds one layer of the last layer's kind, its 2h → h projection (4h²) and one more
// logits pass.
//
// Attention windows (model.hpp: sliding-window and chunked layers): a windowed layer's core
// term is the full layer's times (pairs the window keeps) / (causal pairs), s·w − w·(w−1)/2 or
// ⌊s/c⌋·c·(c+1)/2 + r·(r+1)/2 over s·(s+1)/2, in this count and in Megatron-LM's
// (published_flops.hpp) alike; model FLOPs, hardware FLOPs, MFU and HFU all count the window;
// the 6N rule of thumb has no attention term. docs/moe.md, Attention windows.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/op_checkpoint.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/model/published_flops.hpp"
#include "tpcost/model/recompute_recipe.hpp"

namespace tpcost {

/// Forward-pass FLOPs of one token, by part (all layers together).
struct token_flops {
  flops projections{};  ///< L·(4h² + 4h·kv_dim): Q, K, V and output projections
  flops attention{};    ///< L·4sh: QKᵀ and attention over V
  flops mlp{};          ///< L·2·m·h·f
  flops logits{};       ///< 2hV, the output layer
  [[nodiscard]] constexpr flops layers() const { return projections + attention + mlp; }
  [[nodiscard]] constexpr flops total() const { return layers() + logits; }
};

namespace detail {

/// One layer's Q, K, V and output projections for one token: 4h·q_dim + 4h·kv_dim (4h² +
/// 4h·kv_dim when q_dim = h), or MLA's `mla_projection_flops`.
constexpr double projection_flops_per_layer(const transformer_spec& spec) {
  if (is_mla(spec.mla)) {
    return mla_projection_flops(spec.mla, spec.hidden, spec.heads);
  }
  const auto h = static_cast<double>(spec.hidden);
  return 4.0 * h * static_cast<double>(q_dim(spec)) + 4.0 * h * static_cast<double>(kv_dim(spec));
}

/// One layer's QKᵀ and attention over V for one token of `seq`: 2s·(a·d_qk) + 2s·(a·d_v), that
/// is 4s·q_dim (4sh when q_dim = h) without MLA.
constexpr double core_attention_flops_per_layer(const transformer_spec& spec, double s) {
  const auto a = static_cast<double>(spec.heads);
  if (is_mla(spec.mla)) {
    return 2.0 * s * a * static_cast<double>(mla_qk_head_dim(spec.mla) + spec.mla.v_head_dim);
  }
  return 4.0 * s * static_cast<double>(q_dim(spec));
}

/// One layer's MLP for one token: dense 2·m·h·f; with experts 2·m·h·(k·f_e + S·f_s), the
/// router 2hE and Qwen2-MoE's shared-expert gate 2h.
constexpr double mlp_flops_per_layer(const transformer_spec& spec, bool moe_layer) {
  const auto h = static_cast<double>(spec.hidden);
  const auto m = static_cast<double>(mlp_matrices(spec));
  if (!moe_layer) {
    return 2.0 * m * h * static_cast<double>(ffn_of(spec));
  }
  const auto& moe = spec.moe;
  const double visited = static_cast<double>(moe.top_k * moe.expert_ffn) +
                         static_cast<double>(moe.shared_experts * shared_ffn_of(moe));
  const double gate = moe.shared_gate && moe.shared_experts > 0 ? 2.0 * h : 0.0;
  const double router = moe.experts == 1 ? 0.0 : 2.0 * h * static_cast<double>(moe.experts);
  return 2.0 * m * h * visited + router + gate;
}

}  // namespace detail

/// Forward FLOPs of one token in a sequence of `seq` tokens (the attention term grows with
/// it). Call `validate(spec)` first.
constexpr token_flops forward_flops_per_token(const transformer_spec& spec, std::int64_t seq) {
  const auto h = static_cast<double>(spec.hidden);
  const auto s = static_cast<double>(seq);
  const auto mtp = static_cast<double>(spec.mtp_layers);
  const auto L = static_cast<double>(spec.layers) + mtp;  // an MTP module holds one layer
  const auto moe_count = static_cast<double>(moe_layers(spec));
  const auto dense_count = static_cast<double>(spec.layers) - moe_count;
  const bool mtp_moe = last_layer_is_moe(spec);
  return token_flops{
      .projections =
          (L * detail::projection_flops_per_layer(spec) + mtp * 4.0 * h * h) * units::FLOP,
      // Windowed layers (model.hpp) run their share of the pairs; MTP layers are full.
      .attention = (static_cast<double>(spec.layers) * attention_pair_fraction(spec, seq) + mtp) *
                   detail::core_attention_flops_per_layer(spec, s) * units::FLOP,
      .mlp = (dense_count * detail::mlp_flops_per_layer(spec, false) +
              moe_count * detail::mlp_flops_per_layer(spec, true) +
              mtp * detail::mlp_flops_per_layer(spec, mtp_moe)) *
             units::FLOP,
      .logits = (1.0 + mtp) * 2.0 * h * static_cast<double>(spec.vocab) * units::FLOP,
  };
}

/// Model FLOPs of one token, forward and backward: `3 × forward`. They do not depend on
/// recomputation; MFU divides these by the time.
constexpr flops model_flops_per_token(const transformer_spec& spec, std::int64_t seq) {
  return 3.0 * forward_flops_per_token(spec, seq).total();
}

/// The forward work that recomputation runs a second time, per token: nothing; the attention
/// core (QKᵀ and attention over V, Korthikanti et al. 2022 Sec. 5) with selective
/// recomputation; every layer's forward pass with full recomputation. The logits are never
/// recomputed.
constexpr flops recompute_flops_per_token(
    const transformer_spec& spec, std::int64_t seq, recompute_mode mode,
    selective_policy policy = selective_policy::attention_core) {
  const auto fwd = forward_flops_per_token(spec, seq);
  switch (mode) {
    case recompute_mode::none:
      return flops{};
    case recompute_mode::selective:
      // torchtitan's per-op policy reruns the matmuls it does not save (op_checkpoint.hpp) of
      // a dense model; a MoE or MLA model keeps the attention core's count for all its layers
      // (its per-op list is not derived; parallelism.hpp).
      if (policy == selective_policy::per_op && !is_moe(spec.moe) && !is_mla(spec.mla)) {
        return static_cast<double>(spec.layers) * per_op_recomputed_flops_per_token(spec) *
               units::FLOP;
      }
      return fwd.attention;
    case recompute_mode::full:
      break;
  }
  return fwd.layers();
}

/// The forward FLOPs per token that selective recomputation of `modules` (recompute_recipe.hpp
/// bits) runs again, all layers together, as Megatron-Core core_v0.16.0 checkpoints the modules
/// (compute_model.hpp's `selective_recompute` times the same modules): core_attn the attention
/// core; mlp a dense layer's MLP; moe an MoE layer's whole block (router, routed and shared
/// experts); shared_experts its shared experts alone; mla_up_proj MLA's up projections. moe_act
/// and layernorm rerun element-wise kernels, which FLOPs do not count. core_attn is the
/// attention term of recompute_flops_per_token (MTP layers included); the other modules count
/// the L transformer layers only.
constexpr flops recomputed_module_flops_per_token(const transformer_spec& spec, std::int64_t seq,
                                                  unsigned modules) {
  const auto has = [&](recompute_module m) { return (modules & static_cast<unsigned>(m)) != 0U; };
  const auto layers = static_cast<double>(spec.layers);
  const auto moe_count = static_cast<double>(moe_layers(spec));
  double per_token = 0.0;
  flops rerun{};
  if (has(recompute_module::core_attn)) {
    rerun = forward_flops_per_token(spec, seq).attention;  // recompute_flops_per_token's term
  }
  if (has(recompute_module::mlp)) {
    per_token += (layers - moe_count) * detail::mlp_flops_per_layer(spec, false);
  }
  if (has(recompute_module::moe)) {
    per_token += moe_count * detail::mlp_flops_per_layer(spec, true);
  } else if (has(recompute_module::shared_experts) && moe_count > 0.0) {
    const auto h = static_cast<double>(spec.hidden);
    const auto m = static_cast<double>(mlp_matrices(spec));
    per_token += moe_count * 2.0 * m * h *
                 static_cast<double>(spec.moe.shared_experts * shared_ffn_of(spec.moe));
  }
  if (has(recompute_module::mla_up_proj) && is_mla(spec.mla)) {
    const auto& mla = spec.mla;
    const auto heads = static_cast<double>(spec.heads);
    const double q_up = mla.q_lora_rank > 0 ? static_cast<double>(mla.q_lora_rank) * heads *
                                                  static_cast<double>(mla_qk_head_dim(mla))
                                            : 0.0;
    const double kv_up = static_cast<double>(mla.kv_lora_rank) * heads *
                         static_cast<double>(mla.qk_nope_head_dim + mla.v_head_dim);
    per_token += layers * 2.0 * (q_up + kv_up);
  }
  return rerun + per_token * units::FLOP;
}

/// One dense layer's forward FLOPs per token, by term (the header comment's three lines).
struct layer_token_flops {
  flops projections{};  ///< 4h² + 4h·kv_dim
  flops attention{};    ///< 4sh
  flops mlp{};          ///< 2·m·h·f
};

constexpr layer_token_flops layer_forward_flops_per_token(const transformer_spec& spec,
                                                          std::int64_t seq) {
  return {.projections = detail::projection_flops_per_layer(spec) * units::FLOP,
          .attention = attention_pair_fraction(spec, seq) *
                       detail::core_attention_flops_per_layer(spec, static_cast<double>(seq)) *
                       units::FLOP,
          .mlp = detail::mlp_flops_per_layer(spec, false) * units::FLOP};
}

/// One dense layer's FLOPs for `tokens` tokens of `seq`-token sequences, forward and backward
/// (3 × forward), plus the forward work `mode` reruns (the attention core, or the whole
/// forward): the layer of `sweep` and `explain` on a named model, from the same per-layer
/// terms as the step. For GPT (f = 4h, kv = a) it is 72·b·s·h² + 12·b·s²·h without
/// recomputation, the seed's 72·b·s·h² plus the attention scores the seed leaves out.
constexpr flops layer_flops_with_recompute(const transformer_spec& spec, std::int64_t seq,
                                           double tokens, recompute_mode mode) {
  const auto f = layer_forward_flops_per_token(spec, seq);
  const flops forward = f.projections + f.attention + f.mlp;
  const flops rerun = mode == recompute_mode::full        ? forward
                      : mode == recompute_mode::selective ? f.attention
                                                          : flops{};
  return tokens * (3.0 * forward + rerun);
}

/// Hardware FLOPs of one token: model FLOPs plus the recomputed forward work. HFU divides
/// these by the time, so HFU >= MFU with equality without recomputation.
constexpr flops hardware_flops_per_token(const transformer_spec& spec, std::int64_t seq,
                                         recompute_mode mode) {
  return model_flops_per_token(spec, seq) + recompute_flops_per_token(spec, seq, mode);
}

/// How the model FLOPs behind MFU are counted. Published MFUs use either:
///  - `full`: 3 × the forward matmuls with the full s×s attention score matrix (Narayanan et
///    al. 2021 eq. 3, PaLM arXiv:2204.02311 App. B, Korthikanti et al. 2022), this file's count;
///  - `megatron`: Megatron-LM's `num_floating_point_operations` (published_flops.hpp), which
///    halves the core attention for the causal mask and leaves out the router, so its MFU is
///    lower by the attention's half share (a few % at 8k tokens, most of it at 128k).
enum class flops_convention { full, megatron };

inline constexpr std::array<enum_name<flops_convention>, 2> flops_convention_names{{
    {"full", flops_convention::full},
    {"megatron", flops_convention::megatron},
}};

constexpr std::string_view to_string(flops_convention c) {
  return name_of(flops_convention_names, c);
}

/// "full" or "megatron"; anything else throws `invalid_spec(field, ...)`.
inline flops_convention parse_flops_convention(std::string_view text, std::string_view field) {
  if (const auto c = value_named(flops_convention_names, text)) {
    return *c;
  }
  throw invalid_spec(std::string(field), quote_value(text) + " is not one of full|megatron");
}

/// FLOPs of one training step of `global_batch` sequences of `seq` tokens.
struct step_flops {
  flops model{};     ///< 3 × forward, for MFU
  flops hardware{};  ///< model + recomputation, for HFU
};

/// Model and hardware FLOPs of one step: per-token FLOPs × G·s tokens. Under the `megatron`
/// convention the model FLOPs are Megatron-LM's count, and the hardware FLOPs that count plus
/// the recomputed work (which Megatron-LM does not count).
/// `modules`: what selective recomputation reruns under the attention-core policy (Megatron-Core's
/// recompute_modules; default core_attn alone), counted by recomputed_module_flops_per_token.
constexpr step_flops flops_per_step(
    const transformer_spec& spec, std::int64_t global_batch, std::int64_t seq, recompute_mode mode,
    flops_convention convention = flops_convention::full,
    selective_policy policy = selective_policy::attention_core,
    unsigned modules = static_cast<unsigned>(recompute_module::core_attn)) {
  const double tokens = static_cast<double>(global_batch) * static_cast<double>(seq);
  const flops model = convention == flops_convention::full
                          ? model_flops_per_token(spec, seq)
                          : megatron_model_flops_per_token(spec, seq);
  const bool by_module = mode == recompute_mode::selective &&
                         policy == selective_policy::attention_core &&
                         modules != static_cast<unsigned>(recompute_module::core_attn);
  const flops rerun = by_module ? recomputed_module_flops_per_token(spec, seq, modules)
                                : recompute_flops_per_token(spec, seq, mode, policy);
  return step_flops{.model = tokens * model, .hardware = tokens * (model + rerun)};
}

/// Narayanan et al. 2021 eq. (3) as printed, from L, h, V and s only (GPT: f = 4h, no GQA):
/// `96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h))` with full recomputation, and the same count
/// without recomputation, `72·B·s·L·h²·(1 + s/(6h) + V/(12·L·h))`. Kept to check the general
/// count against; use `flops_per_step` for any other model.
constexpr flops narayanan_step_flops(const transformer_spec& spec, std::int64_t global_batch,
                                     std::int64_t seq, bool full_recompute) {
  const auto B = static_cast<double>(global_batch);
  const auto s = static_cast<double>(seq);
  const auto L = static_cast<double>(spec.layers);
  const auto h = static_cast<double>(spec.hidden);
  const auto V = static_cast<double>(spec.vocab);
  const double k = full_recompute ? 96.0 : 72.0;
  const double logit_divisor = full_recompute ? 16.0 : 12.0;
  return k * B * s * L * h * h * (1.0 + s / (6.0 * h) + V / (logit_divisor * L * h)) * units::FLOP;
}

/// Model FLOPs utilisation: `MFU = F_model / (T_step · N · P_peak)` (Chowdhery et al. 2022,
/// PaLM, arXiv:2204.02311, Sec. 4.1; Korthikanti et al. 2022 Sec. 6).
constexpr double model_flops_utilisation(flops model_per_step, seconds step_time, std::int64_t gpus,
                                         flops_per_second peak_per_gpu) {
  return model_per_step / (step_time * peak_per_gpu) / static_cast<double>(gpus);
}

/// Hardware FLOPs utilisation: `HFU = F_hardware / (T_step · N · P_peak)`, the rate the GPUs
/// really ran at, recomputation included. The SC21 paper's TFLOP/s are of this kind with
/// full recomputation.
constexpr double hardware_flops_utilisation(flops hardware_per_step, seconds step_time,
                                            std::int64_t gpus, flops_per_second peak_per_gpu) {
  return hardware_per_step / (step_time * peak_per_gpu) / static_cast<double>(gpus);
}

/// Everything `tpcost model show` prints about FLOPs at one sequence length.
struct flops_summary {
  std::int64_t seq = 0;
  token_flops forward{};  ///< per token
  flops model{};          ///< per token, 3 × forward
  /// Hardware FLOPs per token for recompute none, selective, full (index = enum value).
  std::array<flops, 3> hardware{};
  flops six_n{};  ///< 6·N, N the active parameters (all of a dense model): the rule of thumb
};

/// FLOPs per token of `spec` at sequence length `seq`, with the 6N rule of thumb beside them.
constexpr flops_summary summarize_flops(const transformer_spec& spec, std::int64_t seq) {
  flops_summary out;
  out.seq = seq;
  out.forward = forward_flops_per_token(spec, seq);
  out.model = model_flops_per_token(spec, seq);
  for (const auto mode : {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
    out.hardware[static_cast<std::size_t>(mode)] = hardware_flops_per_token(spec, seq, mode);
  }
  out.six_n = 6.0 * static_cast<double>(count_params(spec).active) * units::FLOP;
  return out;
}

}  // namespace tpcost
