// `tpcost sweep`: the per-layer model at each TP degree of a list; the seed's, or the refined
// one when a refined flag (--collective, --sp, --recompute, --overlap, ...) asks for it.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "charts/sweep_chart.hpp"
#include "commands/commands.hpp"
#include "options/cli_options.hpp"
#include "options/config_overlay.hpp"
#include "options/flag_options.hpp"
#include "render/display.hpp"
#include "render/render.hpp"
#include "tpcost/base/degree_list.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/layer/sweep.hpp"

namespace tpcost::cli {

namespace {

struct sweep_options {
  layer_flags layer;
  refined_flags refined;
  output_flags output;
  config_flags config;
  display_flags display;
  std::string tp = "1,2,4,8,16,32";
};

/// The degrees of the list the model can take: t must divide its heads, KV heads and MLP size,
/// as in step. The ones left out are named in `note` (for stderr), so that `--tp 1..64:+1`
/// sweeps the rest; when none is left, one error line (exit 2). Without a model every degree
/// is the article's layer's.
std::vector<std::int64_t> degrees_the_model_takes(const layer_inputs& in,
                                                  const std::vector<std::int64_t>& degrees,
                                                  std::string& note) {
  std::vector<std::int64_t> kept;
  std::string skipped;  ///< "3, 5, 7"
  for (const auto t : degrees) {
    validate_tp(t);  // out of range is a mistake in the list, not a degree to skip
    try {
      validate_tp_for_model(in.options, t);
      kept.push_back(t);
    } catch (const invalid_spec& e) {
      if (e.field() != "tp") {
        throw;
      }
      skipped += (skipped.empty() ? "" : ", ") + std::to_string(t);
    }
  }
  if (skipped.empty()) {
    return kept;
  }
  const auto& m = *in.options.model;
  const auto rule = fmt::format(
      "t must divide the model's {} attention heads, {} KV heads and MLP size {} (as in step)",
      m.heads, kv_heads_of(m), ffn_of(m));
  if (kept.empty()) {
    throw invalid_spec("--tp", "the model takes none of " + skipped + ": " + rule);
  }
  note = "tpcost: note: --tp: skipped " + skipped + ": " + rule + "\n";
  return kept;
}

/// A model swept without hardware flags runs on the article's hypothetical device (P = 1
/// PFLOP/s, B = 600 GB/s), not on a real GPU: a note for stderr says so, for every format.
/// Without a model the sweep is the article's demo itself, and needs no note.
std::string hypothetical_device_note(const layer_inputs& in) {
  const auto& o = in.origin;
  if (!in.options.model || o.any()) {
    return {};
  }
  const bool peak = !o.flops_given;
  const bool bandwidth = !o.bandwidth_given && !o.intra_bandwidth_given;
  const auto p = "P = " + io::to_string(in.device.peak);
  const auto b = "B = " + io::to_string(in.device.bandwidth);
  if (peak && bandwidth) {
    return "tpcost: note: no hardware named: the article's hypothetical device (" + p + ", " + b +
           "), not a real GPU; name yours with --gpu (and --interconnect)\n";
  }
  if (peak || bandwidth) {
    return "tpcost: note: " + (peak ? p : b) +
           " is the article's hypothetical device's, not a real GPU's; name yours with --gpu or " +
           (peak ? "--flops" : "--bandwidth") + "\n";
  }
  return {};
}

void run_sweep(const sweep_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json|csv|markdown");
  validate(opts.display, format);
  const auto in = to_layer_inputs(opts.layer, opts.refined);
  std::string notes;  // on stderr once the sweep has run: an error stays one line
  const auto degrees = degrees_the_model_takes(in, parse_degree_list(opts.tp, "--tp"), notes);
  notes += hypothetical_device_note(in);
  if (wants_figure(opts.display) && degrees.size() > max_figure_points) {
    throw invalid_spec("--tp", std::to_string(degrees.size()) +
                                   " degrees; a chart or plot shows at "
                                   "most " +
                                   std::to_string(max_figure_points) +
                                   " (use a doubling range such as 1..1024, or a stride :+k)");
  }
  const auto target = to_efficiency_target(opts.layer);
  if (format == output_format::csv || format == output_format::markdown || opts.display.quiet) {
    note_assumption(in.origin.assumption());  // a report would start with it
  }
  // Plots are written before the table: if gnuplot fails, stdout stays empty.
  const auto show = [&](const auto& result, const chart::figure& figure) {
    const auto text = render_sweep(result, format, opts.display.quiet, in.origin);
    std::cerr << notes;
    const auto charts = show_figure(opts.display, opts.output, figure);
    emit(opts.output, charts.empty() ? text : text + "\n" + charts, opts.display.ascii);
  };
  if (in.article_model()) {
    const auto result = sweep_tp(in.layer, in.device, degrees, target);
    show(result, sweep_figure(result, in.topology.gpus_per_node));
  } else {
    const auto result = sweep_tp(in.layer, in.device, in.topology, in.options, degrees, target);
    show(result, sweep_figure(result));
  }
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto opts = std::make_shared<sweep_options>();
  auto* cmd = app.add_subcommand(
      "sweep",
      "Per-layer TP cost at each degree of a list (the article's model, or the refined one)");
  add_layer_flags(*cmd, opts->layer);
  add_refined_flags(*cmd, opts->refined);
  add_flag(*cmd, "--tp", opts->tp)->capture_default_str();
  add_output_flags(*cmd, opts->output, "table|json|csv|markdown");
  add_display_flags(*cmd, opts->display);
  cmd->footer(R"(Examples:
  tpcost sweep                                   # the article's demo: b=2 s=2048 h=8192 fp32 1PFLOP/s 600GB/s
  tpcost sweep --dtype bf16 --flops 989.4T --bandwidth 450GB/s --tp 1..64
  tpcost sweep --hidden 12288 --tp 1..16:+1 --format csv > sweep.csv
  tpcost sweep --format json | jq .summary.critical_tp
  tpcost sweep --tp 1..64 --collective auto --intra-bandwidth 450GB/s --intra-latency 3us \
               --inter-bandwidth 50GB/s --inter-latency 10us --dtype bf16 --flops 989.4T
  tpcost sweep --gpu h100-sxm --interconnect ndr --tp 1..64   # bf16 at the H100's peak, NVLink 4, NDR
  tpcost sweep --gpu gb200-nvl72 --interconnect xdr --tp 8,16,36,72,144  # one NVLink domain of 72
  tpcost sweep --gpu h100-sxm --interconnect-file my-cluster.json --tp 1..16
  tpcost sweep --dtype bf16 --sp --overlap 0.5 --recompute full --tp 1..8
  tpcost sweep --tp 1..64 --chart                # the table, then E over TP and time bars
  tpcost sweep --plot sweep.svg                  # the same charts drawn by gnuplot
)");
  add_config_flags(*cmd, opts->config);
  cmd->callback([cmd, opts] { run_with_config(*cmd, opts->config, [&] { run_sweep(*opts); }); });
}

}  // namespace tpcost::cli
