// Fits the MoE layer's two host constants (step/moe_layer.hpp: the stall of the dispatcher's
// synchronisation per forward, moe_host_sync_per_forward_s, and the launches of one pass of the
// whole layer eager, moe_host_launch_per_pass_s) on the 20 MoE development rows, BF16 and
// FP8/MXFP8 together (the CUDA-graph rows that tell the two apart are mostly FP8/MXFP8), and
// reports leave-one-out: every row predicted by the constants fitted on the other 19. For
// comparison it also fits on the 10 BF16 rows only, the FP8/MXFP8 rows held out, and prints the
// one-constant model before CUDA graphs (1.14 ms per pass, graphs ignored).
// Objective: the sum of squared relative errors of model TFLOP/s per GPU; coordinate descent
// with golden-section steps on [0, 5] ms. Prints markdown (docs/moe.md). Built, not run by
// CTest (`build/ci/tests/tpcost_moe_dev_fit`).
#include <cmath>
#include <cstdio>

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
  [[nodiscard]] std::string text() const {
    char b[64];
    std::snprintf(b, sizeof b, "mean %.1f%%, worst %.1f%%", 100.0 * mean(), 100.0 * worst);
    return b;
  }
};

nlohmann::json without_graphs(nlohmann::json runs) {
  for (auto& r : runs) {
    r.erase("cuda_graph_impl");
    r.erase("cuda_graph_scope");
  }
  return runs;
}

nlohmann::json all_but(const nlohmann::json& runs, std::size_t i) {
  auto rest = nlohmann::json::array();
  for (std::size_t j = 0; j < runs.size(); ++j) {
    if (j != i) {
      rest.push_back(runs[j]);
    }
  }
  return rest;
}

}  // namespace

int main() {
  const auto all = moe_dev_runs();
  nlohmann::json bf16 = nlohmann::json::array();
  for (const auto& run : all) {
    if (run.value("precision", std::string("bf16")) == "bf16") {
      bf16.push_back(run);
    }
  }
  const auto x = fit_moe_host(all);
  const auto xb = fit_moe_host(bf16);
  const moe_host_trial before{.sync = 0.0, .launch = 1.14e-3};
  const auto old = evaluate_moe_rows(without_graphs(all), &before);
  const auto fitted = evaluate_moe_rows(all, &x);
  const auto fitted_bf16 = evaluate_moe_rows(all, &xb);
  std::printf(
      "fitted on all %zu rows: synchronisation %.3f ms per forward, launches %.3f ms per pass\n",
      all.size(), 1e3 * x.sync, 1e3 * x.launch);
  std::printf("fitted on the %zu BF16 rows: synchronisation %.3f ms, launches %.3f ms\n\n",
              bf16.size(), 1e3 * xb.sync, 1e3 * xb.launch);
  std::printf(
      "| row | precision | CUDA graphs | measured TFLOP/s | before (1.14 ms/pass) | error | "
      "fitted | error | LOO sync, launch ms | LOO error |\n"
      "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  summary s_old[2], s_fit[2], s_loo[2], s_bf16fit[2], s_bf16loo;
  double lo_sync = 1.0, hi_sync = 0.0, lo_launch = 1.0, hi_launch = 0.0;
  std::size_t b = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const bool low = fitted[i].precision != "bf16";
    const auto g = cuda_graphs_of(all[i]);
    std::string graphs(to_string(g.impl));
    if (g.impl == cuda_graph_impl::local || g.impl == cuda_graph_impl::transformer_engine) {
      graphs +=
          " " + (g.scopes == 0 ? std::string("layer") : cuda_graph_scopes_to_string(g.scopes));
    }
    const auto y = fit_moe_host(all_but(all, i));
    lo_sync = std::min(lo_sync, y.sync);
    hi_sync = std::max(hi_sync, y.sync);
    lo_launch = std::min(lo_launch, y.launch);
    hi_launch = std::max(hi_launch, y.launch);
    const auto loo = evaluate_moe_rows(nlohmann::json::array({all[i]}), &y).front();
    s_old[low].add(old[i].error());
    s_fit[low].add(fitted[i].error());
    s_loo[low].add(loo.error());
    s_bf16fit[low].add(fitted_bf16[i].error());
    if (!low) {
      const auto yb = fit_moe_host(all_but(bf16, b));
      s_bf16loo.add(evaluate_moe_rows(nlohmann::json::array({all[i]}), &yb).front().error());
      ++b;
    }
    std::printf(
        "| %s | %s | %s | %.1f | %.1f | %+.1f%% | %.1f | %+.1f%% | %.3f, %.3f | %+.1f%% |\n",
        fitted[i].id.c_str(), fitted[i].precision.c_str(), graphs.c_str(), fitted[i].measured,
        old[i].predicted, 100.0 * old[i].error(), fitted[i].predicted, 100.0 * fitted[i].error(),
        1e3 * y.sync, 1e3 * y.launch, 100.0 * loo.error());
  }
  std::printf(
      "\n| rows | before (1.14 ms/pass, no graphs) | fitted on all 20 | leave-one-out | "
      "fitted on BF16 only |\n|---|---|---|---|---|\n");
  std::printf("| 10 BF16 | %s | %s | %s | %s (LOO %s) |\n", s_old[0].text().c_str(),
              s_fit[0].text().c_str(), s_loo[0].text().c_str(), s_bf16fit[0].text().c_str(),
              s_bf16loo.text().c_str());
  std::printf("| 10 FP8/MXFP8 | %s | %s | %s | %s (held out) |\n", s_old[1].text().c_str(),
              s_fit[1].text().c_str(), s_loo[1].text().c_str(), s_bf16fit[1].text().c_str());
  std::printf("\nleave-one-out fits: synchronisation %.3f-%.3f ms, launches %.3f-%.3f ms\n",
              1e3 * lo_sync, 1e3 * hi_sync, 1e3 * lo_launch, 1e3 * hi_launch);
  return 0;
}
