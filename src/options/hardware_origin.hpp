// Where the hardware numbers of a run came from: a GPU preset, an interconnect preset, a
// calibrated profile, or flags. Filled by cli_options.cpp, read by the renderers, which print
// each value beside its source.
#pragma once

#include <optional>
#include <string>

#include "tpcost/comm/calibration.hpp"
#include "tpcost/hardware/presets.hpp"

namespace tpcost::cli {

/// "assumed: --interconnect IB-NDR, the scale-out NIC of the H100-SXM's reference system
/// (DGX H100: ...); name the network with --interconnect": the first line of a report whose
/// network was not named. One wording for every command.
inline std::string interconnect_assumption(const gpu_preset& gpu, const interconnect_preset& net) {
  return "assumed: --interconnect " + std::string(net.name) + " between nodes, as in the " +
         std::string(gpu.name) + "'s reference system (" + std::string(gpu.scale_out.source) +
         "); name yours with --interconnect";
}

struct hardware_origin {
  const gpu_preset* gpu = nullptr;                    ///< --gpu
  const interconnect_preset* interconnect = nullptr;  ///< --interconnect, or the assumed one
  /// No --interconnect: `interconnect` is the GPU's reference NIC (reference_interconnect).
  bool interconnect_assumed = false;
  /// The preset rate P was taken from (--gpu without --flops), and its name ("bf16").
  const sourced<flops_per_second>* peak = nullptr;
  std::string peak_rate;
  std::string profile_file;                                ///< --interconnect-file, as read
  std::optional<interconnect_profile> profile;             ///< the profile used (primary_profile)
  profile_scope profile_link = profile_scope::intra_node;  ///< the link it replaced
  /// Values given by flag or config over the presets and the profile.
  bool flops_given = false;
  bool bandwidth_given = false;
  bool gpus_per_node_given = false;
  bool intra_bandwidth_given = false;
  bool intra_latency_given = false;
  bool inter_bandwidth_given = false;
  bool inter_latency_given = false;

  /// The line that says so when the network was assumed, else "".
  [[nodiscard]] std::string assumption() const {
    return interconnect_assumed ? interconnect_assumption(*gpu, *interconnect) : std::string();
  }

  /// True when a preset or a profile supplied any value.
  [[nodiscard]] bool any() const {
    return gpu != nullptr || interconnect != nullptr || profile.has_value();
  }
};

}  // namespace tpcost::cli
