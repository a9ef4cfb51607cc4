// `tpcost collective`: one collective's cost under each algorithm, as text or JSON.
#pragma once

#include <string>

#include "options/hardware_origin.hpp"
#include "output/output_format.hpp"
#include "render/collective_band.hpp"
#include "tpcost/comm/topology.hpp"

namespace tpcost::cli {

std::string render_collective(const collective_comparison& comparison, output_format format,
                              const hardware_origin& origin = {}, const collective_band& band = {});

}  // namespace tpcost::cli
