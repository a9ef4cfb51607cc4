// Presets to text or JSON: `tpcost hardware list` and `tpcost hardware show NAME`.
#pragma once

#include <string>

#include "render/render.hpp"
#include "tpcost/hardware/presets.hpp"

namespace tpcost::cli {

/// Every GPU and interconnect preset, one row each (format: table or json).
std::string render_hardware_list(output_format format);
/// Every field of one preset with its unit and source (format: table or json).
std::string render_gpu_preset(const gpu_preset& preset, output_format format);
std::string render_interconnect_preset(const interconnect_preset& preset, output_format format);

}  // namespace tpcost::cli
