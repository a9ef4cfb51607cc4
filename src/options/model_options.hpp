// The flags that choose a model: a preset name, a Hugging Face config.json, and overrides of
// single dimensions. Shared by every command that needs a transformer (model show, and the
// step model to come).
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "tpcost/model/model.hpp"
#include "tpcost/model/model_presets.hpp"

namespace tpcost::cli {

/// Kept as text and read with the core's parsers, as the other flags are.
struct model_flags {
  std::string name;       ///< preset name (positional for `model show`, --model elsewhere)
  std::string hf_config;  ///< path to a config.json
  std::string arch;       ///< gpt | llama conventions
  std::string layers, hidden, heads, kv_heads, head_dim, ffn, vocab, seq;
  /// Mixture of experts, as Megatron-LM's flags give it (--num-experts, --moe-router-topk,
  /// --moe-ffn-hidden-size, --moe-shared-expert-intermediate-size, --moe-layer-freq,
  /// --moe-router-num-groups, --moe-router-group-topk).
  std::string experts, top_k, expert_ffn, shared_expert_ffn, moe_dense_layers, moe_layer_freq,
      router_groups, router_group_topk;
  /// Multi-head Latent Attention (mla.hpp) and DeepSeek-V3's multi-token prediction modules.
  std::string q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, mtp_layers;
  /// Windowed attention (model.hpp): a sliding window or a chunk, and every g-th layer full.
  std::string sliding_window, attention_chunk, window_full_every;
  /// Dropout probabilities (Megatron --hidden-dropout, --attention-dropout): only whether they
  /// are 0 matters, for the masks kept (memory.hpp).
  std::string hidden_dropout, attention_dropout;
};

/// Registers --hf-config, --arch and the dimension overrides; and the preset name, as a
/// positional NAME when `positional_name`, else as --model NAME.
void add_model_flags(CLI::App& cmd, model_flags& flags, bool positional_name);

/// The model the flags describe, and where it came from.
struct chosen_model {
  transformer_spec spec;
  const model_preset* preset = nullptr;  ///< when chosen by name
  std::string origin;                    ///< "preset", "hf-config" or "flags"
  std::string hf_config;                 ///< the file, when read from one
  bool overridden = false;               ///< some dimension or --arch was overridden
};

/// Reads the flags: a preset or an HF config (not both), then the overrides; or, with neither,
/// every dimension from the flags (GPT conventions unless --arch). Validates the result and
/// names the offending flag ("--kv-heads: 3 KV heads do not divide heads = 32").
/// A config.json's max_position_embeddings is the context window (131,072 for Llama 3.1),
/// not the sequence length of training: without --seq this throws, unless
/// `context_window_as_seq` (model show, which says which it printed).
chosen_model to_model(const model_flags& flags, bool context_window_as_seq = false);

/// "not given; a config.json gives the context window (...)": --seq's message when a model
/// from an HF config has no training sequence length.
std::string hf_seq_message(std::int64_t context_window);

}  // namespace tpcost::cli
