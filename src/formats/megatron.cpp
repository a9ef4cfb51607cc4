// Megatron-LM: a launch script (or a file of arguments) and the `arguments` block a training
// log prints. Both become one list of Megatron arguments by their argparse `dest` name, which
// one mapping turns into a tpcost config. Sources: NVIDIA/Megatron-LM at d98e8a6
// (megatron/training/arguments.py: the flags, their defaults, `_print_args`; vocab_utils.py:
// the vocabulary padding).
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "formats/config.hpp"
#include "formats/reading.hpp"
#include "formats/scan.hpp"
#include "tpcost/model/optimizer_states.hpp"
#include "tpcost/model/recompute_recipe.hpp"
#include "tpcost/step/cuda_graphs.hpp"

namespace tpcost::cli::formats {

namespace {

/// The script evaluator's budget (docs/fuzzing.md, "Limits"): a value is at most the size of
/// the largest config file, the expansion of a whole script at most 16 times that, and $(( ))
/// at most 64 parentheses deep (each a stack frame).
constexpr std::size_t max_script_value_bytes = std::size_t{1} << 20;
constexpr std::size_t max_script_expansion = std::size_t{16} << 20;
constexpr int max_script_nesting = 64;
/// `source FILE` / `. FILE` are followed at most this many files deep (a launch script sources
/// a config or two; SC21's run_table_1.sh sources CONFIG.sh and SBATCH.sh, one level).
constexpr int max_source_depth = 8;
/// ... and at most this many sourced in all: without it, a file that sources two others eight
/// deep is read 2^8 times, one that sources a thousand 1000^8.
constexpr std::size_t max_sourced_files = 64;

// --- The shell side: words, variables, flags ------------------------------------------------

struct word {
  std::string text;  ///< after expansion and quote removal
  std::string raw;   ///< as written
  std::size_t line = 0, column = 0;
  const std::string* file = nullptr;  ///< the file it is in (a sourced one, or the script)
  bool op = false;                    ///< a shell operator: ( ) ; | & — never a flag's value
  std::vector<std::string> unresolved;
};

struct shell_reader {
  shell_reader(const std::string& t, const std::string& f, const read_options& o)
      : text(t), file(f), opts(o) {}

  const std::string& text;
  const std::string& file;
  const read_options& opts;
  std::map<std::string, std::string> vars;             // NAME -> value
  std::map<std::string, std::string> unresolved_vars;  // NAME -> why
  std::map<std::string, place> assigned_on;            // NAME -> where
  /// Where a variable's value was assigned, as a word's place: a word that is the variable
  /// alone ("$FLAGS", "${FLAGS}") and was assigned in another file (a sourced one) is read
  /// there, so that an error in its flags names the line that wrote them.
  struct defined {
    const std::string* file = nullptr;
    std::size_t line = 0, column = 0;
  };
  std::map<std::string, defined> defined_at;
  std::size_t at_line = 1;   ///< the line being read, for the budget's errors
  std::size_t expanded = 0;  ///< bytes produced by expansion so far (the budget)

  /// The files sourced so far (stable addresses: words point at their file's name), the chain
  /// of files being read (for the cycle check) and the launch folder `pwd` stands for.
  struct sourcing {
    std::list<std::string> names;
    std::vector<place> chain;  ///< the `source` lines that led to the file being read
    std::string launch_dir;
    std::string top;        ///< the script's own name, normalized
    std::size_t count = 0;  ///< files sourced so far
  };
  std::shared_ptr<sourcing> sources = std::make_shared<sourcing>();

  /// An `if`/`elif`/`else` chain: a branch whose condition the reader can decide (a string
  /// comparison of known values, `[ "$MODEL_SIZE" == "39B" ]`) is taken or skipped as bash
  /// would; once a condition cannot be decided, every later branch is read (the old way).
  struct branch {
    bool outer_live = true;
    bool decided = true;  ///< every condition so far decided
    bool taken = false;   ///< a branch so far was true
    bool live = true;
  };
  std::vector<branch> ifs;
  [[nodiscard]] bool live() const { return ifs.empty() || ifs.back().live; }

  static bool is_name_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
  }
  static bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  }
  /// A character of a word that lines() copies as it is: not a blank, an operator, a quote, a
  /// backslash or a `$`.
  static bool plain(char c) {
    switch (c) {
      case ' ':
      case '\t':
      case '\r':
      case '\n':
      case '(':
      case ')':
      case ';':
      case '|':
      case '&':
      case '<':
      case '>':
      case '\\':
      case '\'':
      case '"':
      case '$':
        return false;
      default:
        return true;
    }
  }

  /// The value of $NAME, or nullopt (and the reason noted) when the script cannot say.
  std::optional<std::string> lookup(const std::string& name, std::vector<std::string>& missing) {
    if (const auto it = opts.set.find(name); it != opts.set.end()) {
      return it->second;
    }
    if (const auto it = vars.find(name); it != vars.end()) {
      return it->second;
    }
    if (name == "PWD") {
      return sources->launch_dir;  // the script is launched from its folder (SC21's README)
    }
    missing.push_back(name);
    return std::nullopt;
  }

  /// a / b or a % b, or nullopt where bash fails ("division by 0") or the quotient does not fit
  /// an int64 (INT64_MIN / -1 is SIGFPE on x86, not a wrap).
  static std::optional<std::int64_t> divide(std::int64_t a, std::int64_t b, char op) {
    if (b == 0 || (b == -1 && a == INT64_MIN)) {
      return std::nullopt;
    }
    return op == '/' ? a / b : a % b;
  }

  /// Thrown by arithmetic() past max_script_nesting parentheses; expand() names the line.
  struct nested_too_deep {};

  /// Integer arithmetic of $(( )): + - * / % and parentheses, on already expanded text.
  static std::optional<std::int64_t> arithmetic(std::string_view s) {
    std::size_t i = 0;
    int depth = 0;
    const auto skip = [&] {
      while (i < s.size() && s[i] == ' ') {
        ++i;
      }
    };
    std::function<std::optional<std::int64_t>()> expr;
    const auto atom = [&]() -> std::optional<std::int64_t> {
      skip();
      if (i < s.size() && s[i] == '(') {
        ++i;
        if (++depth > max_script_nesting) {
          throw nested_too_deep{};  // each level is a stack frame: bounded, not per byte
        }
        auto v = expr();
        --depth;
        skip();
        if (!v || i >= s.size() || s[i] != ')') {
          return std::nullopt;
        }
        ++i;
        return v;
      }
      std::int64_t v = 0;
      const auto* begin = s.data() + i;
      const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
      if (ec != std::errc() || end == begin) {
        return std::nullopt;
      }
      i += static_cast<std::size_t>(end - begin);
      return v;
    };
    const auto term = [&]() -> std::optional<std::int64_t> {
      auto v = atom();
      while (v) {
        skip();
        if (i >= s.size() || (s[i] != '*' && s[i] != '/' && s[i] != '%')) {
          break;
        }
        const char o = s[i++];
        const auto r = atom();
        if (!r) {
          return std::nullopt;
        }
        if (o == '*') {
          if (*r != 0 && (*v > INT32_MAX || *r > INT32_MAX || *v < -INT32_MAX || *r < -INT32_MAX)) {
            return std::nullopt;
          }
          v = *v * *r;
        } else {
          v = divide(*v, *r, o);
        }
      }
      return v;
    };
    expr = [&]() -> std::optional<std::int64_t> {
      auto v = term();
      while (v) {
        skip();
        if (i >= s.size() || (s[i] != '+' && s[i] != '-')) {
          break;
        }
        const char o = s[i++];
        const auto r = term();
        if (!r || *r > INT32_MAX || *v > INT32_MAX || *r < -INT32_MAX || *v < -INT32_MAX) {
          return std::nullopt;
        }
        v = o == '+' ? *v + *r : *v - *r;
      }
      return v;
    };
    auto v = expr();
    skip();
    return v && i == s.size() ? v : std::nullopt;
  }

  /// Expands $NAME, ${NAME}, ${NAME:-default}, $((...)) in `s` (unquoted or double-quoted text).
  std::string expand(std::string_view s, std::vector<std::string>& missing, int depth = 0) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      check_budget(out.size());
      if (s[i] != '$') {  // the text up to the next `$`, at once
        const auto next = std::min(s.find('$', i + 1), s.size());
        out += s.substr(i, next - i);
        i = next - 1;
        continue;
      }
      if (i + 1 >= s.size()) {
        out += s[i];
        continue;
      }
      const char n = s[i + 1];
      if (s.substr(i, 3) == "$((") {
        const auto close = s.find("))", i + 3);
        if (close == std::string_view::npos) {
          out += s.substr(i);
          break;
        }
        std::vector<std::string> inner_missing;
        const auto inner = expand(s.substr(i + 3, close - i - 3), inner_missing, depth + 1);
        std::optional<std::int64_t> v;
        try {
          v = inner_missing.empty() ? arithmetic(inner) : std::nullopt;
        } catch (const nested_too_deep&) {
          over_budget(
              fmt::format("$(( )) nests more than {} parentheses deep", max_script_nesting));
        }
        if (v) {
          out += std::to_string(*v);
        } else {
          missing.insert(missing.end(), inner_missing.begin(), inner_missing.end());
          if (inner_missing.empty()) {
            missing.push_back("$((" + std::string(s.substr(i + 3, close - i - 3)) + "))");
          }
          out += s.substr(i, close + 2 - i);
        }
        i = close + 1;
      } else if (n == '(') {  // $(command): not run, but $(pwd) and $(dirname $0) are folders
        const auto close = s.find(')', i + 2);
        const auto end = close == std::string_view::npos ? s.size() : close + 1;
        if (const auto dir = folder_of_command(s.substr(i, end - i))) {
          out += *dir;
        } else {
          missing.push_back(std::string(s.substr(i, end - i)));
          out += s.substr(i, end - i);
        }
        i = end - 1;
      } else if (n == '{') {
        const auto close = s.find('}', i + 2);
        if (close == std::string_view::npos) {
          out += s.substr(i);
          break;
        }
        const auto body = s.substr(i + 2, close - i - 2);
        std::size_t k = 0;
        while (k < body.size() && (is_name_char(body[k]))) {
          ++k;
        }
        const std::string name(body.substr(0, k));
        const auto rest = body.substr(k);
        if (!rest.empty() && rest.front() == '[') {
          // ${ARRAY[@]}: the array's words are read where it is defined.
        } else if (rest.substr(0, 2) == ":-" || rest.substr(0, 1) == "-" ||
                   rest.substr(0, 2) == ":=") {
          std::vector<std::string> ignore;
          const auto v = lookup(name, ignore);
          const auto def = rest.substr(rest[0] == ':' ? 2 : 1);
          out += v ? *v : (depth < 8 ? unquote_default(def, missing, depth) : std::string(def));
        } else if (const auto v = lookup(name, missing)) {
          out += *v;
        } else {
          out += "${" + std::string(body) + "}";
        }
        i = close;
      } else if (is_name_start(n) || std::isdigit(static_cast<unsigned char>(n)) != 0) {
        std::size_t k = i + 1;
        if (std::isdigit(static_cast<unsigned char>(n)) != 0) {
          k = i + 2;  // $1: one digit
        } else {
          while (k < s.size() && is_name_char(s[k])) {
            ++k;
          }
        }
        const std::string name(s.substr(i + 1, k - i - 1));
        if (const auto v = lookup(name, missing)) {
          out += *v;
        } else {
          out += "$" + name;
        }
        i = k - 1;
      } else {
        out += s[i];
      }
    }
    expanded += out.size();
    check_budget(out.size());
    return out;
  }

  /// The folder a command substitution names, where it is one of the idioms launch scripts use
  /// to find their own folder: $(pwd) (the launch folder, taken to be the script's), $(dirname
  /// $0) (the script's), $(dirname ${BASH_SOURCE[0]}) (the file being read).
  [[nodiscard]] std::optional<std::string> folder_of_command(std::string_view cmd) const {
    std::string c;
    for (const char ch : cmd) {
      if (ch != '"' && ch != '\'') {
        c += ch;
      }
    }
    if (c == "$(pwd)" || c == "$(dirname $0)" || c == "$(dirname ${0})") {
      return sources->launch_dir;
    }
    if (c == "$(dirname ${BASH_SOURCE[0]})" || c == "$(dirname ${BASH_SOURCE})" ||
        c == "$(dirname $BASH_SOURCE)") {
      return folder(file);
    }
    return std::nullopt;
  }

  static std::string folder(const std::string& path) {
    const auto dir = std::filesystem::path(path).parent_path().string();
    return dir.empty() ? "." : dir;
  }

  /// Throws "FILE:LINE: ..." when the script's evaluation passes its budget (docs/fuzzing.md):
  /// a value of more than max_script_value_bytes, or more than max_script_expansion bytes
  /// expanded in all. A 330-byte script doubling A="$A$A" 34 times grew past 2.7 GB.
  void check_budget(std::size_t value_bytes) const {
    if (value_bytes > max_script_value_bytes) {
      over_budget(
          fmt::format("a value expands past {} bytes (a variable doubled in a loop?); a "
                      "launch script's values are far shorter",
                      max_script_value_bytes));
    }
    if (expanded > max_script_expansion) {
      over_budget(
          fmt::format("expanding the script's variables makes more than {} bytes in "
                      "all; a launch script makes far less",
                      max_script_expansion));
    }
  }
  [[noreturn]] void over_budget(const std::string& why) const {
    fail(place{file, at_line, 0, {}}, why);
  }

  /// The default of ${NAME:-"text"}: quotes removed, variables expanded.
  std::string unquote_default(std::string_view def, std::vector<std::string>& missing, int depth) {
    if (def.size() >= 2 && (def.front() == '"' || def.front() == '\'') &&
        def.back() == def.front()) {
      return def.front() == '\'' ? std::string(def.substr(1, def.size() - 2))
                                 : expand(def.substr(1, def.size() - 2), missing, depth + 1);
    }
    return expand(def, missing, depth + 1);
  }

  /// Splits the text into logical lines of words: comments dropped, `\`-newline joined,
  /// quotes removed, variables expanded (assignments are applied as they are met).
  std::vector<std::vector<word>> lines() {
    std::vector<std::vector<word>> out(1);
    std::size_t line = 1, col = 1;
    std::size_t i = 0;
    const auto advance = [&] {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
      ++i;
    };
    // advance() over text[i, end) at once, appending it to `into`: a run of characters read
    // alike (most of a script), without a call and a check per byte.
    const auto take = [&](std::string& into, std::size_t end) {
      const std::string_view span = std::string_view(text).substr(i, end - i);
      into.append(span);
      if (const auto nl = span.rfind('\n'); nl != std::string_view::npos) {
        line += static_cast<std::size_t>(std::count(span.begin(), span.end(), '\n'));
        col = span.size() - nl;
      } else {
        col += span.size();
      }
      i = end;
    };
    while (i < text.size()) {
      const char c = text[i];
      if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
        advance();
        advance();
        continue;
      }
      if (c == '\n') {
        end_line(out);
        advance();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        advance();
        continue;
      }
      if (c == '#') {
        while (i < text.size() && text[i] != '\n') {
          advance();
        }
        continue;
      }
      if (c == '(' || c == ')' || c == ';' || c == '|' || c == '&' || c == '<' || c == '>') {
        word w;
        w.op = true;
        w.text = w.raw = std::string(1, c);
        w.line = line;
        w.column = col;
        w.file = &file;
        out.back().push_back(w);
        advance();
        if (c == ';' || c == '|' || c == '&') {
          end_line(out);
        }
        continue;
      }
      word w;
      w.line = line;
      w.column = col;
      w.file = &file;
      at_line = line;
      const std::size_t start = i;
      while (i < text.size()) {
        const char d = text[i];
        if (d == ' ' || d == '\t' || d == '\r' || d == '\n' || d == '(' || d == ')' || d == ';' ||
            d == '|' || d == '&' || d == '<' || d == '>') {
          break;
        }
        if (d == '\\' && i + 1 < text.size()) {
          if (text[i + 1] == '\n') {
            break;
          }
          advance();
          w.text += text[i];
          advance();
        } else if (d == '\'') {
          advance();
          take(w.text, std::min(text.find('\'', i), text.size()));
          if (i < text.size()) {
            advance();
          }
        } else if (d == '"') {
          advance();
          std::string quoted;
          while (i < text.size() && text[i] != '"') {
            if (text[i] == '\\' && i + 1 < text.size()) {
              advance();
              quoted += text[i];
              advance();
            } else {
              take(quoted, std::min(text.find_first_of("\"\\", i + 1), text.size()));
            }
          }
          if (i < text.size()) {
            advance();
          }
          w.text += expand(quoted, w.unresolved);
        } else if (d == '$') {
          // $(( )), $( ) and ${ } keep their brackets together.
          std::size_t end = i + 1;
          if (end < text.size() && (text[end] == '(' || text[end] == '{')) {
            const char open = text[end];
            const char close = open == '(' ? ')' : '}';
            int level = 0;
            for (; end < text.size() && text[end] != '\n'; ++end) {
              level += text[end] == open ? 1 : text[end] == close ? -1 : 0;
              if (level == 0) {
                ++end;
                break;
              }
            }
          } else {
            while (end < text.size() && (is_name_char(text[end]) || end == i + 1)) {
              if (end == i + 1 && !is_name_char(text[end])) {
                break;
              }
              ++end;
              if (std::isdigit(static_cast<unsigned char>(text[end - 1])) != 0 && end == i + 2) {
                break;  // $1
              }
            }
          }
          const std::string ref = text.substr(i, end - i);
          while (i < end) {
            advance();
          }
          w.text += expand(ref, w.unresolved);
        } else {
          // This character and the plain ones after it (no newline among them).
          std::size_t end = i + 1;
          while (end < text.size() && plain(text[end])) {
            ++end;
          }
          take(w.text, end);
        }
      }
      check_budget(w.text.size());
      w.raw = text.substr(start, i - start);
      if (const auto name = whole_reference(w.raw); name && w.unresolved.empty()) {
        if (const auto it = defined_at.find(*name);
            it != defined_at.end() && it->second.file != &file && opts.set.count(*name) == 0) {
          w.file = it->second.file;
          w.line = it->second.line;
          w.column = it->second.column;
        }
      }
      out.back().push_back(std::move(w));
    }
    end_line(out);
    return out;
  }

  /// NAME if `raw` is one variable alone: $NAME, ${NAME}, "$NAME" or "${NAME}".
  static std::optional<std::string> whole_reference(std::string_view r) {
    if (r.size() >= 2 && r.front() == '"' && r.back() == '"') {
      r = r.substr(1, r.size() - 2);
    }
    if (r.size() < 2 || r.front() != '$') {
      return std::nullopt;
    }
    r.remove_prefix(1);
    if (r.front() == '{') {
      if (r.size() < 3 || r.back() != '}') {
        return std::nullopt;
      }
      r = r.substr(1, r.size() - 2);
    }
    if (!is_name_start(r.front()) || !std::all_of(r.begin(), r.end(), is_name_char)) {
      return std::nullopt;
    }
    return std::string(r);
  }

  static bool flag_like(const std::string& s) {
    return s.size() > 2 && s[0] == '-' && s[1] == '-' &&
           std::isalpha(static_cast<unsigned char>(s[2])) != 0;
  }

  /// The value of `[ A == B ]`, `[[ A != B ]]` (also `=`) when both sides are known; nullopt
  /// for any other condition (-n, -f, ||, &&, a command).
  static std::optional<bool> condition(const std::vector<word>& w) {
    std::size_t n = w.size();
    if (n > 0 && w[n - 1].op && w[n - 1].raw == ";") {
      --n;
    }
    if (n != 6 || w[1].op || w[5].op || w[2].op || w[3].op || w[4].op) {
      return std::nullopt;
    }
    const bool single = w[1].raw == "[" && w[5].raw == "]";
    const bool dbl = w[1].raw == "[[" && w[5].raw == "]]";
    const auto& cmp = w[3].raw;
    if ((!single && !dbl) || (cmp != "==" && cmp != "=" && cmp != "!=") ||
        !w[2].unresolved.empty() || !w[4].unresolved.empty()) {
      return std::nullopt;
    }
    return (w[2].text == w[4].text) == (cmp != "!=");
  }

  /// if/elif/else/fi at the head of a logical line: updates the branch stack.
  void control(const std::vector<word>& words) {
    if (words.empty() || words[0].op) {
      return;
    }
    const auto& k = words[0].raw;
    if (k == "if") {
      branch b;
      b.outer_live = live();
      const auto c = condition(words);
      b.decided = c.has_value();
      b.taken = c.value_or(false);
      b.live = b.outer_live && c.value_or(true);
      ifs.push_back(b);
    } else if (ifs.empty()) {
      return;
    } else if (k == "elif") {
      auto& b = ifs.back();
      if (b.decided && b.taken) {
        b.live = false;
      } else if (!b.decided) {
        b.live = b.outer_live;
      } else {
        const auto c = condition(words);
        b.decided = c.has_value();
        b.taken = c.value_or(false);
        b.live = b.outer_live && c.value_or(true);
      }
    } else if (k == "else") {
      auto& b = ifs.back();
      b.live = b.outer_live && (!b.decided || !b.taken);
    } else if (k == "fi") {
      ifs.pop_back();
    }
  }

  /// At the end of a logical line: follows if/elif/else/fi, drops the line in a branch not
  /// taken, applies its leading assignments (NAME=value), reads the flags in an exported
  /// variable's value (the launcher hands it to the job: SC21's CONFIG.sh exports
  /// MEGATRON_PARAMS), and follows `source FILE` / `. FILE`.
  void end_line(std::vector<std::vector<word>>& out) {
    auto& words = out.back();
    const bool was_live = live();
    control(words);
    const bool head = !words.empty() && !words[0].op &&
                      (words[0].raw == "else" || words[0].raw == "elif" || words[0].raw == "fi");
    if (!(head ? live() : was_live)) {
      words.clear();  // a branch not taken
      return;
    }
    std::size_t k = 0;
    bool exported = false;
    while (k < words.size() &&
           (words[k].raw == "export" || words[k].raw == "local" || words[k].raw == "readonly" ||
            words[k].raw == "declare" || words[k].raw == "then" || words[k].raw == "else" ||
            words[k].raw == "do")) {
      exported = exported || words[k].raw == "export";
      ++k;
    }
    std::vector<word> inside;  // the words of exported values that hold flags
    for (; k < words.size(); ++k) {
      const auto& raw = words[k].raw;
      const auto eq = raw.find('=');
      if (words[k].op || eq == std::string::npos || eq == 0 || !is_name_start(raw[0]) ||
          !std::all_of(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(eq),
                       [](char c) { return is_name_char(c); })) {
        break;
      }
      const auto name = raw.substr(0, eq);
      const auto value_at = words[k].text.find('=');
      if (exported && value_at != std::string::npos) {
        split_flags(words[k], words[k].text.substr(value_at + 1), inside);
      }
      if (opts.set.count(name) == 0) {
        if (words[k].unresolved.empty()) {
          vars[name] = words[k].text.substr(value_at + 1);
          unresolved_vars.erase(name);
          defined_at[name] = defined{&file, words[k].line, words[k].column};
        } else {
          vars.erase(name);
          defined_at.erase(name);
          std::string why;
          for (const auto& m : words[k].unresolved) {
            why += (why.empty() ? "" : ", ") + (m.front() == '$' ? m : "$" + m);
          }
          unresolved_vars[name] = why;
        }
        assigned_on[name] = place{file, words[k].line, 0, {}};
      }
    }
    std::vector<std::vector<word>> sourced;
    if (k + 1 < words.size() && !words[k].op && !words[k + 1].op &&
        (words[k].raw == "source" || words[k].raw == ".")) {
      sourced = include(words[k], words[k + 1]);
    }
    words.insert(words.end(), std::make_move_iterator(inside.begin()),
                 std::make_move_iterator(inside.end()));
    if (!words.empty()) {
      out.emplace_back();
    }
    for (auto& line : sourced) {
      if (!line.empty()) {
        out.back() = std::move(line);
        out.emplace_back();
      }
    }
  }

  /// The words of `value` (an exported variable's), as flags at the assignment's place, if
  /// any of them is a flag.
  static void split_flags(const word& w, const std::string& value, std::vector<word>& into) {
    std::vector<word> parts;
    bool flags = false;
    std::size_t pos = 0;
    while (pos < value.size()) {
      const auto start = value.find_first_not_of(" \t\n", pos);
      if (start == std::string::npos) {
        break;
      }
      const auto end = std::min(value.find_first_of(" \t\n", start), value.size());
      word part;
      part.line = w.line;
      part.column = w.column;
      part.file = w.file;
      part.text = value.substr(start, end - start);
      part.raw = part.text;
      for (const auto& n : w.unresolved) {  // the variables this part still names
        const bool named = !n.empty() && n.front() == '$'
                               ? part.text.find(n) != std::string::npos
                               : part.text.find("$" + n) != std::string::npos ||
                                     part.text.find("${" + n) != std::string::npos;
        if (named) {
          part.unresolved.push_back(n);
        }
      }
      flags = flags || flag_like(part.text);
      parts.push_back(std::move(part));
      pos = end;
    }
    if (flags) {
      into.insert(into.end(), std::make_move_iterator(parts.begin()),
                  std::make_move_iterator(parts.end()));
    }
  }

  /// `source FILE` / `. FILE`: the file's logical lines, read with this script's variables
  /// (which it may change). A relative path is taken from the folder of the file that sources
  /// it; `pwd` stands for the script's folder. Bounded by max_source_depth, cycles refused.
  std::vector<std::vector<word>> include(const word& cmd, const word& path_word) {
    const place here{file, cmd.line, cmd.column, cmd.raw + " " + path_word.raw};
    std::string path = path_word.text;
    auto missing = path_word.unresolved;
    for (const char* pwd : {"`pwd`", "$(pwd)"}) {
      const std::string p(pwd);
      if (path.rfind(p, 0) == 0) {
        path = sources->launch_dir + path.substr(p.size());
        missing.erase(std::remove(missing.begin(), missing.end(), std::string("$(pwd)")),
                      missing.end());
      }
    }
    if (!missing.empty()) {
      const auto& first = missing.front();
      const bool settable = !first.empty() && std::all_of(first.begin(), first.end(),
                                                          [](char c) { return is_name_char(c); });
      fail(here, fmt::format("{}{} is not set in the script{}; the file to source is not known",
                             !first.empty() && first.front() == '$' ? "" : "$", first,
                             settable ? fmt::format(" (give --set {}=VALUE)", first) : ""));
    }
    if (path.find('`') != std::string::npos) {
      fail(here, "a command substitution tpcost does not run names the file to source");
    }
    std::filesystem::path p(path);
    if (p.is_relative()) {
      p = std::filesystem::path(folder(file)) / p;
    }
    p = p.lexically_normal();
    if (std::error_code ec; p.is_absolute()) {  // $(pwd)/x: named from the working folder
      const auto cwd = std::filesystem::current_path(ec);
      const auto near = p.lexically_proximate(cwd);
      if (!ec && !near.empty() && near.begin()->string() != "..") {
        p = near;
      }
    }
    const auto name = p.string();
    auto& chain = sources->chain;
    if (chain.size() >= static_cast<std::size_t>(max_source_depth)) {
      fail(here, fmt::format("sources {} more than {} files deep (a cycle through different "
                             "paths?); a launch script sources a config or two",
                             name, max_source_depth));
    }
    if (name == sources->top ||
        std::any_of(chain.begin(), chain.end(), [&](const place& f) { return f.key == name; })) {
      std::string how;
      for (const auto& f : chain) {
        how += fmt::format("{}:{} sources {}, ", f.file, f.line, f.key);
      }
      fail(here, fmt::format("sources {}, which is already being read: a cycle ({}then this "
                             "line sources it again)",
                             name, how));
    }
    if (++sources->count > max_sourced_files) {
      fail(here, fmt::format("sources more than {} files in all; a launch script sources a "
                             "config or two",
                             max_sourced_files));
    }
    std::string text_of;
    if (opts.read_source) {
      text_of = opts.read_source(name);
    } else {
      std::error_code ec;
      if (!std::filesystem::exists(p, ec)) {
        fail(here, fmt::format("{} does not exist (a relative path is taken from the folder of "
                               "the file that sources it, `pwd` as the script's folder)",
                               name));
      }
      if (!std::filesystem::is_regular_file(p, ec)) {
        fail(here, fmt::format("{} is not a regular file", name));
      }
      text_of = read_config_text(name);
    }
    sources->names.push_back(std::move(text_of));
    const std::string& child_text = sources->names.back();
    sources->names.push_back(name);
    const std::string& child_file = sources->names.back();
    shell_reader child{child_text, child_file, opts};
    child.vars = std::move(vars);
    child.unresolved_vars = std::move(unresolved_vars);
    child.assigned_on = std::move(assigned_on);
    child.defined_at = std::move(defined_at);
    child.sources = sources;
    child.expanded = expanded;
    chain.push_back(place{file, cmd.line, cmd.column, name});
    auto lines = child.lines();
    chain.pop_back();
    vars = std::move(child.vars);
    unresolved_vars = std::move(child.unresolved_vars);
    assigned_on = std::move(child.assigned_on);
    defined_at = std::move(child.defined_at);
    expanded = child.expanded;
    return lines;
  }
};

bool looks_like_flag(const std::string& s) {
  return s.size() > 2 && s[0] == '-' && s[1] == '-' &&
         std::isalpha(static_cast<unsigned char>(s[2])) != 0;
}

/// Megatron's dest for a flag, and the value a store_true/store_false flag stores.
std::pair<std::string, std::string> dest_of(const std::string& flag, const std::string& value,
                                            bool has_value) {
  std::string name = flag.substr(2);
  std::replace(name.begin(), name.end(), '-', '_');
  // Flags whose dest is not their name (arguments.py).
  if (name == "disable_bias_linear") {
    return {"add_bias_linear", "False"};
  }
  if (name == "fp8_format") {
    return {"fp8", value};
  }
  if (name == "fp4_format") {
    return {"fp4", value};
  }
  if (name == "recompute_activations") {
    return {"recompute_granularity", "selective"};
  }
  if (!has_value && name.rfind("no_", 0) == 0) {
    return {name.substr(3), "False"};
  }
  return {name, has_value ? value : "True"};
}

/// Slurm's job size, as sbatch reads it (slurm sbatch(1), 23.02): `--nodes=N` / `--nodes N` /
/// `-N N` / `-NN`, `--gpus-per-node=[type:]N`, `--ntasks-per-node=N`, on the sbatch command line
/// or in the `#SBATCH` lines at the head of the batch script (up to its first command; the
/// command line wins). As Megatron dests: nodes, gpus_per_node, ntasks_per_node.
std::optional<std::string> slurm_dest(const std::string& option) {
  if (option == "--nodes" || option == "-N") {
    return "nodes";
  }
  if (option == "--gpus-per-node") {
    return "gpus_per_node";
  }
  if (option == "--ntasks-per-node") {
    return "ntasks_per_node";
  }
  return std::nullopt;
}

/// A word of an sbatch command line or #SBATCH line.
struct slurm_word {
  std::string text;
  place where;
  std::vector<std::string> unresolved = {};
};

/// The job-size options among `words` (an sbatch command line's, or one #SBATCH line's).
void slurm_options(const std::vector<slurm_word>& words, std::vector<megatron_arg>& into) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string option = words[i].text;
    std::string value;
    bool has = false;
    if (const auto eq = option.find('='); eq != std::string::npos && option.rfind("--", 0) == 0) {
      value = option.substr(eq + 1);
      option = option.substr(0, eq);
      has = true;
    } else if (option.size() > 2 && option.rfind("-N", 0) == 0) {
      value = option.substr(2);  // -N128
      option = "-N";
      has = true;
    }
    const auto dest = slurm_dest(option);
    if (!dest) {
      continue;
    }
    auto where = words[i].where;
    auto unresolved = words[i].unresolved;
    if (!has && i + 1 < words.size()) {
      value = words[++i].text;
      unresolved = words[i].unresolved;
      has = true;
    }
    if (has) {
      where.key = where.key.rfind("#SBATCH", 0) == 0 ? "#SBATCH " + option : option;
      into.push_back({*dest, value, option + " " + value, where, unresolved});
    }
  }
}

/// The #SBATCH directives at the head of a batch script (sbatch stops at the first line that is
/// neither a comment nor blank).
std::vector<megatron_arg> sbatch_directives(const std::string& text, const std::string& file) {
  std::vector<megatron_arg> out;
  std::size_t pos = 0, line = 0;
  while (pos < text.size()) {
    const auto nl = std::min(text.find('\n', pos), text.size());
    const std::string_view l(text.data() + pos, nl - pos);
    ++line;
    const auto start = l.find_first_not_of(" \t\r");
    if (start != std::string_view::npos && l[start] != '#') {
      break;  // the first command
    }
    if (start != std::string_view::npos && l.substr(start, 7) == "#SBATCH") {
      std::vector<slurm_word> words;
      std::size_t k = start + 7;
      while (k < l.size()) {
        const auto b = l.find_first_not_of(" \t\r", k);
        if (b == std::string_view::npos || l[b] == '#') {
          break;
        }
        const auto e = std::min(l.find_first_of(" \t\r", b), l.size());
        words.push_back({std::string(l.substr(b, e - b)),
                         place{file, line, b + 1, "#SBATCH " + std::string(l.substr(b, e - b))}});
        k = e;
      }
      slurm_options(words, out);
    }
    pos = nl + 1;
  }
  return out;
}

/// An `sbatch ... SCRIPT` line: its job-size options, then the #SBATCH lines of SCRIPT (taken
/// from the folder of the file with the line, as the launcher runs it there; SC21's SBATCH.sh
/// submits SRUN.sh, whose `#SBATCH --ntasks-per-node=8` gives the GPUs per node). A script
/// that is not there gives nothing.
std::vector<megatron_arg> sbatch_line(const std::vector<word>& words, const shell_reader& sh) {
  std::vector<megatron_arg> out;
  std::vector<slurm_word> opts;
  std::optional<std::string> script;
  // Options that take no value (sbatch(1)); any other `--x` or `-x` without '=' takes the next.
  static const std::set<std::string> flags = {
      "--exclusive", "--overcommit", "--requeue",    "--no-requeue", "--hold",  "--wait",
      "--parsable",  "--test-only",  "--contiguous", "--spread-job", "--quiet", "--verbose",
      "-H",          "-O",           "-Q",           "-W",           "-v",      "-s"};
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto& w = words[i];
    if (w.op) {
      break;
    }
    const place where{w.file != nullptr ? *w.file : sh.file, w.line, w.column, w.raw};
    if (w.text.rfind('-', 0) == 0 && w.text.size() > 1) {
      opts.push_back({w.text, where, w.unresolved});
      const bool joined = w.text.find('=') != std::string::npos ||
                          (w.text.rfind("--", 0) != 0 && w.text.size() > 2);
      if (!joined && flags.count(w.text) == 0 && i + 1 < words.size() && !words[i + 1].op) {
        ++i;
        opts.push_back({words[i].text,
                        place{where.file, words[i].line, words[i].column, words[i].raw},
                        words[i].unresolved});
      }
      continue;
    }
    script = w.text;
    break;
  }
  if (script && !script->empty()) {
    std::filesystem::path p(*script);
    if (p.is_relative()) {
      p = std::filesystem::path(
              shell_reader::folder(words[0].file != nullptr ? *words[0].file : sh.file)) /
          p;
    }
    const auto name = p.lexically_normal().string();
    std::string text;
    if (sh.opts.read_source) {
      text = sh.opts.read_source(name);
    } else if (std::error_code ec; std::filesystem::is_regular_file(p, ec)) {
      text = read_config_text(name);
    }
    out = sbatch_directives(text, name);
  }
  std::vector<megatron_arg> given;
  slurm_options(opts, given);
  // The command line wins over the script's lines (sbatch(1)): those it gives are dropped.
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&given](const megatron_arg& d) {
                             return std::any_of(
                                 given.begin(), given.end(),
                                 [&d](const megatron_arg& g) { return g.dest == d.dest; });
                           }),
            out.end());
  out.insert(out.end(), std::make_move_iterator(given.begin()),
             std::make_move_iterator(given.end()));
  return out;
}

std::vector<megatron_arg> script_args(shell_reader& sh) {
  std::vector<megatron_arg> args;
  for (auto& line : sh.lines()) {
    // An array element "--fp8-format hybrid" is split by the unquoted ${ARR[@]} expansion.
    std::vector<word> words;
    words.reserve(line.size());  // at least as many: a word is moved, or split into parts
    for (auto& w : line) {
      if (!w.op && looks_like_flag(w.text) && w.text.find_first_of(" \t") != std::string::npos) {
        std::size_t pos = 0;
        while (pos < w.text.size()) {
          const auto start = w.text.find_first_not_of(" \t", pos);
          if (start == std::string::npos) {
            break;
          }
          const auto end = std::min(w.text.find_first_of(" \t", start), w.text.size());
          word part;  // not a copy of w: its text may be long, and it has many parts
          part.line = w.line;
          part.column = w.column;
          part.file = w.file;
          part.unresolved = w.unresolved;
          part.text = w.text.substr(start, end - start);
          part.raw = part.text;
          words.push_back(part);
          pos = end;
        }
      } else {
        words.push_back(std::move(w));
      }
    }
    if (!words.empty() && !words[0].op && words[0].text == "sbatch") {
      auto job = sbatch_line(words, sh);
      args.insert(args.end(), std::make_move_iterator(job.begin()),
                  std::make_move_iterator(job.end()));
      continue;  // its flags are sbatch's, not Megatron's
    }
    for (std::size_t i = 0; i < words.size(); ++i) {
      const auto& w = words[i];
      if (w.op || !looks_like_flag(w.text)) {
        continue;
      }
      std::string flag = w.text;
      std::string value;
      std::string shown = w.raw;
      bool has_value = false;
      auto unresolved = w.unresolved;
      if (const auto eq = flag.find('='); eq != std::string::npos) {
        value = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
        has_value = true;
      } else if (i + 1 < words.size() && !words[i + 1].op && !looks_like_flag(words[i + 1].text) &&
                 words[i + 1].raw.find("[@]") == std::string::npos) {
        value = words[i + 1].text;
        shown += " " + words[i + 1].raw;
        unresolved = words[i + 1].unresolved;
        has_value = true;
        ++i;
        // A list flag (nargs='+' in arguments.py) takes every word up to the next flag.
        while ((flag == "--recompute-modules" || flag == "--cuda-graph-scope" ||
                flag == "--cuda-graph-modules" || flag == "--offload-modules") &&
               i + 1 < words.size() && !words[i + 1].op && !looks_like_flag(words[i + 1].text)) {
          value += " " + words[i + 1].text;
          shown += " " + words[i + 1].raw;
          ++i;
        }
      }
      for (auto& n : unresolved) {
        if (const auto it = sh.unresolved_vars.find(n); it != sh.unresolved_vars.end()) {
          const auto& set_at = sh.assigned_on[n];
          n += set_at.file == (w.file != nullptr ? *w.file : sh.file)
                   ? fmt::format(" (line {}: {})", set_at.line, it->second)
                   : fmt::format(" ({}:{}: {})", set_at.file, set_at.line, it->second);
        }
      }
      auto [dest, stored] = dest_of(flag, value, has_value);
      args.push_back({dest,
                      stored,
                      shown,
                      {w.file != nullptr ? *w.file : sh.file, w.line, w.column, flag},
                      unresolved});
    }
  }
  return args;
}

// --- The mapping, shared by scripts and logs --------------------------------------------

struct megatron_mapping {
  reading& r;
  const read_options& opts;
  const std::string& file;
  megatron_style style;
  bool from_log;
  // Transparent (std::less<>): the mapping looks its names up as literals, which would
  // otherwise build a std::string (a heap allocation past 15 bytes) per look-up.
  std::map<std::string, megatron_arg, std::less<>> last;
  /// The arguments get() has looked up, by their node in `last` (which stays put: nothing is
  /// added to `last` after collect()). Only names in `last` are asked about, and a pointer
  /// compares without the string comparison (in the fuzzer, the memcmp hook) of a set of names.
  std::set<const megatron_arg*> used;
  std::optional<int> core_minor = std::nullopt;  ///< the release a script names (core_v0.N)

  std::vector<std::pair<megatron_arg, megatron_arg>> twice;  ///< (first, last) values differ

  void collect(std::vector<megatron_arg> args) {
    for (auto& a : args) {
      if (const auto it = last.find(a.dest); it != last.end() && it->second.value != a.value) {
        twice.emplace_back(it->second, a);
      }
      last[a.dest] = std::move(a);
    }
  }

  /// A value given twice with different values (e.g. in both branches of an `if` the reader
  /// does not evaluate) matters only if tpcost reads it.
  void report_twice() {
    for (const auto& [first, second] : twice) {
      if (const auto it = last.find(second.dest); it != last.end() && used.count(&it->second) > 0) {
        r.warn(opts, second.where,
               fmt::format("given twice (line {}: {}, line {}: {}); Megatron's argparse "
                           "keeps the last",
                           first.where.line, quote_value(first.value), second.where.line,
                           quote_value(second.value)));
      }
    }
  }

  /// The argument as given, marked as read, or nullptr if absent.
  const megatron_arg* lookup(std::string_view dest) {
    const auto it = last.find(dest);
    if (it == last.end()) {
      return nullptr;
    }
    used.insert(&it->second);
    return &it->second;
  }

  /// The argument, or nullptr if absent (a log prints None and False for unset).
  const megatron_arg* get(std::string_view dest) {
    const auto* a = lookup(dest);
    return a == nullptr || a->value == "None" || a->value == "False" ? nullptr : a;
  }

  bool on(std::string_view dest) { return get(dest) != nullptr; }

  /// Whether `dest` was turned off: a store_false flag (`--no-X`, dest X) or a false value.
  bool off(std::string_view dest) {
    const auto* a = lookup(dest);
    return a != nullptr && a->value == "False";
  }

  /// The reason a value cannot be read, naming the variables a script left unresolved.
  [[noreturn]] void unresolved(const megatron_arg& a, const std::string& expected) {
    std::string names;
    for (const auto& n : a.unresolved) {
      names += (names.empty() ? "" : ", ") + (n.front() == '$' ? n : "$" + n);
    }
    const auto first = a.unresolved.front().substr(0, a.unresolved.front().find(' '));
    const bool settable = !first.empty() && std::all_of(first.begin(), first.end(), [](char c) {
      return shell_reader::is_name_char(c);
    });
    fail(a.where,
         fmt::format("{}: {} is not set in the script{}; expected {}", quote_value(a.shown), names,
                     settable ? fmt::format(" (give --set {}=VALUE)", first) : "", expected));
  }

  /// The whole of `s` as a decimal number, or nothing (a trailing character, not a number).
  static std::optional<double> whole_decimal(const std::string& s) {
    double v = 0.0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) {
      return std::nullopt;
    }
    return v;
  }

  std::optional<std::int64_t> count(std::string_view dest) {
    const auto* a = get(dest);
    if (a == nullptr) {
      return std::nullopt;
    }
    if (!a->unresolved.empty()) {
      unresolved(*a, "a whole number");
    }
    std::int64_t v = 0;
    const auto& s = a->value;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v < 1 || v > 2147483647) {
      fail(a->where, fmt::format("{} is not a whole number in 1..2147483647", quote_value(s)));
    }
    return v;
  }

  std::optional<std::string> text(std::string_view dest) {
    const auto* a = get(dest);
    if (a == nullptr) {
      return std::nullopt;
    }
    if (!a->unresolved.empty()) {
      unresolved(*a, "a value");
    }
    std::string v = a->value;
    if (const auto dot = v.find('.');
        from_log && dot != std::string::npos && v.rfind("AttnBackend", 0) == 0) {
      v = v.substr(dot + 1);  // the log prints the enum: AttnBackend.flash
    }
    return v;
  }

  place at(std::string_view dest) {
    const auto it = last.find(dest);
    return it != last.end()
               ? it->second.where
               : place{file, 0, 0,
                       from_log ? std::string(dest) : "--" + flag_name(std::string(dest))};
  }

  static std::string flag_name(std::string dest) {
    std::replace(dest.begin(), dest.end(), '_', '-');
    return dest;
  }

  /// `dest` as the file spells it, for advice: a script's flag (--use-megatron-fsdp), a
  /// Megatron-Bridge YAML's key (use_megatron_fsdp).
  [[nodiscard]] std::string spelled(const std::string& dest) const {
    return style == megatron_style::config ? dest : "--" + flag_name(dest);
  }

  void put_count(const std::string& pointer, const std::string& dest) {
    if (const auto v = count(dest)) {
      r.put(pointer, *v, at(dest));
    }
  }

  /// arguments.py: --ffn-hidden-size defaults to int(4h * 2/3 / 64) * 64 with --swiglu, else 4h.
  static std::int64_t default_ffn(std::int64_t hidden, bool swiglu) {
    return swiglu ? (4 * hidden * 2 / 3) / 64 * 64 : 4 * hidden;
  }

  void map() {
    r.framework = "megatron-core";
    map_moe();
    map_layout();
    map_model();
    map_precision_and_software();
    map_cuda_graphs();
    map_gpus();
    refuse_contradictions();
    report_twice();
    report_ignored();
  }

  /// Mixture of experts as megatron/training/arguments.py reads it (core_r0.14): --num-experts,
  /// --moe-router-topk (default 2), --moe-ffn-hidden-size (default --ffn-hidden-size:
  /// TransformerConfig.__post_init__), --moe-shared-expert-intermediate-size, --moe-layer-freq,
  /// --expert-model-parallel-size and --expert-tensor-parallel-size (default: the TP degree,
  /// validate_args). Routing-quality flags (aux loss, score function, expert bias) do not change
  /// the matmuls or the traffic and are reported as ignored. MLA and MTP cannot be written in a
  /// tpcost config yet: they block, with the preset to use instead.
  void map_moe() {
    const auto experts = count("num_experts");
    if (!experts || *experts == 1) {
      return;
    }
    r.put("/model/experts", *experts, at("num_experts"));
    if (const auto k = count("moe_router_topk")) {
      r.put("/model/top_k", *k, at("moe_router_topk"));
    } else {
      r.put("/model/top_k", 2, place{file, 0, 0, "--moe-router-topk (Megatron's default, 2)"});
    }
    if (const auto f = count("moe_ffn_hidden_size")) {
      r.put("/model/expert_ffn", *f, at("moe_ffn_hidden_size"));
    } else if (const auto ffn = count("ffn_hidden_size")) {
      r.put("/model/expert_ffn", *ffn,
            place{file, 0, 0, "--ffn-hidden-size (Megatron's default expert size)"});
    } else if (const auto hidden = count("hidden_size")) {
      // Neither size given: the expert takes the dense FFN's default (below).
      r.put("/model/expert_ffn", default_ffn(*hidden, on("swiglu")),
            place{file, 0, 0, "--hidden-size (Megatron's default expert size: the FFN's)"});
    }
    put_count("/model/shared_expert_ffn", "moe_shared_expert_intermediate_size");
    map_moe_layer_freq();
    const auto ep = count("expert_model_parallel_size").value_or(1);
    r.put("/parallel/ep", ep, at("expert_model_parallel_size"));
    map_routing_groups(ep);
    if (const auto etp = count("expert_tensor_parallel_size")) {
      r.put("/parallel/etp", *etp, at("expert_tensor_parallel_size"));
    } else {
      r.put("/parallel/etp", count("tensor_model_parallel_size").value_or(1),
            place{file, 0, 0,
                  "--tensor-model-parallel-size (Megatron's default expert TP is the TP "
                  "degree)"});
    }
    if (on("moe_enable_deepep")) {
      r.put("/options/moe_token_dispatcher", std::string("flex"), at("moe_enable_deepep"));
    } else if (const auto d = text("moe_token_dispatcher_type")) {
      // Megatron-Core's choices (TransformerConfig.moe_token_dispatcher_type, core_v0.16.0):
      // allgather, alltoall, flex; older releases' alltoall_seq is not costed.
      if (*d != "alltoall" && *d != "flex" && *d != "allgather") {
        fail(at("moe_token_dispatcher_type"),
             fmt::format("{} is not a dispatcher tpcost costs; expected allgather, alltoall or "
                         "flex",
                         quote_value(*d)));
      }
      r.put("/options/moe_token_dispatcher", *d, at("moe_token_dispatcher_type"));
    } else if (style != megatron_style::config) {
      // A launch script that names no dispatcher runs Megatron's default; a Megatron-Bridge
      // YAML without the key takes its recipe's provider's (alltoall in the MoE recipes), which
      // the file does not say, so step's default stays.
      r.put("/options/moe_token_dispatcher", std::string("allgather"),
            place{file, 0, 0,
                  "--moe-token-dispatcher-type (Megatron-Core's default, allgather: "
                  "TransformerConfig, core_v0.16.0)"});
    }
    if (on("overlap_moe_expert_parallel_comm")) {
      r.put("/options/overlap_moe_expert_parallel_comm", true,
            at("overlap_moe_expert_parallel_comm"));
    }
    if (const auto* c = get("moe_expert_capacity_factor")) {
      const auto v = whole_decimal(c->value);
      if (!v || !(*v > 0.0) || !(*v < 1e6)) {
        fail(c->where, fmt::format("{} is not a capacity factor > 0", quote_value(c->value)));
      }
      r.put("/options/moe_expert_capacity_factor", *v, c->where);
    }
  }

  /// Group-limited routing as TransformerConfig.__post_init__ sets it (core_v0.16.0): it is on
  /// when --moe-router-group-topk is given, which needs --moe-router-num-groups; the router
  /// reads the groups only then (router.py, moe_utils.py group_limited_topk). The deprecated
  /// --moe-router-topk-limited-devices N is group top-k N over EP groups (device-limited).
  void map_routing_groups(std::int64_t ep) {
    const auto group_topk = count("moe_router_group_topk");
    const auto limited = count("moe_router_topk_limited_devices");
    if (group_topk && limited) {
      fail(at("moe_router_topk_limited_devices"),
           "is deprecated and replaced by --moe-router-group-topk and --moe-router-num-groups; "
           "Megatron-Core refuses both together");
    }
    if (limited) {
      r.put("/model/moe_router_num_groups", ep,
            place{file, 0, 0,
                  "--moe-router-topk-limited-devices (Megatron-Core: one group per EP rank)"});
      r.put("/model/moe_router_group_topk", *limited, at("moe_router_topk_limited_devices"));
      return;
    }
    if (!group_topk) {
      return;  // --moe-router-num-groups alone routes over all experts
    }
    const auto groups = count("moe_router_num_groups");
    if (!groups) {
      fail(at("moe_router_group_topk"),
           "group-limited routing without --moe-router-num-groups; Megatron-Core requires it");
    }
    r.put("/model/moe_router_num_groups", *groups, at("moe_router_num_groups"));
    r.put("/model/moe_router_group_topk", *group_topk, at("moe_router_group_topk"));
  }

  /// --moe-layer-freq: an integer k (layer i has experts when i % k == 0) or a Python list
  /// expression such as ([0]*3+[1]*58) (gpt_layer_specs.py). tpcost's layer rule is leading
  /// dense layers, then every k-th layer: other patterns fail, naming the argument.
  void map_moe_layer_freq() {
    const auto* a = get("moe_layer_freq");
    if (a == nullptr) {
      return;
    }
    if (!a->unresolved.empty()) {
      unresolved(*a, "an integer or a list expression such as ([0]*3+[1]*58)");
    }
    std::int64_t k = 0;
    const auto& v = a->value;
    if (const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), k);
        ec == std::errc() && end == v.data() + v.size()) {
      if (k < 1 || k > 2147483647) {
        fail(a->where, fmt::format("{} is not a layer frequency >= 1", quote_value(v)));
      }
      if (k > 1) {
        r.put("/model/moe_layer_freq", k, a->where);
      }
      return;
    }
    const auto pattern = layer_pattern(v, a->where);
    const auto layers = count("num_layers");
    if (layers && static_cast<std::int64_t>(pattern.size()) != *layers) {
      fail(a->where, fmt::format("{} gives {} layers, the model has {}", quote_value(v),
                                 pattern.size(), *layers));
    }
    // Leading dense layers d, then experts every k-th layer from d on.
    const auto first = std::find(pattern.begin(), pattern.end(), 1);
    if (first == pattern.end()) {
      fail(a->where, fmt::format("{} puts experts in no layer", quote_value(v)));
    }
    const auto d = static_cast<std::int64_t>(first - pattern.begin());
    const auto next = std::find(first + 1, pattern.end(), 1);
    const std::int64_t freq = next == pattern.end() ? 1 : static_cast<std::int64_t>(next - first);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      const auto ii = static_cast<std::int64_t>(i);
      const int expected = ii >= d && (ii - d) % freq == 0 ? 1 : 0;
      if (pattern[i] != expected || (freq > 1 && d % freq != 0)) {
        fail(a->where, fmt::format("{}: tpcost models leading dense layers, then experts "
                                   "every k-th layer; this pattern is not one of those",
                                   quote_value(v)));
      }
    }
    if (d > 0) {
      r.put("/model/moe_dense_layers", d, a->where);
    }
    if (freq > 1) {
      r.put("/model/moe_layer_freq", freq, a->where);
    }
  }

  /// Expands a Python list expression of 0s and 1s: lists, `*` by a count, `+`, parentheses;
  /// at most 2^20 entries (a pattern has one per layer).
  std::vector<int> layer_pattern(const std::string& text, const place& where) {
    constexpr std::size_t limit = std::size_t{1} << 20;
    std::size_t pos = 0;
    const auto skip = [&] {
      while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])) != 0) {
        ++pos;
      }
    };
    const auto bad = [&]() -> std::vector<int> {
      fail(where, fmt::format("'{}' is not an integer or a list expression such as "
                              "([0]*3+[1]*58)",
                              text.substr(0, 80)));
    };
    const auto number = [&]() -> std::int64_t {
      skip();
      std::int64_t n = 0;
      const auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), n);
      if (ec != std::errc() || n < 0) {
        bad();
      }
      pos = static_cast<std::size_t>(end - text.data());
      return n;
    };
    std::function<std::vector<int>(int)> expr = [&](int depth) -> std::vector<int> {
      if (depth > 16) {
        bad();
      }
      std::vector<int> out;
      for (;;) {
        skip();
        std::vector<int> atom;
        if (pos < text.size() && text[pos] == '(') {
          ++pos;
          atom = expr(depth + 1);
          skip();
          if (pos >= text.size() || text[pos] != ')') {
            bad();
          }
          ++pos;
        } else if (pos < text.size() && text[pos] == '[') {
          ++pos;
          for (;;) {
            const auto n = number();
            if (n > 1) {
              bad();
            }
            atom.push_back(static_cast<int>(n));
            skip();
            if (pos < text.size() && text[pos] == ',') {
              ++pos;
              continue;
            }
            break;
          }
          if (pos >= text.size() || text[pos] != ']') {
            bad();
          }
          ++pos;
        } else {
          bad();
        }
        skip();
        if (pos < text.size() && text[pos] == '*') {
          ++pos;
          const auto times = number();
          if (atom.empty() || static_cast<std::size_t>(times) > limit / atom.size()) {
            bad();
          }
          std::vector<int> repeated;
          for (std::int64_t i = 0; i < times; ++i) {
            repeated.insert(repeated.end(), atom.begin(), atom.end());
          }
          atom = std::move(repeated);
        }
        if (out.size() + atom.size() > limit) {
          bad();
        }
        out.insert(out.end(), atom.begin(), atom.end());
        skip();
        if (pos < text.size() && text[pos] == '+') {
          ++pos;
          continue;
        }
        return out;
      }
    };
    auto out = expr(0);
    skip();
    if (pos != text.size() || out.empty()) {
      bad();
    }
    return out;
  }

  /// --window-size L,R and --window-attn-skip-freq (TransformerConfig.window_size and
  /// .window_attn_skip_freq in a Bridge YAML). Megatron-LM core_v0.16.0 (the same at d98e8a6):
  /// arguments.py reads the window with tuple_type ("128,0" or "(128,0)") and the frequency with
  /// moe_freq_type (an integer or a 0/1 list expression); transformer/utils.py
  /// is_layer_window_attention windows layer n (1-based) unless n % N == 0, or where the list
  /// holds 1. Query i sees keys i-L..i+R inclusive (get_sliding_window_causal_mask; Transformer
  /// Engine's window_size), -1 infinite: a causal (L, 0) window is tpcost's sliding_window
  /// w = L + 1 keys (Megatron-Bridge's GPT-OSS (128, 0) is 129 keys), N is window_full_every.
  void map_window() {
    const auto* w = get("window_size");
    const auto* skip = get("window_attn_skip_freq");
    if (w == nullptr) {
      return;  // no window: Megatron ignores the frequency (is_layer_window_attention)
    }
    if (!w->unresolved.empty()) {
      unresolved(*w, "a window L,R such as 127,0");
    }
    std::string inside;
    for (const char c : w->value) {
      if (c != '(' && c != ')' && c != '[' && c != ']' && c != ' ') {
        inside += c;
      }
    }
    std::array<std::int64_t, 2> lr{};
    std::size_t n = 0;
    bool ok = true;
    for (std::size_t pos = 0; ok && pos <= inside.size(); ++n) {
      const auto comma = std::min(inside.find(',', pos), inside.size());
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(inside.data() + pos, inside.data() + comma, v);
      ok = n < 2 && ec == std::errc() && end == inside.data() + comma && v >= -1 && v < 2147483647;
      if (ok) {
        lr.at(n) = v;
      }
      pos = comma + 1;
    }
    if (!ok || n != 2) {
      fail(w->where, fmt::format("{} is not a window L,R (two integers, -1 for an infinite "
                                 "side, e.g. 127,0)",
                                 quote_value(w->value)));
    }
    if (lr[1] != 0) {
      fail(w->where, fmt::format("{}: a right window of {} lets a query see later keys; tpcost "
                                 "costs causal attention, whose right window is 0 (e.g. {},0)",
                                 quote_value(w->value),
                                 lr[1] < 0 ? "-1 (infinite)" : fmt::format("{}", lr[1]), lr[0]));
    }
    if (lr[0] < 0) {
      return;  // (-1, 0): an infinite left window is full causal attention
    }
    r.put("/model/sliding_window", lr[0] + 1,
          place{w->where.file, w->where.line, w->where.column,
                fmt::format("{} {} ({} keys back and the query's own: {} keys)", w->where.key,
                            bounded(w->value), lr[0], lr[0] + 1)});
    if (skip == nullptr) {
      return;
    }
    if (!skip->unresolved.empty()) {
      unresolved(*skip, "an integer or a list expression such as [1,1,1,0]*12");
    }
    const auto& v = skip->value;
    std::int64_t every = 0;
    if (const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), every);
        ec == std::errc() && end == v.data() + v.size()) {
      if (every < 1 || every > 2147483647) {
        fail(skip->where, fmt::format("{} is not a layer frequency >= 1", quote_value(v)));
      }
      const auto layers = count("num_layers");
      if (!layers || every <= *layers) {  // N > L: no layer n % N == 0, every layer windowed
        r.put("/model/window_full_every", every, skip->where);
      }
      return;
    }
    const auto pattern = layer_pattern(v, skip->where);
    if (const auto layers = count("num_layers");
        layers && static_cast<std::int64_t>(pattern.size()) != *layers) {
      fail(skip->where, fmt::format("{} gives {} layers, the model has {}", quote_value(v),
                                    pattern.size(), *layers));
    }
    // 1: windowed, 0: full. tpcost holds "every g-th layer full": g is the first full layer.
    const auto first_full = std::find(pattern.begin(), pattern.end(), 0);
    if (first_full == pattern.end()) {
      return;  // every layer windowed
    }
    const auto g = static_cast<std::size_t>(first_full - pattern.begin()) + 1;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] != ((i + 1) % g != 0 ? 1 : 0)) {
        fail(skip->where,
             fmt::format("{}: layer {} is {}; tpcost models every g-th layer full and the rest "
                         "windowed (here g = {}), not another pattern",
                         quote_value(v), i + 1, pattern[i] != 0 ? "windowed" : "full", g));
      }
    }
    r.put("/model/window_full_every", static_cast<std::int64_t>(g), skip->where);
  }

  void map_layout() {
    const auto tp = count("tensor_model_parallel_size").value_or(1);
    r.put("/parallel/tp", tp, at("tensor_model_parallel_size"));
    const auto pp = count("pipeline_model_parallel_size").value_or(1);
    r.put("/parallel/pp", pp, at("pipeline_model_parallel_size"));
    if (const auto cp = count("context_parallel_size"); cp && *cp > 1) {
      // d = N/(t·p·cp), as Megatron's parallel_state derives it.
      r.put("/parallel/cp", *cp, at("context_parallel_size"));
      if (const auto type = text("cp_comm_type")) {
        r.put("/parallel/cp_comm_type", *type, at("cp_comm_type"));
      }
    }
    if (const auto v = count("virtual_pipeline_model_parallel_size")) {
      r.put("/parallel/vpp", *v, at("virtual_pipeline_model_parallel_size"));
    } else if (const auto v2 = count("num_virtual_stages_per_pipeline_rank")) {
      r.put("/parallel/vpp", *v2, at("num_virtual_stages_per_pipeline_rank"));
    } else if (const auto per = count("num_layers_per_virtual_pipeline_stage")) {
      const auto layers = count("num_layers");
      if (!layers || *layers % (pp * *per) != 0) {
        fail(at("num_layers_per_virtual_pipeline_stage"),
             fmt::format("{} layers per virtual stage do not divide the {} layers per pipeline "
                         "stage",
                         *per, layers ? std::to_string(*layers / pp) : "(unknown)"));
      }
      r.put("/parallel/vpp", *layers / pp / *per, at("num_layers_per_virtual_pipeline_stage"));
    }
    // Uneven stages: Megatron-Core's --pipeline-model-parallel-layout string, or the layers of
    // the first and last stages (--decoder-first/last-pipeline-num-layers, the middle stages
    // sharing the rest), as tpcost's --pp-layout reads them.
    if (const auto layout = text("pipeline_model_parallel_layout")) {
      r.put("/parallel/pp_layout", *layout, at("pipeline_model_parallel_layout"));
    } else {
      const auto first = count("decoder_first_pipeline_num_layers");
      const auto last_stage = count("decoder_last_pipeline_num_layers");
      if (first && last_stage) {
        r.put("/parallel/pp_layout", fmt::format("first={},last={}", *first, *last_stage),
              at("decoder_first_pipeline_num_layers"));
      } else if (first || last_stage) {
        r.warn(opts,
               at(first ? "decoder_first_pipeline_num_layers" : "decoder_last_pipeline_num_layers"),
               "one uneven end stage alone is not modelled; the layers are split as evenly as "
               "the stages allow");
      }
    }
    for (const char* dest :
         {"account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split"}) {
      if (on(dest)) {
        r.put(std::string("/parallel/") + dest, true, at(dest));
      }
    }
    put_count("/batch/micro_batch", "micro_batch_size");
    put_count("/batch/global_batch", "global_batch_size");
    for (const char* ramp : {"rampup_batch_size", "step_batch_size_schedule"}) {
      if (const auto* a = get(ramp)) {
        r.warn(opts, a->where,
               "a batch-size ramp-up is not modelled; the step is costed at the final global "
               "batch");
      }
    }
  }

  void map_model() {
    // A hybrid Mamba-Transformer (pretrain_mamba.py: --is-hybrid-model, --hybrid-*-pattern, the
    // --mamba-* sizes) is mostly Mamba layers, which tpcost does not model: costing its
    // --num-layers as transformer layers would be wrong by a factor, so it is refused.
    for (const char* flag : {"is_hybrid_model", "hybrid_layer_pattern", "hybrid_override_pattern",
                             "mamba_num_heads", "mamba_state_dim", "mamba_head_dim"}) {
      if (get(flag) != nullptr) {
        fail(at(flag),
             "a hybrid Mamba-Transformer model: tpcost costs transformer layers, not Mamba "
             "layers");
      }
    }
    put_count("/model/layers", "num_layers");
    // --hidden-dropout and --attention-dropout (default 0.1): 0 keeps no masks (memory.hpp).
    for (const char* flag : {"hidden_dropout", "attention_dropout"}) {
      if (const auto p = text(flag)) {
        const auto value = whole_decimal(*p);
        if (!value || !(*value >= 0.0 && *value < 1.0)) {
          fail(at(flag), fmt::format("{} is not a dropout probability; expected 0 <= P < 1",
                                     quote_value(*p)));
        }
        r.put(std::string("/model/") + flag, *value, at(flag));
      }
    }
    const auto hidden = count("hidden_size");
    if (hidden) {
      r.put("/model/hidden", *hidden, at("hidden_size"));
    }
    const auto heads = count("num_attention_heads");
    if (heads) {
      r.put("/model/heads", *heads, at("num_attention_heads"));
    }
    // A script or log: --num-query-groups counts only with --group-query-attention; a
    // TransformerConfig (YAML) has no such switch (num_query_groups None means MHA).
    if (on("group_query_attention") ||
        (style == megatron_style::config && last.count("num_query_groups") > 0 &&
         last["num_query_groups"].value != "None")) {
      put_count("/model/kv_heads", "num_query_groups");
    } else if (heads) {
      (void)get("num_query_groups");  // Megatron ignores it without --group-query-attention
      r.put("/model/kv_heads", *heads, at("num_attention_heads"));
    }
    put_count("/model/seq", "seq_length");
    const bool swiglu = on("swiglu");
    if (const auto ffn = count("ffn_hidden_size")) {
      r.put("/model/ffn", *ffn, at("ffn_hidden_size"));
    } else if (hidden) {
      r.put("/model/ffn", default_ffn(*hidden, swiglu),
            place{file, 0, 0,
                  swiglu ? "--swiglu (Megatron's default FFN size)"
                         : "--hidden-size (Megatron's default FFN size, 4h)"});
    }
    // Conventions: tpcost's llama is SwiGLU, RMSNorm, no biases, untied; gpt the opposite.
    const auto norm = text("normalization").value_or("LayerNorm");
    const bool no_bias =
        last.count("add_bias_linear") > 0 && last["add_bias_linear"].value == "False";
    (void)get("add_bias_linear");
    const bool untied = on("untie_embeddings_and_output_weights");
    (void)text("position_embedding_type");
    map_head_dim(hidden, heads);
    map_mla();
    map_window();
    (void)get("max_position_embeddings");
    (void)get("rotary_base");
    (void)get("rotary_percent");
    (void)get("apply_layernorm_1p");
    (void)get("use_mcore_models");
    const int llama_votes = int{swiglu} + int{norm == "RMSNorm"} + int{no_bias} + int{untied};
    const std::string arch = swiglu ? "llama" : "gpt";
    r.put("/model/arch", arch, at(swiglu ? "swiglu" : "normalization"));
    if (llama_votes != 0 && llama_votes != 4) {
      r.warn(opts, at(swiglu ? "swiglu" : "normalization"),
             fmt::format("mixed conventions (swiglu {}, {} , biases {}, embeddings {}); costed "
                         "with tpcost's '{}' conventions",
                         swiglu ? "on" : "off", norm, no_bias ? "off" : "on",
                         untied ? "untied" : "tied", arch));
    }
    map_vocab();
  }

  /// --recompute-modules (TransformerConfig.recompute_modules, core_v0.16.0: default
  /// ["core_attn"]; the choices core_attn, moe_act, layernorm, mla_up_proj, mlp, moe,
  /// shared_experts): given to the step as a comma list (recompute_recipe.hpp); a name Megatron
  /// does not know fails, as its __post_init__ asserts.
  void map_recompute_modules() {
    const auto modules = text("recompute_modules");
    if (!modules) {
      return;
    }
    try {
      const auto set = parse_recompute_modules(*modules, "--recompute-modules");
      r.put("/options/recompute_modules", recompute_modules_to_string(set),
            at("recompute_modules"));
    } catch (const invalid_spec& e) {
      fail(at("recompute_modules"), e.detail());
    }
  }

  /// CUDA graphs (megatron/training/arguments.py and transformer_config.py, core_v0.16.0):
  /// --cuda-graph-impl none|local|transformer_engine, the deprecated --enable-cuda-graph (local)
  /// and --external-cuda-graph (transformer_engine), and --cuda-graph-scope, a list (nargs='+';
  /// a Bridge YAML's sequence) or core_v0.18.0's --cuda-graph-modules. A training log prints the
  /// scopes as enum members ([<CudaGraphScope.attn: 1>, ...]): the names are read out of it.
  /// The scope of a run without graphs has no effect in Megatron and is listed as ignored.
  void map_cuda_graphs() {
    std::optional<std::string> impl;
    std::string where_impl = "cuda_graph_impl";
    if (const auto i = text("cuda_graph_impl")) {
      impl = *i;
    }
    if (on("enable_cuda_graph")) {
      impl = "local";
      where_impl = "enable_cuda_graph";
    } else if (on("external_cuda_graph")) {
      impl = "transformer_engine";
      where_impl = "external_cuda_graph";
    }
    if (!impl) {
      return;
    }
    if (*impl != "none" && *impl != "local" && *impl != "transformer_engine" &&
        *impl != "full_iteration") {
      fail(at(where_impl),
           fmt::format("{} is not a CUDA graph implementation; expected none, local, "
                       "transformer_engine or full_iteration",
                       quote_value(*impl)));
    }
    if (*impl == "none") {
      return;  // step's default; a log prints it for every run
    }
    r.put("/options/cuda_graph_impl", *impl, at(where_impl));
    for (const char* dest : {"cuda_graph_scope", "cuda_graph_modules"}) {
      const auto scope = text(dest);
      if (!scope) {
        continue;
      }
      // The names out of a list, a Python list or a log's enum members.
      std::string names, word;
      const auto flush = [&] {
        if (!word.empty() && word != "CudaGraphScope" && word != "CudaGraphModule" &&
            !std::all_of(word.begin(), word.end(),
                         [](unsigned char c) { return std::isdigit(c) != 0; })) {
          names += (names.empty() ? "" : ",") + word;
        }
        word.clear();
      };
      for (const char c : *scope) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') {
          word += c;
        } else {
          flush();
        }
      }
      flush();
      try {
        (void)parse_cuda_graph_scope(names, {.impl = parse_cuda_graph_impl(*impl, "impl")}, dest);
      } catch (const invalid_spec& e) {
        fail(at(dest), e.detail());
      }
      r.put("/options/cuda_graph_scope", names, at(dest));
    }
  }

  /// --multi-latent-attention and its dimensions; without the switch Megatron builds no MLA and
  /// the dimension flags have no effect (listed as ignored). A flag not given takes
  /// arguments.py's default (core_v0.16.0: --q-lora-rank None, i.e. queries projected from h,
  /// --kv-lora-rank 32, --qk-head-dim 128, --qk-pos-emb-head-dim 64, --v-head-dim 128); a
  /// Megatron-Bridge model: is an MLATransformerConfig, whose defaults differ (q_lora_rank 512,
  /// kv_lora_rank 512: megatron/core/transformer/transformer_config.py at core_v0.16.0).
  /// --mtp-num-layers N: DeepSeek-V3's multi-token prediction modules.
  void map_mla() {
    if (on("multi_latent_attention")) {
      const bool yaml = style == megatron_style::config;
      struct dimension {
        const char* dest;
        const char* pointer;
        std::int64_t flag_default, config_default;
      };
      static constexpr dimension dims[] = {
          {"q_lora_rank", "/model/q_lora_rank", 0, 512},
          {"kv_lora_rank", "/model/kv_lora_rank", 32, 512},
          {"qk_head_dim", "/model/qk_nope_head_dim", 128, 128},
          {"qk_pos_emb_head_dim", "/model/qk_rope_head_dim", 64, 64},
          {"v_head_dim", "/model/v_head_dim", 128, 128},
      };
      for (const auto& d : dims) {
        if (const auto v = count(d.dest)) {
          r.put(d.pointer, *v, at(d.dest));
        } else if (const auto def = yaml ? d.config_default : d.flag_default; def > 0) {
          r.put(d.pointer, def,
                place{file, 0, 0,
                      fmt::format("{} ({}'s default, {})", at(d.dest).key,
                                  yaml ? "MLATransformerConfig" : "Megatron", def)});
        }
      }
    }
    if (const auto* a = get("mtp_num_layers"); a != nullptr && a->value != "0") {
      r.put("/model/mtp_layers", *count("mtp_num_layers"), a->where);
    }
  }

  /// --kv-channels: the per-head width. arguments.py defaults it to
  /// hidden / heads; it is kept only where it differs (Qwen3-32B: 128 against 5120 / 64 = 80).
  void map_head_dim(std::optional<std::int64_t> hidden, std::optional<std::int64_t> heads) {
    if (const auto kv = count("kv_channels")) {
      if (!hidden || !heads || *kv * *heads != *hidden) {
        r.put("/model/head_dim", *kv, at("kv_channels"));
      }
    }
  }

  /// The vocabulary, padded as Megatron pads it (_vocab_size_with_padding, megatron/training/
  /// tokenizer/tokenizer.py at core_v0.16.0: up to a multiple of --make-vocab-size-divisible-by,
  /// default 128, times the TP degree). The sizes fixed by the tokenizer's type (build_tokenizer
  /// there): GPT2BPETokenizer, the default of pretrain_gpt.py (args_defaults at 6985e58,
  /// core_v0.16.0 and d98e8a6), 50,257 tokens in its gpt2-vocab.json; Llama2Tokenizer 32,000;
  /// NullTokenizer --vocab-size + 1 (its EOD token); TikTokenizer --vocab-size, else 2^17.
  /// BERT word pieces, SentencePiece and Hugging Face tokenizers take it from their files:
  /// --vocab-size, which Megatron ignores for them, is read as the size if given. A log
  /// prints the padded size itself.
  void map_vocab() {
    if (style == megatron_style::log) {
      if (const auto padded = count("padded_vocab_size")) {
        (void)get("vocab_size");
        (void)get("tokenizer_type");
        r.put("/model/vocab", *padded, at("padded_vocab_size"));
        return;
      }
    }
    // Peeked, not read: the type matters only where it fixes the size (a script that names
    // two tokenizers in the branches of an `if` is not warned about otherwise).
    const auto peek = [&](const char* dest) -> std::string {
      const auto it = last.find(dest);
      return it == last.end() || !it->second.unresolved.empty() ? std::string() : it->second.value;
    };
    const auto type = peek("tokenizer_type");
    std::optional<std::int64_t> vocab = count("vocab_size");
    place from = at("vocab_size");
    const auto fixed = [&](std::int64_t n, const char* what) {
      vocab = n;
      from = at(last.count("tokenizer_type") > 0 ? "tokenizer_type" : "vocab_file");
      from.key += fmt::format(" ({}: {} tokens)", what, n);
    };
    if (type == "NullTokenizer" && vocab) {
      (void)get("tokenizer_type");
      from.key += fmt::format(" (NullTokenizer: {} + its EOD token)", *vocab);
      vocab = *vocab + 1;
    } else if (type == "TikTokenizer" && !vocab) {
      (void)get("tokenizer_type");
      fixed(131072, "TikTokenizer's default size, 2^17");
    } else if (!vocab) {
      const auto tokenizer = text("tokenizer_type");
      (void)get("vocab_file");
      (void)get("merge_file");
      const bool pretrain_gpt_default = !tokenizer && last.count("vocab_file") > 0;
      if (tokenizer == "GPT2BPETokenizer" || pretrain_gpt_default) {
        fixed(50257, "GPT-2 BPE");
      } else if (tokenizer == "Llama2Tokenizer") {
        fixed(32000, "Llama 2 tokenizer");
      }
    }
    if (!vocab) {
      const bool yaml = style == megatron_style::config;
      r.lack(last.count("tokenizer_type") > 0 ? at("tokenizer_type") : at("vocab_size"),
             fmt::format("the vocabulary size is not stated{}: add {} to the {} (or name the "
                         "model with --model or --hf-config)",
                         type.empty() ? "" : fmt::format(" ({} reads it from its files)", type),
                         yaml ? "tokenizer.vocab_size: N" : "--vocab-size N",
                         yaml ? "YAML" : "script's arguments"));
      return;
    }
    const auto multiple = count("make_vocab_size_divisible_by").value_or(128) *
                          r.config["parallel"]["tp"].get<std::int64_t>();
    r.put("/model/vocab", (*vocab + multiple - 1) / multiple * multiple, from);
  }

  void map_precision_and_software() {
    if (const auto fp8 = text("fp8")) {
      // --fp8-format (dest fp8) turns Transformer Engine's FP8 on for the linear layers;
      // --fp8-recipe picks the scaling, default "delayed" (megatron/training/arguments.py,
      // choices tensorwise, delayed, mxfp8, blockwise). Weights, activations outside the
      // GEMMs and the wire stay in --bf16/--fp16: --precision, not --dtype.
      if (*fp8 != "hybrid" && *fp8 != "e4m3") {
        r.warn(opts, at("fp8"),
               fmt::format("FP8 format {} is not e4m3 or hybrid", quote_value(*fp8)));
      }
      const auto recipe = text("fp8_recipe").value_or("delayed");
      const char* precision = recipe == "delayed"      ? "fp8"
                              : recipe == "tensorwise" ? "fp8-current"
                              : recipe == "blockwise"  ? "fp8-blockwise"
                              : recipe == "mxfp8"      ? "mxfp8"
                                                       : nullptr;
      if (precision == nullptr) {
        fail(at("fp8_recipe"), fmt::format("{} is not a Megatron FP8 recipe (tensorwise, "
                                           "delayed, mxfp8, blockwise)",
                                           quote_value(recipe)));
      }
      r.put("/options/precision", precision, at(on("fp8_recipe") ? "fp8_recipe" : "fp8"));
      if (on("fp8_param_gather")) {
        r.put("/options/fp8_param_gather", true, at("fp8_param_gather"));
      }
    }
    if (const auto fp4 = text("fp4")) {
      // --fp4-format e2m1 with --fp4-recipe nvfp4 (the only recipe Megatron-Core offers).
      const auto recipe = text("fp4_recipe").value_or("nvfp4");
      if (recipe != "nvfp4") {
        fail(at("fp4_recipe"),
             fmt::format("{} is not a Megatron FP4 recipe (nvfp4)", quote_value(recipe)));
      }
      if (text("fp8")) {
        fail(at("fp4"), "FP4 and FP8 together: tpcost costs one precision for the linear layers");
      }
      r.put("/options/precision", "nvfp4", at("fp4"));
    }
    if (on("bf16")) {
      r.put("/hardware/dtype", "bf16", at("bf16"));
    } else if (on("fp16")) {
      r.put("/hardware/dtype", "fp16", at("fp16"));
    } else {
      r.put("/hardware/dtype", "fp32", place{file, 0, 0, "(no --bf16/--fp16: fp32)"});
    }
    (void)get("params_dtype");
    if (on("sequence_parallel")) {
      r.put("/options/sp", true, at("sequence_parallel"));
    }
    if (const auto g = text("recompute_granularity")) {
      if (*g == "full" || *g == "selective") {
        r.put("/options/recompute", *g, at("recompute_granularity"));
      } else {
        r.warn(opts, at("recompute_granularity"),
               fmt::format("{} is not a recompute granularity tpcost models (full, selective)",
                           quote_value(*g)));
      }
      if (*g == "selective") {
        map_recompute_modules();
      }
      // --recompute-method and --recompute-num-layers (TransformerConfig, core_v0.16.0): which
      // layers full recomputation checkpoints; Megatron requires both with full and neither
      // number with selective. The step checks N against the layers of a model chunk.
      const auto method = text("recompute_method");
      const auto n = count("recompute_num_layers");
      if (*g == "full") {
        if (method) {
          r.put("/options/recompute_method", *method, at("recompute_method"));
        }
        if (n) {
          r.put("/options/recompute_num_layers", *n, at("recompute_num_layers"));
        }
      }
    } else if (const auto m = text("activations_checkpoint_method")) {
      // The 2021 spelling (Megatron-LM 6985e58, SC21's scripts): --activations-checkpoint-method
      // uniform or block recomputes each layer's forward (megatron/model/transformer.py
      // _checkpointed_forward, one layer per chunk by default): full recomputation.
      if (*m != "uniform" && *m != "block") {
        fail(at("activations_checkpoint_method"),
             fmt::format("{} is not an activation checkpointing method (uniform, block)",
                         quote_value(*m)));
      }
      (void)get("activations_checkpoint_num_layers");
      r.put("/options/recompute", "full", at("activations_checkpoint_method"));
    } else if (on("checkpoint_activations")) {
      r.put("/options/recompute", "full", at("checkpoint_activations"));  // same era: uniform
    }
    // --cpu-offloading with --cpu-offloading-num-layers (TransformerConfig, core_v0.16.0;
    // default 0 layers): those layers' activations are kept on the host.
    if (on("cpu_offloading")) {
      if (const auto n = count("cpu_offloading_num_layers"); n && *n != 0) {
        r.put("/options/cpu_offloading_num_layers", *n, at("cpu_offloading_num_layers"));
      }
    } else {
      (void)get("cpu_offloading_num_layers");
    }
    // --fine-grained-activation-offloading with --offload-modules (TransformerConfig,
    // core_v0.16.0): checked as __post_init__ checks them; offload_modules is read only with it.
    if (on("fine_grained_activation_offloading")) {
      if (on("cpu_offloading")) {
        fail(at("fine_grained_activation_offloading"),
             "fine-grained activation offloading cannot be used with --cpu-offloading (Megatron "
             "refuses both)");
      }
      if (text("transformer_impl") == "local") {
        // megatron/training/arguments.py (core_v0.16.0) asserts transformer_engine.
        fail(at("fine_grained_activation_offloading"),
             "fine-grained activation offloading needs --transformer-impl transformer_engine");
      }
      const auto modules = text("offload_modules");
      try {
        const auto set = parse_offload_modules(modules ? *modules : "", "--offload-modules");
        r.put("/options/fine_grained_activation_offloading", true,
              at("fine_grained_activation_offloading"));
        r.put("/options/offload_modules", offload_modules_to_string(set),
              modules ? at("offload_modules") : at("fine_grained_activation_offloading"));
      } catch (const invalid_spec& e) {
        fail(modules ? at("offload_modules") : at("fine_grained_activation_offloading"),
             e.detail());
      }
    } else {
      (void)get("offload_modules");
    }
    if (on("use_megatron_fsdp")) {
      map_megatron_fsdp();
    } else if (on("use_distributed_optimizer")) {
      // docs/user-guide/features/dist_optimizer.md: optimizer state and master weights are
      // sharded over DP, the gradient buffer is not: ZeRO-1.
      r.put("/options/zero", 1, at("use_distributed_optimizer"));
    }
    // --num-distributed-optimizer-instances N: the optimizer (with Megatron-FSDP, the whole
    // sharding: HSDP) is sharded over d*cp/N ranks and replicated N times (megatron/core/
    // parallel_state.py intra_partial_data_parallel_size; fsdp/mcore_fsdp_adapter.py enable_hsdp,
    // core_v0.16.0): tpcost's HSDP replicas.
    if (const auto n = count("num_distributed_optimizer_instances"); n && *n > 1) {
      const auto zero = nlohmann::json::json_pointer("/options/zero");
      if (r.config.contains(zero) && r.config[zero].get<int>() > 0) {
        r.put("/parallel/dp_replicas", *n, at("num_distributed_optimizer_instances"));
      } else {
        r.warn(opts, at("num_distributed_optimizer_instances"),
               fmt::format("{} instances without {} or {}: nothing is sharded, so they "
                           "change nothing",
                           *n, spelled("use_distributed_optimizer"), spelled("use_megatron_fsdp")));
      }
    }
    if (const auto backend = text("attention_backend")) {
      if (*backend == "flash" || *backend == "fused" || *backend == "auto") {
        r.put("/options/attention", "fused", at("attention_backend"));
      } else if (*backend == "unfused" || *backend == "local") {
        r.put("/options/attention", "unfused", at("attention_backend"));
      } else {
        r.warn(opts, at("attention_backend"),
               fmt::format("attention backend {} is not one tpcost knows", quote_value(*backend)));
      }
    } else if (text("transformer_impl") == "local" && !on("use_flash_attn")) {
      // core_v0.16.0 megatron/core/models/gpt/gpt_layer_specs.py, get_gpt_layer_local_spec: the
      // local implementation's core attention is DotProductAttention, which writes the s*s
      // scores, softmax and dropout to memory (megatron/core/transformer/dot_product_attention.py).
      r.put("/options/attention", "unfused", at("transformer_impl"));
    }
    // Flags Megatron-LM removed after v2.6 (megatron/arguments.py at v2.5 e269e20 has them,
    // core_r0.5.0 not): the script is for the Megatron-LM of the SC21 runs, the megatron-2021
    // stack; --DDP-impl torch overlaps the gradient all-reduce with the backward (PyTorch DDP),
    // local (the default) does not.
    for (const char* old :
         {"DDP_impl", "activations_checkpoint_method", "checkpoint_activations"}) {
      if (last.count(old) > 0 && style != megatron_style::config) {
        r.put("/options/stack", "megatron-2021",
              place{file, at(old).line, at(old).column,
                    at(old).key + " (a Megatron-LM v2 flag: the megatron-2021 stack)"});
        if (const auto ddp = text("DDP_impl"); ddp == "torch") {
          r.put("/options/dp_overlap", 1.0, at("DDP_impl"));
        }
        break;
      }
    }
    // Megatron-Core's own switches, which the megatron-core stack reads as Megatron does
    // (docs/stacks.md).
    for (const char* flag : {"tp_comm_overlap", "overlap_grad_reduce", "overlap_param_gather",
                             "grad_reduce_in_bf16", "use_precision_aware_optimizer"}) {
      if (on(flag)) {
        r.put(std::string("/options/") + flag, true, at(flag));
      }
    }
    // --cross-entropy-loss-fusion (store_true) with its --cross-entropy-fusion-impl, or a
    // Megatron-Bridge model.cross_entropy_loss_fusion: true or false. The impl counts only with
    // the fusion on (a Bridge dump writes its default impl either way).
    if (on("cross_entropy_loss_fusion")) {
      r.put("/options/cross_entropy_loss_fusion", true, at("cross_entropy_loss_fusion"));
      if (const auto impl = text("cross_entropy_fusion_impl")) {
        r.put("/options/cross_entropy_fusion_impl", *impl, at("cross_entropy_fusion_impl"));
      }
    } else if (off("cross_entropy_loss_fusion")) {
      r.put("/options/no_cross_entropy_loss_fusion", true, at("cross_entropy_loss_fusion"));
    }
    // --no-gradient-accumulation-fusion (dest gradient_accumulation_fusion, store_false), or a
    // Megatron-Bridge model.gradient_accumulation_fusion: false.
    if (off("gradient_accumulation_fusion")) {
      r.put("/options/no_gradient_accumulation_fusion", true, at("gradient_accumulation_fusion"));
    }
    // The precision-aware optimizer's dtypes (optimizer_states.hpp), in the flags' spelling;
    // a Megatron-Bridge dump may write torch's names.
    for (const char* flag :
         {"main_grads_dtype", "main_params_dtype", "exp_avg_dtype", "exp_avg_sq_dtype"}) {
      if (const auto dtype = text(flag)) {
        optimizer_dtype d{};
        try {
          d = parse_optimizer_dtype(*dtype, flag);
        } catch (const invalid_spec& e) {
          fail(at(flag), e.detail());
        }
        constexpr std::array<const char*, 4> names{"fp32", "fp16", "bf16", "fp8"};
        r.put(std::string("/options/") + flag, names[static_cast<std::size_t>(d)], at(flag));
      }
    }
  }

  /// Megatron-FSDP (--use-megatron-fsdp): --data-parallel-sharding-strategy no_shard, optim,
  /// optim_grads, optim_grads_params shard nothing, the optimizer state, and the gradients, and
  /// the parameters too over DP: ZeRO 0 to 3. The flag's default is the release's
  /// (megatron/training/arguments.py): 'no_shard' up to core_v0.17.1 (9539a12, 266f1c97),
  /// 'optim_grads_params' from core_v0.18.0 (ba7b5eb) on; a Megatron-Bridge ddp: section is a
  /// DistributedDataParallelConfig, whose field defaults to 'no_shard' at every release
  /// (megatron/core/distributed/distributed_data_parallel_config.py, core_v0.17.1 to d98e8a6).
  void map_megatron_fsdp() {
    std::string strategy;
    place from = at("data_parallel_sharding_strategy");
    if (const auto given = text("data_parallel_sharding_strategy")) {
      strategy = *given;
    } else if (style == megatron_style::config) {
      strategy = "no_shard";
      from = place{file, 0, 0,
                   "ddp.data_parallel_sharding_strategy (DistributedDataParallelConfig's "
                   "default, no_shard)"};
    } else if (core_minor && *core_minor <= 17) {
      strategy = "no_shard";
      from = place{file, 0, 0,
                   fmt::format("--data-parallel-sharding-strategy (the default of core_v0.{}, "
                               "no_shard)",
                               *core_minor)};
    } else {
      strategy = "optim_grads_params";
      from = place{file, 0, 0,
                   "--data-parallel-sharding-strategy (Megatron-LM's default from core_v0.18, "
                   "optim_grads_params)"};
      if (!core_minor) {
        r.warn(opts, at("use_megatron_fsdp"),
               fmt::format("the {} does not name its Megatron-LM release and gives no {}: taken "
                           "as optim_grads_params (ZeRO-3), the default from core_v0.18; up to "
                           "core_v0.17 it was no_shard (ZeRO-0)",
                           style == megatron_style::config ? "file" : "script",
                           spelled("data_parallel_sharding_strategy")));
      }
    }
    const int zero = strategy == "no_shard"             ? 0
                     : strategy == "optim"              ? 1
                     : strategy == "optim_grads"        ? 2
                     : strategy == "optim_grads_params" ? 3
                                                        : -1;
    if (zero < 0) {
      fail(from, fmt::format("{} is not a Megatron-FSDP sharding strategy (no_shard, optim, "
                             "optim_grads, optim_grads_params)",
                             quote_value(strategy)));
    }
    (void)get("use_distributed_optimizer");  // Megatron-FSDP shards by its strategy instead
    r.put("/options/zero", zero, from);
  }

  void map_gpus() {
    if (style == megatron_style::config) {
      return;
    }
    if (style == megatron_style::log) {
      put_count("/parallel/gpus", "world_size");
      (void)get("data_parallel_size");
      return;
    }
    // torchrun --nproc_per_node N --nnodes M: the job's N*M GPUs and N per node.
    const auto per_node = count("nproc_per_node");
    const auto* nodes = get("nnodes");
    if (!per_node) {
      map_slurm_gpus();
      return;
    }
    (void)get("nodes");  // torchrun's count is the job's
    (void)get("gpus_per_node");
    (void)get("ntasks_per_node");
    if (nodes == nullptr) {
      // torchrun's --nnodes defaults to "1:1" (torch/distributed/run.py): one node.
      r.put("/hardware/gpus_per_node", *per_node, at("nproc_per_node"));
      r.put("/parallel/gpus", *per_node,
            place{file, at("nproc_per_node").line, at("nproc_per_node").column,
                  fmt::format("--nproc_per_node {} (torchrun's --nnodes default, 1)", *per_node)});
      return;
    }
    r.put("/hardware/gpus_per_node", *per_node, at("nproc_per_node"));
    if (!nodes->unresolved.empty()) {
      unresolved(*nodes, "a whole number of nodes");
    }
    const auto n = count("nnodes");
    r.put("/parallel/gpus", *per_node * *n,
          place{file, nodes->where.line, nodes->where.column,
                fmt::format("--nproc_per_node {} x --nnodes {}", *per_node, *n)});
  }

  /// Without torchrun's flags, Slurm's: sbatch --nodes N (or #SBATCH, -N) times the GPUs per
  /// node from --gpus-per-node ([type:]G), else GPUS_PER_NODE, else --ntasks-per-node (one
  /// process per GPU, as SC21's SRUN.sh runs pretrain_gpt.py under srun).
  void map_slurm_gpus() {
    const auto* nodes = get("nodes");
    if (nodes == nullptr) {
      (void)get("gpus_per_node");
      (void)get("ntasks_per_node");
      return;
    }
    if (!nodes->unresolved.empty()) {
      unresolved(*nodes, "a whole number of nodes");
    }
    if (nodes->value.find('-') != std::string::npos) {
      fail(nodes->where, fmt::format("{} is a range of node counts; tpcost costs one job size: "
                                     "give --gpus N with the command",
                                     quote_value(nodes->value)));
    }
    const auto n = count("nodes");
    std::optional<std::int64_t> per_node;
    std::string from;
    place at_per_node;
    for (const char* dest : {"gpus_per_node", "GPUS_PER_NODE", "ntasks_per_node"}) {
      auto* a = get(dest);
      if (a == nullptr || per_node) {
        continue;
      }
      if (!a->unresolved.empty()) {
        unresolved(*a, "a whole number of GPUs per node");
      }
      auto& v = last[dest].value;
      if (const auto colon = v.rfind(':'); colon != std::string::npos) {
        v = v.substr(colon + 1);  // --gpus-per-node=a100:8
      }
      per_node = count(dest);
      from = a->where.key;
      at_per_node = a->where;
    }
    if (!per_node) {
      return;  // the GPUs per node are not stated: --gpus with the command
    }
    r.put("/hardware/gpus_per_node", *per_node, at_per_node);
    r.put("/parallel/gpus", *n * *per_node,
          place{nodes->where.file, nodes->where.line, nodes->where.column,
                fmt::format("{} {} x {} {}", nodes->where.key, *n, from, *per_node)});
  }

  /// The degrees and batch sizes Megatron's validate_args refuses (arguments.py, core_r0.14):
  /// the GPUs a multiple of t·p·cp, the global batch a multiple of d·b, the micro-batch no
  /// larger than the global batch, EP dividing the experts. Each names the file and line.
  void refuse_contradictions() {
    const auto value = [&](const char* pointer) -> std::int64_t {
      const auto ptr = nlohmann::json::json_pointer(pointer);
      return r.config.contains(ptr) ? r.config[ptr].get<std::int64_t>() : 0;
    };
    const auto where = [&](const char* pointer) { return r.at[pointer]; };
    const auto micro = value("/batch/micro_batch");
    const auto global = value("/batch/global_batch");
    if (micro != 0 && global != 0 && micro > global) {
      fail(where("/batch/micro_batch"),
           fmt::format("the micro-batch {} is larger than the global batch {}", micro, global));
    }
    const auto experts = value("/model/experts");
    const auto ep = value("/parallel/ep");
    if (experts != 0 && ep != 0 && experts % ep != 0) {
      fail(where("/parallel/ep"), fmt::format("EP {} does not divide the {} experts", ep, experts));
    }
    const auto gpus = value("/parallel/gpus");
    const auto model = value("/parallel/tp") * value("/parallel/pp") *
                       std::max<std::int64_t>(1, value("/parallel/cp"));
    if (gpus == 0 || model == 0) {
      return;
    }
    if (gpus % model != 0) {
      fail(where("/parallel/gpus"),
           fmt::format("{} GPUs are not a multiple of t*p*cp = {}*{}*{} = {}", gpus,
                       value("/parallel/tp"), value("/parallel/pp"),
                       std::max<std::int64_t>(1, value("/parallel/cp")), model));
    }
    const auto d = gpus / model;
    if (micro != 0 && global != 0 && global % (d * micro) != 0) {
      fail(where("/batch/global_batch"),
           fmt::format("G = {} is not a multiple of d*b = {}*{} = {} (d = {} GPUs / t*p*cp {})",
                       global, d, micro, d * micro, gpus, model));
    }
  }

  void report_ignored() {
    std::size_t quiet = 0;
    for (const auto& [dest, a] : last) {
      if (used.count(&a) > 0) {
        continue;
      }
      if (from_log) {
        ++quiet;
        continue;
      }
      std::string why;
      if (!a.unresolved.empty()) {
        why = "unresolved ";
        for (const auto& n : a.unresolved) {
          why += (why.size() > 11 ? ", " : "") + (n.front() == '$' ? n : "$" + n);
        }
      }
      r.ignore(a.where, why);
    }
    if (quiet > 0) {
      r.ignore(place{file, 0, 0, {}},
               fmt::format("{} other arguments (optimizer, data, logging, checkpointing: no "
                           "effect on the step model)",
                           quiet));
    }
  }
};

}  // namespace

void map_megatron(std::vector<megatron_arg> args, reading& r, const read_options& opts,
                  const std::string& file, megatron_style style, std::optional<int> core_minor) {
  megatron_mapping m{r, opts, file, style, style != megatron_style::script, {}, {}, core_minor, {}};
  m.collect(std::move(args));
  m.map();
}

reading read_megatron_script(const std::string& text, const std::string& file,
                             const read_options& opts) {
  reading r;
  r.format = source_format::megatron_script;
  shell_reader sh{text, file, opts};
  {
    std::error_code ec;  // absolute: `pwd`/CONFIG.sh must not be taken from the folder again
    const auto dir = std::filesystem::absolute(file == "-" ? "." : shell_reader::folder(file), ec);
    sh.sources->launch_dir = ec ? "." : dir.lexically_normal().string();
    sh.sources->top = std::filesystem::path(file).lexically_normal().string();
  }
  // A batch script's own #SBATCH lines: the job size, and the SLURM_* variables Slurm sets from
  // it for the commands (`torchrun --nnodes $SLURM_NNODES`; slurm sbatch(1) "OUTPUT ENVIRONMENT
  // VARIABLES").
  auto directives = sbatch_directives(text, file);
  for (const auto& d : directives) {
    for (const char* var :
         d.dest == "nodes" ? std::vector<const char*>{"SLURM_NNODES", "SLURM_JOB_NUM_NODES"}
         : d.dest == "gpus_per_node" ? std::vector<const char*>{"SLURM_GPUS_PER_NODE"}
                                     : std::vector<const char*>{"SLURM_NTASKS_PER_NODE"}) {
      if (opts.set.count(var) == 0) {
        sh.vars[var] = d.value;
      }
    }
  }
  auto args = script_args(sh);
  // The command line (sbatch's) wins over the #SBATCH lines; the variable GPUS_PER_NODE, which
  // launch scripts set for torchrun's --nproc_per_node, counts where only a node count is given.
  const auto given = [&args](const char* dest) {
    return std::any_of(args.begin(), args.end(),
                       [dest](const megatron_arg& a) { return a.dest == dest; });
  };
  std::vector<megatron_arg> job;
  for (auto& d : directives) {
    if (!given(d.dest.c_str())) {
      job.push_back(std::move(d));
    }
  }
  args.insert(args.begin(), std::make_move_iterator(job.begin()),
              std::make_move_iterator(job.end()));
  if (given("nodes") && !given("nproc_per_node")) {
    if (const auto s = opts.set.find("GPUS_PER_NODE"); s != opts.set.end()) {
      args.push_back({"GPUS_PER_NODE", s->second, "--set GPUS_PER_NODE=" + s->second,
                      place{file, 0, 0, "--set GPUS_PER_NODE"}});
    } else if (const auto g = sh.vars.find("GPUS_PER_NODE"); g != sh.vars.end()) {
      args.push_back({"GPUS_PER_NODE", g->second, "GPUS_PER_NODE=" + g->second,
                      place{sh.assigned_on["GPUS_PER_NODE"].file,
                            sh.assigned_on["GPUS_PER_NODE"].line, 0, "GPUS_PER_NODE"}});
    }
  }
  static const std::set<std::string> core = {"tensor_model_parallel_size",
                                             "pipeline_model_parallel_size",
                                             "num_layers",
                                             "hidden_size",
                                             "num_attention_heads",
                                             "micro_batch_size",
                                             "global_batch_size",
                                             "seq_length"};
  if (std::none_of(args.begin(), args.end(),
                   [](const megatron_arg& a) { return core.count(a.dest) > 0; })) {
    fail(place{file, 1, 0, {}},
         "no Megatron-LM arguments found (none of --tensor-model-parallel-size, "
         "--pipeline-model-parallel-size, --num-layers, --hidden-size, --micro-batch-size, "
         "--global-batch-size, ...)");
  }
  // The Megatron-LM release a script names (a `git checkout core_r0.17.0`, a container tag
  // core_v0.18.0...), for the defaults that changed between releases.
  std::optional<int> release;
  std::string all = text;
  for (const auto& sourced : sh.sources->names) {
    all += '\n';
    all += sourced;  // the sourced files' texts (and names)
  }
  for (const auto& [name, value] : opts.set) {
    all += "\n" + value;  // --set MCORE_RELEASE=core_v0.17.1
  }
  for (const char* tag : {"core_v0.", "core_r0."}) {
    for (auto at = all.find(tag); at != std::string::npos; at = all.find(tag, at + 1)) {
      int minor = 0;
      const auto* begin = all.data() + at + 8;
      const auto [end, ec] = std::from_chars(begin, all.data() + all.size(), minor);
      if (ec == std::errc() && end != begin && minor < 1000) {
        release = release ? std::max(*release, minor) : minor;
      }
    }
  }
  map_megatron(std::move(args), r, opts, file, megatron_style::script, release);
  return r;
}

reading read_megatron_log(const std::string& text, const std::string& file,
                          const read_options& opts) {
  reading r;
  r.format = source_format::megatron_log;
  // _print_args: "---- arguments ----", then "  name ..... value" sorted, then "---- end of
  // arguments ----". A launcher may prefix each line (a rank, a timestamp).
  std::vector<megatron_arg> args;
  std::size_t line_no = 0, begin_line = 0;
  bool inside = false, done = false;
  std::size_t pos = 0;
  while (pos <= text.size() && !done) {
    const auto nl = std::min(text.find('\n', pos), text.size());
    const std::string_view line(text.data() + pos, nl - pos);
    ++line_no;
    pos = nl + 1;
    if (!inside) {
      if (scan::has_arguments_banner(line) && line.find("end of") == std::string::npos) {
        inside = true;
        begin_line = line_no;
      }
      continue;
    }
    if (scan::has_end_banner(line)) {
      done = true;
      break;
    }
    if (const auto a = scan::parse_log_arg(line)) {  // not std::regex: it recursed per byte
      const std::string name(a->name), value(a->value);
      args.push_back({name, value, name + " " + value, {file, line_no, 0, name}, {}});
    }
    if (nl == text.size()) {
      break;
    }
  }
  if (!inside || args.empty()) {
    fail(place{file, begin_line > 0 ? begin_line : 1, 0, {}},
         "no Megatron-LM arguments block (the '---- arguments ----' lines a training log "
         "starts with)");
  }
  if (!done) {
    fail(place{file, begin_line, 0, {}},
         "the arguments block has no '---- end of arguments ----' line; is the log cut short?");
  }
  map_megatron(std::move(args), r, opts, file, megatron_style::log);
  return r;
}

}  // namespace tpcost::cli::formats
