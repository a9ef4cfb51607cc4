// Human-readable quantities for text output: "134.2 MB", "19.79 TFLOP", "600 GB/s", "1.2 ms".
// Decimal prefixes throughout, as the inputs use them (see units.hpp).
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "tpcost/base/units.hpp"

namespace tpcost::io {

namespace detail {
/// `value` scaled to the largest decimal prefix that leaves it >= 1, with 4 significant digits.
inline std::string with_decimal_prefix(double value, std::string_view unit) {
  static constexpr std::array<std::string_view, 7> prefixes{"", "k", "M", "G", "T", "P", "E"};
  std::size_t i = 0;
  double scaled = value;
  while (i + 1 < prefixes.size() && std::fabs(scaled) >= 1000.0) {
    scaled /= 1000.0;
    ++i;
  }
  return fmt::format("{:.4g} {}{}", scaled, prefixes[i], unit);
}
}  // namespace detail

inline std::string to_string(bytes v) { return detail::with_decimal_prefix(v.value(), "B"); }
inline std::string to_string(flops v) { return detail::with_decimal_prefix(v.value(), "FLOP"); }
inline std::string to_string(bytes_per_second v) {
  return detail::with_decimal_prefix(v.value(), "B/s");
}
inline std::string to_string(flops_per_second v) {
  return detail::with_decimal_prefix(v.value(), "FLOP/s");
}

/// A duration in ms with 3 decimals, the seed's table convention ("19.791 ms").
inline std::string to_ms(seconds v) { return fmt::format("{:.3f} ms", v.value() * 1e3); }

/// A duration with a readable unit: "13.7 us", "1.234 ms", "2.5 s".
inline std::string to_string(seconds v) {
  const double s = v.value();
  if (std::fabs(s) >= 1.0) {
    return fmt::format("{:.4g} s", s);
  }
  if (std::fabs(s) >= 1e-3) {
    return fmt::format("{:.4g} ms", s * 1e3);
  }
  if (std::fabs(s) >= 1e-6) {
    return fmt::format("{:.4g} us", s * 1e6);
  }
  return fmt::format("{:.4g} ns", s * 1e9);
}

/// A fraction as a percentage with one decimal, the seed's convention ("73.4%").
inline std::string percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100.0); }

}  // namespace tpcost::io
