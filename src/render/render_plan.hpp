// `tpcost plan` output: the best layouts, the counts of the search and what separates the
// winner from the runner-up; and `--compare`, two layouts side by side. Text or JSON.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "options/model_options.hpp"
#include "options/step_options.hpp"
#include "render/render.hpp"
#include "tpcost/plan/planner.hpp"

namespace tpcost::cli {

/// One recipe of `plan --precision auto`: the best layout its search found, if any fits.
struct precision_searched {
  linear_precision precision = linear_precision::bf16;
  std::optional<planned_layout> best;
  double search_seconds = 0.0;
};

/// A search and what it ran on.
struct plan_report {
  chosen_model model;
  chosen_hardware hardware;
  plan_request request;  ///< with --precision auto: the winning recipe's
  plan_result result;
  double search_seconds = 0.0;  ///< wall time of the search and the full evaluation of the top k
  /// --precision auto: every recipe the GPU runs, searched in turn (empty otherwise).
  std::vector<precision_searched> precisions;
};

/// "precision auto: bf16 13.63 s, fp8-delayed 9.544 s ...; fastest fp8-delayed\n".
std::string precision_auto_text(const plan_report& r);

/// Two layouts evaluated side by side.
struct compare_report {
  chosen_model model;
  chosen_hardware hardware;
  plan_request request;
  std::array<std::string, 2> given;  ///< the --compare texts
  std::array<parallel_config, 2> layouts;
  std::array<step_result, 2> results;
  std::array<cp_step_terms, 2> cp;                   ///< each layout's CP terms (cp = 1: none)
  std::array<std::optional<plan_reason>, 2> broken;  ///< a rule that keeps plan from proposing it
  step_comparison difference;                        ///< second − first
};

std::string render_plan(const plan_report& report, output_format format);
/// The ranked layouts' table alone (`plan -q`, as `sweep -q` prints its table alone).
std::string plan_layouts_table(const plan_report& report);
std::string render_compare(const compare_report& report, output_format format);
/// The where-the-time-goes table alone, its columns headed by the --compare texts (`plan
/// --compare -q`).
std::string compare_difference_table(const compare_report& report);

}  // namespace tpcost::cli
