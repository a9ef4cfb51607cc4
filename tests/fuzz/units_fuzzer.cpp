// libFuzzer target: the human-input parsers (quantities, dtypes, counts, degree lists) must
// accept or reject any text with a parse_error, and what they accept must be finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tpcost/base/degree_list.hpp"
#include "tpcost/base/parse.hpp"

namespace {
template <class F>
void accept_or_reject(F&& parse) {
  try {
    const double v = parse();
    if (!std::isfinite(v)) {
      std::abort();  // a parser accepted a value that is not finite
    }
  } catch (const tpcost::parse_error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  accept_or_reject([&] { return tpcost::parse_bandwidth(text, "f").value(); });
  accept_or_reject([&] { return tpcost::parse_flop_rate(text, "f").value(); });
  accept_or_reject([&] { return tpcost::parse_bytes(text, "f").value(); });
  accept_or_reject([&] { return tpcost::parse_duration(text, "f").value(); });
  accept_or_reject([&] { return static_cast<double>(tpcost::parse_dtype(text, "f").size_bytes); });
  accept_or_reject([&] { return static_cast<double>(tpcost::parse_count(text, "f")); });
  accept_or_reject([&] {
    const auto list = tpcost::parse_degree_list(text, "f");
    if (list.empty() || list.size() > tpcost::max_degree_count || list.front() < 1) {
      std::abort();  // a list that parse_degree_list promises never to return
    }
    return static_cast<double>(list.back());
  });
  return 0;
}
