#include "charts/plan_chart.hpp"

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
  // The exposed CP exchange joins the TP segment (both per-layer collectives of the critical
  // GPU); the legend says so only when a layout has CP.
  bool any_cp = false;
  for (const auto& l : layouts) {
    any_cp = any_cp || l.candidate.par.cp > 1;
  }
  bars.segments = {{"compute", chart::hue::green},
                   {any_cp ? "exposed TP + CP" : "exposed TP", chart::hue::red},
                   {"pipeline: bubble + p2p", chart::hue::yellow},
                   {"exposed DP + optimizer", chart::hue::cyan}};
  std::size_t rank = 0;
  for (const auto& l : layouts) {
    const auto& t = l.result.time;
    const auto& par = l.candidate.par;
    const auto cp = cp_terms_of(l);
    bars.bars.push_back({l.candidate.par.cp > 1
                             ? fmt::format("#{} t{} p{} cp{} d{}", ++rank, par.tp, par.pp,
                                           l.candidate.par.cp, par.dp)
                             : fmt::format("#{} t{} p{} d{}", ++rank, par.tp, par.pp, par.dp),
                         {t.compute.value(), (t.tp_comm + cp.exposed).value(),
                          (t.bubble + t.p2p).value(), (t.dp_comm + t.optimizer).value()},
                         io::to_string(l.result.step_time)});
  }
  chart::figure fig;
  fig.panels.emplace_back(std::move(bars));
  return fig;
}

}  // namespace tpcost::cli
