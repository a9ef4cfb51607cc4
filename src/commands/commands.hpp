// One function per subcommand: it registers the subcommand's flags and its run callback.
#pragma once

#include <CLI/CLI.hpp>

namespace tpcost::cli {

void add_sweep_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_collective_command(CLI::App& app);

}  // namespace tpcost::cli
