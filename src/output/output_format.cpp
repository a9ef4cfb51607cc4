#include "output/output_format.hpp"

#include <utility>

#include <fmt/format.h>

#include "tpcost/base/error.hpp"

namespace tpcost::cli {

output_format parse_output_format(std::string_view text, std::string_view allowed) {
  static constexpr std::pair<std::string_view, output_format> names[] = {
      {"table", output_format::table}, {"json", output_format::json},
      {"csv", output_format::csv},     {"markdown", output_format::markdown},
      {"junit", output_format::junit}, {"sarif", output_format::sarif},
  };
  for (const auto& [name, format] : names) {
    if (text == name && allowed.find(name) != std::string_view::npos) {
      return format;
    }
  }
  throw invalid_spec("--format", fmt::format("'{}' is not one of {}", text, allowed));
}

}  // namespace tpcost::cli
