// The error a Hugging Face config.json text gets from the reader, for the unit tests that check
// what it refuses (hf_config_test, moe_test).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tpcost/base/error.hpp"
#include "tpcost/io/hf_config.hpp"

namespace tpcost::test {

/// The message of the error that reading `text` (as file "c.json") throws, or "(no error)".
inline std::string hf_error_of(const std::string& text) {
  try {
    (void)io::from_hf_config(nlohmann::json::parse(text), "c.json", "--hf-config");
  } catch (const invalid_spec& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace tpcost::test
