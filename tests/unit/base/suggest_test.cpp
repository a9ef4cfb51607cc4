// "Did you mean ...?" suggestions.
#include "tpcost/base/suggest.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace tpcost;

TEST_CASE("Edit distance counts insertions, deletions and substitutions, ignoring case",
          "[suggest]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("bandwith", "bandwidth") == 1);
  CHECK(edit_distance("H100", "h100") == 0);
}

TEST_CASE("The closest candidate is suggested only when it is a plausible typo", "[suggest]") {
  const std::vector<std::string> names{"bandwidth", "flops", "dtype", "parallel", "model"};
  CHECK(closest_match("bandwith", names) == "bandwidth");
  CHECK(closest_match("parralel", names) == "parallel");
  CHECK(closest_match("modle", names) == "model");
  CHECK(closest_match("flop", names) == "flops");  // a prefix
  CHECK_FALSE(closest_match("colour", names).has_value());
  CHECK_FALSE(closest_match("zzzzzzzz", names).has_value());
  CHECK_FALSE(closest_match("x", std::vector<std::string>{}).has_value());
}
