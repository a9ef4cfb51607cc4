// A step evaluation and what it was evaluated on: what `step --from`/`check` compute and the
// step and plan renderers and the error band read.
#pragma once

#include "options/model_options.hpp"
#include "options/step_options.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::cli {

/// A step evaluation and what it was evaluated on.
struct step_report {
  chosen_model model;
  chosen_hardware hardware;  ///< the presets and profile behind inputs.gpu and inputs.topology
  step_inputs inputs;        ///< with the layout's cp, the CP exchange and the precision recipe
  step_result result;
  stack_choice stack;  ///< the --stack profile and every software default it applied
};

}  // namespace tpcost::cli
