// Reading a Hugging Face `config.json` into a transformer_spec, through nlohmann_json.
//
// Keys read (the GPT-2 names in brackets are accepted too):
//   hidden_size [n_embd], num_attention_heads [n_head], num_hidden_layers [n_layer],
//   vocab_size, max_position_embeddings [n_positions, n_ctx]   required
//   num_key_value_heads   optional; missing or null: = num_attention_heads (no GQA)
//   intermediate_size [n_inner]   required for a gated MLP; otherwise missing or null: 4h
//   hidden_act [activation_function], model_type, tie_word_embeddings, attention_bias,
//   mlp_bias, head_dim    optional
//
// Conventions: model_type "gpt2" reads as the GPT bundle (biases, LayerNorm, learned
// positions, tied embeddings unless tie_word_embeddings is false, plain MLP). Any other model
// reads as the Llama bundle (RMSNorm, rotary positions) with biases when attention_bias or
// mlp_bias is true, embeddings tied only when tie_word_embeddings is true (LlamaConfig's
// default is false), and a gated MLP when hidden_act is silu, swish or swiglu, or the model
// type is one whose MLP is always gated (llama, mistral, qwen2, gemma, gemma2, phi3); a
// missing hidden_act reads as silu, LlamaConfig's default.
//
// Head dimension, MLA and experts (read_attention_variant, read_experts below): a head_dim
// other than h/a is kept (Qwen3, GPT-OSS); DeepSeek's kv_lora_rank, q_lora_rank,
// qk_nope_head_dim, qk_rope_head_dim, v_head_dim give MLA; the experts come from the keys
// each family's config really uses:
//   Mixtral, GPT-OSS    num_local_experts, num_experts_per_tok, intermediate_size (per expert)
//   Qwen2-MoE, Qwen3-MoE num_experts, num_experts_per_tok, moe_intermediate_size,
//                        shared_expert_intermediate_size (one gated shared expert),
//                        decoder_sparse_step, mlp_only_layers (leading layers only)
//   DeepSeek-V2/V3, Kimi-K2 n_routed_experts, num_experts_per_tok, moe_intermediate_size,
//                        n_shared_experts, first_k_dense_replace, moe_layer_freq,
//                        num_nextn_predict_layers (MTP)
//   Llama 4             text_config/{num_local_experts, num_experts_per_tok, intermediate_size
//                        (per expert and for the one shared expert), intermediate_size_mlp
//                        (dense layers), interleave_moe_layer_step, moe_layers}
// Router settings that do not change the cost (router_aux_loss_coef, norm_topk_prob,
// routed_scaling_factor, n_group, topk_group, scoring_func, ...) are accepted and ignored. Any
// other key that names experts, MoE, a router, top-k or next-n prediction with a value that is
// not null, false or 0 is an error naming it (ERNIE-4.5's moe_num_experts, for one), so that an
// MoE config is never read as a dense model.
//
// Attention patterns and positions (read_attention_pattern, read_rope_scaling): windowed layers
// are read into the spec (transformer_spec::attention_window, attention_chunk and
// window_full_every: every g-th layer full), and costed on the window (model.hpp):
//   sliding_window          every layer sliding (Mistral) unless layer_types or
//                           sliding_window_pattern says which; null, or Qwen2's
//                           use_sliding_window false (HF then ignores it): no window
//   layer_types             (transformers >= 4.53, GPT-OSS) sliding_attention / chunked_attention
//                           / full_attention per layer; refused when not "every g-th layer full",
//                           of another length than the layers, or mixing sliding and chunked
//   sliding_window_pattern  Gemma 3's interleave: layer i full when (i+1) % pattern == 0
//   attention_chunk_size    Llama 4's chunked attention, on the RoPE layers: no_rope_layers
//                           (1 = RoPE = chunked), else every no_rope_layer_interval-th (4)
//                           layer full, as HF Llama4TextConfig sets it
//   attention_types         GPT-Neo's local/global list: refused with any "local" layer
//   rope_scaling            read and checked (rope_type or type one of default, linear,
//                           dynamic, yarn, longrope, su, llama3): it changes positions, not the
//                           cost; another type is refused naming /rope_scaling/rope_type
//
// Every error is `invalid_spec(field, "<file>: <JSON pointer>: <what is wrong>")`.
#pragma once

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tpcost/io/json_brief.hpp"

#include "tpcost/base/error.hpp"
#include "tpcost/model/model.hpp"

namespace tpcost::io {

namespace detail {

class hf_reader {
 public:
  hf_reader(const nlohmann::json& config, std::string_view origin, std::string_view field)
      : config_(config), origin_(origin), field_(field) {}

  [[noreturn]] void fail(std::string_view key, const std::string& what) const {
    throw invalid_spec(field_, origin_ + ": /" + std::string(key) + ": " + what);
  }

  /// The first of `keys` present with a non-null value, or an empty view.
  [[nodiscard]] std::string_view find(std::initializer_list<std::string_view> keys) const {
    for (const auto key : keys) {
      const auto it = config_.find(std::string(key));
      if (it != config_.end() && !it->is_null()) {
        return key;
      }
    }
    return {};
  }

  /// A whole number in 1..max_model_dimension under the first present key of `keys`; throws
  /// naming the first key when none is present.
  std::int64_t count(std::initializer_list<std::string_view> keys, const char* what) const {
    const auto key = find(keys);
    if (key.empty()) {
      std::string names;
      for (const auto k : keys) {
        names += (names.empty() ? "" : " or ") + std::string(k);
      }
      fail(*keys.begin(), std::string("missing; ") + what + " is required (" + names + ")");
    }
    return count_at(key);
  }

  std::int64_t count_at(std::string_view key) const {
    const auto& value = config_.at(std::string(key));
    if (value.is_number_unsigned() || value.is_number_integer()) {
      const bool in_range =
          value.is_number_unsigned()
              ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(max_model_dimension) &&
                    value.get<std::uint64_t>() >= 1
              : value.get<std::int64_t>() >= 1;
      if (!in_range) {
        fail(key, "expected a whole number in 1.." + std::to_string(max_model_dimension) +
                      ", found " + json_brief(value));
      }
      return value.get<std::int64_t>();
    }
    fail(key, "expected a whole number, found " + shown(value));
  }

  /// A boolean under `key`, or `fallback` when it is missing or null.
  bool flag(std::string_view key, bool fallback) const {
    if (find({key}).empty()) {
      return fallback;
    }
    const auto& value = config_.at(std::string(key));
    if (!value.is_boolean()) {
      fail(key, "expected true or false, found " + shown(value));
    }
    return value.get<bool>();
  }

  /// A string under the first present key of `keys`, or `fallback`; `used` gets the key.
  std::string text(std::initializer_list<std::string_view> keys, std::string fallback,
                   std::string_view& used) const {
    used = find(keys);
    if (used.empty()) {
      return fallback;
    }
    const auto& value = config_.at(std::string(used));
    if (!value.is_string()) {
      fail(used, "expected a string, found " + shown(value));
    }
    return value.get<std::string>();
  }

  /// A JSON value as the user would recognise it: its type and, if short, its text.
  static std::string shown(const nlohmann::json& value) {
    if (value.is_array() || value.is_object()) {
      return json_brief(value);  // "an array of 3 items": never a recursive dump
    }
    return std::string(value.type_name()) + " " + bounded(value.dump(), 40);
  }

 private:
  const nlohmann::json& config_;
  std::string origin_;
  std::string field_;
};

inline bool is_one_of(std::string_view text, std::initializer_list<std::string_view> set) {
  for (const auto item : set) {
    if (text == item) {
      return true;
    }
  }
  return false;
}

// ---- Head dimension, MLA and experts (see the file comment) ----

template <std::size_t N>
bool is_one_of(std::string_view text, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), text) != set.end();
}

/// Model types whose MLP (and experts) are always gated SwiGLU.
inline constexpr std::array<std::string_view, 8> moe_model_types = {
    "mixtral",     "qwen2_moe", "qwen3_moe", "deepseek_v2",
    "deepseek_v3", "kimi_k2",   "gpt_oss",   "llama4_text"};

/// head_dim (kept when it differs from h/a) and the MLA dimensions.
inline void read_attention_variant(const hf_reader& read, transformer_spec& spec) {
  if (!read.find({"kv_lora_rank"}).empty()) {
    auto& mla = spec.mla;
    mla.kv_lora_rank = read.count_at("kv_lora_rank");
    mla.q_lora_rank = read.find({"q_lora_rank"}).empty() ? 0 : read.count_at("q_lora_rank");
    mla.qk_nope_head_dim = read.count({"qk_nope_head_dim"}, "MLA's query/key head dimension");
    mla.qk_rope_head_dim = read.count({"qk_rope_head_dim"}, "MLA's rotary head dimension");
    mla.v_head_dim = read.count({"v_head_dim"}, "MLA's value head dimension");
    if (!read.find({"qk_head_dim"}).empty() &&
        read.count_at("qk_head_dim") != mla_qk_head_dim(mla)) {
      read.fail("qk_head_dim", "is not qk_nope_head_dim + qk_rope_head_dim = " +
                                   std::to_string(mla_qk_head_dim(mla)));
    }
    return;  // MLA's head_dim key (where present) is its rotary part, not a/h
  }
  for (const std::string_view key : {"q_lora_rank", "qk_nope_head_dim", "v_head_dim"}) {
    if (!read.find({key}).empty()) {
      read.fail(key, "an MLA dimension without kv_lora_rank");
    }
  }
  if (!read.find({"head_dim"}).empty() && read.count_at("head_dim") * spec.heads != spec.hidden) {
    spec.head_dim = read.count_at("head_dim");
  }
}

/// Keys that tune the router or the loss but not the matmuls, the memory or the traffic.
inline constexpr std::array<std::string_view, 11> ignored_moe_keys = {"router_aux_loss_coef",
                                                                      "output_router_logits",
                                                                      "router_jitter_noise",
                                                                      "norm_topk_prob",
                                                                      "routed_scaling_factor",
                                                                      "scoring_func",
                                                                      "aux_loss_alpha",
                                                                      "seq_aux",
                                                                      "ep_size",
                                                                      "router_z_loss_coef",
                                                                      "moe_router_dtype"};

/// Keys read_experts understands.
inline constexpr std::array<std::string_view, 15> read_moe_keys = {
    "num_local_experts",
    "num_experts",
    "n_routed_experts",
    "num_experts_per_tok",
    "experts_per_token",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "n_shared_experts",
    "first_k_dense_replace",
    "moe_layer_freq",
    "decoder_sparse_step",
    "interleave_moe_layer_step",
    "mlp_only_layers",
    "moe_layers",
    "num_nextn_predict_layers"};

/// The router's group keys read_routing_groups understands (without experts they are ignored:
/// a dense config may carry a template's defaults).
inline constexpr std::array<std::string_view, 3> routing_moe_keys = {"n_group", "topk_group",
                                                                     "topk_method"};

/// Whether a key names something of a mixture of experts (or of next-token prediction).
inline bool names_moe(std::string_view key) {
  std::string lower(key);
  for (auto& c : lower) {
    c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  for (const std::string_view word : {"expert", "moe", "router", "topk", "top_k", "nextn"}) {
    if (lower.find(word) != std::string::npos) {
      return true;
    }
  }
  return false;
}

/// Whether a value switches nothing on: null, false, 0, "" or an empty list.
inline bool is_off(const nlohmann::json& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) ||
         (v.is_number() && v.get<double>() == 0.0) ||
         (v.is_string() && v.get<std::string>().empty()) || (v.is_array() && v.empty());
}

/// The layers listed under `key` (mlp_only_layers, moe_layers) as whole numbers.
inline std::vector<std::int64_t> layer_list(const hf_reader& read, const nlohmann::json& config,
                                            std::string_view key) {
  std::vector<std::int64_t> out;
  const auto& v = config.at(std::string(key));
  if (!v.is_array()) {
    read.fail(key, "expected a list of layer numbers, found " + hf_reader::shown(v));
  }
  for (const auto& x : v) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 0) {
      read.fail(key, "expected layer numbers >= 0, found " + hf_reader::shown(x));
    }
    out.push_back(x.get<std::int64_t>());
  }
  return out;
}

/// Group-limited routing (moe_spec::routing): DeepSeek's n_group and topk_group, used by every
/// topk_method but "greedy" (HF modeling_deepseek.py, MoEGate: "greedy" takes the top-k over all
/// experts, "group_limited_greedy" (V2) and "noaux_tc" (V3) within topk_group of n_group
/// groups). DeepseekV2Config's default method is greedy; other configs without the key route
/// by groups when they give them.
inline void read_routing_groups(const hf_reader& read, const nlohmann::json& config,
                                std::string_view model_type, moe_spec& moe) {
  std::string_view used;
  const auto method = read.text({"topk_method"}, model_type == "deepseek_v2" ? "greedy" : "", used);
  const bool has_groups = !read.find({"n_group"}).empty() && !is_off(config.at("n_group"));
  if (method == "greedy" || !has_groups) {
    return;
  }
  moe.routing.groups = read.count_at("n_group");
  moe.routing.groups_per_token = read.count({"topk_group"}, "the routing groups per token");
}

/// The experts, their layer pattern and the MTP depth; see the file comment.
inline void read_experts(const hf_reader& read, const nlohmann::json& config,
                         std::string_view model_type, transformer_spec& spec) {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : config.items()) {
    if (names_moe(key) && !is_off(value) && !is_one_of(key, read_moe_keys) &&
        !is_one_of(key, ignored_moe_keys) && !is_one_of(key, routing_moe_keys)) {
      unknown.push_back(key);
    }
  }
  if (!unknown.empty()) {
    std::string others;
    for (std::size_t i = 1; i < unknown.size(); ++i) {
      others += (i == 1 ? " (so are " : ", ") + unknown[i] + (i + 1 == unknown.size() ? ")" : "");
    }
    read.fail(unknown.front(),
              "a mixture-of-experts key this reader does not understand" + others +
                  "; the costs would be wrong without it (keys read: docs/moe.md)");
  }
  if (!read.find({"num_nextn_predict_layers"}).empty() &&
      !is_off(config.at("num_nextn_predict_layers"))) {
    spec.mtp_layers = read.count_at("num_nextn_predict_layers");
  }
  const auto experts_key = read.find({"n_routed_experts", "num_local_experts", "num_experts"});
  if (experts_key.empty() || is_off(config.at(std::string(experts_key)))) {
    for (const std::string_view key : read_moe_keys) {
      if (key != "num_nextn_predict_layers" && !read.find({key}).empty() &&
          !is_off(config.at(std::string(key)))) {
        read.fail(key,
                  "an expert setting without a number of experts (num_local_experts, "
                  "num_experts or n_routed_experts)");
      }
    }
    return;
  }
  auto& moe = spec.moe;
  moe.experts = read.count_at(experts_key);
  moe.top_k =
      read.count({"num_experts_per_tok", "experts_per_token"}, "the number of experts per token");
  const auto size_key = read.find({"moe_intermediate_size"});
  moe.expert_ffn = !size_key.empty() ? read.count_at(size_key)
                                     : read.count({"intermediate_size"}, "the expert size");
  if (!read.find({"n_shared_experts"}).empty()) {
    moe.shared_experts =
        is_off(config.at("n_shared_experts")) ? 0 : read.count_at("n_shared_experts");
  }
  if (!read.find({"shared_expert_intermediate_size"}).empty() &&
      !is_off(config.at("shared_expert_intermediate_size"))) {
    moe.shared_experts = 1;  // Qwen2-MoE: one shared expert of this size, behind a sigmoid gate
    moe.shared_ffn = read.count_at("shared_expert_intermediate_size");
    moe.shared_gate = true;
  }
  if (model_type == "llama4_text") {
    // Llama4TextMoe: one shared expert of intermediate_size beside the routed ones; the dense
    // layers' MLP is intermediate_size_mlp.
    moe.shared_experts = 1;
    spec.ffn = read.count({"intermediate_size_mlp"}, "the dense MLP size");
  }
  if (!read.find({"first_k_dense_replace"}).empty()) {
    moe.dense_layers = read.count_at("first_k_dense_replace");
  }
  if (!read.find({"moe_layer_freq"}).empty()) {
    moe.layer_freq = read.count_at("moe_layer_freq");  // DeepSeek: i % freq == 0
  }
  for (const std::string_view key : {"decoder_sparse_step", "interleave_moe_layer_step"}) {
    if (!read.find({key}).empty()) {
      moe.layer_freq = read.count_at(key);  // Qwen, Llama 4: (i + 1) % step == 0
      moe.layer_offset = moe.layer_freq - 1;
    }
  }
  if (!read.find({"mlp_only_layers"}).empty()) {
    const auto dense = layer_list(read, config, "mlp_only_layers");
    for (std::size_t i = 0; i < dense.size(); ++i) {
      if (dense[i] != static_cast<std::int64_t>(i)) {
        read.fail("mlp_only_layers",
                  "dense layers other than the leading ones (0, 1, ...) are "
                  "not modelled");
      }
    }
    moe.dense_layers = std::max(moe.dense_layers, static_cast<std::int64_t>(dense.size()));
  }
  read_routing_groups(read, config, model_type, moe);
  try {
    validate(moe, spec.layers);
  } catch (const invalid_spec& e) {
    const auto& f = e.field();
    read.fail(f == "top_k"               ? std::string_view("num_experts_per_tok")
              : f == "expert_ffn"        ? (size_key.empty() ? "intermediate_size" : size_key)
              : f == "dense_layers"      ? std::string_view("first_k_dense_replace")
              : f == "router_groups"     ? std::string_view("n_group")
              : f == "router_group_topk" ? std::string_view("topk_group")
                                         : experts_key,
              e.detail());
  }
  if (!read.find({"moe_layers"}).empty()) {
    const auto listed = layer_list(read, config, "moe_layers");
    bool same = static_cast<std::int64_t>(listed.size()) == moe_layer_count(moe, spec.layers);
    for (const auto i : listed) {
      same = same && i < spec.layers && is_moe_layer(moe, i);
    }
    if (!same) {
      read.fail("moe_layers",
                "does not match interleave_moe_layer_step = " + std::to_string(moe.layer_freq) +
                    "; only that pattern is modelled");
    }
  }
}

}  // namespace detail

/// How the positions of a config are scaled (rope_scaling), read only to be checked: the
/// scaling changes the rotary frequencies, not the FLOPs or bytes of any kernel.
struct rope_scaling_info {
  std::string type;   ///< "llama3", "yarn", ...; empty when the config has none
  double factor = 1;  ///< the context extension factor
};

/// Reads /rope_scaling (see the file comment); throws invalid_spec(field, "<origin>:
/// /rope_scaling/...: ...") for a type the list does not name or a malformed entry.
inline rope_scaling_info read_rope_scaling(const nlohmann::json& config, std::string_view origin,
                                           std::string_view field) {
  rope_scaling_info out;
  const auto it = config.find("rope_scaling");
  if (it == config.end() || it->is_null()) {
    return out;
  }
  const auto fail = [&](const std::string& where, const std::string& what) {
    throw invalid_spec(std::string(field),
                       std::string(origin) + ": /rope_scaling" + where + ": " + what);
  };
  if (!it->is_object()) {
    fail("", "expected an object or null, found " + detail::hf_reader::shown(*it));
  }
  std::string key = it->contains("rope_type") ? "rope_type" : "type";
  if (!it->contains(key) || !(*it)[key].is_string()) {
    fail("/rope_type",
         "missing or not a string; expected one of default, linear, dynamic, yarn, "
         "longrope, su, llama3");
  }
  out.type = (*it)[key].get<std::string>();
  if (!detail::is_one_of(out.type,
                         {"default", "linear", "dynamic", "yarn", "longrope", "su", "llama3"})) {
    fail("/" + key, "'" + out.type +
                        "' is not a rope scaling tpcost knows (default, linear, dynamic, yarn, "
                        "longrope, su, llama3); it would not know the model's positions");
  }
  if (it->contains("factor")) {
    const auto& f = (*it)["factor"];
    if (!f.is_number() || !(f.get<double>() >= 1.0)) {
      fail("/factor", "expected a number >= 1, found " + detail::hf_reader::shown(f));
    }
    out.factor = f.get<double>();
  }
  return out;
}

namespace detail {

/// g for transformer_spec::window_full_every from per-layer flags (true = windowed): 0 when
/// every layer is windowed, g when layer i is full exactly where (i+1) % g == 0, else -1 (a
/// pattern the spec cannot hold).
inline std::int64_t full_every_of(const std::vector<bool>& windowed) {
  const auto n = static_cast<std::int64_t>(windowed.size());
  std::int64_t first_full = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!windowed[static_cast<std::size_t>(i)]) {
      first_full = i;
      break;
    }
  }
  if (first_full < 0) {
    return 0;
  }
  const auto g = first_full + 1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (windowed[static_cast<std::size_t>(i)] != ((i + 1) % g != 0)) {
      return -1;
    }
  }
  return g;
}

}  // namespace detail

/// Reads the attention pattern into `spec` (see the file comment): a sliding window or chunk
/// and which layers have it. Refuses, naming the key, what the spec cannot hold: layer_types
/// of another length than the layers or in a pattern other than "every g-th layer full",
/// sliding and chunked layers mixed, a windowed layer_types entry without its size, GPT-Neo's
/// local layers. Throws invalid_spec(field, "<origin>: /<key>: ...").
inline void read_attention_pattern(const nlohmann::json& config, std::string_view origin,
                                   std::string_view field, transformer_spec& spec) {
  const detail::hf_reader read(config, origin, field);
  const bool sliding_off =
      !read.find({"use_sliding_window"}).empty() && !read.flag("use_sliding_window", true);
  std::int64_t window = 0;  // 0: none (null, or Qwen2's use_sliding_window false)
  if (!read.find({"sliding_window"}).empty() && !sliding_off) {
    window = read.count_at("sliding_window");
  }
  const std::int64_t chunk =
      read.find({"attention_chunk_size"}).empty() ? 0 : read.count_at("attention_chunk_size");
  const auto set_pattern = [&](std::string_view key, const std::vector<bool>& windowed) {
    if (static_cast<std::int64_t>(windowed.size()) != spec.layers) {
      read.fail(key, std::to_string(windowed.size()) + " entries for " +
                         std::to_string(spec.layers) + " layers");
    }
    const auto g = detail::full_every_of(windowed);
    if (g < 0) {
      read.fail(key,
                "windowed and full layers in a pattern other than every g-th layer full, "
                "which tpcost does not model");
    }
    spec.window_full_every = g;
  };
  if (!read.find({"layer_types"}).empty()) {
    const auto& types = config.at("layer_types");
    if (!types.is_array()) {
      read.fail("layer_types",
                "expected a list of attention types, found " + detail::hf_reader::shown(types));
    }
    std::vector<bool> windowed;
    std::int64_t sliding = 0;
    std::int64_t chunked = 0;
    for (const auto& type : types) {
      if (!type.is_string()) {
        read.fail("layer_types", "expected strings, found " + detail::hf_reader::shown(type));
      }
      const auto name = type.get<std::string>();
      sliding += name == "sliding_attention" ? 1 : 0;
      chunked += name == "chunked_attention" ? 1 : 0;
      if (name != "sliding_attention" && name != "chunked_attention" && name != "full_attention") {
        read.fail("layer_types", "'" + name +
                                     "' is not an attention type tpcost knows (full_attention, "
                                     "sliding_attention, chunked_attention)");
      }
      windowed.push_back(name != "full_attention");
    }
    if (sliding > 0 && chunked > 0) {
      read.fail("layer_types", "sliding and chunked layers mixed, which tpcost does not model");
    }
    if (sliding + chunked == 0) {
      return;  // every layer full attention: a window alone does not then apply
    }
    if ((sliding > 0 ? window : chunk) == 0) {
      read.fail("layer_types", std::to_string(sliding + chunked) + " " +
                                   (sliding > 0 ? "sliding" : "chunked") +
                                   " layers without their size (" +
                                   (sliding > 0 ? "sliding_window" : "attention_chunk_size") + ")");
    }
    set_pattern("layer_types", windowed);
    (sliding > 0 ? spec.attention_window : spec.attention_chunk) = sliding > 0 ? window : chunk;
  } else if (window > 0) {
    spec.attention_window = window;
    if (!read.find({"sliding_window_pattern"}).empty()) {
      // Gemma 3 (HF Gemma3TextConfig): layer i is sliding unless (i+1) % pattern == 0.
      spec.window_full_every = read.count_at("sliding_window_pattern");
      if (spec.window_full_every > spec.layers) {
        read.fail("sliding_window_pattern",
                  "longer than the " + std::to_string(spec.layers) + " layers");
      }
      spec.window_full_every = spec.window_full_every == 1 ? 0 : spec.window_full_every;
    }
  } else if (chunk > 0) {
    // Llama 4 (HF Llama4TextConfig, Llama4TextAttention): the RoPE layers use chunked
    // attention and the NoPE layers full; no_rope_layers[i] = 1 marks RoPE, and without it
    // layer i is RoPE unless (i+1) % no_rope_layer_interval == 0 (default 4).
    spec.attention_chunk = chunk;
    const auto it = config.find("no_rope_layers");
    if (it != config.end() && it->is_array() && !it->empty()) {
      std::vector<bool> windowed;
      for (const auto& v : *it) {
        if (!v.is_number_integer() || (v.get<std::int64_t>() != 0 && v.get<std::int64_t>() != 1)) {
          read.fail("no_rope_layers", "expected 0 or 1 per layer, found " + json_brief(v));
        }
        windowed.push_back(v.get<std::int64_t>() == 1);
      }
      set_pattern("no_rope_layers", windowed);
    } else {
      const auto interval = read.find({"no_rope_layer_interval"}).empty()
                                ? std::int64_t{4}
                                : read.count_at("no_rope_layer_interval");
      spec.window_full_every = interval <= spec.layers ? interval : 0;
    }
  }
  const auto neo = config.find("attention_types");
  if (neo != config.end() && !neo->is_null() && neo->dump().find("local") != std::string::npos) {
    read.fail("attention_types",
              "GPT-Neo style local attention layers; tpcost models sliding windows from "
              "sliding_window and layer_types, not this list");
  }
}

/// Reads a parsed Hugging Face config (see the file comment). `origin` names the file in
/// errors, `field` the input that gave it (e.g. "--hf-config"). The spec is validated; a
/// failed check names the key it came from ("heads" → /num_attention_heads).
inline transformer_spec from_hf_config(const nlohmann::json& config, std::string_view origin,
                                       std::string_view field) {
  if (!config.is_object()) {
    throw invalid_spec(std::string(field), std::string(origin) + ": the top level is " +
                                               config.type_name() + ", expected a JSON object");
  }
  const detail::hf_reader read(config, origin, field);
  std::string_view type_key;
  const auto model_type = read.text({"model_type"}, "", type_key);
  if (model_type == "llama4") {
    // Llama4ForConditionalGeneration: the language model's config is text_config.
    const auto it = config.find("text_config");
    if (it == config.end() || !it->is_object()) {
      read.fail("text_config", "missing; a llama4 config keeps the language model there");
    }
    return from_hf_config(*it, std::string(origin) + ": /text_config", field);
  }
  std::string_view act_key;
  const auto act = read.text({"hidden_act", "activation_function"}, "silu", act_key);

  transformer_spec spec;
  const bool gpt2 = model_type == "gpt2";
  if (gpt2) {
    spec = with_architecture(spec, architecture::gpt);
    spec.tied_embeddings = read.flag("tie_word_embeddings", true);
  } else {
    spec = with_architecture(spec, architecture::llama);
    spec.linear_biases = read.flag("attention_bias", false) || read.flag("mlp_bias", false);
    spec.tied_embeddings = read.flag("tie_word_embeddings", false);
    spec.gated_mlp =
        detail::is_one_of(act, {"silu", "swish", "swiglu"}) ||
        detail::is_one_of(model_type, {"llama", "mistral", "qwen2", "gemma", "gemma2", "phi3"}) ||
        detail::is_one_of(model_type, detail::moe_model_types);
  }

  const auto hidden_key = read.find({"hidden_size", "n_embd"});
  const auto heads_key = read.find({"num_attention_heads", "n_head"});
  const auto layers_key = read.find({"num_hidden_layers", "n_layer"});
  const auto seq_key = read.find({"max_position_embeddings", "n_positions", "n_ctx"});
  spec.hidden = read.count({"hidden_size", "n_embd"}, "the hidden size");
  spec.heads = read.count({"num_attention_heads", "n_head"}, "the number of attention heads");
  spec.layers = read.count({"num_hidden_layers", "n_layer"}, "the number of layers");
  spec.vocab = read.count({"vocab_size"}, "the vocabulary size");
  spec.seq = read.count({"max_position_embeddings", "n_positions", "n_ctx"},
                        "the maximum sequence length");
  if (!read.find({"num_key_value_heads"}).empty()) {
    spec.kv_heads = read.count_at("num_key_value_heads");
  }
  const auto ffn_key = read.find({"intermediate_size", "n_inner"});
  if (!ffn_key.empty()) {
    spec.ffn = read.count_at(ffn_key);
  } else if (spec.gated_mlp) {
    read.fail("intermediate_size",
              "missing; a gated MLP (activation \"" + act + "\") has no default size");
  }

  detail::read_attention_variant(read, spec);
  detail::read_experts(read, config, model_type, spec);
  try {
    validate(spec);
  } catch (const invalid_spec& e) {
    const auto& f = e.field();
    const std::string_view key = f == "heads"      ? heads_key
                                 : f == "kv_heads" ? std::string_view("num_key_value_heads")
                                 : f == "ffn"      ? ffn_key
                                 : f == "layers"   ? layers_key
                                 : f == "seq"      ? seq_key
                                 : f == "vocab"    ? std::string_view("vocab_size")
                                                   : hidden_key;
    read.fail(key, e.detail());
  }
  read_attention_pattern(config, origin, field, spec);
  try {
    validate(spec);
  } catch (const invalid_spec& e) {
    read.fail(spec.attention_chunk > 0 ? "attention_chunk_size" : "sliding_window", e.detail());
  }
  (void)read_rope_scaling(config, origin, field);
  return spec;
}

/// Reads the text of a Hugging Face config.json; `path` names it in errors. Throws
/// invalid_spec(field, "PATH: ...") for text that is not JSON, nested deeper than
/// `max_json_depth` or holding a number beyond a double, and as `from_hf_config` does.
inline transformer_spec parse_hf_config(std::string_view text, const std::string& path,
                                        std::string_view field) {
  const auto config = parse_untrusted_json(text, std::string(field), path + ": ");
  return from_hf_config(config, path, field);
}

/// The largest config.json read.
inline constexpr std::size_t max_hf_config_bytes = std::size_t{1} << 20;

/// Reads the Hugging Face config file at `path` (see the file comment); errors name the file,
/// the JSON pointer and `field`.
inline transformer_spec load_hf_config(const std::string& path, std::string_view field) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (std::filesystem::is_directory(path, ec) || !in.is_open()) {
    throw invalid_spec(std::string(field), path + ": cannot be read");
  }
  // Read at most one byte past the limit, so that a device (/dev/zero) or a runaway pipe ends
  // in an error instead of filling memory; a config.json is a few kilobytes.
  std::string text(max_hf_config_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    throw invalid_spec(std::string(field), path + ": cannot be read");
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_hf_config_bytes) {
    throw invalid_spec(std::string(field), path + ": more than " +
                                               std::to_string(max_hf_config_bytes) +
                                               " bytes; a config.json is a few kilobytes");
  }
  return parse_hf_config(text, path, field);
}

}  // namespace tpcost::io
