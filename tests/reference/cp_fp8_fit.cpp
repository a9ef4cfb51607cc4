// Fits η_mm and η_attn (hardware/efficiency.hpp) on the development rows only, and reports each
// fitted constant's leave-one-out error: every row predicted by the constants fitted without it.
//
//   Hopper: η_mm BF16, η_mm FP8, η_attn and the hidden TP's contention (hidden_tp_contention)
//     together, on the 8 DGX Cloud Nemotron-4 15B BF16 rows (η_mm BF16, η_attn), the 8 FP8
//     rows and the 9 NeMo long-sequence Llama-2 7B H100 rows (η_mm FP8, η_attn): 25 rows.
//   Blackwell: η_mm FP8 and η_attn together on the 6 consistent NeMo Llama-3 8B B200 rows (the
//     BF16 η_mm, which only the BF16 logits use there, at the shipped B200 BF16 fit; the
//     contention at the shipped Hopper fit).
// The torchtitan rows are not fitted (another stack: FSDP2, torchao float8, PyTorch's ring
// attention, a 500 W HBM2e H100). Objective: the sum of squared relative errors; coordinate
// descent with golden-section steps on [0.1, 1]. Prints markdown (docs/precision.md).
#include <cmath>
#include <cstdio>
#include <functional>

#include "dev_fits.hpp"

using namespace tpcost;
using namespace tpcost::test;

namespace {

struct fitted_set {
  nlohmann::json rows;  ///< the development rows the fit sees
  bool blackwell = false;
};

void report(const char* name, const nlohmann::json& rows, bool blackwell) {
  const auto all = fit_efficiencies(rows, blackwell);
  std::printf(
      "%s, all %zu rows: eta_mm BF16 %.3f, eta_mm FP8 %.3f, eta_attn %.3f, hidden TP "
      "contention %.2f\n\n",
      name, rows.size(), all.bf16_matmul, all.fp8_matmul, all.attention, all.contention);
  std::printf(
      "| left out | eta_mm BF16 | eta_mm FP8 | eta_attn | contention | in-sample error | "
      "leave-one-out error |\n|---|---|---|---|---|---|---|\n");
  const auto in_sample = evaluate_cp_fp8_rows(rows, nullptr, &all);
  // Leave-one-out error per group of rows (the constant each group pins).
  struct group {
    const char* prefix;
    error_summary loo{};
  };
  group groups[] = {{"dgxc-v25.02-nemotron4-15b-bf16"},
                    {"dgxc-v25.02-nemotron4-15b-fp8"},
                    {"nemo-longseq-llama2-7b-h100"},
                    {"nemo-longseq-llama3-8b-b200"}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!in_sample[i].refused.empty()) {
      continue;
    }
    auto rest = rows;
    rest.erase(i);
    const auto x = fit_efficiencies(rest, blackwell);
    nlohmann::json one = nlohmann::json::array({rows[i]});
    const double e = evaluate_cp_fp8_rows(one, nullptr, &x).front().error;
    std::printf("| %s | %.3f | %.3f | %.3f | %.2f | %+.1f%% | %+.1f%% |\n", in_sample[i].id.c_str(),
                x.bf16_matmul, x.fp8_matmul, x.attention, x.contention, 100 * in_sample[i].error,
                100 * e);
    for (auto& g : groups) {
      if (in_sample[i].id.rfind(g.prefix, 0) == 0) {
        g.loo.add(e);
      }
    }
  }
  std::printf("\n");
  for (const auto& g : groups) {
    if (g.loo.n > 0) {
      std::printf("leave-one-out, %s (%d rows): mean |error| %.1f%%, worst %.1f%%\n", g.prefix,
                  g.loo.n, 100 * g.loo.mean(), 100 * g.loo.worst);
    }
  }
  std::printf("\n");
}

}  // namespace

int main() {
  const auto sets = efficiency_fit_sets();
  report("Hopper (H100)", sets.hopper, false);
  report("Blackwell (B200)", sets.blackwell, true);
}
