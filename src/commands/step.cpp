// `tpcost step`: one whole training step across TP x PP x DP, from a model, a GPU, an
// interconnect and a layout.
#include <memory>

#include "cli_options.hpp"
#include "commands/commands.hpp"
#include "config_overlay.hpp"
#include "render_csv.hpp"
#include "render_step.hpp"
#include "step_flags.hpp"

namespace tpcost::cli {

namespace {

struct step_command_flags {
  step_flags step;
  output_flags output;
  config_flags config;
};

void run_step(const step_command_flags& f) {
  const auto format = parse_output_format(f.output.format, "table|json|csv");
  const auto report = evaluate_step_flags(f.step);
  emit(f.output,
       format == output_format::csv ? step_csv(report, true) : render_step(report, format));
}

}  // namespace

void add_step_command(CLI::App& app) {
  auto f = std::make_shared<step_command_flags>();
  auto* cmd = app.add_subcommand(
      "step", "One whole training step across TP x PP x DP: time, breakdown, MFU, memory");
  add_step_flags(*cmd, f->step);
  add_output_flags(*cmd, f->output, "table|json|csv");
  cmd->footer(R"(Examples:
  tpcost step --model gpt3-175b --gpu a100-sxm4-80gb --interconnect ib-hdr --gpus 1024 \
              --tp 8 --pp 16 --micro-batch 1 --global-batch 1536 --recompute full
  tpcost step --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 512 --tp 8 \
              --pp 4 --global-batch 1024 --sp --recompute selective --format json
)");
  add_config_flags(*cmd, f->config);
  cmd->callback([cmd, f] { run_with_config(*cmd, f->config, [&] { run_step(*f); }); });
}

}  // namespace tpcost::cli
