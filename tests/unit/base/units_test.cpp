// Runtime checks of the quantity type (the algebra itself is checked in tests/static).
#include "tpcost/base/units.hpp"

#include <catch2/catch.hpp>

using namespace tpcost;
using namespace tpcost::units;

TEST_CASE("A quantity holds its SI value and converts through unit constants", "[units]") {
  const auto bw = 600 * GB / s;
  CHECK(bw.value() == 600e9);
  const seconds t = (1 * GiB) / bw;
  CHECK(t.value() == 1073741824.0 / 600e9);
  const double ratio = (3 * ms) / (1 * ms);
  CHECK(ratio == 3.0);
  CHECK((2 * us + 3 * us) == 5 * us);
  CHECK((1 * TFLOP) / (1 * PFLOP / s) == seconds(1e-3));
}

TEST_CASE("Quantities order and accumulate like their values", "[units]") {
  bytes total{};
  total += 3 * MB;
  total -= 1 * MB;
  CHECK(total == 2 * MB);
  CHECK(1 * KiB > 1 * kB);
  CHECK(-(1 * s) < 0 * s);
}
