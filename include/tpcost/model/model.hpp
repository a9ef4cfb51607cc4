// A decoder-only transformer as the cost models see it: its dimensions, its architectural
// conventions, and the parameter count that follows from them.
//
// Two conventions are named because the parameter count depends on them:
//
// * GPT (Radford et al. 2019; Brown et al. 2020; Megatron-LM): learned position embeddings
//   (s·h), biases on every linear layer, LayerNorm with a weight and a bias (2h), input and
//   output embeddings tied (one V·h matrix), plain MLP h→ffn→h with GeLU.
// * Llama (Touvron et al. 2023; Meta 2024): rotary positions (no parameters), no biases,
//   RMSNorm with a weight only (h), untied input and output embeddings (2·V·h), gated MLP
//   (SwiGLU: gate and up h→ffn, down ffn→h, three matrices).
//
// Every flag can be set on its own (`transformer_spec` is an aggregate); `architecture_of`
// names the bundle a spec matches, "custom" otherwise.
//
// Counted per layer: the Q, K, V and output projections (with GQA, K and V are h × kv·h/a),
// the MLP matrices, their biases when the architecture has them, and the layer's two norms.
// Once: the word embedding, the position embedding (learned positions), the final norm, and
// the output layer when it is not tied. Not counted: buffers without gradients (rotary
// frequency tables, attention masks), padding of the vocabulary to a multiple of 128·t that
// Megatron-LM adds (give the padded V if you want it counted, as the SC21 table does).
//
// Beyond dense MHA/GQA (all optional, all off by default): an explicit head dimension (Qwen3,
// GPT-OSS: a·head_dim ≠ h), Multi-head Latent Attention (mla.hpp), mixture-of-experts layers
// (moe.hpp) and DeepSeek-V3's multi-token-prediction module. Parameters count every expert;
// `param_breakdown::active` counts what one token uses (the top-k routed experts of E).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/model/mla.hpp"
#include "tpcost/model/moe.hpp"

namespace tpcost {

/// The normalisation layer: LayerNorm has a weight and a bias (2h), RMSNorm a weight (h).
enum class norm_kind { layer_norm, rms_norm };

/// How positions enter: a learned s × h table (GPT) or rotary embeddings with no parameters.
enum class position_kind { learned, rotary };

/// The named bundles of conventions; `custom` is any other combination of the flags.
enum class architecture { gpt, llama, custom };

/// A decoder-only transformer. `kv_heads = 0` means `heads` (multi-head attention) and
/// `ffn = 0` means `4·hidden`; use `kv_heads_of` and `ffn_of` to read them resolved.
struct transformer_spec {
  std::int64_t layers = 0;    ///< L, transformer layers
  std::int64_t hidden = 0;    ///< h, hidden size (model dimension)
  std::int64_t heads = 0;     ///< a, query heads; head dimension h/a
  std::int64_t kv_heads = 0;  ///< key/value heads (GQA when < heads); 0 = heads
  std::int64_t ffn = 0;       ///< MLP inner size; 0 = 4h
  bool gated_mlp = false;     ///< gated MLP (SwiGLU): 3 matrices instead of 2
  std::int64_t vocab = 0;     ///< V, vocabulary size (as the embedding table holds it)
  std::int64_t seq = 0;       ///< s, sequence length: training length and position-table size
  bool linear_biases = true;  ///< every linear layer has a bias (GPT) or none (Llama)
  norm_kind norm = norm_kind::layer_norm;
  position_kind positions = position_kind::learned;
  bool tied_embeddings = true;  ///< the output layer reuses the word embedding
  // Optional extensions; their defaults are the dense MHA/GQA transformer above.
  std::int64_t head_dim = 0;    ///< per-head width when a·head_dim ≠ h; 0 = h/a
  mla_spec mla{};               ///< Multi-head Latent Attention instead of MHA/GQA when set
  moe_spec moe{};               ///< mixture-of-experts layers when set
  std::int64_t mtp_layers = 0;  ///< DeepSeek-V3 multi-token-prediction modules (depth D)
  // Dropout with p > 0 (Megatron-LM's default, 0.1) keeps 1-byte masks for the backward pass;
  // with p = 0 PyTorch's dropout returns its input (aten/src/ATen/native/Dropout.cpp,
  // _dropout_impl: `if (p == 0 || !train ...) return input`): no mask, no copy (memory.hpp).
  bool hidden_dropout = true;     ///< after attention, after the MLP and on the embeddings
  bool attention_dropout = true;  ///< on the softmax output (unfused attention)
  // Windowed attention (all 0: every layer full causal attention over s). A windowed layer is
  // either sliding-window (query i sees keys max(1, i-w+1)..i: HF's `sliding_window`, GPT-OSS,
  // Mistral) or chunked (query i sees the keys of its own c-token chunk up to itself: Llama
  // 4's `attention_chunk_size`). Layer i (from 0) is full attention when `window_full_every`
  // g > 0 and (i+1) % g == 0, windowed otherwise: g = 2 for GPT-OSS's alternating layer_types
  // and Gemma 2, 4 for Llama 4 (HF Llama4TextConfig, no_rope_layer_interval), 0 for Mistral.
  std::int64_t attention_window = 0;   ///< w, sliding-window keys per query; 0 = none
  std::int64_t attention_chunk = 0;    ///< c, chunked-attention chunk; 0 = none
  std::int64_t window_full_every = 0;  ///< g: every g-th layer full attention; 0 = none full
};

/// Sets the convention flags of `spec` to a named bundle (dimensions are left as they are).
/// GPT: biases, LayerNorm, learned positions, tied embeddings, plain MLP. Llama: no biases,
/// RMSNorm, rotary positions, untied embeddings, gated (SwiGLU) MLP. `custom` changes nothing.
constexpr transformer_spec with_architecture(transformer_spec spec, architecture arch) {
  if (arch == architecture::gpt) {
    spec.gated_mlp = false;
    spec.linear_biases = true;
    spec.norm = norm_kind::layer_norm;
    spec.positions = position_kind::learned;
    spec.tied_embeddings = true;
  } else if (arch == architecture::llama) {
    spec.gated_mlp = true;
    spec.linear_biases = false;
    spec.norm = norm_kind::rms_norm;
    spec.positions = position_kind::rotary;
    spec.tied_embeddings = false;
  }
  return spec;
}

/// The bundle whose flags `spec` carries: gpt, llama, or custom for any other mix.
constexpr architecture architecture_of(const transformer_spec& spec) {
  for (const auto arch : {architecture::gpt, architecture::llama}) {
    const auto ref = with_architecture(spec, arch);
    if (ref.gated_mlp == spec.gated_mlp && ref.linear_biases == spec.linear_biases &&
        ref.norm == spec.norm && ref.positions == spec.positions &&
        ref.tied_embeddings == spec.tied_embeddings) {
      return arch;
    }
  }
  return architecture::custom;
}

inline constexpr std::array<enum_name<architecture>, 3> architecture_names{{
    {"gpt", architecture::gpt},
    {"llama", architecture::llama},
    {"custom", architecture::custom},
}};

constexpr std::string_view to_string(architecture arch) {
  return name_of(architecture_names, arch);
}

/// Reads "gpt" or "llama" (any case); throws `invalid_spec(field, ...)` otherwise ("custom"
/// names what a reader detects, not a choice).
inline architecture parse_architecture(std::string_view text, std::string_view field) {
  const auto lower = [](std::string_view name) {
    std::string out(name);
    for (auto& c : out) {
      c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    return out;
  };
  if (const auto arch = value_named(architecture_names, text, lower);
      arch && *arch != architecture::custom) {
    return *arch;
  }
  throw invalid_spec(std::string(field), quote_value(text) +
                                             " is not an architecture; expected gpt (biases, "
                                             "LayerNorm, learned positions, tied embeddings) or "
                                             "llama (no biases, RMSNorm, rotary, untied, SwiGLU)");
}

/// One line describing the conventions, e.g. "no biases, RMSNorm, rotary positions, untied
/// embeddings, gated MLP (3 matrices)".
inline std::string describe_conventions(const transformer_spec& spec) {
  std::string out = spec.linear_biases ? "linear biases" : "no biases";
  out += spec.norm == norm_kind::layer_norm ? ", LayerNorm" : ", RMSNorm";
  out += spec.positions == position_kind::learned ? ", learned positions" : ", rotary positions";
  out += spec.tied_embeddings ? ", tied embeddings" : ", untied embeddings";
  out += spec.gated_mlp ? ", gated MLP (SwiGLU, 3 matrices)" : ", plain MLP (GeLU, 2 matrices)";
  return out;
}

/// Key/value heads, `heads` when the spec leaves them at 0.
constexpr std::int64_t kv_heads_of(const transformer_spec& spec) {
  return spec.kv_heads == 0 ? spec.heads : spec.kv_heads;
}

/// MLP inner size, `4·hidden` when the spec leaves it at 0.
constexpr std::int64_t ffn_of(const transformer_spec& spec) {
  return spec.ffn == 0 ? 4 * spec.hidden : spec.ffn;
}

/// Head dimension: `h/a`, or the spec's explicit `head_dim`.
constexpr std::int64_t head_dim(const transformer_spec& spec) {
  return spec.head_dim != 0 ? spec.head_dim : spec.hidden / spec.heads;
}

/// Width of the Q projection (and of the attention output): `a·head_dim`; h unless the spec
/// sets a head dimension other than h/a.
constexpr std::int64_t q_dim(const transformer_spec& spec) { return spec.heads * head_dim(spec); }

/// Width of the K (and of the V) projection: `kv_heads·head_dim`; equals h without GQA.
constexpr std::int64_t kv_dim(const transformer_spec& spec) {
  return kv_heads_of(spec) * head_dim(spec);
}

/// Matrices in the MLP: 3 when gated (gate, up, down), 2 otherwise.
constexpr std::int64_t mlp_matrices(const transformer_spec& spec) { return spec.gated_mlp ? 3 : 2; }

/// Parameter counts by part; every field is a count of parameters (not bytes).
struct param_breakdown {
  std::int64_t embedding = 0;  ///< V·h, the word embedding
  std::int64_t positions = 0;  ///< s·h with learned positions, else 0
  std::int64_t attention = 0;  ///< all layers: Q, K, V, output weights and their biases
  std::int64_t mlp = 0;        ///< all dense layers: the 2 or 3 MLP matrices and their biases
  std::int64_t norms = 0;      ///< all layers' two norms plus the final norm
  std::int64_t output = 0;     ///< V·h when embeddings are untied, else 0
  std::int64_t experts = 0;    ///< all MoE layers: the routed experts
  std::int64_t shared = 0;     ///< all MoE layers: the shared experts (and their gates)
  std::int64_t routers = 0;    ///< all MoE layers: the routers, h·E (+ E biases)
  std::int64_t mtp = 0;        ///< the multi-token-prediction modules (embedding, output shared)
  std::int64_t per_layer = 0;  ///< one layer (an MoE layer if there are any): attention, MLP, norms
  std::int64_t total = 0;
  std::int64_t active = 0;  ///< what one token uses: total with only top-k/E of the routed experts
};

/// The weight matrices of one layer's attention without MLA: `h·(q_dim + 2·kv_dim)` (Q, K, V)
/// and `q_dim·h` (output), q_dim = h unless head_dim is set (Qwen3-32B: 64·128 = 8192 > 5120).
/// The one count every term of weights, copies and gradients uses.
constexpr std::int64_t attention_weights_per_layer(const transformer_spec& spec) {
  const auto h = spec.hidden;
  const auto q = q_dim(spec);
  return h * (q + 2 * kv_dim(spec)) + q * h;
}

/// Parameters of one layer's attention: its weights (attention_weights_per_layer), plus
/// `q_dim + 2·kv_dim` (QKV) and `h` (output) biases when the architecture has biases; with MLA,
/// `mla_params` (mla.hpp).
constexpr std::int64_t attention_params_per_layer(const transformer_spec& spec) {
  const auto h = spec.hidden;
  if (is_mla(spec.mla)) {
    return mla_params(spec.mla, h, spec.heads);
  }
  const auto qkv = q_dim(spec) + 2 * kv_dim(spec);
  return attention_weights_per_layer(spec) + (spec.linear_biases ? qkv + h : 0);
}

/// Parameters of one MLP (or one expert) of inner size `f`: `m·h·f` weights (m = 2, or 3 when
/// gated), plus biases `(m−1)·f + h` when the architecture has biases.
constexpr std::int64_t mlp_params(const transformer_spec& spec, std::int64_t f) {
  const auto h = spec.hidden;
  const auto m = mlp_matrices(spec);
  return m * h * f + (spec.linear_biases ? (m - 1) * f + h : 0);
}

/// Parameters of one dense layer's MLP: `mlp_params(spec, ffn)`.
constexpr std::int64_t mlp_params_per_layer(const transformer_spec& spec) {
  return mlp_params(spec, ffn_of(spec));
}

/// The parts of one MoE layer's MLP: E routed experts of `expert_ffn`, the shared experts
/// (and Qwen2-MoE's h → 1 shared-expert gate), the router h → E (with E biases when the
/// architecture has biases, as GPT-OSS's router does).
struct moe_layer_params {
  std::int64_t routed = 0;
  std::int64_t shared = 0;
  std::int64_t router = 0;
  [[nodiscard]] constexpr std::int64_t total() const { return routed + shared + router; }
};

/// One MoE layer's MLP parameters (zero for a dense spec).
constexpr moe_layer_params moe_params_per_layer(const transformer_spec& spec) {
  const auto& moe = spec.moe;
  if (!is_moe(moe)) {
    return {};
  }
  const auto h = spec.hidden;
  return moe_layer_params{
      .routed = moe.experts * mlp_params(spec, moe.expert_ffn),
      .shared = moe.shared_experts * mlp_params(spec, shared_ffn_of(moe)) +
                (moe.shared_gate && moe.shared_experts > 0 ? h : 0),
      // Top-1 of one expert needs no scores: a router over one expert is left out, so that a
      // dense model written as one expert costs exactly what the dense model costs.
      .router = moe.experts == 1 ? 0 : h * moe.experts + (spec.linear_biases ? moe.experts : 0),
  };
}

/// Layers with experts (0 for a dense spec).
constexpr std::int64_t moe_layers(const transformer_spec& spec) {
  return moe_layer_count(spec.moe, spec.layers);
}

/// Whether the last layer has experts: an MTP module repeats the last layer's kind, as in
/// DeepSeek-V3 and Megatron-Core's `mtp_num_layers` (last_layer_is_moe).
constexpr bool last_layer_is_moe(const transformer_spec& spec) {
  return is_moe_layer(spec.moe, spec.layers - 1);
}

/// The MTP modules with experts: all of them when the last layer has experts, else none.
constexpr std::int64_t mtp_moe_layers(const transformer_spec& spec) {
  return last_layer_is_moe(spec) ? spec.mtp_layers : 0;
}

/// Parameters of one norm layer: 2h (LayerNorm weight and bias) or h (RMSNorm weight).
constexpr std::int64_t norm_params(const transformer_spec& spec) {
  return spec.norm == norm_kind::layer_norm ? 2 * spec.hidden : spec.hidden;
}

/// The parameter count by part. For GPT conventions this is Narayanan et al. 2021 eq. (2),
/// `12·L·h²·(1 + 13/(12h) + (V+s)/(12·L·h))`, plus the final LayerNorm's 2h that eq. (2)
/// leaves out. Call `validate` first: unchecked dimensions can overflow.
/// With experts: dense layers count the MLP, MoE layers `moe_params_per_layer`; an MTP module
/// (DeepSeek-V3 Sec. 2.2: two norms, the projection 2h → h, one layer of the last layer's
/// kind, a final norm) shares the embedding and the output layer, as Megatron-Core trains it.
constexpr param_breakdown count_params(const transformer_spec& spec) {
  param_breakdown p;
  const auto h = spec.hidden;
  const auto moe_count = moe_layers(spec);
  const auto dense_count = spec.layers - moe_count;
  const auto moe = moe_params_per_layer(spec);
  p.embedding = spec.vocab * h;
  p.positions = spec.positions == position_kind::learned ? spec.seq * h : 0;
  const auto layer_common = attention_params_per_layer(spec) + 2 * norm_params(spec);
  p.per_layer = layer_common + (moe_count > 0 ? moe.total() : mlp_params_per_layer(spec));
  p.attention = spec.layers * attention_params_per_layer(spec);
  p.mlp = dense_count * mlp_params_per_layer(spec);
  p.norms = spec.layers * 2 * norm_params(spec) + norm_params(spec);
  p.output = spec.tied_embeddings ? 0 : spec.vocab * h;
  p.experts = moe_count * moe.routed;
  p.shared = moe_count * moe.shared;
  p.routers = moe_count * moe.router;
  const auto mtp_layer =
      layer_common + (last_layer_is_moe(spec) ? moe.total() : mlp_params_per_layer(spec));
  p.mtp = spec.mtp_layers * (3 * norm_params(spec) + 2 * h * h + mtp_layer);
  p.total = p.embedding + p.positions + p.attention + p.mlp + p.norms + p.output + p.experts +
            p.shared + p.routers + p.mtp;
  // A token visits k of the E routed experts in every MoE layer (and in an MoE MTP layer).
  const auto routed_all = p.experts + (last_layer_is_moe(spec) ? spec.mtp_layers * moe.routed : 0);
  const auto routed_active =
      is_moe(spec.moe) ? routed_all / spec.moe.experts * spec.moe.top_k : std::int64_t{0};
  p.active = p.total - routed_all + routed_active;
  return p;
}

/// The largest value accepted for one dimension; tensor dimensions are 32-bit in practice.
inline constexpr std::int64_t max_model_dimension = std::numeric_limits<std::int32_t>::max();
/// The largest parameter count accepted (10^15): far beyond any model, and exact in a double.
inline constexpr double max_model_params = 1e15;

namespace detail {
inline void require_model_dimension(const char* field, std::int64_t value, const char* what) {
  if (value < 1 || value > max_model_dimension) {
    throw invalid_spec(field, std::to_string(value) + " is out of range; " + what +
                                  " must be a whole number in 1.." +
                                  std::to_string(max_model_dimension));
  }
}
}  // namespace detail

/// Throws `invalid_spec` naming the field ("layers", "hidden", "heads", "kv_heads", "ffn",
/// "vocab", "seq") when a dimension is out of range, when heads do not divide hidden, when
/// kv_heads do not divide heads, or when the parameter count would exceed 10^15.
inline void validate(const transformer_spec& spec) {
  detail::require_model_dimension("layers", spec.layers, "the number of layers");
  detail::require_model_dimension("hidden", spec.hidden, "the hidden size");
  detail::require_model_dimension("heads", spec.heads, "the number of attention heads");
  if (spec.kv_heads != 0) {
    detail::require_model_dimension("kv_heads", spec.kv_heads, "the number of KV heads");
  }
  if (spec.ffn != 0) {
    detail::require_model_dimension("ffn", spec.ffn, "the MLP size");
  }
  detail::require_model_dimension("vocab", spec.vocab, "the vocabulary size");
  detail::require_model_dimension("seq", spec.seq, "the sequence length");
  if (spec.head_dim != 0) {
    detail::require_model_dimension("head_dim", spec.head_dim, "the head dimension");
  }
  if (spec.head_dim == 0 && !is_mla(spec.mla) && spec.hidden % spec.heads != 0) {
    throw invalid_spec("heads", std::to_string(spec.heads) +
                                    " heads do not divide hidden = " + std::to_string(spec.hidden) +
                                    "; the head dimension h/a must be a whole number");
  }
  const auto kv = kv_heads_of(spec);
  if (kv > spec.heads || spec.heads % kv != 0) {
    throw invalid_spec("kv_heads", std::to_string(kv) + " KV heads do not divide heads = " +
                                       std::to_string(spec.heads) +
                                       "; each KV head serves a whole group of query heads");
  }
  validate(spec.mla);
  validate(spec.moe, spec.layers);
  if (spec.attention_window != 0) {
    detail::require_model_dimension("attention_window", spec.attention_window,
                                    "the sliding window");
  }
  if (spec.attention_chunk != 0) {
    detail::require_model_dimension("attention_chunk", spec.attention_chunk, "the attention chunk");
  }
  if (spec.attention_window != 0 && spec.attention_chunk != 0) {
    throw invalid_spec("attention_chunk",
                       "a layer is either sliding-window or chunked; give attention_window or "
                       "attention_chunk, not both");
  }
  if (spec.window_full_every < 0 || spec.window_full_every > spec.layers) {
    throw invalid_spec("window_full_every", std::to_string(spec.window_full_every) +
                                                " is out of range; expected 0.." +
                                                std::to_string(spec.layers));
  }
  if (spec.window_full_every != 0 && spec.attention_window == 0 && spec.attention_chunk == 0) {
    throw invalid_spec("window_full_every",
                       "full layers between windowed ones need a window (attention_window or "
                       "attention_chunk)");
  }
  if (spec.mtp_layers < 0 || spec.mtp_layers > spec.layers) {
    throw invalid_spec("mtp_layers", std::to_string(spec.mtp_layers) +
                                         " is out of range; expected 0.." +
                                         std::to_string(spec.layers));
  }
  // The parameter count in double precision first, so that the exact count cannot overflow.
  const auto h = static_cast<double>(spec.hidden);
  const auto f = static_cast<double>(ffn_of(spec));
  const auto q = static_cast<double>(spec.heads) * static_cast<double>(head_dim(spec));
  const auto experts = static_cast<double>(spec.moe.experts + spec.moe.shared_experts) *
                       static_cast<double>(std::max(spec.moe.expert_ffn, spec.moe.shared_ffn));
  const auto mla = static_cast<double>(spec.mla.q_lora_rank + spec.mla.kv_lora_rank) *
                   (h + static_cast<double>(spec.heads) *
                            static_cast<double>(mla_qk_head_dim(spec.mla) + spec.mla.v_head_dim));
  const double rough = static_cast<double>(spec.layers + spec.mtp_layers) *
                           (4.0 * h * (h + q) + 3.0 * h * (f + experts) + 2.0 * mla) +
                       2.0 * (static_cast<double>(spec.vocab) + static_cast<double>(spec.seq)) * h;
  if (!(rough <= max_model_params)) {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%.3g", rough);
    throw invalid_spec("hidden", std::string("the dimensions give about ") + text.data() +
                                     " parameters, beyond the 1e15 this model accepts; check "
                                     "layers, hidden, ffn and vocab");
  }
}

/// Whether any layer has a sliding window or chunk (of any length).
constexpr bool has_attention_window(const transformer_spec& spec) {
  return spec.attention_window > 0 || spec.attention_chunk > 0;
}

/// Layers with a window or chunk: all L with g = 0, else L − ⌊L/g⌋ (MTP layers are full).
constexpr std::int64_t windowed_layers(const transformer_spec& spec) {
  if (!has_attention_window(spec)) {
    return 0;
  }
  return spec.window_full_every == 0 ? spec.layers
                                     : spec.layers - spec.layers / spec.window_full_every;
}

/// Whether layer `i` (from 0) is windowed (see transformer_spec).
constexpr bool is_windowed_layer(const transformer_spec& spec, std::int64_t i) {
  return has_attention_window(spec) &&
         (spec.window_full_every == 0 || (i + 1) % spec.window_full_every != 0);
}

/// Whether the window shortens any layer's attention at `seq` tokens: w < s or c < s.
constexpr bool window_cuts(const transformer_spec& spec, std::int64_t seq) {
  return windowed_layers(spec) > 0 &&
         (spec.attention_window > 0 ? spec.attention_window : spec.attention_chunk) < seq;
}

/// The (query, key) pairs of causal attention over s tokens: s·(s+1)/2.
constexpr double causal_attention_pairs(double s) { return s * (s + 1.0) / 2.0; }

/// The (query, key) pairs a windowed layer of `spec` computes over `seq` tokens: sliding
/// window w: Σ min(i, w) = s·w − w·(w−1)/2 for s > w; chunk c: ⌊s/c⌋·c·(c+1)/2 + r·(r+1)/2,
/// r = s mod c; causal_attention_pairs(s) when the window covers the sequence or is absent.
constexpr double windowed_attention_pairs(const transformer_spec& spec, std::int64_t seq) {
  const auto s = static_cast<double>(seq);
  if (spec.attention_window > 0 && spec.attention_window < seq) {
    const auto w = static_cast<double>(spec.attention_window);
    return s * w - w * (w - 1.0) / 2.0;
  }
  if (spec.attention_chunk > 0 && spec.attention_chunk < seq) {
    const std::int64_t whole = seq / spec.attention_chunk;  // whole chunks: ⌊s/c⌋
    const auto c = static_cast<double>(spec.attention_chunk);
    const auto r = static_cast<double>(seq % spec.attention_chunk);
    return static_cast<double>(whole) * causal_attention_pairs(c) + causal_attention_pairs(r);
  }
  return causal_attention_pairs(s);
}

/// The score elements a windowed layer keeps per sequence when scores are materialised
/// (unfused attention): s × min(s, w) for a sliding window (a band, as FlexAttention's or a
/// banded kernel's blocks hold it), ⌊s/c⌋·c² + r² for chunks, s² for a full layer.
constexpr double windowed_score_elements(const transformer_spec& spec, std::int64_t seq) {
  const auto s = static_cast<double>(seq);
  if (spec.attention_window > 0 && spec.attention_window < seq) {
    return s * static_cast<double>(spec.attention_window);
  }
  if (spec.attention_chunk > 0 && spec.attention_chunk < seq) {
    const std::int64_t whole = seq / spec.attention_chunk;  // whole chunks: ⌊s/c⌋
    const auto c = static_cast<double>(spec.attention_chunk);
    const auto r = static_cast<double>(seq % spec.attention_chunk);
    return static_cast<double>(whole) * c * c + r * r;
  }
  return s * s;
}

/// The mean over the L layers of (pairs a layer computes) / (causal pairs): 1 without a
/// window. FLOPs and fused-attention time of the attention core scale by it, under every FLOP
/// convention (the full s×s count included: a window keeps that count's share of the pairs).
constexpr double attention_pair_fraction(const transformer_spec& spec, std::int64_t seq) {
  const auto windowed = static_cast<double>(windowed_layers(spec));
  if (windowed == 0.0 || spec.layers == 0) {
    return 1.0;
  }
  const auto L = static_cast<double>(spec.layers);
  const double r =
      windowed_attention_pairs(spec, seq) / causal_attention_pairs(static_cast<double>(seq));
  return (L - windowed + windowed * r) / L;
}

/// The mean over the L layers of (score elements kept) / s²: 1 without a window. Unfused
/// attention's score memory, its softmax/dropout traffic and its batched matmuls scale by it.
constexpr double attention_score_fraction(const transformer_spec& spec, std::int64_t seq) {
  const auto windowed = static_cast<double>(windowed_layers(spec));
  if (windowed == 0.0 || spec.layers == 0) {
    return 1.0;
  }
  const auto L = static_cast<double>(spec.layers);
  const auto s = static_cast<double>(seq);
  const double r = windowed_score_elements(spec, seq) / (s * s);
  return (L - windowed + windowed * r) / L;
}

/// Whether the spec uses only what every model costs, the per-layer one included: dense
/// MHA/GQA (any head dimension: the layer's FLOPs are flops.hpp's, with q_dim), no experts,
/// no MLA, no MTP.
constexpr bool is_dense_mha(const transformer_spec& spec) {
  return !is_moe(spec.moe) && !is_mla(spec.mla) && spec.mtp_layers == 0;
}

/// Throws `invalid_spec(field, ...)` naming what is not costed yet when the spec is not
/// `is_dense_mha`: `model show` describes such models (parameters, FLOPs), and `step`, `check`
/// and `plan` cost experts, MLA and MTP, but the per-layer TP model (sweep, explain) prices
/// only dense MHA/GQA layers.
inline void require_dense_mha(const transformer_spec& spec, const std::string& field) {
  const char* what = is_moe(spec.moe)      ? "mixture-of-experts layers"
                     : is_mla(spec.mla)    ? "multi-head latent attention"
                     : spec.mtp_layers > 0 ? "multi-token-prediction layers"
                                           : nullptr;
  if (what != nullptr) {
    throw invalid_spec(field, std::string("the model has ") + what +
                                  ", which the per-layer model (sweep, explain) does not cost "
                                  "('tpcost step' and 'tpcost plan' cost them; 'tpcost model "
                                  "show' gives its parameters and FLOPs)");
  }
}

}  // namespace tpcost
