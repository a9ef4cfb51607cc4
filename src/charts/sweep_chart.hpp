// The charts of `tpcost sweep`: what to plot from a sweep_result. Drawing is chart.hpp's
// (text) and plot.hpp's (gnuplot); this file only picks series, labels and markers.
#pragma once

#include <cstdint>

#include "charts/chart.hpp"
#include "tpcost/layer/sweep.hpp"

namespace tpcost::cli {

/// GPUs per node drawn as the node boundary when the command has no topology flag (DGX/HGX
/// H100 and A100 nodes have 8 GPUs).
inline constexpr std::int64_t default_chart_gpus_per_node = 8;

/// Two panels: E over the swept degrees with t* and the node boundary marked, and the time per
/// layer on each GPU split into compute and exposed communication.
chart::figure sweep_figure(const sweep_result& result,
                           std::int64_t gpus_per_node = default_chart_gpus_per_node);

/// The same two panels for the refined model: the node boundary is the topology's, the
/// critical marker is the first swept degree where T_comm >= T_calc, and the bars split the
/// partially overlapped time into compute and exposed communication.
chart::figure sweep_figure(const refined_sweep_result& result);

}  // namespace tpcost::cli
