// A command's CLI11 options, made from the flag registry (formats/flag_registry.hpp): a command
// names the flag and the variable it fills; the names, the value's name and the help come from
// the registry, so that a flag reads the same in every command that takes it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "formats/flag_registry.hpp"

namespace tpcost::cli {

/// Adds the registry's flag `name` to `app` (a command or one of its option groups), filling
/// `target`. Throws std::logic_error when the registry has no such flag, or does not list
/// `app`'s command among the flag's commands: a programming error the CLI tests catch.
CLI::Option* add_flag(CLI::App& app, std::string_view name, std::string& target);
/// A repeatable flag: each use appends a value.
CLI::Option* add_flag(CLI::App& app, std::string_view name, std::vector<std::string>& target);
/// A switch (value_kind::boolean).
CLI::Option* add_flag(CLI::App& app, std::string_view name, bool& target);

/// Names every registered option's value as the registry does ("N", "BANDWIDTH", the presets'
/// names), in `app` and its subcommands. Only --help, the completions and the man page show the
/// names, so a run that prints none of them skips this.
void name_flag_values(CLI::App& app);

/// The registry's entry for `name` on `app`'s command (as add_flag checks it).
const flag_spec& registered_flag(const CLI::App& app, std::string_view name);

}  // namespace tpcost::cli
