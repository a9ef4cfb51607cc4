// The band of `tpcost collective` (docs/collective.md): from the residuals of the calibrated
// profile it runs with (comm/calibration.hpp, profile_band), or none, and why.
#pragma once

#include <optional>
#include <string>

#include <fmt/format.h>

#include "options/hardware_origin.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/io/format.hpp"

namespace tpcost::cli {

struct collective_band {
  std::optional<measured_band> band;  ///< nullopt: no measured band
  std::string basis;                  ///< what it rests on, or why there is none
};

/// The band of `c`'s times: the profile's, when the group runs on the link the profile
/// measured and no flag replaced that link; otherwise none, with the reason.
inline collective_band collective_band_of(const collective_comparison& c,
                                          const hardware_origin& origin) {
  if (!origin.profile) {
    return {std::nullopt,
            "no measured band: the links are presets or flags, not a calibrated profile "
            "(--interconnect-file from tpcost calibrate --out)"};
  }
  const auto& p = *origin.profile;
  if (p.residuals.empty()) {
    return {std::nullopt, "no measured band: " + origin.profile_file +
                              " holds no residuals (written before tpcost calibrate kept "
                              "them); rerun tpcost calibrate --out"};
  }
  const bool inter = origin.profile_link == profile_scope::inter_node;
  if (inter != c.group.spans_nodes()) {
    return {std::nullopt, fmt::format("no measured band: {} measured the {} link, and this group "
                                      "{}",
                                      origin.profile_file, to_string(origin.profile_link),
                                      inter ? "stays in one node" : "crosses nodes")};
  }
  const bool replaced =
      inter ? origin.inter_bandwidth_given || origin.inter_latency_given
            : origin.bandwidth_given || origin.intra_bandwidth_given || origin.intra_latency_given;
  if (replaced) {
    return {std::nullopt,
            "no measured band: a flag replaced the link " + origin.profile_file + " measured"};
  }
  const auto b = profile_band(p, c.message);
  std::string basis = fmt::format(
      "{} points of {} ({} over {} ranks) from {} to {}, each left out one size at a time: "
      "mean {}, worst {}",
      b->points, origin.profile_file, to_string(p.collective), p.ranks, io::to_string(b->min_size),
      io::to_string(b->max_size), io::percent(b->mean_abs), io::percent(b->worst));
  if (!b->near) {
    basis = "no measured point within 4x of the size: every point's band, x2; " + basis;
  }
  return {b, basis};
}

}  // namespace tpcost::cli
