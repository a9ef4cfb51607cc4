// The command line as data, read from the CLI::App tree itself: subcommands, their flags,
// value types and help texts. Completion scripts and the man page are made from it, so they
// cannot drift from what the parser accepts.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tpcost::cli {

struct option_info {
  std::vector<std::string> names;  ///< as typed: "-b", "--batch"
  bool takes_value = false;
  bool positional = false;
  std::string positional_name;       ///< "shell"
  std::string value_name;            ///< the help's type: "TEXT", "FILE", "{auto,always,never}"
  std::vector<std::string> choices;  ///< from a type "{a,b,c}"
  bool is_file = false;              ///< the type is FILE
  std::string description;
  std::string default_value;
  std::string group;  ///< the help's heading: "Options", "Layer and hardware (the seed's symbols)"
};

struct command_info {
  std::string name;  ///< "tpcost", "sweep"
  std::string description;
  std::string footer;
  bool hidden = false;
  std::vector<option_info> options;  ///< flags and options, option groups flattened, in order
  std::vector<option_info> positionals;
  std::vector<command_info> subcommands;
};

/// Walks `app`: its options (and those of its option groups) and its named subcommands.
/// Hidden options are left out; hidden subcommands are kept with `hidden` set.
command_info describe(const CLI::App& app);

/// The visible subcommands of `cmd`.
std::vector<const command_info*> visible_subcommands(const command_info& cmd);

}  // namespace tpcost::cli
