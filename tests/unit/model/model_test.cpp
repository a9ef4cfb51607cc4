// Parameter counts from dimensions, against hand derivations and published exact counts.
#include "tpcost/model/model.hpp"

#include <catch2/catch.hpp>
#include <random>

#include "support/matchers.hpp"
#include "support/models.hpp"

using namespace tpcost;
using tpcost::test::gpt_spec;
using tpcost::test::near;

TEST_CASE("A tiny GPT's parameters, counted by hand", "[model]") {
  // L=2, h=8, a=2, V=10, s=4, GPT conventions (ffn = 4h = 32).
  // attention per layer: QKV 8*24 = 192 weights + 24 bias, output 8*8 = 64 + 8 bias -> 288
  // MLP per layer: 8*32 + 32 bias, 32*8 + 8 bias -> 256 + 32 + 256 + 8 = 552
  // norms per layer: 2 LayerNorms of weight + bias, 2*16 = 32      -> layer = 872
  // word embedding 10*8 = 80 (tied: no output layer), positions 4*8 = 32, final norm 16
  // total = 2*872 + 80 + 32 + 16 = 1872
  const auto p = count_params(gpt_spec(2, 8, 2, 10, 4));
  CHECK(p.per_layer == 872);
  CHECK(p.attention == 2 * 288);
  CHECK(p.mlp == 2 * 552);
  CHECK(p.norms == 2 * 32 + 16);
  CHECK(p.embedding == 80);
  CHECK(p.positions == 32);
  CHECK(p.output == 0);
  CHECK(p.total == 1872);
}

TEST_CASE("A tiny Llama-style model with GQA and SwiGLU, counted by hand", "[model]") {
  // L=1, h=8, a=4, kv=2 (head dim 2, kv_dim 4), ffn=12, V=16, s=6, Llama conventions.
  // attention: Q 8*8 + K 8*4 + V 8*4 + O 8*8 = 64 + 32 + 32 + 64 = 192, no biases
  // MLP: gate, up 8*12 each, down 12*8 = 3*96 = 288
  // norms: 2 RMSNorm weights of 8 = 16             -> layer = 496
  // embeddings untied: 16*8 twice = 256; no position parameters; final norm 8
  // total = 496 + 256 + 8 = 760
  auto spec = with_architecture(
      {.layers = 1, .hidden = 8, .heads = 4, .kv_heads = 2, .ffn = 12, .vocab = 16, .seq = 6},
      architecture::llama);
  CHECK(kv_dim(spec) == 4);
  const auto p = count_params(spec);
  CHECK(p.attention == 192);
  CHECK(p.mlp == 288);
  CHECK(p.per_layer == 496);
  CHECK(p.positions == 0);
  CHECK(p.output == 128);
  CHECK(p.total == 760);
}

TEST_CASE("GPT-2 small has the 124,439,808 parameters of its published checkpoint", "[model]") {
  // openai-community/gpt2 on the Hugging Face Hub: 124,439,808 parameters (tied embeddings).
  CHECK(count_params(gpt_spec(12, 768, 12, 50257, 1024)).total == 124'439'808);
}

TEST_CASE("Llama 2 7B has the 6,738,415,616 parameters of its published checkpoint", "[model]") {
  // meta-llama/Llama-2-7b-hf: 32 layers of 4*4096^2 + 3*4096*11008 + 2*4096 = 202,383,360,
  // plus 2*32000*4096 embeddings and the final norm, 4096.
  const auto spec = with_architecture(
      {.layers = 32, .hidden = 4096, .heads = 32, .ffn = 11008, .vocab = 32000, .seq = 4096},
      architecture::llama);
  CHECK(count_params(spec).per_layer == 202'383'360);
  CHECK(count_params(spec).total == 6'738'415'616);
}

TEST_CASE("With GPT conventions the count is Narayanan et al. eq. (2) plus the final norm",
          "[model]") {
  // P = 12*L*h^2*(1 + 13/(12h) + (V+s)/(12*L*h)); eq. (2) leaves out the final LayerNorm (2h).
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> small(1, 200);
  for (int i = 0; i < 2000; ++i) {
    const auto a = small(rng);
    const auto h = a * small(rng);
    const auto L = small(rng);
    const auto V = small(rng) * 500;
    const auto s = small(rng) * 20;
    const auto spec = gpt_spec(L, h, a, V, s);
    CAPTURE(L, h, a, V, s);
    const double eq2 = 12.0 * static_cast<double>(L * h * h) *
                       (1.0 + 13.0 / (12.0 * static_cast<double>(h)) +
                        static_cast<double>(V + s) / (12.0 * static_cast<double>(L * h)));
    CHECK_THAT(static_cast<double>(count_params(spec).total - 2 * h), near(eq2, 1e-12));
  }
}

TEST_CASE("Defaults: kv_heads 0 means heads, ffn 0 means 4h", "[model]") {
  const auto spec = gpt_spec(2, 64, 8, 100, 16);
  CHECK(kv_heads_of(spec) == 8);
  CHECK(ffn_of(spec) == 256);
  CHECK(kv_dim(spec) == 64);
  CHECK(mlp_matrices(spec) == 2);
}

TEST_CASE("Fewer KV heads shrink only the K and V projections", "[model]") {
  auto mha =
      with_architecture({.layers = 1, .hidden = 64, .heads = 8, .ffn = 128, .vocab = 10, .seq = 4},
                        architecture::llama);
  auto gqa = mha;
  gqa.kv_heads = 2;  // kv_dim 16 instead of 64: K and V lose 2*64*48 weights
  CHECK(count_params(mha).attention - count_params(gqa).attention == 2 * 64 * 48);
  CHECK(count_params(mha).mlp == count_params(gqa).mlp);
}

TEST_CASE("Architecture bundles round-trip and a mix reads as custom", "[model]") {
  auto spec = gpt_spec(2, 8, 2, 10, 4);
  CHECK(architecture_of(spec) == architecture::gpt);
  spec = with_architecture(spec, architecture::llama);
  CHECK(architecture_of(spec) == architecture::llama);
  spec.linear_biases = true;
  CHECK(architecture_of(spec) == architecture::custom);
  CHECK(to_string(architecture_of(spec)) == "custom");
  CHECK(parse_architecture("LLaMA", "--arch") == architecture::llama);
  CHECK(parse_architecture("gpt", "--arch") == architecture::gpt);
  CHECK_THROWS_WITH(parse_architecture("bert", "--arch"),
                    Catch::Contains("'bert' is not an architecture"));
  CHECK(describe_conventions(gpt_spec(2, 8, 2, 10, 4)) ==
        "linear biases, LayerNorm, learned positions, tied embeddings, plain MLP (GeLU, 2 "
        "matrices)");
}

TEST_CASE("Invalid dimensions name their field", "[model]") {
  const auto field_of = [](const transformer_spec& spec) {
    try {
      validate(spec);
    } catch (const invalid_spec& e) {
      return e.field();
    }
    return std::string("(valid)");
  };
  const auto ok = gpt_spec(2, 64, 8, 100, 16);
  CHECK(field_of(ok) == "(valid)");
  auto s = ok;
  s.layers = 0;
  CHECK(field_of(s) == "layers");
  s = ok;
  s.heads = 7;  // 7 does not divide 64
  CHECK(field_of(s) == "heads");
  CHECK_THROWS_WITH(validate(s), Catch::Contains("7 heads do not divide hidden = 64"));
  s = ok;
  s.kv_heads = 3;  // 3 does not divide 8
  CHECK(field_of(s) == "kv_heads");
  s.kv_heads = 16;  // more KV heads than heads
  CHECK(field_of(s) == "kv_heads");
  s = ok;
  s.ffn = -4;
  CHECK(field_of(s) == "ffn");
  s = ok;
  s.vocab = 0;
  CHECK(field_of(s) == "vocab");
  s = ok;
  s.seq = std::int64_t{1} << 40;
  CHECK(field_of(s) == "seq");
  s = gpt_spec(1'000'000, 1'000'000, 1000, 100, 16);  // 4e18 parameters
  CHECK(field_of(s) == "hidden");
  CHECK_THROWS_WITH(validate(s), Catch::Contains("beyond the 1e15"));
}
