// Degree lists: explicit lists, doubling ranges, arithmetic and geometric steps.
#include "tpcost/base/degree_list.hpp"

#include <catch2/catch.hpp>

using namespace tpcost;
using v = std::vector<std::int64_t>;

TEST_CASE("Lists and ranges expand, sort and deduplicate", "[degree_list]") {
  CHECK(parse_degree_list("1,2,4,8,16,32", "f") == v{1, 2, 4, 8, 16, 32});
  CHECK(parse_degree_list("1..64", "f") == v{1, 2, 4, 8, 16, 32, 64});
  CHECK(parse_degree_list("3..20", "f") == v{3, 6, 12});
  CHECK(parse_degree_list("1..5:+1", "f") == v{1, 2, 3, 4, 5});
  CHECK(parse_degree_list("2..54:x3", "f") == v{2, 6, 18, 54});
  CHECK(parse_degree_list("8, 1..4, 4", "f") == v{1, 2, 4, 8});
  CHECK(parse_degree_list("7", "f") == v{7});
  CHECK(parse_degree_list("1..4096:+1", "f").size() == max_degree_count);
  CHECK(parse_degree_list("1..9223372036854775807", "f").size() == 63);  // no overflow
}

TEST_CASE("Bad lists are rejected with a reason", "[degree_list]") {
  for (const char* bad : {"", "1,,2", "0", "0..8", "-1", "8..1", "1..8:+0", "1..8:x1", "1..8:*2",
                          "1..4097:+1", "1..4000:+1,5000..9000:+1", "a..b", "1.5", "1..", "..8",
                          "-2..54" /* found by the fuzzer: doubling a negative overflowed */}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_degree_list(bad, "--tp"), parse_error);
  }
}
