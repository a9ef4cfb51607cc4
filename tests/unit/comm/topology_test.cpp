// Placing a TP group on nodes, the links it pays, and the cheapest-algorithm choice.
#include "tpcost/comm/topology.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "support/matchers.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
// 8 GPUs per node; intra 100 GB/s, 5 us; inter 25 GB/s per GPU, 20 us.
const cluster_topology cluster{
    .gpus_per_node = 8,
    .intra = {.bandwidth = bytes_per_second(1e11), .latency = seconds(5e-6)},
    .inter = {.bandwidth = bytes_per_second(25e9), .latency = seconds(20e-6)},
};
constexpr bytes m{1e9};

std::string field_of(const auto& call) {
  try {
    call();
  } catch (const invalid_spec& e) {
    return e.field();
  }
  return "(no throw)";
}
}  // namespace

TEST_CASE("A group that fits in a node stays there, a larger one fills whole nodes", "[topology]") {
  const auto in = place_group(cluster, 8);
  CHECK(in.nodes == 1);
  CHECK(in.per_node == 8);
  CHECK_FALSE(in.spans_nodes());
  const auto three = place_group(cluster, 3);
  CHECK(three.nodes == 1);
  const auto two_nodes = place_group(cluster, 16);
  CHECK(two_nodes.nodes == 2);
  CHECK(two_nodes.per_node == 8);
  CHECK(two_nodes.spans_nodes());
  CHECK(place_group(cluster, 64).nodes == 8);
}

TEST_CASE("TP 12 on 8-GPU nodes spans nodes without filling them: rejected naming tp",
          "[topology][validation]") {
  CHECK(field_of([] { place_group(cluster, 12); }) == "tp");
  CHECK(field_of([] { place_group(cluster, 24); }) == "(no throw)");
  cluster_topology no_inter = cluster;
  no_inter.inter = {};
  CHECK(field_of([&] { place_group(no_inter, 16); }) == "inter-bandwidth");
  CHECK(field_of([&] { place_group(no_inter, 8); }) == "(no throw)");
}

TEST_CASE("Negative or non-finite latencies and bandwidths are rejected naming the flag",
          "[topology][validation]") {
  auto bad = cluster;
  bad.intra.latency = seconds(-1e-6);
  CHECK(field_of([&] { validate(bad); }) == "intra-latency");
  bad = cluster;
  bad.inter.latency = seconds(-1e-6);
  CHECK(field_of([&] { validate(bad); }) == "inter-latency");
  bad = cluster;
  bad.intra.bandwidth = bytes_per_second(0.0);
  CHECK(field_of([&] { validate(bad); }) == "intra-bandwidth");
  bad = cluster;
  bad.inter.bandwidth = bytes_per_second(std::nan(""));
  CHECK(field_of([&] { validate(bad); }) == "inter-bandwidth");
  bad = cluster;
  bad.gpus_per_node = 0;
  CHECK(field_of([&] { validate(bad); }) == "gpus-per-node");
  CHECK(field_of([] { validate(cluster); }) == "(no throw)");
}

TEST_CASE("A flat ring across nodes runs at the slowest hop, inside a node at the intra link",
          "[topology]") {
  // n=16 flat: 30 steps at 20 us + 1.875e9 B at 25 GB/s = 600 us + 75 ms.
  const auto flat = collective_cost_in(cluster, place_group(cluster, 16), collective_op::all_reduce,
                                       collective_algorithm::ring, m);
  CHECK_THAT(flat.time.value(), near(600e-6 + 75e-3));
  CHECK(flat.inter_node_bytes == flat.wire_bytes);
  // n=16 flat tree: 8 steps at 20 us + 2e9 B at 25 GB/s = 160 us + 80 ms.
  const auto tree = collective_cost_in(cluster, place_group(cluster, 16), collective_op::all_reduce,
                                       collective_algorithm::tree, m);
  CHECK_THAT(tree.time.value(), near(160e-6 + 80e-3));
  // n=8: the intra link, 70 us + 17.5 ms, nothing crosses nodes.
  const auto inside = collective_cost_in(cluster, place_group(cluster, 8),
                                         collective_op::all_reduce, collective_algorithm::ring, m);
  CHECK_THAT(inside.time.value(), near(70e-6 + 17.5e-3));
  CHECK(inside.inter_node_bytes.value() == 0.0);
}

TEST_CASE("The node boundary is a cliff: 8 -> 16 GPUs multiplies the all-reduce time",
          "[topology]") {
  const auto at = [&](std::int64_t n, collective_algorithm a) {
    return collective_cost_in(cluster, place_group(cluster, n), collective_op::all_reduce, a, m)
        .time.value();
  };
  // Inside a node, doubling 4 -> 8 costs little: 2*3/4 -> 2*7/8 of M/β.
  CHECK(at(8, collective_algorithm::ring) / at(4, collective_algorithm::ring) < 1.2);
  // Across: hierarchical 22.61 ms vs 17.57 ms (x1.29), flat ring 75.6 ms (x4.3).
  CHECK_THAT(at(16, collective_algorithm::hierarchical), near(70e-6 + 17.5e-3 + 40e-6 + 5e-3));
  CHECK(at(16, collective_algorithm::hierarchical) / at(8, collective_algorithm::ring) > 1.25);
  CHECK(at(16, collective_algorithm::ring) / at(8, collective_algorithm::ring) > 4.0);
}

TEST_CASE("Hierarchical is never slower than the flat ring, whatever the two links",
          "[topology][property]") {
  // Proof in docs/formulas.md: the flat ring pays max(α) and min(β) on every step; the
  // hierarchical one pays each link on its own steps, and has fewer of them.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log_bytes(0.0, 11.0);
  std::uniform_real_distribution<double> log_bw(8.0, 12.5);
  std::uniform_real_distribution<double> latency(0.0, 50e-6);
  const std::int64_t sizes[] = {1, 2, 4, 8};
  for (int i = 0; i < 5000; ++i) {
    cluster_topology t;
    t.gpus_per_node = sizes[rng() % 4];
    t.intra = {.bandwidth = bytes_per_second(std::pow(10.0, log_bw(rng))),
               .latency = seconds(latency(rng))};
    t.inter = {.bandwidth = bytes_per_second(std::pow(10.0, log_bw(rng))),
               .latency = seconds(latency(rng))};
    const std::int64_t n = t.gpus_per_node * (1 + static_cast<std::int64_t>(rng() % 16));
    const bytes msg{std::pow(10.0, log_bytes(rng))};
    const auto g = place_group(t, n);
    for (const auto op : all_collective_ops) {
      const auto h = collective_cost_in(t, g, op, collective_algorithm::hierarchical, msg);
      const auto r = collective_cost_in(t, g, op, collective_algorithm::ring, msg);
      CHECK(h.time.value() <= r.time.value() * (1.0 + 1e-12));
    }
  }
}

TEST_CASE("auto is never slower than any single algorithm (random topologies and sizes)",
          "[topology][property]") {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> log_bytes(0.0, 10.5);  // 1 B .. ~32 GB
  std::uniform_real_distribution<double> log_bw(8.0, 12.5);     // 100 MB/s .. 3 TB/s
  std::uniform_real_distribution<double> latency(0.0, 50e-6);
  const std::int64_t per_node[] = {1, 2, 4, 8, 16, 72};
  for (int i = 0; i < 5000; ++i) {
    cluster_topology t;
    t.gpus_per_node = per_node[rng() % 6];
    // Either link may be the faster one: auto must hold whatever the user gives.
    t.intra = {.bandwidth = bytes_per_second(std::pow(10.0, log_bw(rng))),
               .latency = seconds(latency(rng))};
    t.inter = {.bandwidth = bytes_per_second(std::pow(10.0, log_bw(rng))),
               .latency = seconds(latency(rng))};
    const bool across = rng() % 2 == 0;
    const std::int64_t n = across ? t.gpus_per_node * (2 + static_cast<std::int64_t>(rng() % 8))
                                  : 1 + static_cast<std::int64_t>(rng()) % t.gpus_per_node;
    const bytes msg{std::pow(10.0, log_bytes(rng))};
    const auto g = place_group(t, n);
    for (const auto op : all_collective_ops) {
      const auto best = cheapest_collective(t, g, op, msg);
      for (const auto& c : candidate_costs(t, g, op, msg)) {
        CAPTURE(n, to_string(op), to_string(c.algorithm));
        CHECK(best.cost.time <= c.cost.time);
      }
    }
  }
}

TEST_CASE("auto picks the tree for small messages and the ring for large ones in a node",
          "[topology]") {
  const auto g = place_group(cluster, 8);
  // 1 kB: tree 6*5 us vs ring 14*5 us.
  CHECK(cheapest_collective(cluster, g, collective_op::all_reduce, bytes(1e3)).algorithm ==
        collective_algorithm::tree);
  // 1 GB: ring 17.57 ms vs tree 20.03 ms.
  CHECK(cheapest_collective(cluster, g, collective_op::all_reduce, m).algorithm ==
        collective_algorithm::ring);
  // Across nodes, large: hierarchical.
  CHECK(cheapest_collective(cluster, place_group(cluster, 32), collective_op::all_reduce, m)
            .algorithm == collective_algorithm::hierarchical);
  // Reduce-scatter never gets the tree (NCCL has none).
  CHECK(cheapest_collective(cluster, g, collective_op::reduce_scatter, bytes(1e3)).algorithm ==
        collective_algorithm::ring);
}

TEST_CASE("compare_collectives reports algbw = M/T and busbw = algbw*2(n-1)/n", "[topology]") {
  const auto c = compare_collectives(cluster, collective_op::all_reduce, 8, m);
  REQUIRE(c.rows.size() == 4);  // seed, ring, tree, hierarchical
  CHECK(c.rows[0].algorithm == collective_algorithm::article);
  CHECK_THAT(c.rows[0].algbw->value(), near(1e11));  // the seed: B is the algbw
  const auto& ring = c.rows[1];
  CHECK(ring.algorithm == collective_algorithm::ring);
  // NCCL's ring (nccl_tuner.hpp): baseLat 8.4 us + 14 steps at the link's 5 us, algbw = bus * 8/14
  CHECK_THAT(ring.algbw->value(), near(1e9 / (78.4e-6 + 17.5e-3)));
  CHECK_THAT(ring.busbw->value(), near(1.75e9 / (78.4e-6 + 17.5e-3)));
  CHECK(c.cheapest == collective_algorithm::ring);
  const auto one = compare_collectives(cluster, collective_op::all_gather, 1, m);
  CHECK_FALSE(one.rows[1].algbw.has_value());  // T = 0: no bandwidth to report
  CHECK(compare_collectives(cluster, collective_op::all_gather, 8, m).rows.size() == 3);
  CHECK_THROWS_AS(compare_collectives(cluster, collective_op::all_reduce, 12, m), invalid_spec);
}
