#include "render/render_model.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/text_table.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/io/model_json.hpp"
#include "tpcost/model/model_presets.hpp"
#include "tpcost/version.hpp"

namespace tpcost::cli {

std::string routing_text(const expert_routing& routing) {
  return is_group_limited(routing)
             ? fmt::format(" within {} of {} groups", routing.groups_per_token, routing.groups)
             : std::string();
}

namespace {

using row = std::vector<std::string>;

/// Columns separated by two spaces; `right[c]` right-aligns column c. The last column is not
/// padded, so that a long text there leaves no trailing blanks.
std::string layout(const std::vector<row>& rows, const std::vector<bool>& right,
                   const std::string& indent = "") {
  std::vector<std::size_t> widths(right.size(), 0);
  for (const auto& r : rows) {
    for (std::size_t c = 0; c < r.size(); ++c) {
      widths[c] = std::max(widths[c], r[c].size());
    }
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < r.size(); ++c) {
      const bool last = c + 1 == r.size();
      if (c > 0) {
        line += "  ";
      }
      if (right[c]) {
        line += fmt::format("{:>{}}", r[c], widths[c]);
      } else {
        line += last ? r[c] : fmt::format("{:<{}}", r[c], widths[c]);
      }
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  }
  return out;
}

/// A parameter count with a suffix: "174.60B", "525.34M", "266.24k", "0".
std::string count_text(double n) {
  if (n >= 1e9) {
    return fmt::format("{:.2f}B", n / 1e9);
  }
  if (n >= 1e6) {
    return fmt::format("{:.2f}M", n / 1e6);
  }
  if (n >= 1e3) {
    return fmt::format("{:.2f}k", n / 1e3);
  }
  return fmt::format("{:.0f}", n);
}

/// An integer with thousands separators: "8,030,261,248".
std::string grouped(std::int64_t n) {
  const auto digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return out;
}

/// A published size at its own resolution: "175.0B", "8B".
std::string published_text(const model_preset& p) {
  return fmt::format("{:.{}f}B", p.published_params / 1e9, p.published_step < 1e9 ? 1 : 0);
}

nlohmann::json tool_json() { return {{"name", "tpcost"}, {"version", TPCOST_VERSION}}; }

std::string list_text() {
  std::vector<row> rows{{"name", "L", "h", "a", "kv", "ffn", "V", "arch", "params", "published",
                         "diff", "source of the dimensions"}};
  for (const auto& p : model_presets) {
    const auto& s = p.spec;
    rows.push_back({std::string(p.name), std::to_string(s.layers), std::to_string(s.hidden),
                    std::to_string(s.heads), std::to_string(kv_heads_of(s)),
                    std::to_string(ffn_of(s)), std::to_string(s.vocab),
                    std::string(to_string(architecture_of(s))),
                    count_text(static_cast<double>(count_params(s).total)), published_text(p),
                    signed_percent(relative_to_published(p), 2), std::string(p.source)});
  }
  return "Model presets: parameters counted from the dimensions vs the published size\n\n" +
         layout(rows, {false, true, true, true, true, true, true, false, true, true, true, false}) +
         "\narch gpt: linear biases, LayerNorm, learned positions, tied embeddings, GeLU MLP.\n"
         "arch llama: no biases, RMSNorm, rotary positions, untied embeddings, SwiGLU MLP.\n"
         "'tpcost model show NAME' gives each preset's sources, counts by part and FLOPs.\n";
}

/// The attention variant, the experts and the MTP modules, when the model has them.
std::string extensions_text(const transformer_spec& s) {
  std::vector<row> rows;
  if (is_mla(s.mla)) {
    const auto& a = s.mla;
    rows.push_back(
        {"attention", "MLA",
         fmt::format("q_lora {}, kv_lora {}, head dims nope {} + rope {}, v {}", a.q_lora_rank,
                     a.kv_lora_rank, a.qk_nope_head_dim, a.qk_rope_head_dim, a.v_head_dim)});
  }
  if (is_moe(s.moe)) {
    const auto& e = s.moe;
    rows.push_back(
        {"experts", std::to_string(e.experts),
         fmt::format("top-{}{}, {} each", e.top_k, routing_text(e.routing), e.expert_ffn)});
    if (e.shared_experts > 0) {
      rows.push_back({"shared experts", std::to_string(e.shared_experts),
                      fmt::format("{} each{}", shared_ffn_of(e), e.shared_gate ? ", gated" : "")});
    }
    rows.push_back({"MoE layers", std::to_string(moe_layers(s)),
                    fmt::format("of {}; {} dense", s.layers, s.layers - moe_layers(s))});
  }
  if (s.mtp_layers > 0) {
    rows.push_back({"MTP modules", std::to_string(s.mtp_layers), "multi-token prediction"});
  }
  if (has_attention_window(s)) {
    const bool sliding = s.attention_window > 0;
    rows.push_back(
        {sliding ? "sliding window" : "attention chunk",
         std::to_string(sliding ? s.attention_window : s.attention_chunk),
         fmt::format(
             "on {} of {} layers{}; costed on the window", windowed_layers(s), s.layers,
             s.window_full_every > 0 ? fmt::format(" (1 in {} full)", s.window_full_every) : "")});
  }
  return rows.empty() ? std::string() : layout(rows, {false, true, false}, "  ");
}

std::string show_text(const model_report& r) {
  const auto& m = r.model;
  const auto& s = m.spec;
  std::string o;
  if (m.preset != nullptr) {
    o += fmt::format("{}: {}{}\n", m.preset->name, m.preset->title,
                     m.overridden ? " (preset, with overrides)" : " (preset)");
    o += fmt::format("dimensions from: {}\n", m.preset->source);
  } else if (m.origin == "hf-config") {
    o += fmt::format(
        "{}{}\n", m.hf_config,
        m.overridden ? " (Hugging Face config, with overrides)" : " (Hugging Face config)");
  } else {
    o += "custom model (from flags)\n";
  }
  o += fmt::format("conventions:     {}: {}\n\n", to_string(architecture_of(s)),
                   describe_conventions(s));

  const auto kv = kv_heads_of(s);
  o += "dimensions\n";
  o += layout(
      {
          {"layers L", std::to_string(s.layers), ""},
          {"hidden h", std::to_string(s.hidden), ""},
          {"heads a", std::to_string(s.heads),
           is_mla(s.mla) ? std::string("MLA head dims below")
                         : fmt::format("head dim {}", head_dim(s))},
          {"kv heads", std::to_string(kv),
           kv == s.heads ? "no GQA" : fmt::format("GQA, {} query heads per KV head", s.heads / kv)},
          {"ffn", std::to_string(ffn_of(s)), s.gated_mlp ? "gated, 3 matrices" : "2 matrices"},
          {"vocab V", std::to_string(s.vocab), ""},
          {"seq s", std::to_string(s.seq), ""},
      },
      {false, true, false}, "  ");
  o += extensions_text(s);

  const auto& p = r.params;
  const auto total = static_cast<double>(p.total);
  const auto part = [&](const char* name, std::int64_t n) {
    return row{name, count_text(static_cast<double>(n)),
               fmt::format("{:.1f}%", 100.0 * static_cast<double>(n) / total), ""};
  };
  std::vector<row> params{
      part("word embedding", p.embedding),
      part("positions", p.positions),
      part("attention", p.attention),
      part("MLP", p.mlp),
      part("norms", p.norms),
      part("output layer", p.output),
  };
  for (const auto& [name, n] :
       {std::pair{"routed experts", p.experts}, std::pair{"shared experts", p.shared},
        std::pair{"routers", p.routers}, std::pair{"MTP modules", p.mtp}}) {
    if (n > 0) {
      params.push_back(part(name, n));
    }
  }
  params.push_back({"total", count_text(total), "",
                    fmt::format("= {} ({} per layer)", grouped(p.total), grouped(p.per_layer))});
  if (p.active != p.total) {
    params.push_back({"active", count_text(static_cast<double>(p.active)),
                      fmt::format("{:.1f}%", 100.0 * static_cast<double>(p.active) / total),
                      "per token: top-k of the routed experts"});
  }
  if (m.preset != nullptr && !m.overridden && m.preset->published_active > 0.0) {
    params.push_back(
        {"published active", count_text(m.preset->published_active), "", "(same source)"});
  }
  if (m.preset != nullptr && !m.overridden) {
    params.push_back({"published", published_text(*m.preset),
                      signed_percent(r.relative_to_published, 2),
                      fmt::format("({})", m.preset->params_source)});
  }
  o += "\nparameters (count, share)\n" + layout(params, {false, true, true, false}, "  ");

  const auto& f = r.flops;
  o += fmt::format(
      "\nFLOPs per token at s = {} (matmuls only, 2 FLOP per multiply-add; docs/flops.md)\n",
      f.seq);
  o += layout(
      {
          {"forward", "Q, K, V, output", io::to_string(f.forward.projections), ""},
          {"", "attention scores", io::to_string(f.forward.attention), ""},
          {"", "MLP", io::to_string(f.forward.mlp), ""},
          {"", "logits", io::to_string(f.forward.logits), ""},
          {"", "total", io::to_string(f.forward.total()), ""},
          {"model", "forward + backward", io::to_string(f.model), "for MFU"},
          {"hardware", "recompute none", io::to_string(f.hardware[0]), "for HFU"},
          {"", "recompute selective", io::to_string(f.hardware[1]), ""},
          {"", "recompute full", io::to_string(f.hardware[2]), ""},
          {"6N", "rule of thumb", io::to_string(f.six_n),
           fmt::format("model FLOPs / 6N = {:.3f}", f.model / f.six_n)},
      },
      {false, false, true, false}, "  ");
  return o;
}

}  // namespace

std::string render_model_list(output_format format) {
  if (format == output_format::json) {
    nlohmann::json models = nlohmann::json::array();
    for (const auto& p : model_presets) {
      models.push_back(p);
    }
    const nlohmann::json j{
        {"schema", "tpcost.model.list/1"}, {"tool", tool_json()}, {"models", models}};
    return j.dump(2) + "\n";
  }
  return list_text();
}

std::string render_model_show(const model_report& report, output_format format) {
  if (format != output_format::json) {
    return show_text(report);
  }
  const auto& m = report.model;
  nlohmann::json j{
      {"schema", "tpcost.model/1"},
      {"tool", tool_json()},
      {"model",
       {{"origin", m.origin},
        {"name", nullptr},
        {"title", nullptr},
        {"source", nullptr},
        {"hf_config", nullptr},
        {"overridden", m.overridden}}},
      {"dimensions", m.spec},
      {"params", report.params},
      {"published", nullptr},
      {"flops_per_token", report.flops},
  };
  if (m.preset != nullptr) {
    j["model"]["name"] = m.preset->name;
    j["model"]["title"] = m.preset->title;
    j["model"]["source"] = m.preset->source;
    if (!m.overridden) {
      j["published"] = {{"params", m.preset->published_params},
                        {"source", m.preset->params_source},
                        {"relative_difference", report.relative_to_published}};
    }
  }
  if (!m.hf_config.empty()) {
    j["model"]["hf_config"] = m.hf_config;
  }
  return j.dump(2) + "\n";
}

}  // namespace tpcost::cli
