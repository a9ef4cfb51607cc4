// The seed's per-layer model against the article's worked values (DESIGN.md) and hand
// derivations.
#include "tpcost/layer/tensor_parallel.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "support/matchers.hpp"
#include "tpcost/layer/metrics.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
constexpr layer_spec demo{};     // b=2, s=2048, h=8192, fp32: the article's Python demo
constexpr device_spec device{};  // P = 1e15 FLOP/s, B = 600e9 B/s

/// The article prints 3 decimals of ms; a value "equals the article's digits" when it rounds
/// to them.
bool rounds_to(double value, double printed, double step) {
  return std::fabs(value - printed) <= step / 2.0 + 1e-12;
}
}  // namespace

TEST_CASE("The demo's message, per-layer bytes and FLOPs follow b*s*h*d, 4x that, 72*b*s*h^2",
          "[tensor_parallel]") {
  CHECK(message_bytes(demo).value() == 134217728.0);  // 2*2048*8192*4
  CHECK(tp_comm_bytes_per_layer(demo).value() == 536870912.0);
  CHECK(layer_flops(demo).value() == 72.0 * 2.0 * 2048.0 * 8192.0 * 8192.0);
  CHECK_THAT(layer_flops(demo).value(), near(1.9791209299968e13, 1e-12));
}

TEST_CASE("Every cell of the article's demo table is reproduced", "[tensor_parallel][seed]") {
  struct article_row {
    std::int64_t tp;
    double compute_ms, comm_ms, total_ms, efficiency_pct;
  };
  // Python demo of the seed article (DESIGN.md, "Worked values").
  const article_row table[] = {
      {1, 19.791, 0.895, 20.686, 95.7}, {2, 9.896, 0.895, 10.790, 91.7},
      {4, 4.948, 0.895, 5.843, 84.7},   {8, 2.474, 0.895, 3.369, 73.4},
      {16, 1.237, 0.895, 2.132, 58.0},  {32, 0.618, 0.895, 1.513, 40.9},
  };
  const double a = 72.0 * 2 * 2048 * 8192.0 * 8192.0 / 1e15;  // closed form, seconds
  const double c = 4.0 * 2 * 2048 * 8192 * 4 / 600e9;
  for (const auto& row : table) {
    CAPTURE(row.tp);
    const auto cost = tp_cost_per_layer(demo, device, row.tp);
    const auto t = static_cast<double>(row.tp);
    CHECK_THAT(cost.compute.value(), near(a / t));
    CHECK_THAT(cost.comm.value(), near(c));
    CHECK_THAT(serial_time(cost.compute, cost.comm).value(), near(a / t + c));
    const double e = efficiency_from_ratio(comm_compute_ratio(cost.comm, cost.compute));
    CHECK_THAT(e, near((a / t) / (a / t + c)));
    CHECK(rounds_to(cost.compute.value() * 1e3, row.compute_ms, 1e-3));
    CHECK(rounds_to(cost.comm.value() * 1e3, row.comm_ms, 1e-3));
    CHECK(rounds_to(serial_time(cost.compute, cost.comm).value() * 1e3, row.total_ms, 1e-3));
    CHECK(rounds_to(e * 100.0, row.efficiency_pct, 0.1));
  }
}

TEST_CASE("NVLink vs PCIe at h=8192, t=8: R = 0.3617 (26.6% comm) and twice that (42.0%)",
          "[tensor_parallel][seed]") {
  const double r_nvlink_exact = 8e15 * 4 / (18 * 8192 * 600e9);  // 0.36168981...
  CHECK_THAT(r_nvlink_exact, near(0.361689814814814814, 1e-15));
  const auto nvlink = tp_cost_per_layer(demo, device, 8);
  const double r = comm_compute_ratio(nvlink.comm, nvlink.compute);
  CHECK_THAT(r, near(r_nvlink_exact));
  CHECK_THAT(article_ratio_closed_form(demo, device, 8), near(r_nvlink_exact));
  CHECK_THAT(r / (1 + r), near(0.265618, 1e-5));  // the article's "about 26%"

  const device_spec pcie{.peak = device.peak, .bandwidth = bytes_per_second(300e9)};
  const auto slow = tp_cost_per_layer(demo, pcie, 8);
  const double r_pcie = comm_compute_ratio(slow.comm, slow.compute);
  CHECK_THAT(r_pcie, near(2 * r_nvlink_exact));
  CHECK_THAT(r_pcie / (1 + r_pcie), near(0.419745, 1e-5));  // the article says "about 45%"
}

TEST_CASE("R's closed form t*P*d/(18*h*B) equals T_comm/T_calc for any inputs",
          "[tensor_parallel]") {
  const layer_spec odd{.batch = 3, .seq = 1000, .hidden = 5120, .element = {"bf16", 2}};
  const device_spec dev{.peak = flops_per_second(312e12), .bandwidth = bytes_per_second(2.5e10)};
  for (const std::int64_t t : {1, 3, 7, 64, 1000}) {
    const auto cost = tp_cost_per_layer(odd, dev, t);
    CHECK_THAT(article_ratio_closed_form(odd, dev, static_cast<double>(t)),
               near(comm_compute_ratio(cost.comm, cost.compute), 1e-12));
  }
}

TEST_CASE("Validation names the field and rejects values outside the model",
          "[tensor_parallel][validation]") {
  auto expect_field = [](layer_spec l, device_spec d, const std::string& field) {
    try {
      validate(l, d);
      FAIL("no error for " << field);
    } catch (const invalid_spec& e) {
      CHECK(e.field() == field);
    }
  };
  expect_field({.batch = 0}, device, "batch");
  expect_field({.seq = -5}, device, "seq");
  expect_field({.hidden = max_dimension + 1}, device, "hidden");
  expect_field({.element = {"x", 0}}, device, "dtype");
  expect_field(demo, {.peak = flops_per_second(0.0)}, "flops");
  expect_field(demo, {.peak = flops_per_second(NAN)}, "flops");
  expect_field(demo, {.bandwidth = bytes_per_second(-1.0)}, "bandwidth");
  expect_field(demo, {.bandwidth = bytes_per_second(INFINITY)}, "bandwidth");
  expect_field(demo, {.peak = flops_per_second(1e-300)}, "flops");  // compute time overflows
  expect_field(demo, {.bandwidth = bytes_per_second(1e-300)}, "bandwidth");
  CHECK_NOTHROW(validate(demo, device));
  CHECK_THROWS_AS(validate_tp(0), invalid_spec);
  CHECK_THROWS_AS(validate_tp(max_tp_degree + 1), invalid_spec);
  CHECK_NOTHROW(validate_tp(max_tp_degree));
}
