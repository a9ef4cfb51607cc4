// Human-readable quantities (io/format.hpp).
#include "tpcost/io/format.hpp"

#include <catch2/catch.hpp>

using namespace tpcost;
using namespace tpcost::units;

TEST_CASE("Quantities print with a decimal prefix and their unit", "[format]") {
  CHECK(io::to_string(134217728.0 * B) == "134.2 MB");
  CHECK(io::to_string(600 * GB / s) == "600 GB/s");
  CHECK(io::to_string(1 * PFLOP / s) == "1 PFLOP/s");
  CHECK(io::to_string(19.791e12 * FLOP) == "19.79 TFLOP");
  CHECK(io::to_string(12 * B) == "12 B");
  CHECK(io::to_ms(0.0008947848 * s) == "0.895 ms");
  CHECK(io::to_string(13.7 * us) == "13.7 us");
  CHECK(io::to_string(2.5 * s) == "2.5 s");
  CHECK(io::percent(0.7340) == "73.4%");
}
