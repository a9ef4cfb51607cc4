// A step evaluation and what it was evaluated on: what `step --from`/`check` compute and the
// step and plan renderers and the error band read.
#pragma once

#include <optional>

#include "options/model_options.hpp"
#include "options/step_options.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/step/long_context.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::cli {

/// A step evaluation and what it was evaluated on.
struct step_report {
  chosen_model model;
  chosen_hardware hardware;  ///< the presets and profile behind inputs.gpu and inputs.topology
  step_inputs inputs;
  context_parallel cp;          ///< cp = 1: none
  precision_options precision;  ///< the linear layers' recipe
  /// With cp > 1 or an FP8/FP4 recipe: the long-context step (result is its step).
  std::optional<long_context_result> long_context;
  flops_per_second long_context_linear_peak{};  ///< the linear layers' peak (long context)
  step_result result;
  stack_choice stack;  ///< the --stack profile and every software default it applied
};

}  // namespace tpcost::cli
