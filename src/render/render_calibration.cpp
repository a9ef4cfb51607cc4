#include "render/render_calibration.hpp"

#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/text_table.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/io/profile_json.hpp"
#include "tpcost/version.hpp"

namespace tpcost::cli {

namespace {

/// A size with a binary prefix, as nccl-tests sweeps powers of two: "1 KiB", "16 GiB", "12 B".
std::string size_label(bytes b) {
  static constexpr std::array<std::string_view, 5> prefixes{"B", "KiB", "MiB", "GiB", "TiB"};
  double v = b.value();
  std::size_t i = 0;
  while (i + 1 < prefixes.size() && v >= 1024.0) {
    v /= 1024.0;
    ++i;
  }
  return fmt::format("{:.4g} {}", v, prefixes[i]);
}

std::string gbs(bytes_per_second r) { return fmt::format("{:.2f}", r.value() / 1e9); }

std::string model_line(collective_op kind) {
  return kind == collective_op::all_reduce ? "t(M) = 2(n-1)*alpha + 2(n-1)/n * M/beta"
                                           : "t(M) = (n-1)*alpha + (n-1)/n * M/beta";
}

std::string stats_text(const residual_stats& s) {
  return fmt::format("median {}, worst {} at {}", io::percent(s.median), io::percent(s.worst),
                     size_label(s.worst_at));
}

/// Which timings the fitted points are: what the data held after --placement.
std::string placement_text(const std::vector<fitted_point>& points) {
  bool in = false;
  bool out = false;
  for (const auto& p : points) {
    in = in || p.where == placement::in_place;
    out = out || p.where == placement::out_of_place;
  }
  return in && out ? "in-place and out-of-place timings"
         : in      ? "in-place timings"
                   : "out-of-place timings";
}

std::string section(const calibration_result& r, const std::vector<nccl_run>& runs) {
  const auto& p = r.profile;
  std::string out;
  out += fmt::format("{} over {} ranks", nccl_tests_name(p.collective), p.ranks);
  if (p.nodes) {
    out += fmt::format(" on {} node{}", *p.nodes, *p.nodes == 1 ? "" : "s");
  }
  out += fmt::format(": {} points from {} to {}, {}\n", p.points, size_label(p.min_size),
                     size_label(p.max_size), placement_text(r.points));
  for (const auto& run : runs) {
    if (run.collective == p.collective && run.ranks == p.ranks) {
      out += fmt::format("  {}  (collective from {}; ranks from {})\n", run.source,
                         run.collective_from, run.ranks_from);
    }
  }
  out += fmt::format("measured: {}\n", measured_link_text(p));
  out += fmt::format("model: {}, least squares of relative time residuals\n\n",
                     model_line(p.collective));
  out += fmt::format("one line   alpha = {}  beta = {}  busbw error: {}\n",
                     io::to_string(p.link.latency), io::to_string(p.link.bandwidth),
                     stats_text(p.error));
  if (const auto b = profile_band(p)) {
    out += fmt::format(
        "  band      {} to {} of the line's time: {:.0f}% split-conformal, {} points left out "
        "one size at a time (mean {}, worst {})\n",
        signed_percent(b->band.low() - 1.0, 1), signed_percent(b->band.high() - 1.0, 1),
        100.0 * band_coverage, b->points, io::percent(b->mean_abs), io::percent(b->worst));
  }
  if (!p.segments.empty()) {
    out += fmt::format("{} lines    busbw error: {}\n", p.segments.size(),
                       stats_text(p.piecewise_error));
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : p.segments) {
      rows.push_back({size_label(s.min_size), "..", size_label(s.max_size), "alpha =",
                      io::to_string(s.link.latency), "beta =", io::to_string(s.link.bandwidth),
                      fmt::format("median {}, worst {}", io::percent(s.error.median),
                                  io::percent(s.error.worst))});
    }
    using enum align;
    out += layout_columns(rows, {right, left, right, left, right, left, right, left}, "  ");
  }
  out += "\n";
  const bool piecewise = !p.segments.empty();
  std::vector<std::vector<std::string>> table;
  if (piecewise) {
    table.push_back({"size", "placement", "time us", "busbw GB/s", "line GB/s", "error", "left out",
                     "lines GB/s", "error"});
  } else {
    table.push_back(
        {"size", "placement", "time us", "busbw GB/s", "line GB/s", "error", "left out"});
  }
  for (const auto& pt : r.points) {
    std::vector<std::string> row{size_label(pt.size),
                                 pt.where == placement::in_place ? "in" : "out",
                                 fmt::format("{:.2f}", pt.time.value() * 1e6),
                                 gbs(pt.busbw),
                                 gbs(pt.line_busbw),
                                 signed_percent(pt.line_error, 1),
                                 signed_percent(pt.loo_error, 1)};
    if (piecewise) {
      row.push_back(gbs(pt.piecewise_busbw));
      row.push_back(signed_percent(pt.piecewise_error, 1));
    }
    table.push_back(std::move(row));
  }
  using enum align;
  out += layout_columns(table, {right, left, right, right, right, right, right, right, right});
  return out;
}

}  // namespace

std::string render_calibration(const calibration_report& report, output_format format) {
  if (format == output_format::json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : report.results) {
      nlohmann::json points = nlohmann::json::array();
      for (const auto& pt : r.points) {
        points.push_back({{"size_bytes", pt.size.value()},
                          {"placement", to_string(pt.where)},
                          {"time_s", pt.time.value()},
                          {"busbw_bytes_per_s", pt.busbw.value()},
                          {"line_busbw_bytes_per_s", pt.line_busbw.value()},
                          {"line_rel_error", pt.line_error},
                          {"line_left_out_rel_error", pt.loo_error},
                          {"piecewise_busbw_bytes_per_s", pt.piecewise_busbw.value()},
                          {"piecewise_rel_error", pt.piecewise_error},
                          {"segment", pt.segment},
                          {"source", pt.source},
                          {"line", pt.line}});
      }
      nlohmann::json band = nullptr;
      if (const auto b = profile_band(r.profile)) {
        band = {{"kind", "leave-one-size-out"},
                {"coverage", band_coverage},
                {"points", b->points},
                {"centre", b->band.centre},
                {"half_width", b->band.half_width},
                {"relative", {b->band.low(), b->band.high()}},
                {"mean_abs_error", b->mean_abs},
                {"worst_abs_error", b->worst}};
      }
      list.push_back({{"profile", profile_to_json(r.profile)}, {"points", points}, {"band", band}});
    }
    nlohmann::json j = {{"schema", "tpcost.calibration/1"},
                        {"tool", {{"name", "tpcost"}, {"version", TPCOST_VERSION}}},
                        {"calibrations", list},
                        {"profile_file", nullptr}};
    if (report.profile_path) {
      j["profile_file"] = *report.profile_path;
    }
    return j.dump(2) + "\n";
  }
  std::string out =
      "Ring alpha-beta model fitted to nccl-tests timings (busbw = 2(n-1)/n * size/time for "
      "all_reduce,\n(n-1)/n * size/time for all_gather and reduce_scatter; error = model busbw "
      "/ measured - 1)\n\n";
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    if (i > 0) {
      out += "\n";
    }
    out += section(report.results[i], report.runs);
  }
  if (report.profile_path) {
    out += fmt::format("\nprofile written to {} (alpha and beta of the one-line fit; beta is {})\n",
                       *report.profile_path, bandwidth_convention);
  }
  return out;
}

}  // namespace tpcost::cli
