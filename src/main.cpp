// tpcost: registers the subcommands, parses, and maps errors to documented exit codes
// (exit_codes.hpp): 0 success, 1 a check failed, 2 invalid input or usage, 3 an output file
// could not be written, 4 internal error, 5 a program tpcost runs (gnuplot) is missing or failed.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli_options.hpp"
#include "commands/commands.hpp"
#include "exit_codes.hpp"
#include "flag_guards.hpp"
#include "plot.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/version.hpp"

namespace {

using tpcost::cli::exit_internal_error;
using tpcost::cli::exit_invalid_input;
using tpcost::cli::exit_io_error;
using tpcost::cli::exit_tool_missing;

int fail(const std::string& message, int code) {
  std::cerr << "tpcost: error: " << message << '\n';
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tpcost: communication overhead of tensor parallelism in transformer training",
               "tpcost"};
  app.set_version_flag("--version", TPCOST_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'tpcost <command> --help' for a command's flags and examples.\n" +
             tpcost::cli::exit_codes_summary() + "\n");
  tpcost::cli::add_sweep_command(app);
  tpcost::cli::add_explain_command(app);
  int exit_code = 0;
  tpcost::cli::add_check_command(app, exit_code);
  tpcost::cli::add_schema_command(app);
  tpcost::cli::add_model_command(app);
  tpcost::cli::add_calibrate_command(app);
  tpcost::cli::add_hardware_command(app);
  tpcost::cli::add_collective_command(app);
  tpcost::cli::add_step_command(app);
  tpcost::cli::add_plan_command(app);
  // Hidden: generated from the commands above, so they are registered last.
  tpcost::cli::add_completion_command(app);
  tpcost::cli::add_manpage_command(app);
  tpcost::cli::guard_path_flags(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + " (see --help)", exit_invalid_input);
  } catch (const tpcost::invalid_spec& e) {
    return fail(tpcost::cli::error_message(e), exit_invalid_input);
  } catch (const tpcost::cli::io_error& e) {
    return fail(e.what(), exit_io_error);
  } catch (const tpcost::cli::tool_error& e) {
    return fail(e.what(), exit_tool_missing);
  } catch (const std::exception& e) {
    return fail(std::string("internal: ") + e.what(), exit_internal_error);
  }
  return exit_code;
}
