// Reading untrusted JSON (HF configs, interconnect profiles, nccl-tests reports): a bounded
// nesting depth while parsing, and a bounded, non-recursive brief of a value in an error.
//
// nlohmann's dump() recurses once per level, so echoing a file of 75,000 nested arrays in an
// error overflowed the stack (the copy constructor and operator== recurse too); a 60 KB string
// made a 60 KB error line; and a number beyond a double ("1e400") is a json::out_of_range, not
// a parse_error, which escaped as an internal error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"

namespace tpcost {

/// The deepest nesting an input file may have: the formats read here are at most 6 deep
/// (an HF config's text_config/rope_scaling, a profile's profiles/N/segments/N); the config
/// loader's own limit is 16 (src/formats/config.cpp).
inline constexpr int max_json_depth = 64;

/// A scalar as written in the file (at most ~80 bytes of it); an array or object by its size,
/// without visiting its members.
inline std::string json_brief(const nlohmann::json& value) {
  if (value.is_array()) {
    return "an array of " + std::to_string(value.size()) + " items";
  }
  if (value.is_object()) {
    return "an object of " + std::to_string(value.size()) + " keys";
  }
  return bounded(value.dump());  // a scalar: dump() does not recurse
}

/// The text of a json::exception without its "[json.exception.parse_error.101] " prefix.
inline std::string json_error_text(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (const auto close = what.find("] "); close != std::string::npos) {
    what = what.substr(close + 2);
  }
  return bounded(what, 160);
}

/// Parses `text`; throws invalid_spec(field, prefix + "not valid JSON: ...") for a syntax
/// error, a number beyond a double, or nesting deeper than `max_json_depth`.
inline nlohmann::json parse_untrusted_json(std::string_view text, const std::string& field,
                                           const std::string& prefix = "") {
  const auto callback = [&](int depth, nlohmann::json::parse_event_t /*event*/,
                            nlohmann::json& /*parsed*/) {
    if (depth >= max_json_depth) {  // depth counts from 0 at the top level
      throw invalid_spec(field, prefix + "nesting deeper than " + std::to_string(max_json_depth) +
                                    " levels; no input of this kind is that deep");
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, callback);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e400
    throw invalid_spec(field, prefix + "not valid JSON: " + json_error_text(e));
  }
}

}  // namespace tpcost
