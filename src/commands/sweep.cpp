// `tpcost sweep`: the seed's per-layer model at each TP degree of a list.
#include <memory>

#include "cli_options.hpp"
#include "commands/commands.hpp"
#include "config_overlay.hpp"
#include "render.hpp"
#include "tpcost/degree_list.hpp"
#include "tpcost/sweep.hpp"

namespace tpcost::cli {

namespace {

struct sweep_options {
  layer_flags layer;
  output_flags output;
  config_flags config;
  std::string tp = "1,2,4,8,16,32";
};

void run_sweep(const sweep_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json|csv|markdown");
  const auto layer = to_layer_spec(opts.layer);
  const auto device = to_device_spec(opts.layer);
  const auto degrees = parse_degree_list(opts.tp, "--tp");
  const auto result = sweep_tp(layer, device, degrees, to_efficiency_target(opts.layer));
  emit(opts.output, render_sweep(result, format));
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto opts = std::make_shared<sweep_options>();
  auto* cmd =
      app.add_subcommand("sweep", "Per-layer TP cost at each degree of a list (the seed's model)");
  add_layer_flags(*cmd, opts->layer);
  cmd->add_option("-t,--tp", opts->tp,
                  "TP degrees: 1,2,4,8 | 1..64 (doubling) | 1..16:+1 (every integer) | 2..54:x3")
      ->capture_default_str();
  add_output_flags(*cmd, opts->output, "table|json|csv|markdown");
  cmd->footer(R"(Examples:
  tpcost sweep                                   # the seed's demo: b=2 s=2048 h=8192 fp32 1PFLOP/s 600GB/s
  tpcost sweep --dtype bf16 --flops 989.4T --bandwidth 450GB/s --tp 1..64
  tpcost sweep --hidden 12288 --tp 1..16:+1 --format csv > sweep.csv
  tpcost sweep --format json | jq .summary.critical_tp
)");
  add_config_flags(*cmd, opts->config);
  cmd->callback([cmd, opts] { run_with_config(*cmd, opts->config, [&] { run_sweep(*opts); }); });
}

}  // namespace tpcost::cli
