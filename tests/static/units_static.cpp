// Compile-time checks of the units algebra: this file compiling is the test.
#include <type_traits>

#include "tpcost/base/units.hpp"

namespace {
using namespace tpcost;
using namespace tpcost::units;

static_assert(std::is_same_v<decltype(GB / s), bytes_per_second>);
static_assert(std::is_same_v<decltype(PFLOP / s), flops_per_second>);
static_assert(std::is_same_v<decltype(GB / (GB / s)), seconds>);
static_assert(std::is_same_v<decltype(TFLOP / (PFLOP / s)), seconds>);
static_assert(std::is_same_v<decltype(GB / MB), double>, "a ratio of equal dimensions is a double");
static_assert(std::is_same_v<decltype(600 * GB / s), bytes_per_second>);
static_assert((600 * GB / s).value() == 600e9);
static_assert(GiB.value() == 1073741824.0, "binary prefix");
static_assert(GB.value() == 1e9, "decimal prefix");
static_assert((3 * ms + 2 * ms).value() == 5 * ms.value());
static_assert(max(1 * ms, 2 * ms) == 2 * ms);
static_assert(min(1 * ms, 2 * ms) == 1 * ms);

template <class A, class B>
concept addable = requires(A a, B b) {
  a + b;
};
static_assert(addable<bytes, bytes>);
static_assert(!addable<bytes, seconds>, "bytes + seconds must not compile");
static_assert(!addable<flops, flops_per_second>, "a count and a rate must not mix");
}  // namespace
