// The sweep and its summary scalars.
#include "tpcost/layer/sweep.hpp"

#include <catch2/catch.hpp>

#include "support/matchers.hpp"

using namespace tpcost;
using tpcost::test::near;

TEST_CASE("The seed's default sweep: t* = 22.1, E >= 70% up to t = 9.48, best swept TP 8",
          "[sweep][seed]") {
  const auto r = sweep_tp(layer_spec{}, device_spec{}, {1, 2, 4, 8, 16, 32});
  REQUIRE(r.rows.size() == 6);
  const double a = 72.0 * 2 * 2048 * 8192.0 * 8192.0 / 1e15;
  const double c = 4.0 * 2 * 2048 * 8192 * 4 / 600e9;
  CHECK_THAT(r.critical_tp, near(a / c));
  CHECK_THAT(r.tp_bound_for_target, near(a / c * 3.0 / 7.0));
  REQUIRE(r.best_swept_tp.has_value());
  CHECK(*r.best_swept_tp == 8);
  CHECK_THAT(r.utilisation_at_best, near(r.rows[3].efficiency));
  for (const auto& row : r.rows) {
    CHECK_THAT(row.comm_share, near(1.0 - row.efficiency, 1e-12));
    CHECK_THAT(row.speedup, near(a / row.serial.value()));
    CHECK(row.overlapped == max(row.compute, row.comm));
  }
}

TEST_CASE("A sweep where no degree meets the target says so", "[sweep]") {
  const device_spec slow{.peak = flops_per_second(1e15), .bandwidth = bytes_per_second(1e9)};
  const auto r = sweep_tp(layer_spec{}, slow, {1, 2});
  CHECK_FALSE(r.best_swept_tp.has_value());
}

TEST_CASE("The sweep validates before computing", "[sweep][validation]") {
  CHECK_THROWS_AS(sweep_tp(layer_spec{.batch = 0}, device_spec{}, {1}), invalid_spec);
  CHECK_THROWS_AS(sweep_tp(layer_spec{}, device_spec{}, {}), invalid_spec);
  CHECK_THROWS_AS(sweep_tp(layer_spec{}, device_spec{}, {0}), invalid_spec);
  CHECK_THROWS_AS(sweep_tp(layer_spec{}, device_spec{}, {1}, 1.0), invalid_spec);
  CHECK_THROWS_AS(sweep_tp(layer_spec{}, device_spec{}, {1}, 0.0), invalid_spec);
}

TEST_CASE("explain_tp carries the closed form and the t*/2 rule of thumb", "[sweep]") {
  const auto x = explain_tp(layer_spec{}, device_spec{}, 8);
  REQUIRE(x.sweep.rows.size() == 1);
  CHECK_THAT(x.ratio_closed_form, near(x.sweep.rows[0].ratio, 1e-12));
  CHECK_THAT(x.half_critical_tp, near(x.sweep.critical_tp / 2.0));
  CHECK_THAT(x.efficiency_at_half_critical, near(2.0 / 3.0));
}
