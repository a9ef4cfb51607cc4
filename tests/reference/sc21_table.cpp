// Prints the SC21 Table 1 validation (README "Validation"): `make validate`.
#include <cstdio>

#include "sc21.hpp"

int main() {
  using namespace tpcost;
  using namespace tpcost::reference;
  for (const auto& [label, efficiency] :
       {std::pair{"default A100 efficiencies (matmul 0.75, memory 0.66)", kernel_efficiency{}},
        std::pair{"evidence-only efficiencies (matmul 0.754, memory 0.790)",
                  kernel_efficiency{.matmul = 0.754, .memory = 0.790}}}) {
    const auto rows = evaluate_table_1(efficiency);
    std::printf("%s\n", label);
    std::printf("%-12s %4s %3s %3s %3s %2s %4s %6s %6s %7s | %7s %5s %6s %5s %5s %5s\n", "model",
                "t", "p", "d", "b", "v", "m", "meas", "pred", "error", "compute", "TP", "bubble",
                "p2p", "DP", "opt");
    for (const auto& r : rows) {
      const auto& t = r.result.time;
      const double s = r.result.step_time.value();
      const auto& par = r.inputs.par;
      std::printf(
          "%-12s %4lld %3lld %3lld %3lld %2lld %4lld %6.0f %6.1f %+6.1f%% | %6.1f%% %4.1f%% "
          "%5.1f%% %4.1f%% %4.1f%% %4.1f%%\n",
          r.name.c_str(), static_cast<long long>(par.tp), static_cast<long long>(par.pp),
          static_cast<long long>(par.dp), static_cast<long long>(par.micro_batch),
          static_cast<long long>(par.vpp), static_cast<long long>(r.result.micro_batches),
          r.measured_tflops, r.predicted_tflops, 100.0 * r.error(), 100.0 * t.compute.value() / s,
          100.0 * t.tp_comm.value() / s, 100.0 * t.bubble.value() / s, 100.0 * t.p2p.value() / s,
          100.0 * t.dp_comm.value() / s, 100.0 * t.optimizer.value() / s);
    }
    std::printf("mean |error| %.2f%%, worst %.2f%%\n\n", 100.0 * mean_abs_error(rows),
                100.0 * worst_error(rows));
  }
  return 0;
}
