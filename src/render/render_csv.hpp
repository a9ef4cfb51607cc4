// CSV for the tables of step, plan and model list: one header line (unless --no-header),
// then one line per row, in SI base units (seconds, bytes, FLOP/s), as sweep's CSV.
#pragma once

#include <string>

#include "render/render_plan.hpp"
#include "render/render_step.hpp"

namespace tpcost::cli {

/// One row: the layout, the step time and its parts, throughput, MFU and the fullest GPU's
/// memory.
std::string step_csv(const step_report& report, bool header);
/// One row per proposed layout, best first, with the same columns as `step_csv`.
std::string plan_csv(const plan_report& report, bool header);
/// One row per model preset: its dimensions and parameter counts.
std::string model_list_csv(bool header);

}  // namespace tpcost::cli
