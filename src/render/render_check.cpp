#include "render/render_check.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/check_rule_text.hpp"
#include "render/render_check_ci.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/version.hpp"

namespace tpcost::cli {

namespace {

/// The step's error band, the edge the step rules were judged at, and the rules that pass at
/// the central value only.
std::string check_band_text(const file_check& f) {
  if (f.band.empty()) {
    return {};
  }
  std::string out =
      fmt::format("  step time {}; step rules judged at the {}\n", f.band,
                  f.pessimistic ? "band's pessimistic edge (--pessimistic)"
                                : "central value (--pessimistic: at the band's edge)");
  for (const auto& c : f.central_only) {
    out += fmt::format("  passes only at the central value: {}\n", c);
  }
  return out;
}

std::string check_text(const std::vector<file_check>& files) {
  std::string out;
  std::size_t failed = 0;
  std::size_t invalid = 0;
  for (const auto& f : files) {
    if (!f.error.empty()) {
      ++invalid;
      // Sanitised as every line that names the file: a name with a newline and "::error" would
      // otherwise start a workflow command on stdout.
      out += fmt::format("{}: INVALID (see the error above)\n", output_safe(f.source));
      continue;
    }
    failed += check_passed(f) ? 0U : 1U;
    if (!f.assumption.empty()) {  // before the file's verdict, as every report starts with it
      out += f.assumption + "\n";
    }
    std::string context = fmt::format("TP {}", f.tp);
    for (const auto* part : {&f.hardware, &f.model}) {
      if (!part->empty()) {
        context += "; " + *part;
      }
    }
    // A config's name and path with control bytes as \xNN: a newline in "name" would start a
    // line that a CI runner reads as a command ("::warning file=...::" under GitHub Actions).
    // The path is kept whole (it must name the file); the config's name is cut to 80 bytes.
    out += fmt::format("{}{}{} ({})\n", output_safe(f.source), f.name.empty() ? "" : ": ",
                       bounded(f.name), context);
    if (!f.step.empty()) {
      out += fmt::format("  step: {}\n", f.step);
    }
    std::vector<std::vector<std::string>> t;  // PASS/FAIL, rule, measured, limit
    for (const auto& o : f.outcomes) {
      t.push_back({o.passed ? "PASS" : "FAIL", std::string(rule_name(o.kind)), measured_text(o),
                   limit_text(o)});
    }
    std::vector<std::size_t> widths(4, 0);
    for (const auto& row : t) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        widths[c] = std::max(widths[c], row[c].size());
      }
    }
    for (const auto& row : t) {
      out += fmt::format("  {:<{}}  {:<{}}  {:<{}}  {}\n", row[0], widths[0], row[1], widths[1],
                         row[2], widths[2], row[3]);
    }
    out += check_band_text(f);
  }
  out +=
      fmt::format("{} file{} checked: {} passed, {} failed, {} invalid\n", files.size(),
                  files.size() == 1 ? "" : "s", files.size() - failed - invalid, failed, invalid);
  return out;
}

nlohmann::json check_json(const std::vector<file_check>& files) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : files) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& o : f.outcomes) {
      rules.push_back(
          {{"rule", rule_name(o.kind)},
           {"measured", o.measured},
           {"relation", is_upper_bound(o.kind) ? "<=" : ">="},
           {"unit", rule_unit(o.kind)},
           {"limit", std::isfinite(o.limit) ? nlohmann::json(o.limit) : nlohmann::json(nullptr)},
           {"passed", o.passed}});
      if (o.stage >= 0) {
        rules.back()["stage"] = o.stage;  // the fullest pipeline stage the memory rules read
      }
    }
    nlohmann::json entry = {{"file", f.source}, {"passed", check_passed(f)}, {"rules", rules}};
    if (!f.band.empty()) {
      entry["band"] = f.band;
      entry["judged_at"] = f.pessimistic ? "pessimistic" : "central";
      entry["passes_only_at_central"] = f.central_only;
    }
    if (!f.name.empty()) {
      entry["name"] = f.name;
    }
    if (f.error.empty()) {
      entry["tp"] = f.tp;
      entry["model"] = f.model;
      entry["hardware"] = f.hardware.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.hardware);
      entry["step"] = f.step.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.step);
      entry["interconnect_assumed"] =
          f.assumption.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.assumption);
    } else {
      entry["error"] = f.error;
    }
    list.push_back(entry);
  }
  return {{"schema", "tpcost.check/1"},
          {"tool", {{"name", "tpcost"}, {"version", TPCOST_VERSION}}},
          {"passed", check_exit_code(files) == 0},
          {"exit_code", check_exit_code(files)},
          {"files", list}};
}

}  // namespace

std::string render_check(const std::vector<file_check>& files, output_format format) {
  switch (format) {
    case output_format::json:
      // A file name or message that is not UTF-8 becomes U+FFFD, not a type_error (exit 4).
      return check_json(files).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    case output_format::junit:
      return check_junit(files);
    case output_format::sarif:
      return check_sarif(files);
    default:
      return check_text(files);
  }
}

int check_exit_code(const std::vector<file_check>& files) {
  bool any_failed = false;
  for (const auto& f : files) {
    if (!f.error.empty()) {
      return 2;
    }
    any_failed = any_failed || !check_passed(f);
  }
  return any_failed ? 1 : 0;
}

}  // namespace tpcost::cli
