// One function per subcommand: it registers the subcommand's flags and its run callback.
#pragma once

#include <CLI/CLI.hpp>

namespace tpcost::cli {

void add_sweep_command(CLI::App& app);
void add_explain_command(CLI::App& app);
/// `check` sets `exit_code` (0 pass, 1 a rule failed, 2 an input was invalid).
void add_check_command(CLI::App& app, int& exit_code);
void add_schema_command(CLI::App& app);
void add_model_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_hardware_command(CLI::App& app);
void add_collective_command(CLI::App& app);
/// `step` sets `exit_code` to 1 when --require-fit is given and the layout does not fit.
void add_step_command(CLI::App& app, int& exit_code);
void add_plan_command(CLI::App& app);
void add_convert_command(CLI::App& app);
/// Hidden `tpcost completion bash|zsh|fish`: a completion script made from the app's own
/// subcommands and flags. Register after every other command.
void add_completion_command(CLI::App& app);
/// Hidden `tpcost manpage`: the man page (roff) made from the same definitions.
void add_manpage_command(CLI::App& app);

}  // namespace tpcost::cli
