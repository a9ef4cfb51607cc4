// sweep and explain, of the article's model and of the refined one: table, markdown, CSV or JSON.
// Rendering reads the result and computes no formula.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "options/hardware_origin.hpp"
#include "output/output_format.hpp"
#include "tpcost/layer/sweep.hpp"

namespace tpcost::cli {

/// `quiet`: the table alone, without the title, inputs and summary lines (table format only).
/// `origin`: the presets and profile behind the hardware numbers, printed beside them.
std::string render_sweep(const sweep_result& result, output_format format, bool quiet = false,
                         const hardware_origin& origin = {});
std::string render_explain(const tp_explanation& explanation, output_format format,
                           const hardware_origin& origin = {});
std::string render_sweep(const refined_sweep_result& result, output_format format,
                         bool quiet = false, const hardware_origin& origin = {});
std::string render_explain(const refined_explanation& explanation, output_format format,
                           const hardware_origin& origin = {});

}  // namespace tpcost::cli
