// Windowed attention (model.hpp): sliding-window and chunked layers cost only their window in
// FLOPs, kernel time and memory; the HF reader reads GPT-OSS's layer_types, Mistral's
// sliding_window and Llama 4's attention_chunk_size.
#include <catch2/catch.hpp>
#include <string>

#include "support/matchers.hpp"
#include "support/models.hpp"
#include "tpcost/io/hf_config.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/memory.hpp"
#include "tpcost/model/model_presets.hpp"
#include "tpcost/step/compute_model.hpp"
#include "tpcost/step/context_parallel.hpp"

using namespace tpcost;
using tpcost::test::gpt_spec;
using tpcost::test::near;

namespace {
const std::string examples = TPCOST_EXAMPLES_DIR;

constexpr compute_device h100{.peak = flops_per_second(989e12),
                              .memory_bandwidth = bytes_per_second(3.35e12),
                              .efficiency = {.matmul = 0.75, .memory = 0.8}};

/// Tiny GPT: L = 2, h = 8, a = 2, V = 10, s = 8; full-convention core 4·s·h = 256 FLOP per
/// token and layer.
transformer_spec tiny() { return gpt_spec(2, 8, 2, 10, 8); }
}  // namespace

TEST_CASE("Windowed pairs by hand: s*w - w*(w-1)/2 and whole chunks of c*(c+1)/2",
          "[attention_window]") {
  auto spec = tiny();
  CHECK(causal_attention_pairs(8.0) == 36.0);  // 1 + 2 + ... + 8
  spec.attention_window = 2;                   // 1 + 2*7 = 8*2 - 1
  CHECK(windowed_attention_pairs(spec, 8) == 15.0);
  spec.attention_window = 0;
  spec.attention_chunk = 4;  // two chunks of 1+2+3+4
  CHECK(windowed_attention_pairs(spec, 8) == 20.0);
  spec.attention_chunk = 3;  // 6 + 6 + the last 2 tokens' 1 + 2
  CHECK(windowed_attention_pairs(spec, 8) == 15.0);
  CHECK(windowed_score_elements(spec, 8) == 9.0 + 9.0 + 4.0);
  spec.attention_chunk = 0;
  spec.attention_window = 2;
  CHECK(windowed_score_elements(spec, 8) == 16.0);  // s x w
}

TEST_CASE("A windowed layer's attention FLOPs are the full layer's times the window's pairs",
          "[attention_window][flops]") {
  const auto full = tiny();
  auto windowed = full;
  windowed.attention_window = 2;
  const double full_core = forward_flops_per_token(full, 8).attention.value();
  CHECK(full_core == 2 * 256.0);
  // Every layer windowed: 15/36 of the pairs.
  CHECK_THAT(forward_flops_per_token(windowed, 8).attention.value(),
             near(2 * 256.0 * 15.0 / 36.0, 1e-12));
  // Layer 0 windowed, layer 1 full (GPT-OSS's alternation).
  windowed.window_full_every = 2;
  CHECK(windowed_layers(windowed) == 1);
  CHECK(is_windowed_layer(windowed, 0));
  CHECK_FALSE(is_windowed_layer(windowed, 1));
  CHECK_THAT(forward_flops_per_token(windowed, 8).attention.value(),
             near(256.0 + 256.0 * 15.0 / 36.0, 1e-12));
  // Only the attention core moves; Megatron's halved count scales by the same pairs.
  CHECK(forward_flops_per_token(windowed, 8).projections.value() ==
        forward_flops_per_token(full, 8).projections.value());
  const double megatron_drop =
      (megatron_model_flops_per_token(full, 8) - megatron_model_flops_per_token(windowed, 8))
          .value();
  // Megatron's core is 6·s·q per token and layer (384 here); the window cuts 21/36 of it.
  CHECK_THAT(megatron_drop, near(6.0 * 8 * 8 * 21.0 / 36.0, 1e-12));
  // Chunked: two chunks of 4 keep 20/36.
  auto chunked = full;
  chunked.attention_chunk = 4;
  CHECK_THAT(forward_flops_per_token(chunked, 8).attention.value(),
             near(2 * 256.0 * 20.0 / 36.0, 1e-12));
}

TEST_CASE("A window or chunk that covers the sequence costs exactly full causal attention",
          "[attention_window]") {
  const auto full = model_preset_named("llama-3-8b", "test").spec;
  for (const std::int64_t w : {full.seq, 2 * full.seq}) {
    auto sliding = full;
    sliding.attention_window = w;
    auto chunked = full;
    chunked.attention_chunk = w;
    for (const auto& spec : {sliding, chunked}) {
      CHECK_FALSE(window_cuts(spec, spec.seq));
      CHECK(model_flops_per_token(spec, spec.seq).value() ==
            model_flops_per_token(full, full.seq).value());
      CHECK(layer_compute_time(spec, 1, 1, h100, attention_kernel::fused)
                .total(recompute_mode::none)
                .value() == layer_compute_time(full, 1, 1, h100, attention_kernel::fused)
                                .total(recompute_mode::none)
                                .value());
    }
  }
}

TEST_CASE("Fused attention time scales with the window's pairs, unfused scores with s x w",
          "[attention_window][compute_model][memory]") {
  const compute_device gpu = h100;
  auto full = model_preset_named("llama-3-8b", "test").spec;  // s = 8192
  auto windowed = full;
  windowed.attention_window = 1024;
  const double s = 8192.0;
  const double w = 1024.0;
  const double pairs = (s * w - w * (w - 1.0) / 2.0) / (s * (s + 1.0) / 2.0);
  const auto fused_full = layer_compute_time(full, 1, 1, gpu, attention_kernel::fused);
  const auto fused_window = layer_compute_time(windowed, 1, 1, gpu, attention_kernel::fused);
  CHECK_THAT(fused_window.attention_core_forward.value(),
             near(fused_full.attention_core_forward.value() * pairs, 1e-12));
  // Unfused: 5 bytes per score (softmax, dropout mask, dropout output), s x w of them.
  const double rows = 32.0 * s * 1.0;  // a·s·b
  CHECK(attention_core_bytes(full, 1, 8192, 1, recompute_mode::none, attention_kernel::unfused)
            .value() == rows * 5.0 * s);
  CHECK(attention_core_bytes(windowed, 1, 8192, 1, recompute_mode::none, attention_kernel::unfused)
            .value() == rows * 5.0 * w);
  // Fused keeps one fp32 statistic per row, window or not.
  CHECK(attention_core_bytes(windowed, 1, 8192, 1, recompute_mode::none, attention_kernel::fused)
            .value() == rows * 4.0);
}

TEST_CASE("Context parallelism with a window that cuts the sequence is refused",
          "[attention_window][context_parallel]") {
  auto spec = model_preset_named("llama-3-8b", "test").spec;
  spec.attention_window = 1024;
  CHECK_THROWS_WITH(validate(context_parallel{.cp = 2}, spec, 1, 8),
                    Catch::Contains("sliding-window or chunked") && Catch::Contains("--cp 1"));
  spec.attention_window = spec.seq;  // covers the sequence: nothing to exchange differently
  CHECK_NOTHROW(validate(context_parallel{.cp = 2}, spec, 1, 8));
}

TEST_CASE("GPT-OSS's config.json is read with its 128-token window on alternate layers",
          "[attention_window][hf_config]") {
  for (const char* name : {"gpt-oss-120b", "gpt-oss-20b"}) {
    CAPTURE(name);
    const auto spec = io::load_hf_config(examples + "/" + name + ".json", "--hf-config");
    CHECK(spec.attention_window == 128);
    CHECK(spec.attention_chunk == 0);
    CHECK(spec.window_full_every == 2);
    const auto& preset = model_preset_named(name, "test").spec;
    CHECK(preset.attention_window == 128);
    CHECK(preset.window_full_every == 2);
    CHECK(forward_flops_per_token(spec, 4096).attention.value() ==
          forward_flops_per_token(preset, 4096).attention.value());
  }
  const auto spec = io::load_hf_config(examples + "/gpt-oss-120b.json", "--hf-config");
  CHECK(windowed_layers(spec) == 18);
  // At s = 4096: 18 full layers and 18 of 4096*128 - 128*127/2 pairs of 4096*4097/2.
  const double r = (4096.0 * 128 - 128.0 * 127 / 2) / (4096.0 * 4097 / 2);
  CHECK_THAT(attention_pair_fraction(spec, 4096), near((18.0 + 18.0 * r) / 36.0, 1e-12));
}

TEST_CASE("Llama 4's chunked layers: three of four, or as no_rope_layers marks them",
          "[attention_window][hf_config]") {
  const auto scout = io::load_hf_config(examples + "/llama-4-scout.json", "--hf-config");
  CHECK(scout.attention_chunk == 8192);
  CHECK(scout.window_full_every == 4);
  CHECK(windowed_layers(scout) == 36);
  const auto read = [](const std::string& extra) {
    return io::from_hf_config(
        nlohmann::json::parse(
            R"({"hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 4,
                "intermediate_size": 14336, "vocab_size": 128256,
                "max_position_embeddings": 8192)" +
            extra + "}"),
        "c.json", "--hf-config");
  };
  CHECK(
      read(R"(, "attention_chunk_size": 2048, "no_rope_layers": [1, 0, 1, 0])").window_full_every ==
      2);
  CHECK(
      read(R"(, "attention_chunk_size": 2048, "no_rope_layers": [1, 1, 1, 1])").window_full_every ==
      0);
  CHECK_THROWS_WITH(read(R"(, "attention_chunk_size": 2048, "no_rope_layers": [0, 1, 1, 1])"),
                    Catch::Contains("/no_rope_layers") && Catch::Contains("every g-th"));
  // Mistral: one window on every layer; Gemma 3: every 6th layer global.
  const auto mistral = read(R"(, "sliding_window": 4096)");
  CHECK(mistral.attention_window == 4096);
  CHECK(windowed_layers(mistral) == 4);
  CHECK(read(R"(, "sliding_window": 1024, "sliding_window_pattern": 2)").window_full_every == 2);
  CHECK(read(R"(, "sliding_window": null)").attention_window == 0);
  CHECK(read(R"(, "sliding_window": 4096, "use_sliding_window": false)").attention_window == 0);
}
