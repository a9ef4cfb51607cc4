// A step with context parallelism and an FP8 precision (step/long_context.hpp, evaluated by
// evaluate_step).
#include "tpcost/step/long_context.hpp"

#include <catch2/catch.hpp>

#include "support/matchers.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/model/model_presets.hpp"
#include "tpcost/step/step.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
// Llama 3.1 405B (arXiv:2407.21783 Table 3): 126 layers, h 16384, 128 heads, 8 KV heads,
// ffn 53248, V 128256.
transformer_spec llama405b(std::int64_t seq) {
  return with_architecture({.layers = 126,
                            .hidden = 16384,
                            .heads = 128,
                            .kv_heads = 8,
                            .ffn = 53248,
                            .vocab = 128256,
                            .seq = seq},
                           architecture::llama);
}

step_inputs llama3_long_context(std::int64_t cp, linear_precision p) {
  const auto& h100 = gpu_preset_by_name("h100", "--gpu");
  const auto& ndr = interconnect_preset_by_name("ib-ndr", "--interconnect");
  step_inputs in;
  in.model = llama405b(131072);
  in.par.tp = 8;
  in.par.pp = 16;
  in.par.dp = 16384 / (8 * 16 * cp);
  in.par.micro_batch = 1;
  in.par.global_batch = 128 / 16 * in.par.dp;  // 8 micro-batches per replica
  in.par.sequence_parallel = true;
  in.par.recompute = recompute_mode::full;
  in.par.zero = zero_stage::optimizer;
  in.gpu = bf16_device_for(h100);
  in.memory_capacity = h100.memory.value;
  in.topology = make_topology(h100, ndr);
  in.options.attention = attention_kernel::fused;
  in.options.dp_overlap = 1.0;
  in.par.cp = cp;
  in.precision = {
      .options = {.linear = p},
      .linear_peak = p == linear_precision::bf16 ? h100.peak.bf16.value : h100.peak.fp8.value};
  return in;
}
}  // namespace

TEST_CASE(
    "Llama 3's long-context stage (t=8, p=16, cp=16 on 16,384 H100) runs, its CP ring "
    "on the network",
    "[long_context]") {
  const auto r = evaluate_step(llama3_long_context(16, linear_precision::bf16));
  CHECK(r.gpus == 16384);
  CHECK(r.long_context.cp_per_layer.total().value() > 0.0);
  CHECK_THAT((r.long_context.cp_exposed + r.long_context.cp_hidden).value(),
             near(r.long_context.cp_per_layer.total().value() * 126.0 / 16 * (8 + 15)));
  // Attention of 8192 local queries against 131072 keys: much more than the s/cp view.
  CHECK(r.long_context.attention_extra.value() > 0.0);
  CHECK(r.step_time > r.time.compute);
  CHECK(r.peak_utilisation.mfu_bf16_peak == r.peak_utilisation.mfu_precision_peak);
  CHECK(r.peak_utilisation.mfu_bf16_peak > 0.05);
  CHECK(r.peak_utilisation.mfu_bf16_peak < 0.75);
}

TEST_CASE(
    "The CP stage reruns the attention core under selective recomputation only with core_attn",
    "[long_context]") {
  // Per layer and micro-batch the stage adds (1 + 2.5) attention passes beyond the view, and a
  // fourth when the core is recomputed: Megatron-Core's recompute_modules decide that
  // (core_attn, the default), as they do for the view's own layer.
  auto in = llama3_long_context(16, linear_precision::bf16);
  in.par.recompute = recompute_mode::none;
  const auto none = evaluate_step(in).long_context.attention_extra;
  in.par.recompute = recompute_mode::selective;
  const auto core = evaluate_step(in).long_context.attention_extra;
  in.options.recompute.modules = static_cast<unsigned>(recompute_module::layernorm) |
                                 static_cast<unsigned>(recompute_module::mlp);
  const auto no_core = evaluate_step(in).long_context.attention_extra;
  REQUIRE(none.value() > 0.0);
  CHECK_THAT(core.value(), near(none.value() * 4.5 / 3.5));
  CHECK(no_core.value() == none.value());
}

TEST_CASE("FP8 is faster by what the linear layers' share allows, and reports both MFUs",
          "[long_context]") {
  const auto bf16 = evaluate_step(llama3_long_context(16, linear_precision::bf16));
  const auto fp8 = evaluate_step(llama3_long_context(16, linear_precision::fp8_delayed));
  const double speedup = bf16.step_time / fp8.step_time;
  CHECK(speedup > 1.0);
  CHECK(speedup < 2.0);  // attention, logits, element-wise kernels and communication stay
  CHECK(fp8.long_context.linear_saving.value() > 0.0);
  CHECK(fp8.peak_utilisation.precision_peak == tensor_rate::fp8);
  CHECK_THAT(fp8.peak_utilisation.mfu_precision_peak,
             near(fp8.peak_utilisation.mfu_bf16_peak * 989.4 / 1978.9));  // H100: FP8 peak 1978.9
  CHECK(fp8.peak_utilisation.mfu_bf16_peak > bf16.peak_utilisation.mfu_bf16_peak);
}

TEST_CASE("cp in parallel_config: N = t*p*cp*d, the expert groups fold over t*cp*d ranks",
          "[long_context]") {
  const auto moe = model_preset_named("qwen3-30b-a3b", "model").spec;
  parallel_config par{.dp = 4, .cp = 2, .ep = 8, .micro_batch = 1, .global_batch = 8};
  CHECK_NOTHROW(validate(moe, par));  // EP 8 over t*cp*d = 8 ranks
  CHECK(shard_degree(par) == 8);      // ZeRO shards over the d*cp ranks with the same weights
  par.dp_replicas = 2;
  CHECK(shard_degree(par) == 4);
  par.dp_replicas = 1;
  par.cp = 1;
  CHECK_THROWS_WITH(validate(moe, par), Catch::Contains("t*cp*d = 4"));
  par.cp = 0;
  CHECK_THROWS_WITH(validate(moe, par), Catch::Contains("the CP degree"));
  const parallel_config huge{.tp = 4096, .pp = 4096, .cp = 2};
  CHECK_THROWS_WITH(validate(llama405b(8192), huge), Catch::Contains("N = t*p*cp*d"));
}

TEST_CASE("cp = 1 with BF16 is the step model itself, bit for bit", "[long_context]") {
  auto in = llama3_long_context(1, linear_precision::bf16);
  in.model.seq = 8192;
  in.par.dp = 128;
  in.par.global_batch = 1024;
  const auto r = evaluate_step(in);
  const auto plain = detail::evaluate_view(in);
  CHECK(!r.long_context.added);
  CHECK(r.step_time.value() == plain.step_time.value());
  CHECK(r.mfu == plain.mfu);
  CHECK(r.long_context.cp_per_layer.total().value() == 0.0);
  // With cp = 2 the terms are added to the view's step.
  in.par.cp = 2;
  in.par.dp = 64;
  in.par.global_batch = 512;
  const auto two = evaluate_step(in);
  CHECK(two.long_context.added);
  CHECK(two.gpus == r.gpus);
  CHECK(two.long_context.cp_per_layer.total().value() > 0.0);
}

TEST_CASE("Bad CP layouts: s not divisible by 2*cp, unfused attention", "[long_context]") {
  auto in = llama3_long_context(16, linear_precision::bf16);
  in.model.seq = 131072 + 16;  // divisible by 16, not by 32
  CHECK_THROWS_WITH(evaluate_step(in), Catch::StartsWith("cp: ") && Catch::Contains("2*cp = 32"));
  in = llama3_long_context(16, linear_precision::bf16);
  in.options.attention = attention_kernel::unfused;
  CHECK_THROWS_WITH(evaluate_step(in), Catch::Contains("fused"));
}

TEST_CASE("A recipe the GPU lacks is refused naming it: Hopper and Blackwell get their fits",
          "[long_context]") {
  const auto& h100 = gpu_preset_by_name("h100", "--gpu");
  CHECK_THROWS_WITH(precision_device_for(h100, {.linear = linear_precision::nvfp4}, "--precision"),
                    Catch::StartsWith("--precision: ") && Catch::Contains("H100-SXM"));
  const auto fp8 = precision_device_for(h100, {.linear = linear_precision::fp8_current}, "p");
  CHECK(fp8.linear_peak.value() == h100.peak.fp8.value.value());
  CHECK(fp8.linear_efficiency == hopper_fp8_matmul);
  CHECK(bf16_device_for(h100).efficiency.matmul == hopper_bf16_matmul);
  const auto& b200 = gpu_preset_by_name("b200", "--gpu");
  const auto fp4 = precision_device_for(b200, {.linear = linear_precision::nvfp4}, "p");
  CHECK(fp4.linear_peak.value() == 9000e12);
  CHECK(bf16_device_for(gpu_preset_by_name("a100", "--gpu")).efficiency.matmul == 0.75);
}

namespace {
/// One GPU running a whole model: t = p = d = 1, b = G = 1, fused attention.
step_inputs one_gpu(const transformer_spec& model, const gpu_preset& gpu, recompute_mode mode) {
  step_inputs in;
  in.model = model;
  in.par.recompute = mode;
  in.gpu = bf16_device_for(gpu);
  in.memory_capacity = gpu.memory.value;
  in.topology = make_topology(gpu, interconnect_preset_by_name("ib-ndr", "--interconnect"));
  in.options.attention = attention_kernel::fused;
  return in;
}
}  // namespace

TEST_CASE("One attention kernel, one cost: evaluate_step's fused core is the CP stage's",
          "[long_context][attention]") {
  const auto& h100 = gpu_preset_by_name("h100", "--gpu");
  for (const auto p : {linear_precision::bf16, linear_precision::fp8_delayed}) {
    auto in = llama3_long_context(1, p);
    in.precision = precision_device_for(h100, {.linear = p}, "p");
    const auto env = environment_of(in);
    const auto core =
        layer_compute_time(in.model, 1, 8, in.gpu, attention_kernel::fused).attention_core_forward;
    // cp = 1: the stage's attention is the step model's, nothing added.
    const auto one = long_context_layer_stage(env, in.model, 1, 8, {.cp = 1}, in.precision);
    CHECK_THAT(one.attention_core.value(), near(core.value()));
    CHECK(one.attention_core_delta.value() == 0.0);
    // cp = 4: a rank's s/4 queries against all s keys are a quarter of the whole core, at the
    // same cost per FLOP; the view (s/4)² core is a sixteenth of it.
    auto view = in;
    view.model.seq /= 4;
    const auto four =
        long_context_layer_stage(environment_of(view), in.model, 1, 8, {.cp = 4}, in.precision);
    CHECK_THAT(four.attention_core.value(), near(core.value() / 4.0));
    CHECK_THAT(four.attention_core_delta.value(), near(core.value() * (1.0 / 4.0 - 1.0 / 16.0)));
  }
}

TEST_CASE("The fused attention core grows as s^2 per sequence, as s at a fixed token count",
          "[long_context][attention]") {
  const auto gpu = bf16_device_for(gpu_preset_by_name("h100", "--gpu"));
  auto model = llama405b(32768);
  const auto at = [&](std::int64_t b, std::int64_t s) {
    model.seq = s;
    return layer_compute_time(model, b, 8, gpu, attention_kernel::fused)
        .attention_core_forward.value();
  };
  CHECK_THAT(at(1, 65536) / at(1, 32768), near(4.0));
  CHECK_THAT(at(1, 65536) / at(2, 32768), near(2.0));
  // ... at the attention kernel's η_attn of the peak on the causal half (compute_model.hpp).
  const double flops = 4.0 * 65536.0 * 65536.0 * 128.0 * 128.0 / 8.0;  // QKᵀ + PV, 16 heads/GPU
  CHECK_THAT(at(1, 65536), near(0.5 * flops / (gpu.efficiency.attention * gpu.peak.value())));
}

TEST_CASE(
    "HFU stays at or below 100% for every dense preset model up to 131,072 tokens on H100, B200",
    "[long_context][attention]") {
  for (const char* name : {"h100", "b200"}) {
    const auto& gpu = gpu_preset_by_name(name, "--gpu");
    for (const auto& preset : model_presets) {
      if (!is_dense_mha(preset.spec)) {
        continue;  // the step refuses what it does not cost (MoE, MLA, MTP)
      }
      for (const std::int64_t s : {4096, 32768, 131072}) {
        for (const auto mode : {recompute_mode::none, recompute_mode::full}) {
          auto model = preset.spec;
          model.seq = s;
          CAPTURE(name, preset.name, s, to_string(mode));
          const auto r = evaluate_step(one_gpu(model, gpu, mode));
          CHECK(r.hfu <= 1.0);
          CHECK(r.hfu > 0.2);
        }
      }
      auto model = preset.spec;
      model.seq = 131072;
      auto lc = one_gpu(model, gpu, recompute_mode::none);
      lc.par.cp = 8;
      lc.precision = precision_device_for(gpu, {}, "p");
      lc.par.global_batch = 1;
      CAPTURE(name, preset.name);
      CHECK(evaluate_step(lc).hfu <= 1.0);
    }
  }
}

TEST_CASE(
    "FP8 wire bytes: SP all-gathers carry the quantized input, --fp8-param-gather FP8 weights",
    "[long_context][precision]") {
  const auto& h100 = gpu_preset_by_name("h100", "--gpu");
  auto in = llama3_long_context(1, linear_precision::fp8_delayed);
  in.model.seq = 8192;
  in.par.dp = 128;
  in.par.global_batch = 1024;
  in.options.dp_overlap = 0.0;
  const auto with = [&](precision_options p) {
    in.precision = precision_device_for(h100, p, "p");
    return evaluate_step(in);
  };
  const auto bf16_gather =
      with({.linear = linear_precision::fp8_delayed, .quantized_tp_all_gather = false});  // TE 1.x
  const auto fp8 = with({.linear = linear_precision::fp8_delayed});
  const auto fp8_params = with({.linear = linear_precision::fp8_delayed, .fp8_param_gather = true});
  // SP: 2 all-gathers and 2 reduce-scatters forward, as many backward (plus 2 all-gathers with
  // full recomputation): the all-gathers at 1 byte of 2 take less, the reduce-scatters as much.
  CHECK(fp8.tp_comm_per_layer < bf16_gather.tp_comm_per_layer);
  CHECK(fp8.tp_comm_per_layer > 0.5 * bf16_gather.tp_comm_per_layer);
  // The distributed optimizer's parameter all-gather: the linear weights in 1 byte.
  CHECK(fp8_params.dp_sync < fp8.dp_sync);
  CHECK(fp8_params.tp_comm_per_layer == fp8.tp_comm_per_layer);
  // A BF16 recipe keeps 2 bytes everywhere: the plain step's.
  in.precision = precision_device_for(h100, {}, "p");
  CHECK_THAT(evaluate_step(in).tp_comm_per_layer.value(),
             near(detail::evaluate_view(in).tp_comm_per_layer.value()));
}

TEST_CASE("FP8 on an MoE model speeds its expert GEMMs, not its BF16 all-to-all",
          "[long_context]") {
  const auto& h100 = gpu_preset_by_name("h100", "--gpu");
  step_inputs in;
  in.model = model_preset_named("qwen3-30b-a3b", "model").spec;
  in.model.seq = 4096;
  in.par.dp = 32;
  in.par.ep = 8;
  in.par.micro_batch = 1;
  in.par.global_batch = 256;
  in.par.zero = zero_stage::optimizer;
  in.gpu = bf16_device_for(h100);
  in.memory_capacity = h100.memory.value;
  in.topology = make_topology(h100, interconnect_preset_by_name("ib-ndr", "--interconnect"));
  in.options.attention = attention_kernel::fused;
  in.precision = precision_device_for(h100, {.linear = linear_precision::bf16}, "precision");
  const auto bf16 = evaluate_step(in);
  in.precision =
      precision_device_for(h100, {.linear = linear_precision::fp8_blockwise}, "precision");
  const auto fp8 = evaluate_step(in);
  CHECK(fp8.long_context.linear_saving.value() > 0.0);
  CHECK(fp8.step_time < bf16.step_time);
  // The saving is the MoE layers' GEMMs (experts, router, attention); the dispatch stays BF16.
  CHECK(fp8.time.ep_comm.value() == bf16.time.ep_comm.value());
  CHECK(fp8.experts.dispatch.inter_node_bytes.value() ==
        bf16.experts.dispatch.inter_node_bytes.value());
  // TE's quantized weight copies (precision.hpp): the routed experts' over ep = 8, so less
  // than an eighth more than their unsharded copy's share, plus the attention's.
  const double added = (fp8.memory.peak().weights - bf16.memory.peak().weights).value();
  const auto& m = in.model;
  const double copy = weight_copy_bytes_per_param(in.precision.options, in.precision.support);
  const double routed = copy * static_cast<double>(moe_params_per_layer(m).routed * m.layers);
  CHECK(added > routed / 8.0);
  CHECK(added < routed / 4.0);
}

TEST_CASE(
    "Block recomputation with CP reruns the attention and the FP8 saving of its share of the "
    "layers only",
    "[long_context][recompute]") {
  // 126 layers on 16 stages: chunks of 7.875 layers, so block 2 reruns 2/7.875 of them.
  for (const auto p : {linear_precision::bf16, linear_precision::fp8_delayed}) {
    INFO(to_string(p));
    auto full = llama3_long_context(4, p);
    auto none = full;
    none.par.recompute = recompute_mode::none;
    auto block = full;
    block.options.recompute.method = recompute_method::block;
    block.options.recompute.num_layers = 2;
    const double share = 2.0 / (126.0 / 16.0);
    REQUIRE_THAT(block_recompute_share(block.model, block.par, block.options.recompute),
                 near(share, 1e-12));
    const auto f = evaluate_step(full).long_context;
    const auto n = evaluate_step(none).long_context;
    const auto b = evaluate_step(block).long_context;
    CHECK(f.attention_extra.value() > n.attention_extra.value());
    CHECK_THAT(
        b.attention_extra.value(),
        near(share * f.attention_extra.value() + (1.0 - share) * n.attention_extra.value(), 1e-12));
    CHECK_THAT(
        b.linear_saving.value(),
        near(share * f.linear_saving.value() + (1.0 - share) * n.linear_saving.value(), 1e-12));
    CHECK_THAT(b.cp_exposed.value(), near(f.cp_exposed.value(), 1e-12));
  }
}
