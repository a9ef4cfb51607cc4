// Reading a list of parallel degrees: "1,2,4,8", "1..64" (doubling), "1..16:+1" (every
// integer), "2..96:x3" (a factor), or any comma-separated mix.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tpcost/base/error.hpp"
#include "tpcost/base/parse.hpp"

namespace tpcost {

/// At most this many degrees in one list: a sweep is a table, not a data set. No model takes a
/// TP degree above its 128 heads, and 4,096 rows are already more than any table is read for;
/// the bound also keeps one list's parse under 2 ms under ASan (docs/fuzzing.md), where 10^6
/// took 250-400 ms and slowed the fuzzer to a crawl.
inline constexpr std::size_t max_degree_count = 4096;

namespace detail {

inline void append_range(std::string_view field, std::string_view item, std::int64_t first,
                         std::int64_t last, std::string_view step_text,
                         std::vector<std::int64_t>& out) {
  bool additive = false;
  std::int64_t step = 2;
  if (!step_text.empty()) {
    const char kind = step_text.front();
    if (kind != '+' && kind != 'x') {
      fail(field, item, "has a step that is neither +N (add) nor xN (multiply), e.g. 1..16:+1");
    }
    additive = kind == '+';
    step = parse_count(step_text.substr(1), field);
  }
  if (first < 1) {
    fail(field, item, "starts below 1; degrees are whole numbers >= 1");
  }
  if (first > last) {
    fail(field, item, "is an empty range: the first degree is larger than the last");
  }
  if ((additive && step < 1) || (!additive && step < 2)) {
    fail(field, item, "has a step that never advances; use +1 or more, or x2 or more");
  }
  for (std::int64_t d = first; d <= last;) {
    if (out.size() >= max_degree_count) {
      fail(field, item, "expands to more than 4096 degrees");
    }
    out.push_back(d);
    if (additive ? d > last - step : d > last / step) {
      break;  // the next degree would pass `last` (or overflow)
    }
    d = additive ? d + step : d * step;
  }
}

}  // namespace detail

/// Parses a degree list; the result is sorted and free of duplicates. Every degree must be
/// a whole number >= 1; `field` names the input in errors.
inline std::vector<std::int64_t> parse_degree_list(std::string_view text, std::string_view field) {
  std::vector<std::int64_t> out;
  if (detail::trim(text).empty()) {
    detail::fail(field, text, "is empty; expected degrees such as 1,2,4,8 or 1..64");
  }
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const auto item = detail::trim(rest.substr(0, comma));
    if (item.empty()) {
      detail::fail(field, text, "has an empty item; expected degrees such as 1,2,4,8 or 1..64");
    }
    const auto dots = item.find("..");
    if (dots == std::string_view::npos) {
      out.push_back(parse_count(item, field));
    } else {
      auto tail = item.substr(dots + 2);
      const auto colon = tail.find(':');
      const auto step_text =
          colon == std::string_view::npos ? std::string_view{} : tail.substr(colon + 1);
      tail = tail.substr(0, colon);
      detail::append_range(field, item, parse_count(item.substr(0, dots), field),
                           parse_count(tail, field), step_text, out);
    }
    if (out.size() > max_degree_count) {
      detail::fail(field, text, "expands to more than 4096 degrees");
    }
    if (comma == std::string_view::npos) {
      break;
    }
    rest = rest.substr(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.front() < 1) {
    detail::fail(field, text, "contains a degree below 1");
  }
  return out;
}

}  // namespace tpcost
