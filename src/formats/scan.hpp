// Linear-time scanners for the lines that format detection and the Megatron log reader look
// for. They replace std::regex, whose libstdc++ matcher recurses once per character: a 50 KB
// line of '-', spaces or blank lines overflowed the stack (issue 30). Each function visits
// each byte of its input a bounded number of times and never recurses.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace tpcost::cli::formats::scan {

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
inline bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
inline bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

/// The text between `s`'s leading and trailing spaces and tabs (and a CR).
inline std::string_view trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) {
    ++b;
  }
  while (e > b && is_space(s[e - 1])) {
    --e;
  }
  return s.substr(b, e - b);
}

/// `text` holds the banner Megatron's _print_args writes, "--- arguments ---" with at least
/// three dashes on each side (what the regex `-{3,} arguments -{3,}` found).
inline bool has_arguments_banner(std::string_view text) {
  return text.find("--- arguments ---") != std::string_view::npos;
}
/// ... and its closing "--- end of arguments ---".
inline bool has_end_banner(std::string_view text) {
  return text.find("--- end of arguments ---") != std::string_view::npos;
}

/// Calls `f(line)` for each line of `text` (without its '\n') until `f` returns true; returns
/// whether it did.
template <class F>
bool any_line(std::string_view text, F&& f) {
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    const auto end = nl == std::string_view::npos ? text.size() : nl;
    if (f(text.substr(pos, end - pos))) {
      return true;
    }
    if (nl == std::string_view::npos) {
      break;
    }
    pos = nl + 1;
  }
  return false;
}

/// A name among `names` (exact match).
template <std::size_t N>
bool one_of(std::string_view name, const std::string_view (&names)[N]) {
  for (const auto n : names) {
    if (n == name) {
      return true;
    }
  }
  return false;
}

/// A torchtitan section header on a line of its own: `[name]` or `[[name]]`, spaces allowed
/// inside the brackets, a `#` comment after them.
inline bool is_toml_section(std::string_view line) {
  static constexpr std::string_view names[] = {"job",
                                               "model",
                                               "training",
                                               "parallelism",
                                               "optimizer",
                                               "lr_scheduler",
                                               "activation_checkpoint",
                                               "checkpoint",
                                               "float8",
                                               "mx",
                                               "compile",
                                               "metrics",
                                               "experimental",
                                               "comm",
                                               "fault_tolerance",
                                               "validation"};
  auto s = trim(line);
  if (s.empty() || s.front() != '[') {
    return false;
  }
  s.remove_prefix(s.size() > 1 && s[1] == '[' ? 2 : 1);
  std::size_t k = 0;
  while (k < s.size() && is_space(s[k])) {
    ++k;
  }
  const auto name_at = k;
  while (k < s.size() && is_name_char(s[k])) {
    ++k;
  }
  const auto name = s.substr(name_at, k - name_at);
  while (k < s.size() && is_space(s[k])) {
    ++k;
  }
  if (k >= s.size() || s[k] != ']' || !one_of(name, names)) {
    return false;
  }
  ++k;
  if (k < s.size() && s[k] == ']') {
    ++k;
  }
  const auto rest = trim(s.substr(k));
  return rest.empty() || rest.front() == '#';
}

/// A Megatron-Bridge YAML top-level section: `name:` at the start of a line.
inline bool is_yaml_section(std::string_view line) {
  static constexpr std::string_view names[] = {
      "model",           "train",     "optimizer",  "ddp",
      "mixed_precision", "dataset",   "checkpoint", "logger",
      "scheduler",       "tokenizer", "rng",        "dist",
      "comm_overlap",    "profiling", "ft",         "straggler"};
  std::size_t k = 0;
  while (k < line.size() && is_name_char(line[k])) {
    ++k;
  }
  const auto name = line.substr(0, k);
  while (k < line.size() && is_space(line[k])) {
    ++k;
  }
  return k < line.size() && line[k] == ':' && one_of(name, names);
}

/// One "  name ........ value" line of _print_args, after any prefix a launcher adds (a rank,
/// a timestamp): the first place where a space, a name, a space, one or more dots and a space
/// follow each other. The value is the rest of the line without its trailing spaces.
struct log_arg {
  std::string_view name, value;
};
inline std::optional<log_arg> parse_log_arg(std::string_view line) {
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    if (!is_space(line[i]) || !is_name_start(line[i + 1])) {
      continue;
    }
    std::size_t k = i + 1;
    while (k < line.size() && is_name_char(line[k])) {
      ++k;
    }
    const auto name = line.substr(i + 1, k - i - 1);
    if (k >= line.size() || line[k] != ' ') {
      i = k - 1;  // the next candidate starts at or after line[k]
      continue;
    }
    std::size_t d = k + 1;
    while (d < line.size() && line[d] == '.') {
      ++d;
    }
    if (d == k + 1 || d >= line.size() || line[d] != ' ') {
      i = k - 1;  // a space at k may start the next candidate
      continue;
    }
    auto value = line.substr(d + 1);
    while (!value.empty() && is_space(value.back())) {
      value.remove_suffix(1);
    }
    return log_arg{name, value};
  }
  return std::nullopt;
}

}  // namespace tpcost::cli::formats::scan
