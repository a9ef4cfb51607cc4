// Guards for numbers entering and leaving the model (base/checked.hpp).
#include "tpcost/base/checked.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>

using namespace tpcost;

namespace {

/// The detail of the invalid_spec that `f` throws, or "" when it throws none.
template <class F>
std::string detail_of(F&& f) {
  try {
    f();
  } catch (const invalid_spec& e) {
    return e.field() + ": " + e.detail();
  }
  return "";
}

}  // namespace

TEST_CASE("multiply_fits forms a product only when it fits an int64", "[checked]") {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  std::int64_t out = 7;
  CHECK(multiply_fits(4096, 4096, out));
  CHECK(out == 16777216);
  CHECK(multiply_fits(max, 1, out));
  CHECK(out == max);
  CHECK(multiply_fits(-1, max, out));
  CHECK(out == -max);
  // 2^32 * 2^32 wraps to 0 in 64 bits: the SIGFPE of issue 17 (t*p as a divisor).
  CHECK_FALSE(multiply_fits(4294967296, 4294967296, out));
  CHECK_FALSE(multiply_fits(max, 2, out));
  CHECK_FALSE(multiply_fits(min, -1, out));  // -min is max + 1
}

TEST_CASE("checked_product multiplies every factor or names the field", "[checked]") {
  CHECK(checked_product("--gpus", {8, 16, 16}, "t*p*d") == 2048);
  CHECK(checked_product("--gpus", {}, "nothing") == 1);
  CHECK(checked_product("--gpus", {5, 0, 4294967296, 4294967296}, "t*p*d") == 0);
  const auto error = detail_of([] {
    (void)checked_product("--tp", {4294967296, 4294967296, 1}, "t*p");
  });
  CHECK(error.rfind("--tp: t*p overflows a 64-bit integer", 0) == 0);
  // The overflow is caught at the step where it happens, whatever follows.
  CHECK_FALSE(detail_of([] { (void)checked_product("f", {1LL << 62, 4, 0}, "x"); }).empty());
}

TEST_CASE("require_finite_result passes finite values and names a NaN or an infinity",
          "[checked]") {
  CHECK(require_finite_result("--intra-bandwidth", 3.5, "step time") == 3.5);
  CHECK(require_finite_result("f", 0.0, "x") == 0.0);
  CHECK(require_finite_result("f", -1e300, "x") == -1e300);
  const auto inf = std::numeric_limits<double>::infinity();
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(detail_of([&] {
          (void)require_finite_result("--intra-bandwidth", inf, "step time");
        }).rfind("--intra-bandwidth: makes the step time infinite", 0) == 0);
  CHECK(detail_of([&] {
          (void)require_finite_result("--memory", -inf, "headroom");
        }).rfind("--memory: makes the headroom infinite", 0) == 0);
  CHECK(detail_of([&] {
          (void)require_finite_result("--flops", nan, "MFU");
        }).rfind("--flops: makes the MFU NaN", 0) == 0);
}
