// The one splitter of name lists (base/word_list.hpp) and the flag sets read and written with it.
#include "tpcost/base/word_list.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tpcost;

namespace {
std::vector<std::string> names_in(std::string_view text, bool plus) {
  std::vector<std::string> out;
  for_each_listed_name(text, plus, [&](std::string_view w) { out.emplace_back(w); });
  return out;
}

enum class colour : unsigned { red = 1, green = 2, blue = 4 };
struct colour_name {
  colour module;
  std::string_view name;
};
constexpr colour_name colours[] = {
    {colour::red, "red"}, {colour::green, "green"}, {colour::blue, "blue"}};
}  // namespace

TEST_CASE("A name list splits as scripts, YAML, Python and plan layouts write it", "[parse]") {
  using v = std::vector<std::string>;
  CHECK(names_in("core_attn,mlp", false) == v{"core_attn", "mlp"});
  CHECK(names_in("core_attn mlp", false) == v{"core_attn", "mlp"});
  CHECK(names_in("[core_attn, 'mlp', \"moe\"]", false) == v{"core_attn", "mlp", "moe"});
  CHECK(names_in("core_attn+mlp", true) == v{"core_attn", "mlp"});
  CHECK(names_in("core_attn+mlp", false) == v{"core_attn+mlp"});  // '+' only where it separates
  CHECK(names_in("", true).empty());
  CHECK(names_in(" ,[ ]'' ", true).empty());
  CHECK(names_in(",,a,,", false) == v{"a"});
}

TEST_CASE("A name list reads onto flags and writes back in the table's order", "[parse]") {
  const auto unknown = [](std::string_view w) { return std::invalid_argument(std::string(w)); };
  const unsigned set = listed_flags("blue, red", false, colours, unknown);
  CHECK(set == (static_cast<unsigned>(colour::red) | static_cast<unsigned>(colour::blue)));
  CHECK(listed_names(colours, set) == "red,blue");
  CHECK(listed_names(colours, set, '+') == "red+blue");
  CHECK(listed_names(colours, 0) == "none");
  CHECK(listed_flags("", false, colours, unknown) == 0U);
  CHECK_THROWS_WITH(listed_flags("red,purple", false, colours, unknown), "purple");
}
