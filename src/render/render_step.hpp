// `tpcost step` output: the step's time, breakdown, throughput and memory as text or JSON.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "options/model_options.hpp"
#include "options/step_options.hpp"
#include "output/output_format.hpp"
#include "report/step_report.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::cli {

std::string render_step(const step_report& report, output_format format);
/// The breakdown table alone (`step -q`, as `sweep -q` prints its table alone).
std::string step_breakdown_table(const step_report& report);

/// The model's name as the reports print it: the preset, the config file, or "a model given by
/// flags".
std::string model_name(const chosen_model& model);
/// "precision: linear layers fp8-delayed (TE DelayedScaling) at the FP8 peak ..., attention
/// core BF16, logits BF16\n": step's line, which plan's header prints too.
std::string precision_text(const precision_options& precision, flops_per_second linear_peak);
/// The "model" and "hardware" objects of the step and plan JSON documents.
nlohmann::json model_json(const chosen_model& model, const transformer_spec& spec);
nlohmann::json hardware_json(const chosen_hardware& hw, const compute_device& device, bytes memory,
                             const cluster_topology& topology);

}  // namespace tpcost::cli
