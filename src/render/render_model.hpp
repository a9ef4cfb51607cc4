// Rendering of `tpcost model list` and `tpcost model show`: text tables or JSON. Reads the
// core's results and computes no formula.
#pragma once

#include <string>

#include "options/model_options.hpp"
#include "render/render.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/model.hpp"

namespace tpcost::cli {

/// Everything `model show` prints: the model, where it came from, its counts and FLOPs.
struct model_report {
  chosen_model model;
  param_breakdown params;
  flops_summary flops;
  double relative_to_published = 0.0;  ///< meaningful when model.preset and not overridden
};

std::string render_model_list(output_format format);

/// Group-limited routing as `model show` and `step` name it after the top-k: " within M of G
/// groups", or nothing when a token may pick any expert.
std::string routing_text(const expert_routing& routing);
std::string render_model_show(const model_report& report, output_format format);

}  // namespace tpcost::cli
