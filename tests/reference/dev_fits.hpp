// The fits of the development rows, shared by the fit programs (cp_fp8_fit.cpp, moe_dev_fit.cpp)
// and the error-band validation (error_band_validate.cpp), which reruns them leaving one row out.
//   fit_efficiencies: η_mm BF16, η_mm FP8 and η_attn (hardware/efficiency.hpp) by coordinate
//     descent with golden-section steps on [0.1, 1], minimising Σ error² over the rows.
//   fit_moe_host_ms: the MoE layer's host time per pass (step/moe_layer.hpp) by golden-section
//     search on [0, 5] ms, minimising Σ error² of model TFLOP/s per GPU.
#pragma once

#include "cp_fp8_rows.hpp"
#include "golden_section.hpp"
#include "moe_dev_rows.hpp"

namespace tpcost::test {

/// Σ error² of `rows` under `x` = {bf16, fp8, attention}.
inline double efficiency_loss(const nlohmann::json& rows, const efficiency_trial& x) {
  double sum = 0.0;
  for (const auto& r : evaluate_cp_fp8_rows(rows, nullptr, &x)) {
    if (r.refused.empty()) {
      sum += r.error * r.error;
    }
  }
  return sum;
}

inline constexpr double hopper_bf16_over_fp8 = 0.73 / 0.65;  // efficiency.hpp's Blackwell BF16 rule

inline efficiency_trial fit_efficiencies(const nlohmann::json& rows, bool blackwell) {
  efficiency_trial x{.bf16_matmul = 0.7, .fp8_matmul = 0.6, .attention = 0.4};
  for (int sweep = 0; sweep < 8; ++sweep) {
    if (!blackwell) {
      x.bf16_matmul = golden_section_minimum(
          [&](double v) {
            auto y = x;
            y.bf16_matmul = v;
            return efficiency_loss(rows, y);
          },
          0.1, 1.0);
    }
    x.fp8_matmul = golden_section_minimum(
        [&](double v) {
          auto y = x;
          y.fp8_matmul = v;
          if (blackwell) {
            y.bf16_matmul = v * hopper_bf16_over_fp8;
          }
          return efficiency_loss(rows, y);
        },
        0.1, 1.0);
    if (blackwell) {
      x.bf16_matmul = x.fp8_matmul * hopper_bf16_over_fp8;
    }
    x.attention = golden_section_minimum(
        [&](double v) {
          auto y = x;
          y.attention = v;
          return efficiency_loss(rows, y);
        },
        0.1, 1.0);
  }
  return x;
}

inline double moe_host_loss(const nlohmann::json& runs, double host_ms) {
  double sum = 0.0;
  for (const auto& r : evaluate_moe_rows(runs, host_ms * 1e-3)) {
    sum += r.error() * r.error();
  }
  return sum;
}

/// The host time per pass in ms that fits `runs` best.
inline double fit_moe_host_ms(const nlohmann::json& runs) {
  return golden_section_minimum([&](double v) { return moe_host_loss(runs, v); }, 0.0, 5.0);
}

}  // namespace tpcost::test
