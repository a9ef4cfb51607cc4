// A check rule's outcome in words, shared by check's text, JSON and CI renderers: what was
// measured, the limit, and a failed rule as a sentence.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/file_check.hpp"

namespace tpcost::cli {

/// The file was read and every rule of it holds.
bool check_passed(const file_check& f);
/// The unit of a rule's measured value and limit in the JSON report (SI), or null.
nlohmann::json rule_unit(rule_kind kind);
/// "E = 73.4%", "R = 0.3617", "t = 16": the measured side of a rule.
std::string measured_text(const rule_outcome& o);
/// ">= 70.0%", "<= t*/2 = 11.06": the limit side of a rule.
std::string limit_text(const rule_outcome& o);
/// "E = 68.7%, below the 70.0% floor": a failed rule as a sentence.
std::string failure_text(const rule_outcome& o);

}  // namespace tpcost::cli
