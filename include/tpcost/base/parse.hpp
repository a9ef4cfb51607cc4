// Reading human inputs: "600GB/s", "1PFLOP/s", "989.4T", "80GiB", "5us", "bf16", "2048".
//
// A value is a decimal number (`600`, `1.5`, `6e11`), optional spaces, then an optional unit.
// A bare number is in SI base units (bytes, FLOP/s, bytes/s, seconds). Prefixes: k/K, M, G,
// T, P, E are powers of 10 (vendors' convention: 1 GB/s = 10^9 B/s); Ki, Mi, Gi, Ti, Pi, Ei
// are powers of 2 (1 GiB = 2^30 B). In a rate, `B` is a byte and `b` or `bit` a bit, so the
// network convention "200Gb/s" reads as 25 GB/s. Every function throws `parse_error` naming
// the field, the text and what would have been accepted.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "tpcost/base/dtype.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/units.hpp"

namespace tpcost {

namespace detail {

struct unit_stem {
  std::string_view text;
  double factor;  // SI value of one unit of this stem, before the prefix
  bool case_insensitive;
};

struct prefix {
  std::string_view text;
  double factor;
};

inline constexpr std::array<prefix, 14> magnitude_prefixes{{
    {"", 1.0},
    {"k", 1e3},
    {"K", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
    {"E", 1e18},
    {"Ki", 1024.0},
    {"Mi", 1048576.0},
    {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0},
    {"Ei", 1152921504606846976.0},
}};

inline constexpr std::array<prefix, 5> time_prefixes{{
    {"", 1.0},
    {"m", 1e-3},
    {"u", 1e-6},
    {"\xC2\xB5", 1e-6},  // the micro sign, as in "5µs"
    {"n", 1e-9},
}};

inline std::string_view trim(std::string_view text) {
  constexpr std::string_view space = " \t\n\r\f\v";
  const auto first = text.find_first_not_of(space);
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(space);
  return text.substr(first, last - first + 1);
}

inline bool ends_with(std::string_view text, std::string_view stem, bool case_insensitive) {
  if (stem.size() > text.size()) {
    return false;
  }
  const auto tail = text.substr(text.size() - stem.size());
  for (std::size_t i = 0; i < stem.size(); ++i) {
    char a = tail[i];
    char b = stem[i];
    if (case_insensitive) {
      a = (a >= 'A' && a <= 'Z') ? static_cast<char>(a - 'A' + 'a') : a;
      b = (b >= 'A' && b <= 'Z') ? static_cast<char>(b - 'A' + 'a') : b;
    }
    if (a != b) {
      return false;
    }
  }
  return true;
}

[[noreturn]] inline void fail(std::string_view field, std::string_view text,
                              std::string_view what) {
  throw parse_error(std::string(field), quote_value(text) + " " + std::string(what));
}

/// Splits "600 GB/s" into 600 and "GB/s"; the number must be finite.
inline double leading_number(std::string_view field, std::string_view text, std::string_view& rest,
                             std::string_view expected) {
  const auto trimmed = trim(text);
  if (trimmed.empty()) {
    fail(field, text, std::string("is empty; expected ") + std::string(expected));
  }
  double value = 0.0;
  const char* begin = trimmed.data();
  const char* end = trimmed.data() + trimmed.size();
  if (*begin == '+') {
    ++begin;
  }
  const auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    fail(field, text, "is out of the range of a double");
  }
  if (ec != std::errc() || ptr == begin) {
    fail(field, text, std::string("is not a number; expected ") + std::string(expected));
  }
  if (!std::isfinite(value)) {
    fail(field, text, "is not a finite number");
  }
  rest = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  return value;
}

template <std::size_t NStems, std::size_t NPrefixes>
double parse_with_units(std::string_view field, std::string_view text,
                        const std::array<unit_stem, NStems>& stems,
                        const std::array<prefix, NPrefixes>& prefixes, std::string_view expected,
                        bool bare_number_is_si = false) {
  std::string_view suffix;
  const double number = leading_number(field, text, suffix, expected);
  // A bare number is refused (durations aside: seconds): "--inter-bandwidth 400" meant 400 Gb/s
  // or GB/s, never 400 B/s (a step of 5.6e7 s). Zero needs no unit: it is zero in every one.
  if (suffix.empty() && number != 0.0 && !bare_number_is_si) {
    fail(field, text, std::string("has no unit; expected ") + std::string(expected));
  }
  for (const auto& stem : stems) {
    if (!ends_with(suffix, stem.text, stem.case_insensitive)) {
      continue;
    }
    const auto head = suffix.substr(0, suffix.size() - stem.text.size());
    for (const auto& p : prefixes) {
      if (head == p.text) {
        const double value = number * p.factor * stem.factor;
        if (!std::isfinite(value)) {
          fail(field, text, "overflows a double");
        }
        return value;
      }
    }
  }
  fail(field, text,
       std::string("has an unknown unit '") + std::string(suffix) + "'; expected " +
           std::string(expected));
}

inline constexpr std::array<unit_stem, 2> byte_stems{{{"B", 1.0, false}, {"", 1.0, false}}};
inline constexpr std::array<unit_stem, 7> bandwidth_stems{{
    {"B/s", 1.0, false},
    {"Bps", 1.0, false},
    {"bit/s", 0.125, false},
    {"b/s", 0.125, false},
    {"bps", 0.125, false},
    {"B", 1.0, false},
    {"", 1.0, false},
}};
inline constexpr std::array<unit_stem, 4> flop_rate_stems{{
    {"FLOP/s", 1.0, true},
    {"FLOPS", 1.0, true},
    {"FLOP", 1.0, true},
    {"", 1.0, false},
}};
inline constexpr std::array<unit_stem, 2> duration_stems{{{"s", 1.0, false}, {"", 1.0, false}}};

}  // namespace detail

/// A size in bytes: "134217728B", "128MiB", "80GiB", "1.5GB"; a bare number is refused.
inline bytes parse_bytes(std::string_view text, std::string_view field) {
  return bytes(detail::parse_with_units(field, text, detail::byte_stems, detail::magnitude_prefixes,
                                        "a size such as 80GiB, 1.5GB or 134217728B"));
}

/// A bandwidth in bytes/s: "600GB/s", "600e9B/s", "600G", "200Gb/s" (bits), "25GBps"; a bare
/// number is refused.
inline bytes_per_second parse_bandwidth(std::string_view text, std::string_view field) {
  return bytes_per_second(
      detail::parse_with_units(field, text, detail::bandwidth_stems, detail::magnitude_prefixes,
                               "a bandwidth such as 600GB/s, 600e9B/s or 200Gb/s (bits)"));
}

/// A compute rate in FLOP/s: "1PFLOP/s", "989.4T", "312TFLOPS", "1e15FLOP/s"; a bare number is
/// refused.
inline flops_per_second parse_flop_rate(std::string_view text, std::string_view field) {
  static constexpr std::array<detail::unit_stem, 4> stems{{
      {"FLOP/s", 1.0, true},
      {"FLOPS", 1.0, true},
      {"FLOP", 1.0, true},
      {"", 1.0, false},
  }};
  return flops_per_second(
      detail::parse_with_units(field, text, stems, detail::magnitude_prefixes,
                               "a rate such as 1PFLOP/s, 989.4T or 1e15FLOP/s"));
}

/// A duration: "5us", "5µs", "1.2ms", "3e-6" (seconds).
inline seconds parse_duration(std::string_view text, std::string_view field) {
  return seconds(detail::parse_with_units(field, text, detail::duration_stems,
                                          detail::time_prefixes,
                                          "a duration such as 5us, 1.2ms or 3e-6 (seconds)",
                                          /*bare_number_is_si=*/true));
}

namespace detail {
/// A count with a size suffix, as sequence lengths and batches are spoken of: "8k" = 8192,
/// "32K" = 32768, "1.5k" = 1536, "4M" = 4194304. k/K and M are binary here (an "8k context"
/// is 8192 tokens, Llama 3.1's "128K" is 131072); Ki and Mi say so explicitly. The result must
/// be whole ("1.3k" is refused). Empty optional when `text` has no such suffix.
inline std::optional<std::int64_t> count_with_size_suffix(std::string_view text,
                                                          std::string_view field) {
  const auto trimmed = trim(text);
  static constexpr std::array<prefix, 5> suffixes{{
      {"k", 1024.0},
      {"K", 1024.0},
      {"Ki", 1024.0},
      {"M", 1048576.0},
      {"Mi", 1048576.0},
  }};
  const auto digits_end = trimmed.find_first_not_of("0123456789.");
  if (digits_end == 0 || digits_end == std::string_view::npos) {
    return std::nullopt;
  }
  const auto suffix = trimmed.substr(digits_end);
  for (const auto& p : suffixes) {
    if (suffix != p.text) {
      continue;
    }
    double number = 0.0;
    const auto head = trimmed.substr(0, digits_end);
    const auto [ptr, ec] =
        std::from_chars(head.data(), head.data() + head.size(), number, std::chars_format::fixed);
    if (ec != std::errc() || ptr != head.data() + head.size()) {
      return std::nullopt;
    }
    const double value = number * p.factor;
    if (!(value < 9.2e18)) {
      fail(field, text, "is too large");
    }
    if (value != std::floor(value)) {
      fail(field, text,
           "is not a whole number (k = 1024, M = 1048576); expected digits such as 2048 or 8k");
    }
    return static_cast<std::int64_t>(value);
  }
  return std::nullopt;
}
}  // namespace detail

/// A positive whole number written in decimal digits ("2048") or with a size suffix ("8k" =
/// 8192, see `detail::count_with_size_suffix`); rejects signs, fractions, "1e3".
inline std::int64_t parse_count(std::string_view text, std::string_view field) {
  const auto trimmed = detail::trim(text);
  std::int64_t value = 0;
  const char* begin = trimmed.data();
  const char* end = trimmed.data() + trimmed.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) {
    detail::fail(field, text, "is too large");
  }
  if (const auto sized = detail::count_with_size_suffix(text, field)) {
    return *sized;
  }
  if (trimmed.empty() || ec != std::errc() || ptr != end) {
    detail::fail(field, text, "is not a whole number; expected digits such as 2048");
  }
  return value;
}

/// A fraction written as a number ("0.7") or a percentage ("70%", "70 %"); the range is the
/// caller's to check. `expected` completes "expected ..." in the message.
inline double parse_fraction(std::string_view text, std::string_view field,
                             std::string_view expected = "a fraction such as 0.7 or 70%") {
  std::string_view rest;
  const double number = detail::leading_number(field, text, rest, expected);
  if (rest.empty()) {
    return number;
  }
  if (rest == "%") {
    return number / 100.0;
  }
  detail::fail(field, text, std::string("is not a fraction; expected ") + std::string(expected));
}

/// An element type by name (fp32, tf32, bf16, fp16, fp8, ...) or by its size in bytes (1..16).
/// tf32 is stored in 4 bytes, so it counts as 4 on the wire.
inline dtype parse_dtype(std::string_view text, std::string_view field) {
  const auto trimmed = detail::trim(text);
  for (const auto& n : dtype_names) {
    if (detail::ends_with(trimmed, n.name, true) && trimmed.size() == n.name.size()) {
      return dtype{std::string(n.name), n.size_bytes};
    }
  }
  std::int64_t size = 0;
  const auto [ptr, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), size);
  if (!trimmed.empty() && ec == std::errc() && ptr == trimmed.data() + trimmed.size()) {
    if (size < 1 || size > 16) {
      detail::fail(field, text, "is not a byte count in 1..16");
    }
    return dtype{std::to_string(size) + " B", static_cast<int>(size)};
  }
  detail::fail(field, text,
               "is not a dtype; expected fp32, tf32, bf16, fp16, fp8, fp64 or a byte count 1..16");
}

}  // namespace tpcost
