// Multi-head Latent Attention and multi-token prediction in the step (compute_model.hpp
// mla_down_projection_time, stages.hpp, memory.hpp): the step's MLA matmuls add up to
// flops.hpp's MLA FLOPs, the duplicated down projections, TP's head split, CP's refusal, and an
// MTP model's step as the same model without MTP plus the MTP terms on the last stage.
#include <catch2/catch.hpp>

#include "tpcost/model/model_presets.hpp"
#include "tpcost/step/context_parallel.hpp"
#include "tpcost/step/step.hpp"

using namespace tpcost;

namespace {

/// DeepSeek-V3's attention and dense MLP on 4 layers of 1024 tokens, without experts or MTP.
transformer_spec small_mla() {
  auto spec = model_preset_named("deepseek-v3", "model").spec;
  spec.layers = 4;
  spec.seq = 1024;
  spec.moe = {};
  spec.mtp_layers = 0;
  return spec;
}

/// A GPU whose element-wise kernels take no time and whose matmuls run at their FLOP rate, so
/// that forward time × peak counts the matmul FLOPs.
compute_device flop_counter() {
  return {.peak = flops_per_second(1e15),
          .memory_bandwidth = bytes_per_second(1e30),
          .efficiency = {.matmul = 1.0, .memory = 1.0, .attention = 1.0}};
}

/// Forward matmul FLOPs of one dense MLA layer over all `tp` ranks, as the step computes them.
double step_forward_flops(const transformer_spec& spec, std::int64_t tp, bool sp) {
  const auto gpu = flop_counter();
  const auto layer = layer_compute_time(spec, 1, tp, gpu, attention_kernel::unfused);
  const auto down = mla_down_projection_time(spec, 1, sp ? static_cast<double>(tp) : 1.0, gpu);
  return static_cast<double>(tp) * (layer.forward() + down.forward()).value() * gpu.peak.value();
}

}  // namespace

TEST_CASE("the step's MLA matmuls add up to flops.hpp's MLA FLOPs", "[mla]") {
  const auto spec = small_mla();
  const double tokens = static_cast<double>(spec.seq);
  const double expected =
      tokens * (detail::projection_flops_per_layer(spec) +
                detail::core_attention_flops_per_layer(spec, static_cast<double>(spec.seq)) +
                detail::mlp_flops_per_layer(spec, false));
  CHECK(step_forward_flops(spec, 1, false) == Approx(expected).epsilon(1e-9));
  // Under SP each of t ranks projects its own s/t tokens down: the same FLOPs in all.
  CHECK(step_forward_flops(spec, 8, true) == Approx(expected).epsilon(1e-9));
  // Without SP every rank projects all s tokens down (TELinear "duplicated"): t − 1 extra
  // copies of 2·h·(q_lora + kv_lora + rope) per token.
  const double down =
      2.0 * static_cast<double>(spec.hidden) *
      static_cast<double>(spec.mla.q_lora_rank + spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim);
  CHECK(step_forward_flops(spec, 8, false) == Approx(expected + 7.0 * tokens * down).epsilon(1e-9));
}

TEST_CASE("MLA in the step: TP splits the heads, CP runs, weights split as Megatron does",
          "[mla]") {
  const auto spec = small_mla();
  parallel_config par{.tp = 3, .pp = 1, .dp = 1, .micro_batch = 1, .global_batch = 1};
  CHECK_THROWS_WITH(validate(spec, par), Catch::Contains("does not divide the 128"));
  par.tp = 8;
  CHECK_NOTHROW(validate(spec, par));
  // TE v2.16 on runs MLA under every CP type (context_parallel.hpp, attention_widths_of).
  CHECK_NOTHROW(validate(context_parallel{.cp = 2}, spec, 1, 8, "cp"));
  // Up and output projections over t, down projections and latent norms on every rank; all
  // of them on one rank at t = 1.
  const double whole = attention_params_per_tp_rank(spec, 1);
  CHECK(whole == static_cast<double>(attention_params_per_layer(spec) + 2 * norm_params(spec)));
  const double split = static_cast<double>(mla_tp_split_params(spec.mla, spec.hidden, spec.heads));
  CHECK(attention_params_per_tp_rank(spec, 8) == Approx(whole - split * 7.0 / 8.0));
  // The SP all-gathers of the attention input carry q_lora + kv_lora + rope, not h.
  step_inputs in;
  in.model = spec;
  in.par = {.tp = 8, .pp = 1, .dp = 1, .micro_batch = 1, .global_batch = 1};
  in.par.sequence_parallel = true;
  in.gpu = {flops_per_second(989.4e12), bytes_per_second(3.35e12), {0.73, 0.66}};
  in.memory_capacity = 80.0 * units::GiB;
  in.topology = {8, {bytes_per_second(200e9), seconds(3.4e-6)}, {}};
  in.options.attention = attention_kernel::fused;
  const auto mla = evaluate_step(in);
  auto dense = in;
  dense.model.mla = {};
  dense.model.head_dim = 128;
  const auto mha = evaluate_step(dense);
  // 4 gathers/scatters become 3 + 3 on the input side: 2 more of each per layer; and MHA's QKV
  // gathers its saved input again in the backward, which MLA's gathered latents do not: 1 fewer.
  CHECK(mla.tp_collectives_per_layer == mha.tp_collectives_per_layer + 3.0);
  CHECK(mla.tp_comm_per_layer < mha.tp_comm_per_layer);
  CHECK(mla.time.dp_comm.value() > 0.0);  // the duplicated weights' gradients, TP all-reduced
}

TEST_CASE("an MTP model's step is the model without MTP plus the MTP terms on the last stage",
          "[mtp]") {
  auto base = with_architecture({.layers = 8,
                                 .hidden = 2048,
                                 .heads = 16,
                                 .kv_heads = 4,
                                 .ffn = 5632,
                                 .vocab = 32000,
                                 .seq = 2048},
                                architecture::llama);
  auto with_mtp = base;
  with_mtp.mtp_layers = 1;
  step_inputs in;
  in.par = {.tp = 1, .pp = 2, .dp = 1, .micro_batch = 1, .global_batch = 8};
  in.gpu = {flops_per_second(989.4e12), bytes_per_second(3.35e12), {0.73, 0.66}};
  in.memory_capacity = 80.0 * units::GiB;
  in.topology = {8, {bytes_per_second(200e9), seconds(3.4e-6)}, {}};
  in.options.attention = attention_kernel::fused;
  const auto stages = [&](const transformer_spec& model) {
    in.model = model;
    const auto env = environment_of(in);
    const auto pipe = summarize_pipeline(model, in.par, 2, false);
    const auto x = group_stage(env, {.tp = 1, .pp = 2, .dp = 1}, pipe.split);
    const auto y = batch_stage(env, x, 1, 8);
    return std::pair{x, y};
  };
  const auto [x0, y0] = stages(base);
  const auto [x1, y1] = stages(with_mtp);
  CHECK(x1.last_layers == x0.last_layers + 1);
  // The last stage holds one more layer, eh_proj 2h → h, three norms and the embedding copy.
  const double h = static_cast<double>(base.hidden);
  CHECK(x1.params_last - x0.params_last ==
        Approx(layer_params_per_tp_rank(base, 1) + 3.0 * h + 2.0 * h * h +
               static_cast<double>(base.vocab) * h));
  CHECK(x1.params_first == x0.params_first);
  CHECK(x1.embedding.value() > 0.0);  // untied, yet the MTP copy is all-reduced with stage 0
  CHECK(x0.embedding.value() == 0.0);
  // The last stage is the slowest in both; it computes one more layer, one more output layer
  // and loss, and the projection, for each of the m = 8 micro-batches.
  const layout_choice c{};
  in.model = base;
  const auto r0 = combine_step(environment_of(in), x0, y0, c);
  in.model = with_mtp;
  const auto r1 = combine_step(environment_of(in), x1, y1, c);
  const seconds layer = y0.kernels[0].total(c.recompute) + y0.kernels[0].grad_accumulation;
  CHECK(y1.logits.value() == y0.logits.value());
  CHECK((r1.compute - r0.compute).value() ==
        Approx(8.0 * (layer + y1.logits + y1.mtp_projection).value()));
  CHECK(y1.mtp_projection.value() > 0.0);
  // Its memory: the extra layer's activations and the second output layer's logits.
  in.model = base;
  const auto m0 = evaluate_step(in).memory;
  in.model = with_mtp;
  const auto m1 = evaluate_step(in).memory;
  CHECK(m1.stages.back().layers == m0.stages.back().layers + 1);
  CHECK(m1.stages.back().activations > m0.stages.back().activations);
  CHECK(m1.stages.front().total().value() == m0.stages.front().total().value());
}
