// The one output sanitiser, and quoting untrusted text in a message: bounded, on one line.
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

/// The length of the well-formed UTF-8 sequence (RFC 3629) at text[i], or 0 if there is none.
inline std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto u = static_cast<unsigned char>(text[i]);
  const std::size_t n = (u >= 0xC2 && u <= 0xDF)   ? 2
                        : (u >= 0xE0 && u <= 0xEF) ? 3
                        : (u >= 0xF0 && u <= 0xF4) ? 4
                                                   : 0;
  if (n == 0 || i + n > text.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0U) != 0x80U) {
      return 0;
    }
  }
  const auto b1 = static_cast<unsigned char>(text[i + 1]);
  if ((u == 0xE0 && b1 < 0xA0) || (u == 0xED && b1 >= 0xA0) ||  // overlong, surrogate
      (u == 0xF0 && b1 < 0x90) || (u == 0xF4 && b1 >= 0x90)) {  // overlong, > U+10FFFF
    return 0;
  }
  return n;
}
}  // namespace detail

/// THE output sanitiser (issue 30): every user-controlled string on its way to stdout, stderr,
/// JUnit, SARIF or a GitHub annotation passes here. It
///  - cuts `text` to at most `limit` bytes, never inside a UTF-8 character, and says how long
///    the whole was (" ... (N bytes)"); the default, npos, keeps it whole (a composed line);
///  - writes every control byte (C0 including tab and newline, DEL) as \xNN, so that the text
///    stays on one line and no terminal escape sequence gets through;
///  - writes a byte that is not part of well-formed UTF-8 as \xNN (the result is valid UTF-8);
///  - writes the noncharacters U+FFFE / U+FFFF (XML rejects them) as \uFFFE / \uFFFF;
///  - writes a leading "::" as "\x3a:", so that the text can never start a GitHub Actions
///    workflow command ("::error file=...::") on the line it begins.
/// The result contains no byte that XML 1.0 rejects and no line break; it is idempotent.
inline std::string output_safe(std::string_view text, std::size_t limit = std::string_view::npos);

namespace detail {
/// The suffix output_safe writes after a value cut from `size` bytes.
inline std::string cut_suffix(std::size_t size) {
  return " ... (" + std::to_string(size) + " bytes)";
}

/// output_safe's escaping of `body`, appended to `out` (no cut); `starts_line`: `body` may begin
/// a line, so a leading "::" is escaped too.
inline void append_safe(std::string& out, std::string_view body, bool starts_line) {
  static constexpr std::string_view hex = "0123456789abcdef";
  const auto escape = [&](unsigned char u) {
    out += "\\x";
    out += hex[u >> 4U];
    out += hex[u & 0xfU];
  };
  std::size_t i = 0;
  if (starts_line && body.starts_with("::")) {
    escape(':');
    ++i;
  }
  while (i < body.size()) {
    const auto u = static_cast<unsigned char>(body[i]);
    if (u < 0x80) {
      if (u < 0x20 || u == 0x7f) {
        escape(u);
      } else {
        out += static_cast<char>(u);
      }
      ++i;
      continue;
    }
    const auto n = detail::utf8_length(body, i);
    if (n == 0) {
      escape(u);
      ++i;
      continue;
    }
    const auto seq = body.substr(i, n);
    if (seq == "\xEF\xBF\xBE" || seq == "\xEF\xBF\xBF") {
      out += seq[2] == '\xBE' ? "\\uFFFE" : "\\uFFFF";
    } else {
      out += seq;
    }
    i += n;
  }
}
}  // namespace detail

inline std::string output_safe(std::string_view text, std::size_t limit) {
  const auto keep = detail::quoted_prefix(text, limit);
  std::string out;
  out.reserve(keep + 24);
  detail::append_safe(out, text.substr(0, keep), true);
  if (keep < text.size()) {
    out += detail::cut_suffix(text.size());
  }
  return out;
}

namespace detail {
/// `text` whole, sanitised (output_safe without a cut): the escaper parse.hpp's errors use.
inline std::string printable(std::string_view text) { return output_safe(text); }
}  // namespace detail

/// `text` cut to at most `limit` bytes (default 80) and sanitised: how an error repeats a value.
inline std::string bounded(std::string_view text, std::size_t limit = max_quoted_bytes) {
  return output_safe(text, limit);
}

/// `'text'`, bounded as above (the suffix after the closing quote): how an error quotes a value.
inline std::string quote_value(std::string_view text, std::size_t limit = max_quoted_bytes) {
  const auto keep = detail::quoted_prefix(text, limit);
  // Appended, not "'" + std::string&&: GCC 12 at -O3 warns (-Wrestrict, a false positive) on
  // that operator+ once quote_value is inlined into some callers (calibration.hpp's).
  std::string quoted(1, '\'');
  detail::append_safe(quoted, text.substr(0, keep), false);
  quoted += '\'';
  if (keep < text.size()) {
    quoted += detail::cut_suffix(text.size());
  }
  return quoted;
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
