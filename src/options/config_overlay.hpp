// Applies a config document to a subcommand's flags: the command line wins, then the file,
// then the flag's default. Works for any flag named in the config registry, so a new flag
// becomes configurable by adding one line to config.cpp.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "formats/config.hpp"

namespace tpcost::cli {

/// --config FILE and --print-config, shared by every subcommand that computes.
struct config_flags {
  std::string path;
  std::vector<std::string> from;  ///< --from: configs of other frameworks (or tpcost's)
  std::vector<std::string> set;   ///< --set VAR=VALUE for a launch script's variables
  bool strict = false;
  bool print = false;
};

/// Adds --set VAR=VALUE and --strict, the options of the readers of other formats.
void add_reader_flags(CLI::App& cmd, std::vector<std::string>& set, bool& strict);

void add_config_flags(CLI::App& cmd, config_flags& flags);

class config_overlay {
 public:
  /// Remembers which flags of `cmd` were given on the command line.
  explicit config_overlay(CLI::App& cmd);

  /// Resets every configurable flag not given on the command line to its default, then sets
  /// those the document has. Can be called once per document (check runs several).
  void apply(const config_document& doc);

  /// The effective values as a config document (what --print-config prints).
  [[nodiscard]] nlohmann::json merged(const config_document* doc) const;

  /// If `e` is about a flag whose value came from the file, the same error naming the file and
  /// the JSON pointer instead; otherwise nullopt.
  [[nodiscard]] std::optional<invalid_spec> attributed(const invalid_spec& e) const;

 private:
  /// --global-batch from the file's sequences per DP rank and the DP degree the flags give.
  void derive_global_batch(const config_document& doc);

  CLI::App& cmd_;
  std::set<std::string> from_command_line_;
  std::map<std::string, std::string>
      field_by_flag_;  // "--bandwidth" -> "a.json: /hardware/bandwidth"
};

/// The document as tpcost's JSON config format writes it (what `tpcost convert` prints).
[[nodiscard]] nlohmann::json document_json(const config_document& doc);

/// Sets on `to` every option given on `from`'s command line that `to` has under the same name,
/// as if it had been given to `to`. Call it before a config is applied to `from` (a value from
/// a file also counts as given). `check` uses it to hand its command line to the step it reads.
void copy_command_line(const CLI::App& from, CLI::App& to);

/// Loads --config (if any) into `cmd`'s flags, prints the merged config if --print-config,
/// else calls `run`, re-labelling errors about values that came from the file.
void run_with_config(CLI::App& cmd, const config_flags& flags, const std::function<void()>& run);

}  // namespace tpcost::cli
