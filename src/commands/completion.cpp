// `tpcost completion bash|zsh|fish` and `tpcost manpage`: documents generated from the app's
// own definition at the moment they run, so they list every command registered.
#include <memory>

#include "commands/commands.hpp"
#include "options/cli_options.hpp"
#include "options/flag_options.hpp"
#include "render/cli_model.hpp"
#include "render/completion.hpp"
#include "render/manpage.hpp"

namespace tpcost::cli {

namespace {

struct completion_options {
  std::string shell;
  output_flags output;
};

const CLI::App& root_of(const CLI::App& cmd) {
  const CLI::App* app = &cmd;
  while (app->get_parent() != nullptr) {
    app = app->get_parent();
  }
  return *app;
}

}  // namespace

void add_completion_command(CLI::App& app) {
  auto opts = std::make_shared<completion_options>();
  auto* cmd = app.add_subcommand(
      "completion", "Print a completion script for bash, zsh or fish, made from tpcost's flags");
  cmd->add_option("shell", opts->shell, "the shell: bash, zsh or fish")
      ->type_name("{bash,zsh,fish}")
      ->required();
  add_flag(*cmd, "--output", opts->output.output);
  cmd->callback([opts, cmd] {
    const auto sh = parse_shell(opts->shell, "shell");
    emit(opts->output, completion_script(describe(root_of(*cmd)), sh));
  });
}

void add_manpage_command(CLI::App& app) {
  auto opts = std::make_shared<output_flags>();
  auto* cmd = app.add_subcommand("manpage", "Print the man page tpcost(1) in roff");
  add_flag(*cmd, "--output", opts->output);
  cmd->callback([opts, cmd] { emit(*opts, manpage(describe(root_of(*cmd)))); });
}

}  // namespace tpcost::cli
