// `tpcost explain`: the derivation for one TP degree, with the user's numbers: the seed's, or
// the refined model's when a refined flag asks for it.
#include <memory>

#include "commands/commands.hpp"
#include "options/cli_options.hpp"
#include "options/config_overlay.hpp"
#include "options/flag_options.hpp"
#include "render/render.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/layer/sweep.hpp"

namespace tpcost::cli {

namespace {

struct explain_options {
  layer_flags layer;
  refined_flags refined;
  output_flags output;
  config_flags config;
  std::string tp = "8";
};

void run_explain(const explain_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json");
  const auto in = to_layer_inputs(opts.layer, opts.refined);
  const auto tp = parse_count(opts.tp, "--tp");
  validate_tp(tp);
  const auto target = to_efficiency_target(opts.layer);
  if (in.article_model()) {
    emit(opts.output,
         render_explain(explain_tp(in.layer, in.device, tp, target), format, in.origin));
    return;
  }
  emit(opts.output,
       render_explain(explain_tp(in.layer, in.device, in.topology, in.options, tp, target), format,
                      in.origin));
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto opts = std::make_shared<explain_options>();
  auto* cmd = app.add_subcommand(
      "explain", "Walk through the derivation for one TP degree, with your numbers");
  add_layer_flags(*cmd, opts->layer);
  add_refined_flags(*cmd, opts->refined);
  add_flag(*cmd, "--tp", opts->tp)->capture_default_str();
  add_output_flags(*cmd, opts->output, "table|json");
  cmd->footer(R"(Examples:
  tpcost explain --tp 8                          # the article's demo at TP=8
  tpcost explain --tp 8 --bandwidth 300GB/s      # the article's PCIe example
  tpcost explain --tp 4 --dtype bf16 --format json
  tpcost explain --tp 16 --collective auto --intra-bandwidth 450GB/s --intra-latency 3us \
                 --inter-bandwidth 50GB/s --inter-latency 10us --dtype bf16 --sp
  tpcost explain --tp 16 --gpu h100-sxm --interconnect ndr   # every value with its source
)");
  add_config_flags(*cmd, opts->config);
  cmd->callback([cmd, opts] { run_with_config(*cmd, opts->config, [&] { run_explain(*opts); }); });
}

}  // namespace tpcost::cli
