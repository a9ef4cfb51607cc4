// FLOPs per token and per step: hand counts, the reduction to Narayanan et al. eq. (3), the
// recomputation terms, and MFU <= HFU.
#include "tpcost/model/flops.hpp"

#include "tpcost/model/model_presets.hpp"

#include <catch2/catch.hpp>
#include <random>

#include "support/matchers.hpp"
#include "support/models.hpp"

using namespace tpcost;
using tpcost::test::gpt_spec;
using tpcost::test::near;

namespace {
constexpr auto none = recompute_mode::none;
constexpr auto selective = recompute_mode::selective;
constexpr auto full = recompute_mode::full;
}  // namespace

TEST_CASE("A tiny GPT's FLOPs per token and per step, counted by hand", "[flops]") {
  // L=2, h=8, a=2, V=10, s=4, ffn=32; forward FLOPs of one token (2 per multiply-add):
  //   Q, K, V, output: 2*(8*8 + 8*8 + 8*8 + 8*8) = 512 per layer       -> 1024
  //   scores: q.k over 4 keys, 2 heads of dim 4: 2*4*8 = 64; attention over V: 64
  //          = 128 per layer                                          -> 256
  //   MLP: 2*8*32 + 2*32*8 = 1024 per layer                            -> 2048
  //   logits: 2*8*10                                                   -> 160
  //   forward = 3488; forward + backward = 3*3488 = 10464
  // Recomputation runs again: selective the scores, 256; full every layer, 1024+256+2048 = 3328.
  // A step of G=3 sequences is 12 tokens: 125,568 model FLOPs.
  const auto spec = gpt_spec(2, 8, 2, 10, 4);
  const auto fwd = forward_flops_per_token(spec, 4);
  CHECK(fwd.projections.value() == 1024.0);
  CHECK(fwd.attention.value() == 256.0);
  CHECK(fwd.mlp.value() == 2048.0);
  CHECK(fwd.logits.value() == 160.0);
  CHECK(fwd.total().value() == 3488.0);
  CHECK(model_flops_per_token(spec, 4).value() == 10464.0);
  CHECK(hardware_flops_per_token(spec, 4, none).value() == 10464.0);
  CHECK(hardware_flops_per_token(spec, 4, selective).value() == 10464.0 + 256.0);
  CHECK(hardware_flops_per_token(spec, 4, full).value() == 10464.0 + 3328.0);
  const auto step = flops_per_step(spec, 3, 4, full);
  CHECK(step.model.value() == 12.0 * 10464.0);
  CHECK(step.hardware.value() == 12.0 * 13792.0);
  // ... and eq. (3) without recomputation: 72*3*4*2*64*(1 + 4/48 + 10/192) = 125,568.
  CHECK_THAT(narayanan_step_flops(spec, 3, 4, false).value(), near(125568.0, 1e-14));
}

TEST_CASE("GQA and SwiGLU FLOPs per token, counted by hand", "[flops]") {
  // L=1, h=8, a=4, kv=2 (kv_dim 4), ffn=12 gated, V=16, s=6:
  //   projections 2*(8*8 + 2*8*4 + 8*8) = 384; scores 4*6*8 = 192 (GQA does not change them:
  //   every query head still scores every key); MLP 2*3*8*12 = 576; logits 2*8*16 = 256.
  const auto spec = with_architecture(
      {.layers = 1, .hidden = 8, .heads = 4, .kv_heads = 2, .ffn = 12, .vocab = 16, .seq = 6},
      architecture::llama);
  const auto fwd = forward_flops_per_token(spec, 6);
  CHECK(fwd.projections.value() == 384.0);
  CHECK(fwd.attention.value() == 192.0);
  CHECK(fwd.mlp.value() == 576.0);
  CHECK(fwd.logits.value() == 256.0);
  CHECK(model_flops_per_token(spec, 6).value() == 3.0 * 1408.0);
}

TEST_CASE(
    "For GPT the general count is exactly Narayanan et al. eq. (3), with and without "
    "recomputation",
    "[flops]") {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::int64_t> small(1, 128);
  for (int i = 0; i < 5000; ++i) {
    const auto a = small(rng);
    const auto h = a * small(rng) * 8;
    const auto L = small(rng);
    const auto V = small(rng) * 1000;
    const auto s = small(rng) * 64;
    const auto G = small(rng);
    const auto spec = gpt_spec(L, h, a, V, s);
    CAPTURE(L, h, a, V, s, G);
    const auto general_full = flops_per_step(spec, G, s, full);
    const auto general_none = flops_per_step(spec, G, s, none);
    CHECK_THAT(general_full.hardware.value(),
               near(narayanan_step_flops(spec, G, s, true).value(), 1e-12));
    CHECK_THAT(general_none.hardware.value(),
               near(narayanan_step_flops(spec, G, s, false).value(), 1e-12));
    CHECK_THAT(general_full.model.value(),
               near(narayanan_step_flops(spec, G, s, false).value(), 1e-12));
  }
}

TEST_CASE(
    "Selective recomputation adds one forward pass of the scores: 72BsLh^2(1 + 2s/(9h) + "
    "V/(12Lh))",
    "[flops]") {
  // 12BLs^2h (model) + 4BLs^2h (recomputed QK^T and attention over V) = 16BLs^2h
  // = 72BsLh^2 * 2s/(9h). Korthikanti et al. 2022 print s/(3h) in their eq. (8); see
  // docs/flops.md for why the matmul count gives 2s/(9h).
  const auto spec = gpt_spec(96, 12288, 96, 51200, 2048);
  const double B = 1536, s = 2048, L = 96, h = 12288, V = 51200;
  const double expected = 72 * B * s * L * h * h * (1 + 2 * s / (9 * h) + V / (12 * L * h));
  CHECK_THAT(flops_per_step(spec, 1536, 2048, selective).hardware.value(), near(expected, 1e-12));
}

TEST_CASE("MFU <= HFU, with equality only without recomputation", "[flops]") {
  const auto spec = with_architecture({.layers = 32,
                                       .hidden = 4096,
                                       .heads = 32,
                                       .kv_heads = 8,
                                       .ffn = 14336,
                                       .vocab = 128256,
                                       .seq = 8192},
                                      architecture::llama);
  const seconds step{12.5};
  const flops_per_second peak{989e12};
  for (const auto mode : {none, selective, full}) {
    const auto f = flops_per_step(spec, 512, 8192, mode);
    const double mfu = model_flops_utilisation(f.model, step, 512, peak);
    const double hfu = hardware_flops_utilisation(f.hardware, step, 512, peak);
    CAPTURE(to_string(mode), mfu, hfu);
    CHECK(mfu <= hfu);
    CHECK((mode == none) == (mfu == hfu));
  }
}

TEST_CASE("MFU divides model FLOPs by time, GPUs and peak", "[flops]") {
  // 1e17 FLOP in 10 s on 100 GPUs of 1 PFLOP/s: 1e17 / (10 * 100 * 1e15) = 0.1.
  CHECK_THAT(model_flops_utilisation(flops(1e17), seconds(10.0), 100, flops_per_second(1e15)),
             near(0.1));
  CHECK_THAT(hardware_flops_utilisation(flops(3e17), seconds(10.0), 100, flops_per_second(1e15)),
             near(0.3));
}

TEST_CASE("The attention term grows with s, GQA changes only the K and V projections", "[flops]") {
  auto spec = with_architecture(
      {.layers = 4, .hidden = 1024, .heads = 16, .ffn = 4096, .vocab = 1000, .seq = 2048},
      architecture::llama);
  const auto mha = forward_flops_per_token(spec, 2048);
  CHECK(forward_flops_per_token(spec, 4096).attention.value() == 2.0 * mha.attention.value());
  spec.kv_heads = 4;  // kv_dim 256: K and V cost 2*2*1024*256 instead of 2*2*1024*1024
  const auto gqa = forward_flops_per_token(spec, 2048);
  CHECK(mha.projections.value() - gqa.projections.value() == 4.0 * 4 * 1024 * (1024 - 256));
  CHECK(gqa.attention.value() == mha.attention.value());
  CHECK(gqa.mlp.value() == mha.mlp.value());
}

TEST_CASE("The 6N rule sits close to the matmul count for a large model at short sequences",
          "[flops]") {
  // GPT-3 175B at s=2048: 6N counts the tied embedding once, which is what the logits cost;
  // what 6N misses is the attention-score term, s/(6h) = 2.8% here.
  const auto spec = gpt_spec(96, 12288, 96, 50257, 2048);
  const auto f = summarize_flops(spec, 2048);
  CHECK(f.model.value() / f.six_n.value() == Approx(1.0).margin(0.04));
  CHECK(f.hardware[0].value() == f.model.value());
  CHECK(f.hardware[2].value() > f.hardware[1].value());
}

TEST_CASE("TP collectives per layer: none 4, selective 4, full 6, SP splits each in two",
          "[flops][parallelism]") {
  CHECK(tp_collectives_per_layer(none, false).all_reduce == 4);
  CHECK(tp_collectives_per_layer(selective, false).all_reduce == 4);
  CHECK(tp_collectives_per_layer(full, false).all_reduce == 6);
  const auto sp = tp_collectives_per_layer(full, true);
  CHECK(sp.all_reduce == 0);
  CHECK(sp.all_gather == 6);
  CHECK(sp.reduce_scatter == 6);
  for (const auto mode : {none, selective, full}) {
    CHECK(tp_collectives_per_layer(mode, true).all_reduce_equivalents() ==
          tp_collectives_per_layer(mode, false).all_reduce_equivalents());
  }
}

TEST_CASE("The megatron FLOP convention halves the dense attention core, nothing else", "[flops]") {
  // Llama-3 8B at 8k: GQA and SwiGLU, no router, so the two counts differ by half of the
  // attention core's forward + backward (published_flops.hpp).
  const auto spec = model_preset_named("llama-3-8b", "test").spec;
  const std::int64_t seq = 8192;
  const auto full_count =
      flops_per_step(spec, 16, seq, recompute_mode::none, flops_convention::full);
  const auto meg_count =
      flops_per_step(spec, 16, seq, recompute_mode::none, flops_convention::megatron);
  const double tokens = 16.0 * static_cast<double>(seq);
  const auto attention = forward_flops_per_token(spec, seq).attention;
  CHECK_THAT((full_count.model - meg_count.model).value(),
             Catch::Matchers::WithinRel(tokens * 1.5 * attention.value(), 1e-9));
  CHECK(meg_count.model < full_count.model);
  // The default is the full count; recomputation adds the same work under both.
  CHECK(flops_per_step(spec, 16, seq, recompute_mode::none).model.value() ==
        full_count.model.value());
  const auto full_r = flops_per_step(spec, 16, seq, recompute_mode::full, flops_convention::full);
  const auto meg_r =
      flops_per_step(spec, 16, seq, recompute_mode::full, flops_convention::megatron);
  CHECK_THAT((full_r.hardware - full_r.model).value(),
             Catch::Matchers::WithinRel((meg_r.hardware - meg_r.model).value(), 1e-12));
}

TEST_CASE(
    "parse_flops_convention reads the two names to_string writes and names the flag otherwise",
    "[flops]") {
  for (const auto c : {flops_convention::full, flops_convention::megatron}) {
    CHECK(parse_flops_convention(to_string(c), "--mfu-flops") == c);
  }
  try {
    (void)parse_flops_convention("palm", "--mfu-flops");
    FAIL("'palm' was accepted");
  } catch (const invalid_spec& e) {
    CHECK(e.field() == "--mfu-flops");
    CHECK(std::string(e.detail()) == "'palm' is not one of full|megatron");
  }
}

TEST_CASE("HFU counts the forward work each recompute module reruns", "[flops][recompute]") {
  const auto bit = [](recompute_module m) { return static_cast<unsigned>(m); };
  const std::int64_t s = 8192;
  SECTION("a dense model: core_attn is the attention term, mlp adds every layer's MLP") {
    const auto spec = model_preset_named("llama-3-8b", "test").spec;
    const auto fwd = forward_flops_per_token(spec, s);
    CHECK(recomputed_module_flops_per_token(spec, s, bit(recompute_module::core_attn)).value() ==
          recompute_flops_per_token(spec, s, recompute_mode::selective).value());
    const unsigned attn_mlp = bit(recompute_module::core_attn) | bit(recompute_module::mlp);
    CHECK_THAT(recomputed_module_flops_per_token(spec, s, attn_mlp).value(),
               near((fwd.attention + fwd.mlp).value()));
    // Element-wise modules rerun no matmul, and MoE modules find no MoE layer.
    for (const auto m :
         {recompute_module::layernorm, recompute_module::moe_act, recompute_module::moe,
          recompute_module::shared_experts, recompute_module::mla_up_proj}) {
      CHECK(recomputed_module_flops_per_token(spec, s, bit(m)).value() == 0.0);
    }
    // In a step: hardware − model = G·s·(attention + MLP) per token; model FLOPs unchanged.
    const auto plain = flops_per_step(spec, 64, s, recompute_mode::selective);
    const auto both = flops_per_step(spec, 64, s, recompute_mode::selective, flops_convention::full,
                                     selective_policy::attention_core, attn_mlp);
    CHECK(both.model.value() == plain.model.value());
    CHECK_THAT((both.hardware - both.model).value(),
               near(64.0 * 8192.0 * (fwd.attention + fwd.mlp).value()));
    // The modules apply under selective recomputation only.
    CHECK(flops_per_step(spec, 64, s, recompute_mode::none, flops_convention::full,
                         selective_policy::attention_core, attn_mlp)
              .hardware.value() == plain.model.value());
  }
  SECTION("an all-MoE model: moe reruns the whole block, router included") {
    const auto spec = model_preset_named("qwen3-30b-a3b", "test").spec;
    const auto fwd = forward_flops_per_token(spec, s);
    CHECK_THAT(recomputed_module_flops_per_token(spec, s, bit(recompute_module::moe)).value(),
               near(fwd.mlp.value()));
    CHECK(recomputed_module_flops_per_token(spec, s, bit(recompute_module::mlp)).value() == 0.0);
  }
  SECTION("MLA's up projections, DeepSeek-V3 by hand") {
    // 61 layers × 2 × (q_lora 1536 × 128 heads × (128 + 64) + kv_lora 512 × 128 × (128 + 128))
    // = 61 × 2 × (37,748,736 + 16,777,216) = 6,652,166,144 FLOP per token.
    const auto spec = model_preset_named("deepseek-v3", "test").spec;
    CHECK(recomputed_module_flops_per_token(spec, s, bit(recompute_module::mla_up_proj)).value() ==
          6652166144.0);
  }
}
