#include "options/model_options.hpp"

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "options/cli_options.hpp"
#include "options/flag_options.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/io/hf_config.hpp"

namespace tpcost::cli {

namespace {

/// A spec field and the flag that sets it.
struct dimension_flag {
  std::string_view field;  ///< as `validate` names it
  std::string_view flag;
  std::string model_flags::*text;
  std::int64_t transformer_spec::*value;
};

const std::array<dimension_flag, 8> dimension_flags{{
    {"layers", "--layers", &model_flags::layers, &transformer_spec::layers},
    {"hidden", "--hidden", &model_flags::hidden, &transformer_spec::hidden},
    {"heads", "--heads", &model_flags::heads, &transformer_spec::heads},
    {"kv_heads", "--kv-heads", &model_flags::kv_heads, &transformer_spec::kv_heads},
    {"head_dim", "--head-dim", &model_flags::head_dim, &transformer_spec::head_dim},
    {"ffn", "--ffn", &model_flags::ffn, &transformer_spec::ffn},
    {"vocab", "--vocab", &model_flags::vocab, &transformer_spec::vocab},
    {"seq", "--seq", &model_flags::seq, &transformer_spec::seq},
}};

/// A mixture-of-experts field and the flag that sets it. `set` writes the flag's value into
/// the spec (the shared experts' total size is one shared expert of that size: the same
/// matmuls, parameters and FLOPs as Megatron's --moe-shared-expert-intermediate-size).
struct expert_flag {
  std::string_view field;  ///< as the core's validate(moe_spec) names it
  std::string_view flag;
  std::string model_flags::*text;
  void (*set)(moe_spec&, std::int64_t);
};

const std::array<expert_flag, 8> expert_flags{{
    {"experts", "--experts", &model_flags::experts,
     [](moe_spec& m, std::int64_t v) { m.experts = v; }},
    {"top_k", "--top-k", &model_flags::top_k, [](moe_spec& m, std::int64_t v) { m.top_k = v; }},
    {"expert_ffn", "--expert-ffn", &model_flags::expert_ffn,
     [](moe_spec& m, std::int64_t v) { m.expert_ffn = v; }},
    {"shared_ffn", "--shared-expert-ffn", &model_flags::shared_expert_ffn,
     [](moe_spec& m, std::int64_t v) {
       m.shared_experts = 1;
       m.shared_ffn = v;
     }},
    {"dense_layers", "--moe-dense-layers", &model_flags::moe_dense_layers,
     [](moe_spec& m, std::int64_t v) { m.dense_layers = v; }},
    // Megatron's integer --moe-layer-freq k: layer i has experts when i % k == 0.
    {"layer_freq", "--moe-layer-freq", &model_flags::moe_layer_freq,
     [](moe_spec& m, std::int64_t v) {
       m.layer_freq = v;
       m.layer_offset = 0;
     }},
    {"router_groups", "--moe-router-num-groups", &model_flags::router_groups,
     [](moe_spec& m, std::int64_t v) { m.routing.groups = v; }},
    {"router_group_topk", "--moe-router-group-topk", &model_flags::router_group_topk,
     [](moe_spec& m, std::int64_t v) { m.routing.groups_per_token = v; }},
}};

/// An MLA or MTP field and the flag that sets it.
struct latent_flag {
  std::string_view field;  ///< as validate(mla_spec) and validate(transformer_spec) name it
  std::string_view flag;
  std::string model_flags::*text;
  std::int64_t* (*target)(transformer_spec&);
};

const std::array<latent_flag, 9> latent_flags{{
    {"q_lora_rank", "--q-lora-rank", &model_flags::q_lora_rank,
     [](transformer_spec& s) { return &s.mla.q_lora_rank; }},
    {"kv_lora_rank", "--kv-lora-rank", &model_flags::kv_lora_rank,
     [](transformer_spec& s) { return &s.mla.kv_lora_rank; }},
    {"qk_nope_head_dim", "--qk-nope-head-dim", &model_flags::qk_nope_head_dim,
     [](transformer_spec& s) { return &s.mla.qk_nope_head_dim; }},
    {"qk_rope_head_dim", "--qk-rope-head-dim", &model_flags::qk_rope_head_dim,
     [](transformer_spec& s) { return &s.mla.qk_rope_head_dim; }},
    {"v_head_dim", "--v-head-dim", &model_flags::v_head_dim,
     [](transformer_spec& s) { return &s.mla.v_head_dim; }},
    {"mtp_layers", "--mtp-layers", &model_flags::mtp_layers,
     [](transformer_spec& s) { return &s.mtp_layers; }},
    // A sliding window replaces a chunk and a chunk a window (to_model clears the other).
    {"attention_window", "--sliding-window", &model_flags::sliding_window,
     [](transformer_spec& s) { return &s.attention_window; }},
    {"attention_chunk", "--attention-chunk", &model_flags::attention_chunk,
     [](transformer_spec& s) { return &s.attention_chunk; }},
    {"window_full_every", "--window-full-every", &model_flags::window_full_every,
     [](transformer_spec& s) { return &s.window_full_every; }},
}};

}  // namespace

std::string hf_seq_message(std::int64_t context_window) {
  return "not given; a config.json gives the context window (max_position_embeddings = " +
         std::to_string(context_window) +
         "), not the sequence length of training; give it, e.g. --seq 8k";
}

void add_model_flags(CLI::App& cmd, model_flags& flags, bool positional_name) {
  if (positional_name) {
    cmd.add_option("name", flags.name, "a preset name, e.g. llama-3-8b (see 'tpcost model list')")
        ->type_name(model_choices());
  } else {
    add_flag(cmd, "--model", flags.name);
  }
  auto* group = cmd.add_option_group("Model (a preset or a config.json, then overrides)");
  add_flag(*group, "--hf-config", flags.hf_config);
  add_flag(*group, "--arch", flags.arch);
  add_flag(*group, "--layers", flags.layers);
  add_flag(*group, "--hidden", flags.hidden);
  add_flag(*group, "--heads", flags.heads);
  add_flag(*group, "--kv-heads", flags.kv_heads);
  add_flag(*group, "--head-dim", flags.head_dim);
  add_flag(*group, "--ffn", flags.ffn);
  add_flag(*group, "--vocab", flags.vocab);
  add_flag(*group, "--seq", flags.seq);
  add_flag(*group, "--hidden-dropout", flags.hidden_dropout);
  add_flag(*group, "--attention-dropout", flags.attention_dropout);
  auto* moe = cmd.add_option_group("Mixture of experts (on a preset, they override it)");
  add_flag(*moe, "--experts", flags.experts);
  add_flag(*moe, "--top-k", flags.top_k);
  add_flag(*moe, "--expert-ffn", flags.expert_ffn);
  add_flag(*moe, "--shared-expert-ffn", flags.shared_expert_ffn);
  add_flag(*moe, "--moe-dense-layers", flags.moe_dense_layers);
  add_flag(*moe, "--moe-layer-freq", flags.moe_layer_freq);
  add_flag(*moe, "--moe-router-num-groups", flags.router_groups);
  add_flag(*moe, "--moe-router-group-topk", flags.router_group_topk);
  auto* mla = cmd.add_option_group("Multi-head Latent Attention and multi-token prediction");
  add_flag(*mla, "--kv-lora-rank", flags.kv_lora_rank);
  add_flag(*mla, "--q-lora-rank", flags.q_lora_rank);
  add_flag(*mla, "--qk-nope-head-dim", flags.qk_nope_head_dim);
  add_flag(*mla, "--qk-rope-head-dim", flags.qk_rope_head_dim);
  add_flag(*mla, "--v-head-dim", flags.v_head_dim);
  add_flag(*mla, "--mtp-layers", flags.mtp_layers);
  auto* window = cmd.add_option_group("Windowed attention (on a preset, they override it)");
  add_flag(*window, "--sliding-window", flags.sliding_window);
  add_flag(*window, "--attention-chunk", flags.attention_chunk);
  add_flag(*window, "--window-full-every", flags.window_full_every);
}

chosen_model to_model(const model_flags& flags, bool context_window_as_seq) {
  chosen_model out;
  const bool by_name = !flags.name.empty();
  const bool by_file = !flags.hf_config.empty();
  if (by_name && by_file) {
    throw invalid_spec("--hf-config", "give a preset name or --hf-config FILE, not both");
  }
  if (by_name) {
    out.preset = &model_preset_named(flags.name, "model");
    out.spec = out.preset->spec;
    out.origin = "preset";
  } else if (by_file) {
    out.spec = io::load_hf_config(flags.hf_config, "--hf-config");
    out.origin = "hf-config";
    out.hf_config = flags.hf_config;
    if (flags.seq.empty() && !context_window_as_seq) {
      throw invalid_spec("--seq", hf_seq_message(out.spec.seq));
    }
  } else {
    std::string missing;
    for (const auto& d : dimension_flags) {
      if ((d.field != "kv_heads" && d.field != "ffn" && d.field != "head_dim") &&
          (flags.*d.text).empty()) {
        missing += (missing.empty() ? "" : ", ") + std::string(d.flag);
      }
    }
    if (!missing.empty()) {
      throw invalid_spec("model",
                         "give a preset name, --hf-config FILE, or every dimension "
                         "(missing: " +
                             missing + ")");
    }
    out.spec = with_architecture(out.spec, architecture::gpt);
    out.origin = "flags";
  }
  if (!flags.arch.empty()) {
    out.spec = with_architecture(out.spec, parse_architecture(flags.arch, "--arch"));
    out.overridden = true;
  }
  for (const auto& d : dimension_flags) {
    if (!(flags.*d.text).empty()) {
      out.spec.*d.value = parse_count(flags.*d.text, d.flag);
      out.overridden = out.overridden || out.origin != "flags";
    }
  }
  const bool had_groups = out.spec.moe.routing.groups > 1;
  for (const auto& d : expert_flags) {
    if (!(flags.*d.text).empty()) {
      d.set(out.spec.moe, parse_count(flags.*d.text, d.flag));
      out.overridden = out.overridden || out.origin != "flags";
    }
  }
  if (!flags.sliding_window.empty()) {
    out.spec.attention_chunk = 0;
  }
  if (!flags.attention_chunk.empty()) {
    out.spec.attention_window = 0;
  }
  for (const auto& d : latent_flags) {
    if (!(flags.*d.text).empty()) {
      *d.target(out.spec) = parse_count(flags.*d.text, d.flag);
      out.overridden = out.overridden || out.origin != "flags";
    }
  }
  for (auto [text, flag, on] :
       {std::tuple{&flags.hidden_dropout, "--hidden-dropout", &out.spec.hidden_dropout},
        std::tuple{&flags.attention_dropout, "--attention-dropout", &out.spec.attention_dropout}}) {
    if (!text->empty()) {
      const double p = parse_fraction(*text, flag, "a probability such as 0.1 or 0");
      if (!(p >= 0.0 && p < 1.0)) {
        throw invalid_spec(flag, *text + " is not a dropout probability; expected 0 <= P < 1");
      }
      *on = p > 0.0;
    }
  }
  if (is_moe(out.spec.moe)) {
    // Experts given by flag on a dense model need the rest of the MoE shape, not a range error.
    if (out.spec.moe.top_k == 0) {
      throw invalid_spec("--top-k",
                         "not given; a mixture of experts needs the routed experts "
                         "each token visits, e.g. --top-k 8");
    }
    if (out.spec.moe.expert_ffn == 0) {
      throw invalid_spec("--expert-ffn",
                         "not given; a mixture of experts needs the inner size "
                         "of one routed expert, e.g. --expert-ffn 1536");
    }
    // Megatron-Core routes over all experts unless the groups per token are given too.
    if (!had_groups && !flags.router_groups.empty() && flags.router_group_topk.empty() &&
        out.spec.moe.routing.groups > 1) {
      throw invalid_spec("--moe-router-group-topk",
                         "not given; group-limited routing over " + flags.router_groups +
                             " groups needs the groups each token's experts come from, e.g. "
                             "--moe-router-group-topk 4");
    }
  }
  try {
    validate(out.spec);
  } catch (const invalid_spec& e) {
    for (const auto& d : dimension_flags) {
      if (e.field() == d.field) {
        throw invalid_spec(std::string(d.flag), e.detail());
      }
    }
    for (const auto& d : expert_flags) {
      if (e.field() == d.field || (d.field == "shared_ffn" && e.field() == "shared_experts")) {
        throw invalid_spec(std::string(d.flag), e.detail());
      }
    }
    for (const auto& d : latent_flags) {
      if (e.field() == d.field) {
        throw invalid_spec(std::string(d.flag), e.detail());
      }
    }
    throw;
  }
  return out;
}

}  // namespace tpcost::cli
