// "Did you mean ...?": the closest known name to a mistyped one, by edit distance.
#pragma once

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpcost {

/// Levenshtein distance between `a` and `b`, ignoring ASCII case.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// The candidate closest to `word`, if it is close enough to be a plausible typo: at most
/// a third of the word's length in edits (and at least 2), or `word` is a prefix of it.
template <class Range>
std::optional<std::string> closest_match(std::string_view word, const Range& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const std::string_view c(candidate);
    std::size_t d = edit_distance(word, c);
    if (!word.empty() && c.size() > word.size() &&
        edit_distance(word, c.substr(0, word.size())) == 0) {
      d = std::min<std::size_t>(d, 1);
    }
    if (d < best_distance) {
      best_distance = d;
      best = std::string(c);
    }
  }
  return best;
}

}  // namespace tpcost
