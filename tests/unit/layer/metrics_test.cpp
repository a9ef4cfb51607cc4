// The scaling metrics: the article's scaling example, quiz Q10, and invariants over random
// valid inputs.
#include "tpcost/layer/metrics.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <random>

#include "support/matchers.hpp"
#include "tpcost/layer/tensor_parallel.hpp"

using namespace tpcost;
using tpcost::test::near;

TEST_CASE("Scaling example: A = 10 min, C = 0.12 min gives 2.62 min at t=4 and t* = 83.3",
          "[metrics][seed]") {
  const seconds a{10.0};  // minutes stand in for seconds: the formulas are linear in time
  const seconds c{0.12};
  CHECK_THAT(serial_time(a / 4.0, c).value(), near(2.62));
  CHECK_THAT(critical_tp_degree(a, c), near(250.0 / 3.0));
  CHECK_THAT(efficiency(a, c, critical_tp_degree(a, c)), near(0.5));
}

TEST_CASE("Quiz Q10: E = 1/(1+k*t), E(4) = 0.8 gives k = 0.0625 and E(16) = 0.5",
          "[metrics][seed]") {
  // E(t) = A/(A + C*t) = 1/(1 + (C/A)*t), so k = C/A.
  const double k = (1.0 / 0.8 - 1.0) / 4.0;
  CHECK_THAT(k, near(0.0625));
  const seconds a{1.0};
  const seconds c{k};
  CHECK_THAT(efficiency(a, c, 4.0), near(0.8));
  CHECK_THAT(efficiency(a, c, 16.0), near(0.5));
}

TEST_CASE("The largest t with E >= target is t*(1-target)/target", "[metrics]") {
  const seconds a{19.791e-3};
  const seconds c{0.895e-3};
  const double t70 = max_tp_for_efficiency(a, c, 0.7);
  CHECK_THAT(t70, near(critical_tp_degree(a, c) * 3.0 / 7.0));
  CHECK_THAT(efficiency(a, c, t70), near(0.7));
  // The seed's rule of thumb t <= t*/2 lands at E = 2/3, not 70%.
  CHECK_THAT(efficiency(a, c, critical_tp_degree(a, c) / 2.0), near(2.0 / 3.0));
}

TEST_CASE("Utilisation mu = 1/(1 + sum comm / sum compute) over several parts", "[metrics]") {
  const std::array<time_split, 3> parts{
      {{seconds(3.0), seconds(1.0)}, {seconds(1.0), seconds(0.0)}, {seconds(4.0), seconds(3.0)}}};
  CHECK_THAT(utilisation(parts), near(1.0 / (1.0 + 4.0 / 8.0)));
  CHECK(utilisation(std::span<const time_split>{}) == 0.0);
}

TEST_CASE("Invariants hold over many random valid inputs", "[metrics][property]") {
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<std::int64_t> dim(1, 65536);
  std::uniform_int_distribution<int> bytes_per(1, 8);
  std::uniform_real_distribution<double> log_rate(9.0, 16.0);
  std::uniform_int_distribution<std::int64_t> degree(1, 4096);
  for (int i = 0; i < 20000; ++i) {
    const layer_spec l{.batch = dim(rng) % 64 + 1,
                       .seq = dim(rng),
                       .hidden = dim(rng),
                       .element = {"n", bytes_per(rng)}};
    const device_spec d{.peak = flops_per_second(std::pow(10.0, log_rate(rng) + 3.0)),
                        .bandwidth = bytes_per_second(std::pow(10.0, log_rate(rng)))};
    const auto t = degree(rng);
    CAPTURE(l.batch, l.seq, l.hidden, l.element.size_bytes, d.peak.value(), d.bandwidth.value(), t);
    const auto cost = tp_cost_per_layer(l, d, t);
    const double r = comm_compute_ratio(cost.comm, cost.compute);
    const double e = efficiency_from_ratio(r);
    REQUIRE(e > 0.0);
    REQUIRE(e <= 1.0);
    REQUIRE_THAT(r * e, near(1.0 - e, 1e-9) || Catch::Matchers::WithinAbs(1.0 - e, 1e-15));
    REQUIRE_THAT(
        e,
        near(efficiency(single_gpu_compute_time(l, d), cost.comm, static_cast<double>(t)), 1e-12));
    REQUIRE(overlapped_time(cost.compute, cost.comm) <= serial_time(cost.compute, cost.comm));
    // R grows with t, P and d; falls with h and B.
    const auto r_of = [](const layer_spec& ll, const device_spec& dd, std::int64_t tt) {
      const auto cc = tp_cost_per_layer(ll, dd, tt);
      return comm_compute_ratio(cc.comm, cc.compute);
    };
    REQUIRE(r_of(l, d, t + 1) > r);
    REQUIRE(r_of(l, {.peak = d.peak * 2.0, .bandwidth = d.bandwidth}, t) > r);
    REQUIRE(r_of({l.batch, l.seq, l.hidden, {"n", l.element.size_bytes + 1}}, d, t) > r);
    REQUIRE(r_of({l.batch, l.seq, l.hidden + 1, l.element}, d, t) < r);
    REQUIRE(r_of(l, {.peak = d.peak, .bandwidth = d.bandwidth * 2.0}, t) < r);
    // E(t*) = 1/2.
    const auto a = single_gpu_compute_time(l, d);
    REQUIRE_THAT(efficiency(a, cost.comm, critical_tp_degree(a, cost.comm)), near(0.5, 1e-12));
  }
}
