// The fits of the development rows, shared by the fit programs (cp_fp8_fit.cpp, moe_dev_fit.cpp)
// and the error-band validation (error_band_validate.cpp), which reruns them leaving one row out.
//   fit_efficiencies: η_mm BF16, η_mm FP8 and η_attn (hardware/efficiency.hpp) by coordinate
//     descent with golden-section steps on [0.1, 1], with Hopper's the hidden TP's contention
//     (step_options::tp_contention) on [0, 1], minimising Σ error² over the rows.
//   fit_moe_host_ms: the MoE layer's host time per pass (step/moe_layer.hpp) by golden-section
//     search on [0, 5] ms, minimising Σ error² of model TFLOP/s per GPU.
//   fit_round3_matmul: one GPU model's η_mm of one rate (hardware/efficiency.hpp, per GPU) on
//     its rows of gb300_b200_torchtitan_rows.json, golden-section on [0.1, 1], Σ error² of the
//     step time: GB300 FP8/MXFP8 (3 Megatron-Bridge rows), B200 BF16 (4 dense SimuMax rows).
//   fit_torchtitan: torchtitan's η_mm BF16, η_mm torchao float8 and PyTorch eager's element-wise
//     traffic factor together on the 6 torchtitan H100 rows of the same file.
#pragma once

#include "cp_fp8_rows.hpp"
#include "error_summary.hpp"
#include "gb300_b200_torchtitan_rows.hpp"
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

/// Blackwell's rows are FP8 only: the BF16 GEMMs they run (the output layer) take the shipped B200
/// BF16 fit (fit_round3_matmul), as the model runs them, instead of being fitted here; and
/// the hidden TP's contention takes the shipped Hopper fit (6 rows, 3 of them at t = 1, do not
/// pin a fourth constant).
inline efficiency_trial fit_efficiencies(const nlohmann::json& rows, bool blackwell) {
  efficiency_trial x{.bf16_matmul = blackwell ? b200_bf16_matmul : 0.7,
                     .fp8_matmul = 0.6,
                     .attention = 0.4,
                     .contention = blackwell ? hidden_tp_contention : 0.3};
  const auto step = [&](double efficiency_trial::*field, double lo, double hi) {
    coordinate_step(x, field, lo, hi,
                    [&](const efficiency_trial& y) { return efficiency_loss(rows, y); });
  };
  for (int sweep = 0; sweep < 8; ++sweep) {
    if (!blackwell) {
      step(&efficiency_trial::contention, 0.0, 1.0);
      step(&efficiency_trial::bf16_matmul, 0.1, 1.0);
    }
    step(&efficiency_trial::fp8_matmul, 0.1, 1.0);
    step(&efficiency_trial::attention, 0.1, 1.0);
  }
  return x;
}

/// The development rows each generation's fit_efficiencies sees (cp_fp8_dev_rows.json): Hopper's
/// 8 DGX Cloud BF16, 8 FP8 and 9 NeMo long-sequence H100 rows; Blackwell's 8 NeMo B200 rows
/// (the two whose batch is below their DP degree are refused, and the fit leaves them out).
struct efficiency_fit_rows {
  nlohmann::json hopper = nlohmann::json::array(), blackwell = nlohmann::json::array();
};

inline efficiency_fit_rows efficiency_fit_sets() {
  efficiency_fit_rows out;
  for (const auto& r : cp_fp8_set("fp8_rows")) {
    if (r.at("id").get<std::string>().rfind("dgxc", 0) == 0) {
      out.hopper.push_back(r);
    }
  }
  for (const auto& r : cp_fp8_set("cp_rows")) {
    const auto id = r.at("id").get<std::string>();
    if (id.rfind("nemo-longseq-llama2-7b-h100", 0) == 0) {
      out.hopper.push_back(r);
    } else if (id.rfind("nemo-longseq-llama3-8b-b200", 0) == 0) {
      out.blackwell.push_back(r);
    }
  }
  return out;
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

/// The per-GPU η_mm fits on the round-3 rows: which rows each one sees.
enum class round3_fit { gb300_fp8, b200_bf16 };

inline bool in_round3_fit(const nlohmann::json& r, round3_fit fit) {
  const auto gpu = r.at("gpu").get<std::string>();
  const auto precision = r.at("precision").get<std::string>();
  if (fit == round3_fit::gb300_fp8) {  // the FP8-rate recipes; NVFP4 runs at another rate
    return gpu == "gb300-nvl72" && (precision == "fp8-current" || precision == "mxfp8");
  }
  return gpu == "b200" && precision == "bf16" && !r.contains("model_preset");  // dense only
}

/// The rows of `rows` that `fit` sees.
inline nlohmann::json round3_fit_rows(const nlohmann::json& rows, round3_fit fit) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows) {
    if (in_round3_fit(r, fit)) {
      out.push_back(r);
    }
  }
  return out;
}

/// The η_mm that fits `rows` (all of one fit set) best.
inline double fit_round3_matmul(const nlohmann::json& rows) {
  return golden_section_minimum(
      [&](double v) {
        double sum = 0.0;
        for (const auto& r : rows) {
          const double e = evaluate_round3_row(r, &v).error();
          sum += e * e;
        }
        return sum;
      },
      0.1, 1.0);
}

/// The torchtitan rows of the round-3 set (gb300_b200_torchtitan_rows.json): the 6 H100 rows
/// torchtitan's efficiencies are fitted on.
inline nlohmann::json torchtitan_fit_rows(const nlohmann::json& rows) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows) {
    if (r.at("stack").get<std::string>() == "fsdp2") {
      out.push_back(r);
    }
  }
  return out;
}

inline double torchtitan_loss(const nlohmann::json& rows, const torchtitan_trial& x) {
  double sum = 0.0;
  for (const auto& r : rows) {
    const double e = evaluate_round3_row(r, nullptr, &x).error();
    sum += e * e;
  }
  return sum;
}

/// torchtitan's three constants (efficiency.hpp: η_mm BF16, η_mm torchao float8, the eager
/// element-wise traffic factor) by coordinate descent with golden-section steps (η on
/// [0.1, 1], the factor on [1, 5]), minimising Σ error² of the step time over `rows`.
inline torchtitan_trial fit_torchtitan(const nlohmann::json& rows) {
  torchtitan_trial x;
  const auto step = [&](double torchtitan_trial::*field, double lo, double hi) {
    coordinate_step(x, field, lo, hi,
                    [&](const torchtitan_trial& y) { return torchtitan_loss(rows, y); });
  };
  for (int sweep = 0; sweep < 12; ++sweep) {
    step(&torchtitan_trial::bf16_matmul, 0.1, 1.0);
    step(&torchtitan_trial::eager_traffic, 1.0, 5.0);
    step(&torchtitan_trial::fp8_matmul, 0.1, 1.0);
  }
  return x;
}

}  // namespace tpcost::test
