// The whole-step model: hand derivations on small layouts, invariants, and validation errors.
#include "tpcost/step/step.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <tuple>

#include "support/matchers.hpp"
#include "support/models.hpp"
#include "tpcost/comm/placement.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/layer/tp_layer_options.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {

step_inputs small_gpt(std::int64_t t, std::int64_t p, std::int64_t d, std::int64_t global_batch) {
  step_inputs in;
  in.model = tpcost::test::small_gpt_spec();
  in.par.tp = t;
  in.par.pp = p;
  in.par.dp = d;
  in.par.micro_batch = 1;
  in.par.global_batch = global_batch;
  in.gpu = {flops_per_second(312e12), bytes_per_second(2039e9), {}};
  in.memory_capacity = 80.0 * units::GiB;
  in.topology = {
      8, {bytes_per_second(300e9), seconds(3e-6)}, {bytes_per_second(25e9), seconds(10e-6)}};
  return in;
}

}  // namespace

TEST_CASE("One GPU: the step is m x (layers + output layer) + optimizer, with no communication",
          "[step]") {
  const auto in = small_gpt(1, 1, 1, 4);
  const auto r = evaluate_step(in);
  const auto k = layer_compute_time(in.model, 1, 1, in.gpu);
  const auto layer = k.total(recompute_mode::none) + k.grad_accumulation;
  const auto logits = logits_compute_time(in.model, 1, 1, in.gpu);
  const double params = params_per_gpu(in.model, in.par, 0, 8);
  const auto expected = 4.0 * (8.0 * layer + logits) + optimizer_time(params, in.gpu);
  CHECK_THAT(r.step_time.value(), near(expected.value(), 1e-12));
  CHECK(r.time.tp_comm.value() == 0.0);
  CHECK(r.time.dp_comm.value() == 0.0);
  CHECK(r.time.bubble.value() == 0.0);
  CHECK(r.micro_batches == 4);
}

TEST_CASE("The breakdown adds up to the step time, MFU <= HFU, and mu is the compute share",
          "[step]") {
  for (const auto recompute :
       {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
    auto in = small_gpt(2, 2, 4, 64);
    in.par.recompute = recompute;
    const auto r = evaluate_step(in);
    CHECK_THAT(r.time.total().value(), near(r.step_time.value(), 1e-12));
    CHECK(r.mfu <= r.hfu);
    CHECK((recompute == recompute_mode::none) == (r.mfu == r.hfu));
    CHECK_THAT(r.utilisation, near(r.time.compute / r.step_time));
    CHECK(r.gpus == 16);
  }
}

TEST_CASE(
    "Gradient accumulation: TP comm per micro-batch is unchanged and the DP sync per step "
    "is constant as m grows",
    "[step]") {
  const auto few = evaluate_step(small_gpt(2, 1, 4, 8));     // m = 2
  const auto many = evaluate_step(small_gpt(2, 1, 4, 128));  // m = 32
  REQUIRE(few.micro_batches == 2);
  REQUIRE(many.micro_batches == 32);
  CHECK(few.tp_comm_per_layer == many.tp_comm_per_layer);
  CHECK_THAT(many.time.tp_comm.value(), near(16.0 * few.time.tp_comm.value()));
  CHECK(few.dp_sync == many.dp_sync);
  CHECK(few.time.dp_comm == many.time.dp_comm);
  CHECK(many.time.dp_comm / many.step_time < few.time.dp_comm / few.step_time);
}

TEST_CASE(
    "TP collectives: 4 per layer, 6 with full recomputation, SP trades each all-reduce "
    "for a reduce-scatter and an all-gather",
    "[step]") {
  auto in = small_gpt(4, 1, 1, 4);
  const auto plain = evaluate_step(in);
  CHECK(plain.tp_collectives_per_layer == 4.0);
  // NCCL's ring Simple all-reduce of M over 4 GPUs on the intra link (nccl_tuner.hpp): its
  // base latency 8.4 us, 2*3 steps of alpha, and 2*(3/4)*M/beta.
  const double m = 1.0 * 1024 * 2048 * 2;
  CHECK_THAT(plain.tp_comm_per_layer.value(),
             near(4 * (8.4e-6 + 6 * 3e-6 + 1.5 * m / 300e9), 1e-12));
  in.par.recompute = recompute_mode::full;
  CHECK(evaluate_step(in).tp_collectives_per_layer == 6.0);
  in.par.recompute = recompute_mode::none;
  in.par.sequence_parallel = true;
  const auto sp = evaluate_step(in);
  // And Megatron-Core's backward gathers QKV's and FC1's saved s/t input again: 2 all-gathers.
  CHECK(sp.tp_collectives_per_layer == 10.0);
  // RS + AG cost the same steps and wire bytes as the all-reduce (4 x (3 + 3 steps, 2 x 3/4
  // M)), and NCCL charges its base latency once per call: one more 8.4 us per pair; each
  // re-gather is 8.4 us, 3 steps and 3/4 M.
  const double one_all_gather = 8.4e-6 + 3 * 3e-6 + 0.75 * m / 300e9;
  CHECK_THAT(sp.tp_comm_per_layer.value(),
             near(plain.tp_comm_per_layer.value() + 4 * 8.4e-6 + 2 * one_all_gather, 1e-12));
}

TEST_CASE("Pipeline: the bubble is (p-1)/v of an average stage, and interleaving shrinks it",
          "[step]") {
  auto in = small_gpt(1, 4, 1, 16);
  const auto plain = evaluate_step(in);
  CHECK_THAT(plain.bubble_fraction, near(3.0 / 16.0));
  in.par.vpp = 2;
  const auto interleaved = evaluate_step(in);
  CHECK_THAT(interleaved.bubble_fraction, near(3.0 / 32.0));
  CHECK(interleaved.time.bubble < plain.time.bubble);
  CHECK(interleaved.time.p2p > plain.time.p2p);  // twice the stage boundaries
}

TEST_CASE("DP overlap hides the sync behind the last backward, never more than all of it",
          "[step]") {
  auto in = small_gpt(1, 1, 16, 64);
  const auto exposed = evaluate_step(in);
  in.options.dp_overlap = 1.0;
  const auto hidden = evaluate_step(in);
  CHECK(exposed.dp_sync == hidden.dp_sync);
  CHECK(hidden.time.dp_comm < exposed.time.dp_comm);
  CHECK(hidden.time.dp_comm.value() >= 0.0);
}

TEST_CASE("Invalid layouts are rejected with the field and what would be valid", "[step]") {
  auto expect = [](step_inputs in, const std::string& field) {
    try {
      (void)evaluate_step(in);
      FAIL("accepted");
    } catch (const invalid_spec& e) {
      CHECK(e.field() == field);
    }
  };
  expect(small_gpt(3, 1, 1, 4), "tp");            // 3 does not divide 16 heads
  expect(small_gpt(1, 1, 3, 4), "global_batch");  // 4 not a multiple of d*b = 3
  expect(small_gpt(1, 16, 1, 16), "pp");          // 16 stages for 8 layers
  auto in = small_gpt(1, 1, 1, 4);
  in.options.tp_overlap = 1.5;
  expect(in, "tp-overlap");
  in = small_gpt(1, 1, 1, 4);
  in.gpu.efficiency.matmul = 0.0;
  expect(in, "matmul-efficiency");
  in = small_gpt(16, 1, 1, 4);  // TP 16 crosses 8-GPU nodes... and 16 heads is fine
  in.topology.inter = {};
  expect(in, "inter-bandwidth");
}

TEST_CASE("A layout that does not fit memory is reported, not rejected", "[step]") {
  auto in = small_gpt(1, 1, 1, 4);
  in.memory_capacity = 1.0 * units::GiB;
  const auto r = evaluate_step(in);
  CHECK_FALSE(r.memory.fits());
  CHECK(r.memory.headroom().value() < 0.0);
}

TEST_CASE("The step's memory assumes the attention kernel its compute runs", "[step]") {
  auto in = small_gpt(2, 2, 2, 16);  // t=2 p=2 d=2, m=8, no recomputation
  for (const auto kernel : {attention_kernel::unfused, attention_kernel::fused}) {
    in.options.attention = kernel;
    const auto r = evaluate_step(in);
    const auto expected = memory_per_gpu(in.model, in.par, in.memory_capacity, kernel);
    CAPTURE(to_string(kernel));
    REQUIRE(r.memory.stages.size() == expected.stages.size());
    for (std::size_t i = 0; i < expected.stages.size(); ++i) {
      CHECK(r.memory.stages[i].total() == expected.stages[i].total());
    }
  }
  // s=1024, a=16, h=2048, b=1, t=2: a layer keeps 5*a*s^2*b/t = 41.9 MB of scores unfused and
  // 4*a*s*b/t = 32.8 kB of statistics fused; the first stage holds 2 micro-batches of 4 layers.
  in.options.attention = attention_kernel::unfused;
  const auto unfused = evaluate_step(in).memory.stages[0].activations;
  in.options.attention = attention_kernel::fused;
  const auto fused = evaluate_step(in).memory.stages[0].activations;
  CHECK_THAT((unfused - fused).value(),
             near(8.0 * (5.0 * 16 * 1024 * 1024 - 4.0 * 16 * 1024) / 2, 1e-12));
}

TEST_CASE(
    "ZeRO-1 syncs once per step like plain DP, ZeRO-2 reduce-scatters every micro-batch and "
    "ZeRO-3 also all-gathers the weights twice per micro-batch",
    "[step]") {
  auto in = small_gpt(1, 1, 4, 32);  // d = 4 in one node, m = 8
  const auto sync_of = [&](zero_stage z) {
    in.par.zero = z;
    return evaluate_step(in);
  };
  const auto z0 = sync_of(zero_stage::none);
  const auto z1 = sync_of(zero_stage::optimizer);
  const auto z2 = sync_of(zero_stage::gradients);
  const auto z3 = sync_of(zero_stage::parameters);
  REQUIRE(z0.micro_batches == 8);
  CHECK(z1.time.optimizer < z0.time.optimizer);  // the optimizer runs on a quarter of the states
  // NCCL's ring Simple reduce-scatter or all-gather of W over 4 GPUs: its base latency
  // 8.4 us, 3 steps of alpha, (3/4) W / beta.
  const double w = z0.dp_bytes_per_gpu.value();
  const double half = 8.4e-6 + 3 * 3e-6 + 0.75 * w / 300e9;
  // ZeRO-1 (the distributed optimizer): one reduce-scatter and one all-gather per step.
  CHECK_THAT(z1.dp_sync.value(), near(2 * half, 1e-12));
  CHECK_THAT(z2.dp_sync.value(), near(8 * half + half, 1e-12));
  CHECK_THAT(z3.dp_sync.value(), near(8 * 3 * half, 1e-12));
  CHECK_THAT(z2.time.dp_comm.value(), near(z2.dp_sync.value(), 1e-12));  // no overlap asked
  CHECK(z1.step_time < z2.step_time);
  CHECK(z2.step_time < z3.step_time);
  in.options.dp_overlap = 1.0;
  in.par.zero = zero_stage::parameters;
  CHECK(evaluate_step(in).time.dp_comm == z3.time.dp_comm);  // ZeRO-3 has its own share
  in.options.dp_overlap_zero3 = 1.0;
  const auto hidden = evaluate_step(in);
  CHECK(hidden.time.dp_comm < z3.time.dp_comm);
  CHECK(hidden.time.dp_comm.value() >= 0.0);
}

TEST_CASE("TP overlap hides at most the compute it overlaps: exposed = comm - min(f comm, compute)",
          "[step]") {
  auto in = small_gpt(8, 1, 1, 8);
  in.topology.intra.bandwidth = bytes_per_second(1e9);  // a slow link: comm >> compute
  in.options.tp_overlap = 1.0;
  in.options.tp_contention = 0.0;  // the hiding rule alone (stack_profiles_test prices the rest)
  const auto r = evaluate_step(in);
  const auto k = layer_compute_time(in.model, 1, 8, in.gpu, in.options.attention);
  const auto layer = k.total(recompute_mode::none) + k.grad_accumulation;
  REQUIRE(r.tp_comm_per_layer > layer);
  // 8 micro-batches of 8 layers, each exposing what its compute could not hide; the output
  // layer's all-reduce likewise behind the logits. The embedding's all-reduce and the
  // cross-entropy's three fp32 all-reduces have no GEMM to hide behind.
  const auto logits = logits_compute_time(in.model, 1, 8, in.gpu);
  const auto ends = [&] {
    const auto x = group_stage(environment_of(in), {.tp = 8, .pp = 1, .dp = 1},
                               {.stages = 1, .first = 8, .middle = 8, .last = 8});
    return nccl_cheapest_collective(in.topology, x.tp_group, collective_op::all_reduce,
                                    1.0 * 1024 * 2048 * 2 * units::B)
               .cost.time +
           3.0 * nccl_cheapest_collective(in.topology, x.tp_group, collective_op::all_reduce,
                                          1.0 * 1024 * 4 * units::B)
                     .cost.time;
  };
  CHECK(r.time.tp_comm.value() > 0.0);
  CHECK_THAT(r.time.tp_comm.value(),
             near((8.0 * 8.0 * (r.tp_comm_per_layer - layer)).value() +
                      8.0 * std::max(0.0, (r.tp_comm_per_layer / 4.0 - logits).value()) +
                      8.0 * ends().value(),
                  1e-9));
  in.topology.intra.bandwidth = bytes_per_second(300e9);  // a fast link: all of it hides
  CHECK_THAT(evaluate_step(in).time.tp_comm.value(), near(8.0 * ends().value(), 1e-12));
}

TEST_CASE("ZeRO-2/3 with pipeline parallelism is refused by step, as by plan", "[step]") {
  auto in = small_gpt(1, 2, 2, 8);
  in.par.zero = zero_stage::gradients;
  CHECK_THROWS_WITH(evaluate_step(in), Catch::Contains("zero:") && Catch::Contains("p = 1"));
  in.par.zero = zero_stage::optimizer;
  CHECK_NOTHROW(evaluate_step(in));
}

TEST_CASE("Uneven stages: the slowest stage paces the step, the split is reported per stage",
          "[step]") {
  auto in = small_gpt(1, 4, 1, 8);  // 8 layers on 4 stages
  const auto even = evaluate_step(in);
  in.par.first_stage_layers = 1;
  in.par.last_stage_layers = 1;  // 1, 3, 3, 1
  const auto uneven = evaluate_step(in);
  REQUIRE(uneven.memory.stages.size() == 4);
  CHECK(uneven.memory.stages[1].layers == 3);
  CHECK(uneven.memory.stages[3].layers == 1);
  // The slowest of a middle stage (3 layers) and the last (1 layer + the output layer) paces
  // the m = 8 micro-batches.
  const auto k = layer_compute_time(in.model, 1, 1, in.gpu, in.options.attention);
  const auto layer = k.total(recompute_mode::none) + k.grad_accumulation;
  const auto logits = logits_compute_time(in.model, 1, 1, in.gpu);
  CHECK_THAT(uneven.time.compute.value(), near(8.0 * max(3.0 * layer, layer + logits).value()));
  CHECK_THAT(even.time.compute.value(), near(8.0 * (2.0 * layer + logits).value()));
  in.par.first_stage_layers = 2;
  in.par.last_stage_layers = 3;  // leaves 3 for 2 middle stages: not even
  CHECK_THROWS_WITH(evaluate_step(in), Catch::Contains("pp-layout:"));
}

namespace {

/// The environment of `small_gpt` on a preset cluster.
step_environment on_preset(const char* gpu, const char* net, std::int64_t nics_per_node = 0) {
  auto env = environment_of(small_gpt(1, 1, 1, 4));
  env.topology =
      make_topology(gpu_preset_by_name(gpu, "gpu"), interconnect_preset_by_name(net, "net"));
  env.topology.nics_per_node = nics_per_node;
  return env;
}

pipeline_split even_split(std::int64_t layers, std::int64_t p) {
  const auto per = layers / p;
  return {.stages = p, .first = per, .middle = per, .last = per};
}

}  // namespace

TEST_CASE(
    "Placed groups: t=2 p=4 d=2 on two nodes sends p2p over a NIC at the boundary that crosses "
    "InfiniBand, one node keeps it on NVLink",
    "[step][placement]") {
  const auto env = on_preset("h100-sxm", "ib-ndr");
  const group_sizes two_nodes{.tp = 2, .pp = 4, .dp = 2};
  const auto x = group_stage(env, two_nodes, even_split(8, 4));
  // Stages hold 4 ranks each: the boundary 1 -> 2 is ranks 4..7 -> 8..11, node 0 -> node 1.
  CHECK(boundary_after(env.topology, rank_layout_of(two_nodes), 1).crosses_node);
  // One GPU's share of the node's 8 NDR NICs as NCCL's search sees them: 2 x 24 GB/s.
  CHECK_THAT(x.hop_link.bandwidth.value(), near(48e9, 1e-12));
  CHECK(x.hop_link.latency == env.topology.inter.latency);
  const auto one_node = group_stage(env, {.tp = 2, .pp = 2, .dp = 2}, even_split(8, 2));
  CHECK(one_node.hop_link.bandwidth == env.topology.intra.bandwidth);
}

TEST_CASE(
    "Placed groups: each stage's DP group at its rank offset: on NVL72 the stage that straddles "
    "two racks paces the DP sync",
    "[step][placement]") {
  const auto env = on_preset("gb200-nvl72", "ib-ndr");
  const group_sizes g{.tp = 4, .pp = 2, .dp = 16};  // stages of 64 ranks: 0..63, 64..127
  const auto layout = rank_layout_of(g);
  const auto x = group_stage(env, g, even_split(8, 2));
  const auto inside = place_dimension(env.topology, layout, parallel_dim::dp, 0);
  const auto straddles = place_dimension(env.topology, layout, parallel_dim::dp, 1);
  REQUIRE_FALSE(inside.spans_nodes());
  REQUIRE(straddles.spans_nodes());
  const bytes grads = 2.0 * x.params_last * units::B;
  const auto expected =
      nccl_cheapest_collective(env.topology, straddles, collective_op::all_reduce, grads);
  CHECK(x.dp_all_reduce.cost.time == expected.cost.time);
  CHECK(x.dp_all_reduce.algorithm == expected.algorithm);
  CHECK(expected.cost.time >
        nccl_cheapest_collective(env.topology, inside, collective_op::all_reduce, grads).cost.time);
}

TEST_CASE(
    "Placed groups: concurrent DP rings share the node's NICs (t=8 on 4-NIC A100 nodes: half a "
    "NIC per ring)",
    "[step][placement]") {
  const auto env = on_preset("a100-sxm4-80gb", "ib-hdr", 4);
  const group_sizes g{.tp = 8, .pp = 1, .dp = 4};
  const auto x = group_stage(env, g, even_split(8, 1));
  auto alone = place_group(env.topology, 4, "ranks", 1);  // one ring, the node's NICs to itself
  const bytes grads = x.dp_bytes;
  const auto one =
      nccl_cheapest_collective(env.topology, alone, collective_op::all_reduce, grads).cost.time;
  alone.concurrent = 8;
  const auto shared =
      nccl_cheapest_collective(env.topology, alone, collective_op::all_reduce, grads).cost.time;
  CHECK(x.dp_all_reduce.cost.time == shared);
  CHECK(shared > 1.9 * one);
}

TEST_CASE(
    "HSDP: t=1 d=16 on two nodes in 2 replicas reduce-scatters and gathers inside a node and "
    "all-reduces an eighth of the gradients between the two",
    "[step][placement][hsdp]") {
  const auto env = on_preset("h100-sxm", "ib-ndr");
  const group_sizes full{.tp = 1, .pp = 1, .dp = 16};
  const group_sizes hsdp{.tp = 1, .pp = 1, .dp = 16, .dp_replicas = 2};
  const auto layout = rank_layout_of(hsdp);
  const auto shard = place_dimension_part(env.topology, layout, parallel_dim::dp, 0, 8, false);
  const auto replicas = place_dimension_part(env.topology, layout, parallel_dim::dp, 0, 8, true);
  CHECK(shard.ranks == 8);
  CHECK(shard.nodes == 1);  // ranks 0..7
  CHECK(replicas.ranks == 2);
  CHECK(replicas.nodes == 2);  // ranks 0 and 8
  const auto x = group_stage(env, hsdp, even_split(8, 1));
  const auto y = group_stage(env, full, even_split(8, 1));
  const bytes grads = x.dp_bytes;
  CHECK(x.dp_reduce_scatter.cost.time ==
        nccl_cheapest_collective(env.topology, shard, collective_op::reduce_scatter, grads)
            .cost.time);
  CHECK(x.dp_replica_all_reduce.cost.time ==
        nccl_cheapest_collective(env.topology, replicas, collective_op::all_reduce, grads / 8.0)
            .cost.time);
  // ZeRO-0's all-reduce is over all d either way; without replicas there is no replica term.
  CHECK(x.dp_all_reduce.cost.time == y.dp_all_reduce.cost.time);
  CHECK(y.dp_replica_all_reduce.cost.time.value() == 0.0);
  // The replicas' all-reduce carries an eighth of the gradients from each of a node's 8 GPUs:
  // what the 16-rank ring carries across the nodes. With 8 rails that ring runs near NVLink's
  // rate, so HSDP's reduction is slower there; its gain is ZeRO-3's two gathers per micro-batch
  // inside a node, which shows where a node has one NIC.
  CHECK(x.dp_reduce_scatter.cost.time + x.dp_replica_all_reduce.cost.time >
        y.dp_reduce_scatter.cost.time);
  const auto one_nic = on_preset("h100-sxm", "ib-ndr", 1);
  const auto xs = group_stage(one_nic, hsdp, even_split(8, 1));
  const auto ys = group_stage(one_nic, full, even_split(8, 1));
  const auto zero3 = [](const group_terms& g) {
    return 2.0 * g.dp_all_gather.cost.time + g.dp_reduce_scatter.cost.time +
           g.dp_replica_all_reduce.cost.time;
  };
  CHECK(zero3(xs) < 0.6 * zero3(ys));
  // The optimizer updates an eighth of the parameters, not a sixteenth.
  CHECK_THAT(x.optimizer_sharded.value(), near(2.0 * y.optimizer_sharded.value(), 1e-9));
}

TEST_CASE("HSDP: shard groups of one rank are DDP: ZeRO-1 with d replicas syncs as ZeRO-0",
          "[step][hsdp]") {
  auto ddp = small_gpt(1, 1, 16, 64);
  auto one = ddp;
  one.par.zero = zero_stage::optimizer;
  one.par.dp_replicas = 16;
  const auto a = evaluate_step(ddp);
  const auto b = evaluate_step(one);
  CHECK_THAT(b.dp_sync.value(), near(a.dp_sync.value(), 1e-12));
  // Nothing is sharded: every GPU keeps every state, as under ZeRO-0.
  CHECK_THAT(b.memory.peak().model_states().value(),
             near(a.memory.peak().model_states().value(), 1e-12));
}

TEST_CASE("HSDP: ZeRO-3 over d = 32 in 4 replicas keeps the states of ZeRO-3 over 8",
          "[step][hsdp]") {
  auto hsdp = small_gpt(2, 1, 32, 64);
  hsdp.par.zero = zero_stage::parameters;
  hsdp.par.dp_replicas = 4;
  auto eight = small_gpt(2, 1, 8, 64);
  eight.par.zero = zero_stage::parameters;
  const auto a = evaluate_step(hsdp).memory.peak();
  const auto b = evaluate_step(eight).memory.peak();
  CHECK_THAT(a.weights.value(), near(b.weights.value(), 1e-12));
  CHECK_THAT(a.gradients.value(), near(b.gradients.value(), 1e-12));
  CHECK_THAT(a.optimizer.value(), near(b.optimizer.value(), 1e-12));
  auto all = hsdp;
  all.par.dp_replicas = 1;
  CHECK(evaluate_step(all).memory.peak().model_states() < a.model_states());
}

TEST_CASE("HSDP: replicas that do not divide d are refused, naming the field", "[step][hsdp]") {
  auto in = small_gpt(1, 1, 16, 64);
  in.par.zero = zero_stage::optimizer;
  in.par.dp_replicas = 3;
  CHECK_THROWS_WITH(evaluate_step(in),
                    Catch::Contains("dp_replicas:") && Catch::Contains("do not divide the d = 16"));
  in.par.dp_replicas = 0;
  CHECK_THROWS_WITH(evaluate_step(in), Catch::Contains("dp_replicas:"));
}

TEST_CASE("Placed groups: the tied embedding's all-reduce is NCCL's on the end stages' group",
          "[step][placement]") {
  const auto env = on_preset("h100-sxm", "ib-ndr");
  const group_sizes g{.tp = 8, .pp = 2, .dp = 1};  // end stages on two nodes
  const auto x = group_stage(env, g, even_split(8, 2));
  const auto group = embedding_group(env.topology, rank_layout_of(g));
  REQUIRE(group.spans_nodes());
  REQUIRE(env.model.tied_embeddings);
  const bytes embedding =
      2.0 * static_cast<double>(env.model.vocab * env.model.hidden) / 8.0 * units::B;
  CHECK(x.embedding ==
        nccl_cheapest_collective(env.topology, group, collective_op::all_reduce, embedding)
            .cost.time);
}

TEST_CASE(
    "One collective model: the step's TP collectives are what the per-layer model's auto prices "
    "for the same message on the same hardware",
    "[step][nccl]") {
  for (const auto& [gpu, net, t] :
       {std::tuple{"h100-sxm", "ib-ndr", 8}, std::tuple{"h100-sxm", "ib-ndr", 16},
        std::tuple{"a100-sxm4-80gb", "ib-hdr", 8}}) {
    CAPTURE(gpu, t);
    const auto env = on_preset(gpu, net);
    const group_sizes g{.tp = t, .pp = 1, .dp = 1};
    const auto x = group_stage(env, g, even_split(8, 1));
    const auto y = batch_stage(env, x, 1, 4);
    // The same message as one layer of `sweep`: b·s·h·2 bytes.
    const layer_spec layer{
        .batch = 1, .seq = env.model.seq, .hidden = env.model.hidden, .element = {"bf16", 2}};
    REQUIRE(y.tp_message == message_bytes(layer));
    tp_options plain;
    plain.collective = collective_choice::automatic;
    auto sp = plain;
    sp.sequence_parallel = true;
    const device_spec device{.peak = flops_per_second(1e15), .bandwidth = bytes_per_second(1e11)};
    const auto ar = tp_cost_per_layer(layer, device, env.topology, plain, t).collectives.at(0);
    CHECK(ar.algorithm == y.tp_all_reduce.algorithm);
    CHECK(ar.cost.time == y.tp_all_reduce.cost.time);
    for (const auto& use : tp_cost_per_layer(layer, device, env.topology, sp, t).collectives) {
      const auto& step_use =
          use.op == collective_op::all_gather ? y.tp_all_gather : y.tp_reduce_scatter;
      CHECK(use.algorithm == step_use.algorithm);
      CHECK(use.cost.time == step_use.cost.time);
    }
  }
}

TEST_CASE(
    "The model's ends: the embedding's TP collective on the first stage, the output layer's and "
    "the cross-entropy's three fp32 all-reduces on the last, in the step's TP time",
    "[step][ends]") {
  // One stage holds both ends: per micro-batch, L layers' collectives, the embedding's
  // all-reduce of b·s·h (forward), the output layer's input-gradient all-reduce and three
  // all-reduces of one fp32 value per token (Megatron-Core core_v0.16.0 VocabParallelEmbedding,
  // ColumnParallelLinear, vocab_parallel_cross_entropy).
  auto in = small_gpt(4, 1, 1, 4);
  const auto x = group_stage(environment_of(in), {.tp = 4, .pp = 1, .dp = 1}, even_split(8, 1));
  const auto price = [&](collective_op op, double b) {
    return nccl_cheapest_collective(in.topology, x.tp_group, op, b * units::B).cost.time;
  };
  const double hidden = 1.0 * 1024 * 2048 * 2;  // b·s·h·2
  const double per_token = 1.0 * 1024 * 4;      // b·s·4
  const auto ar = price(collective_op::all_reduce, hidden);
  const auto rs = price(collective_op::reduce_scatter, hidden);
  const auto ag = price(collective_op::all_gather, hidden);
  const auto ce = 3.0 * price(collective_op::all_reduce, per_token);
  const auto plain = evaluate_step(in);
  CHECK_THAT(plain.time.tp_comm.value(),
             near(4.0 * (8.0 * plain.tp_comm_per_layer + 2.0 * ar + ce).value(), 1e-12));
  // Under SP, GPT's learned positions: the embedding all-reduces, then scatters (its backward
  // all-gathers); the output layer all-gathers its input, gathers it again for its weight
  // gradient and reduce-scatters its gradient (no async collectives in these options: all
  // exposed).
  in.par.sequence_parallel = true;
  REQUIRE(in.options.input_grad_overlap == async_input_grad::none);
  const auto sp = evaluate_step(in);
  CHECK_THAT(
      sp.time.tp_comm.value(),
      near(4.0 * (8.0 * sp.tp_comm_per_layer + (ar + ag) + (ag + ag + rs) + ce).value(), 1e-12));
  // Rotary positions: the embedding reduce-scatters (reduce_scatter_embeddings).
  in.model.positions = position_kind::rotary;
  const auto rope = evaluate_step(in);
  CHECK_THAT(
      rope.time.tp_comm.value(),
      near(4.0 * (8.0 * rope.tp_comm_per_layer + (rs + ag) + (ag + ag + rs) + ce).value(), 1e-12));
  // None at t = 1.
  CHECK(evaluate_step(small_gpt(1, 1, 1, 4)).time.tp_comm.value() == 0.0);
}

TEST_CASE(
    "The fused cross entropy: fewer bytes per logit and fewer collectives, as Megatron-Core and "
    "Transformer Engine run them",
    "[step][ends]") {
  // Bytes per logit, forward and backward (compute_model.hpp counts them from the kernels).
  CHECK(cross_entropy_bytes_per_logit(cross_entropy_kernel::unfused) == 60.0);
  CHECK(cross_entropy_bytes_per_logit(cross_entropy_kernel::native) == 36.0);
  CHECK(cross_entropy_bytes_per_logit(cross_entropy_kernel::te) == 22.0);
  auto in = small_gpt(4, 1, 1, 4);
  const double tokens = 1024.0;
  const double logits_here = tokens * static_cast<double>(in.model.vocab) / 4.0;
  const double bw = in.gpu.efficiency.memory * in.gpu.memory_bandwidth.value();
  const auto x = group_stage(environment_of(in), {.tp = 4, .pp = 1, .dp = 1}, even_split(8, 1));
  const auto price = [&](collective_op op, double b) {
    return nccl_cheapest_collective(in.topology, x.tp_group, op, b * units::B).cost.time.value();
  };
  // The collectives by hand: 3 all-reduces of one fp32 value a token; the native fusion's max
  // and its one all-reduce of the predicted logits and sums (8 bytes a token); TE's one
  // all-gather of 3 fp32 values a token from each of the 4 ranks.
  const double unfused_tp = 3.0 * price(collective_op::all_reduce, 4.0 * tokens);
  const double native_tp = price(collective_op::all_reduce, 4.0 * tokens) +
                           price(collective_op::all_reduce, 8.0 * tokens);
  const double te_tp = price(collective_op::all_gather, 12.0 * 4.0 * tokens);
  const auto plain = evaluate_step(in);
  for (const auto& [kernel, bytes, tp] : {std::tuple{cross_entropy_kernel::native, 36.0, native_tp},
                                          std::tuple{cross_entropy_kernel::te, 22.0, te_tp}}) {
    CAPTURE(static_cast<int>(kernel));
    in.options.cross_entropy = kernel;
    const auto fused = evaluate_step(in);
    // m = 4 micro-batches, one stage: the loss's bytes and collectives, nothing else.
    CHECK_THAT(plain.time.tp_comm.value() - fused.time.tp_comm.value(),
               near(4.0 * (unfused_tp - tp), 1e-9));
    CHECK_THAT(plain.step_time.value() - fused.step_time.value(),
               near(4.0 * ((60.0 - bytes) * logits_here / bw + unfused_tp - tp), 1e-9));
  }
}

TEST_CASE("The embedding's TP collective paces the first stage when it is the slowest",
          "[step][ends]") {
  // Two stages of 5 and 3 layers: the first is the slowest and holds the embedding alone.
  auto in = small_gpt(4, 2, 1, 8);
  in.par.first_stage_layers = 5;
  const auto r = evaluate_step(in);
  const auto x = group_stage(environment_of(in), {.tp = 4, .pp = 2, .dp = 1},
                             {.stages = 2, .first = 5, .middle = 0, .last = 3});
  const auto ar = nccl_cheapest_collective(in.topology, x.tp_group, collective_op::all_reduce,
                                           1.0 * 1024 * 2048 * 2 * units::B)
                      .cost.time;
  CHECK_THAT(
      r.time.tp_comm.value(),
      near(static_cast<double>(r.micro_batches) * (5.0 * r.tp_comm_per_layer + ar).value(), 1e-12));
}

TEST_CASE(
    "The DP overlap window: the gradient reduce-scatter hides behind the last backward and the "
    "parameter all-gather behind the next forward, both on the first stage, which finishes last",
    "[step][dp]") {
  // Two stages of 3 and 5 layers, d = 16 across nodes (a slow sync, larger than both windows),
  // the distributed optimizer with both overlaps.
  auto in = small_gpt(1, 2, 16, 64);
  in.topology.inter.bandwidth = bytes_per_second(2e9);
  in.par.first_stage_layers = 3;
  in.par.zero = zero_stage::optimizer;
  in.options.dp_overlap = 1.0;
  const auto r = evaluate_step(in);
  const auto pipe = summarize_pipeline(in.model, in.par, 2, true);
  REQUIRE(pipe.split.first == 3);
  const auto x = group_stage(environment_of(in), {.tp = 1, .pp = 2, .dp = 16}, pipe.split);
  const auto k = layer_compute_time(in.model, 1, 1, in.gpu, in.options.attention);
  const seconds rs = x.dp_reduce_scatter.cost.time;
  const seconds ag = x.dp_all_gather.cost.time;
  const seconds last_backward = 3.0 * k.backward;  // stage 0's last micro-batch
  const seconds next_forward = 3.0 * k.forward();  // stage 0's first micro-batch of the next step
  REQUIRE(rs > last_backward);
  REQUIRE(ag > next_forward);
  const seconds expected = (rs - last_backward) + (ag - next_forward) + x.embedding;
  CHECK_THAT(r.time.dp_comm.value(), near(expected.value(), 1e-12));
  // Not the last stage's backward for the whole sync, as before.
  const seconds old = (rs + ag) - 5.0 * k.backward + x.embedding;
  CHECK(std::abs((r.time.dp_comm - old).value()) > 1e-4);
  // --overlap-grad-reduce alone: the all-gather stays exposed.
  in.options.overlap_grad_reduce_only = true;
  CHECK_THAT(evaluate_step(in).time.dp_comm.value(),
             near(((rs - last_backward) + ag + x.embedding).value(), 1e-12));
}

TEST_CASE("The step's hardware FLOPs count the recompute recipe: modules, and block's share",
          "[step][flops][recompute]") {
  // 8 layers on p = 2 stages: a chunk holds c = 4 layers.
  auto in = small_gpt(1, 2, 1, 8);
  const auto fwd = forward_flops_per_token(in.model, in.model.seq);
  const double tokens = 8.0 * static_cast<double>(in.model.seq);
  const auto model_flops = evaluate_step(in).flops.model;
  SECTION("selective with core_attn and mlp reruns the attention core and every MLP") {
    in.par.recompute = recompute_mode::selective;
    in.options.recompute.modules = static_cast<unsigned>(recompute_module::core_attn) |
                                   static_cast<unsigned>(recompute_module::mlp);
    const auto r = evaluate_step(in);
    CHECK(r.flops.model.value() == model_flops.value());
    CHECK_THAT((r.flops.hardware - r.flops.model).value(),
               near(tokens * (fwd.attention + fwd.mlp).value()));
    CHECK(r.hfu > r.mfu);
  }
  SECTION("block recomputation of 1 of a chunk's 4 layers reruns a quarter of the forward") {
    in.par.recompute = recompute_mode::full;
    in.options.recompute.method = recompute_method::block;
    in.options.recompute.num_layers = 1;
    const auto r = evaluate_step(in);
    CHECK_THAT((r.flops.hardware - r.flops.model).value(),
               near(0.25 * tokens * fwd.layers().value()));
    CHECK(recipe_flops_per_step(in.model, in.par, in.options).hardware.value() ==
          r.flops.hardware.value());
  }
}
