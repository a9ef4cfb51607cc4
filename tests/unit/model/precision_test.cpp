// Precision per kernel as Transformer Engine runs it (model/precision.hpp).
#include "tpcost/model/precision.hpp"

#include <catch2/catch.hpp>

#include "support/matchers.hpp"
#include "support/models.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
constexpr precision_support hopper{
    .fp8 = true, .block_scaled = false, .fp4 = false, .fp8_tn_only = true, .nvfp4 = false};
constexpr precision_support blackwell{
    .fp8 = true, .block_scaled = true, .fp4 = true, .fp8_tn_only = false, .nvfp4 = true};
constexpr precision_support ampere{};
}  // namespace

TEST_CASE("Only the linear layers change rate: attention and logits stay BF16 unless asked",
          "[precision]") {
  const precision_options fp8{.linear = linear_precision::fp8_delayed};
  CHECK(linear_rate(fp8) == tensor_rate::fp8);
  CHECK(attention_rate(fp8) == tensor_rate::bf16);
  CHECK(logits_rate(fp8) == tensor_rate::bf16);
  const precision_options fp4{.linear = linear_precision::nvfp4, .fp8_attention = true};
  CHECK(linear_rate(fp4) == tensor_rate::fp4);
  CHECK(attention_rate(fp4) == tensor_rate::fp8);  // no FP4 attention kernel
  CHECK(linear_rate(precision_options{}) == tensor_rate::bf16);
}

TEST_CASE("Names parse as Megatron spells its recipes, and a wrong one lists them", "[precision]") {
  CHECK(parse_linear_precision("fp8", "--precision") == linear_precision::fp8_delayed);
  CHECK(parse_linear_precision("FP8_current", "--precision") == linear_precision::fp8_current);
  CHECK(parse_linear_precision("tensorwise", "--precision") == linear_precision::fp8_current);
  CHECK(parse_linear_precision("blockwise", "--precision") == linear_precision::fp8_blockwise);
  CHECK(parse_linear_precision("mxfp8", "--precision") == linear_precision::mxfp8);
  CHECK(parse_linear_precision("nvfp4", "--precision") == linear_precision::nvfp4);
  CHECK(parse_linear_precision("bf16", "--precision") == linear_precision::bf16);
  CHECK_THROWS_WITH(parse_linear_precision("fp6", "--precision"),
                    Catch::Contains("--precision") && Catch::Contains("mxfp8"));
}

TEST_CASE("A recipe the GPU cannot run is refused with the GPU named", "[precision]") {
  const auto check = [](linear_precision p, const precision_support& gpu) {
    check_support({.linear = p}, gpu, "H100-SXM", "--precision");
  };
  CHECK_NOTHROW(check(linear_precision::fp8_current, hopper));
  CHECK_THROWS_WITH(check(linear_precision::nvfp4, hopper),
                    Catch::Contains("NVFP4") && Catch::Contains("H100-SXM"));
  CHECK_THROWS_WITH(check(linear_precision::mxfp8, hopper), Catch::Contains("block-scaled"));
  CHECK_THROWS_WITH(check(linear_precision::fp8_delayed, ampere), Catch::Contains("FP8"));
  CHECK_NOTHROW(check(linear_precision::nvfp4, blackwell));
  CHECK_THROWS_WITH(check_support({.fp8_param_gather = true}, hopper, "H100", "--precision"),
                    Catch::Contains("--fp8-param-gather"));
}

TEST_CASE("SP all-gathers carry the quantized operand in TE 2, reductions stay BF16",
          "[precision]") {
  precision_options fp8{.linear = linear_precision::fp8_current};
  CHECK(tp_all_gather_bytes(fp8) == 1.0);
  CHECK(tp_reduce_bytes(fp8) == 2.0);
  fp8.quantized_tp_all_gather = false;  // TE 1.x
  CHECK(tp_all_gather_bytes(fp8) == 2.0);
  // MXFP8: one E8M0 scale per 32 elements; NVFP4: half a byte and an E4M3 scale per 16.
  CHECK_THAT(tp_all_gather_bytes({.linear = linear_precision::mxfp8}), near(1.0 + 1.0 / 32));
  CHECK_THAT(tp_all_gather_bytes({.linear = linear_precision::nvfp4}), near(0.5 + 1.0 / 16));
  CHECK(tp_all_gather_bytes({}) == 2.0);
}

TEST_CASE(
    "FP8 weight copies: a transpose on Hopper, one copy on Blackwell, the BF16 weight "
    "gone with --fp8-param-gather",
    "[precision]") {
  const precision_options fp8{.linear = linear_precision::fp8_delayed};
  CHECK(weight_copy_bytes_per_param(fp8, hopper) == 2.0);
  CHECK(weight_copy_bytes_per_param(fp8, blackwell) == 1.0);
  CHECK_THAT(weight_copy_bytes_per_param({.linear = linear_precision::mxfp8}, blackwell),
             near(2.0 * (1.0 + 1.0 / 32)));
  const precision_options gathered{.linear = linear_precision::fp8_delayed,
                                   .fp8_param_gather = true};
  CHECK(weight_copy_bytes_per_param(gathered, hopper) == 0.0);  // 1 + 1 - 2
  CHECK(weight_copy_bytes_per_param(gathered, blackwell) == -1.0);
  CHECK(param_gather_bytes(gathered) == 1.0);
  CHECK(param_gather_bytes(fp8) == 2.0);
  CHECK(weight_copy_bytes_per_param({}, hopper) == 0.0);
}

TEST_CASE(
    "same_costs: TE's delayed and current per-tensor scaling cost the same, and FP8 blockwise and "
    "MXFP8 (an FP32 scale per 128 elements, an E8M0 per 32), and no other pair",
    "[precision]") {
  const precision_options delayed{.linear = linear_precision::fp8_delayed};
  const precision_options current{.linear = linear_precision::fp8_current};
  CHECK(same_costs(delayed, current));
  CHECK(same_costs(current, delayed));
  // Every other pair of recipes differs in a rate, an operand's bytes or a weight copy.
  for (std::size_t i = 0; i < precision_formats.size(); ++i) {
    for (std::size_t j = 0; j < precision_formats.size(); ++j) {
      const precision_options a{.linear = static_cast<linear_precision>(i)};
      const precision_options b{.linear = static_cast<linear_precision>(j)};
      const auto per_tensor = [](const precision_options& o) {
        return o.linear == linear_precision::fp8_delayed ||
               o.linear == linear_precision::fp8_current;
      };
      const auto block_of_4_bytes_per_128 = [](const precision_options& o) {
        return o.linear == linear_precision::fp8_blockwise || o.linear == linear_precision::mxfp8;
      };
      const bool twins = (per_tensor(a) && per_tensor(b)) ||
                         (block_of_4_bytes_per_128(a) && block_of_4_bytes_per_128(b));
      INFO(to_string(a.linear) << " and " << to_string(b.linear));
      CHECK(same_costs(a, b) == (i == j || twins));
    }
  }
  // The flags count: FP8 attention on one side only is another cost.
  CHECK_FALSE(same_costs(
      delayed, precision_options{.linear = linear_precision::fp8_current, .fp8_attention = true}));
  CHECK_FALSE(same_costs(delayed, precision_options{.linear = linear_precision::fp8_current,
                                                    .fp8_param_gather = true}));
  // And the same recipe on another device (peak or efficiency) is not the same cost.
  const precision_device on_a{.options = delayed, .linear_efficiency = 0.6};
  precision_device on_b{.options = current, .linear_efficiency = 0.6};
  CHECK(same_costs(on_a, on_b));
  on_b.linear_efficiency = 0.61;
  CHECK_FALSE(same_costs(on_a, on_b));
}

TEST_CASE("The quantized weights are the Q, K, V, output and MLP matrices of a layer",
          "[precision]") {
  const auto gpt = test::gpt_spec(1, 1024, 16, 50257, 1024);
  // 4h^2 attention + 8h^2 MLP, no biases or norms
  CHECK(quantized_params_per_layer(gpt) == 12 * 1024 * 1024);
  // Qwen3-32B's attention is wider than its hidden size: 64 heads of 128 (q_dim 8192 > h
  // 5120), 8 KV heads (kv_dim 1024), SwiGLU MLP of 25600. Q, K, V: h·(8192 + 2·1024); output
  // 8192·h: 94.4 M weights, not the 62.9 M that h in place of q_dim gave.
  auto qwen = test::gpt_spec(1, 5120, 64, 151936, 4096);
  qwen.kv_heads = 8;
  qwen.head_dim = 128;
  qwen.ffn = 25600;
  qwen.gated_mlp = true;
  CHECK(quantized_params_per_layer(qwen) == 5120 * (8192 + 2048) + 8192 * 5120 + 3 * 5120 * 25600);
}

TEST_CASE("Utilisation is reported against both peaks and as achieved FLOP/s per GPU",
          "[precision]") {
  // 8 GPUs, 1e15 FLOP in 1 s: 125 TFLOP/s/GPU; BF16 peak 1000 TFLOP/s, FP8 2000 TFLOP/s.
  const auto u = utilisation(flops(1e15), seconds(1.0), 8, flops_per_second(1000e12),
                             flops_per_second(2000e12), tensor_rate::fp8);
  CHECK_THAT(u.mfu_bf16_peak, near(0.125));
  CHECK_THAT(u.mfu_precision_peak, near(0.0625));
  CHECK_THAT(u.model_flops_per_gpu.value(), near(125e12));
  CHECK(u.precision_peak == tensor_rate::fp8);
}
