// Quoting untrusted text in an error message: bounded, on one line.
//
// An error names the offending value so that the user can find it, but a value can be a
// 60 KB line or a JSON document; like git and curl, an error quotes at most the first
// `max_quoted_bytes` of it (cut at a UTF-8 boundary) and says how long the whole was.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tpcost {

/// The most bytes of a value an error message repeats.
inline constexpr std::size_t max_quoted_bytes = 80;

namespace detail {
/// How many leading bytes of `text` to keep: all, or at most `limit` ending on a UTF-8 boundary.
inline std::size_t quoted_prefix(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) {
    return text.size();
  }
  std::size_t keep = limit;
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0U) == 0x80U) {
    --keep;  // text[keep] continues a multi-byte character: cut before that character
  }
  return keep;
}

/// `text` with control bytes written as \xNN, so that an error stays on one line (the one
/// escaper of error messages; parse.hpp's errors use it too).
inline std::string printable(std::string_view text) {
  static constexpr std::string_view hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += hex[u >> 4U];
      out += hex[u & 0xfU];
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace detail

/// `text` cut to at most `limit` bytes (never inside a UTF-8 character), control bytes as
/// \xNN, and " ... (N bytes)" after a cut value.
inline std::string bounded(std::string_view text, std::size_t limit = max_quoted_bytes) {
  const auto keep = detail::quoted_prefix(text, limit);
  auto out = detail::printable(text.substr(0, keep));
  if (keep < text.size()) {
    out += " ... (" + std::to_string(text.size()) + " bytes)";
  }
  return out;
}

/// `'text'`, bounded as above (the suffix after the closing quote): how an error quotes a value.
inline std::string quote_value(std::string_view text, std::size_t limit = max_quoted_bytes) {
  const auto keep = detail::quoted_prefix(text, limit);
  // Appended, not "'" + std::string&&: GCC 12 at -O3 warns (-Wrestrict, a false positive) on
  // that operator+ once quote_value is inlined into some callers (calibration.hpp's).
  std::string out(1, '\'');
  out += detail::printable(text.substr(0, keep));
  out += '\'';
  if (keep < text.size()) {
    out += " ... (" + std::to_string(text.size()) + " bytes)";
  }
  return out;
}

}  // namespace tpcost

namespace tpcost {

/// A file name as an error's field: bounded, and "./name" for a bare name, which the CLI would
/// otherwise read as the name of a flag ("my_config" is not "--my-config").
inline std::string path_for_message(std::string_view path) {
  if (path.empty()) {
    return "'' (an empty path)";
  }
  const bool bare = !path.empty() && path.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyz"
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_") == std::string_view::npos;
  return bare ? "./" + bounded(path) : bounded(path);
}

}  // namespace tpcost
