// The step with experts against the MoE rows of the development set (moe_dev_rows.hpp: each
// with its stated layout and nothing tuned per row; the MoE host time fitted once on the BF16 rows
// by moe_dev_fit.cpp, the FP8/MXFP8 rows never fitted). The bounds hold today's errors
// (docs/moe.md, printed by tpcost_moe_dev_fit) with a small margin, so that a regression fails.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "cp_fp8_rows.hpp"
#include "error_summary.hpp"
#include "moe_cp_dev_rows.hpp"
#include "moe_dev_rows.hpp"

using namespace tpcost;
using namespace tpcost::test;

namespace {

error_summary summarise(const std::vector<moe_row>& rows, bool bf16) {
  error_summary e;
  for (const auto& r : rows) {
    if ((r.precision == "bf16") != bf16) {
      continue;
    }
    std::printf("%-60s %-13s measured %7.1f predicted %7.1f TFLOP/s  %+6.1f%%\n", r.id.c_str(),
                r.precision.c_str(), r.measured, r.predicted, 100.0 * r.error());
    e.add(r.error());
  }
  std::printf("mean |error| %.1f%%, worst %.1f%%\n", 100.0 * e.mean(), 100.0 * e.worst);
  return e;
}

}  // namespace

// Regression guards of the fitted model, not issue 26's bar (10% / 25%), which is not met. They
// moved once on evidence elsewhere: sequence parallelism's split of the norms and residual
// kernels (compute_model.hpp) took the Hopper/Blackwell eta_mm refit and the host time with it
// (BF16 16.0% -> 17.2%; FP8 13.7% -> 15.1%, worst 32.4% -> 43.1%, the B200 Qwen3-235B MXFP8 row,
// too fast), and the Blackwell FP8 fit's output layer at the shipped B200 BF16 eta; and again
// when hidden TP came to cost its compute (stages.hpp, tp_contention) with the refits it took:
// BF16 worst 33.4% -> 35.4% (the GB200 Qwen3-235B row, too slow; the host time 1.03 -> 1.24 ms);
// and when the rows ran the fused cross entropy their recipes set (moe_dev_rows.json,
// cross_entropy_source), which the host time took back (1.27 -> 1.49 ms): BF16 mean 16.9% ->
// 18.1%.
TEST_CASE("MoE BF16 development rows: mean |error| <= 19%, worst <= 36% (model TFLOP/s per GPU)",
          "[reference][moe]") {
  const auto e = summarise(evaluate_moe_rows(moe_dev_runs()), true);
  REQUIRE(e.n == 10);
  CHECK(e.mean() <= 0.19);
  CHECK(e.worst <= 0.36);
}

TEST_CASE("MoE FP8/MXFP8 development rows, not fitted: mean |error| <= 16%, worst <= 44%",
          "[reference][moe]") {
  const auto e = summarise(evaluate_moe_rows(moe_dev_runs()), false);
  REQUIRE(e.n == 10);
  CHECK(e.mean() <= 0.16);
  CHECK(e.worst <= 0.44);
}

TEST_CASE("the fourth-round rows run as their setup says: CP, the end stages, no refusal",
          "[moe]") {
  const auto runs = moe_cp_dev_set("moe_runs");
  REQUIRE(runs.size() == 9);
  const auto rows = evaluate_moe_rows(runs);
  for (const auto& r : rows) {
    std::printf("%-60s measured %7.1f predicted %7.1f TFLOP/s  %+6.1f%%\n", r.id.c_str(),
                r.measured, r.predicted, 100.0 * r.error());
    // Plain rows, nothing fitted: within a factor of 2 (the baseline of the DeepSeek-V3 GB200
    // ladder is the farthest, +57%: docs/error-band.md).
    CHECK(r.predicted > 0.5 * r.measured);
    CHECK(r.predicted < 2.0 * r.measured);
  }
  // The Qwen3-235B CP 8 row: its CP is read (without it, the 131072-token sequence on one rank).
  auto no_cp = runs[3];
  REQUIRE(no_cp.at("parallel").at("cp") == 8);
  no_cp.at("parallel").erase("cp");
  no_cp.at("parallel").at("dp") = 8;
  const auto whole = evaluate_moe_rows(nlohmann::json::array({no_cp})).front();
  CHECK(whole.predicted < 0.95 * rows[3].predicted);
  // DeepSeek-V3 on 8 stages: the first and last stage apart (7 and 6 of 61 layers).
  auto even = runs[4];
  REQUIRE(even.at("parallel").at("first_stage_layers") == 7);
  even.at("parallel").at("first_stage_layers") = 6;
  even.at("parallel").at("last_stage_layers") = 7;
  CHECK(evaluate_moe_rows(nlohmann::json::array({even})).front().predicted != rows[4].predicted);
  // The two NeMo B200 CP rows cp_fp8_dev_rows.json refuses run here, with the printed DP.
  const auto cp = evaluate_cp_fp8_rows(moe_cp_dev_set("cp_rows"));
  REQUIRE(cp.size() == 2);
  for (const auto& r : cp) {
    CHECK(r.refused.empty());
    CHECK(std::fabs(r.error) < 0.1);
  }
}
