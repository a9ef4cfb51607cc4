// The error band of a prediction, from the project's own validation (docs/error-band.md).
//
// A development row's residual is r = t_measured / t_predicted − 1 (for a row that gives TFLOP/s
// instead of a step time: predicted rate / measured rate − 1, the same ratio). The validation
// program (tests/reference/error_band_validate.cpp, `make validate`) keeps, per group of rows
// alike in what makes errors alike, the leave-one-out residual of every row where a constant
// was fitted on those rows and the plain residual elsewhere, and ships them (data/error_band.json).
// From a group's n residuals the band is a split-conformal interval (Vovk et al. 2005; Lei et
// al. 2018, "Distribution-free predictive inference for regression"): centre c = mean r, half
// width h = the ⌈0.85 (n + 1)⌉-th smallest |r_i − c|, and the band t × [1 + c − h, 1 + c + h]
// holds a new row's measured value with probability ≥ 85% when the rows are exchangeable (the
// nominal 85% because the centre is estimated from the same few rows: at 80% the rows held
// leave-one-out came to 79%, at 85% to 86%; docs/error-band.md). With
// too few rows for that rank, or an input no group resembles, the band widens by the rule
// below and says so. The formula itself is base/conformal.hpp's, shared with calibrate.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tpcost/base/conformal.hpp"
#include "tpcost/hardware/hardware.hpp"
#include "tpcost/model/precision.hpp"

namespace tpcost {

/// What makes errors alike: the keys of a group of development rows.
struct band_key {
  std::string generation;  ///< "Ampere", "Hopper", "Blackwell" (B300/GB300 included), ...
  bool moe = false;
  std::string precision;  ///< "16-bit", "FP8", "FP4"
  std::string stack;      ///< the stack profile's name
  bool operator==(const band_key&) const = default;
};

/// The generation a group names: Blackwell Ultra counts with Blackwell (no group of its own).
constexpr std::string_view band_generation(gpu_architecture a) {
  return a == gpu_architecture::blackwell_ultra ? to_string(gpu_architecture::blackwell)
                                                : to_string(a);
}

constexpr std::string_view band_precision(linear_precision p) {
  switch (p) {
    case linear_precision::bf16:
      return "16-bit";
    case linear_precision::nvfp4:
      return "FP4";
    default:
      return "FP8";
  }
}

/// One group as the validation program ships it.
struct band_group {
  std::string name;  ///< "Hopper dense FP8 megatron-core"
  band_key key;
  std::size_t rows = 0;
  std::size_t left_one_out = 0;  ///< rows whose residual is leave-one-out (the rest: plain)
  std::size_t cp_rows = 0, ep_rows = 0, pp_rows = 0;  ///< rows with CP, EP, PP > 1
  double centre = 0.0;                                ///< mean residual
  double half_width = 0.0;                            ///< the conformal half width
  double mean_abs = 0.0;                              ///< mean |residual|
  double worst = 0.0;                                 ///< max |residual|
};

/// What the inputs resemble, and the band that follows.
struct band_choice {
  const band_group* group = nullptr;  ///< the group the band comes from; nullptr: none
  bool comparable = false;            ///< the group's key is the input's
  relative_band band;                 ///< relative to the predicted step time
  std::string rule;                   ///< how it was widened ("" when not): printed beside the band
};

/// What the input uses that the rows may lack.
struct band_input {
  band_key key;
  bool cp = false, ep = false, pp = false;
  bool assumed_efficiency = false;  ///< the GPU's η is an assumption (no measurement)
};

/// The band for `in`: the group with its key when it has one, widened ×band_widening when the
/// input uses CP, EP or PP and no row of the group did; else the nearest group of the same
/// family (dense or MoE) by generation, then stack, then precision (the stack moves the error
/// more than the precision does: docs/error-band.md), widened ×band_widening;
/// with none of the family, or an assumed efficiency, centred at the prediction, ±band_widening
/// × the median half width of the groups. The low edge never goes below 5% of the prediction.
inline band_choice choose_band(const band_input& in, const std::vector<band_group>& groups) {
  band_choice out;
  const auto score = [&](const band_group& g) {
    if (g.key.moe != in.key.moe) {
      return -1;
    }
    return (g.key.generation == in.key.generation ? 4 : 0) + (g.key.stack == in.key.stack ? 2 : 0) +
           (g.key.precision == in.key.precision ? 1 : 0);
  };
  int best = -1;
  for (const auto& g : groups) {
    if (score(g) > best) {
      best = score(g);
      out.group = &g;
    }
  }
  // No group to go by: centred, ±band_widening × the median half width of the groups.
  const auto typical = [&] {
    std::vector<double> widths;
    widths.reserve(groups.size());
    for (const auto& g : groups) {
      widths.push_back(g.half_width);
    }
    std::sort(widths.begin(), widths.end());
    relative_band w;
    w.half_width = widths.empty() ? 0.5 : band_widening * widths[widths.size() / 2];
    return w;
  };
  if (in.assumed_efficiency || out.group == nullptr) {
    out.group = nullptr;
    out.band = typical();
    out.rule =
        in.assumed_efficiency
            ? "no comparable measured runs (an assumed efficiency): +/-2x the groups' median "
              "half width"
            : "no comparable measured runs: +/-2x the groups' median half width";
    return out;
  }
  const auto& g = *out.group;
  out.band = {g.centre, g.half_width};
  out.comparable = best == 7;
  if (!out.comparable) {
    out.band.half_width *= band_widening;
    out.rule = "no comparable measured runs: the nearest group's band, x2";
    return out;
  }
  std::string missing;
  const auto lack = [&](bool used, std::size_t rows, const char* what) {
    if (used && rows == 0) {
      missing += missing.empty() ? what : std::string("/") + what;
    }
  };
  lack(in.cp, g.cp_rows, "CP");
  lack(in.ep, g.ep_rows, "EP");
  lack(in.pp, g.pp_rows, "PP");
  if (!missing.empty()) {
    out.band.half_width *= band_widening;
    out.rule = "no row of the group has " + missing + ": x2";
  }
  return out;
}

}  // namespace tpcost
