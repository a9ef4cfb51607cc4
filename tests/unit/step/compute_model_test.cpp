// The kernel-level compute model: matmul roofline and per-layer kernel times.
#include "tpcost/step/compute_model.hpp"

#include <catch2/catch.hpp>

#include "support/matchers.hpp"
#include "tpcost/model/model_presets.hpp"
#include "tpcost/step/moe_layer.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
constexpr compute_device a100{.peak = flops_per_second(312e12),
                              .memory_bandwidth = bytes_per_second(2039e9),
                              .efficiency = {.matmul = 0.75, .memory = 0.66}};

/// One layer of Llama 3 70B (GQA, SwiGLU) at 8,192 tokens.
transformer_spec llama_70b_layer() {
  transformer_spec llama{};
  llama.layers = 1;
  llama.hidden = 8192;
  llama.heads = 64;
  llama.kv_heads = 8;
  llama.ffn = 28672;
  llama.vocab = 128256;
  llama.seq = 8192;
  return with_architecture(llama, architecture::llama);
}

// A GPU whose matmuls take no time and whose HBM moves 1 B/s: a time counts bytes.
constexpr compute_device bytes_counter{
    .peak = flops_per_second(1e30),
    .memory_bandwidth = bytes_per_second(1.0),
    .efficiency = {.matmul = 1.0, .memory = 1.0, .attention = 1.0}};
}  // namespace

TEST_CASE("A large square matmul is compute-bound at eta_mm x peak", "[compute_model]") {
  // 8192^3: 2*8192^3 = 1.0995e12 FLOP at 0.75*312e12 = 4.699 ms; its 3*8192^2*2 B = 403 MB
  // at 0.66*2039e9 take 0.30 ms, so the FLOPs win.
  const double n = 8192;
  CHECK_THAT(matmul_time(n, n, n, 1, 2, a100).value(), near(2 * n * n * n / (0.75 * 312e12)));
}

TEST_CASE("A skinny matmul is memory-bound at eta_bw x HBM bandwidth", "[compute_model]") {
  // Attention scores with head dimension 64: (2048 x 2048) = (2048 x 64)(64 x 2048): 2*2048^2*64
  // = 0.537 GFLOP (2.3 us at 0.75 peak) but (2*2048*64 + 2048^2)*2 B = 8.9 MB (6.6 us).
  const double bytes_moved = (2 * 2048.0 * 64 + 2048.0 * 2048) * 2;
  CHECK_THAT(matmul_time(2048, 2048, 64, 1, 2, a100).value(), near(bytes_moved / (0.66 * 2039e9)));
  // batch multiplies both sides
  CHECK_THAT(matmul_time(2048, 2048, 64, 32, 2, a100).value(),
             near(32 * bytes_moved / (0.66 * 2039e9)));
}

TEST_CASE(
    "Layer kernel time: matmul FLOPs match 72*b*s*h^2 (+ attention) and recompute modes "
    "add what they redo",
    "[compute_model]") {
  transformer_spec gpt{};
  gpt.layers = 1;
  gpt.hidden = 4096;
  gpt.heads = 32;
  gpt.vocab = 51200;
  gpt.seq = 2048;
  gpt = with_architecture(gpt, architecture::gpt);
  // An infinitely fast memory isolates the matmul FLOPs: the layer's forward + backward is
  // 72*b*s*h^2 + 12*b*s^2*h (attention) FLOP, split over t = 4.
  compute_device flops_only = a100;
  flops_only.memory_bandwidth = bytes_per_second(1e30);
  const auto k = layer_compute_time(gpt, 2, 4, flops_only);
  const double b = 2, s = 2048, h = 4096;
  const double expected_flops = (72 * b * s * h * h + 12 * b * s * s * h) / 4;
  CHECK_THAT(k.total(recompute_mode::none).value(), near(expected_flops / (0.75 * 312e12), 1e-6));
  // Full recompute adds one forward pass (24*b*s*h^2 + 4*b*s^2*h); selective only the attention
  // core (4*b*s^2*h).
  CHECK_THAT((k.total(recompute_mode::full) - k.total(recompute_mode::none)).value(),
             near((24 * b * s * h * h + 4 * b * s * s * h) / 4 / (0.75 * 312e12), 1e-6));
  CHECK_THAT((k.total(recompute_mode::selective) - k.total(recompute_mode::none)).value(),
             near(4 * b * s * s * h / 4 / (0.75 * 312e12), 1e-6));
}

TEST_CASE("The optimizer step moves 54 bytes per parameter through HBM", "[compute_model]") {
  CHECK_THAT(optimizer_time(1e9, a100).value(), near(54e9 / (0.66 * 2039e9)));
}

TEST_CASE(
    "A fused attention kernel keeps the s x s scores out of HBM: its attention core runs "
    "at eta_attn",
    "[compute_model]") {
  const auto llama = llama_70b_layer();
  const auto unfused = layer_compute_time(llama, 1, 8, a100, attention_kernel::unfused);
  const auto fused = layer_compute_time(llama, 1, 8, a100, attention_kernel::fused);
  // QK^T and PV: 2 x 2*s*s*hn FLOP per head, 8 heads per GPU, at eta_attn x peak (0.50, the
  // default); the causal mask lets the kernel skip half of them.
  const double s = 8192, hn = 128, heads = 8;
  const double forward = 0.5 * 2 * 2 * s * s * hn * heads / (0.50 * 312e12);
  CHECK_THAT(fused.attention_core_forward.value(), near(forward, 1e-9));
  // The backward recomputes QK^T: 2.5 x the forward. Everything else in the backward grows
  // linearly with s (the projections are FLOP-bound here), the attention core with s^2, so
  // B(2s) - 2 B(s) = 2 x (attention backward at s).
  auto doubled = llama;
  doubled.seq = 2 * llama.seq;
  const auto fused2 = layer_compute_time(doubled, 1, 8, a100, attention_kernel::fused);
  CHECK_THAT(((fused2.backward - 2.0 * fused.backward) / 2.0).value(), near(2.5 * forward, 1e-6));
  CHECK(fused.attention_core_forward < unfused.attention_core_forward);
  CHECK(fused.backward < unfused.backward);
  CHECK(fused.other_forward == unfused.other_forward);
}

TEST_CASE("Per-op checkpointing reruns wk, wo, w3 and the element-wise forward, not attention",
          "[compute_model]") {
  const auto llama = llama_70b_layer();
  const double t = 8;
  const auto k = layer_compute_time(llama, 1, 8, a100, attention_kernel::fused);
  const double tokens = 8192, h = 8192, kv = 1024, f = 28672;
  // The three recomputed matmuls, each at its TP-split shape (large: compute-bound at eta_mm).
  const seconds mms = matmul_time(tokens, kv / t, h, 1, 2, a100) +
                      matmul_time(tokens, h, h / t, 1, 2, a100) +
                      matmul_time(tokens, f / t, h, 1, 2, a100);
  const seconds elementwise = k.per_op_recompute - mms;
  CHECK(elementwise.value() > 0.0);
  // The element-wise part is what the forward's memory-bound kernels cost: other_forward less
  // the projection matmuls; the attention core is not rerun.
  CHECK(k.per_op_recompute < k.other_forward);
  CHECK(k.total(recompute_mode::selective, selective_policy::per_op).value() ==
        (k.forward() + k.backward + k.per_op_recompute).value());
  CHECK(k.total(recompute_mode::selective).value() ==
        (k.forward() + k.backward + k.attention_core_forward).value());
  CHECK(fused_attention_passes(recompute_mode::selective, selective_policy::per_op) == 3.5);
  CHECK(fused_attention_passes(recompute_mode::selective) == 4.5);
  // Megatron-Core's recompute_modules without core_attn leave the attention core saved: the
  // long-context stage (long_context.hpp) reruns none of it, as the view's layer does not.
  const auto no_core = static_cast<unsigned>(recompute_module::layernorm) |
                       static_cast<unsigned>(recompute_module::moe);
  CHECK(fused_attention_passes(recompute_mode::selective, selective_policy::attention_core,
                               no_core) == 3.5);
  CHECK(fused_attention_passes(recompute_mode::full, selective_policy::attention_core, no_core) ==
        4.5);
}

TEST_CASE("Megatron's recompute_modules rerun their modules' forward kernels", "[compute]") {
  // A GPU whose element-wise kernels take no time and whose matmuls run at 1 PFLOP/s: a time
  // times the peak counts FLOPs. Llama 3 70B's MLP on one of t = 8 GPUs, T = 8192 tokens:
  // gate and up 2*T*h*2f/t, down 2*T*f/t*h, i.e. 6*T*h*f/t FLOPs.
  const compute_device counter{.peak = flops_per_second(1e15),
                               .memory_bandwidth = bytes_per_second(1e30),
                               .efficiency = {.matmul = 1.0, .memory = 1.0, .attention = 1.0}};
  const auto k = layer_compute_time(llama_70b_layer(), 1, 8, counter, attention_kernel::fused);
  const double mlp_flops = 6.0 * 8192.0 * 8192.0 * 28672.0 / 8.0;
  CHECK_THAT(k.mlp_forward.value() * 1e15, Catch::Matchers::WithinRel(mlp_flops, 1e-12));
  CHECK_FALSE(k.moe);
  const auto bit = [](recompute_module m) { return static_cast<unsigned>(m); };
  const unsigned core = bit(recompute_module::core_attn);
  const auto selective = recompute_mode::selective;
  const auto policy = selective_policy::attention_core;
  // The default is the attention core's forward, as before.
  CHECK(k.total(selective, policy).value() == k.total(selective, policy, core).value());
  CHECK_THAT((k.total(selective, policy, core | bit(recompute_module::mlp)) -
              k.total(selective, policy, core))
                 .value(),
             Catch::Matchers::WithinRel(k.mlp_forward.value(), 1e-12));
  // Nothing recomputed: the step without recomputation; moe_act and moe do not apply to a
  // dense layer.
  CHECK(k.total(selective, policy, 0).value() == k.total(recompute_mode::none).value());
  CHECK(k.total(selective, policy, bit(recompute_module::moe_act) | bit(recompute_module::moe))
            .value() == k.total(recompute_mode::none).value());

  // An MoE layer: mlp does not apply; shared_experts reruns the TP-split part, moe the routed
  // experts too, moe_act only the experts' activation.
  layer_compute m{};
  m.attention_core_forward = seconds(1.0);
  m.mlp_forward = seconds(2.0);
  m.experts_forward = seconds(4.0);
  m.experts_activation = seconds(0.5);
  m.moe = true;
  CHECK(m.selective_recompute(core | bit(recompute_module::mlp)).value() == 1.0);
  CHECK(m.selective_recompute(bit(recompute_module::shared_experts)).value() == 2.0);
  CHECK(
      m.selective_recompute(bit(recompute_module::moe) | bit(recompute_module::moe_act)).value() ==
      6.0);
  CHECK(m.selective_recompute(bit(recompute_module::moe_act)).value() == 0.5);
  m.norms_forward = seconds(0.25);
  CHECK(m.selective_recompute(bit(recompute_module::layernorm)).value() == 0.25);
}

TEST_CASE("layernorm reruns the norms that are modules of their own, as it frees their output",
          "[compute]") {
  // The TE spec fuses a dense GPT layer's norms into linear_qkv and linear_fc1: nothing to rerun.
  const auto dense =
      layer_compute_time(llama_70b_layer(), 1, 8, bytes_counter, attention_kernel::fused);
  CHECK(dense.norms_forward.value() == 0.0);
  // An MLA MoE layer (DeepSeek-V3) has both as modules: the input norm (TENorm before the down
  // projections) and the pre-MLP norm before the router: 4 bytes per element each, T*h elements.
  const auto v3 = model_preset_named("deepseek-v3", "model").spec;
  const auto k = moe_layer_compute(v3, 1, 8, 8, 1, expert_tokens_of(v3, 1, v3.seq, 8, 8, 1, {}),
                                   bytes_counter, attention_kernel::fused, {});
  CHECK_THAT(k.norms_forward.value(),
             Catch::Matchers::WithinRel(
                 2.0 * 4.0 * static_cast<double>(v3.seq) * static_cast<double>(v3.hidden), 1e-12));
}

TEST_CASE("sequence parallelism runs the norms, dropout and residual adds on s/t tokens",
          "[compute]") {
  // On bytes_counter, Llama 3 70B's layer at T = 8192 tokens on one of t = 8 GPUs. The kernels SP
  // splits (Korthikanti et al. 2022 §4.2.2): 2 norms (8X) and 2 bias-dropout-adds (14X) forward,
  // 26X + 20X backward, X = T·h elements; everything else is already split by t and does not
  // change.
  const double x = 8192.0 * 8192.0;
  const auto layer = llama_70b_layer();
  const auto plain = layer_compute_time(layer, 1, 8, bytes_counter, attention_kernel::fused);
  const auto sp = layer_compute_time(layer, 1, 8, bytes_counter, attention_kernel::fused, true);
  const double kept = 1.0 / 8.0;
  CHECK_THAT((plain.other_forward - sp.other_forward).value(),
             Catch::Matchers::WithinRel(22.0 * x * (1.0 - kept), 1e-12));
  CHECK_THAT((plain.backward - sp.backward).value(),
             Catch::Matchers::WithinRel(46.0 * x * (1.0 - kept), 1e-12));
  CHECK(sp.attention_core_forward.value() == plain.attention_core_forward.value());
  CHECK(sp.mlp_forward.value() == plain.mlp_forward.value());
  CHECK(sp.grad_accumulation.value() == plain.grad_accumulation.value());
  // At t = 1 there is nothing to split.
  CHECK(layer_compute_time(layer, 1, 1, bytes_counter, attention_kernel::fused, true)
            .forward()
            .value() ==
        layer_compute_time(layer, 1, 1, bytes_counter, attention_kernel::fused).forward().value());
  // An MoE layer's norm modules (DeepSeek-V3: the input norm under MLA, the pre-MLP norm) too.
  const auto v3 = model_preset_named("deepseek-v3", "model").spec;
  const auto tokens = expert_tokens_of(v3, 1, v3.seq, 8, 8, 1, {});
  const auto moe =
      moe_layer_compute(v3, 1, 8, 8, 1, tokens, bytes_counter, attention_kernel::fused, {}, false);
  const auto moe_sp =
      moe_layer_compute(v3, 1, 8, 8, 1, tokens, bytes_counter, attention_kernel::fused, {}, true);
  CHECK_THAT(moe_sp.norms_forward.value(),
             Catch::Matchers::WithinRel(moe.norms_forward.value() / 8.0, 1e-12));
}
