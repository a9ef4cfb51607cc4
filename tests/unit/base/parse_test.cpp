// Reading human inputs: numbers with SI and binary prefixes, units, dtypes, counts.
#include "tpcost/base/parse.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "support/matchers.hpp"

using namespace tpcost;
using tpcost::test::near;

TEST_CASE("Bandwidths read decimal prefixes, bytes and bits", "[parse]") {
  CHECK(parse_bandwidth("600GB/s", "f").value() == 600e9);
  CHECK(parse_bandwidth("600e9B/s", "f").value() == 600e9);
  // A bare number is refused: 400 B/s is never what "--inter-bandwidth 400" meant.
  CHECK_THROWS_WITH(parse_bandwidth("400", "--inter-bandwidth"),
                    "--inter-bandwidth: '400' has no unit; expected a bandwidth such as 600GB/s, "
                    "600e9B/s or 200Gb/s (bits)");
  CHECK(parse_bandwidth("0", "f").value() == 0.0);  // zero in every unit
  CHECK(parse_bandwidth("600G", "f").value() == 600e9);
  CHECK(parse_bandwidth(" 600 GB/s ", "f").value() == 600e9);
  CHECK(parse_bandwidth("25GBps", "f").value() == 25e9);
  CHECK(parse_bandwidth("200Gb/s", "f").value() == 25e9);  // bits: InfiniBand HDR per port
  CHECK(parse_bandwidth("400Gbit/s", "f").value() == 50e9);
  CHECK(parse_bandwidth("1GiB/s", "f").value() == 1073741824.0);
  CHECK(parse_bandwidth("+1.5TB/s", "f").value() == 1.5e12);
}

TEST_CASE("Compute rates read FLOP/s, FLOPS and bare prefixes", "[parse]") {
  CHECK(parse_flop_rate("1PFLOP/s", "f").value() == 1e15);
  CHECK_THAT(parse_flop_rate("989.4T", "f").value(), near(989.4e12));
  CHECK(parse_flop_rate("312TFLOPS", "f").value() == 312e12);
  CHECK(parse_flop_rate("312 Tflop/s", "f").value() == 312e12);
  CHECK(parse_flop_rate("1e15FLOP/s", "f").value() == 1e15);
  CHECK_THROWS_WITH(parse_flop_rate("1e15", "--flops"), Catch::Contains("'1e15' has no unit"));
}

TEST_CASE("Sizes and durations read their units", "[parse]") {
  CHECK(parse_bytes("80GiB", "f").value() == 80.0 * 1073741824.0);
  CHECK(parse_bytes("1.5GB", "f").value() == 1.5e9);
  CHECK(parse_bytes("134217728B", "f").value() == 134217728.0);
  CHECK_THROWS_WITH(parse_bytes("134217728", "--size"), Catch::Contains("has no unit"));
  CHECK(parse_bytes("4k", "f").value() == 4000.0);
  CHECK_THAT(parse_duration("5us", "f").value(), near(5e-6));
  CHECK_THAT(parse_duration("5\xC2\xB5s", "f").value(), near(5e-6));
  CHECK_THAT(parse_duration("1.2ms", "f").value(), near(1.2e-3));
  CHECK(parse_duration("3e-6", "f").value() == 3e-6);
}

TEST_CASE("Dtypes read names (any case) and byte counts", "[parse]") {
  CHECK(parse_dtype("fp32", "f").size_bytes == 4);
  CHECK(parse_dtype("TF32", "f").size_bytes == 4);
  CHECK(parse_dtype("bf16", "f").size_bytes == 2);
  CHECK(parse_dtype("fp16", "f").size_bytes == 2);
  CHECK(parse_dtype("fp8", "f").size_bytes == 1);
  CHECK(parse_dtype("2", "f").size_bytes == 2);
  CHECK_THROWS_AS(parse_dtype("0", "f"), parse_error);
  CHECK_THROWS_AS(parse_dtype("17", "f"), parse_error);
  CHECK_THROWS_AS(parse_dtype("int4", "f"), parse_error);
  CHECK_THROWS_AS(parse_dtype("", "f"), parse_error);
}

TEST_CASE("Every spelling of a dtype has its kind, and a byte count has none", "[parse]") {
  for (const char* fp16 : {"fp16", "FLOAT16", "Half"}) {
    CAPTURE(fp16);
    CHECK(dtype_kind(parse_dtype(fp16, "f").name) == std::optional<std::string_view>("fp16"));
  }
  CHECK(dtype_kind(parse_dtype("bfloat16", "f").name) == std::optional<std::string_view>("bf16"));
  CHECK(dtype_kind(parse_dtype("e5m2", "f").name) == std::optional<std::string_view>("fp8"));
  CHECK_FALSE(dtype_kind(parse_dtype("2", "f").name).has_value());
  // Each kind is itself a name of its own kind, so a canonical name parses back to itself.
  for (const auto& n : dtype_names) {
    CAPTURE(n.name);
    CHECK(dtype_kind(n.kind) == std::optional<std::string_view>(n.kind));
    CHECK(parse_dtype(n.kind, "f").size_bytes == n.size_bytes);
  }
}

TEST_CASE("Counts are plain decimal digits", "[parse]") {
  CHECK(parse_count("2048", "f") == 2048);
  CHECK(parse_count(" 7 ", "f") == 7);
  CHECK(parse_count("-3", "f") == -3);  // the sign is read; ranges are checked by validate()
  for (const char* bad : {"", "2.5", "1e3", "abc", "12abc", "99999999999999999999999"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_count(bad, "f"), parse_error);
  }
}

TEST_CASE("Malformed quantities fail with the field, the text and what was expected", "[parse]") {
  for (const char* bad : {"", "abc", "GB/s", "600XB/s", "nan", "inf", "-inf", "1e999", "600 GB/s/s",
                          "0x10", "600MiB/min"}) {
    CAPTURE(bad);
    try {
      (void)parse_bandwidth(bad, "--bandwidth");
      FAIL("accepted");
    } catch (const parse_error& e) {
      CHECK(e.field() == "--bandwidth");
      CHECK(std::string(e.what()).find("--bandwidth") == 0);
    }
  }
  CHECK_THROWS_AS(parse_flop_rate("1PB/s", "f"), parse_error);
  CHECK_THROWS_AS(parse_bytes("1GB/s", "f"), parse_error);
  CHECK_THROWS_AS(parse_bytes("1Gb", "f"), parse_error);  // bits are not a size here
  CHECK_THROWS_AS(parse_duration("5 min", "f"), parse_error);
  CHECK_THROWS_AS(parse_bandwidth("1e308T", "f"), parse_error);  // overflows after the prefix
}

TEST_CASE("Errors show control characters escaped, so they stay on one line", "[parse]") {
  try {
    (void)parse_count("1\n2", "--batch");
    FAIL("accepted");
  } catch (const parse_error& e) {
    CHECK(std::string(e.what()) ==
          "--batch: '1\\x0a2' is not a whole number; expected digits such as 2048");
  }
}

TEST_CASE("Counts take the size suffixes of sequence lengths: 8k is 8192", "[parse]") {
  CHECK(parse_count("8k", "--seq") == 8192);
  CHECK(parse_count("32K", "--seq") == 32768);
  CHECK(parse_count("128Ki", "--seq") == 131072);
  CHECK(parse_count("1.5k", "--global-batch") == 1536);
  CHECK(parse_count("4M", "--global-batch") == 4194304);
  CHECK_THROWS_WITH(parse_count("1.3k", "--seq"),
                    "--seq: '1.3k' is not a whole number (k = 1024, M = 1048576); expected digits "
                    "such as 2048 or 8k");
  CHECK_THROWS_AS(parse_count("8kb", "--seq"), parse_error);
  CHECK_THROWS_AS(parse_count("k", "--seq"), parse_error);
}

TEST_CASE("Fractions are numbers or percentages", "[parse]") {
  CHECK(parse_fraction("0.7", "--min-efficiency") == 0.7);
  CHECK(parse_fraction("70%", "--min-efficiency") == 0.7);
  CHECK(parse_fraction("12.5 %", "--overlap") == 0.125);
  CHECK_THROWS_AS(parse_fraction("70 percent", "--overlap"), parse_error);
  CHECK_THROWS_AS(parse_fraction("%", "--overlap"), parse_error);
}
