// `tpcost hardware list` and `tpcost hardware show NAME`: the presets and their sources.
#include <memory>
#include <string>

#include "commands/commands.hpp"
#include "options/cli_options.hpp"
#include "render/render.hpp"
#include "render/render_hardware.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/hardware/presets.hpp"

namespace tpcost::cli {

namespace {

struct hardware_options {
  output_flags output;
  std::string name;
};

void run_hardware_list(const hardware_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json");
  emit(opts.output, render_hardware_list(format));
}

void run_hardware_show(const hardware_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json");
  if (const auto* gpu = find_gpu_preset(opts.name)) {
    emit(opts.output, render_gpu_preset(*gpu, format));
  } else if (const auto* net = find_interconnect_preset(opts.name)) {
    emit(opts.output, render_interconnect_preset(*net, format));
  } else {
    throw invalid_spec("hardware show", quote_value(opts.name) +
                                            " is not a GPU or interconnect preset; " +
                                            preset_suggestion(opts.name) +
                                            " ('tpcost hardware list' shows them all)");
  }
}

}  // namespace

void add_hardware_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("hardware",
                                 "GPU and interconnect presets, with the source of every number");
  cmd->require_subcommand(1);

  auto list_opts = std::make_shared<hardware_options>();
  auto* list = cmd->add_subcommand("list", "One row per preset: peak bf16, memory, links");
  add_output_flags(*list, list_opts->output, "table|json");
  list->callback([list_opts] { run_hardware_list(*list_opts); });

  auto show_opts = std::make_shared<hardware_options>();
  auto* show = cmd->add_subcommand("show", "Every field of one preset, with unit and source");
  show->add_option("name", show_opts->name,
                   "a preset name or alias, any case: h100, H100-SXM5-80GB, mi300x, ndr, ...")
      ->type_name(hardware_choices())
      ->required();
  add_output_flags(*show, show_opts->output, "table|json");
  show->callback([show_opts] { run_hardware_show(*show_opts); });

  cmd->footer(R"(Examples:
  tpcost hardware list
  tpcost hardware show h100              # aliases and case do not matter
  tpcost hardware show ndr --format json
)");
}

}  // namespace tpcost::cli
