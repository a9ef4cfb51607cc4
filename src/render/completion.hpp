// Shell completion scripts for bash, zsh and fish, made from the command line's own
// definition (cli_model.hpp): every visible subcommand and flag, choices such as
// {table,json,csv,markdown}, and file names for FILE values.
#pragma once

#include <string>
#include <string_view>

#include "render/cli_model.hpp"

namespace tpcost::cli {

enum class shell { bash, zsh, fish };

/// Reads "bash", "zsh" or "fish"; throws invalid_spec naming `field` otherwise.
shell parse_shell(std::string_view name, const std::string& field);

/// The completion script for `root` (whose name is the program's) in `sh`'s language.
std::string completion_script(const command_info& root, shell sh);

}  // namespace tpcost::cli
