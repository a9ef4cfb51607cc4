// Fits the per-GPU η_mm of hardware/efficiency.hpp on the round-3 development rows
// (gb300_b200_torchtitan_rows.json) and reports each constant's leave-one-out error: every row
// predicted by the constant fitted without it.
//
//   GB300 FP8: η_mm of the FP8-rate recipes (FP8 current scaling, MXFP8) on the 3 Megatron-Bridge
//     GB300 rows (Llama-3 70B FSDP 64 and PP 4 VPP 5, Llama-3 8B DP 8); the NVFP4 row runs at
//     the FP4 rate and is not fitted.
//   B200 BF16: η_mm of the BF16 GEMMs on the 4 dense SimuMax B200 rows (Llama-3 70B truncated to
//     12 layers, TP 1-8, no overlap); the 2 MoE rows are not fitted (their host time is
//     moe_dev_fit's constant).
// Objective: the sum of squared relative errors of the step time; golden-section on [0.1, 1].
// Prints markdown (docs/precision.md).
#include <cmath>
#include <cstdio>

#include "dev_fits.hpp"

using namespace tpcost;
using namespace tpcost::test;

namespace {

void report(const char* name, round3_fit fit) {
  const auto rows = round3_fit_rows(round3_dev_rows(), fit);
  const double all = fit_round3_matmul(rows);
  std::printf("%s, all %zu rows: eta_mm %.3f\n\n", name, rows.size(), all);
  std::printf(
      "| left out | eta_mm without it | in-sample error | leave-one-out error |\n"
      "|---|---|---|---|\n");
  double sum = 0.0, worst = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto rest = rows;
    rest.erase(i);
    const double x = fit_round3_matmul(rest);
    const auto in = evaluate_round3_row(rows[i], &all);
    const double e = evaluate_round3_row(rows[i], &x).error();
    std::printf("| %s | %.3f | %+.1f%% | %+.1f%% |\n", in.id.c_str(), x, 100 * in.error(), 100 * e);
    sum += std::fabs(e);
    worst = std::max(worst, std::fabs(e));
  }
  std::printf("\nleave-one-out: mean %.1f%%, worst %.1f%%\n\n",
              100 * sum / static_cast<double>(rows.size()), 100 * worst);
}

}  // namespace

int main() {
  report("GB300 FP8", round3_fit::gb300_fp8);
  report("B200 BF16", round3_fit::b200_bf16);
  return 0;
}
