#include "render.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tpcost/error.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/io/json.hpp"
#include "tpcost/version.hpp"

namespace tpcost::cli {

namespace {

using text_table = std::vector<std::vector<std::string>>;  // first row is the header

/// Right-aligned columns separated by two spaces (markdown: pipes and an alignment row).
std::string layout(const text_table& table, bool markdown) {
  std::vector<std::size_t> widths(table.front().size(), 0);
  for (const auto& row : table) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  std::string out;
  for (std::size_t r = 0; r < table.size(); ++r) {
    for (std::size_t c = 0; c < table[r].size(); ++c) {
      if (markdown) {
        out += fmt::format("| {:>{}} ", table[r][c], widths[c]);
      } else {
        out += fmt::format("{}{:>{}}", c == 0 ? "" : "  ", table[r][c], widths[c]);
      }
    }
    out += markdown ? "|\n" : "\n";
    if (markdown && r == 0) {
      for (const auto w : widths) {
        out += fmt::format("| {:->{}}: ", "", w - 1);
      }
      out += "|\n";
    }
  }
  return out;
}

std::string inputs_line(const sweep_result& r) {
  return fmt::format("b={}  s={}  h={}  d={} B ({})  P={}  B={}", r.layer.batch, r.layer.seq,
                     r.layer.hidden, r.layer.element.size_bytes, r.layer.element.name,
                     io::to_string(r.device.peak), io::to_string(r.device.bandwidth));
}

std::string summary_lines(const sweep_result& r) {
  std::string out = fmt::format("t* = A/C = {} / {} = {:.2f}  (E(t*) = 50%)\n",
                                io::to_ms(r.single_gpu_compute), io::to_ms(r.comm), r.critical_tp);
  out += fmt::format("E >= {} while t <= {:.2f}; ", io::percent(r.efficiency_target),
                     r.tp_bound_for_target);
  if (r.best_swept_tp) {
    out += fmt::format("largest swept TP meeting it: {} (μ = {} there)\n", *r.best_swept_tp,
                       io::percent(r.utilisation_at_best));
  } else {
    out += "no swept TP meets it\n";
  }
  return out;
}

text_table sweep_table(const sweep_result& r) {
  text_table t{
      {"TP", "compute ms", "comm ms", "total ms", "overlap ms", "R", "efficiency", "speed-up"}};
  for (const auto& row : r.rows) {
    t.push_back({fmt::format("{}", row.tp), fmt::format("{:.3f}", row.compute.value() * 1e3),
                 fmt::format("{:.3f}", row.comm.value() * 1e3),
                 fmt::format("{:.3f}", row.serial.value() * 1e3),
                 fmt::format("{:.3f}", row.overlapped.value() * 1e3),
                 fmt::format("{:.4f}", row.ratio), io::percent(row.efficiency),
                 fmt::format("{:.2f}x", row.speedup)});
  }
  return t;
}

std::string sweep_csv(const sweep_result& r) {
  std::string out =
      "tp,compute_s,comm_s,serial_s,overlapped_s,ratio,efficiency,comm_share,speedup\n";
  for (const auto& row : r.rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", row.tp, row.compute.value(),
                       row.comm.value(), row.serial.value(), row.overlapped.value(), row.ratio,
                       row.efficiency, row.comm_share, row.speedup);
  }
  return out;
}

std::string explain_text(const tp_explanation& x) {
  const auto& r = x.sweep;
  const auto& row = r.rows.front();
  const auto& L = r.layer;
  std::string o;
  o += fmt::format("One transformer layer at TP t = {}, the seed's model, forward + backward.\n",
                   row.tp);
  o += fmt::format("Inputs: {}\n\n", inputs_line(r));
  o += "1. Message of one all-reduce: the full activation, whatever t is\n";
  o += fmt::format("   M_msg = b*s*h*d = {} * {} * {} * {} B = {:.0f} B = {}\n", L.batch, L.seq,
                   L.hidden, L.element.size_bytes, r.message.value(), io::to_string(r.message));
  o += "2. TP traffic per layer: 2 all-reduces forward, 2 backward\n";
  o += fmt::format("   M_layer = 4*M_msg = {:.0f} B = {}\n", r.comm_bytes.value(),
                   io::to_string(r.comm_bytes));
  o += "3. Compute per layer (Megatron's 72*b*s*h^2, attention scores left out)\n";
  o += fmt::format("   F_layer = 72*b*s*h^2 = 72 * {} * {} * {}^2 = {:.4e} FLOP = {}\n", L.batch,
                   L.seq, L.hidden, r.layer_flops.value(), io::to_string(r.layer_flops));
  o += "4. Compute time of the whole layer on one GPU\n";
  o += fmt::format("   A = F_layer / P = {} / {} = {}\n", io::to_string(r.layer_flops),
                   io::to_string(r.device.peak), io::to_ms(r.single_gpu_compute));
  o += fmt::format("5. Compute time per GPU at t = {}: split evenly\n", row.tp);
  o += fmt::format("   T_calc = A / t = {} / {} = {}\n", io::to_ms(r.single_gpu_compute), row.tp,
                   io::to_ms(row.compute));
  o += "6. Comm time per GPU: the same at every t\n";
  o += fmt::format("   C = T_comm = M_layer / B = {} / {} = {}\n", io::to_string(r.comm_bytes),
                   io::to_string(r.device.bandwidth), io::to_ms(row.comm));
  o += "7. Comm/compute ratio\n";
  o += fmt::format("   R = T_comm / T_calc = {} / {} = {:.6f}\n", io::to_ms(row.comm),
                   io::to_ms(row.compute), row.ratio);
  o += fmt::format("     = t*P*d / (18*h*B) = {} * {:.6g} * {} / (18 * {} * {:.6g}) = {:.6f}\n",
                   row.tp, r.device.peak.value(), L.element.size_bytes, L.hidden,
                   r.device.bandwidth.value(), x.ratio_closed_form);
  o += "8. Efficiency and comm share\n";
  o += fmt::format("   E = 1/(1+R) = {}, comm share R/(1+R) = {}\n", io::percent(row.efficiency),
                   io::percent(row.comm_share));
  o += "9. Step time of the layer\n";
  o += fmt::format("   serial  T = T_calc + T_comm = {}\n", io::to_ms(row.serial));
  o += fmt::format("   overlap T_opt = max(T_calc, T_comm) = {} (the best overlap can do)\n",
                   io::to_ms(row.overlapped));
  o += fmt::format("   speed-up A / T = {:.3f}x\n", row.speedup);
  o += "10. Critical degree\n";
  o += fmt::format("   t* = A / C = {:.3f}: at t*, T_comm = T_calc and E = 50%\n", r.critical_tp);
  o += fmt::format("   E >= {} needs t <= t*(1-E)/E = {:.3f}", io::percent(r.efficiency_target),
                   r.tp_bound_for_target);
  o += fmt::format("; the rule of thumb t <= t*/2 = {:.3f} gives E = {}\n", x.half_critical_tp,
                   io::percent(x.efficiency_at_half_critical));
  return o;
}

}  // namespace

output_format parse_output_format(std::string_view text, std::string_view allowed) {
  static constexpr std::pair<std::string_view, output_format> names[] = {
      {"table", output_format::table}, {"json", output_format::json},
      {"csv", output_format::csv},     {"markdown", output_format::markdown},
      {"junit", output_format::junit},
  };
  for (const auto& [name, format] : names) {
    if (text == name && allowed.find(name) != std::string_view::npos) {
      return format;
    }
  }
  throw invalid_spec("--format", fmt::format("'{}' is not one of {}", text, allowed));
}

std::string render_sweep(const sweep_result& result, output_format format) {
  switch (format) {
    case output_format::json:
      return nlohmann::json(result).dump(2) + "\n";
    case output_format::csv:
      return sweep_csv(result);
    case output_format::markdown:
      return layout(sweep_table(result), true);
    case output_format::table:
    case output_format::junit:
      break;
  }
  return fmt::format(
      "TP sweep of one transformer layer, forward + backward (the seed's model)\n"
      "inputs:    {}\n"
      "per layer: 4 all-reduces x {} = {} per GPU; {} of compute\n\n{}\n{}",
      inputs_line(result), io::to_string(result.message), io::to_string(result.comm_bytes),
      io::to_string(result.layer_flops), layout(sweep_table(result), false), summary_lines(result));
}

std::string render_explain(const tp_explanation& explanation, output_format format) {
  if (format == output_format::json) {
    nlohmann::json j = explanation.sweep;
    j["schema"] = "tpcost.explain/1";
    j["ratio_closed_form"] = explanation.ratio_closed_form;
    j["half_critical_tp"] = explanation.half_critical_tp;
    j["efficiency_at_half_critical"] = explanation.efficiency_at_half_critical;
    return j.dump(2) + "\n";
  }
  return explain_text(explanation);
}

namespace {

bool passed(const file_check& f) {
  return f.error.empty() &&
         std::all_of(f.outcomes.begin(), f.outcomes.end(), [](const auto& o) { return o.passed; });
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
      return fmt::format("{} t*/2 = {:.2f}", relation, o.limit);
    case rule_kind::tp_within_node:
      return fmt::format("{} {:.0f} GPUs per node", relation, o.limit);
  }
  return "?";
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even escaped; drop them.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') {
          out += c;
        }
    }
  }
  return out;
}

/// GitHub workflow-command escaping of a property or message.
std::string gha_escape(std::string_view text, bool property) {
  std::string out;
  for (const char c : text) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else if (property && c == ':') {
      out += "%3A";
    } else if (property && c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
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
      out += fmt::format("{}: INVALID (see the error above)\n", f.source);
      continue;
    }
    failed += passed(f) ? 0U : 1U;
    out += fmt::format("{}{}{} (TP {})\n", f.source, f.name.empty() ? "" : ": ", f.name, f.tp);
    text_table t;
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
      rules.push_back({{"rule", rule_name(o.kind)},
                       {"measured", o.measured},
                       {"relation", is_upper_bound(o.kind) ? "<=" : ">="},
                       {"limit", o.limit},
                       {"passed", o.passed}});
    }
    nlohmann::json entry = {{"file", f.source}, {"passed", passed(f)}, {"rules", rules}};
    if (!f.name.empty()) {
      entry["name"] = f.name;
    }
    if (f.error.empty()) {
      entry["tp"] = f.tp;
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

std::string check_junit(const std::vector<file_check>& files) {
  std::size_t tests = 0;
  std::size_t failures = 0;
  std::size_t errors = 0;
  std::string suites;
  for (const auto& f : files) {
    std::string cases;
    std::size_t suite_failures = 0;
    if (!f.error.empty()) {
      ++errors;
      cases += fmt::format(
          "    <testcase name=\"load\" classname=\"{}\">\n      <error message=\"{}\"/>\n"
          "    </testcase>\n",
          xml_escape(f.source), xml_escape(f.error));
    }
    for (const auto& o : f.outcomes) {
      cases += fmt::format("    <testcase name=\"{}\" classname=\"{}\">", rule_name(o.kind),
                           xml_escape(f.source));
      if (!o.passed) {
        ++suite_failures;
        cases += fmt::format("\n      <failure message=\"{} {}\"/>\n    ",
                             xml_escape(measured_text(o)), xml_escape(limit_text(o)));
      }
      cases += "</testcase>\n";
    }
    const std::size_t suite_tests = f.outcomes.size() + (f.error.empty() ? 0 : 1);
    tests += suite_tests;
    failures += suite_failures;
    suites += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n{}  </testsuite>\n",
        xml_escape(f.source), suite_tests, suite_failures, f.error.empty() ? 0 : 1, cases);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"tpcost check\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n{}"
      "</testsuites>\n",
      tests, failures, errors, suites);
}

}  // namespace

std::string render_check(const std::vector<file_check>& files, output_format format) {
  switch (format) {
    case output_format::json:
      return check_json(files).dump(2) + "\n";
    case output_format::junit:
      return check_junit(files);
    default:
      return check_text(files);
  }
}

std::string render_annotations(const std::vector<file_check>& files) {
  std::string out;
  for (const auto& f : files) {
    if (!f.error.empty()) {
      out += fmt::format("::error file={},title=tpcost check::{}\n", gha_escape(f.source, true),
                         gha_escape(f.error, false));
    }
    for (const auto& o : f.outcomes) {
      if (!o.passed) {
        out += fmt::format("::error file={},title=tpcost {}::{} (limit {})\n",
                           gha_escape(f.source, true), rule_name(o.kind),
                           gha_escape(measured_text(o), false), gha_escape(limit_text(o), false));
      }
    }
  }
  return out;
}

int check_exit_code(const std::vector<file_check>& files) {
  bool any_failed = false;
  for (const auto& f : files) {
    if (!f.error.empty()) {
      return 2;
    }
    any_failed = any_failed || !passed(f);
  }
  return any_failed ? 1 : 0;
}

}  // namespace tpcost::cli
