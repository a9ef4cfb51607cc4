// `tpcost check`: evaluates the rules in each config's "checks" section. Exit 0 when every
// rule of every file passes, 1 when a rule fails, 2 when an input is invalid.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands/commands.hpp"
#include "config.hpp"
#include "config_overlay.hpp"
#include "render.hpp"
#include "tpcost/checks.hpp"
#include "tpcost/degree_list.hpp"

namespace tpcost::cli {

namespace {

struct check_options {
  std::vector<std::string> files;
  layer_flags layer;
  refined_flags refined;
  output_flags output;
};

/// The rules of a config's "checks" section, in the registry's order.
std::vector<rule> rules_of(const config_document& doc, const layer_flags& flags) {
  static constexpr std::pair<std::string_view, rule_kind> names[] = {
      {"/checks/min_efficiency", rule_kind::min_efficiency},
      {"/checks/max_ratio", rule_kind::max_ratio},
      {"/checks/tp_within_half_critical", rule_kind::tp_within_half_critical},
      {"/checks/tp_within_node", rule_kind::tp_within_node},
      {"/checks/min_utilisation", rule_kind::min_utilisation},
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
    } else if (entry->text != "true") {
      limit = std::stod(entry->text);
    }
    rules.push_back({kind, limit});
  }
  if (rules.empty()) {
    throw config_error(doc.source + ": /checks",
                       "no rule is enabled; add e.g. \"checks\": {\"min_efficiency\": 0.7}");
  }
  return rules;
}

file_check check_one(const config_document& doc, const check_options& opts) {
  if (doc.find("/parallel/tp") == nullptr) {
    throw config_error(doc.source + ": /parallel/tp",
                       "missing; a check needs the TP degree of the config, e.g. 8");
  }
  const auto rules = rules_of(doc, opts.layer);
  const auto degrees = parse_degree_list(doc.find("/parallel/tp")->text, "--tp");
  if (degrees.size() != 1) {
    throw config_error(doc.source + ": /parallel/tp", "a check needs one TP degree, not a list");
  }
  // The model `sweep` would use for the same config: the refined one with a preset, a profile
  // or any refined option, the seed's otherwise.
  const auto in = to_layer_inputs(opts.layer, opts.refined);
  const auto target = to_efficiency_target(opts.layer);
  file_check report{.source = doc.source,
                    .name = doc.name,
                    .tp = degrees.front(),
                    .model = {},
                    .hardware = hardware_summary(in.origin),
                    .outcomes = {},
                    .error = {}};
  if (in.seed_model()) {
    report.model = "the seed's model";
    report.outcomes = evaluate_rules(
        metrics_at(sweep_tp(in.layer, in.device, degrees, target), in.topology.gpus_per_node),
        rules);
  } else {
    report.model = "refined model, collective " + std::string(to_string(in.options.collective));
    report.outcomes = evaluate_rules(
        metrics_at(sweep_tp(in.layer, in.device, in.topology, in.options, degrees, target)), rules);
  }
  return report;
}

int run_check(CLI::App& cmd, const check_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json|junit");
  config_overlay overlay(cmd);
  std::vector<file_check> reports;
  for (const auto& file : opts.files) {
    try {
      const auto doc = load_config(file);
      overlay.apply(doc);
      try {
        reports.push_back(check_one(doc, opts));
      } catch (const invalid_spec& e) {
        if (auto relabelled = overlay.attributed(e)) {
          throw config_error(relabelled->field(), relabelled->detail());
        }
        throw;
      }
    } catch (const invalid_spec& e) {
      // An invalid file is reported on stderr and the others are still checked.
      std::cerr << "tpcost: error: " << e.what() << '\n';
      reports.push_back(file_check{.source = file,
                                   .name = {},
                                   .tp = 0,
                                   .model = {},
                                   .hardware = {},
                                   .outcomes = {},
                                   .error = e.what()});
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
  cmd->add_option("files", opts->files, "config files to check ('-' for stdin)")->required();
  add_layer_flags(*cmd, opts->layer);
  add_refined_flags(*cmd, opts->refined);
  opts->refined.rules_read_gpus_per_node = true;
  add_output_flags(*cmd, opts->output, "table|json|junit");
  cmd->footer(R"(Rules (in the config's "checks" section):
  min_efficiency: 0.7            E(t) >= 0.7 at the config's TP degree
  max_ratio: 0.5                 R(t) <= 0.5
  tp_within_half_critical: true  t <= t*/2 (the seed's guidance)
  tp_within_node: true           t <= GPUs per node (--gpus-per-node, the --gpu preset's, or 8)
  min_utilisation: 0.5           mu >= 0.5
The model is the one 'sweep' would use for the same config: the refined model (alpha-beta
collectives on the node topology, auto unless --collective is given) when the config names a
preset (hardware.gpu, hardware.interconnect), a profile (hardware.interconnect_file) or a
refined option; the seed's model otherwise.
Flags given here override every file's values (what-if: --bandwidth 300GB/s).
With GITHUB_ACTIONS=true, failures are also printed as ::error annotations.

Examples:
  tpcost check examples/configs/*.json
  tpcost check run.json --format junit --output tpcost-junit.xml
  tpcost check run.json --bandwidth 300GB/s    # would it still pass over PCIe?
  tpcost check run.json --interconnect ib-ndr  # ... with NDR instead of the file's network?
)");
  cmd->callback([cmd, opts, &exit_code] { exit_code = run_check(*cmd, *opts); });
}

}  // namespace tpcost::cli
