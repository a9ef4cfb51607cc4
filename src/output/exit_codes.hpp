// The exit codes of tpcost: stable, documented in --help, the man page and the README.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace tpcost::cli {

inline constexpr int exit_success = 0;
inline constexpr int exit_check_failed = 1;    ///< `check`: a rule failed
inline constexpr int exit_invalid_input = 2;   ///< a bad flag, value, unit, range or format
inline constexpr int exit_io_error = 3;        ///< an output file could not be written
inline constexpr int exit_internal_error = 4;  ///< a bug
inline constexpr int exit_tool_missing = 5;    ///< gnuplot (for --plot) is missing or failed

struct exit_code_doc {
  int code;
  std::string_view brief;    ///< for --help's one-line summary
  std::string_view meaning;  ///< for the man page
};

inline constexpr std::array<exit_code_doc, 6> exit_code_docs{{
    {exit_success, "success", "success"},
    {exit_check_failed, "a check failed",
     "check: a rule of a config failed (the report says which)"},
    {exit_invalid_input, "invalid input",
     "invalid input: a bad flag, value, unit, range or format; one line on stderr naming the "
     "flag, nothing on stdout"},
    {exit_io_error, "cannot write output",
     "an output file (--output, --plot, --plot-script) could not be written"},
    {exit_internal_error, "internal error", "internal error (a bug: please report it)"},
    {exit_tool_missing, "gnuplot missing or failed",
     "a program tpcost runs is missing or failed: gnuplot, for --plot (Debian package "
     "gnuplot-nox)"},
}};

/// "Exit codes: 0 success, 2 invalid input, ..." for --help, wrapped at 80 columns.
inline std::string exit_codes_summary() {
  std::string out = "Exit codes:";
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < exit_code_docs.size(); ++i) {
    const bool last = i + 1 == exit_code_docs.size();
    const auto item = std::to_string(exit_code_docs[i].code) + " " +
                      std::string(exit_code_docs[i].brief) + (last ? "." : ",");
    if (out.size() - line_start + 1 + item.size() > 80) {
      out += "\n";
      line_start = out.size();
    } else {
      out += " ";
    }
    out += item;
  }
  return out;
}

}  // namespace tpcost::cli
