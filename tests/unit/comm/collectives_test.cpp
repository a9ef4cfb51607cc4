// α–β collective costs against hand derivations, and the nccl-tests bandwidth conventions.
//
// Inputs used throughout (round numbers so the derivations can be checked by hand):
//   M = 1 GB = 1e9 B; intra link β = 100 GB/s = 1e11 B/s, α = 5 us; inter link β_e = 25 GB/s,
//   α_e = 20 us. So M/β = 10 ms and M/β_e = 40 ms.
#include "tpcost/comm/collectives.hpp"

#include <catch2/catch.hpp>
#include <cstdint>

#include "support/matchers.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
constexpr bytes m{1e9};
constexpr link_spec intra{.bandwidth = bytes_per_second(1e11), .latency = seconds(5e-6)};
constexpr link_spec inter{.bandwidth = bytes_per_second(25e9), .latency = seconds(20e-6)};

struct expected {
  std::int64_t n;
  std::int64_t steps;
  double wire;  // bytes
  double time;  // seconds
};

void check(const collective_cost& c, const expected& e) {
  CAPTURE(e.n);
  CHECK(c.steps == e.steps);
  CHECK_THAT(c.wire_bytes.value(), near(e.wire, 1e-12));
  CHECK_THAT(c.time.value(), near(e.time, 1e-12));
}
}  // namespace

TEST_CASE("A group of one GPU costs nothing, whatever the algorithm", "[collectives]") {
  for (const auto op : all_collective_ops) {
    const auto ring = ring_cost(op, 1, m, intra);
    CHECK(ring.time.value() == 0.0);
    CHECK(ring.wire_bytes.value() == 0.0);
    CHECK(ring.steps == 0);
    CHECK(hierarchical_cost(op, 1, 1, m, intra, inter).time.value() == 0.0);
    CHECK(article_cost(op, 1, m, intra.bandwidth, bandwidth_kind::busbw).time.value() == 0.0);
  }
  const auto tree = tree_all_reduce_cost(1, m, intra);
  CHECK(tree.time.value() == 0.0);
  CHECK(tree.wire_bytes.value() == 0.0);
  CHECK(tree.steps == 0);
}

TEST_CASE("Ring all-reduce: 2(n-1) steps, 2(n-1)/n*M bytes, 2(n-1)*a + 2(n-1)/n*M/b",
          "[collectives]") {
  // n=2:  2 steps,  1e9 B,        10 us + 10 ms
  // n=8:  14 steps, 1.75e9 B,     70 us + 17.5 ms
  // n=16: 30 steps, 1.875e9 B,   150 us + 18.75 ms
  // n=64: 126 steps, 1.96875e9 B, 630 us + 19.6875 ms
  const expected table[] = {
      {2, 2, 1e9, 10e-6 + 10e-3},
      {8, 14, 1.75e9, 70e-6 + 17.5e-3},
      {16, 30, 1.875e9, 150e-6 + 18.75e-3},
      {64, 126, 1.96875e9, 630e-6 + 19.6875e-3},
  };
  for (const auto& e : table) {
    check(ring_cost(collective_op::all_reduce, e.n, m, intra), e);
  }
}

TEST_CASE("Ring reduce-scatter and all-gather: n-1 steps, (n-1)/n*M bytes, half an all-reduce",
          "[collectives]") {
  // n=2:  1 step,   0.5e9 B,       5 us + 5 ms
  // n=8:  7 steps,  0.875e9 B,    35 us + 8.75 ms
  // n=16: 15 steps, 0.9375e9 B,   75 us + 9.375 ms
  // n=64: 63 steps, 0.984375e9 B, 315 us + 9.84375 ms
  const expected table[] = {
      {2, 1, 0.5e9, 5e-6 + 5e-3},
      {8, 7, 0.875e9, 35e-6 + 8.75e-3},
      {16, 15, 0.9375e9, 75e-6 + 9.375e-3},
      {64, 63, 0.984375e9, 315e-6 + 9.84375e-3},
  };
  for (const auto op : {collective_op::reduce_scatter, collective_op::all_gather}) {
    for (const auto& e : table) {
      check(ring_cost(op, e.n, m, intra), e);
      // A ring all-reduce is a reduce-scatter followed by an all-gather.
      CHECK_THAT(2.0 * ring_cost(op, e.n, m, intra).time.value(),
                 near(ring_cost(collective_op::all_reduce, e.n, m, intra).time.value(), 1e-12));
    }
  }
}

TEST_CASE("Double binary tree all-reduce: 2*ceil(log2 n) steps, busiest GPU sends w(n)*M",
          "[collectives]") {
  // n=2:  2 steps, w=1:   10 us + 10 ms  (each tree is one edge: M/2 up, M/2 down)
  // n=3:  4 steps, w=1.5: 20 us + 15 ms  (NCCL's layout: the busiest rank sends 3M/2)
  // n=8:  6 steps, w=2:   30 us + 20 ms
  // n=16: 8 steps, w=2:   40 us + 20 ms
  // n=64: 12 steps, w=2:  60 us + 20 ms
  const expected table[] = {
      {2, 2, 1e9, 10e-6 + 10e-3},  {3, 4, 1.5e9, 20e-6 + 15e-3}, {8, 6, 2e9, 30e-6 + 20e-3},
      {16, 8, 2e9, 40e-6 + 20e-3}, {64, 12, 2e9, 60e-6 + 20e-3},
  };
  for (const auto& e : table) {
    check(tree_all_reduce_cost(e.n, m, intra), e);
  }
  // Not a power of two: the depth rounds up (n=9: 4 levels).
  CHECK(tree_all_reduce_cost(9, m, intra).steps == 8);
}

TEST_CASE("Tree against ring: fewer latency terms, more bytes per GPU from n = 3 on",
          "[collectives]") {
  const link_spec latency_bound{.bandwidth = bytes_per_second(1e11), .latency = seconds(1e-3)};
  const bytes small{1e3};
  for (const std::int64_t n : {4, 8, 16, 64}) {
    CAPTURE(n);
    CHECK(tree_all_reduce_cost(n, small, latency_bound).time <
          ring_cost(collective_op::all_reduce, n, small, latency_bound).time);
    CHECK(tree_all_reduce_cost(n, m, intra).wire_bytes >
          ring_cost(collective_op::all_reduce, n, m, intra).wire_bytes);
  }
  // n = 2: the two coincide.
  CHECK(tree_all_reduce_cost(2, m, intra).time ==
        ring_cost(collective_op::all_reduce, 2, m, intra).time);
}

TEST_CASE("Hierarchical all-reduce: intra ring, inter ring of M/g, intra ring", "[collectives]") {
  // One node (k=1) is the intra ring; one GPU per node (g=1) is the inter ring.
  check(hierarchical_cost(collective_op::all_reduce, 2, 1, m, intra, inter),
        {2, 2, 1e9, 10e-6 + 10e-3});
  check(hierarchical_cost(collective_op::all_reduce, 8, 1, m, intra, inter),
        {8, 14, 1.75e9, 70e-6 + 17.5e-3});
  // n=16, g=8, k=2: intra 14*5 us + 1.75e9/1e11 = 70 us + 17.5 ms;
  //   inter all-reduce of M/8 = 1.25e8 B over 2: 2*20 us + 1.25e8/25e9 = 40 us + 5 ms.
  //   steps 14 + 2 = 16; wire 1.75e9 + 1.25e8 = 1.875e9 (the ring's total), 1.25e8 across.
  const auto h16 = hierarchical_cost(collective_op::all_reduce, 8, 2, m, intra, inter);
  check(h16, {16, 16, 1.875e9, 70e-6 + 17.5e-3 + 40e-6 + 5e-3});
  CHECK_THAT(h16.inter_node_bytes.value(), near(1.25e8, 1e-12));
  // n=64, g=8, k=8: intra as above; inter 2*7*20 us + 2*7/8*1.25e8/25e9 = 280 us + 8.75 ms.
  //   steps 14 + 14 = 28; wire 1.75e9 + 2.1875e8 = 1.96875e9, 2.1875e8 across.
  const auto h64 = hierarchical_cost(collective_op::all_reduce, 8, 8, m, intra, inter);
  check(h64, {64, 28, 1.96875e9, 70e-6 + 17.5e-3 + 280e-6 + 8.75e-3});
  CHECK_THAT(h64.inter_node_bytes.value(), near(2.1875e8, 1e-12));
  // g=1: k=16 GPUs on the inter link only: 30*20 us + 1.875e9/25e9 = 600 us + 75 ms.
  const auto g1 = hierarchical_cost(collective_op::all_reduce, 1, 16, m, intra, inter);
  check(g1, {16, 30, 1.875e9, 600e-6 + 75e-3});
  CHECK(g1.inter_node_bytes == g1.wire_bytes);
}

TEST_CASE("Hierarchical reduce-scatter and all-gather: half the all-reduce's phases",
          "[collectives]") {
  // n=16, g=8, k=2: intra 7*5 us + 0.875e9/1e11 = 35 us + 8.75 ms;
  //   inter over 1.25e8 B: 20 us + 0.5*1.25e8/25e9 = 20 us + 2.5 ms. Wire 0.9375e9 = 15/16*M.
  for (const auto op : {collective_op::reduce_scatter, collective_op::all_gather}) {
    const auto c = hierarchical_cost(op, 8, 2, m, intra, inter);
    check(c, {16, 8, 0.9375e9, 35e-6 + 8.75e-3 + 20e-6 + 2.5e-3});
    CHECK_THAT(c.inter_node_bytes.value(), near(0.0625e9, 1e-12));
  }
}

TEST_CASE("The seed's convention: M/B per all-reduce at any n, M/(2B) per all-gather",
          "[collectives][seed]") {
  for (const std::int64_t n : {1, 2, 8, 16, 64}) {
    CAPTURE(n);
    const auto ar =
        article_cost(collective_op::all_reduce, n, m, intra.bandwidth, bandwidth_kind::algbw);
    CHECK_THAT(ar.time.value(), near(10e-3));  // 1e9 / 1e11
    CHECK(ar.wire_bytes == m);
    CHECK(ar.steps == 0);
    const auto ag =
        article_cost(collective_op::all_gather, n, m, intra.bandwidth, bandwidth_kind::algbw);
    CHECK_THAT(ag.time.value(), near(5e-3));
  }
  // busbw: B is the bus bandwidth, so the ring's bandwidth term without latency.
  // n=8: 1.75e9 / 1e11 = 17.5 ms; n=64: 1.96875e9 / 1e11 = 19.6875 ms.
  CHECK_THAT(article_cost(collective_op::all_reduce, 8, m, intra.bandwidth, bandwidth_kind::busbw)
                 .time.value(),
             near(17.5e-3));
  CHECK_THAT(article_cost(collective_op::all_reduce, 64, m, intra.bandwidth, bandwidth_kind::busbw)
                 .time.value(),
             near(19.6875e-3));
  CHECK_THAT(
      article_cost(collective_op::reduce_scatter, 16, m, intra.bandwidth, bandwidth_kind::busbw)
          .time.value(),
      near(9.375e-3));
}

TEST_CASE("nccl-tests: busbw = algbw*2(n-1)/n for all-reduce, *(n-1)/n for RS and AG",
          "[collectives]") {
  const bytes_per_second algbw{100e9};
  CHECK_THAT(bus_bandwidth(collective_op::all_reduce, 8, algbw).value(), near(175e9));
  CHECK_THAT(bus_bandwidth(collective_op::reduce_scatter, 8, algbw).value(), near(87.5e9));
  CHECK_THAT(bus_bandwidth(collective_op::all_gather, 64, algbw).value(), near(98.4375e9));
  CHECK(bus_bandwidth(collective_op::all_reduce, 1, algbw).value() == 0.0);
  for (const auto op : all_collective_ops) {
    for (const std::int64_t n : {2, 3, 8, 16, 64, 1000}) {
      CAPTURE(n);
      const auto back = algorithm_bandwidth_from_bus(op, n, bus_bandwidth(op, n, algbw)).value();
      CHECK_THAT(back, near(algbw.value(), 1e-12));
    }
  }
  CHECK_THROWS_AS(algorithm_bandwidth_from_bus(collective_op::all_reduce, 1, algbw), invalid_spec);
  // A ring's algbw M/T, converted to busbw, is the link bandwidth when latency is 0.
  const link_spec no_latency{.bandwidth = bytes_per_second(1e11), .latency = seconds(0.0)};
  for (const auto op : all_collective_ops) {
    const auto t = ring_cost(op, 16, m, no_latency).time;
    CHECK_THAT(bus_bandwidth(op, 16, algorithm_bandwidth(m, t)).value(), near(1e11, 1e-12));
  }
}

TEST_CASE("Names round-trip and unknown names are rejected with the field", "[collectives]") {
  for (const auto op : all_collective_ops) {
    CHECK(parse_collective_op(to_string(op), "--op") == op);
  }
  CHECK(parse_collective_op("allreduce", "--op") == collective_op::all_reduce);
  CHECK(parse_bandwidth_kind("busbw", "f") == bandwidth_kind::busbw);
  try {
    parse_collective_op("broadcast", "--op");
    FAIL("no throw");
  } catch (const invalid_spec& e) {
    CHECK(e.field() == "--op");
  }
  CHECK_THROWS_AS(parse_bandwidth_kind("seed", "f"), invalid_spec);
}
