// `tpcost convert`: the tpcost config a third-party training config maps to, so that the
// mapping can be read, reviewed and committed.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "formats/load.hpp"
#include "options/cli_options.hpp"
#include "options/config_overlay.hpp"
#include "options/flag_options.hpp"
#include "output/emit.hpp"

namespace tpcost::cli {

namespace {

struct convert_flags {
  std::vector<std::string> files;
  std::vector<std::string> set;
  bool strict = false;
  bool quiet = false;
  output_flags output;
};

void run_convert(const convert_flags& f) {
  const formats::read_options opts{formats::parse_set(f.set), f.strict};
  std::vector<formats::loaded_file> files;
  for (const auto& path : f.files) {
    files.push_back(formats::load_any(path, opts));
    // Held until every file is read and merged (emit.hpp): a later error is one line alone.
    formats::print_notes(files.back(), held_notes(), !f.quiet, true);
  }
  emit(f.output, document_json(formats::merge(files))
                         .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                     "\n");
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto f = std::make_shared<convert_flags>();
  auto* cmd = app.add_subcommand(
      "convert",
      "Print the tpcost config a Megatron-LM, Megatron-Bridge, torchtitan or DeepSpeed "
      "config maps to");
  cmd->add_option("files", f->files,
                  "the configs to read, merged into one (e.g. a DeepSpeed JSON and the model's "
                  "HF config.json)")
      ->required();
  add_reader_flags(*cmd, f->set, f->strict);
  add_flag(*cmd, "--quiet", f->quiet);
  add_output_flags(*cmd, f->output, "json");
  cmd->footer(R"(The formats, detected by content (docs/formats.md):
  Megatron-LM launch script or argument file   (--tensor-model-parallel-size 8 ...)
  Megatron-LM training log                      (its '---- arguments ----' block)
  Megatron-Bridge / NeMo 2 ConfigContainer YAML (model:, train:, ddp:, mixed_precision: ...)
  torchtitan job config TOML                    ([parallelism], [training], [model])
  DeepSpeed ds_config.json                      (train_batch_size, zero_optimization ...)
  Hugging Face config.json                      (the model, given with one of the above)
Warnings (values tpcost reads but cannot model) and the ignored arguments go to stderr.

Examples:
  tpcost convert train_gpt3_175b_distributed.sh --set NUM_NODES=16 > gpt3.json
  tpcost convert ds_config.json config.json
  tpcost check gpt3.json     # the same evaluation as checking the script itself
)");
  cmd->callback([f] { run_convert(*f); });
}

}  // namespace tpcost::cli
