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
//   torchtitan (PyTorch kernels) on H100: η_mm of the BF16 GEMMs (eager and compiled), η_mm of
//     torchao float8's tensorwise GEMMs and PyTorch eager's element-wise traffic factor, together
//     on the 6 torchtitan H100 rows (Llama-3.1 8B FSDP 8 and 128: eager, + torch.compile,
//     + compile + float8); "before" is each row under the Transformer Engine values.
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
  error_summary loo;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto rest = rows;
    rest.erase(i);
    const double x = fit_round3_matmul(rest);
    const auto in = evaluate_round3_row(rows[i], &all);
    const double e = evaluate_round3_row(rows[i], &x).error();
    std::printf("| %s | %.3f | %+.1f%% | %+.1f%% |\n", in.id.c_str(), x, 100 * in.error(), 100 * e);
    loo.add(e);
  }
  std::printf("\nleave-one-out: mean %.1f%%, worst %.1f%%\n\n", 100 * loo.mean(), 100 * loo.worst);
}

/// The rows as tpcost priced them before the torchtitan fit: the Transformer Engine values.
const torchtitan_trial constant_trial{
    .bf16_matmul = default_efficiency(gpu_architecture::hopper, tensor_rate::bf16).matmul,
    .fp8_matmul = default_efficiency(gpu_architecture::hopper, tensor_rate::fp8).matmul,
    .eager_traffic = 1.0};

/// The torchtitan fit (dev_fits.hpp fit_torchtitan): the three constants on all 6 rows, then each
/// row predicted by the constants refitted on the other 5.
void report_torchtitan() {
  const auto rows = torchtitan_fit_rows(round3_dev_rows());
  const auto all = fit_torchtitan(rows);
  std::printf(
      "torchtitan H100, all %zu rows: eta_mm BF16 %.3f, eta_mm torchao float8 %.3f, eager "
      "element-wise traffic x%.2f\n\n",
      rows.size(), all.bf16_matmul, all.fp8_matmul, all.eager_traffic);
  std::printf(
      "| left out | kernels | eta_mm BF16 | eta_mm FP8 | eager traffic | before | in-sample | "
      "leave-one-out |\n|---|---|---|---|---|---|---|---|\n");
  error_summary loo;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto rest = rows;
    rest.erase(i);
    const auto x = fit_torchtitan(rest);
    const auto before = evaluate_round3_row(rows[i], nullptr, &constant_trial);
    const auto in = evaluate_round3_row(rows[i], nullptr, &all);
    const double e = evaluate_round3_row(rows[i], nullptr, &x).error();
    const auto k = kernels_of(rows[i]);
    std::printf("| %s | %s%s | %.3f | %.3f | %.2f | %+.1f%% | %+.1f%% | %+.1f%% |\n", in.id.c_str(),
                k == kernel_stack::pytorch_eager ? "eager" : "compiled",
                in.precision == "bf16" ? "" : ", float8", x.bf16_matmul, x.fp8_matmul,
                x.eager_traffic, 100 * before.error(), 100 * in.error(), 100 * e);
    loo.add(e);
  }
  std::printf("\nleave-one-out: mean %.1f%%, worst %.1f%%\n\n", 100 * loo.mean(), 100 * loo.worst);
}

}  // namespace

int main() {
  report("GB300 FP8", round3_fit::gb300_fp8);
  report("B200 BF16", round3_fit::b200_bf16);
  report_torchtitan();
  return 0;
}
