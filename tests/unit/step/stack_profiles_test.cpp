// Software stack profiles: every choice cited, the same sharding rule in step and plan, the
// gradient dtype on the wire and in memory, ZeRO-3's gathered layers, FSDP2's gathers with PP.
#include "tpcost/step/stack_profiles.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "support/matchers.hpp"
#include "support/models.hpp"
#include "tpcost/plan/planner.hpp"
#include "tpcost/step/step.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {

step_inputs small_gpt(const stack_profile& stack, std::int64_t t, std::int64_t p, std::int64_t d,
                      zero_stage zero) {
  step_inputs in;
  in.model = tpcost::test::small_gpt_spec();
  in.par.tp = t;
  in.par.pp = p;
  in.par.dp = d;
  in.par.micro_batch = 1;
  in.par.global_batch = 8 * d;
  in.par.zero = zero;
  in.gpu = {flops_per_second(312e12), bytes_per_second(2039e9), {}};
  in.memory_capacity = 80.0 * units::GiB;
  in.topology = {
      8, {bytes_per_second(300e9), seconds(3e-6)}, {bytes_per_second(25e9), seconds(10e-6)}};
  in.options = options_of(stack);
  return in;
}

const stack_profile& named(const char* name) { return stack_profile_by_name(name, "stack"); }

}  // namespace

TEST_CASE("Every profile names its release and cites every choice and names are unique",
          "[stack]") {
  std::set<std::string> names;
  for (const auto& p : stack_profiles) {
    INFO(p.name);
    CHECK(names.insert(std::string(p.name)).second);
    CHECK(&profile_of(p.stack) == &p);
    CHECK(!p.release.empty());
    CHECK(!p.summary.empty());
    for (const auto source :
         {p.tp_overlap.source, p.dp_overlap.source, p.dp_overlap_zero3.source,
          p.grad_wire_bytes.source, p.state.source, p.attention.source, p.max_zero.source,
          p.sharding_with_pp.source, p.gathers_per_micro_batch.source, p.gathered_layers.source,
          p.p2p_overlap.source, p.sequence_parallel.source, p.kernels.source,
          p.input_grad_overlap.source, p.grad_accumulation_fusion.source,
          p.sp_input_regather.source, p.cross_entropy.source}) {
      CHECK(source.size() > 10);
    }
  }
  CHECK(stack_choices() == "megatron-core|megatron-2021|deepspeed|fsdp2|megatron-bridge");
  CHECK_THROWS_WITH(stack_profile_by_name("nemo", "--stack"),
                    Catch::Contains("'nemo' is not a stack; expected megatron-core|"));
}

TEST_CASE("Profiles set what their frameworks do by default", "[stack]") {
  const auto core = options_of(named("megatron-core"));
  CHECK(core.grad_wire_bytes == 4);  // fp32 reduction unless --grad-reduce-in-bf16
  CHECK(core.state.gradients == 4.0);
  CHECK(core.tp_overlap == 0.0);
  CHECK(core.dp_overlap == 0.0);
  CHECK(core.attention == attention_kernel::fused);
  const auto old = options_of(named("megatron-2021"));
  CHECK(old.grad_wire_bytes == 2);
  CHECK(old.attention == attention_kernel::unfused);
  const auto ds = options_of(named("deepspeed"));
  CHECK(ds.dp_overlap == 0.0);        // overlap_comm is False below stage 3 ...
  CHECK(ds.dp_overlap_zero3 == 1.0);  // ... and True for stage 3
  const auto fsdp = options_of(named("fsdp2"));
  CHECK(fsdp.grad_wire_bytes == 4);  // mixed_precision_reduce = float32
  CHECK(fsdp.state.weights + fsdp.state.gradients + fsdp.state.optimizer == 16.0);
  // Megatron-Bridge's performance recipes: every overlap on, bf16 gradients, the distributed
  // optimizer, sequence parallelism at t > 1.
  const auto& bridge_profile = named("megatron-bridge");
  const auto bridge = options_of(bridge_profile);
  CHECK(bridge.tp_overlap == 1.0);
  CHECK(bridge.dp_overlap == 1.0);
  CHECK(bridge.p2p_overlap == 1.0);
  CHECK(bridge.grad_wire_bytes == 2);
  CHECK(bridge.state.gradients == 2.0);
  CHECK(bridge_profile.default_zero.value == 1);
  CHECK(bridge_profile.sequence_parallel.value);
  CHECK(!named("megatron-core").sequence_parallel.value);
  CHECK(core.p2p_overlap == 1.0);  // Megatron-LM's --no-overlap-p2p-communication is opt-out
  CHECK(old.p2p_overlap == 0.0);
}

TEST_CASE("Interleaved pipelines hide the steady-state p2p, warm-up and flush keep theirs",
          "[stack][pipeline]") {
  // p = 4, v = 2 over a slow inter-node hop so the p2p is visible.
  auto in = small_gpt(named("megatron-core"), 1, 4, 1, zero_stage::none);
  in.topology.gpus_per_node = 1;
  in.model.layers = 8;
  in.par.vpp = 2;
  in.par.global_batch = 16;
  const auto overlapped = evaluate_step(in);
  in.options.p2p_overlap = 0.0;
  const auto exposed = evaluate_step(in);
  REQUIRE(exposed.time.p2p.value() > 0.0);
  CHECK(overlapped.time.p2p.value() < exposed.time.p2p.value());
  // The bubble (warm-up and flush, with their transfers) is the same either way.
  CHECK_THAT(overlapped.time.bubble.value(), near(exposed.time.bubble.value(), 1e-12));
  CHECK_THAT(exposed.step_time.value() - overlapped.step_time.value(),
             near(exposed.time.p2p.value() - overlapped.time.p2p.value(), 1e-9));
  // Without interleaving Megatron does not overlap them: the share changes nothing.
  in.par.vpp = 1;
  in.options.p2p_overlap = 1.0;
  const auto plain_on = evaluate_step(in);
  in.options.p2p_overlap = 0.0;
  const auto plain_off = evaluate_step(in);
  CHECK(plain_on.step_time.value() == plain_off.step_time.value());
}

TEST_CASE("fp32 gradient reduction doubles the DP bytes and the weight all-gather stays 16-bit",
          "[stack]") {
  const auto core = evaluate_step(small_gpt(named("megatron-core"), 1, 1, 4, zero_stage::none));
  const auto ds = evaluate_step(small_gpt(named("deepspeed"), 1, 1, 4, zero_stage::none));
  CHECK_THAT(core.dp_bytes_per_gpu.value(), near(2.0 * ds.dp_bytes_per_gpu.value(), 1e-12));
  CHECK(core.dp_sync > ds.dp_sync);
  // In memory: 2 + 4 + 12 bytes per parameter against 2 + 2 + 12.
  const auto& a = core.memory.peak();
  const auto& b = ds.memory.peak();
  CHECK_THAT(a.gradients.value(), near(2.0 * b.gradients.value(), 1e-12));
  CHECK_THAT(a.weights.value(), near(b.weights.value(), 1e-12));
}

TEST_CASE("ZeRO-2/3 with pipelines: one rule in step and plan, as each stack runs it", "[stack]") {
  for (const auto& stack : stack_profiles) {
    INFO(stack.name);
    for (const auto zero : {zero_stage::gradients, zero_stage::parameters}) {
      const auto in = small_gpt(stack, 1, 2, 4, zero);
      plan_request req;
      req.model = in.model;
      req.gpu = in.gpu;
      req.memory_capacity = in.memory_capacity;
      req.topology = in.topology;
      req.options = in.options;
      req.gpus = 8;
      req.global_batch = in.par.global_batch;
      if (static_cast<int>(zero) > stack.max_zero.value) {
        CHECK_THROWS_WITH(evaluate_step(in), Catch::Contains("which offers stages 0..0"));
      } else if (stack.sharding_with_pp.value) {
        CHECK_NOTHROW(evaluate_step(in));
        CHECK(!broken_plan_rule(req, in.par));
      } else {
        CHECK_THROWS_WITH(evaluate_step(in), Catch::Contains("need p = 1"));
        CHECK(broken_plan_rule(req, in.par) == plan_reason::zero_with_pp);
      }
    }
  }
}

TEST_CASE("ZeRO-3 memory holds the gathered layer and the prefetched one (by hand)",
          "[stack][memory]") {
  // small GPT: h = 2048, 8 layers. One layer on a TP rank of t = 2: the split part
  // (h·3h + 3h QKV, h·h output, h·4h + 4h·h MLP, 4h first-MLP bias) / 2, plus the replicated
  // part (h + h row-parallel biases, two LayerNorms of 2h).
  const double h = 2048.0;
  const double split = (3.0 * h * h + 3.0 * h + h * h + 8.0 * h * h + 4.0 * h) / 2.0;
  const double layer = split + 2.0 * h + 4.0 * h;
  const auto spec = tpcost::test::small_gpt_spec();
  REQUIRE(layer_params_per_tp_rank(spec, 2) == layer);
  const auto in = small_gpt(named("deepspeed"), 2, 1, 4, zero_stage::parameters);
  const auto r = evaluate_step(in);
  const auto& s = r.memory.peak();
  // Sharded 16-bit weights, then two full layers of 16-bit weights on this TP rank.
  CHECK_THAT(s.weights.value(), near(s.params * 2.0 / 4.0 + 2.0 * 2.0 * layer, 1e-12));
  // ZeRO-2 gathers nothing.
  auto z2 = in;
  z2.par.zero = zero_stage::gradients;
  const auto r2 = evaluate_step(z2);  // held: peak() refers into the result
  const auto& s2 = r2.memory.peak();
  CHECK_THAT(s2.weights.value(), near(s2.params * 2.0, 1e-12));
  // FSDP2 with pipelines does not reshard after the forward: every layer of the stage stays
  // gathered (4 layers on each of 2 stages), on top of the sharded fp32 weights.
  const auto pp = evaluate_step(small_gpt(named("fsdp2"), 2, 2, 4, zero_stage::parameters));
  for (const auto& stage : pp.memory.stages) {
    CHECK_THAT(stage.weights.value(), near(stage.params * 4.0 / 4.0 + 4.0 * 2.0 * layer, 1e-12));
  }
}

TEST_CASE("ZeRO-3 all-gathers per micro-batch: twice, or once under FSDP2 with pipelines",
          "[stack]") {
  const auto& fsdp = named("fsdp2");
  for (const std::int64_t p : {1, 2}) {
    INFO("p = " << p);
    const auto in = small_gpt(fsdp, 1, p, 4, zero_stage::parameters);
    const auto r = evaluate_step(in);
    const auto env = environment_of(in);
    const auto pipe = summarize_pipeline(in.model, in.par, 2, true);
    const auto x = group_stage(env, {.tp = 1, .pp = p, .dp = 4}, pipe.split);
    const double gathers = p == 1 ? 2.0 : 1.0;
    const double m = static_cast<double>(r.micro_batches);
    CHECK_THAT(r.dp_sync.value(), near(m * (gathers * x.dp_all_gather.cost.time.value() +
                                            x.dp_reduce_scatter.cost.time.value()),
                                       1e-12));
  }
}

TEST_CASE("Overlapping the gradient reduction alone hides what its bytes make it", "[stack]") {
  // ZeRO-1 over d = 4 in one node: the sync is a reduce-scatter of the gradients (4 B fp32,
  // or 2 B) and an all-gather of the 16-bit weights; the backward window is large enough that
  // only the share decides.
  const auto run = [](int grad_bytes, zero_stage zero, bool grad_only) {
    auto in = small_gpt(named("megatron-core"), 1, 1, 4, zero);
    in.options.grad_wire_bytes = grad_bytes;
    in.options.dp_overlap = 1.0;
    in.options.dp_overlap_zero3 = 1.0;
    in.options.overlap_grad_reduce_only = grad_only;
    return evaluate_step(in);
  };
  for (const int bytes : {4, 2}) {
    INFO(bytes);
    const auto r = run(bytes, zero_stage::optimizer, true);
    REQUIRE(r.dp_sync.value() > 0.0);
    const double exposed_share =
        r.time.dp_comm.value() / r.dp_sync.value();  // p = 1: no embedding sync
    // The weight all-gather (2 B) stays exposed: 2/(4+2) = 1/3 with fp32, 2/(2+2) = 1/2 with
    // bf16 gradients (ring times scale with bytes up to the latency terms).
    CHECK_THAT(exposed_share, near(bytes == 4 ? 1.0 / 3.0 : 0.5, 0.02));
  }
  // DDP: the all-reduce is the gradient reduction, all of it hideable.
  const auto ddp_only = run(4, zero_stage::none, true);
  const auto ddp_all = run(4, zero_stage::none, false);
  CHECK(ddp_only.time.dp_comm.value() == ddp_all.time.dp_comm.value());
}

TEST_CASE("Userbuffers TP overlap needs SP and a TP group inside one NVLink domain", "[stack]") {
  auto in = small_gpt(named("megatron-bridge"), 2, 1, 1, zero_stage::none);
  in.par.sequence_parallel = true;
  REQUIRE(in.options.tp_overlap_needs_sp);
  const auto inside = evaluate_step(in);
  auto plain = in;
  plain.options.tp_overlap = 0.0;
  const auto exposed = evaluate_step(plain);
  REQUIRE(exposed.time.tp_comm.value() > 0.0);
  CHECK(inside.time.tp_comm.value() < exposed.time.tp_comm.value());
  // The same group across two domains (one GPU per node): nothing overlapped.
  in.topology.gpus_per_node = 1;
  plain.topology.gpus_per_node = 1;
  CHECK(evaluate_step(in).time.tp_comm.value() == evaluate_step(plain).time.tp_comm.value());
  // SP off: nothing overlapped either.
  in.topology.gpus_per_node = 8;
  plain.topology.gpus_per_node = 8;
  in.par.sequence_parallel = false;
  plain.par.sequence_parallel = false;
  CHECK(evaluate_step(in).time.tp_comm.value() == evaluate_step(plain).time.tp_comm.value());
}

TEST_CASE(
    "Megatron stacks keep the fitted efficiencies, torchtitan's PyTorch kernels have their own",
    "[stack]") {
  for (const auto& p : stack_profiles) {
    INFO(p.name);
    CHECK((p.kernels.value == kernel_stack::megatron_fused) == (p.stack != software_stack::fsdp2));
  }
  // torchtitan v0.2.2 job_config.py: [compile] enable = False.
  CHECK(profile_of(software_stack::fsdp2).kernels.value == kernel_stack::pytorch_eager);
  for (const auto& gpu : gpu_presets) {
    for (const auto rate : {tensor_rate::bf16, tensor_rate::fp8, tensor_rate::fp4}) {
      INFO(gpu.name);
      const auto te = default_efficiency(gpu.name, gpu.arch, rate);
      const auto same = default_efficiency(gpu.name, gpu.arch, rate, kernel_stack::megatron_fused);
      CHECK(same.matmul == te.matmul);
      CHECK(same.memory == te.memory);
      CHECK(same.attention == te.attention);
      CHECK(same.elementwise_traffic == 1.0);
      CHECK(same.source == te.source);
      const auto eager = default_efficiency(gpu.name, gpu.arch, rate, kernel_stack::pytorch_eager);
      const auto compiled =
          default_efficiency(gpu.name, gpu.arch, rate, kernel_stack::pytorch_compiled);
      CHECK(eager.matmul == compiled.matmul);  // the same aten GEMMs
      CHECK(eager.elementwise_traffic > 1.0);
      CHECK(compiled.elementwise_traffic == 1.0);
      const bool fitted = gpu.name == "H100-SXM" && rate != tensor_rate::fp4;
      CHECK((eager.source.find("fitted") != std::string_view::npos) == fitted);
      CHECK((eager.source.find("assumption") == 0) == !fitted);
    }
  }
}

TEST_CASE("torch.compile speeds up the element-wise kernels only", "[stack]") {
  const auto& h100 = gpu_preset_by_name("h100-sxm", "gpu");
  const auto eager =
      default_efficiency(h100.name, h100.arch, tensor_rate::bf16, kernel_stack::pytorch_eager);
  const auto compiled =
      default_efficiency(h100.name, h100.arch, tensor_rate::bf16, kernel_stack::pytorch_compiled);
  auto in = small_gpt(profile_of(software_stack::fsdp2), 1, 1, 8, zero_stage::parameters);
  in.gpu.efficiency = {.matmul = eager.matmul,
                       .memory = eager.memory,
                       .attention = eager.attention,
                       .elementwise_traffic = eager.elementwise_traffic};
  const auto slow = evaluate_step(in);
  in.gpu.efficiency.elementwise_traffic = compiled.elementwise_traffic;
  const auto fast = evaluate_step(in);
  CHECK(fast.step_time < slow.step_time);
  // The factor scales the element-wise kernels' time, linearly, and nothing else: the fused
  // attention core and the GEMMs stay as they were.
  const auto layer = [&](double k) {
    in.gpu.efficiency.elementwise_traffic = k;
    return layer_compute_time(in.model, 1, 1, in.gpu, attention_kernel::fused);
  };
  const auto one = layer(1.0), two = layer(2.0), three = layer(3.0);
  CHECK(two.other_forward > one.other_forward);
  CHECK_THAT((three.other_forward - two.other_forward).value(),
             near((two.other_forward - one.other_forward).value()));
  CHECK_THAT((three.backward - two.backward).value(), near((two.backward - one.backward).value()));
  CHECK(two.attention_core_forward == one.attention_core_forward);
  CHECK(two.grad_accumulation == one.grad_accumulation);
}

TEST_CASE(
    "fp16 runs reduce gradients in fp16: Megatron-LM forces fp32 gradients only under bf16, so "
    "an fp16 megatron-core step syncs half the bytes and keeps 2-byte gradients",
    "[stack][fp16]") {
  const auto& core = profile_of(software_stack::megatron_core);
  const auto bf16 = options_of(core, false);
  const auto fp16 = options_of(core, true);
  CHECK(bf16.grad_wire_bytes == 4);
  CHECK(bf16.state.gradients == 4.0);
  CHECK(fp16.grad_wire_bytes == 2);
  CHECK(fp16.state.gradients == 2.0);
  // The step: the DP sync carries 2 bytes a gradient, and the gradients take 2 bytes in memory.
  auto in = small_gpt(core, 2, 1, 8, zero_stage::none);
  in.options = bf16;
  const auto a = evaluate_step(in);
  in.options = fp16;
  const auto b = evaluate_step(in);
  CHECK_THAT(b.dp_bytes_per_gpu.value(), near(0.5 * a.dp_bytes_per_gpu.value(), 1e-12));
  CHECK(b.dp_sync < a.dp_sync);
  CHECK_THAT(b.memory.peak().gradients.value(),
             near(0.5 * a.memory.peak().gradients.value(), 1e-12));
  // The stacks that reduce in the training dtype, or in fp32 whatever it is, do not change.
  for (const auto stack : {software_stack::megatron_2021, software_stack::deepspeed,
                           software_stack::fsdp2, software_stack::megatron_bridge}) {
    CAPTURE(static_cast<int>(stack));
    const auto& p = profile_of(stack);
    CHECK(options_of(p, true).grad_wire_bytes == options_of(p).grad_wire_bytes);
    CHECK(options_of(p, true).state.gradients == options_of(p).state.gradients);
  }
}

TEST_CASE("Megatron's input-gradient collectives hide behind their own weight-gradient GEMMs",
          "[stack]") {
  // Megatron-Core layers.py (LinearWithGradAccumulationAndAsyncCommunication.backward): QKV's
  // and FC1's input-gradient all-reduce, or under SP its reduce-scatter, starts before that
  // linear's weight-gradient GEMM and is waited for after it. One of each per backward pass.
  auto in = small_gpt(named("megatron-core"), 8, 1, 1, zero_stage::none);
  REQUIRE(in.options.input_grad_overlap == async_input_grad::all);
  auto inline_comm = in;
  inline_comm.options.input_grad_overlap = async_input_grad::none;
  const double layer_passes = 8.0 * 8.0;  // 8 layers, m = 8 micro-batches
  const auto k = layer_compute_time(in.model, 1, 8, in.gpu, in.options.attention);
  for (const bool sp : {false, true}) {
    INFO("SP " << sp);
    in.par.sequence_parallel = sp;
    inline_comm.par.sequence_parallel = sp;
    const auto async = evaluate_step(in);
    const auto sync = evaluate_step(inline_comm);
    // No SP: 4 all-reduces a layer; SP: 4 all-gathers and 4 reduce-scatters of the same ring
    // cost, and the 2 all-gathers of QKV's and FC1's saved input again (sp_input_regather).
    // The one collective that may hide: a quarter or a tenth of the layer's.
    const double one = sync.tp_comm_per_layer.value() / (sp ? 10.0 : 4.0);
    // By hand: each hides up to its own GEMM (here FC1's is the longer, QKV's the shorter); the
    // re-gathers behind the input-gradient GEMMs.
    const double regathers_hidden =
        sp ? std::min(one, k.qkv_dgrad.value()) + std::min(one, k.fc1_dgrad.value()) : 0.0;
    const double hidden =
        std::min(one, k.qkv_wgrad.value()) + std::min(one, k.fc1_wgrad.value()) + regathers_hidden;
    REQUIRE(hidden > 0.0);
    // The output layer is a ColumnParallelLinear too: its input gradient's collective (the same
    // b·s·h message) hides behind the logits' weight-gradient GEMM, once per micro-batch, and
    // under SP its re-gather behind the input-gradient GEMM.
    const double output_hidden =
        std::min(one, logits_wgrad_time(in.model, 1, 8, in.gpu).value()) +
        (sp ? std::min(one, logits_dgrad_time(in.model, 1, 8, in.gpu).value()) : 0.0);
    REQUIRE(output_hidden > 0.0);
    // NCCL's async collectives hide free (tp_contention prices what userbuffers hide).
    const double all_hidden = layer_passes * hidden + 8.0 * output_hidden;
    CHECK_THAT(sync.time.tp_comm.value() - async.time.tp_comm.value(), near(all_hidden, 1e-9));
    CHECK_THAT(sync.step_time.value() - async.step_time.value(), near(all_hidden, 1e-9));
  }
  // GEMMs far longer than the collectives (a GPU 1,000x slower): both hide whole, and the
  // output layer's all-reduce (a quarter of a layer's four) once per micro-batch.
  in.gpu.peak = flops_per_second(312e9);
  inline_comm.gpu.peak = in.gpu.peak;
  in.par.sequence_parallel = inline_comm.par.sequence_parallel = false;
  const auto sync = evaluate_step(inline_comm);
  CHECK_THAT(sync.time.tp_comm.value() - evaluate_step(in).time.tp_comm.value(),
             near((layer_passes / 2.0 + 8.0 / 4.0) * sync.tp_comm_per_layer.value(), 1e-9));
  // Megatron-LM v2.5 (megatron-2021) all-reduces inline; only SP's reduce-scatter, which came
  // overlapped (Mar 2022), hides.
  auto old = small_gpt(named("megatron-2021"), 8, 1, 1, zero_stage::none);
  REQUIRE(old.options.input_grad_overlap == async_input_grad::reduce_scatter);
  auto old_inline = old;
  old_inline.options.input_grad_overlap = async_input_grad::none;
  CHECK(evaluate_step(old).step_time.value() == evaluate_step(old_inline).step_time.value());
  old.par.sequence_parallel = old_inline.par.sequence_parallel = true;
  CHECK(evaluate_step(old).step_time.value() < evaluate_step(old_inline).step_time.value());
  // Userbuffers hide all of it already: the async path adds nothing on top.
  auto bridge = small_gpt(named("megatron-bridge"), 8, 1, 1, zero_stage::none);
  bridge.par.sequence_parallel = true;
  auto bridge_inline = bridge;
  bridge_inline.options.input_grad_overlap = async_input_grad::none;
  CHECK(evaluate_step(bridge).step_time.value() == evaluate_step(bridge_inline).step_time.value());
}

TEST_CASE("Megatron's SP gathers a column-parallel linear's saved input again in the backward",
          "[stack]") {
  // Megatron-Core layers.py and Transformer Engine's layernorm_linear.py / layernorm_mlp.py save
  // QKV's and FC1's input sharded over the sequence and all-gather it again for the weight
  // gradient, started before the input-gradient GEMM; torchtitan's DTensor ColwiseParallel
  // saves the gathered input and gathers nothing again.
  CHECK(named("megatron-core").sp_input_regather.value);
  CHECK(named("megatron-bridge").sp_input_regather.value);
  CHECK_FALSE(named("fsdp2").sp_input_regather.value);
  auto core = small_gpt(named("megatron-core"), 8, 1, 1, zero_stage::none);
  core.par.sequence_parallel = true;
  auto saved = core;
  saved.options.sp_input_regather = false;
  const auto with = evaluate_step(core);
  const auto without = evaluate_step(saved);
  // 4 all-gathers and 4 reduce-scatters a layer, and 2 more all-gathers of the same ring cost.
  CHECK(with.tp_collectives_per_layer == 10.0);
  CHECK(without.tp_collectives_per_layer == 8.0);
  const double one = without.tp_comm_per_layer.value() / 8.0;
  CHECK_THAT(with.tp_comm_per_layer.value(), near(10.0 * one, 1e-12));
  // Each re-gather hides up to its own input-gradient GEMM, free (NCCL's async collective, as
  // the input gradients' are): what stays exposed per layer pass, and the output layer's once
  // per micro-batch, by hand.
  const auto k = layer_compute_time(core.model, 1, 8, core.gpu, core.options.attention);
  const double layer_exposed =
      2.0 * one - std::min(one, k.qkv_dgrad.value()) - std::min(one, k.fc1_dgrad.value());
  const double output_exposed =
      one - std::min(one, logits_dgrad_time(core.model, 1, 8, core.gpu).value());
  REQUIRE(2.0 * one - layer_exposed > 0.0);  // something hides
  CHECK_THAT(with.step_time.value() - without.step_time.value(),
             near(64.0 * layer_exposed + 8.0 * output_exposed, 1e-9));  // 8 layers, m = 8
  // Without SP nothing is gathered: the stacks agree.
  core.par.sequence_parallel = saved.par.sequence_parallel = false;
  CHECK(evaluate_step(core).step_time.value() == evaluate_step(saved).step_time.value());
  // With --tp-overlap's share the only thing that hides, the re-gathers hide by that share.
  core.par.sequence_parallel = saved.par.sequence_parallel = true;
  core.options.input_grad_overlap = saved.options.input_grad_overlap = async_input_grad::none;
  CHECK_THAT(evaluate_step(core).step_time.value() - evaluate_step(saved).step_time.value(),
             near(64.0 * 2.0 * one + 8.0 * one, 1e-9));
  // torchtitan's stack under SP: the 8 collectives only.
  auto titan = small_gpt(named("fsdp2"), 8, 1, 1, zero_stage::none);
  titan.par.sequence_parallel = true;
  CHECK(evaluate_step(titan).tp_collectives_per_layer == 8.0);
}

TEST_CASE("A hidden TP collective still costs the compute it hides behind", "[stack]") {
  // By hand: 10 s of collectives, all overlapped, behind 4 s of compute: 4 s hide, and the
  // compute loses half of them at contention 0.5.
  CHECK_THAT(exposed_tp(seconds{10.0}, 1.0, seconds{}, seconds{4.0}, 0.5).value(),
             near(8.0, 1e-12));
  CHECK_THAT(exposed_tp(seconds{10.0}, 1.0, seconds{}, seconds{4.0}).value(), near(6.0, 1e-12));
  // Half overlapped by userbuffers (5 s, capped at the 4 s of compute): 2 s of the 4 lost.
  CHECK_THAT(exposed_tp(seconds{10.0}, 0.5, seconds{}, seconds{4.0}, 0.5).value(),
             near(8.0, 1e-12));
  // The async input-gradient collectives (2 s behind their GEMMs) hide free; of the same 2 s
  // with 1 s of it userbuffers', that 1 s costs its share.
  CHECK_THAT(exposed_tp(seconds{3.0}, 0.0, seconds{2.0}, seconds{4.0}, 1.0).value(),
             near(1.0, 1e-12));
  CHECK_THAT(exposed_tp(seconds{3.0}, 1.0 / 3.0, seconds{2.0}, seconds{4.0}, 0.5).value(),
             near(1.5, 1e-12));
  // Megatron-Bridge hides all TP behind the GEMMs (userbuffers): the step grows by exactly
  // tp_contention of what hides, and is the plain exposed sum at contention 1.
  auto bridge = small_gpt(named("megatron-bridge"), 8, 1, 1, zero_stage::none);
  bridge.par.sequence_parallel = true;
  REQUIRE(bridge.options.tp_contention > 0.0);
  auto free_overlap = bridge;
  free_overlap.options.tp_contention = 0.0;
  auto no_overlap = bridge;
  no_overlap.options.tp_overlap = 0.0;
  no_overlap.options.input_grad_overlap = async_input_grad::none;
  const auto free = evaluate_step(free_overlap);
  const auto none = evaluate_step(no_overlap);
  const double hidden = none.time.tp_comm.value() - free.time.tp_comm.value();
  REQUIRE(hidden > 0.0);
  const auto with = evaluate_step(bridge);
  CHECK_THAT(with.step_time.value() - free.step_time.value(),
             near(bridge.options.tp_contention * hidden, 1e-9));
  auto full = bridge;
  full.options.tp_contention = 1.0;
  CHECK_THAT(evaluate_step(full).time.tp_comm.value(), near(none.time.tp_comm.value(), 1e-9));
  // Without TP there is nothing to hide and nothing to pay.
  auto one = small_gpt(named("megatron-bridge"), 1, 1, 1, zero_stage::none);
  auto one_free = one;
  one_free.options.tp_contention = 0.0;
  CHECK(evaluate_step(one).step_time.value() == evaluate_step(one_free).step_time.value());
}

TEST_CASE("Megatron fuses gradient accumulation into the weight-gradient GEMM", "[stack]") {
  // megatron/training/arguments.py (core_v0.16.0): --no-gradient-accumulation-fusion is
  // store_false, so the weight-gradient GEMM adds into main_grad itself; Megatron-LM v2.5 added
  // the gradient in a hook (megatron-2021). The traffic beyond the GEMM's own 16-bit write, per
  // parameter: fused 2g - 2 (the epilogue reads and writes main_grad of g bytes), unfused 2 + 2g
  // (a pass reads the gradient and reads and writes main_grad).
  CHECK(accumulation_bytes_per_param(true, 4.0) == 6.0);
  CHECK(accumulation_bytes_per_param(false, 4.0) == 10.0);
  CHECK(accumulation_bytes_per_param(true, 2.0) == 2.0);
  CHECK(accumulation_bytes_per_param(false, 2.0) == 6.0);
  // One GPU (t = p = d = 1), so the step is the compute: fused and unfused differ by layers x
  // m x the pass at 4 bytes a parameter, against the 6 the kernel times price (fp32 main_grad).
  auto fused = small_gpt(named("megatron-core"), 1, 1, 1, zero_stage::none);
  REQUIRE(fused.options.grad_accumulation_fusion == fused_accumulation::always);
  REQUIRE(fused.options.state.gradients == 4.0);
  auto separate = fused;
  separate.options.grad_accumulation_fusion = fused_accumulation::never;
  const auto k = layer_compute_time(fused.model, 1, 1, fused.gpu, fused.options.attention);
  REQUIRE(k.grad_accumulation.value() > 0.0);
  const double passes = static_cast<double>(fused.model.layers) * 8.0;  // m = 8
  CHECK_THAT(evaluate_step(separate).step_time.value() - evaluate_step(fused).step_time.value(),
             near(passes * k.grad_accumulation.value() * (10.0 - 6.0) / 6.0, 1e-9));
  CHECK(options_of(named("megatron-2021")).grad_accumulation_fusion == fused_accumulation::never);
  CHECK(options_of(named("deepspeed")).grad_accumulation_fusion == fused_accumulation::never);
  CHECK(options_of(named("fsdp2")).grad_accumulation_fusion == fused_accumulation::never);
  // Megatron-Bridge fuses it, except under Megatron-FSDP (ZeRO-3), whose recipes turn it off.
  for (const auto zero : {zero_stage::optimizer, zero_stage::parameters}) {
    CAPTURE(static_cast<int>(zero));
    auto bridge = small_gpt(named("megatron-bridge"), 1, 1, 2, zero);
    auto bridge_separate = bridge;
    bridge_separate.options.grad_accumulation_fusion = fused_accumulation::never;
    const double with = evaluate_step(bridge).step_time.value();
    const double without = evaluate_step(bridge_separate).step_time.value();
    if (zero == zero_stage::parameters) {
      CHECK(with == without);
    } else {
      CHECK(with < without);
    }
  }
  // Stacks without a main_grad buffer keep the pass as layer_compute_time prices it.
  auto ds = small_gpt(named("deepspeed"), 1, 1, 1, zero_stage::none);
  CHECK(accumulation_time(ds.options, zero_stage::none, k).value() == k.grad_accumulation.value());
  // Megatron's three stacks keep one; DeepSpeed and FSDP2 accumulate autograd's .grad.
  for (const auto* name : {"megatron-core", "megatron-2021", "megatron-bridge"}) {
    CAPTURE(name);
    CHECK(options_of(named(name)).main_grad_buffer);
  }
  CHECK_FALSE(options_of(named("deepspeed")).main_grad_buffer);
  CHECK_FALSE(options_of(named("fsdp2")).main_grad_buffer);
}
