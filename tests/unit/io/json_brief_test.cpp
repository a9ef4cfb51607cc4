// Reading untrusted JSON (io/json_brief.hpp): bounded depth, bounded and non-recursive briefs.
#include "tpcost/io/json_brief.hpp"

#include <catch2/catch.hpp>
#include <string>

#include <nlohmann/json.hpp>

using namespace tpcost;

namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_untrusted_json(text, "--hf-config", "x.json: ");
  } catch (const invalid_spec& e) {
    return e.field() + ": " + e.detail();
  }
  return "";
}

}  // namespace

TEST_CASE("json_brief shows a scalar as written and a container by its size", "[json_brief]") {
  CHECK(json_brief(nlohmann::json(4096)) == "4096");
  CHECK(json_brief(nlohmann::json("llama")) == "\"llama\"");
  CHECK(json_brief(nlohmann::json(nullptr)) == "null");
  CHECK(json_brief(nlohmann::json::array({1, 2, 3})) == "an array of 3 items");
  CHECK(json_brief(nlohmann::json::object({{"a", 1}, {"b", 2}})) == "an object of 2 keys");
  // A 60 KB string: at most ~80 bytes of it, then its size.
  const auto brief = json_brief(nlohmann::json(std::string(60000, 'x')));
  CHECK(brief.size() < 120);
  CHECK(brief.find("(60002 bytes)") != std::string::npos);
}

TEST_CASE("json_brief does not visit a deep container", "[json_brief]") {
  // Built without recursion: 100,000 nested arrays, which dump() would recurse through.
  nlohmann::json deep = nlohmann::json::array();
  nlohmann::json* inner = &deep;
  for (int i = 0; i < 100000; ++i) {
    inner->push_back(nlohmann::json::array());
    inner = &inner->back();
  }
  CHECK(json_brief(deep) == "an array of 1 items");
  // Destroying `deep` recurses in nlohmann 3.11 only through its own iterative destructor.
}

TEST_CASE("parse_untrusted_json stops at the depth limit and names the field", "[json_brief]") {
  const std::string ok = std::string(max_json_depth, '[') + std::string(max_json_depth, ']');
  CHECK_NOTHROW(parse_untrusted_json(ok, "f"));
  const std::string too_deep =
      std::string(max_json_depth + 1, '[') + std::string(max_json_depth + 1, ']');
  CHECK(error_of(too_deep) ==
        "--hf-config: x.json: nesting deeper than 64 levels; no input of this kind is that deep");
  // 75,000 levels, the stack overflow of issue 17: refused at level 65, without recursion.
  CHECK(error_of(std::string(75000, '[')).rfind("--hf-config: x.json: nesting deeper", 0) == 0);
}

TEST_CASE("parse_untrusted_json turns every json exception into one bounded line", "[json_brief]") {
  CHECK(error_of("{\"hidden_size\": 1e400}").rfind("--hf-config: x.json: not valid JSON: ", 0) ==
        0);
  const auto syntax = error_of("{\"a\": }");
  CHECK(syntax.rfind("--hf-config: x.json: not valid JSON: parse error at line 1, column 7: ", 0) ==
        0);
  CHECK(syntax.find("[json.exception") == std::string::npos);  // the prefix is dropped
  // A long junk value: the message stays short.
  CHECK(error_of("{\"a\": \"" + std::string(5000, 'z')).size() < 300);
  CHECK(parse_untrusted_json("{\"a\": [1, 2]}", "f")["a"][1] == 2);
}
