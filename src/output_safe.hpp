// The line the CLI writes to stderr, made safe for a terminal and a CI runner (issue 30).
//
// A message carries values from the user's files (a quoted newline in a Megatron value, a YAML
// scalar, a TOML string, a file name). GitHub Actions reads workflow commands ("::error ...")
// from the start of any line of stdout and stderr, and a terminal obeys ESC sequences, so every
// control byte is written as \xNN (the line stays one line, and "::" can never start one), a
// byte that is not part of valid UTF-8 as \xNN, and U+FFFE / U+FFFF (not characters; XML
// rejects them) as \uFFFE / \uFFFF.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tpcost::cli {

/// `text` with control bytes, invalid UTF-8 and the noncharacters U+FFFE/U+FFFF escaped.
inline std::string output_safe(std::string_view text) {
  static constexpr std::string_view hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  const auto escape = [&](unsigned char u) {
    out += "\\x";
    out += hex[u >> 4U];
    out += hex[u & 0xfU];
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u < 0x80) {
      if (u < 0x20 || u == 0x7f) {
        escape(u);
      } else {
        out += static_cast<char>(u);
      }
      ++i;
      continue;
    }
    // The length of a well-formed UTF-8 sequence starting with u (RFC 3629), or 0.
    const std::size_t n = (u >= 0xC2 && u <= 0xDF)   ? 2
                          : (u >= 0xE0 && u <= 0xEF) ? 3
                          : (u >= 0xF0 && u <= 0xF4) ? 4
                                                     : 0;
    bool ok = n != 0 && i + n <= text.size();
    for (std::size_t k = 1; ok && k < n; ++k) {
      ok = (static_cast<unsigned char>(text[i + k]) & 0xC0U) == 0x80U;
    }
    if (ok && n == 3) {
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(u == 0xE0 && b1 < 0xA0) && !(u == 0xED && b1 >= 0xA0);  // overlong, surrogate
    } else if (ok && n == 4) {
      const auto b1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(u == 0xF0 && b1 < 0x90) && !(u == 0xF4 && b1 >= 0x90);  // overlong, > U+10FFFF
    }
    if (!ok) {
      escape(u);
      ++i;
      continue;
    }
    const auto seq = text.substr(i, n);
    if (seq == "\xEF\xBF\xBE" || seq == "\xEF\xBF\xBF") {
      out += seq[2] == '\xBE' ? "\\uFFFE" : "\\uFFFF";
    } else {
      out += seq;
    }
    i += n;
  }
  return out;
}

}  // namespace tpcost::cli
