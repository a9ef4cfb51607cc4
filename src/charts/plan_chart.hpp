// The chart of `tpcost plan`: where the step time of each proposed layout goes. Drawing is
// chart.hpp's (text) and plot.hpp's (gnuplot); this file only picks the bars and segments.
#pragma once

#include <vector>

#include "charts/chart.hpp"
#include "tpcost/plan/planner.hpp"

namespace tpcost::cli {

/// One stacked bar per proposed layout, best first: compute, exposed TP, pipeline (bubble +
/// p2p) and exposed DP + optimizer seconds, the step time as the note.
chart::figure plan_figure(const std::vector<planned_layout>& layouts);

}  // namespace tpcost::cli
