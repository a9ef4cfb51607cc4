// Config files: one JSON document holds what a command needs. Every key maps to a flag of the
// same meaning (e.g. /hardware/bandwidth is --bandwidth), so a config is just another source of
// flag values: flags on the command line win over the file, the file wins over the defaults.
// The registry of keys below drives the loader, the JSON Schema and --print-config alike.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/flag_registry.hpp"
#include "tpcost/base/error.hpp"

namespace tpcost::cli {

/// One key of the config format.
struct config_key {
  std::string_view pointer;  ///< JSON pointer, e.g. "/hardware/bandwidth"
  std::string_view flag;     ///< the flag it sets, e.g. "--bandwidth"; empty if none
  value_kind kind;
  std::string_view help;     ///< one line for the schema's description
  std::string_view choices;  ///< value_kind::choice: the values, '|'-separated
};

/// Every key the config format accepts.
std::span<const config_key> config_keys();

/// A value read from a config, as the text its flag would take.
struct config_entry {
  const config_key* key;
  std::string text;
  /// Where a reader of another format found the value ("train.sh:42: --micro-batch-size");
  /// empty for tpcost's own JSON, whose errors name the file and the JSON pointer.
  std::string origin = {};
};

/// A loaded and validated config document.
struct config_document {
  std::string source;  ///< the file name as given ("-" for stdin)
  std::string name;    ///< the optional top-level "name"
  std::vector<config_entry> entries;
  /// A global batch the file fixes only with its DP degree, which comes from the GPU count:
  /// torchtitan's local_batch_size x DP. The sequences per DP rank (0: none) and their origin.
  std::int64_t batch_per_rank = 0;
  std::string batch_per_rank_origin;
  /// A global batch the file states while its DP degree comes from the GPU count: torchtitan
  /// asserts it is a multiple of local_batch_size x DP, checked once --gpus fixes DP. The
  /// sequences per DP rank (0: no such rule) and what they are in the file's keys
  /// ("training.local_batch_size").
  std::int64_t global_per_rank = 0;
  std::string global_per_rank_what;

  /// The entry for `pointer`, or nullptr.
  [[nodiscard]] const config_entry* find(std::string_view pointer) const;
};

/// A config is invalid: `field()` is "FILE: /json/pointer" (or "FILE:line:column" for syntax).
class config_error : public invalid_spec {
 public:
  using invalid_spec::invalid_spec;
};

/// The largest config file accepted; real configs are a few kilobytes.
inline constexpr std::size_t max_config_bytes = std::size_t{1} << 20;
/// The deepest nesting accepted; the format itself is two levels deep.
inline constexpr int max_config_depth = 16;

/// Parses and validates a config from text; throws config_error naming `source` and a pointer.
config_document parse_config(std::string_view text, const std::string& source);

/// The text of FILE ("-" for stdin), at most max_config_bytes; throws config_error.
std::string read_config_text(const std::string& path);

/// Reads FILE ("-" for stdin) and parses it; throws config_error on I/O or content errors.
config_document load_config(const std::string& path);

/// Every key as a Markdown table (key, flag, value, meaning), for docs/config.md.
std::string config_key_table();

/// The JSON Schema (draft 2020-12) of the config format, generated from config_keys().
std::string config_schema();

}  // namespace tpcost::cli
