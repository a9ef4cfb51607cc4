// Prints the EP dispatch/combine model beside arXiv:2603.07685 Table 7 (docs/moe.md); the
// setup is in ep_alltoall.hpp.
#include <cstdio>

#include "ep_alltoall.hpp"

int main() {
  using namespace tpcost::reference;
  const auto rows = evaluate_table_7();
  std::printf("%-8s %-12s %-10s %4s %6s %12s %12s %8s\n", "op", "GPUs", "dispatcher", "EP", "nodes",
              "measured us", "model us", "error");
  double sum = 0.0;
  double worst = 0.0;
  for (const auto& r : rows) {
    std::printf("%-8s %-12s %-10s %4lld %6s %12.0f %12.0f %+7.1f%%\n", r.op.c_str(),
                r.nvl72 ? "GB200 NVL72" : "H100 x8/node",
                r.dispatcher == tpcost::token_dispatcher::deep_ep ? "HybridEP" : "NCCL a2a",
                static_cast<long long>(r.ep), r.spans_nodes ? "many" : "one", r.measured_us,
                r.predicted_us, 100.0 * r.error());
    sum += std::fabs(r.error());
    worst = std::fmax(worst, std::fabs(r.error()));
  }
  std::printf("%zu rows: mean |error| %.1f%%, worst %.1f%%\n", rows.size(),
              100.0 * sum / static_cast<double>(rows.size()), 100.0 * worst);
  return 0;
}
