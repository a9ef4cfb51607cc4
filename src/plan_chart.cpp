#include "plan_chart.hpp"

#include <fmt/format.h>

#include "tpcost/io/format.hpp"

namespace tpcost::cli {

chart::figure plan_figure(const std::vector<planned_layout>& layouts) {
  chart::bar_chart bars;
  bars.title = "Step time of each proposed layout, best first (the critical GPU)";
  bars.label_title = "layout";
  bars.note_title = "step";
  bars.value_title = "step time (s)";
  // Four segments: the text renderer has four distinct fill patterns without colour.
  bars.segments = {{"compute", chart::hue::green},
                   {"exposed TP", chart::hue::red},
                   {"pipeline: bubble + p2p", chart::hue::yellow},
                   {"exposed DP + optimizer", chart::hue::cyan}};
  std::size_t rank = 0;
  for (const auto& l : layouts) {
    const auto& t = l.result.time;
    const auto& par = l.candidate.par;
    bars.bars.push_back({fmt::format("#{} t{} p{} d{}", ++rank, par.tp, par.pp, par.dp),
                         {t.compute.value(), t.tp_comm.value(), (t.bubble + t.p2p).value(),
                          (t.dp_comm + t.optimizer).value()},
                         io::to_string(l.result.step_time)});
  }
  chart::figure fig;
  fig.panels.emplace_back(std::move(bars));
  return fig;
}

}  // namespace tpcost::cli
