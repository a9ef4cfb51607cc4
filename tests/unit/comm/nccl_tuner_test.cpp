// NCCL's tuner formulas (comm/nccl_tuner.hpp) and what they predict for published clusters.
#include "tpcost/comm/nccl_tuner.hpp"

#include <catch2/catch.hpp>

#include "tpcost/comm/calibration.hpp"
#include "tpcost/comm/placement.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/hardware/presets.hpp"

using namespace tpcost;
using Catch::Matchers::WithinRel;

namespace {
constexpr double gib8 = 8.0 * 1024 * 1024 * 1024;

cluster_topology preset(const char* gpu, const char* net) {
  return make_topology(gpu_preset_by_name(gpu, "gpu"), interconnect_preset_by_name(net, "net"));
}

/// nccl-tests' bus bandwidth (GB/s) of auto's pick.
double auto_busbw(const cluster_topology& t, std::int64_t ranks, std::int64_t per_node,
                  collective_op op = collective_op::all_reduce) {
  const auto g = place_group(t, ranks, "ranks", per_node);
  const auto c = nccl_cheapest_collective(t, g, op, bytes{gib8});
  return gib8 / c.cost.time.value() * bus_factor(op, ranks) / 1e9;
}
}  // namespace

TEST_CASE("NCCL ring: latency per step where NCCL charges it, bandwidth n/nsteps of the bus") {
  nccl_view v;
  v.ranks = 16;
  v.nodes = 2;
  v.ppn = 8;
  v.intra_gbs = 370.8;
  v.net_gbs = 384;
  v.channels = 16;
  v.intra_lat_us = 3.4;
  v.inter_lat_us = 14;
  const auto e =
      nccl_tune(v, collective_op::all_reduce, collective_algorithm::ring, nccl_protocol::simple);
  // baseLat 8.4 + (30 - 2) intra steps at max(3.4, 3 x 1 us net overhead) + 2 inter steps at 14
  CHECK_THAT(e.latency_us, WithinRel(8.4 + 28 * 3.4 + 2 * 14.0, 1e-12));
  // busBw = nChannels*bw = min(NVLink, NICs); algbw = busBw * n / (2(n-1))
  CHECK_THAT(e.bandwidth_gbs, WithinRel(370.8 * 16.0 / 30.0, 1e-12));
  // One node: no inter steps, NVLink latency every step.
  v.nodes = 1;
  v.ranks = 8;
  const auto one = nccl_tune(v, collective_op::reduce_scatter, collective_algorithm::ring,
                             nccl_protocol::simple);
  CHECK_THAT(one.latency_us, WithinRel(8.4 + 7 * 3.4, 1e-12));
  CHECK_THAT(one.bandwidth_gbs, WithinRel(370.8 * 8.0 / 7.0, 1e-12));
  // LL: half the bus, capped by llMaxBw (Ampere row, one node: 87.7).
  const auto ll =
      nccl_tune(v, collective_op::all_reduce, collective_algorithm::ring, nccl_protocol::ll);
  CHECK_THAT(ll.bandwidth_gbs, WithinRel(87.7 * 8.0 / 14.0, 1e-12));
  CHECK_THAT(ll.latency_us, WithinRel(6.6 + 14 * 0.6, 1e-12));
}

TEST_CASE("NCCL tree: a chain inside each node, log2 depth across nodes only") {
  nccl_view v;
  v.ranks = 32;
  v.nodes = 4;
  v.ppn = 8;
  v.intra_gbs = 240;
  v.net_gbs = 192;
  v.channels = 16;
  v.inter_lat_us = 14;
  const auto e =
      nccl_tune(v, collective_op::all_reduce, collective_algorithm::tree, nccl_protocol::simple);
  // baseLat 8.4 + 2((ppn-1)*4.0 + log2(4)*14): the chain, not a log-depth tree, inside a node
  CHECK_THAT(e.latency_us, WithinRel(8.4 + 2 * (7 * 4.0 + 2 * 14.0), 1e-12));
  // min(bus*0.92, nChannels*perChMaxTreeBw[Ampere][>2 nodes] = 16*17.8) * 0.5
  CHECK_THAT(e.bandwidth_gbs, WithinRel(std::min(192 * 0.92, 16 * 17.8) * 0.5, 1e-12));
  CHECK_FALSE(
      nccl_tune(v, collective_op::all_gather, collective_algorithm::tree, nccl_protocol::simple)
          .available());
  v.nodes = 1;
  v.ranks = 8;
  const auto one =
      nccl_tune(v, collective_op::all_reduce, collective_algorithm::tree, nccl_protocol::simple);
  CHECK_THAT(one.latency_us, WithinRel(8.4 + 2 * 7 * 4.0, 1e-12));
}

TEST_CASE("NVLS: one channel per GPU at a table speed, algbw 5/6 of it, Simple only") {
  const auto h100 = preset("h100-sxm", "ndr");
  const auto v = nccl_view_of(h100, place_group(h100, 8, "ranks"));
  CHECK_THAT(v.intra_gbs, WithinRel(450 * 20.6 / 25.0, 1e-12));  // 370.8, NCCL's NVLink view
  CHECK_THAT(v.nvls_gbs, WithinRel(8 * 40.0, 1e-12));
  const auto e =
      nccl_tune(v, collective_op::all_reduce, collective_algorithm::nvls, nccl_protocol::simple);
  CHECK_THAT(e.bandwidth_gbs, WithinRel(320.0 * 5.0 / 6.0, 1e-12));
  CHECK_THAT(e.latency_us, WithinRel(25.0, 1e-12));
  CHECK_FALSE(nccl_tune(v, collective_op::all_reduce, collective_algorithm::nvls, nccl_protocol::ll)
                  .available());
  // A100 has no NVLink SHARP.
  const auto a100 = preset("a100", "hdr");
  CHECK_FALSE(nccl_collective_cost(a100, place_group(a100, 8, "ranks"), collective_op::all_reduce,
                                   collective_algorithm::nvls, bytes{gib8}));
  // 8 GiB on one DGX H100: measured 480 GB/s busbw (dgxc-benchmarking, tests/data/nccl).
  CHECK_THAT(auto_busbw(h100, 8, 0), WithinRel(480.0, 0.05));
}

TEST_CASE("NICs: a 400 Gb/s NIC is two channels of 24 GB/s, 200 Gb/s two of 12") {
  CHECK(nccl::nic_gbs(50, gpu_generation::hopper, false) == 48.0);
  CHECK(nccl::nic_gbs(25, gpu_generation::ampere, false) == 24.0);
  CHECK(nccl::nic_gbs(46, gpu_generation::hopper, true) == 46.0);  // measured: as it is
}

TEST_CASE("Across nodes a ring is paced by the node's NICs, not by one NIC (issue 11 figures)") {
  const auto h100 = preset("h100-sxm", "ndr");
  // 2 x DGX H100, 8 NDR each: ~375 GB/s (NVIDIA/nccl-tests#290; GTC 2024 S62129 via nccl#1649)
  CHECK_THAT(auto_busbw(h100, 16, 0), WithinRel(375.0, 0.15));
  // A DP-style ring, one GPU on each of 16 nodes: one NIC, 46-48 GB/s (nccl-tests#290)
  CHECK_THAT(auto_busbw(h100, 16, 1), WithinRel(47.0, 0.15));
  // 2 and 3 nodes of 8 A100 with 4 HDR NICs: users measure 86-96 GB/s against a theoretical
  // 100 GB/s (NVIDIA/nccl-tests issues 100, 119, 175).
  auto a100 = preset("a100", "hdr");
  a100.nics_per_node = 4;
  CHECK_THAT(auto_busbw(a100, 16, 0), WithinRel(91.0, 0.15));
  CHECK_THAT(auto_busbw(a100, 24, 0), WithinRel(91.0, 0.15));
  CHECK(auto_busbw(a100, 16, 0) <= 100.0);
  // Eight concurrent one-per-node groups share the node's 4 NICs: half a NIC each.
  auto dp = place_group(a100, 16, "ranks", 1);
  dp.concurrent = 8;
  const auto shared = nccl_cheapest_collective(a100, dp, collective_op::all_reduce, bytes{gib8});
  const auto alone = nccl_cheapest_collective(a100, place_group(a100, 16, "ranks", 1),
                                              collective_op::all_reduce, bytes{gib8});
  CHECK_THAT(shared.cost.time.value(), WithinRel(2.0 * alone.cost.time.value(), 0.02));
}

TEST_CASE("PAT runs all-gather with one GPU per node only: auto keeps the ring for big messages") {
  const auto h100 = preset("h100-sxm", "ndr");
  const auto one_per_node = place_group(h100, 16, "ranks", 1);
  const auto pat = nccl_collective_cost(h100, one_per_node, collective_op::all_gather,
                                        collective_algorithm::pat, bytes{1e6});
  REQUIRE(pat);
  CHECK_FALSE(nccl_collective_cost(h100, place_group(h100, 16, "ranks"), collective_op::all_gather,
                                   collective_algorithm::pat, bytes{1e6}));
  CHECK(nccl_cheapest_collective(h100, one_per_node, collective_op::all_gather, bytes{gib8})
            .algorithm == collective_algorithm::ring);
}

TEST_CASE("Small messages pick a low-latency protocol: large ones Simple") {
  const auto h100 = preset("h100-sxm", "ndr");
  const auto g = place_group(h100, 16, "ranks");
  const auto small = nccl_cheapest_collective(h100, g, collective_op::all_reduce, bytes{4096});
  CHECK(small.cost.protocol != nccl_protocol::simple);
  const auto big = nccl_cheapest_collective(h100, g, collective_op::all_reduce, bytes{gib8});
  CHECK(big.cost.protocol == nccl_protocol::simple);
}

TEST_CASE("MI300X: a full mesh of 64 GB/s links, a pair gets one link") {
  const auto mi = preset("mi300x", "roce");
  const auto pair = nccl_view_of(mi, place_group(mi, 2, "ranks"));
  const auto all = nccl_view_of(mi, place_group(mi, 8, "ranks"));
  CHECK_THAT(pair.intra_gbs, WithinRel(64.0, 1e-12));
  CHECK_THAT(all.intra_gbs, WithinRel(448.0, 1e-12));
}

TEST_CASE("A two-node profile replays its bus bandwidth on the same placement (within 10%)") {
  // What calibrate fits from a 2 x DGX H100 all-reduce sweep: β = the ring's busbw, 370 GB/s.
  interconnect_profile profile;
  profile.ranks = 16;
  profile.nodes = 2;
  profile.link = {.bandwidth = bytes_per_second(370e9), .latency = seconds(20e-6)};
  const auto t = with_profile(preset("h100-sxm", "ndr"), profile);
  CHECK_THAT(t.inter.bandwidth.value(), WithinRel(370e9 / 8, 1e-12));  // per NIC
  CHECK_THAT(auto_busbw(t, 16, 0), WithinRel(370.0, 0.10));
  // A one-node profile calibrates NVLink and replays as measured, NVLS not added on top.
  interconnect_profile one;
  one.ranks = 8;
  one.nodes = 1;
  one.link = {.bandwidth = bytes_per_second(480e9), .latency = seconds(5e-6)};
  const auto u = with_profile(preset("h100-sxm", "ndr"), one);
  CHECK_THAT(auto_busbw(u, 8, 0), WithinRel(480.0, 0.10));
}
