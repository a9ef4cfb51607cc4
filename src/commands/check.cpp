// `tpcost check`: evaluates the rules in each config's "checks" section. Exit 0 when every
// rule of every file passes, 1 when a rule fails, 2 when an input is invalid.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "commands/commands.hpp"
#include "commands/step_flags.hpp"
#include "formats/config.hpp"
#include "formats/load.hpp"
#include "options/cli_options.hpp"
#include "options/config_overlay.hpp"
#include "options/flag_options.hpp"
#include "output/emit.hpp"
#include "render/hardware_text.hpp"
#include "render/render.hpp"
#include "render/render_check.hpp"
#include "render/render_check_ci.hpp"
#include "render/render_step.hpp"
#include "report/error_band.hpp"
#include "tpcost/base/degree_list.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/plan/checks.hpp"

namespace tpcost::cli {

namespace {

/// The layout and step flags of `tpcost step` that the per-layer flags do not already cover:
/// given here, they override every file's step keys for the step rules (copy_command_line
/// hands them to the step). --tp sets the degree of both kinds of rule.
struct layout_flags {
  std::string tp, gpus, pp, dp, vpp, global_batch, layers, zero, attention, tp_overlap, dp_overlap;
  std::string stack;
  std::string memory, memory_bandwidth, matmul_efficiency, memory_efficiency;
  std::string cp, cp_comm_type, hierarchical_cp_sizes, precision;
  std::string ep, etp, moe_token_dispatcher;
  std::string vocab, kv_heads, head_dim, ffn;
  std::map<std::string, std::string> more;  ///< the other step options, by flag name
  std::map<std::string, bool> more_flags;   ///< the other step switches, by flag name
  bool fp8_attention = false;
  bool fp8_param_gather = false;
};

struct check_options {
  std::vector<std::string> files;
  std::vector<std::string> rules;  ///< --rule NAME=VALUE, over every file's checks section
  std::vector<std::string> set;
  bool strict = false;
  bool pessimistic = false;  ///< judge the step rules at the error band's pessimistic edge
  std::string error_band;    ///< --error-band FILE
  layer_flags layer;
  refined_flags refined;
  layout_flags layout;
  output_flags output;
};

void add_layout_flags(CLI::App& cmd, layout_flags& f) {
  auto* group = cmd.add_option_group(
      "Layout and step (what-if over every file's keys; see 'tpcost step --help')");
  const std::pair<std::string_view, std::string*> options[] = {
      {"--tp", &f.tp},
      {"--gpus", &f.gpus},
      {"--pp", &f.pp},
      {"--dp", &f.dp},
      {"--vpp", &f.vpp},
      {"--global-batch", &f.global_batch},
      {"--layers", &f.layers},
      {"--vocab", &f.vocab},
      {"--kv-heads", &f.kv_heads},
      {"--head-dim", &f.head_dim},
      {"--ffn", &f.ffn},
      {"--zero", &f.zero},
      {"--stack", &f.stack},
      {"--attention", &f.attention},
      {"--cp", &f.cp},
      {"--cp-comm-type", &f.cp_comm_type},
      {"--hierarchical-cp-sizes", &f.hierarchical_cp_sizes},
      {"--ep", &f.ep},
      {"--etp", &f.etp},
      {"--moe-token-dispatcher", &f.moe_token_dispatcher},
      {"--precision", &f.precision},
      {"--tp-overlap", &f.tp_overlap},
      {"--dp-overlap", &f.dp_overlap},
      {"--memory", &f.memory},
      {"--memory-bandwidth", &f.memory_bandwidth},
      {"--matmul-efficiency", &f.matmul_efficiency},
      {"--memory-efficiency", &f.memory_efficiency},
  };
  for (const auto& [name, value] : options) {
    add_flag(*group, name, *value);
  }
  add_flag(*group, "--fp8-attention", f.fp8_attention);
  add_flag(*group, "--fp8-param-gather", f.fp8_param_gather);
}

/// Every flag of `step` that check has not declared itself (above, or its layer, refined,
/// reader and output flags), with step's own help: add_step_flags declares each once, and
/// copy_command_line hands the given ones to the step each file describes. A flag check already
/// has (-b,--micro-batch for its layer batch) is left out; step's job-input flags
/// are check's file arguments. Call after every other flag of check.
void add_remaining_step_flags(CLI::App& cmd, layout_flags& f) {
  CLI::App step{"", "step"};  // named, so that the registry reads step's flags
  step_flags scratch;
  add_step_flags(step, scratch);
  auto* group =
      cmd.add_option_group("Step (the rest of 'tpcost step's flags, as what-ifs over every file)");
  static constexpr std::string_view not_for_check[] = {"--config", "--from", "--print-config",
                                                       "--help"};
  const auto add_from = [&](const CLI::App& app, const auto& self) -> void {
    for (const auto* sub :
         app.get_subcommands([](const CLI::App* s) { return s->get_name().empty(); })) {
      self(*sub, self);
    }
    for (const auto* option : app.get_options()) {
      const std::string& name = option->get_name();  // the first long name: "--torch-compile"
      if (name.rfind("--", 0) != 0 ||
          std::find(std::begin(not_for_check), std::end(not_for_check), name) !=
              std::end(not_for_check) ||
          cmd.get_option_no_throw(name) != nullptr) {
        continue;
      }
      if (option->get_expected_max() == 0) {
        add_flag(*group, name, f.more_flags[name]);
      } else {
        add_flag(*group, name, f.more[name]);
      }
    }
  };
  add_from(step, add_from);
}

/// The step a config describes, read by `tpcost step`'s own flags on a private App: the config
/// fills them as it fills `step --config`, and check's command line wins over every file.
struct step_reader {
  CLI::App app{"", "step"};  // named: the registry gives it step's flags
  step_flags flags;
  std::optional<config_overlay> overlay;

  explicit step_reader(const CLI::App& check_command) {
    add_step_flags(app, flags);
    copy_command_line(check_command, app);
    overlay.emplace(app);  // the copied flags now count as given on the command line
  }

  [[nodiscard]] bool given(const char* flag) const {
    const auto* option = app.get_option_no_throw(flag);
    return option != nullptr && option->count() > 0;
  }

  /// Re-labels an error about a value the file gave, as `step --config` does.
  [[noreturn]] void rethrow(const invalid_spec& e) const {
    if (auto relabelled = overlay->attributed(e)) {
      throw config_error(relabelled->field(), relabelled->detail());
    }
    throw e;
  }
};

/// The rules of a config's "checks" section, in the registry's order.
std::vector<rule> rules_of(const config_document& doc, const layer_flags& flags) {
  static constexpr std::pair<std::string_view, rule_kind> names[] = {
      {"/checks/min_efficiency", rule_kind::min_efficiency},
      {"/checks/max_ratio", rule_kind::max_ratio},
      {"/checks/tp_within_half_critical", rule_kind::tp_within_half_critical},
      {"/checks/tp_within_node", rule_kind::tp_within_node},
      {"/checks/min_utilisation", rule_kind::min_utilisation},
      {"/checks/min_mfu", rule_kind::min_mfu},
      {"/checks/min_memory_headroom", rule_kind::min_memory_headroom},
      {"/checks/max_step_time", rule_kind::max_step_time},
  };
  std::vector<rule> rules;
  for (const auto& [pointer, kind] : names) {
    const auto* entry = doc.find(pointer);
    if (entry == nullptr || entry->text == "false") {
      continue;
    }
    double limit = 0.0;
    if (kind == rule_kind::min_efficiency) {
      limit = to_efficiency_target(flags);  // the flag may override the file's limit
    } else if (kind == rule_kind::min_memory_headroom) {
      limit = parse_bytes(entry->text, std::string(pointer)).value();
    } else if (kind == rule_kind::max_step_time) {
      limit = parse_duration(entry->text, std::string(pointer)).value();
    } else if (entry->text != "true") {
      limit = std::stod(entry->text);
    }
    rules.push_back({kind, limit});
  }
  return rules;
}

/// Whether the file (with check's flags) describes a whole step, so that its memory can be
/// judged: a model, a GPU, a global batch and the GPU count, the keys evaluate_config_step needs.
bool describes_step(const step_reader& step) {
  const bool model = step.given("--model") || step.given("--hf-config") ||
                     (step.given("--layers") && step.given("--hidden") && step.given("--heads") &&
                      step.given("--vocab") && step.given("--seq"));
  return model && step.given("--gpu") && step.given("--global-batch") &&
         (step.given("--dp") || step.given("--gpus"));
}

/// "min_mfu, max_step_time": the enabled step rules, for messages.
std::string step_rule_names(const std::vector<rule>& rules) {
  std::string out;
  for (const auto& r : rules) {
    if (reads_step(r.kind) && r.kind != rule_kind::fits_memory) {  // fits_memory is implicit
      out += (out.empty() ? "" : ", ") + std::string(rule_name(r.kind));
    }
  }
  return out;
}

/// How a file names what it lacks: a launch script by its flags, a YAML or TOML by its keys,
/// tpcost's config by its JSON pointers; what the command line can add is named too.
struct file_terms {
  std::string format;  ///< /source/format: "megatron-lm-script", "torchtitan-toml", ...

  explicit file_terms(const config_document& doc) {
    if (const auto* f = doc.find("/source/format")) {
      format = f->text;
    }
  }
  [[nodiscard]] bool script() const { return format == "megatron-lm-script"; }
  [[nodiscard]] bool yaml() const { return format == "megatron-bridge-yaml"; }
  [[nodiscard]] bool toml() const { return format == "torchtitan-toml"; }
  [[nodiscard]] bool foreign() const { return !format.empty() && format != "tpcost"; }

  /// The model dimension `dim` (layers, hidden, heads, vocab, seq) as the file would give it.
  [[nodiscard]] std::string dimension(std::string_view dim) const {
    static constexpr std::array<std::array<std::string_view, 4>, 5> names{{
        {"layers", "--num-layers N", "model.num_layers", "--layers"},
        {"hidden", "--hidden-size N", "model.hidden_size", "--hidden"},
        {"heads", "--num-attention-heads N", "model.num_attention_heads", "--heads"},
        {"vocab", "--vocab-size N", "tokenizer.vocab_size (or model.vocab_size)", "--vocab"},
        {"seq", "--seq-length N", "model.seq_length", "--seq"},
    }};
    for (const auto& n : names) {
      if (n[0] == dim) {
        if (script()) {
          return fmt::format("{} in the script (or {} N with the command)", n[1], n[3]);
        }
        if (yaml()) {
          return fmt::format("{} in the YAML (or {} N with the command)", n[2], n[3]);
        }
        return fmt::format("/model/{} (or {} N)", dim, n[3]);
      }
    }
    return std::string(dim);
  }
};

/// What the whole step of a config lacks: a tpcost key and what it is, in the file's terms.
struct lack {
  std::string pointer;  ///< tpcost's key
  std::string what;     ///< what it is, in the file's terms
};

/// Everything the file and the command line leave out of the step (the model, the GPU, the
/// global batch, the GPU count), in the file's own terms; empty when the step is whole.
std::vector<lack> step_lacks(const config_document& doc, const step_reader& step) {
  const file_terms terms(doc);
  std::vector<lack> missing;
  // A reader of a launch script gives the model as its dimensions, without a preset.
  const bool by_name = step.given("--model") || step.given("--hf-config");
  std::vector<std::pair<std::string, std::string>> dims;  // pointer, in the file's terms
  for (const auto& [flag, dim] :
       {std::pair{"--layers", "layers"}, std::pair{"--hidden", "hidden"},
        std::pair{"--heads", "heads"}, std::pair{"--vocab", "vocab"}, std::pair{"--seq", "seq"}}) {
    if (!step.given(flag)) {
      dims.emplace_back(std::string("/model/") + dim, terms.dimension(dim));
    }
  }
  if (!by_name && (dims.size() == 5 || !terms.foreign())) {
    missing.push_back(
        {"/model/name",
         terms.toml() ? "the model: [model] name and flavor of a model tpcost has a preset for "
                        "(or --model NAME, --hf-config FILE with the command)"
         : terms.foreign()
             ? "the model: --model NAME or --hf-config FILE with the command"
             : "a model preset, e.g. \"gpt-3-175b\" (tpcost model list), or /model/hf_config"});
  } else if (!by_name && !dims.empty()) {
    std::string list;
    for (const auto& d : dims) {
      list += (list.empty() ? "" : ", ") + d.second;
    }
    missing.push_back({dims.front().first, "the model's " + list +
                                               " (or name the model with --model or "
                                               "--hf-config)"});
  }
  if (!step.given("--gpu")) {
    missing.push_back({"/hardware/gpu", terms.foreign()
                                            ? "the GPU: --gpu NAME with the command, e.g. --gpu "
                                              "h100-sxm"
                                            : "a GPU preset for the peak, the HBM capacity and "
                                              "bandwidth, e.g. \"h100-sxm\""});
  }
  const bool gpus = step.given("--dp") || step.given("--gpus");
  if (!step.given("--global-batch") && (doc.batch_per_rank == 0 || gpus)) {
    missing.push_back({"/batch/global_batch",
                       doc.batch_per_rank > 0
                           ? "the global batch: " + doc.batch_per_rank_origin +
                                 " x DP, and t*p*cp does not divide the GPU count"
                       : terms.script() ? "the global batch: --global-batch-size N in the script"
                       : terms.yaml()   ? "the global batch: train.global_batch_size in the YAML"
                       : terms.toml()   ? "the global batch: training.global_batch_size in the TOML"
                       : terms.foreign() ? "the global batch: --global-batch N with the command"
                                         : "the sequences per step, e.g. 1536"});
  }
  if (!gpus) {
    const std::string derived =
        doc.batch_per_rank > 0
            ? " (the global batch is " + doc.batch_per_rank_origin + " x DP, DP = N/(t*p*cp))"
            : "";
    missing.push_back(
        {"/parallel/gpus",
         (terms.script()    ? "the GPU count: torchrun --nproc_per_node (and --nnodes) in the "
                              "script, or --gpus N with the command"
          : terms.foreign() ? "the GPU count: --gpus N with the command"
                            : "the job's GPU count N (or /parallel/dp)") +
             derived});
  }
  return missing;
}

/// The whole step of the config, for the step rules. A CI gate should not guess the job, so
/// the keys `step` would default (the GPU, N, the global batch) must be in the file or on the
/// command line; a network not named is the GPU's reference NIC, as in every command, and the
/// report says so. Everything missing is named at once, in the file's own terms.
step_report evaluate_config_step(const config_document& doc, const step_reader& step,
                                 const std::vector<rule>& rules, const layer_flags& layer) {
  const file_terms terms(doc);
  const auto missing = step_lacks(doc, step);
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = terms.foreign() ? 0 : 1; i < missing.size(); ++i) {
      list += (list.empty() ? "" : "; ") + missing[i].what;
    }
    if (!terms.foreign()) {  // tpcost's config: the first key, then the others
      throw config_error(doc.source + ": " + missing.front().pointer,
                         "missing; the step rules (" + step_rule_names(rules) + ") need " +
                             missing.front().what +
                             (list.empty() ? "" : "; also missing: " + list));
    }
    throw config_error(doc.source, "the step rules (" + step_rule_names(rules) + ") need " + list);
  }
  step_flags flags = step.flags;
  if (flags.hardware.intra_bandwidth.empty() && !layer.bandwidth.empty()) {
    // /hardware/bandwidth is the per-layer model's B: the intra-node link, as in to_topology.
    (void)parse_bandwidth(layer.bandwidth, "--bandwidth");
    flags.hardware.intra_bandwidth = layer.bandwidth;
  }
  step_report report;
  try {
    report = evaluate_step_flags(flags);
  } catch (const invalid_spec& e) {
    step.rethrow(e);
  }
  return report;
}

/// "gpt-3-175b, t=8 p=16 d=8, b=1 G=1536, recompute full, stack megatron-core": the step the
/// step rules read, and the stack it is costed on.
std::string step_summary(const step_report& r) {
  const auto& par = r.inputs.par;
  return model_name(r.model) + ", t=" + std::to_string(par.tp) + " p=" + std::to_string(par.pp) +
         (par.cp > 1 ? " cp=" + std::to_string(par.cp) + " " +
                           std::string(to_string(r.inputs.options.cp.comm))
                     : "") +
         " d=" + std::to_string(par.dp) + (par.vpp > 1 ? " v=" + std::to_string(par.vpp) : "") +
         ", b=" + std::to_string(par.micro_batch) + " G=" + std::to_string(par.global_batch) +
         ", recompute " + std::string(to_string(par.recompute)) +
         (par.sequence_parallel ? ", SP" : "") +
         (par.zero != zero_stage::none ? ", ZeRO-" + std::to_string(static_cast<int>(par.zero))
                                       : "") +
         (r.inputs.precision.options.linear != linear_precision::bf16
              ? ", " + std::string(to_string(r.inputs.precision.options.linear))
              : "") +
         (r.stack.profile != nullptr ? ", stack " + std::string(r.stack.profile->name) : "");
}

/// The line a reader found the TP degree on ("train.sh:52: --tensor-model-parallel-size"), for
/// SARIF's region; 0 for tpcost's JSON, whose entries carry no line.
std::size_t layout_line(const config_document& doc) {
  const auto* tp = doc.find("/parallel/tp");
  if (tp == nullptr || tp->origin.size() <= doc.source.size() + 1 ||
      tp->origin.compare(0, doc.source.size() + 1, doc.source + ":") != 0) {
    return 0;
  }
  std::size_t line = 0;
  for (std::size_t i = doc.source.size() + 1; i < tp->origin.size(); ++i) {
    const char c = tp->origin[i];
    if (c < '0' || c > '9' || line > 100000000) {
      break;
    }
    line = line * 10 + static_cast<std::size_t>(c - '0');
  }
  return line;
}

file_check check_one(const config_document& doc, const check_options& opts, step_reader& step) {
  // The file's /parallel/tp, or --tp (the overlay put whichever wins in opts.layout.tp).
  if (opts.layout.tp.empty()) {
    throw config_error(doc.source + ": /parallel/tp",
                       "missing; a check needs the TP degree of the config, e.g. 8");
  }
  auto rules = rules_of(doc, opts.layer);
  const auto degrees = parse_degree_list(opts.layout.tp, "--tp");
  if (degrees.size() != 1) {
    throw invalid_spec("--tp", "a check needs one TP degree, not a list");
  }
  bool any_step_rule =
      std::any_of(rules.begin(), rules.end(), [](const rule& r) { return reads_step(r.kind); });
  // Memory is judged whatever rules the file names: a layout that does not fit cannot run, and
  // a gate that passes it is wrong. min_memory_headroom (a floor >= 0) already implies it.
  bool applied = true;
  if (any_step_rule) {
    step.overlay->apply(doc);
  } else {
    try {
      step.overlay->apply(doc);
    } catch (const invalid_spec&) {
      applied = false;  // a per-layer config whose keys make no step: its own rules are judged
    }
  }
  const bool judge_memory = any_step_rule || (applied && describes_step(step));
  if (judge_memory && std::none_of(rules.begin(), rules.end(), [](const rule& r) {
        return r.kind == rule_kind::min_memory_headroom;
      })) {
    rules.insert(rules.begin(), rule{rule_kind::fits_memory, 0.0});
    any_step_rule = true;
  }
  if (rules.empty()) {
    if (file_terms(doc).foreign()) {
      // What the file lacks for its memory to be judged, in its own terms (issue 29): a gate
      // that names the one flag missing, not the four things a step can need.
      std::string lacking;
      for (const auto& l : step_lacks(doc, step)) {
        lacking += (lacking.empty() ? "" : "; ") + l.what;
      }
      throw config_error(
          doc.source,
          "no rule is enabled and no whole step to judge the memory of; give a "
          "rule with the command, e.g. --rule min_mfu=0.4" +
              (lacking.empty() ? std::string() : " (or, to judge the memory, " + lacking + ")"));
    }
    throw config_error(doc.source + ": /checks",
                       "no rule is enabled and no whole step to judge the memory of; add e.g. "
                       "\"checks\": {\"min_efficiency\": 0.7}, or give the model, the GPU, the "
                       "GPU count and the global batch");
  }
  const bool any_layer_rule =
      std::any_of(rules.begin(), rules.end(), [](const rule& r) { return !reads_step(r.kind); });

  file_check report{.source = doc.source,
                    .name = doc.name,
                    .tp = degrees.front(),
                    .model = {},
                    .hardware = {},
                    .step = {},
                    .outcomes = {},
                    .error = {},
                    .line = layout_line(doc),
                    .assumption = {}};
  const bool any_banded_rule = std::any_of(rules.begin(), rules.end(), [](const rule& r) {
    return r.kind == rule_kind::min_mfu || r.kind == rule_kind::max_step_time;
  });
  if (opts.pessimistic && !any_banded_rule) {
    throw invalid_spec("--pessimistic",
                       "judges step rules (min_mfu, max_step_time) at the error band's edge; " +
                           doc.source + " enables none, and its other rules have no band");
  }
  std::optional<step_metrics> step_part;
  std::optional<band_choice> band;
  layer_flags layer = opts.layer;
  if (any_step_rule) {
    const auto s = evaluate_config_step(doc, step, rules, opts.layer);
    step_part = step_metrics_of(s.result);
    band = band_of(s);
    const auto [lo, hi] = time_band(*band, s.result.step_time.value());
    report.band = fmt::format("likely {} to {} ({})", io::to_string(seconds(lo)),
                              io::to_string(seconds(hi)), band_basis_text(*band));
    report.step = step_summary(s);
    report.hardware = std::string(s.hardware.gpu->name) + " + " + s.hardware.network;
    report.assumption = s.hardware.assumption;
    // Both kinds of rule judge the same micro-batch (the per-layer default b=2 is the seed's).
    layer.batch = step.flags.micro_batch;
  }
  rule_metrics metrics;
  metrics.tp = degrees.front();
  if (any_layer_rule) {
    // The model `sweep` would use for the same config: the refined one with a preset, a
    // profile or any refined option, the seed's otherwise.
    const auto in = to_layer_inputs(layer, opts.refined);
    const auto target = to_efficiency_target(layer);
    report.hardware = hardware_summary(in.origin);
    if (report.assumption.empty()) {
      report.assumption = in.origin.assumption();
    }
    if (in.article_model()) {
      report.model = "the article's model";
      metrics =
          metrics_at(sweep_tp(in.layer, in.device, degrees, target), in.topology.gpus_per_node);
    } else {
      report.model = "refined model, collective " + std::string(to_string(in.options.collective));
      metrics = metrics_at(sweep_tp(in.layer, in.device, in.topology, in.options, degrees, target));
    }
  }
  metrics.step = step_part;
  report.outcomes = evaluate_rules(metrics, rules);
  if (band) {
    // The same rules at the band's pessimistic edge: the slow end of the step time, the low end
    // of MFU.
    auto edge = metrics;
    edge.step->step_time = seconds(time_band(*band, step_part->step_time.value()).second);
    edge.step->mfu = rate_band(*band, step_part->mfu).first;
    const auto at_edge = evaluate_rules(edge, rules);
    for (std::size_t i = 0; i < at_edge.size(); ++i) {
      if (report.outcomes[i].passed && !at_edge[i].passed) {
        const bool time = at_edge[i].kind == rule_kind::max_step_time;
        const auto value = [&](double v) {
          return time ? io::to_string(seconds(v)) : io::percent(v);
        };
        report.central_only.push_back(fmt::format(
            "{}: {} central, {} at the band's pessimistic edge", rule_name(at_edge[i].kind),
            value(report.outcomes[i].measured), value(at_edge[i].measured)));
      }
    }
    if (opts.pessimistic) {
      report.outcomes = at_edge;
      report.pessimistic = true;
    }
  }
  return report;
}

/// --rule min_mfu=0.4 ...: the checks section they spell, validated as a config's would be.
config_document rules_from_flags(const std::vector<std::string>& rules) {
  nlohmann::json checks = nlohmann::json::object();
  for (const auto& r : rules) {
    const auto eq = r.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw invalid_spec("--rule", "'" + r + "': expected NAME=VALUE, e.g. --rule min_mfu=0.4");
    }
    const auto name = r.substr(0, eq);
    const auto value = r.substr(eq + 1);
    nlohmann::json v = value;
    if (value == "true" || value == "false") {
      v = value == "true";
    } else {
      try {
        std::size_t used = 0;
        const double d = std::stod(value, &used);
        if (used == value.size()) {
          v = d;
        }
      } catch (const std::exception&) {
        // not a number: a quantity such as "4GiB" or "30s", kept as text
      }
    }
    checks[name] = v;
  }
  try {
    return parse_config(nlohmann::json{{"checks", checks}}.dump(), "--rule");
  } catch (const config_error& e) {
    throw invalid_spec("--rule",
                       e.field().substr(e.field().find("/checks/") + 8) + ": " + e.detail());
  }
}

/// One file to check: its document (none if it could not be read) and the warnings its reader
/// gave, printed only if the file is then checked (an invalid file is its one error line).
struct checked_document {
  std::string file;
  std::optional<config_document> doc;
  std::string notes;
};

/// The files to check, each a document: an HF config.json among them is not checked on its own
/// but gives its model to every file that names none; --rule adds to every file's rules.
std::vector<checked_document> documents_of(const check_options& opts,
                                           std::vector<std::string>& errors) {
  const formats::read_options read{formats::parse_set(opts.set), opts.strict};
  const auto flag_rules = rules_from_flags(opts.rules);
  std::vector<std::tuple<std::string, std::optional<formats::loaded_file>, std::string>> files;
  std::vector<formats::loaded_file> models;
  std::set<std::string> warned;  // a file named twice warns once
  for (const auto& file : opts.files) {
    try {
      auto f = formats::load_any(file, read);
      std::ostringstream notes;
      formats::print_notes(f, notes, false, false, &warned);
      if (f.read.format == formats::source_format::hf_config) {
        held_notes() << notes.str();
        models.push_back(std::move(f));
      } else {
        files.emplace_back(file, std::move(f), notes.str());
      }
    } catch (const invalid_spec& e) {
      files.emplace_back(file, std::nullopt, std::string());
      errors.push_back(error_message(e));
    }
  }
  if (models.size() > 1) {
    throw invalid_spec(models[1].doc.source,
                       "a second Hugging Face config.json; give one model per check");
  }
  std::vector<checked_document> out;
  std::size_t error_index = 0;
  for (auto& [file, f, notes] : files) {
    if (!f) {
      out.push_back({file, std::nullopt, {}});
      ++error_index;
      continue;
    }
    std::vector<formats::loaded_file> parts{*f};
    if (!models.empty() && f->doc.find("/model/name") == nullptr &&
        f->doc.find("/model/hf_config") == nullptr) {
      parts.push_back(models.front());
    }
    auto doc = formats::merge(parts);
    for (const auto& rule : flag_rules.entries) {
      auto it = std::find_if(doc.entries.begin(), doc.entries.end(),
                             [&](const config_entry& e) { return e.key == rule.key; });
      if (it != doc.entries.end()) {
        *it = rule;
      } else {
        doc.entries.push_back(rule);
      }
    }
    out.push_back({file, std::move(doc), std::move(notes)});
  }
  if (files.empty() && !models.empty()) {
    throw invalid_spec(models.front().doc.source,
                       "a Hugging Face config.json describes only a model; check it with a "
                       "training config (tpcost check train.sh config.json), or name it as "
                       "/model/hf_config in a tpcost config");
  }
  return out;
}

int run_check(CLI::App& cmd, const check_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json|junit|sarif");
  use_error_band_file(opts.error_band);
  config_overlay overlay(cmd);
  step_reader step(cmd);  // before any file sets check's flags
  std::vector<file_check> reports;
  std::vector<std::string> read_errors;
  const auto documents = documents_of(opts, read_errors);
  std::size_t next_error = 0;
  for (const auto& [file, loaded, notes] : documents) {
    try {
      if (!loaded) {
        throw invalid_spec(file, "");  // reported below with the reader's message
      }
      const auto& doc = *loaded;
      overlay.apply(doc);
      try {
        reports.push_back(check_one(doc, opts, step));
        std::cerr << notes;  // checked: its reader's warnings stand (an invalid file is one line)
      } catch (const invalid_spec& e) {
        if (auto relabelled = overlay.attributed(e)) {
          throw config_error(relabelled->field(), relabelled->detail());
        }
        throw;
      }
    } catch (const invalid_spec& e) {
      // An invalid file is reported on stderr and the others are still checked.
      const auto message = loaded ? error_message(e) : read_errors.at(next_error++);
      std::cerr << "tpcost: error: " << output_safe(message) << '\n';  // the one sanitiser
      reports.push_back(file_check{.source = file,
                                   .name = {},
                                   .tp = 0,
                                   .model = {},
                                   .hardware = {},
                                   .step = {},
                                   .outcomes = {},
                                   .error = message,
                                   .line = 0,
                                   .assumption = {}});
    }
  }
  const char* gha = std::getenv("GITHUB_ACTIONS");
  const bool annotate = gha != nullptr && std::string_view(gha) == "true";
  if (annotate) {
    // Text reports share stdout with the annotations; JSON and JUnit keep stdout to themselves.
    (format == output_format::table ? std::cout : std::cerr) << render_annotations(reports);
  }
  // Invalid files were reported on stderr; stdout carries a report only if some file was valid.
  const bool any_valid = std::any_of(reports.begin(), reports.end(),
                                     [](const file_check& r) { return r.error.empty(); });
  if (any_valid) {
    emit(opts.output, render_check(reports, format));
  }
  return check_exit_code(reports);
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<check_options>();
  auto* cmd = app.add_subcommand(
      "check", "Check training configs against their rules (exit 0 pass, 1 fail, 2 invalid)");
  cmd->add_option("files", opts->files,
                  "configs to check ('-' for stdin): tpcost's JSON, a Megatron-LM script or log, "
                  "a Megatron-Bridge/NeMo YAML, a torchtitan TOML, a DeepSpeed JSON; an HF "
                  "config.json among them gives its model to the others")
      ->required();
  add_flag(*cmd, "--rule", opts->rules);
  add_reader_flags(*cmd, opts->set, opts->strict);
  add_flag(*cmd, "--pessimistic", opts->pessimistic);
  add_error_band_flag(*cmd, opts->error_band);
  add_layer_flags(*cmd, opts->layer);
  add_refined_flags(*cmd, opts->refined);
  opts->refined.rules_read_gpus_per_node = true;
  add_layout_flags(*cmd, opts->layout);
  add_output_flags(*cmd, opts->output, "table|json|junit|sarif");
  add_remaining_step_flags(*cmd, opts->layout);
  cmd->footer(R"(Rules (in the config's "checks" section):
  min_efficiency: 0.7            E(t) >= 0.7 at the config's TP degree
  max_ratio: 0.5                 R(t) <= 0.5
  tp_within_half_critical: true  t <= t*/2 (the article's guidance)
  tp_within_node: true           t <= GPUs per node (--gpus-per-node, the --gpu preset's, or 8)
  min_utilisation: 0.5           mu >= 0.5
  min_mfu: 0.4                   the whole step's MFU >= 40%
  min_memory_headroom: "4GiB"    HBM left on the fullest GPU >= 4 GiB (0: the layout fits)
  max_step_time: "30s"           the predicted step time <= 30 s
The per-layer rules use the model 'sweep' would use for the same config: the refined model
(alpha-beta collectives on the node topology, auto unless --collective is given) when the
config names a preset (hardware.gpu, hardware.interconnect), a profile
(hardware.interconnect_file) or a refined option; the article's model otherwise. A model.name
(or model.hf_config) gives them its h, s and heads.
The step rules evaluate the step 'tpcost step --config FILE' would: they need model.name (or
model.hf_config), hardware.gpu, batch.global_batch and parallel.gpus (or dp); a CI gate
should not guess them. Without hardware.interconnect the GPU's reference NIC is used (IB-NDR
for H100-SXM, as in DGX H100), and the report's first line says so.
Flags given here override every file's values (what-if: --bandwidth 300GB/s, --gpu h100).
With GITHUB_ACTIONS=true, failures are also printed as ::error annotations.

Other frameworks' configs are read by content (docs/formats.md): rules come from --rule.
--format sarif writes SARIF 2.1.0 for GitHub code scanning.

Examples:
  tpcost check examples/configs/*.json
  tpcost check train_gpt3_175b_distributed.sh --set NUM_NODES=128 --gpu a100-sxm4-80gb \
               --interconnect ib-hdr --rule min_memory_headroom=0 --rule min_mfu=0.3
  tpcost check ds_config.json config.json --gpu h100-sxm --rule min_memory_headroom=4GiB
  tpcost check run.json --format junit --output tpcost-junit.xml
  tpcost check run.json --bandwidth 300GB/s    # would it still pass over PCIe?
  tpcost check run.json --interconnect ib-ndr  # ... with NDR instead of the file's network?
  tpcost check run.json --gpu h100-sxm          # would the step rules pass on H100s?
  tpcost check run.json --tp 8 --pp 16          # ... with another layout?
)");
  cmd->callback([cmd, opts, &exit_code] { exit_code = run_check(*cmd, *opts); });
}

}  // namespace tpcost::cli
