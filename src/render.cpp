#include "render.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tpcost/error.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/io/json.hpp"

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
      {"table", output_format::table},
      {"json", output_format::json},
      {"csv", output_format::csv},
      {"markdown", output_format::markdown},
  };
  for (const auto& [name, format] : names) {
    if (text == name && allowed.find(name) != std::string_view::npos) {
      return format;
    }
  }
  throw invalid_spec("--format", fmt::format("'{}' is not one of {}", text, allowed));
}

std::string render_sweep(const sweep_result& result, output_format format, bool quiet) {
  switch (format) {
    case output_format::json:
      return nlohmann::json(result).dump(2) + "\n";
    case output_format::csv:
      return sweep_csv(result);
    case output_format::markdown:
      return layout(sweep_table(result), true);
    case output_format::table:
      break;
  }
  if (quiet) {
    return layout(sweep_table(result), false);
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

}  // namespace tpcost::cli
