// Prints the CP and FP8 development rows as markdown (docs/context-parallel.md, precision.md).
#include <cstdio>

#include "cp_fp8_rows.hpp"

int main() {
  for (const char* set : {"fp8_rows", "cp_rows"}) {
    std::printf(
        "| row | layout | measured | predicted | error | CP exposed / hidden | MFU (BF16 peak / "
        "own peak) |\n|---|---|---|---|---|---|---|\n");
    double sum = 0, worst = 0;
    int n = 0;
    for (const auto& r : tpcost::test::cp_fp8_rows(set)) {
      if (!r.refused.empty()) {
        std::printf("| %s | %s | | refused: %s | | | |\n", r.id.c_str(), r.layout.c_str(),
                    r.refused.c_str());
        continue;
      }
      const char* unit = r.step_time ? "s" : "TFLOP/s/GPU";
      std::printf("| %s | %s | %.4g %s | %.4g %s | %+.1f%% | %.3g s / %.3g s | %.1f%% / %.1f%% |\n",
                  r.id.c_str(), r.layout.c_str(), r.measured, unit, r.predicted, unit,
                  100 * r.error, r.cp_exposed_s, r.cp_hidden_s, 100 * r.mfu_bf16, 100 * r.mfu_own);
      sum += r.error < 0 ? -r.error : r.error;
      worst = std::max(worst, r.error < 0 ? -r.error : r.error);
      ++n;
    }
    std::printf("\n%d rows: mean |error| %.1f%%, worst %.1f%%\n\n", n, 100 * sum / n, 100 * worst);
  }
}
