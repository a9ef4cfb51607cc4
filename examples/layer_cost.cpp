// Using the core library without the CLI: sweep TP for an H100-like GPU in bf16.
#include <cstdio>

#include <tpcost/tpcost.hpp>

int main() {
  using namespace tpcost;
  const layer_spec layer{.batch = 2, .seq = 2048, .hidden = 8192, .element = {"bf16", 2}};
  const device_spec gpu{.peak = 989.4 * units::TFLOP / units::s,
                        .bandwidth = 450 * units::GB / units::s};
  const auto result = sweep_tp(layer, gpu, {1, 2, 4, 8});
  for (const auto& row : result.rows) {
    std::printf("TP=%lld  E=%.3f  R=%.4f\n", static_cast<long long>(row.tp), row.efficiency,
                row.ratio);
  }
  std::printf("t* = %.2f\n", result.critical_tp);
  return 0;
}
