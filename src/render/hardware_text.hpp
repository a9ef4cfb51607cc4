// Where the hardware numbers came from (presets, profile, flags), as text and JSON, and the
// links as the text reports name them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "options/hardware_origin.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/layer/tensor_parallel.hpp"

namespace tpcost::cli {

/// The line under a report's title: the presets, the profile, and the flags given explicitly.
std::string hardware_line(const hardware_origin& h);
/// The hardware section of `explain`: each value the model read, where it came from and the
/// document behind it. `topology` adds the links and the node size (the refined model).
std::string hardware_section(const hardware_origin& h, const device_spec& device,
                             const cluster_topology* topology);
/// A result's JSON with the presets and profile behind it under inputs.hardware (when any).
nlohmann::json with_hardware(nlohmann::json j, const hardware_origin& origin);
/// The report's first line when the network was assumed (hardware_origin.hpp), else "".
std::string assumption_line(const hardware_origin& h);
/// "H100-SXM + IB-NDR", "H100-SXM + profile.json (intra-node)"; empty without presets.
std::string hardware_summary(const hardware_origin& origin);

/// A latency as the links print it: "0" for none, else with its unit.
std::string duration(seconds v);
/// "450 GB/s, α = 3.4 us".
std::string link_text(const link_spec& link);
/// The inter-node link per NIC and the NICs per node, or "not given".
std::string inter_link_text(const cluster_topology& t);

}  // namespace tpcost::cli
