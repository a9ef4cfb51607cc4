// Mixture of experts, MLA, head_dim and MTP: parameters, FLOPs, validation, the presets against
// their publications, the shipped Hugging Face configs against the presets.
#include "tpcost/model/moe.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "support/hf_errors.hpp"
#include "support/matchers.hpp"
#include "tpcost/io/hf_config.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/mla.hpp"
#include "tpcost/model/model_presets.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/model/published_flops.hpp"

using namespace tpcost;
using tpcost::test::hf_error_of;
using tpcost::test::near;

namespace {
const std::string examples = TPCOST_EXAMPLES_DIR;

std::string field_of_error(const transformer_spec& spec) {
  try {
    validate(spec);
  } catch (const invalid_spec& e) {
    return e.field();
  }
  return "(no error)";
}

const std::string mixtral_body =
    R"("model_type": "mixtral", "hidden_size": 4096, "num_attention_heads": 32,
       "num_key_value_heads": 8, "num_hidden_layers": 32, "intermediate_size": 14336,
       "vocab_size": 32000, "max_position_embeddings": 32768)";

const transformer_spec& preset(const char* name) { return model_preset_named(name, "model").spec; }
}  // namespace

TEST_CASE(
    "A dense model written as one expert with top-1 has the dense model's parameters and "
    "FLOPs",
    "[moe]") {
  for (const char* name : {"llama-3-8b", "gpt-3-175b"}) {
    CAPTURE(name);
    const auto dense = preset(name);
    auto one = dense;
    one.moe = moe_spec{.experts = 1, .top_k = 1, .expert_ffn = ffn_of(dense)};
    REQUIRE(field_of_error(one) == "(no error)");
    CHECK(moe_layers(one) == dense.layers);
    const auto a = count_params(dense);
    const auto b = count_params(one);
    CHECK(b.total == a.total);
    CHECK(b.active == a.active);
    CHECK(b.mlp + b.experts + b.routers == a.mlp);
    for (const auto mode :
         {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
      CHECK(hardware_flops_per_token(one, 2048, mode).value() ==
            hardware_flops_per_token(dense, 2048, mode).value());
    }
    CHECK(forward_flops_per_token(one, 4096).mlp.value() ==
          forward_flops_per_token(dense, 4096).mlp.value());
  }
}

TEST_CASE("MoE layer patterns: DeepSeek's first_k_dense_replace, Qwen's and Llama 4's steps",
          "[moe]") {
  // DeepSeek-V3: 61 layers, the first 3 dense.
  CHECK(moe_layer_count({.experts = 256, .top_k = 8, .expert_ffn = 1, .dense_layers = 3}, 61) ==
        58);
  // Llama 4 Maverick: interleave_moe_layer_step 2 -> layers 1, 3, ..., 47.
  const moe_spec maverick{
      .experts = 128, .top_k = 1, .expert_ffn = 1, .layer_freq = 2, .layer_offset = 1};
  CHECK(moe_layer_count(maverick, 48) == 24);
  CHECK_FALSE(is_moe_layer(maverick, 0));
  CHECK(is_moe_layer(maverick, 47));
  // The closed form against counting, over every small pattern.
  for (std::int64_t freq = 1; freq <= 4; ++freq) {
    for (std::int64_t offset = 0; offset < freq; ++offset) {
      for (std::int64_t dense = 0; dense <= 5; ++dense) {
        const moe_spec m{.experts = 4,
                         .top_k = 1,
                         .expert_ffn = 1,
                         .dense_layers = dense,
                         .layer_freq = freq,
                         .layer_offset = offset};
        for (std::int64_t layers = 0; layers <= 13; ++layers) {
          std::int64_t n = 0;
          for (std::int64_t i = 0; i < layers; ++i) {
            n += is_moe_layer(m, i) ? 1 : 0;
          }
          CHECK(moe_layer_count(m, layers) == n);
        }
      }
    }
  }
}

TEST_CASE("DeepSeek-V3's parameters by part, from its dimensions", "[moe]") {
  const auto& s = preset("deepseek-v3");
  const auto p = count_params(s);
  const std::int64_t h = 7168;
  // 58 MoE layers of 256 routed experts (3 matrices of 7168 x 2048) and one shared expert.
  CHECK(p.experts == 58 * 256 * 3 * h * 2048);
  CHECK(p.shared == 58 * 3 * h * 2048);
  CHECK(p.routers == 58 * h * 256);
  CHECK(p.mlp == 3 * 3 * h * 18432);
  // MLA: q_a 7168x1536 + norm 1536 + q_b 1536 x 128*192, kv_a 7168 x (512+64) + norm 512 +
  // kv_b 512 x 128*(128+128), o 128*128 x 7168.
  const std::int64_t mla =
      h * 1536 + 1536 + 1536 * 128 * 192 + h * 576 + 512 + 512 * 128 * 256 + 128 * 128 * h;
  CHECK(attention_params_per_layer(s) == mla);
  // The MTP module: 3 norms, the 2h -> h projection, one MoE layer.
  CHECK(p.mtp == 3 * h + 2 * h * h + mla + 2 * h + 256 * 3 * h * 2048 + 3 * h * 2048 + h * 256);
  // 671B without the MTP module (DeepSeek-V3 report, Sec. 4.2).
  CHECK(std::fabs(static_cast<double>(p.total - p.mtp) / 671e9 - 1.0) < 0.005);
}

TEST_CASE("Active parameters of every MoE preset are within 2.5% of the published figure",
          "[moe]") {
  int checked = 0;
  for (const auto& pr : model_presets) {
    if (!is_moe(pr.spec.moe)) {
      CHECK(pr.published_active == 0.0);
      continue;
    }
    CAPTURE(pr.name);
    auto main = pr.spec;
    main.mtp_layers = 0;  // published activated counts are the main model's
    const auto p = count_params(main);
    // The gpt-oss model card counts active parameters without the input embedding
    // (arXiv:2508.10925, Table 1: 5.13B = 5.71B less the 0.58B embedding).
    const bool without_embedding = pr.name.substr(0, 7) == "gpt-oss";
    const auto active = static_cast<double>(p.active - (without_embedding ? p.embedding : 0));
    CAPTURE(active, pr.published_active);
    CHECK(std::fabs(active / pr.published_active - 1.0) <= 0.025);
    CHECK(p.active < p.total);
    ++checked;
  }
  CHECK(checked == 12);
}

TEST_CASE(
    "FLOPs follow the active parameters: model FLOPs per token are about 6 x active plus "
    "attention",
    "[moe]") {
  // Qwen3-235B-A22B at s = 4096: the core attention is 94 x 4 x 4096 x (64 x 128) forward
  // (the full s x s score matrix, flops.hpp's convention; q_dim = 8192, not h = 4096).
  const auto& s = preset("qwen3-235b-a22b");
  const auto f = forward_flops_per_token(s, 4096);
  CHECK_THAT(f.attention.value(), near(94.0 * 4.0 * 4096.0 * 64.0 * 128.0));
  // Every other FLOP is 2 per active matmul weight, 3 times: the embedding lookup and the
  // norms are the active parameters that are not matmuls.
  const auto p = count_params(s);
  CHECK_THAT(model_flops_per_token(s, 4096).value() - 3.0 * f.attention.value(),
             near(6.0 * static_cast<double>(p.active - p.embedding - p.norms)));
}

TEST_CASE("MoE, MLA and MTP specs that cannot describe a model name the field", "[moe]") {
  auto s = preset("mixtral-8x7b");
  s.moe.top_k = 9;
  CHECK(field_of_error(s) == "top_k");
  s.moe.top_k = 0;
  CHECK(field_of_error(s) == "top_k");
  s = preset("mixtral-8x7b");
  s.moe.expert_ffn = 0;
  CHECK(field_of_error(s) == "expert_ffn");
  s = preset("mixtral-8x7b");
  s.moe.dense_layers = 32;
  CHECK(field_of_error(s) == "dense_layers");
  s = preset("llama-3-8b");
  s.moe.top_k = 2;  // experts left at 0
  CHECK(field_of_error(s) == "experts");
  s = preset("deepseek-v3");
  s.mla.v_head_dim = 0;
  CHECK(field_of_error(s) == "v_head_dim");
  s = preset("deepseek-v3");
  s.mtp_layers = 62;
  CHECK(field_of_error(s) == "mtp_layers");
}

TEST_CASE("Routing groups divide the experts and hold at least top-k experts per token", "[moe]") {
  auto s = preset("deepseek-v3");
  CHECK(s.moe.routing.groups == 8);
  CHECK(s.moe.routing.groups_per_token == 4);
  CHECK(is_group_limited(s.moe.routing));
  s.moe.routing.groups = 7;  // 256 experts do not split into 7 groups
  CHECK(field_of_error(s) == "router_groups");
  s.moe.routing = {.groups = 8, .groups_per_token = 9};
  CHECK(field_of_error(s) == "router_group_topk");
  s.moe.routing = {.groups = 64, .groups_per_token = 1};  // 4 experts in one group, top-8
  CHECK(field_of_error(s) == "router_group_topk");
  s.moe.routing = {.groups = 64, .groups_per_token = 2};  // 8 experts in two: enough
  CHECK(field_of_error(s) == "(no error)");
  s.moe.routing = {.groups = 0, .groups_per_token = 1};
  CHECK(field_of_error(s) == "router_groups");
  s.moe.routing = {.groups = 8, .groups_per_token = 8};  // every group: top-k over all E
  CHECK_FALSE(is_group_limited(s.moe.routing));
  auto dense = preset("llama-3-8b");
  dense.moe.routing.groups = 8;
  CHECK(field_of_error(dense) == "experts");
}

TEST_CASE("step costs experts, MLA, MTP and wide heads, while the per-layer model refuses them",
          "[moe]") {
  const parallel_config par{.tp = 1, .pp = 1, .dp = 1, .micro_batch = 1, .global_batch = 1};
  CHECK_NOTHROW(validate(preset("mixtral-8x7b"), par));
  CHECK_THROWS_WITH(require_dense_mha(preset("mixtral-8x7b"), "model"),
                    Catch::Contains("mixture-of-experts layers, which the per-layer"));
  auto mla_only = preset("deepseek-v3");
  mla_only.moe = {};
  CHECK_NOTHROW(validate(mla_only, par));
  CHECK_THROWS_WITH(require_dense_mha(mla_only, "model"),
                    Catch::Contains("multi-head latent attention"));
  mla_only.mla = {};
  CHECK_NOTHROW(validate(mla_only, par));
  CHECK_THROWS_WITH(require_dense_mha(mla_only, "model"),
                    Catch::Contains("multi-token-prediction layers"));
  auto wide_heads = preset("llama-3-8b");
  wide_heads.head_dim = 256;
  CHECK_NOTHROW(validate(wide_heads, par));
  CHECK_NOTHROW(require_dense_mha(wide_heads, "model"));  // flops.hpp counts q_dim
  CHECK_NOTHROW(validate(preset("llama-3-8b"), par));
}

TEST_CASE("The shipped MoE configs read as their presets", "[moe][hf_config]") {
  for (const char* name : {"mixtral-8x7b", "mixtral-8x22b", "qwen2-57b-a14b", "qwen3-30b-a3b",
                           "qwen3-235b-a22b", "deepseek-v2", "deepseek-v3", "kimi-k2"}) {
    CAPTURE(name);
    auto spec = io::load_hf_config(examples + "/" + name + ".json", "--hf-config");
    const auto& want = preset(name);
    spec.seq = want.seq;  // the presets' s is the pre-training length, not max_position_embeddings
    const auto a = count_params(spec);
    const auto b = count_params(want);
    CHECK(a.total == b.total);
    CHECK(a.active == b.active);
    CHECK(a.experts == b.experts);
    CHECK(a.mtp == b.mtp);
    CHECK(moe_layers(spec) == moe_layers(want));
    CHECK(head_dim(spec) == head_dim(want));
    CHECK(is_mla(spec.mla) == is_mla(want.mla));
    CHECK(spec.moe.routing.groups == want.moe.routing.groups);
    CHECK(spec.moe.routing.groups_per_token == want.moe.routing.groups_per_token);
    CHECK(forward_flops_per_token(spec, 4096).total().value() ==
          forward_flops_per_token(want, 4096).total().value());
  }
}

TEST_CASE("GPT-OSS's windowed and Llama 4's chunked layers are read, not refused",
          "[moe][hf_config]") {
  for (const char* name : {"gpt-oss-120b", "gpt-oss-20b"}) {
    CAPTURE(name);
    const auto spec = io::load_hf_config(examples + "/" + name + ".json", "--hf-config");
    CHECK(spec.attention_window == 128);
    CHECK(spec.window_full_every == 2);
  }
  for (const char* name : {"llama-4-scout", "llama-4-maverick"}) {  // chunked attention
    CAPTURE(name);
    const auto spec = io::load_hf_config(examples + "/" + name + ".json", "--hf-config");
    CHECK(spec.attention_chunk == 8192);
    CHECK(spec.window_full_every == 4);
  }
}

TEST_CASE("An MoE key the reader does not understand is an error naming it", "[moe][hf_config]") {
  // ERNIE-4.5 (baidu/ERNIE-4.5-21B-A3B-PT): moe_num_experts once read as a 3.35B dense model.
  const std::string ernie =
      R"({"model_type": "ernie4_5_moe", "hidden_size": 2560, "num_attention_heads": 20,
          "num_key_value_heads": 4, "num_hidden_layers": 28, "intermediate_size": 12288,
          "vocab_size": 103424, "max_position_embeddings": 131072, "moe_num_experts": 64,
          "moe_k": 6, "moe_intermediate_size": 1536, "moe_layer_start_index": 1})";
  const auto e = hf_error_of(ernie);
  CHECK_THAT(e, Catch::Contains("/moe_k: "));
  CHECK_THAT(e, Catch::Contains("moe_num_experts"));
  CHECK_THAT(e, Catch::Contains("a mixture-of-experts key this reader does not understand"));
  // Turned-off settings are not errors, nor are router settings without a cost.
  CHECK(hf_error_of("{" + mixtral_body +
                    R"(, "num_local_experts": 8, "num_experts_per_tok": 2, "moe_capacity": null,
                    "router_aux_loss_coef": 0.02, "use_moe_kernel": false})") == "(no error)");
}

TEST_CASE("Bad expert settings in a config name their key", "[moe][hf_config]") {
  CHECK_THAT(
      hf_error_of("{" + mixtral_body + R"(, "num_local_experts": 8, "num_experts_per_tok": 9})"),
      Catch::Contains("/num_experts_per_tok: top-k = 9 is above the 8 routed experts"));
  CHECK_THAT(hf_error_of("{" + mixtral_body + R"(, "n_shared_experts": 2})"),
             Catch::Contains("/n_shared_experts: an expert setting without a number of experts"));
  CHECK_THAT(
      hf_error_of("{" + mixtral_body +
                  R"(, "num_experts": 8, "num_experts_per_tok": 2, "mlp_only_layers": [3]})"),
      Catch::Contains("/mlp_only_layers: dense layers other than the leading ones"));
  CHECK_THAT(hf_error_of("{" + mixtral_body + R"(, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
                      "qk_rope_head_dim": 64})"),
             Catch::Contains("/v_head_dim: missing"));
  CHECK_THAT(hf_error_of(R"({"model_type": "llama4"})"), Catch::Contains("/text_config: missing"));
}

TEST_CASE("DeepSeek's n_group and topk_group are read unless the method is greedy",
          "[moe][hf_config]") {
  const auto v3 = io::load_hf_config(examples + "/deepseek-v3.json", "--hf-config");
  CHECK(v3.moe.routing.groups == 8);
  CHECK(v3.moe.routing.groups_per_token == 4);
  const auto v2 = io::load_hf_config(examples + "/deepseek-v2.json", "--hf-config");
  CHECK(v2.moe.routing.groups_per_token == 3);
  const auto k2 = io::load_hf_config(examples + "/kimi-k2.json", "--hf-config");
  CHECK_FALSE(is_group_limited(k2.moe.routing));
  const std::string experts = R"(, "num_local_experts": 64, "num_experts_per_tok": 4)";
  const auto read = [&](const std::string& extra) {
    return io::from_hf_config(nlohmann::json::parse("{" + mixtral_body + experts + extra + "}"),
                              "c.json", "--hf-config")
        .moe.routing;
  };
  CHECK(read(R"(, "n_group": 8, "topk_group": 2)").groups_per_token == 2);
  // "greedy" (DeepSeek-V2-Lite) takes the top-k over all experts, whatever the groups say.
  CHECK(read(R"(, "n_group": 8, "topk_group": 2, "topk_method": "greedy")").groups == 1);
  CHECK_THAT(hf_error_of("{" + mixtral_body + experts + R"(, "n_group": 7, "topk_group": 2})"),
             Catch::Contains("/n_group: 7 routing groups do not divide the 64 routed experts"));
  CHECK_THAT(hf_error_of("{" + mixtral_body + experts + R"(, "n_group": 8, "topk_group": 9})"),
             Catch::Contains("/topk_group: 9 groups per token is above the 8 routing groups"));
  CHECK_THAT(hf_error_of("{" + mixtral_body + experts + R"(, "n_group": 8})"),
             Catch::Contains("/topk_group: missing"));
  CHECK_THAT(hf_error_of("{" + mixtral_body + experts + R"(, "topk_method": 3, "n_group": 8})"),
             Catch::Contains("/topk_method: expected a string"));
  // Without experts the router's group keys are a template's leftovers, not an error.
  CHECK(hf_error_of("{" + mixtral_body + R"(, "n_group": 8, "topk_group": 4})") == "(no error)");
}

TEST_CASE(
    "Megatron-LM's FLOP count reproduces the FLOPs per token that published MoE TFLOP/s "
    "imply",
    "[moe][flops]") {
  // FLOPs per token implied by a row: TFLOP/s per GPU x GPUs x step time / (G x s).
  // yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @020b8136b3bc, Qwen3-235B-A22B
  // on 256 H100, G = 2048, s = 4096: 245 TF/GPU at 19.7 s, 276 at 17.6 s, 200 at 24.2 s.
  for (const auto& [tf, step] :
       {std::pair{245.0, 19.7}, std::pair{276.0, 17.6}, std::pair{200.0, 24.2}}) {
    const double implied = tf * 1e12 * 256.0 * step / (2048.0 * 4096.0);
    CAPTURE(tf, step, implied);
    // The TF/s are printed to 3 digits: 0.5% of slack.
    CHECK_THAT(megatron_model_flops_per_token(preset("qwen3-235b-a22b"), 4096).value(),
               Catch::Matchers::WithinRel(implied, 0.006));
  }
  // NeMo 25.07 performance summary (DGX-GB200), Llama 4 Scout, s = 8192: 1501 TF/GPU at 9.51 s
  // on 64 GPUs, G = 1024.
  const double scout = 1501e12 * 64.0 * 9.51 / (1024.0 * 8192.0);
  CHECK_THAT(megatron_model_flops_per_token(preset("llama-4-scout"), 8192).value(),
             Catch::Matchers::WithinRel(scout, 0.006));
  // flops.hpp counts the full score matrix and the router: more, by the causal half of the core.
  const auto& q = preset("qwen3-235b-a22b");
  const double half_core = 0.5 * 3.0 * forward_flops_per_token(q, 4096).attention.value();
  const double router = 3.0 * 94.0 * 2.0 * 4096.0 * 128.0;
  CHECK_THAT(
      model_flops_per_token(q, 4096).value() - megatron_model_flops_per_token(q, 4096).value(),
      near(half_core + router));
}
