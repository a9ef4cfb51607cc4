// `tpcost plan` output: the best layouts, the counts of the search and what separates the
// winner from the runner-up; and `--compare`, two layouts side by side. Text or JSON.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "options/model_options.hpp"
#include "options/step_options.hpp"
#include "render/render.hpp"
#include "tpcost/plan/planner.hpp"

namespace tpcost::cli {

/// --recompute-modules auto's value for the layouts that recompute nothing or everything.
inline constexpr std::string_view no_selective_label = "none-or-full";

/// One value of a dimension that `plan` searched with `auto` (--precision, --cp-comm-type,
/// --moe-token-dispatcher): the best layout found with it, over every value of the other auto
/// dimensions, if any fits.
struct choice_searched {
  std::string value;  ///< as the layout string and the JSON spell it
  std::optional<planned_layout> best;
  layout_choices choices;       ///< the auto dimensions' values `best` ran with
  double search_seconds = 0.0;  ///< summed over the searches run with this value
  /// The earlier value whose searches this one shares, its costs being the same
  /// (same_costs, precision.hpp); empty when it was searched itself.
  std::string costed_as;
};

/// A search and what it ran on.
struct plan_report {
  chosen_model model;
  chosen_hardware hardware;
  plan_request request;  ///< with an auto dimension: the winning search's
  plan_result result;
  double search_seconds = 0.0;  ///< wall time of the search and the full evaluation of the top k
  /// --precision auto: every recipe the GPU runs, searched in turn (empty otherwise).
  std::vector<choice_searched> precisions;
  /// --cp-comm-type auto: each CP exchange, searched in turn (empty otherwise).
  std::vector<choice_searched> cp_comms;
  /// --moe-token-dispatcher auto: each token dispatcher, searched in turn (empty otherwise).
  std::vector<choice_searched> dispatchers;
  /// --recompute-modules auto: the layouts without selective recomputation (no_selective_label),
  /// then each module set's selective layouts, searched in turn (empty otherwise).
  std::vector<choice_searched> recompute_modules;

  /// What the listed layout strings name beyond the degrees: the choices the search made.
  [[nodiscard]] layout_choices choices() const {
    layout_choices c;
    if (!cp_comms.empty()) {
      c.cp_comm = request.options.cp.comm;
    }
    if (!dispatchers.empty()) {
      c.dispatcher = request.options.experts.dispatcher;
    }
    if (!recompute_modules.empty()) {
      c.recompute_modules = request.options.recompute.modules;
    }
    return c;
  }
  /// What candidate `c`'s layout string names: the search's choices and the full
  /// recomputation it runs.
  [[nodiscard]] layout_choices choices(const plan_candidate& c) const {
    return with_full_recompute(choices(), c);
  }
};

/// One line per auto dimension, e.g. "precision auto: bf16 13.63 s, fp8-delayed 9.544 s;
/// fastest fp8-delayed\n"; empty without one.
std::string auto_search_text(const plan_report& r);

/// Two layouts evaluated side by side.
struct compare_report {
  chosen_model model;
  chosen_hardware hardware;
  plan_request request;
  std::array<std::string, 2> given;  ///< the --compare texts
  /// What each layout names beyond its degrees (cp_comm=, dispatcher=): `request_for` of them
  /// is the request it was costed under.
  std::array<layout_choices, 2> choices;
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
