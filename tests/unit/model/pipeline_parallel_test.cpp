// Pipeline parallelism: bubble, p2p bytes and counts, stage sizes, and layout checks.
#include "tpcost/model/pipeline_parallel.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "support/matchers.hpp"
#include "support/models.hpp"
#include "tpcost/model/model_presets.hpp"

using namespace tpcost;
using tpcost::test::gpt_spec;
using tpcost::test::near;

namespace {
std::string invalid_field(const transformer_spec& spec, const parallel_config& par) {
  try {
    (void)summarize_pipeline(spec, par, 2, false);
  } catch (const invalid_spec& e) {
    return e.field();
  }
  return "(valid)";
}
}  // namespace

TEST_CASE("The 1F1B bubble is (p-1)/m of the ideal time, interleaved (p-1)/(v*m)",
          "[pipeline_parallel]") {
  CHECK(bubble_fraction(4, 8) == 3.0 / 8.0);
  CHECK(bubble_fraction(4, 8, 2) == 3.0 / 16.0);
  CHECK(bubble_fraction(1, 8) == 0.0);
  // SC21 Table 1, 1T row: p = 64, G = 3072, d = 6, b = 1 -> m = 512: 63/512 = 12.3%.
  CHECK_THAT(bubble_fraction(64, 3072 / 6), near(63.0 / 512.0));
  CHECK_THAT(bubble_time(seconds(10.0), 4, 8, 2).value(), near(10.0 * 3.0 / 16.0));
}

TEST_CASE("A p2p message is b*s*h*d bytes, a 1/t slice with SP or scatter/gather",
          "[pipeline_parallel]") {
  // GPT-3: b=1, s=2048, h=12288, 16-bit: 2048*12288*2 = 50,331,648 B.
  CHECK(p2p_message_bytes(1, 2048, 12288, 2, 8, false).value() == 50331648.0);
  CHECK(p2p_message_bytes(1, 2048, 12288, 2, 8, true).value() == 50331648.0 / 8);
  CHECK(p2p_message_bytes(4, 2048, 12288, 2, 1, true).value() == 4 * 50331648.0);
}

TEST_CASE("p2p transfers per step: 2*m*(p*v - 1), the busiest GPU sends 2*m*v",
          "[pipeline_parallel]") {
  // p=4, m=8, v=1: each micro-batch crosses 3 boundaries forward and 3 backward: 48.
  auto c = p2p_transfers_per_step(4, 8);
  CHECK(c.boundaries == 3);
  CHECK(c.per_step == 48);
  CHECK(c.max_sends_per_gpu == 16);  // a middle stage: 8 activations + 8 gradients
  // v=2: 7 chunk boundaries; 112 transfers; a middle stage sends 2*8*2 = 32.
  c = p2p_transfers_per_step(4, 8, 2);
  CHECK(c.boundaries == 7);
  CHECK(c.per_step == 112);
  CHECK(c.max_sends_per_gpu == 32);
  // p=2: the first stage sends m*v activations and m*(v-1) gradients.
  CHECK(p2p_transfers_per_step(2, 8, 2).max_sends_per_gpu == 8 * 3);
  CHECK(p2p_transfers_per_step(2, 8).max_sends_per_gpu == 8);
  CHECK(p2p_transfers_per_step(1, 8).per_step == 0);
  CHECK(p2p_transfers_per_step(1, 8).max_sends_per_gpu == 0);
}

TEST_CASE("Uneven stages: shorter stages at the ends, as Llama 3 405B ran on 16 stages",
          "[pipeline_parallel]") {
  const auto llama = layers_per_stage(126, 16);
  CHECK(llama.front() == 7);
  CHECK(llama.back() == 7);
  CHECK(std::count(llama.begin(), llama.end(), 8) == 14);
  CHECK(layers_per_stage(10, 4) == std::vector<std::int64_t>{2, 3, 3, 2});
  CHECK(layers_per_stage(11, 4) == std::vector<std::int64_t>{2, 3, 3, 3});
  CHECK(layers_per_stage(12, 4) == std::vector<std::int64_t>{3, 3, 3, 3});
  CHECK(layers_per_stage(5, 4) == std::vector<std::int64_t>{1, 1, 1, 2});
  CHECK(layers_per_stage(16, 10).empty());  // 6 longer stages: no split with equal middles
  for (std::int64_t L = 1; L <= 64; ++L) {
    for (std::int64_t p = 1; p <= L; ++p) {
      const auto stages = layers_per_stage(L, p);
      const auto longer = L % p;  // a balanced split with equal middles has 0-2 odd stages
      INFO("L = " << L << ", p = " << p);
      CHECK(stages.empty() == !(longer <= 2 || longer >= p - 2));
      if (stages.empty()) {
        continue;
      }
      CHECK(std::accumulate(stages.begin(), stages.end(), std::int64_t{0}) == L);
      const auto [lo, hi] = std::minmax_element(stages.begin(), stages.end());
      CHECK(*hi - *lo <= 1);
    }
  }
}

TEST_CASE("A pipeline summary gathers stages, bubble, p2p and warnings", "[pipeline_parallel]") {
  const auto& llama405 = model_preset_named("llama-3-405b", "test").spec;
  const parallel_config par{.tp = 8,
                            .pp = 16,
                            .dp = 128,
                            .micro_batch = 1,
                            .global_batch = 2048,
                            .sequence_parallel = true};
  const auto s = summarize_pipeline(llama405, par, 2, false);
  CHECK(s.micro_batches == 16);
  CHECK(s.max_layers == 8);
  CHECK(s.bubble_fraction == 15.0 / 16.0);
  CHECK(s.p2p_message.value() == 8192.0 * 16384 * 2 / 8);
  REQUIRE(s.warnings.size() == 1);
  CHECK_THAT(s.warnings[0],
             Catch::Contains("uneven stages for L = 126: 7 layers on the first stage, "
                             "8 on each middle one, 7 on the last"));
}

TEST_CASE("Few micro-batches warn: interleaving needs m >= p, not m a multiple of p",
          "[pipeline_parallel]") {
  const auto spec = gpt_spec(16, 64, 8, 100, 32);
  parallel_config par{.pp = 4, .micro_batch = 1, .global_batch = 2};
  auto s = summarize_pipeline(spec, par, 2, false);
  REQUIRE(s.warnings.size() == 1);
  CHECK_THAT(s.warnings[0],
             Catch::Contains("m = 2 micro-batches for p = 4 stages") && Catch::Contains("150%"));
  par.vpp = 2;
  CHECK_THROWS_WITH(summarize_pipeline(spec, par, 2, false),
                    Catch::Contains("vpp:") && Catch::Contains("needs m >= p"));
  par.global_batch = 6;  // m = 6 >= p = 4: Megatron-Core's microbatch group of 4..6
  CHECK(summarize_pipeline(spec, par, 2, false).warnings.empty());
  par.global_batch = 8;
  CHECK(summarize_pipeline(spec, par, 2, false).warnings.empty());
}

TEST_CASE("Invalid pipeline layouts name their field", "[pipeline_parallel][parallelism]") {
  const auto spec = gpt_spec(12, 64, 8, 100, 32);
  CHECK(invalid_field(spec, {.pp = 4, .global_batch = 8}) == "(valid)");
  CHECK(invalid_field(spec, {.vpp = 2, .global_batch = 8}) == "vpp");  // v > 1 needs p >= 2
  CHECK(invalid_field(spec, {.pp = 4, .vpp = 2, .global_batch = 8}) == "vpp");  // 8 ∤ 12
  CHECK(invalid_field(spec, {.pp = 13, .global_batch = 8}) == "pp");            // p > L
  CHECK(invalid_field(spec, {.tp = 3, .global_batch = 8}) == "tp");             // 3 ∤ 8 heads
  CHECK(invalid_field(spec, {.dp = 3, .micro_batch = 2, .global_batch = 8}) == "global_batch");
  CHECK_THROWS_WITH(
      summarize_pipeline(spec, {.dp = 3, .micro_batch = 2, .global_batch = 8}, 2, false),
      "global_batch: G = 8 is not a multiple of d*b = 3*2 = 6; use a multiple, "
      "e.g. 12");
  CHECK(invalid_field(spec, {.tp = 0}) == "tp");
  // GQA: Llama 3 8B has 8 KV heads, so t = 16 cannot split them.
  const auto& llama = model_preset_named("llama-3-8b", "test").spec;
  CHECK(invalid_field(llama, {.tp = 16, .global_batch = 8}) == "tp");
  CHECK_THROWS_WITH(validate(llama, {.tp = 16}), Catch::Contains("the 8 KV heads"));
}

TEST_CASE("Megatron-Core's uneven splits: end stages, accounted embedding and loss, layout strings",
          "[pipeline_parallel]") {
  const auto& llama405 = model_preset_named("llama-3-405b", "test").spec;
  parallel_config par{.pp = 16, .global_batch = 16};
  par.embedding_in_split = true;
  par.loss_in_split = true;  // 126 + 2 = 128 slots, 8 a stage: 7, 8 x 14, 7
  const auto accounted = split_of(llama405, par);
  CHECK(accounted == pipeline_split{.stages = 16, .first = 7, .middle = 8, .last = 7});
  par.loss_in_split = false;  // 127 slots on 16 stages: refused, as Megatron-Core asserts
  CHECK_THROWS_WITH(split_of(llama405, par), Catch::Contains("pp-layout:"));
  par.embedding_in_split = false;
  par.first_stage_layers = 6;  // only the first given: the other 15 share 120 evenly
  CHECK(split_of(llama405, par) ==
        pipeline_split{.stages = 16, .first = 6, .middle = 8, .last = 8});

  const auto plain = parse_pipeline_layout("Et*7|(t*8|)*14t*7L", 16, 126, "--pp-layout");
  CHECK(plain.first == 7);
  CHECK(plain.last == 7);
  CHECK(plain.virtual_stages == 1);
  // 32 stages for p = 16: v = 2, rank r holds stages r and r + 16.
  const auto interleaved = parse_pipeline_layout("Et*3|(t*4|)*30t*3,L", 16, 126, "--pp-layout");
  CHECK(interleaved.virtual_stages == 2);
  CHECK(interleaved.first == 3 + 4);
  CHECK(interleaved.last == 4 + 3);
  // 'm', the MTP modules (Megatron-Core core_v0.16.0, LayerType.mtp): after every decoder
  // layer, in the last virtual stage of the last rank, where tpcost places them. Megatron-LM's
  // functional test gpt3_moe_mcore_te_tp2_pp2_ep4_etp1_fine_grained_offloading: 8 stages for
  // p = 2, rank 0 holding 3 + 2 + 2 + 2 layers, rank 1 2 + 2 + 2 + 0 and the MTP module.
  const auto mtp = parse_pipeline_layout("Et*3|(tt|)*6mL", 2, 15, "--pp-layout", 1);
  CHECK(mtp.first == 9);
  CHECK(mtp.last == 6);
  CHECK(mtp.virtual_stages == 4);
  CHECK_THROWS_WITH(parse_pipeline_layout("Et*3|(tt|)*6mL", 2, 15, "--pp-layout"),
                    Catch::Contains("1 MTP modules m, the model has 0"));
  CHECK_THROWS_WITH(parse_pipeline_layout("Et*3|(tt|)*5ttm|L", 2, 15, "--pp-layout", 1),
                    Catch::Contains("the last virtual stage of the last rank"));
  CHECK_THROWS_WITH(parse_pipeline_layout("Et*3|(tt|)*6mtL", 2, 16, "--pp-layout", 1),
                    Catch::Contains("decoder layers must be placed before the MTP modules"));
  for (const char* bad : {"t*126", "Et*126", "Et*7|(t*8|)*14t*7", "Et*7|(t*8|*14t*7L",
                          "Et*7|(t*9|)*13t*8|t*7L", "Et*7|(t*8|)*14mt*7L", "Et*7|(t*8|)*14t*8L"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_pipeline_layout(bad, 16, 126, "--pp-layout"),
                      Catch::StartsWith("--pp-layout:"));
  }
}
