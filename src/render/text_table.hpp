// Plain-text tables with per-column alignment, for the commands whose tables mix names
// (left-aligned) and numbers (right-aligned), and the small words the text renderers share.
// Cells are ASCII.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "tpcost/base/units.hpp"

namespace tpcost::cli {

enum class align { left, right };

/// Columns separated by two spaces; the first row is usually the header. A row shorter
/// than `aligns` is padded with empty cells; trailing blanks are trimmed.
inline std::string layout_columns(const std::vector<std::vector<std::string>>& rows,
                                  const std::vector<align>& aligns,
                                  const std::string& indent = "") {
  std::vector<std::size_t> widths(aligns.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : std::string();
      if (c > 0) {
        line += "  ";
      }
      line += aligns[c] == align::left ? fmt::format("{:<{}}", cell, widths[c])
                                       : fmt::format("{:>{}}", cell, widths[c]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

/// The sweep and collective tables: right-aligned columns separated by two spaces, or markdown
/// (pipes and an alignment row); the columns listed in `left` are left-aligned. Unlike
/// layout_columns it pads every cell, the last one included, and writes markdown.
using text_table = std::vector<std::vector<std::string>>;  // first row is the header
std::string aligned_table(const text_table& table, bool markdown,
                          std::vector<std::size_t> left = {});

/// "1 rank", "8 ranks".
std::string plural(std::int64_t n, std::string_view one, std::string_view many);

/// A size in GiB to one decimal: "79.6 GiB".
std::string gib(bytes v);

/// A fraction as a signed percentage to `decimals` places: "+1.3%", "-0.25%".
std::string signed_percent(double fraction, int decimals);

}  // namespace tpcost::cli
