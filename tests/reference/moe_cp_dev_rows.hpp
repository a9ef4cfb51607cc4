#pragma once
// The fourth-round development rows (tests/reference/moe_cp_dev_rows.json, copied from the
// development set with each row's source, notes and inferred fields, and how each is run where
// it deviates from what it states): the Qwen3-235B long-context CP rows and the DeepSeek-V3
// MXFP8 rows in moe_dev_rows.json's format (run by moe_dev_rows.hpp), the two NeMo Llama 3 8B
// B200 CP rows cp_fp8_dev_rows.json refuses in its format (cp_fp8_rows.hpp), the Llama 4 Scout
// GB200 row in gb300_b200_torchtitan_rows.json's (gb300_b200_torchtitan_rows.hpp). Nothing is
// fitted on them: the error-band validation (error_band_validate.cpp) takes plain residuals.
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace tpcost::test {

/// The rows of `set` ("moe_runs", "cp_rows", "nemo_rows") of moe_cp_dev_rows.json.
inline nlohmann::json moe_cp_dev_set(const std::string& set) {
  const std::string path = std::string(TPCOST_REFERENCE_DIR) + "/moe_cp_dev_rows.json";
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot read " + path);
  }
  return nlohmann::json::parse(in).at(set);
}

}  // namespace tpcost::test
