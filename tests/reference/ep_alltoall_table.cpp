// Prints the EP dispatch/combine model beside arXiv:2603.07685 Table 7 (docs/moe.md): each row
// at the rates of comm/expert_parallel.hpp and at the rates fitted without it (leave-one-out),
// then each dispatcher's rates as fitted on all its rows. The setup is in ep_alltoall.hpp.
#include <cmath>
#include <cstdio>

#include "ep_alltoall.hpp"
#include "error_summary.hpp"

int main() {
  using namespace tpcost;
  using namespace tpcost::reference;
  const auto rows = evaluate_table_7(true);
  std::printf("%-8s %-12s %-10s %4s %6s %12s %12s %8s %12s %8s\n", "op", "GPUs", "dispatcher", "EP",
              "nodes", "measured us", "model us", "error", "LOO us", "LOO");
  test::error_summary all, loo, by[2], by_loo[2];
  for (const auto& r : rows) {
    const bool hybrid = r.dispatcher == token_dispatcher::deep_ep;
    std::printf("%-8s %-12s %-10s %4lld %6s %12.0f %12.0f %+7.1f%% %12.0f %+7.1f%%\n", r.op.c_str(),
                r.nvl72 ? "GB200 NVL72" : "H100 x8/node", hybrid ? "HybridEP" : "NCCL a2a",
                static_cast<long long>(r.ep), r.spans_nodes ? "many" : "one", r.measured_us,
                r.predicted_us, 100.0 * r.error(), r.loo_us, 100.0 * r.loo_error());
    all.add(r.error());
    loo.add(r.loo_error());
    by[hybrid ? 1 : 0].add(r.error());
    by_loo[hybrid ? 1 : 0].add(r.loo_error());
  }
  for (const auto d : {token_dispatcher::all_to_all, token_dispatcher::deep_ep}) {
    const bool hybrid = d == token_dispatcher::deep_ep;
    const auto f = fit_table_7_rates(rows, d);
    std::printf(
        "%s, fitted on its %d rows: NVLink %.3f, network %.3f, per peer %.2f us, fixed %.1f us; "
        "mean |error| %.1f%%, worst %.1f%%; leave-one-out %.1f%%, worst %.1f%%\n",
        hybrid ? "HybridEP" : "NCCL a2a", by[hybrid ? 1 : 0].n, f.nvlink, f.network,
        f.per_peer.value() * 1e6, f.fixed.value() * 1e6, 100.0 * by[hybrid ? 1 : 0].mean(),
        100.0 * by[hybrid ? 1 : 0].worst, 100.0 * by_loo[hybrid ? 1 : 0].mean(),
        100.0 * by_loo[hybrid ? 1 : 0].worst);
  }
  std::printf(
      "%d rows: mean |error| %.1f%%, worst %.1f%%; leave-one-out mean %.1f%%, worst %.1f%%\n",
      all.n, 100.0 * all.mean(), 100.0 * all.worst, 100.0 * loo.mean(), 100.0 * loo.worst);
  return 0;
}
