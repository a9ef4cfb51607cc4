#include "render/check_rule_text.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "tpcost/io/format.hpp"

namespace tpcost::cli {

namespace {

/// Memory in GiB, as `step` prints it: "12.3 GiB", "-7.6 GiB".
std::string gib_text(double bytes_value) {
  return fmt::format("{:.1f} GiB", bytes_value / units::GiB.value());
}

}  // namespace

bool check_passed(const file_check& f) {
  return f.error.empty() &&
         std::all_of(f.outcomes.begin(), f.outcomes.end(), [](const auto& o) { return o.passed; });
}

/// The unit of a rule's measured value and limit in the JSON report (SI), or null.
nlohmann::json rule_unit(rule_kind kind) {
  switch (kind) {
    case rule_kind::min_memory_headroom:
    case rule_kind::fits_memory:
      return "B";
    case rule_kind::max_step_time:
      return "s";
    default:
      return nullptr;
  }
}

/// "E = 73.4%", "R = 0.3617", "t = 16": the measured side of a rule.
std::string measured_text(const rule_outcome& o) {
  switch (o.kind) {
    case rule_kind::min_efficiency:
      return "E = " + io::percent(o.measured);
    case rule_kind::min_utilisation:
      return "mu = " + io::percent(o.measured);
    case rule_kind::max_ratio:
      return fmt::format("R = {:.4f}", o.measured);
    case rule_kind::tp_within_half_critical:
    case rule_kind::tp_within_node:
      return fmt::format("t = {:.0f}", o.measured);
    case rule_kind::min_mfu:
      return "MFU = " + io::percent(o.measured);
    case rule_kind::min_memory_headroom:
      return o.measured >= 0.0 ? fmt::format("headroom = {}", gib_text(o.measured))
                               : fmt::format("headroom = {} (does not fit: stage {})",
                                             gib_text(o.measured), o.stage);
    case rule_kind::max_step_time:
      return "step = " + io::to_string(seconds(o.measured));
    case rule_kind::fits_memory:
      return fmt::format("stage {} needs {}", o.stage, gib_text(o.measured));
  }
  return "?";
}

/// ">= 70.0%", "<= t*/2 = 11.06": the limit side of a rule.
std::string limit_text(const rule_outcome& o) {
  const char* relation = is_upper_bound(o.kind) ? "<=" : ">=";
  switch (o.kind) {
    case rule_kind::min_efficiency:
    case rule_kind::min_utilisation:
      return fmt::format("{} {}", relation, io::percent(o.limit));
    case rule_kind::max_ratio:
      return fmt::format("{} {}", relation, o.limit);
    case rule_kind::tp_within_half_critical:
      return std::isfinite(o.limit)
                 ? fmt::format("{} t*/2 = {:.2f}", relation, o.limit)
                 : fmt::format("{} t*/2 (no TP communication: t* unbounded)", relation);
    case rule_kind::tp_within_node:
      return fmt::format("{} {:.0f} GPUs per node", relation, o.limit);
    case rule_kind::min_mfu:
      return fmt::format("{} {}", relation, io::percent(o.limit));
    case rule_kind::min_memory_headroom:
      return fmt::format("{} {}", relation, gib_text(o.limit));
    case rule_kind::max_step_time:
      return fmt::format("{} {}", relation, io::to_string(seconds(o.limit)));
    case rule_kind::fits_memory:
      return fmt::format("{} {} per GPU", relation, gib_text(o.limit));
  }
  return "?";
}

/// "E = 68.7%, below the 70.0% floor": a failed rule as a sentence that reads as a failure (a
/// bare "E = 68.7% >= 70.0%" reads as the claim that it holds).
std::string failure_text(const rule_outcome& o) {
  const bool upper = is_upper_bound(o.kind);
  const auto side = upper ? ", above " : ", below ";
  switch (o.kind) {
    case rule_kind::min_efficiency:
    case rule_kind::min_utilisation:
    case rule_kind::min_mfu:
      return fmt::format("{}{}the {} floor", measured_text(o), side, io::percent(o.limit));
    case rule_kind::max_ratio:
      return fmt::format("{}{}the {} ceiling", measured_text(o), side, o.limit);
    case rule_kind::tp_within_half_critical:
      return std::isfinite(o.limit)
                 ? fmt::format("{}{}t*/2 = {:.2f}", measured_text(o), side, o.limit)
                 : measured_text(o);
    case rule_kind::tp_within_node:
      return fmt::format("{}, more than the {:.0f} GPUs of a node", measured_text(o), o.limit);
    case rule_kind::min_memory_headroom:
      return fmt::format("{}{}the {} floor", measured_text(o), side, gib_text(o.limit));
    case rule_kind::max_step_time:
      return fmt::format("{}{}the {} ceiling", measured_text(o), side,
                         io::to_string(seconds(o.limit)));
    case rule_kind::fits_memory:
      return fmt::format("does not fit: stage {} needs {} per GPU, {} more than the {} there is",
                         o.stage, gib_text(o.measured), gib_text(o.measured - o.limit),
                         gib_text(o.limit));
  }
  return measured_text(o);
}

}  // namespace tpcost::cli
