#include "render/text_table.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace tpcost::cli {

std::string aligned_table(const text_table& table, bool markdown, std::vector<std::size_t> left) {
  std::vector<std::size_t> widths(table.front().size(), 0);
  for (const auto& row : table) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  std::string out;
  for (std::size_t r = 0; r < table.size(); ++r) {
    for (std::size_t c = 0; c < table[r].size(); ++c) {
      const bool to_left = std::find(left.begin(), left.end(), c) != left.end();
      if (markdown) {
        out += to_left ? fmt::format("| {:<{}} ", table[r][c], widths[c])
                       : fmt::format("| {:>{}} ", table[r][c], widths[c]);
      } else {
        out += fmt::format("{}", c == 0 ? "" : "  ");
        out += to_left ? fmt::format("{:<{}}", table[r][c], widths[c])
                       : fmt::format("{:>{}}", table[r][c], widths[c]);
      }
    }
    out += markdown ? "|\n" : "\n";
    if (markdown && r == 0) {
      for (std::size_t c = 0; c < widths.size(); ++c) {
        const bool to_left = std::find(left.begin(), left.end(), c) != left.end();
        out += to_left ? fmt::format("| :{:-<{}} ", "", widths[c] - 1)
                       : fmt::format("| {:->{}}: ", "", widths[c] - 1);
      }
      out += "|\n";
    }
  }
  return out;
}

std::string plural(std::int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string gib(bytes v) { return fmt::format("{:.1f} GiB", v / units::GiB); }

std::string signed_percent(double fraction, int decimals) {
  return fmt::format("{:+.{}f}%", fraction * 100.0, decimals);
}

}  // namespace tpcost::cli
