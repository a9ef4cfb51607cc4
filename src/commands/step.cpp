// `tpcost step`: one whole training step across TP x PP x DP, from a model, a GPU, an
// interconnect and a layout.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "commands/commands.hpp"
#include "commands/step_flags.hpp"
#include "options/cli_options.hpp"
#include "options/config_overlay.hpp"
#include "options/flag_options.hpp"
#include "output/exit_codes.hpp"
#include "render/render_csv.hpp"
#include "render/render_step.hpp"
#include "report/error_band.hpp"

namespace tpcost::cli {

namespace {

struct step_command_flags {
  step_flags step;
  bool require_fit = false;
  bool quiet = false;
  std::string error_band;  ///< --error-band FILE
  output_flags output;
  config_flags config;
};

/// 1 when the layout does not fit and --require-fit asked that it must.
int run_step(const step_command_flags& f) {
  const auto format = parse_output_format(f.output.format, "table|json|csv");
  use_error_band_file(f.error_band);
  const auto report = evaluate_step_flags(f.step);
  const bool quiet = f.quiet && format == output_format::table;
  if (format == output_format::csv || quiet) {
    note_assumption(report.hardware.assumption);  // the report's first line says it
  }
  if (quiet) {  // the report's first line otherwise
    note_misfit(report.result.memory);
  }
  emit(f.output, format == output_format::csv ? step_csv(report, true)
                 : quiet                      ? step_breakdown_table(report)
                                              : render_step(report, format));
  return f.require_fit && !report.result.memory.fits() ? exit_check_failed : exit_success;
}

}  // namespace

void add_step_command(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<step_command_flags>();
  auto* cmd = app.add_subcommand(
      "step", "One whole training step across TP x PP x CP x DP: time, breakdown, MFU, memory");
  add_step_flags(*cmd, f->step);
  add_output_flags(*cmd, f->output, "table|json|csv");
  add_flag(*cmd, "--quiet", f->quiet);
  add_flag(*cmd, "--require-fit", f->require_fit);
  add_error_band_flag(*cmd, f->error_band);
  cmd->footer(R"(Examples:
  tpcost step --model gpt3-175b --gpu a100-sxm4-80gb --interconnect ib-hdr --gpus 1024 \
              --tp 8 --pp 16 --micro-batch 1 --global-batch 1536 --recompute full
  tpcost step --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 512 --tp 8 \
              --pp 4 --global-batch 1024 --sp --recompute selective --format json
  tpcost step --model llama-3.1-405b --gpu h100-sxm --interconnect ib-ndr --gpus 2048 --tp 8 \
              --pp 16 --pp-layout first=7,last=7 --global-batch 2048 --sp --zero 1 --require-fit
  tpcost step ... --pp 16 --pp-layout 'Et*7|(t*8|)*14t*7L'    (Megatron-Core's layout string)
  tpcost step --model llama-3.1-405b --gpu h100-sxm --interconnect ib-ndr --gpus 16384 --tp 8 \
              --pp 16 --cp 16 --seq 131072 --global-batch 128 --sp --recompute full --zero 1 \
              --precision fp8    (Llama 3's long-context stage, FP8 linear layers)
)");
  add_config_flags(*cmd, f->config);
  cmd->callback([cmd, f, &exit_code] {
    run_with_config(*cmd, f->config, [&] { exit_code = run_step(*f); });
  });
}

}  // namespace tpcost::cli
