// Test helpers: compare quantities and doubles by relative tolerance.
#pragma once

#include <catch2/catch.hpp>

#include "tpcost/base/units.hpp"

namespace tpcost::test {

/// Matches a double within `rel` relative tolerance of `expected`.
inline auto near(double expected, double rel = 1e-9) {
  return Catch::Matchers::WithinRel(expected, rel);
}

}  // namespace tpcost::test
