#include "charts/sweep_chart.hpp"

#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tpcost/io/format.hpp"

namespace tpcost::cli {

namespace {

/// A log2 axis reads best when the degrees grow by a factor (1, 2, 4, ...); a linear one when
/// they grow by a step (1, 2, 3, ...).
chart::axis_scale scale_for(const std::vector<scaling_row>& rows) {
  if (rows.size() < 2) {
    return chart::axis_scale::linear;
  }
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (static_cast<double>(rows[i].tp) < 1.5 * static_cast<double>(rows[i - 1].tp)) {
      return chart::axis_scale::linear;
    }
  }
  return chart::axis_scale::log2;
}

/// The marker for where communication overtakes compute.
struct critical_marker {
  double at;
  std::string label;
  std::string description;
};

/// Both panels from rows and each row's layer time, the table's total: the bar is the compute
/// and the communication left exposed, so that its length is that total.
chart::figure figure_from_rows(const std::vector<scaling_row>& rows,
                               const std::vector<seconds>& totals,
                               std::optional<critical_marker> critical, std::int64_t gpus_per_node,
                               std::string compute_label, std::string comm_label) {
  chart::curve_chart curve;
  curve.title = "Efficiency E = 1/(1+R) at each swept TP degree";
  curve.x_scale = scale_for(rows);
  curve.x_title =
      curve.x_scale == chart::axis_scale::log2 ? "TP degree t (log2 scale)" : "TP degree t";
  curve.y_min = 0.0;
  curve.y_max = 1.0;
  curve.y_ticks = {{0.0, "0%"}, {0.25, "25%"}, {0.5, "50%"}, {0.75, "75%"}, {1.0, "100%"}};
  curve.rows = 8;
  curve.colour = chart::hue::green;
  for (const auto& row : rows) {
    curve.points.push_back(
        {static_cast<double>(row.tp), row.efficiency, io::percent(row.efficiency)});
    curve.x_tick_labels.push_back(fmt::format("{}", row.tp));
  }
  if (critical) {
    curve.x_markers.push_back(
        {critical->at, critical->label, critical->description, chart::hue::magenta});
  }
  curve.x_markers.push_back(
      {static_cast<double>(gpus_per_node), fmt::format("{} GPUs/node", gpus_per_node),
       fmt::format("node boundary: {} GPUs per node; larger TP groups cross nodes", gpus_per_node),
       chart::hue::cyan});
  curve.y_markers.push_back({0.5, "E = 50%", chart::hue::none});

  chart::bar_chart bars;
  bars.title = "Time per layer on one GPU: compute, then exposed communication";
  bars.label_title = "TP";
  bars.note_title = "total";
  bars.value_title = "time per layer (ms)";
  bars.segments = {{std::move(compute_label), chart::hue::green},
                   {std::move(comm_label), chart::hue::red}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const auto total = totals[i];
    bars.bars.push_back({fmt::format("{}", row.tp),
                         {row.compute.value() * 1e3, (total - row.compute).value() * 1e3},
                         io::to_ms(total)});
  }

  chart::figure fig;
  fig.title = "";
  fig.panels.emplace_back(std::move(curve));
  fig.panels.emplace_back(std::move(bars));
  return fig;
}

}  // namespace

chart::figure sweep_figure(const sweep_result& result, std::int64_t gpus_per_node) {
  std::vector<seconds> totals;
  totals.reserve(result.rows.size());
  for (const auto& r : result.rows) {
    totals.push_back(r.serial);  // the seed's table: T = T_calc + T_comm
  }
  return figure_from_rows(
      result.rows, totals,
      critical_marker{
          result.critical_tp, fmt::format("t*={:.1f}", result.critical_tp),
          fmt::format("t* = A/C = {:.2f}: T_comm = T_calc, E = 50%", result.critical_tp)},
      gpus_per_node, "compute T_calc = A/t", "comm T_comm = C, all exposed (no overlap)");
}

chart::figure sweep_figure(const refined_sweep_result& result) {
  std::vector<scaling_row> rows;
  std::vector<seconds> totals;
  rows.reserve(result.rows.size());
  totals.reserve(result.rows.size());
  for (const auto& r : result.rows) {
    rows.push_back(r.row);
    totals.push_back(r.cost.step);  // the refined table's T, with --overlap f applied
  }
  std::optional<critical_marker> critical;
  if (result.first_tp_comm_over_compute) {
    const auto t = static_cast<double>(*result.first_tp_comm_over_compute);
    critical = critical_marker{t, fmt::format("T_comm>=T_calc@{:.0f}", t),
                               fmt::format("from t = {:.0f} on, T_comm >= T_calc", t)};
  }
  return figure_from_rows(rows, totals, critical, result.topology.gpus_per_node,
                          "compute T_calc = A/t",
                          fmt::format("exposed comm (overlap f = {})", result.options.overlap));
}

}  // namespace tpcost::cli
