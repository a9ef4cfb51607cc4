// Fits the one MoE constant, the host-bound time per pass of an MoE layer
// (step/moe_layer.hpp, moe_host_time_per_pass_s), on the BF16 MoE development rows only, and
// reports its leave-one-out error: every BF16 row predicted by the constant fitted without it.
// The FP8/MXFP8 rows are predicted with the constant fitted on all BF16 rows and never fitted.
// Objective: the sum of squared relative errors of model TFLOP/s per GPU; golden-section search
// on [0, 5] ms. Prints markdown (docs/moe.md). Built, not run by CTest
// (`build/ci/tests/tpcost_moe_dev_fit`).
#include <cmath>
#include <cstdio>
#include <functional>

#include "dev_fits.hpp"

using namespace tpcost;
using namespace tpcost::test;

namespace {

struct summary {
  double sum = 0.0, worst = 0.0;
  int n = 0;
  void add(double e) {
    sum += std::fabs(e);
    worst = std::max(worst, std::fabs(e));
    ++n;
  }
  [[nodiscard]] double mean() const { return n > 0 ? sum / n : 0.0; }
};

}  // namespace

int main() {
  const auto all = moe_dev_runs();
  nlohmann::json bf16 = nlohmann::json::array();
  for (const auto& run : all) {
    if (run.value("precision", std::string("bf16")) == "bf16") {
      bf16.push_back(run);
    }
  }
  const double host = fit_moe_host_ms(bf16);
  const auto without = evaluate_moe_rows(all, 0.0);
  const auto fitted = evaluate_moe_rows(all, host * 1e-3);
  std::printf("host time per MoE pass fitted on the %zu BF16 rows: %.3f ms\n\n", bf16.size(), host);
  std::printf(
      "| row | precision | measured TFLOP/s | no host time | error | fitted | error | "
      "leave-one-out fit, ms | LOO error |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  summary s_without, s_without_low, s_fit, s_loo, s_low;
  double loo_min = 1e9, loo_max = 0.0;
  std::size_t b = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& u = without[i];
    const auto& f = fitted[i];
    (u.precision == "bf16" ? s_without : s_without_low).add(u.error());
    std::printf("| %s | %s | %.1f | %.1f | %+.1f%% | %.1f | %+.1f%% |", u.id.c_str(),
                u.precision.c_str(), u.measured, u.predicted, 100.0 * u.error(), f.predicted,
                100.0 * f.error());
    if (u.precision != "bf16") {
      s_low.add(f.error());
      std::printf(" not fitted | |\n");
      continue;
    }
    s_fit.add(f.error());
    nlohmann::json rest = nlohmann::json::array();
    for (std::size_t j = 0; j < bf16.size(); ++j) {
      if (j != b) {
        rest.push_back(bf16[j]);
      }
    }
    const double loo_host = fit_moe_host_ms(rest);
    loo_min = std::min(loo_min, loo_host);
    loo_max = std::max(loo_max, loo_host);
    const auto one = nlohmann::json::array({bf16[b]});
    const auto loo = evaluate_moe_rows(one, loo_host * 1e-3).front();
    s_loo.add(loo.error());
    std::printf(" %.3f | %+.1f%% |\n", loo_host, 100.0 * loo.error());
    ++b;
  }
  std::printf("\nBF16 rows without host time: mean |error| %.1f%%, worst %.1f%%\n",
              100.0 * s_without.mean(), 100.0 * s_without.worst);
  std::printf("FP8/MXFP8 rows without host time: mean |error| %.1f%%, worst %.1f%%\n",
              100.0 * s_without_low.mean(), 100.0 * s_without_low.worst);
  std::printf("BF16 rows, fitted: mean |error| %.1f%%, worst %.1f%%\n", 100.0 * s_fit.mean(),
              100.0 * s_fit.worst);
  std::printf("BF16 rows, leave-one-out: mean |error| %.1f%%, worst %.1f%% (fits %.3f-%.3f ms)\n",
              100.0 * s_loo.mean(), 100.0 * s_loo.worst, loo_min, loo_max);
  std::printf("FP8/MXFP8 rows (not fitted): mean |error| %.1f%%, worst %.1f%%\n",
              100.0 * s_low.mean(), 100.0 * s_low.worst);
  return 0;
}
