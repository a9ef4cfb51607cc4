// The EP dispatch and combine traffic and time (comm/expert_parallel.hpp).
#include "tpcost/comm/expert_parallel.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

#include "support/matchers.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
cluster_topology nodes_of_8() {
  return {.gpus_per_node = 8,
          .intra = {.bandwidth = 400e9 * units::B / units::s, .latency = 2e-6 * units::s},
          .inter = {.bandwidth = 50e9 * units::B / units::s, .latency = 10e-6 * units::s}};
}
const moe_spec dsv3{.experts = 256, .top_k = 8, .expert_ffn = 2048};
}  // namespace

TEST_CASE("NCCL all-to-all: every token-expert copy leaves the GPU unless its expert is local",
          "[expert_parallel]") {
  const auto topo = nodes_of_8();
  // EP 8 in one node: 7/8 of the 8 copies go over NVLink.
  const auto c8 = copies_per_token(dsv3, place_group(topo, 8, "ep"), token_dispatcher::all_to_all);
  CHECK_THAT(c8.intra, near(7.0));
  CHECK(c8.inter == 0.0);
  // EP 32 on 4 nodes: 7/32 of them stay in the node, 24/32 cross it.
  const auto c32 =
      copies_per_token(dsv3, place_group(topo, 32, "ep"), token_dispatcher::all_to_all);
  CHECK_THAT(c32.intra, near(8.0 * 7.0 / 32.0));
  CHECK_THAT(c32.inter, near(8.0 * 24.0 / 32.0));
  // Time: NCCL's rounds take NVLink and the NIC in turn, so their times add, each at the
  // kernel's share of the link, plus the cost per peer for the 31 others.
  const auto cost = ep_all_to_all(topo, place_group(topo, 32, "ep"), dsv3, 4096, 7168, 2.0,
                                  token_dispatcher::all_to_all);
  const double bytes = 4096.0 * 7168.0 * 2.0;
  CHECK_THAT(cost.inter_node_bytes.value(), near(bytes * 6.0));
  CHECK_THAT(cost.intra_node_bytes.value(), near(bytes * 8.0 * 7.0 / 32.0));
  const auto r = nccl_all_to_all_rates;
  CHECK_THAT(cost.latency.value(), near(31.0 * r.per_peer.value()));
  CHECK_THAT(cost.time.value(),
             near(31.0 * r.per_peer.value() + bytes * 8.0 * 7.0 / 32.0 / (r.nvlink * 400e9) +
                  bytes * 6.0 / (r.network * 50e9)));
  // Slower than both links at their peaks, one after the other.
  CHECK(cost.time.value() > bytes * 8.0 * 7.0 / 32.0 / 400e9 + bytes * 6.0 / 50e9);
}

TEST_CASE("HybridEP runs NVLink and RDMA at once, after a fixed cost per call",
          "[expert_parallel]") {
  const auto topo = nodes_of_8();
  const auto group = place_group(topo, 32, "ep");
  const auto cost = ep_all_to_all(topo, group, dsv3, 4096, 7168, 2.0, token_dispatcher::deep_ep);
  const auto r = hybrid_ep_rates;
  CHECK(cost.latency == r.fixed);
  const double nvlink = cost.intra_node_bytes.value() / (r.nvlink * 400e9);
  const double rdma = cost.inter_node_bytes.value() / (r.network * 50e9);
  CHECK_THAT(cost.time.value(), near(r.fixed.value() + std::max(nvlink, rdma)));
  // At rates of 1 and no fixed cost it is the links' peak, the slower link alone.
  const auto peak = ep_all_to_all(topo, group, dsv3, 4096, 7168, 2.0, token_dispatcher::deep_ep,
                                  ep_kernel_rates{});
  CHECK_THAT(peak.time.value(), near(std::max(cost.intra_node_bytes.value() / 400e9,
                                              cost.inter_node_bytes.value() / 50e9)));
  CHECK(peak.time < cost.time);
}

TEST_CASE("Group-limited routing: a token's experts lie in 4 of 8 groups, so fewer nodes",
          "[expert_parallel]") {
  auto v3 = dsv3;
  v3.routing = {.groups = 8, .groups_per_token = 4};
  auto all_groups = dsv3;
  all_groups.routing = {.groups = 8, .groups_per_token = 8};
  // Without groups, or with every group allowed, it is top-k over all E.
  CHECK(none_of_top_k_routed(dsv3, 32) == none_of_top_k_in(256, 8, 32));
  CHECK(none_of_top_k_routed(all_groups, 32) == none_of_top_k_in(256, 8, 32));
  // One whole group of 32: missed when not among the 4 picked (1/2), or picked and missed by
  // the 8 picks among the 128 experts of the 4 groups.
  CHECK_THAT(none_of_top_k_routed(v3, 32), near(0.5 + 0.5 * none_of_top_k_in(128, 8, 32)));
  // A part of a group (8 experts): the group picked (1/2), then the 8 picks over 128.
  CHECK_THAT(none_of_top_k_routed(v3, 8), near(0.5 + 0.5 * none_of_top_k_in(128, 8, 8)));
  // Two whole groups: j of them picked with probability C(2,j)C(6,4-j)/C(8,4).
  CHECK_THAT(none_of_top_k_routed(v3, 64),
             near(15.0 / 70.0 + 40.0 / 70.0 * none_of_top_k_in(128, 8, 32) +
                  15.0 / 70.0 * none_of_top_k_in(128, 8, 64)));
  // EP 64 on 8 nodes of 8, a group per node: DeepEP reaches fewer other nodes than uniform
  // routing, at most the 4 groups less the token's own node when it is hit.
  const auto topo = nodes_of_8();
  const auto group = place_group(topo, 64, "ep");
  const auto limited = copies_per_token(v3, group, token_dispatcher::deep_ep);
  const auto uniform = copies_per_token(dsv3, group, token_dispatcher::deep_ep);
  CHECK(limited.inter < uniform.inter);
  CHECK(limited.inter + (1.0 - none_of_top_k_routed(v3, 32)) <= 4.0 + 1e-12);
  // The NCCL all-to-all sends every copy whatever the rule.
  const auto a = copies_per_token(v3, group, token_dispatcher::all_to_all);
  const auto b = copies_per_token(dsv3, group, token_dispatcher::all_to_all);
  CHECK(a.inter == b.inter);
  CHECK(a.intra == b.intra);
}

TEST_CASE(
    "DeepEP sends a token once per GPU of its node and once per other node holding its "
    "experts",
    "[expert_parallel]") {
  // One GPU in a group of m of E experts holds none of the k with probability C(E-m,k)/C(E,k).
  CHECK_THAT(none_of_top_k_in(4, 2, 2), near(1.0 / 6.0));  // C(2,2)/C(4,2)
  CHECK(none_of_top_k_in(8, 2, 7) == 0.0);
  const auto topo = nodes_of_8();
  const auto c8 = copies_per_token(dsv3, place_group(topo, 8, "ep"), token_dispatcher::deep_ep);
  CHECK_THAT(c8.intra, near(7.0 * (1.0 - none_of_top_k_in(256, 8, 32))));
  CHECK(c8.intra < 7.0);  // fewer than the all-to-all's 7 copies
  const auto c64 = copies_per_token(dsv3, place_group(topo, 64, "ep"), token_dispatcher::deep_ep);
  CHECK_THAT(c64.inter, near(7.0 * (1.0 - none_of_top_k_in(256, 8, 32))));
  // With top-1 nothing can be deduplicated: the same NIC traffic as the all-to-all, and more
  // NVLink traffic, since a token that crossed nodes is forwarded inside the node it reached.
  const moe_spec top1{.experts = 64, .top_k = 1, .expert_ffn = 1};
  const auto a = copies_per_token(top1, place_group(topo, 64, "ep"), token_dispatcher::deep_ep);
  const auto b = copies_per_token(top1, place_group(topo, 64, "ep"), token_dispatcher::all_to_all);
  CHECK_THAT(a.inter, near(b.inter));
  CHECK(a.intra > b.intra);
}

TEST_CASE("EP that does not divide the experts, or spans nodes without a link, is refused",
          "[expert_parallel]") {
  const auto topo = nodes_of_8();
  CHECK_THROWS_WITH(ep_all_to_all(topo, place_group(topo, 3, "ep"), dsv3, 1, 1, 2.0,
                                  token_dispatcher::all_to_all),
                    Catch::Contains("EP = 3 does not divide the 256 experts"));
  auto no_inter = topo;
  no_inter.inter = {};
  CHECK_THROWS(place_group(no_inter, 16, "ep"));
  CHECK(ep_all_to_all(topo, place_group(topo, 1, "ep"), dsv3, 4096, 7168, 2.0,
                      token_dispatcher::deep_ep)
            .time.value() == 0.0);
  CHECK(parse_token_dispatcher("DeepEP", "dispatcher") == token_dispatcher::deep_ep);
  CHECK(parse_token_dispatcher("alltoall", "dispatcher") == token_dispatcher::all_to_all);
  CHECK_THROWS_WITH(parse_token_dispatcher("ring", "dispatcher"),
                    Catch::Contains("not a token dispatcher"));
}

TEST_CASE("The allgather dispatcher is NCCL's all-gather of every token of the EP group",
          "[expert_parallel]") {
  const auto topo = nodes_of_8();
  const auto group = place_group(topo, 16, "ep");
  const double token_bytes = 7168.0 * 2.0;
  const auto cost = ep_all_to_all(topo, group, dsv3, 4096, 7168, 2.0, token_dispatcher::all_gather);
  const auto gather = nccl_cheapest_collective(topo, group, collective_op::all_gather,
                                               16.0 * 4096.0 * token_bytes * units::B);
  CHECK(cost.time == gather.cost.time);
  CHECK(cost.inter_node_bytes == gather.cost.inter_node_bytes);
  CHECK_THAT((cost.intra_node_bytes + cost.inter_node_bytes).value(),
             near(gather.cost.wire_bytes.value()));
  // Every token reaches all 15 others, where the all-to-all sends its 8 copies: more bytes in
  // all, but NCCL's ring takes a token across the node boundary once, over NVLink from there,
  // where the all-to-all sends each of its 4 remote copies over the NIC.
  const auto a2a = ep_all_to_all(topo, group, dsv3, 4096, 7168, 2.0, token_dispatcher::all_to_all);
  CHECK(cost.intra_node_bytes + cost.inter_node_bytes >
        a2a.intra_node_bytes + a2a.inter_node_bytes);
  CHECK(cost.inter_node_bytes < a2a.inter_node_bytes);
  CHECK(parse_token_dispatcher("allgather", "dispatcher") == token_dispatcher::all_gather);
  CHECK(to_string(token_dispatcher::all_gather) == "all-gather");
}
