// Model presets: published transformers with their dimensions and where the numbers come from.
//
// Each preset carries the source of its dimensions and its published parameter count with
// the resolution at which it was published ("1.7B" is known to ±0.05B), so that a test can
// hold the count derived from the dimensions (model.hpp) against it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tpcost/base/error.hpp"
#include "tpcost/base/suggest.hpp"
#include "tpcost/model/model.hpp"

namespace tpcost {

/// A published model.
struct model_preset {
  std::string_view name;           ///< lookup key, e.g. "llama-3-8b"
  std::string_view title;          ///< e.g. "Llama 3 8B"
  transformer_spec spec;           ///< dimensions and conventions
  double published_params;         ///< the parameter count as published
  double published_step;           ///< the resolution of that figure (0.1e9 for "1.7B")
  std::string_view source;         ///< where the dimensions come from
  std::string_view params_source;  ///< where the published count comes from
};

namespace detail {

constexpr transformer_spec gpt(std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                               std::int64_t vocab, std::int64_t seq) {
  transformer_spec s{
      .layers = layers, .hidden = hidden, .heads = heads, .vocab = vocab, .seq = seq};
  return with_architecture(s, architecture::gpt);
}

constexpr transformer_spec llama(std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                                 std::int64_t kv_heads, std::int64_t ffn, std::int64_t vocab,
                                 std::int64_t seq) {
  transformer_spec s{.layers = layers,
                     .hidden = hidden,
                     .heads = heads,
                     .kv_heads = kv_heads,
                     .ffn = ffn,
                     .vocab = vocab,
                     .seq = seq};
  return with_architecture(s, architecture::llama);
}

// Narayanan, Shoeybi, Casper, LeGresley, Patwary, Korthikanti, Vainbrand, Kashinkunti, Bernauer,
// Catanzaro, Phanishayee, Zaharia: "Efficient Large-Scale Language Model Training on GPU
// Clusters Using Megatron-LM", SC21 (arXiv:2104.04473), Table 1 (L, h, a, parameters); V =
// 51,200 and s = 2048 from Sec. 5.1; FFN = 4h, the GPT architecture of their eq. (2).
inline constexpr std::string_view megatron_sc21 =
    "Narayanan et al. 2021, SC21 (arXiv:2104.04473), Table 1; V, s: Sec. 5.1; FFN=4h";
inline constexpr std::string_view megatron_sc21_params =
    "Narayanan et al. 2021, Table 1 (billions, 1 decimal)";

// Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models"
// (arXiv:2307.09288); dimensions as in the config.json of the meta-llama/Llama-2-*-hf
// repositories on Hugging Face (GQA with 8 KV heads for 70B only, Sec. 2.2 and Table 1).
inline constexpr std::string_view llama2_source =
    "Touvron et al. 2023, Llama 2 (arXiv:2307.09288); HF config.json";

// Llama Team, AI @ Meta 2024, "The Llama 3 Herd of Models" (arXiv:2407.21783), Table 3;
// config.json of meta-llama/Meta-Llama-3-8B, -70B and Llama-3.1-405B on Hugging Face.
inline constexpr std::string_view llama3_source =
    "Meta 2024, Llama 3 Herd of Models (arXiv:2407.21783), Table 3; HF config.json";

}  // namespace detail

/// Every preset, in the order `tpcost model list` prints them.
inline constexpr std::array<model_preset, 17> model_presets{{
    // Brown et al. 2020, "Language Models are Few-Shot Learners" (arXiv:2005.14165),
    // Table 2.1: L=96, d_model=12288, 96 heads, n_ctx=2048, 175.0B; d_ff = 4·d_model (Sec. 2.1);
    // GPT-2's BPE vocabulary of 50,257 tokens (Radford et al. 2019).
    {"gpt-3-175b", "GPT-3 175B", detail::gpt(96, 12288, 96, 50257, 2048), 175.0e9, 0.1e9,
     "Brown et al. 2020 (arXiv:2005.14165), Table 2.1; d_ff=4h; GPT-2 BPE, V=50257",
     "Brown et al. 2020, Table 2.1 (175.0B)"},
    {"megatron-1.7b", "Megatron-LM GPT 1.7B", detail::gpt(24, 2304, 24, 51200, 2048), 1.7e9, 0.1e9,
     detail::megatron_sc21, detail::megatron_sc21_params},
    {"megatron-3.6b", "Megatron-LM GPT 3.6B", detail::gpt(30, 3072, 32, 51200, 2048), 3.6e9, 0.1e9,
     detail::megatron_sc21, detail::megatron_sc21_params},
    {"megatron-7.5b", "Megatron-LM GPT 7.5B", detail::gpt(36, 4096, 32, 51200, 2048), 7.5e9, 0.1e9,
     detail::megatron_sc21, detail::megatron_sc21_params},
    {"megatron-18b", "Megatron-LM GPT 18.4B", detail::gpt(40, 6144, 48, 51200, 2048), 18.4e9, 0.1e9,
     detail::megatron_sc21, detail::megatron_sc21_params},
    {"megatron-39b", "Megatron-LM GPT 39.1B", detail::gpt(48, 8192, 64, 51200, 2048), 39.1e9, 0.1e9,
     detail::megatron_sc21, detail::megatron_sc21_params},
    {"megatron-76b", "Megatron-LM GPT 76.1B", detail::gpt(60, 10240, 80, 51200, 2048), 76.1e9,
     0.1e9, detail::megatron_sc21, detail::megatron_sc21_params},
    {"megatron-145b", "Megatron-LM GPT 145.6B", detail::gpt(80, 12288, 96, 51200, 2048), 145.6e9,
     0.1e9, detail::megatron_sc21, detail::megatron_sc21_params},
    {"megatron-310b", "Megatron-LM GPT 310.1B", detail::gpt(96, 16384, 128, 51200, 2048), 310.1e9,
     0.1e9, detail::megatron_sc21, detail::megatron_sc21_params},
    {"megatron-530b", "Megatron-LM GPT 529.6B", detail::gpt(105, 20480, 128, 51200, 2048), 529.6e9,
     0.1e9, detail::megatron_sc21, detail::megatron_sc21_params},
    {"megatron-1t", "Megatron-LM GPT 1008.0B", detail::gpt(128, 25600, 160, 51200, 2048), 1008.0e9,
     0.1e9, detail::megatron_sc21, detail::megatron_sc21_params},
    // The Llama 2 paper names its sizes 7B/13B/70B. The 7B and 13B dimensions are LLaMA 1's,
    // whose paper gives the counts 6.7B and 13.0B (Touvron et al. 2023a, arXiv:2302.13971,
    // Table 2); "7B" is 3.7% above the real count, so it is not used as the published size.
    {"llama-2-7b", "Llama 2 7B", detail::llama(32, 4096, 32, 32, 11008, 32000, 4096), 6.7e9, 0.1e9,
     detail::llama2_source,
     "Touvron et al. 2023a (LLaMA, arXiv:2302.13971), Table 2: 6.7B for these dimensions"},
    {"llama-2-13b", "Llama 2 13B", detail::llama(40, 5120, 40, 40, 13824, 32000, 4096), 13.0e9,
     0.1e9, detail::llama2_source,
     "Touvron et al. 2023a (LLaMA, arXiv:2302.13971), Table 2: 13.0B for these dimensions"},
    {"llama-2-70b", "Llama 2 70B", detail::llama(80, 8192, 64, 8, 28672, 32000, 4096), 70e9, 1e9,
     detail::llama2_source, "Touvron et al. 2023 (Llama 2), Table 1 (70B)"},
    {"llama-3-8b", "Llama 3 8B", detail::llama(32, 4096, 32, 8, 14336, 128256, 8192), 8e9, 1e9,
     detail::llama3_source, "Meta 2024 (Llama 3), Table 3 (8B)"},
    {"llama-3-70b", "Llama 3 70B", detail::llama(80, 8192, 64, 8, 28672, 128256, 8192), 70e9, 1e9,
     detail::llama3_source, "Meta 2024 (Llama 3), Table 3 (70B)"},
    // Pre-trained at 8K tokens (Sec. 3.4.1); the Llama 3.1 config's max_position_embeddings
    // of 131,072 is the length after long-context training.
    {"llama-3-405b", "Llama 3 405B", detail::llama(126, 16384, 128, 8, 53248, 128256, 8192), 405e9,
     1e9, detail::llama3_source, "Meta 2024 (Llama 3), Table 3 (405B)"},
}};

/// `count / published − 1`: how far the parameter count derived from the preset's dimensions
/// is from its published size (0.0038 = 0.38% above).
constexpr double relative_to_published(const model_preset& preset) {
  return static_cast<double>(count_params(preset.spec).total) / preset.published_params - 1.0;
}

namespace detail {

/// Lower case without '-', '_', ' ': "Llama-3_8B" and "llama38b" are the same key.
inline std::string preset_key(std::string_view name) {
  std::string key;
  for (const char c : name) {
    if (c == '-' || c == '_' || c == ' ') {
      continue;
    }
    key += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return key;
}

}  // namespace detail

/// The preset called `name`, compared without case and ignoring '-', '_' and spaces
/// ("GPT3-175B" finds "gpt-3-175b"); nullptr when there is none.
inline const model_preset* find_model_preset(std::string_view name) {
  const auto key = detail::preset_key(name);
  for (const auto& preset : model_presets) {
    if (detail::preset_key(preset.name) == key) {
      return &preset;
    }
  }
  return nullptr;
}

/// The preset called `name`; otherwise throws `invalid_spec(field, ...)` with the closest
/// names ("did you mean llama-3-8b?") or, when nothing is close, the list of names.
inline const model_preset& model_preset_named(std::string_view name, std::string_view field) {
  if (const auto* preset = find_model_preset(name)) {
    return *preset;
  }
  const auto key = detail::preset_key(name);
  std::size_t best = std::string::npos;
  for (const auto& preset : model_presets) {
    best = std::min(best, edit_distance(key, detail::preset_key(preset.name)));
  }
  // Close enough to be a typo: at most a third of the name's characters differ. Every name at
  // that distance is offered ("llama-3-7b": llama-2-7b or llama-3-8b).
  if (best * 3 <= std::max<std::size_t>(key.size(), 3)) {
    std::string guesses;
    for (const auto& preset : model_presets) {
      if (edit_distance(key, detail::preset_key(preset.name)) == best) {
        guesses += (guesses.empty() ? "" : " or ") + std::string(preset.name);
      }
    }
    throw invalid_spec(
        std::string(field),
        "'" + std::string(name) + "' is not a model preset; did you mean " + guesses + "?");
  }
  std::string names;
  for (const auto& preset : model_presets) {
    names += (names.empty() ? "" : ", ") + std::string(preset.name);
  }
  throw invalid_spec(std::string(field),
                     "'" + std::string(name) + "' is not a model preset; the presets are " + names);
}

}  // namespace tpcost
