// Reading Hugging Face config.json files: the shipped examples against the presets, and
// malformed files naming the file and the JSON pointer.
#include "tpcost/io/hf_config.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "support/hf_errors.hpp"
#include "tpcost/model/model_presets.hpp"

using namespace tpcost;
using tpcost::test::hf_error_of;

namespace {
const std::string examples = TPCOST_EXAMPLES_DIR;

bool same_spec(const transformer_spec& a, const transformer_spec& b) {
  return a.layers == b.layers && a.hidden == b.hidden && a.heads == b.heads &&
         kv_heads_of(a) == kv_heads_of(b) && ffn_of(a) == ffn_of(b) && a.gated_mlp == b.gated_mlp &&
         a.vocab == b.vocab && a.seq == b.seq && architecture_of(a) == architecture_of(b) &&
         a.linear_biases == b.linear_biases && a.tied_embeddings == b.tied_embeddings;
}

const std::string llama_body =
    R"("hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
       "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 8192)";
}  // namespace

TEST_CASE("The shipped Llama configs read as their presets", "[hf_config]") {
  for (const auto* name : {"llama-3-8b", "llama-3-70b", "llama-2-7b"}) {
    CAPTURE(name);
    const auto spec = io::load_hf_config(examples + "/" + name + ".json", "--hf-config");
    const auto& preset = model_preset_named(name, "test");
    CHECK(same_spec(spec, preset.spec));
    CHECK(count_params(spec).total == count_params(preset.spec).total);
  }
}

TEST_CASE("The shipped dense Qwen3 configs read as their presets", "[hf_config]") {
  for (const auto* name : {"qwen3-8b", "qwen3-14b", "qwen3-32b"}) {
    CAPTURE(name);
    auto spec = io::load_hf_config(examples + "/" + name + ".json", "--hf-config");
    const auto& preset = model_preset_named(name, "test");
    CHECK(spec.seq == 40960);    // max_position_embeddings, the context after long-context training
    spec.seq = preset.spec.seq;  // the presets' s is the pre-training length, 4096
    CHECK(same_spec(spec, preset.spec));
    CHECK(head_dim(spec) == 128);
    CHECK(head_dim(preset.spec) == 128);
    CHECK(count_params(spec).total == count_params(preset.spec).total);
  }
  // Qwen/Qwen3-32B: hidden 5120, 64 layers, 64 heads of 128 (q_dim 8192 > h), 8 KV heads,
  // intermediate 25600, vocab 151936 (tests/cli/data/qwen3_32b_config.json is the same file).
  const auto& q = model_preset_named("qwen3-32b", "test").spec;
  CHECK(q.hidden == 5120);
  CHECK(q.layers == 64);
  CHECK(q.heads == 64);
  CHECK(kv_heads_of(q) == 8);
  CHECK(q_dim(q) == 8192);
  CHECK(ffn_of(q) == 25600);
  CHECK(q.vocab == 151936);
  CHECK_FALSE(q.tied_embeddings);
}

TEST_CASE("GPT-2's config reads with GPT conventions and 124,439,808 parameters", "[hf_config]") {
  const auto spec = io::load_hf_config(examples + "/gpt2.json", "--hf-config");
  CHECK(architecture_of(spec) == architecture::gpt);
  CHECK(spec.hidden == 768);
  CHECK(spec.seq == 1024);
  CHECK(ffn_of(spec) == 3072);  // n_inner absent: 4h
  CHECK(count_params(spec).total == 124'439'808);
}

TEST_CASE("Optional keys: KV heads, ties, biases, activation", "[hf_config]") {
  const auto read = [](const std::string& extra) {
    return io::from_hf_config(nlohmann::json::parse("{" + llama_body + extra + "}"), "c.json",
                              "--hf-config");
  };
  CHECK(kv_heads_of(read("")) == 32);
  CHECK(kv_heads_of(read(R"(, "num_key_value_heads": null)")) == 32);
  CHECK(kv_heads_of(read(R"(, "num_key_value_heads": 8)")) == 8);
  CHECK(read("").gated_mlp);                                 // hidden_act defaults to silu
  CHECK_FALSE(read(R"(, "hidden_act": "gelu")").gated_mlp);  // unknown type, plain GeLU
  CHECK(read(R"(, "hidden_act": "gelu", "model_type": "gemma")").gated_mlp);  // GeGLU
  CHECK(read(R"(, "tie_word_embeddings": true)").tied_embeddings);
  CHECK_FALSE(read("").tied_embeddings);
  CHECK(read(R"(, "attention_bias": true)").linear_biases);
  CHECK(read(R"(, "head_dim": 128)").hidden == 4096);
}

TEST_CASE("Malformed configs name the file and the JSON pointer", "[hf_config]") {
  CHECK(hf_error_of("[1, 2]") ==
        "--hf-config: c.json: the top level is array, expected a JSON object");
  CHECK(hf_error_of(R"({"num_attention_heads": 32})") ==
        "--hf-config: c.json: /hidden_size: missing; the hidden size is required (hidden_size "
        "or n_embd)");
  CHECK(hf_error_of("{" + llama_body + R"(, "num_key_value_heads": "8"})") ==
        "--hf-config: c.json: /num_key_value_heads: expected a whole number, found string \"8\"");
  CHECK(hf_error_of(R"({"hidden_size": 4096.5})") ==
        "--hf-config: c.json: /hidden_size: expected a whole number, found number 4096.5");
  CHECK(hf_error_of(R"({"hidden_size": -4096})") ==
        "--hf-config: c.json: /hidden_size: expected a whole number in 1..2147483647, found "
        "-4096");
  CHECK(hf_error_of(R"({"hidden_size": 18446744073709551615})") ==
        "--hf-config: c.json: /hidden_size: expected a whole number in 1..2147483647, found "
        "18446744073709551615");
  CHECK(hf_error_of("{" + llama_body + R"(, "tie_word_embeddings": "no"})") ==
        "--hf-config: c.json: /tie_word_embeddings: expected true or false, found string \"no\"");
  CHECK(hf_error_of("{" + llama_body + R"(, "hidden_act": 3})") ==
        "--hf-config: c.json: /hidden_act: expected a string, found number 3");
}

TEST_CASE("Inconsistent configs name the key the failed check came from", "[hf_config]") {
  CHECK_THAT(hf_error_of("{" + llama_body + R"(, "num_key_value_heads": 6})"),
             Catch::StartsWith("--hf-config: c.json: /num_key_value_heads: 6 KV heads do not "
                               "divide heads = 32"));
  CHECK_THAT(
      hf_error_of(R"({"n_embd": 100, "n_head": 12, "n_layer": 2, "vocab_size": 10,
                          "n_positions": 8, "model_type": "gpt2"})"),
      Catch::StartsWith("--hf-config: c.json: /n_head: 12 heads do not divide hidden = 100"));
  CHECK_THAT(hf_error_of(R"({"hidden_size": 64, "num_attention_heads": 8, "num_hidden_layers": 2,
                          "vocab_size": 10, "max_position_embeddings": 8})"),
             Catch::StartsWith("--hf-config: c.json: /intermediate_size: missing; a gated MLP"));
  // A head dimension other than h/a is read (Qwen3, GPT-OSS); experts need their top-k.
  CHECK(hf_error_of("{" + llama_body + R"(, "head_dim": 256})") == "(no error)");
  CHECK_THAT(hf_error_of("{" + llama_body + R"(, "num_local_experts": 8})"),
             Catch::Contains("/num_experts_per_tok: missing; the number of experts per token"));
  CHECK(hf_error_of("{" + llama_body + R"(, "num_local_experts": 1, "num_experts_per_tok": 1})") ==
        "(no error)");
}

TEST_CASE("Unreadable and non-JSON files name the file", "[hf_config]") {
  CHECK_THROWS_WITH(io::load_hf_config("/nonexistent/config.json", "--hf-config"),
                    "--hf-config: /nonexistent/config.json: cannot be read");
  CHECK_THROWS_WITH(io::load_hf_config(examples, "--hf-config"),
                    Catch::EndsWith(": cannot be read"));
  CHECK_THROWS_WITH(io::load_hf_config(examples + "/README.md", "--hf-config"),
                    Catch::Contains("README.md: not valid JSON: parse error at line 1"));
}

TEST_CASE("Sliding windows are read into the spec, not refused", "[hf_config]") {
  const auto with = [](const std::string& extra) {
    return hf_error_of("{" + llama_body + extra + "}");
  };
  // Mistral-7B-v0.1: a 4096-token window at max_position_embeddings 8192 here
  CHECK(with(R"(, "sliding_window": 4096)") == "(no error)");
  CHECK(with(R"(, "sliding_window": null)") == "(no error)");
  CHECK(with(R"(, "sliding_window": 4096, "use_sliding_window": true)") == "(no error)");
  // Gemma 3: every 6th layer global
  CHECK(with(R"(, "sliding_window": 1024, "sliding_window_pattern": 6)") == "(no error)");
  CHECK_THAT(with(R"(, "sliding_window": 0)"), Catch::Contains("/sliding_window"));
}

TEST_CASE("Per-layer attention types are read, patterns the spec cannot hold refused",
          "[hf_config]") {
  const auto with = [](const std::string& extra) {
    return hf_error_of("{" + llama_body + extra + "}");
  };
  const auto types = [](const std::string& pair) {
    std::string out = R"(, "layer_types": [)";
    for (int i = 0; i < 16; ++i) {
      out += (i == 0 ? "" : ", ") + pair;
    }
    return out + "]";
  };
  CHECK(with(types(R"("full_attention", "full_attention")")) == "(no error)");
  CHECK(with(R"(, "sliding_window": 512)" + types(R"("sliding_attention", "full_attention")")) ==
        "(no error)");
  CHECK_THAT(with(types(R"("sliding_attention", "full_attention")")),
             Catch::Contains("/layer_types") && Catch::Contains("sliding_window"));
  CHECK_THAT(with(R"(, "sliding_window": 512)" + types(R"("full_attention", "sliding_attention")")),
             Catch::Contains("/layer_types") && Catch::Contains("every g-th layer full"));
  CHECK_THAT(with(R"(, "sliding_window": 512, "layer_types": ["sliding_attention"])"),
             Catch::Contains("/layer_types") && Catch::Contains("1 entries for 32 layers"));
  CHECK_THAT(with(R"(, "layer_types": ["linear_attention"])"),
             Catch::Contains("/layer_types") && Catch::Contains("linear_attention"));
  CHECK(with(R"(, "attention_chunk_size": 2048)") == "(no error)");
  CHECK_THAT(with(R"(, "attention_types": [[["global", "local"], 16]])"),
             Catch::Contains("/attention_types"));
}

TEST_CASE("rope_scaling is read and checked: it changes positions, not the cost", "[hf_config]") {
  const auto with = [](const std::string& extra) {
    return hf_error_of("{" + llama_body + extra + "}");
  };
  // Llama 3.1
  CHECK(with(R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8.0,
                 "original_max_position_embeddings": 8192})") == "(no error)");
  CHECK(with(R"(, "rope_scaling": {"type": "linear", "factor": 2.0})") == "(no error)");
  CHECK(with(R"(, "rope_scaling": null)") == "(no error)");
  CHECK_THAT(with(R"(, "rope_scaling": {"rope_type": "mystery"})"),
             Catch::Contains("/rope_scaling/rope_type") && Catch::Contains("mystery"));
  CHECK_THAT(with(R"(, "rope_scaling": {"rope_type": "yarn", "factor": 0.5})"),
             Catch::Contains("/rope_scaling/factor"));
  CHECK_THAT(with(R"(, "rope_scaling": 4)"), Catch::Contains("/rope_scaling"));
  const auto info = io::read_rope_scaling(
      nlohmann::json::parse(R"({"rope_scaling": {"rope_type": "llama3", "factor": 8.0}})"), "c",
      "f");
  CHECK(info.type == "llama3");
  CHECK(info.factor == 8.0);
}
