// --format, --output and --no-header: what a command writes and where.
#pragma once

#include <string>
#include <string_view>

namespace tpcost::cli {

enum class output_format { table, json, csv, markdown, junit, sarif };

/// Reads --format; `allowed` lists the names this command accepts, e.g. "table|json".
output_format parse_output_format(std::string_view text, std::string_view allowed);

struct output_flags {
  std::string format = "table";
  std::string output;      ///< empty: stdout
  bool no_header = false;  ///< --no-header: CSV without its header line
};

}  // namespace tpcost::cli
