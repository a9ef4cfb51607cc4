// NCCL's picks remembered: the very answers of nccl_group_pricer, computed once per key.
#include "tpcost/comm/price_memo.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "support/models.hpp"
#include "tpcost/step/stages.hpp"
#include "tpcost/step/step.hpp"

using namespace tpcost;

namespace {
// 8 GPUs per node; intra 100 GB/s, 5 us; inter 25 GB/s per GPU, 20 us.
const cluster_topology cluster{
    .gpus_per_node = 8,
    .intra = {.bandwidth = bytes_per_second(1e11), .latency = seconds(5e-6)},
    .inter = {.bandwidth = bytes_per_second(25e9), .latency = seconds(20e-6)},
};

/// The small GPT's step environment on `cluster`, an H100-like GPU.
step_environment small_gpt_on_cluster() {
  step_inputs in;
  in.model = tpcost::test::small_gpt_spec();
  in.gpu = {flops_per_second(989.4e12), bytes_per_second(3.35e12), {}};
  in.memory_capacity = 80.0 * units::GiB;
  in.topology = cluster;
  return environment_of(in);
}

void check_same(const algorithm_cost& a, const algorithm_cost& b) {
  CHECK(a.algorithm == b.algorithm);
  CHECK(a.cost.time.value() == b.cost.time.value());  // bit for bit, not within a tolerance
  CHECK(a.cost.wire_bytes.value() == b.cost.wire_bytes.value());
  CHECK(a.cost.protocol == b.cost.protocol);
}
}  // namespace

TEST_CASE("A remembered price is nccl_group_pricer's, and each key is priced once",
          "[price_memo]") {
  nccl_price_memo memo;
  std::size_t keys = 0;
  for (const std::int64_t ranks : {2, 8, 16, 64}) {
    const auto group = place_group(cluster, ranks);
    const nccl_group_pricer plain(cluster, group);
    const remembering_group_pricer remembered(cluster, group, &memo);
    const remembering_group_pricer unremembered(cluster, group, nullptr);
    for (const auto op : all_collective_ops) {
      for (const double size : {1e3, 1e6, 3e8, 1e9}) {
        const bytes message{size};
        check_same(remembered.cheapest(op, message), plain.cheapest(op, message));
        check_same(unremembered.cheapest(op, message), plain.cheapest(op, message));
        ++keys;
        CHECK(memo.size() == keys);
      }
    }
  }
  // Asked again, through a new pricer of the same group: every answer from the memo, none added.
  for (const std::int64_t ranks : {2, 8, 16, 64}) {
    const auto group = place_group(cluster, ranks);
    const nccl_group_pricer plain(cluster, group);
    const remembering_group_pricer remembered(cluster, group, &memo);
    for (const auto op : all_collective_ops) {
      check_same(remembered.cheapest(op, bytes{3e8}), plain.cheapest(op, bytes{3e8}));
    }
  }
  CHECK(memo.size() == keys);
}

TEST_CASE("The memo tells groups, ops and messages apart", "[price_memo]") {
  nccl_price_memo memo;
  const remembering_group_pricer in_node(cluster, place_group(cluster, 8), &memo);
  const remembering_group_pricer two_nodes(cluster, place_group(cluster, 16), &memo);
  const auto a = in_node.cheapest(collective_op::all_reduce, bytes{1e8});
  const auto b = two_nodes.cheapest(collective_op::all_reduce, bytes{1e8});
  CHECK(b.cost.time > a.cost.time);  // the same message across nodes costs more
  const auto c = in_node.cheapest(collective_op::all_gather, bytes{1e8});
  CHECK(c.cost.time < a.cost.time);  // an all-gather moves half an all-reduce's bytes
  // 1e8 and its neighbour double are two keys: no rounding merges messages.
  const auto d = in_node.cheapest(collective_op::all_reduce, bytes{std::nextafter(1e8, 2e8)});
  CHECK(d.cost.time >= a.cost.time);
  CHECK(memo.size() == 4);
}

TEST_CASE("batch_stage with a memo is batch_stage, for every pair that shares it", "[price_memo]") {
  // The small GPT at t = 8 on two layouts with the same TP group (p = 1 and p = 2).
  const auto env = small_gpt_on_cluster();
  nccl_price_memo memo;
  for (const std::int64_t pp : {1, 2}) {
    const auto x = group_stage(env, {.tp = 8, .pp = pp, .dp = 2},
                               {.stages = pp, .first = 8 / pp, .middle = 8 / pp, .last = 8 / pp});
    for (const std::int64_t b : {1, 2}) {
      const auto plain = batch_stage(env, x, b, 16);
      const auto remembered = batch_stage(env, x, b, 16, &memo);
      check_same(remembered.tp_all_reduce, plain.tp_all_reduce);
      check_same(remembered.tp_reduce_scatter, plain.tp_reduce_scatter);
      check_same(remembered.tp_all_gather, plain.tp_all_gather);
      check_same(remembered.tp_sp_all_gather, plain.tp_sp_all_gather);
      CHECK(remembered.cross_entropy_tp.value() == plain.cross_entropy_tp.value());
      CHECK(remembered.output_tp[1].value() == plain.output_tp[1].value());
      CHECK(remembered.p2p_one[0].value() == plain.p2p_one[0].value());
    }
  }
  // Per b: the all-reduce, reduce-scatter and all-gather of b·s·h and the cross-entropy's
  // all-reduce; the second layout asks for the same eight and adds none.
  CHECK(memo.size() == 8);
}

TEST_CASE("group_stage with a memo is group_stage, its DP collectives priced once",
          "[price_memo]") {
  const auto env = small_gpt_on_cluster();
  const group_sizes sizes{.tp = 2, .pp = 2, .dp = 8};  // 32 GPUs: DP groups across nodes
  const pipeline_split split{.stages = 2, .first = 4, .middle = 4, .last = 4};
  const auto plain = group_stage(env, sizes, split);
  nccl_price_memo memo;
  const auto remembered = group_stage(env, sizes, split, &memo);
  check_same(remembered.dp_all_reduce, plain.dp_all_reduce);
  check_same(remembered.dp_reduce_scatter, plain.dp_reduce_scatter);
  check_same(remembered.dp_all_gather, plain.dp_all_gather);
  CHECK(plain.dp_all_reduce.cost.time.value() > 0.0);
  const auto priced = memo.size();
  CHECK(priced > 0);
  const auto again = group_stage(env, sizes, split, &memo);
  check_same(again.dp_all_reduce, plain.dp_all_reduce);
  CHECK(memo.size() == priced);
}
