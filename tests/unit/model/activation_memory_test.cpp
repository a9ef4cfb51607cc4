// Activation memory (Korthikanti et al. 2022, Table 2) at hand-derived values.
#include "tpcost/model/activation_memory.hpp"

#include <catch2/catch.hpp>

#include "support/matchers.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
// s=2048, b=2, h=8192, a=64: s*b*h = 33,554,432; 5*a*s/h = 5*64*2048/8192 = 80.
constexpr activation_shape demo{.batch = 2, .seq = 2048, .hidden = 8192, .heads = 64};
constexpr double sbh = 2048.0 * 2 * 8192;
}  // namespace

TEST_CASE("Unsharded activations are s*b*h*(34 + 5*a*s/h) bytes", "[activation_memory]") {
  CHECK_THAT(activation_bytes_unsharded(demo).value(), near(sbh * 114.0));  // 3.825 GB
}

TEST_CASE("TP alone keeps 10*s*b*h replicated: s*b*h*(10 + 24/t + 5*a*s/(h*t))",
          "[activation_memory]") {
  // t=8: 10 + 3 + 10 = 23 per s*b*h; t=1 equals the unsharded 114.
  CHECK_THAT(activation_bytes_tp(demo, 8).value(), near(sbh * 23.0));
  CHECK_THAT(activation_bytes_tp(demo, 1).value(), near(sbh * 114.0));
  // t=64: 10 + 0.375 + 1.25 = 11.625.
  CHECK_THAT(activation_bytes_tp(demo, 64).value(), near(sbh * 11.625));
}

TEST_CASE("TP + SP shards everything: s*b*h/t*(34 + 5*a*s/h)", "[activation_memory]") {
  CHECK_THAT(activation_bytes_tp_sp(demo, 8).value(), near(sbh * 114.0 / 8.0));
  for (const std::int64_t t : {2, 4, 8, 16, 64}) {
    CAPTURE(t);
    // SP saves exactly the replicated 10*s*b*h*(1 - 1/t).
    CHECK_THAT(activation_bytes_tp(demo, t).value() - activation_bytes_tp_sp(demo, t).value(),
               near(10.0 * sbh * (1.0 - 1.0 / static_cast<double>(t))));
  }
}

TEST_CASE("Full recomputation keeps only the layer's 16-bit input, 2*s*b*h",
          "[activation_memory]") {
  CHECK_THAT(activation_bytes_full_recompute(demo, 8, false).value(), near(2.0 * sbh));
  CHECK_THAT(activation_bytes_full_recompute(demo, 8, true).value(), near(2.0 * sbh / 8.0));
}

TEST_CASE("Selective recomputation drops the 5*a*s/h scores: s*b*h*(10 + 24/t), s*b*h*34/t with SP",
          "[activation_memory]") {
  // t=8: 10 + 3 = 13 per s*b*h against 23 with the scores; with SP 34/8 = 4.25.
  CHECK_THAT(activation_bytes_selective(demo, 8, false).value(), near(sbh * 13.0));
  CHECK_THAT(activation_bytes_selective(demo, 8, true).value(), near(sbh * 4.25));
  for (const std::int64_t t : {1, 2, 8, 64}) {
    CAPTURE(t);
    // Exactly the scores term is saved: 5*a*s/(h*t) per s*b*h.
    CHECK_THAT(
        activation_bytes_tp(demo, t).value() - activation_bytes_selective(demo, t, false).value(),
        near(sbh * 80.0 / static_cast<double>(t)));
  }
}
