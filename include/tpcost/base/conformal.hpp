// The split-conformal band of a set of relative residuals r = measured / predicted − 1 (Vovk et
// al. 2005; Lei et al. 2018, "Distribution-free predictive inference for regression"): centre
// c = mean r, half width h = the ⌈0.85 (n + 1)⌉-th smallest |r_i − c|; the band
// prediction × [1 + c − h, 1 + c + h] holds a new measurement with probability ≥ 85% when the
// residuals are exchangeable. One formula for every band tpcost prints: the step's, from the
// development rows (step/error_band.hpp, docs/error-band.md), and the collective's, from a
// calibrated profile's nccl-tests points (comm/calibration.hpp, docs/calibrate.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace tpcost {

/// The nominal coverage of the conformal rank (the measured leave-one-out coverage is the test:
/// at least 80% of the development rows), and how much an input the groups resemble only partly (or
/// not at all) widens it.
inline constexpr double band_coverage = 0.85;
inline constexpr double band_widening = 2.0;  ///< × the half width: no comparable rows
/// Fewer rows than this and a group is not shipped: its inputs take the nearest group's band,
/// widened (conformal_band itself, below that, gives the widest residual widened).
inline constexpr std::size_t band_min_rows = 4;

/// The conformal band of `residuals`: {centre, half width}; with fewer than band_min_rows, the
/// widest |r − c| × band_widening.
struct relative_band {
  double centre = 0.0, half_width = 0.0;
  [[nodiscard]] double low() const { return std::max(1.0 + centre - half_width, 0.05); }
  [[nodiscard]] double high() const { return 1.0 + centre + half_width; }
  [[nodiscard]] bool holds(double residual) const {
    return 1.0 + residual >= low() && 1.0 + residual <= high();
  }
};

inline relative_band conformal_band(const std::vector<double>& residuals) {
  relative_band b;
  if (residuals.empty()) {
    return b;
  }
  const auto n = residuals.size();
  double sum = 0.0;
  for (const double r : residuals) {
    sum += r;
  }
  b.centre = sum / static_cast<double>(n);
  std::vector<double> spread;
  spread.reserve(n);
  for (const double r : residuals) {
    spread.push_back(std::fabs(r - b.centre));
  }
  std::sort(spread.begin(), spread.end());
  const auto rank = static_cast<std::size_t>(std::ceil(band_coverage * static_cast<double>(n + 1)));
  b.half_width = n >= band_min_rows && rank <= n ? spread[rank - 1] : spread.back() * band_widening;
  return b;
}

}  // namespace tpcost
