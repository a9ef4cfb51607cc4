// The interconnect profile file: written by calibrate, read back exactly; every malformed
// field named by its JSON pointer.
#include "tpcost/io/profile_json.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "support/matchers.hpp"

using namespace tpcost;
using json = nlohmann::json;

namespace {

interconnect_profile calibrated() {
  nccl_run run;
  run.source = "synthetic.txt";
  run.collective = collective_op::all_reduce;
  run.ranks = 8;
  run.nodes = 1;
  const link_spec small{60 * units::GB / units::s, 1.5 * units::us};
  const link_spec large{420 * units::GB / units::s, 6 * units::us};
  for (int e = 10; e <= 34; ++e) {
    nccl_sample s;
    s.size = bytes(std::ldexp(1.0, e));
    s.time = ring_time(collective_op::all_reduce, 8, s.size, e < 22 ? small : large);
    s.where = placement::in_place;
    run.samples.push_back(s);
  }
  const std::vector<nccl_run> runs{run};
  calibration_options o;
  o.segments = 2;
  return calibrate(runs, o).profile;
}

json minimal() {
  return {{"schema", "tpcost.interconnect-profile/1"},
          {"profiles",
           {{{"collective", "all_reduce"},
             {"ranks", 8},
             {"alpha_s", 3.4e-6},
             {"beta_bytes_per_s", 4.5e11},
             {"bandwidth_convention", bandwidth_convention}}}}};
}

std::string error_of(const json& doc) {
  try {
    (void)profiles_from_json(doc);
  } catch (const invalid_spec& e) {
    return e.what();
  }
  FAIL("accepted: " << doc.dump());
  return {};
}

}  // namespace

TEST_CASE("A calibrated profile survives the round trip through its file format",
          "[profile_json]") {
  const auto original = calibrated();
  REQUIRE(original.segments.size() == 2);
  const std::vector<interconnect_profile> list{original};
  const auto doc = profiles_document(list);
  CHECK(doc.at("schema") == "tpcost.interconnect-profile/1");
  CHECK(doc.at("profiles")[0].at("bandwidth_convention") ==
        "per-direction link bandwidth (nccl-tests busbw at large M)");
  const auto back = profiles_from_json(json::parse(doc.dump()));
  REQUIRE(back.size() == 1);
  const auto& p = back[0];
  CHECK(p.collective == original.collective);
  CHECK(p.ranks == 8);
  CHECK(p.nodes == 1);
  CHECK(p.link.latency.value() == original.link.latency.value());
  CHECK(p.link.bandwidth.value() == original.link.bandwidth.value());
  CHECK(p.min_size.value() == 1024.0);
  CHECK(p.max_size.value() == original.max_size.value());
  CHECK(p.points == 25);
  CHECK(p.placements == placement_filter::both);
  CHECK(p.error.median == original.error.median);
  CHECK(p.error.worst_at.value() == original.error.worst_at.value());
  CHECK(p.piecewise_error.worst == original.piecewise_error.worst);
  REQUIRE(p.segments.size() == 2);
  CHECK(p.segments[1].link.bandwidth.value() == original.segments[1].link.bandwidth.value());
  CHECK(p.segments[0].max_size.value() == std::ldexp(1.0, 21));
  CHECK(p.sources == std::vector<std::string>{"synthetic.txt"});
}

TEST_CASE("A hand-written profile needs only alpha, beta and their convention", "[profile_json]") {
  const auto p = profiles_from_json(minimal());
  REQUIRE(p.size() == 1);
  CHECK(p[0].link.latency.value() == 3.4e-6);
  CHECK(p[0].link.bandwidth.value() == 4.5e11);
  CHECK(p[0].segments.empty());
  CHECK_FALSE(p[0].nodes);
}

TEST_CASE("Malformed profiles name the JSON pointer of the bad value", "[profile_json]") {
  auto doc = minimal();
  doc["profiles"][0].erase("alpha_s");
  CHECK(error_of(doc) == "/profiles/0: has no \"alpha_s\" (required)");
  doc = minimal();
  doc["profiles"][0]["beta_bytes_per_s"] = -1;
  CHECK(error_of(doc) ==
        "/profiles/0/beta_bytes_per_s: is -1, expected a bandwidth in bytes/s > 0 (e.g. 4.5e+11)");
  doc = minimal();
  doc["profiles"][0]["alpha_s"] = "3us";
  CHECK_THAT(error_of(doc), Catch::StartsWith("/profiles/0/alpha_s: is \"3us\", expected a "
                                              "latency in seconds"));
  doc = minimal();
  doc["profiles"][0]["bandwidth_convention"] = "bidirectional";
  CHECK_THAT(error_of(doc), Catch::StartsWith("/profiles/0/bandwidth_convention: is "
                                              "\"bidirectional\", expected \"per-direction"));
  doc = minimal();
  doc["profiles"][0]["alpha_us"] = 3.4;
  CHECK_THAT(error_of(doc), Catch::StartsWith("/profiles/0/alpha_us: unknown key; expected one "
                                              "of collective, ranks"));
  doc = minimal();
  doc["profiles"][0]["ranks"] = 1;
  CHECK(error_of(doc) == "/profiles/0/ranks: is 1, expected a whole number >= 2");
  doc = minimal();
  doc["profiles"][0]["collective"] = "broadcast";
  CHECK_THAT(error_of(doc), Catch::StartsWith("/profiles/0/collective: is \"broadcast\""));
  doc = minimal();
  doc["schema"] = "tpcost.interconnect-profile/2";
  CHECK_THAT(error_of(doc), Catch::StartsWith("/schema: is \"tpcost.interconnect-profile/2\""));
  doc = minimal();
  doc["profiles"] = json::array();
  CHECK_THAT(error_of(doc),
             Catch::StartsWith("/profiles: is an array of 0 items, expected a non-empty array"));
  doc = minimal();
  doc["profiles"][0]["segments"] = {{{"min_size_bytes", 0}, {"max_size_bytes", 10}}};
  CHECK(error_of(doc) == "/profiles/0/segments/0: has no \"alpha_s\" (required)");
  doc = minimal();
  doc["profiles"][0]["fit"] = {{"min_size_bytes", 100}, {"max_size_bytes", 10}};
  CHECK(error_of(doc) == "/profiles/0/fit/max_size_bytes: is smaller than min_size_bytes");
  CHECK_THAT(error_of(json::array()),
             Catch::StartsWith("/: is an array of 0 items, expected an object"));
}

TEST_CASE("Reading a profile file names the flag, the file and the pointer", "[profile_json]") {
  const std::string path = "profile_json_test_tmp.json";
  auto doc = minimal();
  doc["profiles"][0]["alpha_s"] = -2e-6;
  {
    std::ofstream out(path);
    out << doc.dump(2);
  }
  try {
    (void)read_profile_file(path, "--interconnect-file");
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK(e.field() == "--interconnect-file");
    CHECK_THAT(std::string(e.detail()),
               Catch::StartsWith(path + ": /profiles/0/alpha_s: is -2e-06"));
  }
  {
    std::ofstream out(path);
    out << "{\"schema\": ";
  }
  CHECK_THROWS_WITH(read_profile_file(path, "--interconnect-file"),
                    Catch::StartsWith("--interconnect-file: " + path + ": not valid JSON"));
  {
    std::ofstream out(path);
    out << minimal().dump();
  }
  CHECK(read_profile_file(path, "--interconnect-file").size() == 1);
  std::remove(path.c_str());
  CHECK_THROWS_WITH(read_profile_file("/nonexistent/p.json", "--interconnect-file"),
                    "--interconnect-file: /nonexistent/p.json: cannot open the file");
}

TEST_CASE("A device, a directory or a huge file is refused before it is read", "[profile_json]") {
  CHECK_THROWS_WITH(read_profile_file("/dev/zero", "--interconnect-file"),
                    "--interconnect-file: /dev/zero: not a regular file");
  CHECK_THROWS_WITH(read_profile_file("/", "--interconnect-file"),
                    "--interconnect-file: /: not a regular file");
  const std::string path = "profile_json_test_huge.json";
  {
    std::ofstream out(path);
    out << std::string(max_profile_bytes + 1, ' ');
  }
  CHECK_THROWS_WITH(read_profile_file(path, "--interconnect-file"),
                    Catch::Contains("1048577 bytes; a profile is at most 1048576 bytes"));
  std::remove(path.c_str());
}
