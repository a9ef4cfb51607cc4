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
#include <utility>
#include <vector>

#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
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
  double published_active = 0;     ///< mixture of experts: active parameters per token as published
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
// config.json of meta-llama/Meta-Llama-3-8B and -70B on Hugging Face.
inline constexpr std::string_view llama3_source =
    "Meta 2024, Llama 3 Herd of Models (arXiv:2407.21783), Table 3; HF config.json";

// The same paper's Llama 3.1 models (the presets llama-3.1-*): config.json of
// meta-llama/Llama-3.1-8B, -70B and -405B. Their dimensions are Llama 3's (8B: h 4096, 32 layers,
// 32 heads, 8 KV heads, intermediate 14336, vocab 128256; 70B: 8192, 80, 64, 8, 28672; 405B: 16384,
// 126, 128, 8, 53248); only max_position_embeddings (131,072) and rope_scaling (llama3,
// original_max_position_embeddings 8192) differ, after long-context training (Sec. 3.4.2). s is the
// pre-training length, 8192 (Sec. 3.4.1), as the rope_scaling's original length says.

// Qwen Team 2025, "Qwen3 Technical Report" (arXiv:2505.09388), Table 1 (dense models); the
// config.json of Qwen/Qwen3-8B, -14B and -32B (Qwen3ForCausalLM): head_dim 128 whatever
// h/a is, 8 KV heads, vocab_size 151936, tie_word_embeddings false, no biases
// (attention_bias false), SwiGLU (hidden_act silu). s is the pre-training length of stages
// S1 and S2, 4096 tokens, as for the MoE presets; max_position_embeddings 40960 is
// the context after the long-context stage. The per-head RMSNorm of q and k (2·128 weights a
// layer, 16,384 in Qwen3-32B) is not counted.
constexpr transformer_spec qwen3_dense(std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                                       std::int64_t ffn) {
  auto s = llama(layers, hidden, heads, 8, ffn, 151936, 4096);
  s.head_dim = 128;
  return s;
}

// ---- Mixtures of experts. Dimensions are those of each model's config.json on the Hugging
// Face Hub (examples/hf/ holds the files, with their repositories); the tests read each file
// and check it gives the preset. Counts are the models' own publications. ----

/// A Llama-convention model with experts, top-k, expert size and shared experts.
constexpr transformer_spec moe_llama(transformer_spec dense, moe_spec moe) {
  auto s = with_architecture(dense, architecture::llama);
  s.moe = moe;
  return s;
}

/// DeepSeek-V2/V3 and Kimi-K2: MLA with q_lora 1536, kv_lora 512, nope 128, rope 64, v 128.
constexpr transformer_spec deepseek(std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                                    std::int64_t ffn, std::int64_t vocab, std::int64_t seq,
                                    moe_spec moe, std::int64_t mtp) {
  transformer_spec s{
      .layers = layers, .hidden = hidden, .heads = heads, .ffn = ffn, .vocab = vocab, .seq = seq};
  s = with_architecture(s, architecture::llama);
  s.mla = mla_spec{.q_lora_rank = 1536,
                   .kv_lora_rank = 512,
                   .qk_nope_head_dim = 128,
                   .qk_rope_head_dim = 64,
                   .v_head_dim = 128};
  s.moe = moe;
  s.mtp_layers = mtp;
  return s;
}

/// GPT-OSS (OpenAI 2025): h 2880, 64 query and 8 KV heads of 64, biases on attention, experts
/// and router, 32 or 128 experts of 2880, top-4; pre-trained at 4,096 tokens
/// (initial_context_length).
constexpr transformer_spec gpt_oss(std::int64_t layers, std::int64_t experts) {
  transformer_spec s{.layers = layers,
                     .hidden = 2880,
                     .heads = 64,
                     .kv_heads = 8,
                     .ffn = 2880,
                     .vocab = 201088,
                     .seq = 4096};
  s = with_architecture(s, architecture::llama);
  s.linear_biases = true;
  s.head_dim = 64;
  s.moe = moe_spec{.experts = experts, .top_k = 4, .expert_ffn = 2880};
  // openai/gpt-oss-120b and -20b config.json: layer_types alternate sliding_attention,
  // full_attention from layer 0, sliding_window 128 (model card: banded window of 128 tokens).
  s.attention_window = 128;
  s.window_full_every = 2;
  return s;
}

/// Llama 4 (Meta 2025): h 5120, 40 query and 8 KV heads of 128, one shared expert beside the
/// routed ones (top-1), dense layers of 16384 between MoE layers every `step` layers; chunked
/// attention of 8192 (config.json attention_chunk_size) on three layers of four, every fourth
/// full (HF Llama4TextConfig: no_rope_layer_interval 4, NoPE layers attend globally).
constexpr transformer_spec llama4(std::int64_t experts, std::int64_t step) {
  auto s = moe_llama(transformer_spec{.layers = 48,
                                      .hidden = 5120,
                                      .heads = 40,
                                      .kv_heads = 8,
                                      .ffn = 16384,
                                      .vocab = 202048,
                                      .seq = 8192},
                     moe_spec{.experts = experts,
                              .top_k = 1,
                              .expert_ffn = 8192,
                              .shared_experts = 1,
                              .layer_freq = step,
                              .layer_offset = step - 1});
  s.attention_chunk = 8192;
  s.window_full_every = 4;
  return s;
}

inline constexpr std::string_view hf_config_json =
    "HF config.json (examples/hf/, repository named there)";

}  // namespace detail

/// Every preset, in the order `tpcost model list` prints them.
inline constexpr std::array<model_preset, 34> model_presets{{
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
    // Llama 3.1: Llama 3's dimensions, released with a 128K context (see llama3_source above).
    // There was no Llama 3 405B: 405B was released as Llama 3.1 (its old name llama-3-405b is
    // an alias, model_preset_aliases).
    {"llama-3.1-8b", "Llama 3.1 8B", detail::llama(32, 4096, 32, 8, 14336, 128256, 8192), 8e9,
     1e9, "meta-llama/Llama-3.1-8B config.json; Meta 2024 (arXiv:2407.21783), Table 3",
     "Meta 2024 (Llama 3), Table 3 (8B)"},
    {"llama-3.1-70b", "Llama 3.1 70B", detail::llama(80, 8192, 64, 8, 28672, 128256, 8192), 70e9,
     1e9, "meta-llama/Llama-3.1-70B config.json; Meta 2024 (arXiv:2407.21783), Table 3",
     "Meta 2024 (Llama 3), Table 3 (70B)"},
    {"llama-3.1-405b", "Llama 3.1 405B", detail::llama(126, 16384, 128, 8, 53248, 128256, 8192),
     405e9, 1e9, "meta-llama/Llama-3.1-405B config.json; Meta 2024 (arXiv:2407.21783), Table 3",
     "Meta 2024 (Llama 3), Table 3 (405B)"},
    // Qwen3 dense (qwen3_dense above); Qwen/Qwen3-*'s model cards: 8.2B, 14.8B, 32.8B.
    {"qwen3-8b", "Qwen3-8B", detail::qwen3_dense(36, 4096, 32, 12288), 8.2e9, 0.1e9,
     "Qwen/Qwen3-8B config.json; Qwen3 report (arXiv:2505.09388), Table 1",
     "Qwen/Qwen3-8B model card: 8.2B"},
    {"qwen3-14b", "Qwen3-14B", detail::qwen3_dense(40, 5120, 40, 17408), 14.8e9, 0.1e9,
     "Qwen/Qwen3-14B config.json; Qwen3 report (arXiv:2505.09388), Table 1",
     "Qwen/Qwen3-14B model card: 14.8B"},
    {"qwen3-32b", "Qwen3-32B", detail::qwen3_dense(64, 5120, 64, 25600), 32.8e9, 0.1e9,
     "Qwen/Qwen3-32B config.json; Qwen3 report (arXiv:2505.09388), Table 1",
     "Qwen/Qwen3-32B model card: 32.8B"},
    // Jiang et al. 2024, "Mixtral of Experts" (arXiv:2401.04088), Sec. 2: 47B parameters, 13B
    // active; the Mistral AI announcement (Dec 2023) gives 46.7B and 12.9B.
    {"mixtral-8x7b", "Mixtral 8x7B",
     detail::moe_llama({.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336,
                        .vocab = 32000, .seq = 32768},
                       {.experts = 8, .top_k = 2, .expert_ffn = 14336}),
     46.7e9, 0.1e9, "mistralai/Mixtral-8x7B-v0.1 config.json; Jiang et al. 2024 (arXiv:2401.04088)",
     "Mistral AI, 'Mixtral of experts' (2023-12-11): 46.7B total, 12.9B active", 12.9e9},
    // Mistral AI, "Cheaper, Better, Faster, Stronger" (2024-04-17): 141B, 39B active.
    {"mixtral-8x22b", "Mixtral 8x22B",
     detail::moe_llama({.layers = 56, .hidden = 6144, .heads = 48, .kv_heads = 8, .ffn = 16384,
                        .vocab = 32000, .seq = 65536},
                       {.experts = 8, .top_k = 2, .expert_ffn = 16384}),
     141e9, 1e9, "mistralai/Mixtral-8x22B-v0.1 config.json",
     "Mistral AI, 'Cheaper, Better, Faster, Stronger' (2024-04-17): 141B total, 39B active",
     39e9},
    // Qwen Team 2024, "Qwen2 Technical Report" (arXiv:2407.10671), Table 1: 57B, 14B activated;
    // one shared expert of 20480 behind a sigmoid gate, 64 experts of 2560, top-8.
    {"qwen2-57b-a14b", "Qwen2-57B-A14B",
     [] {
       auto s = detail::moe_llama({.layers = 28, .hidden = 3584, .heads = 28, .kv_heads = 4,
                                   .ffn = 18944, .vocab = 151936, .seq = 32768},
                                  {.experts = 64, .top_k = 8, .expert_ffn = 2560,
                                   .shared_experts = 1, .shared_ffn = 20480,
                                   .shared_gate = true});
       return s;
     }(),
     57e9, 1e9, "Qwen/Qwen2-57B-A14B config.json; Qwen2 report (arXiv:2407.10671)",
     "Qwen2 report (arXiv:2407.10671), Table 1: 57B total, 14B activated", 14e9},
    // Qwen Team 2025, "Qwen3 Technical Report" (arXiv:2505.09388), Table 2; model cards:
    // 30.5B total, 3.3B activated; 235B total, 22B activated. head_dim 128 (a·128 ≠ h).
    {"qwen3-30b-a3b", "Qwen3-30B-A3B",
     [] {
       auto s = detail::moe_llama({.layers = 48, .hidden = 2048, .heads = 32, .kv_heads = 4,
                                   .ffn = 6144, .vocab = 151936, .seq = 4096},
                                  {.experts = 128, .top_k = 8, .expert_ffn = 768});
       s.head_dim = 128;
       return s;
     }(),
     30.5e9, 0.1e9, "Qwen/Qwen3-30B-A3B config.json; Qwen3 report (arXiv:2505.09388), Table 2",
     "Qwen/Qwen3-30B-A3B model card: 30.5B total, 3.3B activated", 3.3e9},
    {"qwen3-235b-a22b", "Qwen3-235B-A22B",
     [] {
       auto s = detail::moe_llama({.layers = 94, .hidden = 4096, .heads = 64, .kv_heads = 4,
                                   .ffn = 12288, .vocab = 151936, .seq = 4096},
                                  {.experts = 128, .top_k = 8, .expert_ffn = 1536});
       s.head_dim = 128;
       return s;
     }(),
     235e9, 1e9, "Qwen/Qwen3-235B-A22B config.json; Qwen3 report (arXiv:2505.09388), Table 2",
     "Qwen/Qwen3-235B-A22B model card: 235B total, 22B activated", 22e9},
    // DeepSeek-AI 2024, "DeepSeek-V2" (arXiv:2405.04434), abstract and Sec. 3.1.2: 236B, 21B
    // activated; 160 routed experts of 1536, top-6, 2 shared, the first layer dense; routed
    // within 3 of 8 groups (device-limited routing, Sec. 2.2.2; config.json n_group 8,
    // topk_group 3, topk_method group_limited_greedy).
    {"deepseek-v2", "DeepSeek-V2",
     detail::deepseek(60, 5120, 128, 12288, 102400, 4096,
                      {.experts = 160, .top_k = 6, .expert_ffn = 1536, .shared_experts = 2,
                       .dense_layers = 1, .routing = {.groups = 8, .groups_per_token = 3}},
                      0),
     236e9, 1e9, "deepseek-ai/DeepSeek-V2 config.json; arXiv:2405.04434 Sec. 3.1.2",
     "DeepSeek-V2 (arXiv:2405.04434): 236B total, 21B activated", 21e9},
    // DeepSeek-AI 2024, "DeepSeek-V3 Technical Report" (arXiv:2412.19437), Sec. 4.2: 671B
    // total, 37B activated (the main model; the one MTP module adds 14B as stored, 11.7B here
    // where it shares the embedding and output layer as in training); pre-trained at 4K tokens.
    // Routed within 4 of 8 groups (node-limited routing, Sec. 2.1.2; config.json n_group 8,
    // topk_group 4).
    {"deepseek-v3", "DeepSeek-V3",
     detail::deepseek(61, 7168, 128, 18432, 129280, 4096,
                      {.experts = 256, .top_k = 8, .expert_ffn = 2048, .shared_experts = 1,
                       .dense_layers = 3, .routing = {.groups = 8, .groups_per_token = 4}},
                      1),
     671e9, 1e9, "deepseek-ai/DeepSeek-V3 config.json; arXiv:2412.19437 Sec. 4.2",
     "DeepSeek-V3 (arXiv:2412.19437): 671B total, 37B activated (main model, MTP excluded)",
     37e9},
    // Kimi Team 2025, "Kimi K2: Open Agentic Intelligence" (arXiv:2507.20534), Sec. 2.3 and
    // Table 2: 1.04T total, 32.6B activated; DeepSeek-V3's architecture with 384 experts, 64
    // heads and one dense layer; no MTP in the released config.
    {"kimi-k2", "Kimi K2",
     detail::deepseek(61, 7168, 64, 18432, 163840, 4096,
                      {.experts = 384, .top_k = 8, .expert_ffn = 2048, .shared_experts = 1,
                       .dense_layers = 1},
                      0),
     1.04e12, 0.01e12, "moonshotai/Kimi-K2-Instruct config.json; arXiv:2507.20534 Table 2",
     "Kimi K2 (arXiv:2507.20534): 1.04T total, 32.6B activated", 32.6e9},
    // OpenAI 2025, "gpt-oss-120b & gpt-oss-20b Model Card" (arXiv:2508.10925), Table 1:
    // 116.83B total, 5.13B active; 20.91B total, 3.61B active.
    {"gpt-oss-120b", "gpt-oss-120b", detail::gpt_oss(36, 128), 116.83e9, 0.01e9,
     "openai/gpt-oss-120b config.json; model card (arXiv:2508.10925)",
     "gpt-oss model card (arXiv:2508.10925), Table 1: 116.83B total, 5.13B active", 5.13e9},
    {"gpt-oss-20b", "gpt-oss-20b", detail::gpt_oss(24, 32), 20.91e9, 0.01e9,
     "openai/gpt-oss-20b config.json; model card (arXiv:2508.10925)",
     "gpt-oss model card (arXiv:2508.10925), Table 1: 20.91B total, 3.61B active", 3.61e9},
    // Meta 2025, "The Llama 4 herd" (ai.meta.com blog, 2025-04-05): Scout 109B total, 17B
    // active, 16 experts; Maverick 400B total, 17B active, 128 experts, MoE every other layer.
    {"llama-4-scout", "Llama 4 Scout 17B-16E", detail::llama4(16, 1), 109e9, 1e9,
     "meta-llama/Llama-4-Scout-17B-16E config.json (text_config)",
     "Meta, 'The Llama 4 herd' (2025-04-05): 109B total, 17B active", 17e9},
    {"llama-4-maverick", "Llama 4 Maverick 17B-128E", detail::llama4(128, 2), 400e9, 1e9,
     "meta-llama/Llama-4-Maverick-17B-128E config.json (text_config)",
     "Meta, 'The Llama 4 herd' (2025-04-05): 400B total, 17B active", 17e9},
}};

/// The count a model's publication gives: every parameter but the MTP modules (DeepSeek-V3
/// publishes its 671B main model and the MTP module apart).
constexpr std::int64_t published_kind_of_count(const transformer_spec& spec) {
  const auto p = count_params(spec);
  return p.total - p.mtp;
}

/// `count / published − 1`: how far the parameter count derived from the preset's dimensions
/// is from its published size (0.0038 = 0.38% above).
constexpr double relative_to_published(const model_preset& preset) {
  return static_cast<double>(published_kind_of_count(preset.spec)) / preset.published_params - 1.0;
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

/// Old names still read, each with the preset it now names: {alias, name}.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 1> model_preset_aliases{{
    {"llama-3-405b", "llama-3.1-405b"},  // 405B was only ever released as Llama 3.1
}};

/// The preset called `name` (or an alias of it), compared without case and ignoring '-', '_'
/// and spaces ("GPT3-175B" finds "gpt-3-175b"); nullptr when there is none.
inline const model_preset* find_model_preset(std::string_view name) {
  auto key = detail::preset_key(name);
  for (const auto& [alias, target] : model_preset_aliases) {
    if (detail::preset_key(alias) == key) {
      key = detail::preset_key(target);
    }
  }
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
    throw invalid_spec(std::string(field),
                       quote_value(name) + " is not a model preset; did you mean " + guesses + "?");
  }
  std::string names;
  for (const auto& preset : model_presets) {
    names += (names.empty() ? "" : ", ") + std::string(preset.name);
  }
  throw invalid_spec(std::string(field),
                     quote_value(name) + " is not a model preset; the presets are " + names);
}

}  // namespace tpcost
