// Calibration results to text or JSON: `tpcost calibrate`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "render/render.hpp"
#include "tpcost/comm/calibration.hpp"

namespace tpcost::cli {

/// What `tpcost calibrate` reports: one calibration per (collective, ranks) group, the runs
/// behind them (for how ranks and collective were found), and where the profile went.
struct calibration_report {
  std::vector<calibration_result> results;
  std::vector<nccl_run> runs;
  std::optional<std::string> profile_path;
};

std::string render_calibration(const calibration_report& report, output_format format);

}  // namespace tpcost::cli
