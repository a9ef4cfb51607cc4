// Lists of names as configs write them: "core_attn,mlp", a script's `core_attn mlp` (nargs='+'),
// a YAML or Python list "[core_attn, mlp]" or "['attn', 'mlp']", a plan layout's
// "core_attn+mlp". One splitter for every such list, and one way to read a list onto a set of
// flags and write it back.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tpcost {

/// Calls `visit(name)` for each name `text` lists, in order: the runs of characters between
/// separators (comma, space, a list's brackets and quotes, and '+' where `plus_separates`);
/// empty runs are skipped.
template <class Visit>
constexpr void for_each_listed_name(std::string_view text, bool plus_separates, Visit&& visit) {
  const auto separates = [&](char c) {
    return c == ',' || c == ' ' || c == '[' || c == ']' || c == '\'' || c == '"' ||
           (plus_separates && c == '+');
  };
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || separates(text[i])) {
      if (i > start) {
        visit(text.substr(start, i - start));
      }
      start = i + 1;
    }
  }
}

/// The set of flags a list of names gives: each name looked up in `names` (entries with a
/// `name` and a one-bit `module`); `unknown(name)` is thrown for a name the table lacks.
template <class Names, class Unknown>
unsigned listed_flags(std::string_view text, bool plus_separates, const Names& names,
                      Unknown&& unknown) {
  unsigned flags = 0;
  for_each_listed_name(text, plus_separates, [&](std::string_view word) {
    bool known = false;
    for (const auto& n : names) {
      if (word == n.name) {
        flags |= static_cast<unsigned>(n.module);
        known = true;
      }
    }
    if (!known) {
      throw unknown(word);
    }
  });
  return flags;
}

/// The names of the flags set in `flags`, in the table's order, joined by `separator`; "none"
/// for an empty set.
template <class Names>
std::string listed_names(const Names& names, unsigned flags, char separator = ',') {
  std::string out;
  for (const auto& n : names) {
    if ((flags & static_cast<unsigned>(n.module)) != 0U) {
      if (!out.empty()) {
        out += separator;
      }
      out += n.name;
    }
  }
  return out.empty() ? "none" : out;
}

}  // namespace tpcost
