// `tpcost sweep`: the seed's per-layer model at each TP degree of a list.
#include <memory>

#include "cli_options.hpp"
#include "commands/commands.hpp"
#include "display.hpp"
#include "render.hpp"
#include "sweep_chart.hpp"
#include "tpcost/degree_list.hpp"
#include "tpcost/sweep.hpp"

namespace tpcost::cli {

namespace {

struct sweep_options {
  layer_flags layer;
  output_flags output;
  display_flags display;
  std::string tp = "1,2,4,8,16,32";
};

void run_sweep(const sweep_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json|csv|markdown");
  validate(opts.display, format);
  const auto layer = to_layer_spec(opts.layer);
  const auto device = to_device_spec(opts.layer);
  const auto degrees = parse_degree_list(opts.tp, "--tp");
  const auto result = sweep_tp(layer, device, degrees, to_efficiency_target(opts.layer));
  auto text = render_sweep(result, format, opts.display.quiet);
  // Plots are written first: if gnuplot fails, stdout stays empty.
  const auto charts = show_figure(opts.display, opts.output, sweep_figure(result));
  emit(opts.output, charts.empty() ? text : text + "\n" + charts);
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
  add_display_flags(*cmd, opts->display);
  cmd->footer(R"(Examples:
  tpcost sweep                                   # the seed's demo: b=2 s=2048 h=8192 fp32 1PFLOP/s 600GB/s
  tpcost sweep --dtype bf16 --flops 989.4T --bandwidth 450GB/s --tp 1..64
  tpcost sweep --hidden 12288 --tp 1..16:+1 --format csv > sweep.csv
  tpcost sweep --format json | jq .summary.critical_tp
  tpcost sweep --tp 1..64 --chart                # the table, then E over TP and time bars
  tpcost sweep --plot sweep.svg                  # the same charts drawn by gnuplot
)");
  cmd->callback([opts] { run_sweep(*opts); });
}

}  // namespace tpcost::cli
