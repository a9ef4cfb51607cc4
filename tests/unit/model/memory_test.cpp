// Per-GPU memory: Korthikanti et al. 2022 Table 2, a fused attention kernel (FlashAttention)
// against it, a small layout derived by hand, pipeline in-flight factors, ZeRO stages and
// capacity.
#include "tpcost/model/memory.hpp"
#include "tpcost/model/optimizer_states.hpp"

#include <catch2/catch.hpp>
#include <random>

#include "support/matchers.hpp"
#include "support/models.hpp"
#include "tpcost/model/model_presets.hpp"

using namespace tpcost;
using tpcost::test::gpt_spec;
using tpcost::test::near;

namespace {
constexpr auto none = recompute_mode::none;
constexpr auto selective = recompute_mode::selective;
constexpr auto full = recompute_mode::full;
constexpr auto unfused = attention_kernel::unfused;
constexpr auto fused = attention_kernel::fused;
}  // namespace

TEST_CASE("For GPT, activations per layer are the rows of Korthikanti et al. Table 2", "[memory]") {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::int64_t> small(1, 64);
  for (int i = 0; i < 2000; ++i) {
    const auto t = std::int64_t{1} << (small(rng) % 4);
    const auto a = t * small(rng);
    const auto h = a * small(rng);
    const auto s = small(rng) * 32;
    const auto b = small(rng);
    const auto spec = gpt_spec(2, h, a, 1000, s);
    const double sbh = static_cast<double>(s * b * h);
    const double as_h = 5.0 * static_cast<double>(a * s) / static_cast<double>(h);
    const double td = static_cast<double>(t);
    CAPTURE(t, a, h, s, b);
    // No parallelism: sbh(34 + 5as/h).
    CHECK_THAT(activation_bytes_per_layer(spec, b, s, 1, false, none, unfused).value(),
               near(sbh * (34 + as_h), 1e-12));
    // Tensor parallel: sbh(10 + 24/t + 5as/(ht)).
    CHECK_THAT(activation_bytes_per_layer(spec, b, s, t, false, none, unfused).value(),
               near(sbh * (10 + 24 / td + as_h / td), 1e-12));
    // Tensor + sequence parallel: sbh/t (34 + 5as/h).
    CHECK_THAT(activation_bytes_per_layer(spec, b, s, t, true, none, unfused).value(),
               near(sbh / td * (34 + as_h), 1e-12));
    // Tensor parallel + selective recomputation: sbh(10 + 24/t).
    CHECK_THAT(activation_bytes_per_layer(spec, b, s, t, false, selective, unfused).value(),
               near(sbh * (10 + 24 / td), 1e-12));
    // Tensor + sequence parallel + selective recomputation: 34 sbh/t.
    CHECK_THAT(activation_bytes_per_layer(spec, b, s, t, true, selective, unfused).value(),
               near(34 * sbh / td, 1e-12));
    // Full recomputation: 2sbh (sequence-split with SP).
    CHECK_THAT(activation_bytes_per_layer(spec, b, s, t, false, full, unfused).value(),
               near(2 * sbh, 1e-12));
    CHECK_THAT(activation_bytes_per_layer(spec, b, s, t, true, full, unfused).value(),
               near(2 * sbh / td, 1e-12));
  }
}

TEST_CASE("GQA and a gated MLP change the split part of the activations as derived", "[memory]") {
  // h=8, a=4, kv=2 (kv_dim 4), ffn=12 gated, s=6, b=1, t=1, no recomputation:
  //   replicated 10*sbh = 10*48 = 480; split 4*sbh + 4*s*b*kv_dim + 6*s*b*f = 192 + 96 + 432
  //   = 720; scores 5*a*s^2*b = 5*4*36 = 720; total 1920 bytes.
  const auto spec = with_architecture(
      {.layers = 1, .hidden = 8, .heads = 4, .kv_heads = 2, .ffn = 12, .vocab = 16, .seq = 6},
      architecture::llama);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 1, false, none, unfused).value() == 1920.0);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 2, false, none, unfused).value() ==
        480.0 + 1440.0 / 2);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 2, true, selective, unfused).value() == 1200.0 / 2);
}

TEST_CASE("A fused attention kernel keeps one fp32 statistic per row instead of the scores",
          "[memory]") {
  // The GQA layer above (h=8, a=4, ffn=12 gated, s=6, b=1): replicated 480, split 720, and
  // the attention core 5*a*s^2*b = 720 unfused, 4*a*s*b = 4*4*6 = 96 fused (one fp32
  // logsumexp per row and head), both split by t with the heads.
  //   t=1:        unfused 480 + 720 + 720 = 1920       fused 480 + 720 + 96 = 1296
  //   t=2:        unfused 480 + 1440/2 = 1200          fused 480 + 720/2 + 96/2 = 888
  //   t=2, SP:    unfused 1920/2 = 960                 fused (480 + 720)/2 + 96/2 = 648
  //   selective (t=2, SP): (480 + 720)/2 = 600 for both; full (t=1): 2*sbh = 96 for both.
  const auto spec = with_architecture(
      {.layers = 1, .hidden = 8, .heads = 4, .kv_heads = 2, .ffn = 12, .vocab = 16, .seq = 6},
      architecture::llama);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 1, false, none, fused).value() == 1296.0);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 2, false, none, fused).value() == 888.0);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 2, true, none, unfused).value() == 960.0);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 2, true, none, fused).value() == 648.0);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 2, true, selective, fused).value() == 600.0);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 2, true, selective, unfused).value() == 600.0);
  CHECK(activation_bytes_per_layer(spec, 1, 6, 1, false, full, fused).value() == 96.0);
  CHECK(attention_core_bytes(spec, 1, 6, 1, none, unfused).value() == 720.0);
  CHECK(attention_core_bytes(spec, 1, 6, 2, none, fused).value() == 48.0);
  CHECK(attention_core_bytes(spec, 1, 6, 2, selective, fused).value() == 0.0);

  // GPT-3 175B (h=12288, a=96), s=2048, b=1, t=8 with SP; sbh = 2048*12288 = 25,165,824:
  //   unfused: sbh/8 * (34 + 5*96*2048/12288) = 3,145,728 * (34 + 80) = 358,612,992 B
  //   fused:   34*sbh/8 + 4*96*2048/8 = 106,954,752 + 98,304 = 107,053,056 B (3.35x less)
  const auto& gpt3 = model_preset_named("gpt-3-175b", "test").spec;
  CHECK(activation_bytes_per_layer(gpt3, 1, 2048, 8, true, none, unfused).value() == 358612992.0);
  CHECK(activation_bytes_per_layer(gpt3, 1, 2048, 8, true, none, fused).value() == 107053056.0);

  // Llama-3 70B (h=8192, a=64, kv_dim=1024, gated f=28672), s=8192, b=1, t=8 with SP;
  // sb = 8192, sbh = 67,108,864:
  //   selective: (10*sbh + 4*sbh + 4*sb*1024 + 6*sb*28672)/8
  //            = (671,088,640 + 268,435,456 + 33,554,432 + 1,409,286,144)/8 = 297,795,584 B
  //   unfused:   + 5*64*8192^2/8 = 2,684,354,560 -> 2,982,150,144 B
  //   fused:     + 4*64*8192/8 = 262,144         ->   298,057,728 B (10.0x less)
  const auto& llama = model_preset_named("llama-3-70b", "test").spec;
  CHECK(activation_bytes_per_layer(llama, 1, 8192, 8, true, selective, fused).value() ==
        297795584.0);
  CHECK(activation_bytes_per_layer(llama, 1, 8192, 8, true, none, unfused).value() == 2982150144.0);
  CHECK(activation_bytes_per_layer(llama, 1, 8192, 8, true, none, fused).value() == 298057728.0);
}

TEST_CASE(
    "Fused attention never keeps more than unfused: less without recomputation by the scores "
    "less the statistics, the same with selective or full recomputation",
    "[memory]") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> small(1, 48);
  for (int i = 0; i < 2000; ++i) {
    const auto t = std::int64_t{1} << (small(rng) % 4);
    const auto kv = t * small(rng);
    const auto a = kv * (1 + small(rng) % 4);  // GQA groups of 1..4 query heads
    const auto h = a * 8 * (1 + small(rng) % 16);
    const auto s = small(rng) * 64;
    const auto b = 1 + small(rng) % 8;
    const auto spec = with_architecture(
        {.layers = 2, .hidden = h, .heads = a, .kv_heads = kv, .vocab = 1000, .seq = s},
        small(rng) % 2 == 0 ? architecture::llama : architecture::gpt);
    CAPTURE(t, a, kv, h, s, b);
    for (const bool sp : {false, true}) {
      const auto per = [&](recompute_mode mode, attention_kernel kernel) {
        return activation_bytes_per_layer(spec, b, s, t, sp, mode, kernel).value();
      };
      CHECK(per(none, fused) <= per(none, unfused));
      CHECK(per(selective, fused) == per(selective, unfused));
      CHECK(per(full, fused) == per(full, unfused));
      // fused without recomputation = selective + 4*a*s*b/t; unfused = selective + 5*a*s^2*b/t
      const double rows = static_cast<double>(a * s * b) / static_cast<double>(t);
      CHECK_THAT(per(none, fused), near(per(selective, fused) + 4.0 * rows, 1e-12));
      CHECK_THAT(per(none, unfused),
                 near(per(selective, unfused) + 5.0 * static_cast<double>(s) * rows, 1e-12));
    }
  }
}

TEST_CASE(
    "Per GPU, fused attention changes only the activations: by the scores per layer in flight, "
    "or by one layer's working set with full recomputation",
    "[memory]") {
  // GPT-3 175B at t=8, p=16, d=8, b=1 on 80 GiB: the first stage holds 96 layers' worth.
  const auto& gpt3 = model_preset_named("gpt-3-175b", "test").spec;
  for (const bool sp : {false, true}) {
    for (const auto mode : {none, selective, full}) {
      const parallel_config par{.tp = 8,
                                .pp = 16,
                                .dp = 8,
                                .micro_batch = 1,
                                .global_batch = 1536,
                                .sequence_parallel = sp,
                                .recompute = mode};
      CAPTURE(sp, to_string(mode));
      const auto u = memory_per_gpu(gpt3, par, 80.0 * units::GiB, unfused);
      const auto f = memory_per_gpu(gpt3, par, 80.0 * units::GiB, fused);
      REQUIRE(u.stages.size() == f.stages.size());
      for (std::size_t i = 0; i < u.stages.size(); ++i) {
        CHECK(f.stages[i].model_states() == u.stages[i].model_states());
        const double saved = (u.stages[i].activations - f.stages[i].activations).value();
        // What one layer saves: the scores less the statistics, with no recomputation.
        const double per_layer = (activation_bytes_per_layer(gpt3, 1, 2048, 8, sp, none, unfused) -
                                  activation_bytes_per_layer(gpt3, 1, 2048, 8, sp, none, fused))
                                     .value();
        const double layers = mode == none ? u.stages[i].layers_in_flight : 0.0;
        const double working = mode == full ? 1.0 : 0.0;
        CHECK_THAT(saved, near((layers + working) * per_layer, 1e-12));
      }
    }
  }
  // Without recomputation and without SP, unfused needs 56 GB of activations on the first
  // stage (README); fused keeps 96 layers of sbh*(10 + 24/8) + 4*a*s/8 instead.
  const parallel_config plain{.tp = 8, .pp = 16, .dp = 8, .micro_batch = 1, .global_batch = 1536};
  const auto f = memory_per_gpu(gpt3, plain, 80.0 * units::GiB, fused);
  const double sbh = 2048.0 * 12288.0;
  CHECK_THAT(f.stages[0].activations.value(),
             near(96.0 * (13.0 * sbh + 4.0 * 96 * 2048 / 8) + 16.0 * sbh, 1e-12));
}

TEST_CASE("A small layout's memory, derived by hand stage by stage", "[memory]") {
  // GPT, L=4, h=8, a=2, V=16, s=4; t=2, p=2, d=2, b=1, G=8 -> m = 8/(2*1) = 4.
  // Parameters of one layer on one TP rank:
  //   split over t: QKV 8*24 + out 8*8 + MLP 2*8*32 + biases QKV 24 + MLP-in 32 = 824 -> 412
  //   replicated: out bias 8 + MLP-out bias 8 + two LayerNorms 32 = 48       -> 460 per layer
  // stage 0: 2 layers 920 + word embedding 16*8/2 = 64 + positions 4*8 = 32 -> 1016
  // stage 1: 2 layers 920 + final norm 16 + its copy of the tied embedding 64 -> 1000
  // Model states, 16 B/param, no ZeRO: 16256 B and 16000 B.
  // Activations per layer (TP, no SP, no recomputation): sbh = 32,
  //   sbh(10 + 24/2 + 5*2*4/(8*2)) = 32 * 24.5 = 784 B.
  // stage 0 (1F1B) holds min(p - 0, m) = 2 micro-batches of its 2 layers: 4*784 = 3136, plus
  //   the embedding dropout masks, 2 * sbh = 64                               -> 3200
  // stage 1 holds 1 micro-batch: 2*784 = 1568, plus final-norm and output inputs 4*sbh = 128
  //   and the logits at the loss, 16-bit and fp32, 6*s*b*V/t = 192            -> 1888
  const auto spec = gpt_spec(4, 8, 2, 16, 4);
  parallel_config par{.tp = 2, .pp = 2, .dp = 2, .micro_batch = 1, .global_batch = 8};
  const auto r = memory_per_gpu(spec, par, bytes(20000.0), unfused);
  REQUIRE(r.stages.size() == 2);
  CHECK(layer_params_per_tp_rank(spec, 2) == 460.0);
  CHECK(r.stages[0].params == 1016.0);
  CHECK(r.stages[1].params == 1000.0);
  CHECK(r.stages[0].model_states().value() == 16256.0);
  CHECK(r.stages[1].model_states().value() == 16000.0);
  CHECK(r.stages[0].layers_in_flight == 4.0);
  CHECK(r.stages[0].activations.value() == 3200.0);
  CHECK(r.stages[1].activations.value() == 1888.0);
  CHECK(r.peak_stage == 0);
  CHECK(r.peak().total().value() == 19456.0);
  CHECK(r.headroom().value() == 544.0);
  CHECK(r.fits());

  // ZeRO-1 halves the optimizer states over d = 2, ZeRO-2 also the gradients, ZeRO-3 all.
  par.zero = zero_stage::optimizer;
  CHECK(memory_per_gpu(spec, par, bytes(2e4), unfused).stages[0].model_states().value() ==
        2032 + 2032 + 6096);
  par.zero = zero_stage::gradients;
  CHECK(memory_per_gpu(spec, par, bytes(2e4), unfused).stages[0].model_states().value() ==
        2032 + 1016 + 6096);
  // ZeRO-3 also holds two gathered layers of 16-bit weights (the one computed and the one
  // prefetched): 2 * 460 * 2 B = 1840 B on top of 16256 / 2.
  par.zero = zero_stage::parameters;
  CHECK(memory_per_gpu(spec, par, bytes(2e4), unfused).stages[0].model_states().value() ==
        16256 / 2 + 1840);
  // With one gathered layer (no prefetch), 920 B.
  CHECK(memory_per_gpu(spec, par, bytes(2e4), unfused, mixed_precision_adam, 1)
            .stages[0]
            .model_states()
            .value() == 16256 / 2 + 920);

  // Full recomputation: 2*sbh = 64 B per layer in flight, plus one layer's full set (784).
  par.zero = zero_stage::none;
  par.recompute = recompute_mode::full;
  CHECK(memory_per_gpu(spec, par, bytes(2e4), unfused).stages[0].activations.value() ==
        4 * 64 + 784 + 64);

  // A fused attention kernel keeps 4*a*s*b/t = 4*2*4/2 = 16 B of statistics per layer instead
  // of 5*a*s^2*b/t = 80 B of scores: 32 * (10 + 24/2) + 16 = 720 B per layer.
  //   no recomputation: stage 0 4*720 + 64 = 2944; stage 1 2*720 + 320 = 1760
  //   full recomputation: the working set is one fused layer, 4*64 + 720 + 64 = 1040
  CHECK(memory_per_gpu(spec, par, bytes(2e4), fused).stages[0].activations.value() ==
        4 * 64 + 720 + 64);
  par.recompute = recompute_mode::none;
  const auto f = memory_per_gpu(spec, par, bytes(2e4), fused);
  CHECK(f.stages[0].activations.value() == 2944.0);
  CHECK(f.stages[1].activations.value() == 1760.0);
}

TEST_CASE("Over all TP ranks, the parameters add up to the model's, plus the replicas",
          "[memory]") {
  // With p = 1 and untied embeddings nothing is duplicated but the replicated parameters.
  const auto& preset = model_preset_named("llama-3-8b", "test");
  const auto& spec = preset.spec;
  for (const std::int64_t t : {1, 2, 4, 8}) {
    const parallel_config par{.tp = t};
    const double per_gpu = params_per_gpu(spec, par, 0, spec.layers);
    const double replicated_per_layer = 2.0 * static_cast<double>(norm_params(spec));
    const double replicas =
        static_cast<double>(t - 1) * (static_cast<double>(spec.layers) * replicated_per_layer +
                                      static_cast<double>(norm_params(spec)));
    CHECK_THAT(per_gpu * static_cast<double>(t) - replicas,
               near(static_cast<double>(count_params(spec).total), 1e-12));
  }
}

TEST_CASE("1F1B keeps L layers' worth on the first stage, interleaving adds (p-1)/(p*v)",
          "[memory][pipeline_parallel]") {
  // L=16, p=4, m=8: stage i holds (p - i) micro-batches of 4 layers.
  CHECK(layers_in_flight(4, 0, 4, 8, 1) == 16.0);
  CHECK(layers_in_flight(4, 3, 4, 8, 1) == 4.0);
  CHECK(layers_in_flight(4, 0, 4, 2, 1) == 8.0);  // m < p: only m micro-batches exist
  // v = 2: (p-1)*2 + (v-1)*p + 1 = 11 chunks of L/(p*v) = 2 layers = 22 = 16*(1 + 3/8).
  CHECK(layers_in_flight(4, 0, 4, 8, 2) == 22.0);
  CHECK(layers_in_flight(4, 0, 4, 8, 2) == 16.0 * (1.0 + 3.0 / 8.0));
}

TEST_CASE("A layout that does not fit is reported with negative headroom, not rejected",
          "[memory]") {
  // GPT-3 175B on one GPU: 16 B/param alone is 2.8 TB.
  const auto& gpt3 = model_preset_named("gpt-3-175b", "test").spec;
  const auto r = memory_per_gpu(gpt3, parallel_config{}, 80.0 * units::GiB, unfused);
  CHECK_FALSE(r.fits());
  CHECK(r.headroom().value() < -2.7e12);
  // t=8, p=16, d=8, selective recomputation + SP, b=1: fits in 80 GiB.
  const parallel_config big{.tp = 8,
                            .pp = 16,
                            .dp = 8,
                            .micro_batch = 1,
                            .global_batch = 1536,
                            .sequence_parallel = true,
                            .recompute = selective};
  const auto fit = memory_per_gpu(gpt3, big, 80.0 * units::GiB, unfused);
  CHECK(fit.fits());
  // The first stage holds 16 micro-batches of 6 layers: 96 layers of 34*sbh/t.
  CHECK(fit.stages[0].layers_in_flight == 96.0);
  CHECK(fit.peak_stage == 0);
}

TEST_CASE("Megatron's fp32 gradient buffer makes 18 bytes per parameter", "[memory]") {
  const auto spec = gpt_spec(4, 8, 2, 16, 4);
  const parallel_config par{};
  const auto a = memory_per_gpu(spec, par, bytes(1e9), unfused);
  const auto b = memory_per_gpu(spec, par, bytes(1e9), unfused, mixed_precision_adam_fp32_grads);
  CHECK(b.peak().model_states().value() == a.peak().model_states().value() * 18.0 / 16.0);
}

TEST_CASE("The caching allocator's reserve and the planner's margin", "[memory]") {
  // 15% of the reserve is fragmentation: 85 GiB allocated are 100 GiB reserved.
  CHECK_THAT(reserved_of(85.0 * units::GiB).value(), near((100.0 * units::GiB).value(), 1e-12));
  CHECK(reserved_of(bytes(0.0)).value() == 0.0);
  // 80 GiB: 1 GiB outside the allocator, 79 GiB for its reserve, 0.85 * 79 = 67.15 GiB
  // allocated at most, a reserve of 12.85 GiB.
  CHECK_THAT(default_memory_reserve(80.0 * units::GiB).value(),
             near((12.85 * units::GiB).value(), 1e-12));
  // The largest allocated peak the default reserve allows fills the GPU when reserved.
  const bytes capacity = 186.0 * units::GiB;
  const bytes allowed = capacity - default_memory_reserve(capacity);
  CHECK_THAT((reserved_of(allowed) + outside_allocator).value(), near(capacity.value(), 1e-12));
  CHECK_NOTHROW(validate_memory_reserve(bytes(0.0), capacity));
  CHECK_THROWS_AS(validate_memory_reserve(bytes(-1.0), capacity), invalid_spec);
  CHECK_THROWS_AS(validate_memory_reserve(capacity, capacity), invalid_spec);
  // A report's stage reserve is the same rule on its allocated peak.
  const auto spec = gpt_spec(4, 8, 2, 16, 4);
  const parallel_config par{.tp = 2, .pp = 2, .dp = 2, .micro_batch = 1, .global_batch = 8};
  const auto r = memory_per_gpu(spec, par, bytes(20000.0), attention_kernel::fused);
  CHECK(r.reserved(1).value() == reserved_of(r.stages[1].total()).value());
}

TEST_CASE("The precision-aware optimizer's bytes per parameter", "[memory]") {
  // Defaults: fp32 gradients, fp32 master weights as 16-bit remainders, fp32 moments: 2+4+10.
  const precision_aware_adam defaults;
  CHECK(state_bytes_of(defaults).weights == 2.0);
  CHECK(state_bytes_of(defaults).gradients == 4.0);
  CHECK(state_bytes_of(defaults).optimizer == 2.0 + 4.0 + 4.0);
  // Without the remainders, Megatron's plain 18 bytes.
  auto full = defaults;
  full.store_param_remainders = false;
  CHECK(state_bytes_of(full).optimizer == mixed_precision_adam_fp32_grads.optimizer);
  CHECK(state_bytes_of(full).gradients == mixed_precision_adam_fp32_grads.gradients);
  // bf16 gradients and moments, fp8 second moment, fp16 master weights.
  const precision_aware_adam low{.main_grads = optimizer_dtype::bf16,
                                 .main_params = optimizer_dtype::fp16,
                                 .exp_avg = optimizer_dtype::bf16,
                                 .exp_avg_sq = optimizer_dtype::fp8};
  CHECK(state_bytes_of(low).gradients == 2.0);
  CHECK(state_bytes_of(low).optimizer == 2.0 + 2.0 + 1.0);
  CHECK(parse_optimizer_dtype("torch.bfloat16", "x") == optimizer_dtype::bf16);
  CHECK(parse_optimizer_dtype("fp8", "x") == optimizer_dtype::fp8);
  CHECK_THROWS_AS(parse_optimizer_dtype("fp9", "x"), invalid_spec);
  CHECK_THROWS_AS(validate(precision_aware_adam{.main_params = optimizer_dtype::bf16}),
                  invalid_spec);
  CHECK_THROWS_AS(validate(precision_aware_adam{.main_grads = optimizer_dtype::fp8}), invalid_spec);
}

TEST_CASE("torchtitan's per-op checkpointing keeps the saved matmuls' outputs, derived by hand",
          "[memory]") {
  // Llama-like: h = 8, 2 heads of 4 (q = 8), 1 KV head (kv = 4), gated f = 16; b·s = 4 tokens.
  auto spec = with_architecture(
      {.layers = 2, .hidden = 8, .heads = 2, .kv_heads = 1, .ffn = 16, .vocab = 16, .seq = 4},
      architecture::llama);
  // wq, wk, wv, wo, w1, w3, w2: the 1st, 3rd, 5th and 7th are saved.
  const auto mm = per_op_matmuls(spec);
  CHECK(mm[0].saved);
  CHECK(!mm[1].saved);
  CHECK(mm[2].saved);
  CHECK(!mm[3].saved);
  CHECK(mm[4].saved);
  CHECK(!mm[5].saved);
  CHECK(mm[6].saved);
  // Recomputed FLOPs per token: wk 2*8*4, wo 2*8*8, w3 2*8*16 = 64 + 128 + 256.
  CHECK(per_op_recomputed_flops_per_token(spec) == 448.0);
  // Per token, t = 1: input 2*8, wq 2*8, wv 2*4, w1 2*16, w2 2*8, attention output 2*8 and its
  // log-sum-exp 4*2: 16 + 16 + 8 + 32 + 16 + 16 + 8 = 112 B; 4 tokens: 448 B.
  CHECK(per_op_activation_bytes_per_layer(spec, 1, 4, 1, false).value() == 448.0);
  CHECK(activation_bytes_per_layer(spec, 1, 4, 1, false, recompute_mode::selective,
                                   attention_kernel::fused, selective_policy::per_op)
            .value() == 448.0);
  // t = 2 with SP: input 2*8/2, wq 2*8/2, wv 2*4/2, w1 2*16/2, w2 2*8 (row-parallel, whole),
  // attention output 2*8/2, log-sum-exp 4*2/2, two reduce-scatter outputs 2*(2*8/2):
  // 8 + 8 + 4 + 16 + 16 + 8 + 4 + 16 = 80 B per token.
  CHECK(per_op_activation_bytes_per_layer(spec, 1, 4, 2, true).value() == 320.0);
  // Per-op keeps less than Megatron's selective count of the same layer, and the stage adds,
  // while a layer is recomputed, what per-op dropped of it.
  const auto megatron = activation_bytes_per_layer(spec, 1, 4, 1, false, recompute_mode::selective,
                                                   attention_kernel::fused);
  CHECK(megatron.value() > 448.0);
  const parallel_config par{.tp = 1,
                            .pp = 1,
                            .dp = 1,
                            .micro_batch = 1,
                            .global_batch = 1,
                            .recompute = recompute_mode::selective};
  const auto terms = stage_memory_terms_of(spec, par, 1, attention_kernel::fused,
                                           mixed_precision_adam, 2, {}, selective_policy::per_op);
  const auto everything = activation_bytes_per_layer(spec, 1, 4, 1, false, recompute_mode::none,
                                                     attention_kernel::fused);
  CHECK(terms.per_layer.value() == 448.0);
  CHECK(terms.working.value() == everything.value() - 448.0);
  // The other stacks' selective is unchanged.
  CHECK(stage_memory_terms_of(spec, par, 1, attention_kernel::fused).per_layer.value() ==
        megatron.value());
}

TEST_CASE("Without dropout no masks are kept: 2 bytes per s*b*h and 3 per unfused score less",
          "[memory]") {
  // GPT, L=4, h=8, a=2, V=16, s=4 as above; t=1, b=1: sbh = 32, a*s*s*b = 32 scores.
  auto spec = gpt_spec(4, 8, 2, 16, 4);
  const auto with = activation_bytes_per_layer(spec, 1, 4, 1, false, recompute_mode::none,
                                               attention_kernel::unfused);
  spec.hidden_dropout = false;
  const auto no_hidden = activation_bytes_per_layer(spec, 1, 4, 1, false, recompute_mode::none,
                                                    attention_kernel::unfused);
  CHECK(with.value() - no_hidden.value() == 2.0 * 32.0);
  spec.attention_dropout = false;
  const auto neither = activation_bytes_per_layer(spec, 1, 4, 1, false, recompute_mode::none,
                                                  attention_kernel::unfused);
  CHECK(no_hidden.value() - neither.value() == 3.0 * 32.0);
  // A fused kernel keeps no mask either way; the embedding's mask goes with hidden dropout.
  CHECK(activation_bytes_per_layer(spec, 1, 4, 1, false, recompute_mode::none,
                                   attention_kernel::fused)
            .value() == activation_bytes_per_layer(gpt_spec(4, 8, 2, 16, 4), 1, 4, 1, false,
                                                   recompute_mode::none, attention_kernel::fused)
                                .value() -
                            2.0 * 32.0);
  const parallel_config par{.tp = 1, .pp = 1, .dp = 1, .micro_batch = 1, .global_batch = 1};
  CHECK(stage_memory_terms_of(spec, par, 1, attention_kernel::fused).embedding_mask.value() == 0.0);
  CHECK(stage_memory_terms_of(gpt_spec(4, 8, 2, 16, 4), par, 1, attention_kernel::fused)
            .embedding_mask.value() == 32.0);
}

TEST_CASE("Megatron's recompute_modules free what each module keeps, derived by hand", "[memory]") {
  // The small layout above: GPT, L=4, h=8, a=2, V=16, s=4; t=2, p=2, d=2, b=1, G=8; sbh = 32.
  // One layer, unfused, no SP: replicated 10*sbh = 320; split over t: Q and O 4*sb*q = 128,
  // K and V 4*sb*kv = 128, the MLP inside 4*sb*f = 512, 768/2 = 384; scores 5*a*s^2*b/t = 80:
  // 784 B without recomputation, 704 B with core_attn (the default).
  const auto spec = gpt_spec(4, 8, 2, 16, 4);
  const auto layer = [&](recompute_mode mode, unsigned modules) {
    recompute_recipe recipe;
    recipe.modules = modules;
    return activation_bytes_per_layer(spec, 1, 4, 2, false, mode, unfused,
                                      selective_policy::attention_core, recipe)
        .value();
  };
  const auto bit = [](recompute_module m) { return static_cast<unsigned>(m); };
  const unsigned core = bit(recompute_module::core_attn);
  const unsigned mlp = bit(recompute_module::mlp);
  CHECK(layer(selective, core) == 704.0);
  // mlp also drops linear_fc1's saved input, 2*sbh = 64, and the inside, 512/2 = 256.
  CHECK(layer(selective, core | mlp) == 704.0 - 64.0 - 256.0);
  // Without core_attn the scores stay: 784 - 320.
  CHECK(layer(selective, mlp) == 464.0);
  // Nothing recomputed: the no-recomputation count. layernorm frees nothing in a dense MHA layer
  // of the Transformer Engine spec (both norms are fused into the linears that follow them).
  CHECK(layer(selective, 0) == 784.0);
  CHECK(layer(selective, core | bit(recompute_module::layernorm)) == 704.0);
  // The modules apply to selective recomputation only.
  CHECK(layer(none, core | mlp) == 784.0);

  // Stage 0 holds 4 layers' worth (1F1B, p = 2 micro-batches of 2 layers) plus the embedding
  // masks (2*sbh = 64); while a layer's backward recomputes its MLP, what mlp dropped is live
  // again (704 - 384 = 320): 4*384 + 320 + 64 = 1920.
  parallel_config par{.tp = 2, .pp = 2, .dp = 2, .micro_batch = 1, .global_batch = 8};
  par.recompute = selective;
  recompute_recipe recipe;
  recipe.modules = core | mlp;
  const auto with_mlp = memory_per_gpu(spec, par, bytes(2e4), unfused, mixed_precision_adam, 2, {},
                                       selective_policy::attention_core, recipe);
  CHECK(with_mlp.stages[0].activations.value() == 4 * 384 + 320 + 64);
  // The default recipe is the step as it was: 4*704 + 64.
  CHECK(memory_per_gpu(spec, par, bytes(2e4), unfused).stages[0].activations.value() ==
        4 * 704 + 64);
}

TEST_CASE("recompute_modules in MoE and MLA layers: moe_act, moe, shared_experts, mla_up_proj",
          "[memory]") {
  auto spec = model_preset_named("deepseek-v3", "model").spec;
  spec.layers = 4;
  spec.seq = 1024;
  spec.mtp_layers = 0;
  const std::int64_t t = 2, etp = 1;
  const expert_tokens tokens{
      .local = 1024.0, .copies = 8192.0, .routed = 8192.0, .local_experts = 32.0, .routes = true};
  const auto moe_layer = [&](unsigned modules) {
    recompute_recipe recipe;
    recipe.modules = modules;
    return moe_activation_bytes_per_layer(spec, 1, 1024, t, etp, false, selective,
                                          attention_kernel::fused, tokens, recipe)
        .value();
  };
  const auto bit = [](recompute_module m) { return static_cast<unsigned>(m); };
  const unsigned core = bit(recompute_module::core_attn);
  const double base = moe_layer(core);
  const double sb = 1024.0;
  const double h = static_cast<double>(spec.hidden);
  const double fe = static_cast<double>(spec.moe.expert_ffn);
  const double shared =
      6.0 * sb * static_cast<double>(spec.moe.shared_experts * shared_ffn_of(spec.moe)) / 2.0;
  // moe_act: linear_fc2's input, 2 bytes * f_e per routed copy.
  CHECK(base - moe_layer(core | bit(recompute_module::moe_act)) == 8192.0 * 2.0 * fe);
  // shared_experts: their inside, 6*sb*f_shared/t (gated).
  CHECK_THAT(base - moe_layer(core | bit(recompute_module::shared_experts)),
             Catch::Matchers::WithinRel(shared, 1e-12));
  // moe: everything routed (FC1 inputs, insides, outputs, router logits) and the shared experts.
  const double routed = 8192.0 * 6.0 * fe + 8192.0 * 2.0 * h + 8192.0 * 2.0 * h +
                        8.0 * 1024.0 * static_cast<double>(spec.moe.experts);
  CHECK_THAT(base - moe_layer(core | bit(recompute_module::moe)),
             Catch::Matchers::WithinRel(routed + shared, 1e-12));
  // layernorm: MLA's input norm (the down projections' input) and the MoE layer's pre-MLP norm
  // are TENorm modules: 2*sbh each, not split without SP.
  CHECK(base - moe_layer(core | bit(recompute_module::layernorm)) == 2.0 * 2.0 * sb * h);
  // mla_up_proj: Q, K (a*(nope + rope) each) and V (a*v), 16-bit, split over t.
  const double a = static_cast<double>(spec.heads);
  const double qk = static_cast<double>(spec.mla.qk_nope_head_dim + spec.mla.qk_rope_head_dim);
  CHECK(base - moe_layer(core | bit(recompute_module::mla_up_proj)) ==
        2.0 * sb * a * (2.0 * qk + static_cast<double>(spec.mla.v_head_dim)) / 2.0);
}

TEST_CASE("Full recomputation by Megatron's uniform and block methods, derived by hand",
          "[memory]") {
  // The small layout: chunks of 2 layers (L = 4, p = 2); per layer 784 B kept without
  // recomputation, 2*sbh = 64 B as a checkpointed input.
  const auto spec = gpt_spec(4, 8, 2, 16, 4);
  parallel_config par{.tp = 2, .pp = 2, .dp = 2, .micro_batch = 1, .global_batch = 8};
  par.recompute = full;
  const auto stage0 = [&](recompute_method method, std::int64_t n) {
    recompute_recipe recipe;
    recipe.method = method;
    recipe.num_layers = n;
    return memory_per_gpu(spec, par, bytes(2e4), unfused, mixed_precision_adam, 2, {},
                          selective_policy::attention_core, recipe)
        .stages[0]
        .activations.value();
  };
  // uniform 1 is the default: 4*64 + 784 + 64 (above).
  CHECK(stage0(recompute_method::uniform, 1) == 4 * 64 + 784 + 64);
  // uniform 2: one unit per chunk keeps its input, 64 B per 2 layers; the backward rebuilds the
  // unit's 2 layers: 4*32 + 2*784 + 64.
  CHECK(stage0(recompute_method::uniform, 2) == 4 * 32 + 2 * 784 + 64);
  // block 1: one layer of each chunk checkpointed, the other keeps everything:
  // 4*(64 + 784)/2 + 784 + 64.
  CHECK(stage0(recompute_method::block, 1) == 4 * 424 + 784 + 64);
  // block 2 = every layer; block 0 = none (no working set): 4*784 + 64.
  CHECK(stage0(recompute_method::block, 2) == 4 * 64 + 784 + 64);
  CHECK(stage0(recompute_method::block, 0) == 4 * 784 + 64);
}

TEST_CASE("CPU offloading moves the offloaded layers' activations off the GPU", "[memory]") {
  // p = 1: one micro-batch of 4 layers in flight, 4*784; offloading 2 keeps 2*784. Plus one
  // micro-batch's embedding mask, sbh = 32, and the output layer 4*sbh + 6*s*b*V/t = 128 + 192.
  const auto spec = gpt_spec(4, 8, 2, 16, 4);
  const parallel_config par{.tp = 2, .pp = 1, .dp = 2, .micro_batch = 1, .global_batch = 8};
  recompute_recipe recipe;
  recipe.offload_layers = 2;
  const auto r = memory_per_gpu(spec, par, bytes(2e4), unfused, mixed_precision_adam, 2, {},
                                selective_policy::attention_core, recipe);
  CHECK(r.stages[0].activations.value() == 2 * 784 + 32 + 320);
  CHECK(memory_per_gpu(spec, par, bytes(2e4), unfused).stages[0].activations.value() ==
        4 * 784 + 32 + 320);
}

TEST_CASE("Fine-grained offloading moves each module's saved tensors, derived by hand",
          "[memory]") {
  // The small layout: GPT, h = 8, a = 2, s = 4, b = 1, t = 2, no SP; sbh = 32. Per layer, 16-bit
  // tensors: the layer input and the QKV input 2*sbh = 64 each (not split without SP); Q, K, V
  // and the output-projection input 2*s*b*h = 64 each before the split over t; the unfused
  // scores 5*a*s^2*b/t = 80. Without recomputation the layer keeps 784 B (above).
  const auto spec = gpt_spec(4, 8, 2, 16, 4);
  const auto bit = [](offload_module m) { return static_cast<unsigned>(m); };
  const auto moved = [&](recompute_mode mode, unsigned modules, std::int64_t min_elements = 0) {
    recompute_recipe recipe;
    recipe.offload_modules = modules;
    recipe.min_offloaded_elements = min_elements;
    return offloaded_bytes_per_layer(spec, 1, 4, 2, false, mode, unfused, recipe).value();
  };
  // attn_norm: the TE spec fuses the input norm into linear_qkv (an IdentityOp saves nothing).
  CHECK(moved(none, bit(offload_module::attn_norm)) == 0.0);
  // qkv_linear: linear_qkv saves the layer input and the norm output: 64 + 64.
  CHECK(moved(none, bit(offload_module::qkv_linear)) == 128.0);
  // core_attn: Q, K, V over t, 3*64/2 = 96, and the scores, 80.
  CHECK(moved(none, bit(offload_module::core_attn)) == 176.0);
  // ... with the core recomputed its checkpoint still saves Q, K and V: 96.
  CHECK(moved(selective, bit(offload_module::core_attn)) == 96.0);
  // attn_proj: its input over t, 64/2 = 32. mlp_norm, expert_fc1, moe_act: nothing in a dense
  // layer (its pre-MLP norm is fused into linear_fc1).
  CHECK(moved(none, bit(offload_module::attn_proj) | bit(offload_module::core_attn)) == 208.0);
  CHECK(moved(none, bit(offload_module::mlp_norm) | bit(offload_module::expert_fc1) |
                        bit(offload_module::moe_act)) == 0.0);
  const unsigned all = 0x7FU;
  CHECK(moved(none, all) == 128.0 + 176.0 + 32.0);
  // Full recomputation saves the layer input only, outside every module: nothing moves.
  CHECK(moved(full, all) == 0.0);
  // Megatron's default min_offloaded_tensor_size, 1Mi elements: these tensors (at most 64
  // elements) all stay.
  CHECK(moved(none, all, default_min_offloaded_elements) == 0.0);
  // The threshold is per tensor, and a tensor of exactly that many elements moves (Megatron
  // keeps those with fewer): Q, K and V on a rank have 32/2 = 16 elements, the scores 80/5 = 16
  // (three tensors of 2, 1 and 2 bytes per element), the layer and QKV inputs 64/2 = 32.
  const unsigned two = bit(offload_module::qkv_linear) | bit(offload_module::core_attn);
  CHECK(moved(none, two, 16) == 128.0 + 176.0);
  CHECK(moved(none, two, 17) == 128.0);
  CHECK(moved(none, two, 33) == 0.0);

  // Stage 0 (p = 2, m = 4): 4 layers' worth in flight, each keeping 784 - 336 = 448, and one
  // layer's 336 on the GPU (the layer Megatron does not offload, or the one reloaded for its
  // backward), plus the embedding masks, 64: 4*448 + 336 + 64 = 2192 instead of 4*784 + 64.
  const parallel_config par{.tp = 2, .pp = 2, .dp = 2, .micro_batch = 1, .global_batch = 8};
  recompute_recipe recipe;
  recipe.offload_modules = all;
  recipe.min_offloaded_elements = 0;
  const auto r = memory_per_gpu(spec, par, bytes(2e4), unfused, mixed_precision_adam, 2, {},
                                selective_policy::attention_core, recipe);
  CHECK(r.stages[0].activations.value() == 4 * 448 + 336 + 64);
  recipe.min_offloaded_elements = default_min_offloaded_elements;
  CHECK(memory_per_gpu(spec, par, bytes(2e4), unfused, mixed_precision_adam, 2, {},
                       selective_policy::attention_core, recipe)
            .stages[0]
            .activations.value() == 4 * 784 + 64);
}

TEST_CASE("Fine-grained offloading in MLA and MoE layers, with the recomputation it meets",
          "[memory]") {
  // DeepSeek-V3's layer at s = 1024, b = 1, t = 2, etp = 1, no SP, fused attention, selective
  // (core_attn); 8192 routed copies on this GPU. Megatron's threshold, 1Mi elements.
  auto spec = model_preset_named("deepseek-v3", "model").spec;
  spec.seq = 1024;
  const expert_tokens tokens{
      .local = 1024.0, .copies = 8192.0, .routed = 8192.0, .local_experts = 32.0, .routes = true};
  const auto moved = [&](unsigned offload, unsigned recompute) {
    recompute_recipe recipe;
    recipe.modules = recompute;
    recipe.offload_modules = offload;
    return offloaded_bytes_per_layer(spec, 1, 1024, 2, false, selective, fused, recipe, true,
                                     tokens, 1)
        .value();
  };
  const auto off = [](offload_module m) { return static_cast<unsigned>(m); };
  const auto rc = [](recompute_module m) { return static_cast<unsigned>(m); };
  const unsigned core = rc(recompute_module::core_attn);
  const double sb = 1024.0, h = 7168.0, a = 128.0, fe = 2048.0;
  REQUIRE(static_cast<double>(spec.hidden) == h);
  REQUIRE(static_cast<double>(spec.moe.expert_ffn) == fe);
  // attn_norm: MLA's input norm is a module: the layer input, 2*sbh (7.3Mi elements).
  CHECK(moved(off(offload_module::attn_norm), core) == 2.0 * sb * h);
  // qkv_linear: the norm output, 2*sbh, and two copies of the q latent (1536 wide: 1.5Mi
  // elements); the kv latent, 1024*512 = 0.5Mi elements, stays on the GPU.
  CHECK(moved(off(offload_module::qkv_linear), core) == 2.0 * sb * h + 2.0 * 2.0 * sb * 1536.0);
  // ... layernorm recomputation has already discarded the norm output.
  CHECK(moved(off(offload_module::qkv_linear), core | rc(recompute_module::layernorm)) ==
        2.0 * 2.0 * sb * 1536.0);
  // core_attn: Q and K (a*192 wide) and V (a*128) over t; the statistics (a*s/t = 64Ki fp32)
  // are recomputed with the core here. mla_up_proj recomputation already frees Q, K and V.
  CHECK(moved(off(offload_module::core_attn), core) == 2.0 * sb * a * (192.0 + 192.0 + 128.0) / 2);
  CHECK(moved(off(offload_module::core_attn), core | rc(recompute_module::mla_up_proj)) == 0.0);
  // attn_proj: its input, a*128 over t.
  CHECK(moved(off(offload_module::attn_proj) | off(offload_module::core_attn),
              core | rc(recompute_module::mla_up_proj)) == 2.0 * sb * a * 128.0 / 2);
  // mlp_norm: the MoE layer's pre-MLP norm input, 2*sbh.
  CHECK(moved(off(offload_module::mlp_norm), core) == 2.0 * sb * h);
  // expert_fc1: the permuted tokens, 2*h per copy; moe_act: fc1's output, 4*f_e per copy
  // (gated), which moe_act recomputation keeps as its checkpoint's input.
  CHECK(moved(off(offload_module::expert_fc1), core) == 8192.0 * 2.0 * h);
  CHECK(moved(off(offload_module::moe_act), core | rc(recompute_module::moe_act)) ==
        8192.0 * 4.0 * fe);
  // moe recomputation: the MoE layer's forward saves nothing for these two to move.
  CHECK(moved(off(offload_module::expert_fc1) | off(offload_module::moe_act),
              core | rc(recompute_module::moe)) == 0.0);
}

TEST_CASE("Megatron's offload module lists are read and checked as __post_init__ checks them",
          "[memory]") {
  CHECK(offload_modules_to_string(parse_offload_modules("[moe_act attn_norm]", "f")) ==
        "attn_norm,moe_act");
  CHECK(parse_offload_modules("core_attn,attn_proj", "f") ==
        (static_cast<unsigned>(offload_module::core_attn) |
         static_cast<unsigned>(offload_module::attn_proj)));
  CHECK_THROWS_WITH(parse_offload_modules("core_attn,mlp", "--offload-modules"),
                    Catch::StartsWith("--offload-modules: 'mlp' is not an offload module"));
  CHECK_THROWS_WITH(parse_offload_modules("[]", "--offload-modules"),
                    Catch::StartsWith("--offload-modules: is empty"));
  CHECK_THROWS_WITH(parse_offload_modules("attn_proj", "--offload-modules"),
                    Catch::StartsWith("--offload-modules: attn_proj needs core_attn"));
}

TEST_CASE("Megatron's recompute module names are read as lists, and unknown ones refused",
          "[memory]") {
  CHECK(parse_recompute_modules("core_attn,mlp", "f") ==
        (static_cast<unsigned>(recompute_module::core_attn) |
         static_cast<unsigned>(recompute_module::mlp)));
  CHECK(recompute_modules_to_string(parse_recompute_modules("[moe_act layernorm]", "f")) ==
        "moe_act,layernorm");
  CHECK(recompute_modules_to_string(parse_recompute_modules("", "f")) == "none");
  CHECK_THROWS_WITH(parse_recompute_modules("core_attn,attn", "--recompute-modules"),
                    Catch::Contains("'attn' is not a recompute module"));
  CHECK(parse_recompute_method("block", "f") == recompute_method::block);
  CHECK_THROWS_AS(parse_recompute_method("blocks", "f"), invalid_spec);
}
