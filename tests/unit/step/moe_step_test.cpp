// The step with experts (step/moe_layer.hpp, stages.hpp): the dense invariant, MoE parallel
// folding, where the all-to-all runs, expert memory, and the errors of the expert layout.
#include <catch2/catch.hpp>

#include "support/matchers.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/step/step.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {

transformer_spec llama_like() {
  return with_architecture({.layers = 8,
                            .hidden = 2048,
                            .heads = 16,
                            .kv_heads = 4,
                            .ffn = 5632,
                            .vocab = 32000,
                            .seq = 2048},
                           architecture::llama);
}

/// The dense model written as one expert that every token visits.
transformer_spec as_one_expert(transformer_spec spec) {
  spec.moe = {.experts = 1, .top_k = 1, .expert_ffn = ffn_of(spec)};
  return spec;
}

/// A small MoE: 64 experts, top-4, every layer but the first with experts.
transformer_spec small_moe() {
  auto spec = llama_like();
  spec.moe = {
      .experts = 64, .top_k = 4, .expert_ffn = 1024, .shared_experts = 1, .dense_layers = 1};
  return spec;
}

step_inputs inputs(const transformer_spec& model, std::int64_t t, std::int64_t p, std::int64_t d) {
  step_inputs in;
  in.model = model;
  in.par.tp = t;
  in.par.pp = p;
  in.par.dp = d;
  in.par.micro_batch = 1;
  in.par.global_batch = 8 * d;
  in.par.sequence_parallel = t > 1;
  in.gpu = {flops_per_second(989.4e12), bytes_per_second(3.35e12), {0.73, 0.66}};
  in.memory_capacity = 80.0 * units::GiB;
  in.topology = {
      8, {bytes_per_second(450e9), seconds(3.4e-6)}, {bytes_per_second(50e9), seconds(14e-6)}};
  in.options.attention = attention_kernel::fused;
  return in;
}

void require_same_step(const step_result& a, const step_result& b) {
  CHECK(a.step_time.value() == b.step_time.value());
  CHECK(a.time.compute.value() == b.time.compute.value());
  CHECK(a.time.tp_comm.value() == b.time.tp_comm.value());
  CHECK(a.time.bubble.value() == b.time.bubble.value());
  CHECK(a.time.p2p.value() == b.time.p2p.value());
  CHECK(a.time.dp_comm.value() == b.time.dp_comm.value());
  CHECK(a.time.optimizer.value() == b.time.optimizer.value());
  CHECK(b.time.ep_comm.value() == 0.0);
  CHECK(a.dp_bytes_per_gpu.value() == b.dp_bytes_per_gpu.value());
  CHECK(a.tp_message.value() == b.tp_message.value());
  CHECK(a.p2p_message.value() == b.p2p_message.value());
  REQUIRE(a.memory.stages.size() == b.memory.stages.size());
  for (std::size_t i = 0; i < a.memory.stages.size(); ++i) {
    const auto& x = a.memory.stages[i];
    const auto& y = b.memory.stages[i];
    CHECK(x.weights.value() == y.weights.value());
    CHECK(x.gradients.value() == y.gradients.value());
    CHECK(x.optimizer.value() == y.optimizer.value());
    CHECK(x.activations.value() == y.activations.value());
  }
}

}  // namespace

TEST_CASE("A dense model as one expert, top-1, ep = etp = 1 costs exactly the dense step",
          "[moe][step]") {
  for (const auto recompute :
       {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
    for (const auto zero : {zero_stage::none, zero_stage::optimizer}) {
      CAPTURE(to_string(recompute), static_cast<int>(zero));
      auto dense = inputs(llama_like(), 1, 2, 8);
      dense.par.recompute = recompute;
      dense.par.zero = zero;
      auto moe = dense;
      moe.model = as_one_expert(dense.model);
      const auto a = evaluate_step(dense);
      const auto b = evaluate_step(moe);
      require_same_step(a, b);
      CHECK(b.experts.moe_layers == 8);
    }
  }
}

TEST_CASE("With ETP = t the one expert is the dense MLP under TP: the same step", "[moe][step]") {
  auto dense = inputs(llama_like(), 2, 2, 4);
  auto moe = dense;
  moe.model = as_one_expert(dense.model);
  moe.par.etp = 2;
  // Under SP the dense FC1 gathers its saved input again for its weight gradient
  // (sp_input_regather); the expert's FC1 takes the dispatcher's gathered copies, which autograd
  // keeps. Without that one all-gather a layer: the same kernels and collectives; only the
  // grouping of a few sums differs.
  REQUIRE(dense.par.sequence_parallel);
  const auto a_regather = evaluate_step(dense);
  const auto b_regather = evaluate_step(moe);
  dense.options.sp_input_regather = moe.options.sp_input_regather = false;
  const auto a = evaluate_step(dense);
  const auto b = evaluate_step(moe);
  CHECK_THAT(b.step_time.value(), near(a.step_time.value(), 1e-12));
  CHECK_THAT(b.time.tp_comm.value(), near(a.time.tp_comm.value(), 1e-12));
  CHECK_THAT(b.memory.peak().total().value(), near(a.memory.peak().total().value(), 1e-12));
  // With it: the dense layer has QKV's and FC1's re-gathers, the MoE layer QKV's only (these
  // options run them inline, exposed).
  REQUIRE(dense.options.input_grad_overlap == async_input_grad::none);
  CHECK(a_regather.time.tp_comm.value() > b_regather.time.tp_comm.value());
  CHECK(b_regather.time.tp_comm.value() > b.time.tp_comm.value());
}

TEST_CASE("The EP all-to-all runs on NVLink inside a node and over the NICs beyond it",
          "[moe][step]") {
  auto in = inputs(small_moe(), 1, 1, 32);
  in.par.ep = 8;
  const auto inside = evaluate_step(in);
  in.par.ep = 16;
  const auto across = evaluate_step(in);
  CHECK_FALSE(inside.experts.ep_group.spans_nodes());
  CHECK(inside.experts.dispatch.inter_node_bytes.value() == 0.0);
  CHECK(across.experts.ep_group.spans_nodes());
  CHECK(across.experts.dispatch.inter_node_bytes.value() > 0.0);
  CHECK(across.experts.dispatch.time > 2.0 * inside.experts.dispatch.time);
  // 2 all-to-alls forward, 2 backward, per MoE layer and micro-batch: 7 MoE layers, m = 8.
  CHECK(inside.experts.all_to_alls == 4.0);
  CHECK(inside.experts.moe_layers == 7);
  CHECK_THAT(inside.time.ep_comm.value(),
             near(8.0 * 7.0 * inside.experts.all_to_all_per_layer.value(), 1e-12));
  CHECK_THAT(inside.experts.all_to_all_per_layer.value(),
             near(4.0 * inside.experts.dispatch.time.value(), 1e-12));
  // The breakdown still adds up to the step.
  CHECK_THAT(across.time.total().value(), near(across.step_time.value(), 1e-12));
}

TEST_CASE("Group-limited routing sends a flex dispatch to fewer nodes, an NCCL one the same",
          "[moe][step]") {
  // 64 experts over EP 32 on 4 nodes of 8: 16 experts a node, one routing group a node.
  auto in = inputs(small_moe(), 1, 1, 32);
  in.par.ep = 32;
  in.options.experts.dispatcher = token_dispatcher::deep_ep;
  const auto uniform = evaluate_step(in);
  in.model.moe.routing = {.groups = 4, .groups_per_token = 2};
  const auto limited = evaluate_step(in);
  REQUIRE(limited.experts.ep_group.nodes == 4);
  // A token reaches the other nodes its 4 experts are on: at most its 2 groups' nodes.
  const double per_token =
      limited.experts.dispatch.inter_node_bytes.value() / (2.0 * 2048.0 * 2048.0);
  CHECK(per_token <= 2.0);
  CHECK(limited.experts.dispatch.inter_node_bytes < uniform.experts.dispatch.inter_node_bytes);
  CHECK(limited.experts.dispatch.time < uniform.experts.dispatch.time);
  CHECK(limited.step_time < uniform.step_time);
  // What the experts compute does not change: only the traffic.
  CHECK(limited.time.compute.value() == uniform.time.compute.value());
  // The NCCL all-to-all sends every (token, expert) copy whatever the rule.
  in.options.experts.dispatcher = token_dispatcher::all_to_all;
  const auto nccl_limited = evaluate_step(in);
  in.model.moe.routing = {};
  const auto nccl_uniform = evaluate_step(in);
  CHECK(nccl_limited.experts.dispatch.inter_node_bytes.value() ==
        nccl_uniform.experts.dispatch.inter_node_bytes.value());
  CHECK(nccl_limited.step_time.value() == nccl_uniform.step_time.value());
}

TEST_CASE("Full recomputation reruns the dispatch and combine, and the overlap flag hides them",
          "[moe][step]") {
  auto in = inputs(small_moe(), 1, 1, 32);
  in.par.ep = 16;
  in.par.recompute = recompute_mode::full;
  CHECK(evaluate_step(in).experts.all_to_alls == 6.0);
  in.par.recompute = recompute_mode::none;
  const auto plain = evaluate_step(in);
  in.options.experts.overlap_comm = true;
  const auto overlapped = evaluate_step(in);
  CHECK(overlapped.time.ep_comm < plain.time.ep_comm);
  CHECK(overlapped.step_time < plain.step_time);
  CHECK(overlapped.experts.all_to_all_per_layer == plain.experts.all_to_all_per_layer);
}

TEST_CASE(
    "Selective recomputation of moe reruns the dispatch and combine, and of mlp the MLP's TP "
    "collectives",
    "[moe][step][recompute]") {
  const auto bit = [](recompute_module m) { return static_cast<unsigned>(m); };
  auto in = inputs(small_moe(), 1, 1, 32);
  in.par.ep = 16;
  in.par.recompute = recompute_mode::selective;
  CHECK(evaluate_step(in).experts.all_to_alls == 4.0);  // core_attn: none rerun
  in.options.recompute.modules = bit(recompute_module::moe_act);
  CHECK(evaluate_step(in).experts.all_to_alls == 4.0);  // the activation alone: none either
  in.options.recompute.modules = bit(recompute_module::moe);
  const auto moe = evaluate_step(in);
  CHECK(moe.experts.all_to_alls == 6.0);  // the layer's forward again, with its two
  in.par.recompute = recompute_mode::full;
  CHECK(moe.time.ep_comm.value() == evaluate_step(in).time.ep_comm.value());

  // A dense layer under TP and SP: the MLP's rerun repeats fc1's all-gather and fc2's
  // reduce-scatter, one more pair than the 4 + 4 of a layer and the 2 backward re-gathers of
  // QKV's and FC1's saved input (once per backward, rerun or not); the attention core reruns
  // none.
  auto dense = inputs(llama_like(), 4, 1, 8);
  dense.par.recompute = recompute_mode::selective;
  const auto core = evaluate_step(dense);
  CHECK(core.tp_collectives_per_layer == 10.0);
  dense.options.recompute.modules = bit(recompute_module::core_attn) | bit(recompute_module::mlp);
  const auto mlp = evaluate_step(dense);
  CHECK(mlp.tp_collectives_per_layer == 12.0);
  CHECK(mlp.tp_comm_per_layer > core.tp_comm_per_layer);
  // Without SP the MLP's one all-reduce: 4 + 1.
  dense.par.sequence_parallel = false;
  CHECK(evaluate_step(dense).tp_collectives_per_layer == 5.0);
}

TEST_CASE("Experts are sharded by EP x ETP and their optimizer states by the expert-DP group",
          "[moe][step][memory]") {
  auto in = inputs(small_moe(), 1, 1, 32);
  in.par.zero = zero_stage::optimizer;
  in.par.ep = 8;
  const auto ep8 = evaluate_step(in);
  in.par.ep = 16;
  const auto ep16 = evaluate_step(in);
  CHECK_THAT(ep16.memory.peak().expert_params, near(ep8.memory.peak().expert_params / 2.0, 1e-12));
  CHECK(ep8.experts.expert_dp == 4);
  CHECK(ep16.experts.expert_dp == 2);
  // 7 MoE layers, 64/8 experts of 3·h·f each on a GPU.
  CHECK(ep8.memory.peak().expert_params == 7.0 * 8.0 * 3.0 * 2048.0 * 1024.0);
  // Expert optimizer states (12 B) over expert-DP = 4; the rest over d = 32.
  const auto& s = ep8.memory.peak();
  const double dense = s.params - s.expert_params;
  CHECK_THAT(s.optimizer.value(), near(12.0 * (dense / 32.0 + s.expert_params / 4.0), 1e-12));
}

TEST_CASE("Load imbalance slows the busiest GPU and a capacity factor caps it", "[moe][step]") {
  auto in = inputs(small_moe(), 1, 1, 32);
  in.par.ep = 8;
  const auto balanced = evaluate_step(in);
  in.options.experts.load.load_imbalance = 2.0;
  const auto skewed = evaluate_step(in);
  in.options.experts.load.capacity_factor = 1.25;
  const auto capped = evaluate_step(in);
  CHECK(skewed.time.compute > balanced.time.compute);
  CHECK(skewed.experts.routed_copies == 2.0 * balanced.experts.routed_copies);
  CHECK(capped.experts.routed_copies == 1.25 * balanced.experts.routed_copies);
  // The busiest GPU's dispatch moves twice the bytes; the cost per peer or per call does not
  // grow with them.
  const auto& b = balanced.experts.dispatch;
  CHECK(b.latency.value() > 0.0);
  CHECK(skewed.experts.dispatch.latency == b.latency);
  CHECK_THAT(skewed.experts.dispatch.time.value(),
             near(b.latency.value() + 2.0 * (b.time - b.latency).value(), 1e-12));
  CHECK(capped.step_time < skewed.step_time);
  CHECK(capped.step_time > balanced.step_time);
}

TEST_CASE("Bad expert layouts are refused, naming the field", "[moe][step][errors]") {
  const auto field_of = [](step_inputs in) {
    try {
      (void)evaluate_step(in);
    } catch (const invalid_spec& e) {
      return std::string(e.field());
    }
    return std::string("(accepted)");
  };
  auto in = inputs(small_moe(), 1, 1, 32);
  in.par.ep = 3;  // does not divide 64 experts
  CHECK(field_of(in) == "ep");
  in.par.ep = 64;  // 64 does not divide t·d = 32
  CHECK(field_of(in) == "ep");
  in.par.ep = 8;
  in.par.etp = 3;  // does not divide f_e = 1024
  CHECK(field_of(in) == "etp");
  in.par.etp = 8;  // 8·8 = 64 does not divide 32
  CHECK(field_of(in) == "ep");
  auto tp = inputs(small_moe(), 2, 1, 16);
  tp.par.sequence_parallel = false;
  CHECK(field_of(tp) == "sequence_parallel");
  auto dense = inputs(llama_like(), 1, 1, 8);
  dense.par.ep = 2;
  CHECK(field_of(dense) == "ep");
  auto load = inputs(small_moe(), 1, 1, 32);
  load.options.experts.load.load_imbalance = 0.5;
  CHECK(field_of(load) == "moe-load-imbalance");
}

TEST_CASE("Each pass of a routing MoE layer waits the host time, the one-expert layer none",
          "[moe][step]") {
  auto in = inputs(small_moe(), 1, 1, 32);
  in.par.ep = 16;
  in.options.experts.host_time_per_pass = seconds{};
  const auto without = evaluate_step(in);
  in.options.experts.host_time_per_pass = seconds(1e-3);
  const auto with = evaluate_step(in);
  // 7 MoE layers, forward and backward, 8 micro-batches on one stage: 7 * 2 * 8 ms.
  CHECK_THAT((with.time.compute - without.time.compute).value(), near(7 * 2 * 8 * 1e-3, 1e-9));
  in.par.recompute = recompute_mode::full;  // the recomputed forward waits once more
  const auto full = evaluate_step(in);
  in.options.experts.host_time_per_pass = seconds{};
  const auto full_without = evaluate_step(in);
  CHECK_THAT((full.time.compute - full_without.time.compute).value(), near(7 * 3 * 8 * 1e-3, 1e-9));
  CHECK(moe_host_time_per_pass_s > 0.0);  // on by default

  auto dense = inputs(as_one_expert(llama_like()), 1, 1, 8);
  const auto a = evaluate_step(dense);
  dense.options.experts.host_time_per_pass = seconds{};
  require_same_step(a, evaluate_step(dense));
}
