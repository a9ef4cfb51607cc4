// What tpcost says when the command line itself is wrong or empty: did-you-mean for a
// mistyped command or flag, the short usage of a bare `tpcost`, and `tpcost help [COMMAND]`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace tpcost::cli {

/// "unknown command 'swep'; did you mean 'sweep'? ('tpcost help' lists the commands)".
std::string unknown_command_message(std::string_view word,
                                    const std::vector<std::string_view>& commands);

/// The message for arguments the parser did not expect: the first of `unexpected` in command
/// line order, named with the closest flag of the command that was being parsed, e.g.
/// "sweep: unknown flag '--global-bach'; did you mean '--global-batch'? (see tpcost sweep
/// --help)". `argv` is the whole command line; `app` the parsed root.
std::string unexpected_arguments_message(const CLI::App& app, const std::vector<std::string>& argv,
                                         const std::vector<std::string>& unexpected);

/// The deepest subcommand of `app` named by `path` ("model", "show"); `app` itself for none.
/// Returns nullptr when a name is not a subcommand, and sets `unknown` to it.
const CLI::App* find_command(const CLI::App& app, const std::vector<std::string>& path,
                             std::string& unknown);

/// The short usage of a bare `tpcost`: one line of synopsis, then one line per visible command.
std::string short_usage(const CLI::App& app);

}  // namespace tpcost::cli
