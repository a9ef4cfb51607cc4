// The EP dispatch/combine model against arXiv:2603.07685 Table 7; the setup is in
// ep_alltoall.hpp. The model is α–β at the links' nominal per-direction bandwidth with no
// fitted efficiency, so it should run faster than the kernels (NCCL's all-to-all reaches
// 60-75% of NVLink here, the NICs ~85-90%), by at most half; the deep_ep traffic assumes
// uniform independent routing, which can overstate HybridEP's cross-node traffic a little,
// hence the +30% side.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "ep_alltoall.hpp"

using namespace tpcost;
using namespace tpcost::reference;

namespace {
const ep_row& find(const std::vector<ep_row>& rows, const char* op, std::int64_t ep, bool nvl72,
                   token_dispatcher d) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const ep_row& r) {
    return r.op == op && r.ep == ep && r.nvl72 == nvl72 && r.dispatcher == d;
  });
  REQUIRE(it != rows.end());
  return *it;
}
}  // namespace

TEST_CASE(
    "Table 7: every dispatch and combine within -50%..+30% of the measured latency, "
    "mean |error| <= 30%",
    "[reference][moe]") {
  const auto rows = evaluate_table_7();
  REQUIRE(rows.size() == 32);
  double sum = 0.0;
  for (const auto& r : rows) {
    CAPTURE(r.op, r.ep, r.nvl72, r.measured_us, r.predicted_us);
    CHECK(r.error() >= -0.50);
    CHECK(r.error() <= 0.30);
    sum += std::fabs(r.error());
  }
  CHECK(sum / static_cast<double>(rows.size()) <= 0.30);
}

TEST_CASE(
    "Table 7: on H100 the latency jumps from EP 8 to 16, where the group leaves the node, and "
    "on NVL72 it stays flat to EP 64",
    "[reference][moe]") {
  const auto rows = evaluate_table_7();
  for (const char* op : {"dispatch", "combine"}) {
    CAPTURE(op);
    for (const auto d : {token_dispatcher::all_to_all, token_dispatcher::deep_ep}) {
      CAPTURE(to_string(d));
      const auto& h8 = find(rows, op, 8, false, d);
      const auto& h16 = find(rows, op, 16, false, d);
      CHECK_FALSE(h8.spans_nodes);
      CHECK(h16.spans_nodes);
      // Measured: 4.5x (NCCL) and 2.2-2.7x (HybridEP); the model must show a jump of the
      // same kind, not a smooth curve.
      const double min_jump = d == token_dispatcher::all_to_all ? 3.0 : 1.5;
      CHECK(h16.measured_us / h8.measured_us >= min_jump);
      CHECK(h16.predicted_us / h8.predicted_us >= min_jump);
      const auto& g8 = find(rows, op, 8, true, d);
      const auto& g64 = find(rows, op, 64, true, d);
      CHECK_FALSE(g64.spans_nodes);  // 64 GPUs in one 72-GPU NVLink domain
      CHECK(g64.measured_us / g8.measured_us <= 2.2);
      CHECK(g64.predicted_us / g8.predicted_us <= 2.2);
      // And the 8x8 H100 cluster at EP 64 is several times slower than NVL72 at EP 64.
      CHECK(find(rows, op, 64, false, d).predicted_us / g64.predicted_us >= 5.0);
    }
  }
}

TEST_CASE(
    "Table 7: HybridEP's deduplicated traffic is cheaper than the NCCL all-to-all on every "
    "row, measured and modelled",
    "[reference][moe]") {
  const auto rows = evaluate_table_7();
  for (const auto& r : rows) {
    if (r.dispatcher != token_dispatcher::deep_ep) {
      continue;
    }
    const auto& nccl = find(rows, r.op.c_str(), r.ep, r.nvl72, token_dispatcher::all_to_all);
    CAPTURE(r.op, r.ep, r.nvl72);
    CHECK(r.measured_us < nccl.measured_us);
    CHECK(r.predicted_us < nccl.predicted_us);
  }
}
