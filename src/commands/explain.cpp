// `tpcost explain`: the seed's derivation for one TP degree, with the user's numbers.
#include <memory>

#include "cli_options.hpp"
#include "commands/commands.hpp"
#include "config_overlay.hpp"
#include "render.hpp"
#include "tpcost/parse.hpp"
#include "tpcost/sweep.hpp"

namespace tpcost::cli {

namespace {

struct explain_options {
  layer_flags layer;
  output_flags output;
  config_flags config;
  std::string tp = "8";
};

void run_explain(const explain_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json");
  const auto layer = to_layer_spec(opts.layer);
  const auto device = to_device_spec(opts.layer);
  const auto tp = parse_count(opts.tp, "--tp");
  validate_tp(tp);
  const auto explanation = explain_tp(layer, device, tp, to_efficiency_target(opts.layer));
  emit(opts.output, render_explain(explanation, format));
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto opts = std::make_shared<explain_options>();
  auto* cmd = app.add_subcommand("explain", "Walk through the seed's derivation for one TP degree");
  add_layer_flags(*cmd, opts->layer);
  cmd->add_option("-t,--tp", opts->tp, "the TP degree to explain (a whole number >= 1)")
      ->capture_default_str();
  add_output_flags(*cmd, opts->output, "table|json");
  cmd->footer(R"(Examples:
  tpcost explain --tp 8                          # the seed's demo at TP=8
  tpcost explain --tp 8 --bandwidth 300GB/s      # the seed's PCIe example
  tpcost explain --tp 4 --dtype bf16 --format json
)");
  add_config_flags(*cmd, opts->config);
  cmd->callback([cmd, opts] { run_with_config(*cmd, opts->config, [&] { run_explain(*opts); }); });
}

}  // namespace tpcost::cli
