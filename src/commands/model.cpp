// `tpcost model list` and `tpcost model show`: the model presets, and one model's dimensions,
// parameter counts and FLOPs per token.
#include <memory>

#include "commands/commands.hpp"
#include "options/cli_options.hpp"
#include "options/model_options.hpp"
#include "render/render_csv.hpp"
#include "render/render_model.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/model_presets.hpp"

namespace tpcost::cli {

namespace {

struct model_list_options {
  output_flags output;
};

struct model_show_options {
  model_flags model;
  output_flags output;
};

void run_model_list(const model_list_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json|csv");
  emit(opts.output,
       format == output_format::csv ? model_list_csv(true) : render_model_list(format));
}

void run_model_show(const model_show_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json");
  model_report report;
  report.model = to_model(opts.model, /*context_window_as_seq=*/true);
  report.params = count_params(report.model.spec);
  report.flops = summarize_flops(report.model.spec, report.model.spec.seq);
  if (report.model.preset != nullptr) {
    report.relative_to_published = relative_to_published(*report.model.preset);
  }
  emit(opts.output, render_model_show(report, format));
}

}  // namespace

void add_model_command(CLI::App& app) {
  auto* model = app.add_subcommand("model", "Model presets and one model's parameters and FLOPs");
  model->require_subcommand(1);

  auto list_opts = std::make_shared<model_list_options>();
  auto* list = model->add_subcommand(
      "list", "The model presets: dimensions, counted vs published parameters, sources");
  add_output_flags(*list, list_opts->output, "table|json|csv");
  list->callback([list_opts] { run_model_list(*list_opts); });

  auto show_opts = std::make_shared<model_show_options>();
  auto* show = model->add_subcommand(
      "show", "One model: dimensions, parameters by part, FLOPs per token at --seq");
  add_model_flags(*show, show_opts->model, true);
  add_output_flags(*show, show_opts->output, "table|json");
  show->footer(R"(Examples:
  tpcost model show llama-3-8b
  tpcost model show gpt-3-175b --seq 8192          # FLOPs per token at a longer sequence
  tpcost model show --hf-config examples/hf/llama-3-8b.json --format json
  tpcost model show --layers 24 --hidden 2048 --heads 16 --vocab 50304 --seq 2048
  tpcost model show llama-3-70b --kv-heads 64      # the same model without GQA
)");
  show->callback([show_opts] { run_model_show(*show_opts); });
}

}  // namespace tpcost::cli
