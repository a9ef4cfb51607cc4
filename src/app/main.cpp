// tpcost: registers the subcommands, parses, and maps errors to documented exit codes
// (exit_codes.hpp): 0 success, 1 a check failed, 2 invalid input or usage, 3 an output file
// could not be written, 4 internal error, 5 a program tpcost runs (gnuplot) is missing or failed.
//
// Start-up counts in scripts that call tpcost thousands of times, so only the command named
// by argv[1] is registered (building every command's flags costs more than running one);
// help, completions and the man page, which describe them all, register them all.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/flag_guards.hpp"
#include "app/usage.hpp"
#include "charts/plot.hpp"
#include "commands/commands.hpp"
#include "options/cli_options.hpp"
#include "options/flag_options.hpp"
#include "output/emit.hpp"
#include "output/exit_codes.hpp"
#include "output/output_safe.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/version.hpp"

namespace {

using tpcost::cli::exit_internal_error;
using tpcost::cli::exit_invalid_input;
using tpcost::cli::exit_io_error;
using tpcost::cli::exit_success;
using tpcost::cli::exit_tool_missing;

int fail(const std::string& message, int code) {
  // Invalid input is one line on stderr: the readers' warnings held until the command got past
  // validation go unsaid (emit.hpp). Another failure (an unwritable output) keeps them.
  if (code == exit_invalid_input) {
    tpcost::cli::drop_notes();
  } else {
    tpcost::cli::release_notes();
  }
  // One line, whatever the message quotes: no newline, ESC or "::" workflow command gets out.
  std::cerr << "tpcost: error: " << tpcost::cli::output_safe(message) << '\n';
  return code;
}

struct command {
  std::string_view name;
  void (*add)(CLI::App&, int& exit_code);
  bool needs_all = false;  ///< generated from every other command: register them all first
};

namespace cmd = tpcost::cli;

// In --help order. The generators come last: they describe what is registered before.
constexpr std::array<command, 13> commands{{
    {"sweep", [](CLI::App& a, int&) { cmd::add_sweep_command(a); }},
    {"explain", [](CLI::App& a, int&) { cmd::add_explain_command(a); }},
    {"check", [](CLI::App& a, int& rc) { cmd::add_check_command(a, rc); }},
    {"schema", [](CLI::App& a, int&) { cmd::add_schema_command(a); }},
    {"model", [](CLI::App& a, int&) { cmd::add_model_command(a); }},
    {"calibrate", [](CLI::App& a, int&) { cmd::add_calibrate_command(a); }},
    {"hardware", [](CLI::App& a, int&) { cmd::add_hardware_command(a); }},
    {"collective", [](CLI::App& a, int&) { cmd::add_collective_command(a); }},
    {"step", [](CLI::App& a, int& rc) { cmd::add_step_command(a, rc); }},
    {"plan", [](CLI::App& a, int&) { cmd::add_plan_command(a); }},
    {"convert", [](CLI::App& a, int&) { cmd::add_convert_command(a); }},
    {"completion", [](CLI::App& a, int&) { cmd::add_completion_command(a); }, true},
    {"manpage", [](CLI::App& a, int&) { cmd::add_manpage_command(a); }, true},
}};

const command* command_named(std::string_view name) {
  const auto it = std::find_if(commands.begin(), commands.end(),
                               [&](const command& c) { return c.name == name; });
  return it == commands.end() ? nullptr : &*it;
}

std::vector<std::string_view> command_names() {
  std::vector<std::string_view> out;
  out.reserve(commands.size());
  for (const auto& c : commands) {
    out.push_back(c.name);
  }
  return out;
}

/// Parses and runs one command on `app`; returns the exit code.
int run(CLI::App& app, int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  app.set_version_flag("--version", TPCOST_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Run 'tpcost help <command>' or 'tpcost <command> --help' for a command's flags and "
      "examples.\n" +
      tpcost::cli::exit_codes_summary() + "\n");
  int exit_code = 0;
  const auto register_all = [&] {
    for (const auto& c : commands) {
      c.add(app, exit_code);
    }
    tpcost::cli::name_flag_values(app);  // the usage, completion and manpage show them
  };

  try {
    const std::string first = args.empty() ? std::string() : args.front();
    if (args.empty()) {
      // As ripgrep does: the short usage on stderr, and the exit code of a usage error, so that
      // a script whose command word expanded to nothing fails.
      register_all();
      std::cerr << tpcost::cli::short_usage(app);
      return exit_invalid_input;
    }
    if (first == "help") {  // tpcost help [COMMAND [SUBCOMMAND]]
      const std::vector<std::string> path(args.begin() + 1, args.end());
      const auto* named = path.empty() ? nullptr : command_named(path.front());
      if (!path.empty() && named == nullptr) {
        return fail(tpcost::cli::unknown_command_message(path.front(), command_names()),
                    exit_invalid_input);
      }
      if (named == nullptr || named->needs_all) {
        register_all();
      } else {
        named->add(app, exit_code);
      }
      std::string unknown;
      const auto* target = tpcost::cli::find_command(app, path, unknown);
      if (target == nullptr) {
        return fail("help: '" + unknown + "' is not a subcommand of '" + path.front() + "'",
                    exit_invalid_input);
      }
      tpcost::cli::name_flag_values(app);
      std::cout << target->help();
      return exit_success;
    }
    const auto* named = command_named(first);
    if (named != nullptr && !named->needs_all) {
      named->add(app, exit_code);
    } else if (first == "--version") {
      // Nothing to register.
    } else if (named == nullptr && first.front() != '-') {
      return fail(tpcost::cli::unknown_command_message(first, command_names()), exit_invalid_input);
    } else {
      register_all();
    }
    tpcost::cli::guard_path_flags(app);
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    tpcost::cli::name_flag_values(app);  // only now: a run that prints no help pays nothing
    return app.exit(e);                  // --help, --version
  } catch (const CLI::ExtrasError&) {
    return fail(tpcost::cli::unexpected_arguments_message(app, args, app.remaining(true)),
                exit_invalid_input);
  } catch (const CLI::RequiredError& e) {
    // "A subcommand is required" when the word that should have been one was mistyped.
    const auto unexpected = app.remaining(true);
    return fail(unexpected.empty()
                    ? std::string(e.what()) + " (see --help)"
                    : tpcost::cli::unexpected_arguments_message(app, args, unexpected),
                exit_invalid_input);
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

/// Ends the process with `code` once the output is flushed, without tearing down the option
/// tree and the static tables: freeing them was an eighth of the instructions of `tpcost sweep`
/// (bench/startup_callgrind.sh), for scripts that call the tool thousands of times. Every file
/// the command wrote is closed by then (output_file.hpp renames it into place). Under a
/// sanitizer the process exits normally, so that LeakSanitizer still checks it.
[[nodiscard]] int finish(int code) {
  tpcost::cli::release_notes();  // a run that emitted nothing still says what it read
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  std::cout.flush();
  std::cerr.flush();
  (void)std::fflush(nullptr);  // as exit() would: a failed flush keeps the code
  std::_Exit(code);
#else
  return code;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  int code = exit_internal_error;
  {
    CLI::App app{"tpcost: communication overhead of tensor parallelism in transformer training",
                 "tpcost"};
    code = finish(run(app, argc, argv));
  }
  return code;
}
