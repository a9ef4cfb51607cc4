// Reads any training config tpcost understands, detected by its content: tpcost's own JSON, a
// Megatron-LM launch script or training log, a Megatron-Bridge/NeMo YAML, a torchtitan TOML, a
// DeepSpeed JSON, or a Hugging Face config.json (the model only). Every format becomes the same
// config_document, whose entries remember where in the user's file each value came from.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "formats/config.hpp"
#include "formats/reading.hpp"

namespace tpcost::cli::formats {

struct loaded_file {
  reading read;
  config_document doc;
};

/// The format of `text`, by content (the file name only breaks ties).
source_format detect_format(const std::string& text, const std::string& path);

/// Reads and maps FILE ("-" for stdin). Throws config_error naming file:line for what cannot be
/// read, and for what tpcost cannot cost at all (a mixture-of-experts model).
loaded_file load_any(const std::string& path, const read_options& opts);

/// One document from several files (a launch script and the HF config.json of its model): an
/// HF config supplies /model/hf_config; any other value given twice must agree.
config_document merge(const std::vector<loaded_file>& files);

/// The most warning lines print_notes writes for one file (identical ones count once); the
/// rest are counted in one line.
inline constexpr std::size_t max_warning_lines = 20;
/// The most ignored keys or flags its note names; the rest are counted.
inline constexpr std::size_t max_ignored_named = 20;

/// "tpcost: warning: FILE:LINE: KEY: ..." for each warning; with `ignored`, also one line per
/// file listing what had no effect.
/// Prints the warnings; the ignored values if `ignored`; what the file lacks if `missing`
/// (convert: check and step name it in their own error, once, where it is needed).
/// `seen`, if given, holds the warnings already printed: a file given twice (--config and --from)
/// warns once.
void print_notes(const loaded_file& file, std::ostream& out, bool ignored, bool missing = false,
                 std::set<std::string>* seen = nullptr);

/// Parses "--set VAR=VALUE" values into a map; throws invalid_spec naming --set.
std::map<std::string, std::string> parse_set(const std::vector<std::string>& assignments);

}  // namespace tpcost::cli::formats
