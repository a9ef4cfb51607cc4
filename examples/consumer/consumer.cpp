// Uses the installed header-only core (tpcost::core): the seed's demo sweep and its t*.
#include <cstdio>

#include <tpcost/tpcost.hpp>
#include <tpcost/version.hpp>

int main() {
  using namespace tpcost;
  const layer_spec layer{.batch = 2, .seq = 2048, .hidden = 8192, .element = {"fp32", 4}};
  const device_spec gpu{.peak = 1 * units::PFLOP / units::s,
                        .bandwidth = 600 * units::GB / units::s};
  const auto result = sweep_tp(layer, gpu, {8});
  std::printf("tpcost %s: E(8) = %.3f, t* = %.2f\n", TPCOST_VERSION, result.rows[0].efficiency,
              result.critical_tp);
  return 0;
}
