// One function per subcommand: it registers the subcommand's flags and its run callback.
#pragma once

#include <CLI/CLI.hpp>

namespace tpcost::cli {

void add_sweep_command(CLI::App& app);
void add_explain_command(CLI::App& app);
/// Hidden `tpcost completion bash|zsh|fish`: a completion script made from the app's own
/// subcommands and flags. Register after every other command.
void add_completion_command(CLI::App& app);
/// Hidden `tpcost manpage`: the man page (roff) made from the same definitions.
void add_manpage_command(CLI::App& app);

}  // namespace tpcost::cli
