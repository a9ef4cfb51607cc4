// The error band's arithmetic (step/error_band.hpp): the conformal rank, and which group an input
// takes and how the band widens when none matches.
#include "tpcost/step/error_band.hpp"

#include <catch2/catch.hpp>

using namespace tpcost;
using Catch::Matchers::WithinRel;

namespace {
band_group group(const char* generation, bool moe, const char* precision, double centre,
                 double half_width) {
  band_group g{.name = std::string(generation) + (moe ? " MoE " : " dense ") + precision,
               .key = {generation, moe, precision, "megatron-core"}};
  g.rows = 10;
  g.pp_rows = 3;
  g.centre = centre;
  g.half_width = half_width;
  return g;
}
}  // namespace

TEST_CASE("the conformal band ranks the ceil(0.85 (n + 1))-th spread about the mean", "[band]") {
  // Residuals 0.01 .. 0.10: mean 0.055, spreads 0.005 (x2), 0.015 (x2), ..., 0.045 (x2).
  std::vector<double> r;
  for (int i = 1; i <= 10; ++i) {
    r.push_back(0.01 * i);
  }
  const auto b = conformal_band(r);
  CHECK_THAT(b.centre, WithinRel(0.055, 1e-12));
  // ceil(0.85 * 11) = 10: the largest of the ten spreads.
  CHECK_THAT(b.half_width, WithinRel(0.045, 1e-9));
  CHECK(b.holds(0.0999));  // the largest residual sits on the edge, to rounding
  CHECK(b.holds(0.0101));
  CHECK_FALSE(b.holds(0.11));
  // Fewer rows than band_min_rows: the widest spread, widened.
  const auto few = conformal_band({0.0, 0.02});
  CHECK_THAT(few.half_width, WithinRel(0.01 * band_widening, 1e-12));
}

TEST_CASE("an input takes its own group, widened only for what the group's rows lack", "[band]") {
  const std::vector<band_group> groups{group("Hopper", false, "16-bit", 0.01, 0.05),
                                       group("Hopper", false, "FP8", -0.02, 0.04),
                                       group("Hopper", true, "16-bit", 0.0, 0.30)};
  band_input in{.key = {"Hopper", false, "FP8", "megatron-core"}};
  auto c = choose_band(in, groups);
  REQUIRE(c.group == &groups[1]);
  CHECK(c.comparable);
  CHECK(c.rule.empty());
  CHECK_THAT(c.band.high(), WithinRel(1.02, 1e-12));
  in.cp = true;  // no row of the group has CP
  c = choose_band(in, groups);
  CHECK_THAT(c.band.half_width, WithinRel(0.04 * band_widening, 1e-12));
  CHECK(c.rule.find("CP") != std::string::npos);
}

TEST_CASE("no comparable measured runs: the nearest group widened, or the median rule", "[band]") {
  const std::vector<band_group> groups{group("Hopper", false, "16-bit", 0.01, 0.05),
                                       group("Ampere", false, "16-bit", 0.0, 0.02),
                                       group("Hopper", true, "16-bit", 0.0, 0.30)};
  // Blackwell dense 16-bit: no generation match; precision and stack pick the first group.
  auto c = choose_band({.key = {"Blackwell", false, "16-bit", "megatron-core"}}, groups);
  REQUIRE(c.group != nullptr);
  CHECK_FALSE(c.comparable);
  CHECK(c.rule.find("no comparable measured runs") == 0);
  CHECK_THAT(c.band.half_width, WithinRel(0.05 * band_widening, 1e-12));
  // An assumed efficiency: centred, ±2x the median half width (0.05).
  c = choose_band({.key = {"Hopper", false, "16-bit", "megatron-core"}, .assumed_efficiency = true},
                  groups);
  CHECK(c.group == nullptr);
  CHECK(c.band.centre == 0.0);
  CHECK_THAT(c.band.half_width, WithinRel(0.05 * band_widening, 1e-12));
  // The low edge stays above zero however wide the band.
  const relative_band wide{.centre = -0.5, .half_width = 2.0};
  CHECK(wide.low() > 0.0);
}

TEST_CASE("the nearest group shares the generation, then the stack, then the precision", "[band]") {
  auto titan = group("Hopper", false, "FP8", 0.40, 0.30);
  titan.key.stack = "fsdp2";
  const std::vector<band_group> groups{group("Hopper", false, "16-bit", 0.0, 0.05), titan};
  // torchtitan BF16: no group of its own; the FP8 torchtitan rows, not the megatron-core BF16.
  const auto c = choose_band({.key = {"Hopper", false, "16-bit", "fsdp2"}}, groups);
  REQUIRE(c.group == &groups[1]);
  CHECK_FALSE(c.comparable);
  CHECK_THAT(c.band.half_width, WithinRel(0.30 * band_widening, 1e-12));
  CHECK_THAT(c.band.centre, WithinRel(0.40, 1e-12));
}
