// `tpcost calibrate` end to end: its JSON and its profile file parsed back and compared with
// the core library's calibration of the same fixture.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_binary.hpp"
#include "tpcost/comm/calibration.hpp"
#include "tpcost/io/profile_json.hpp"

namespace {

using tpcost::test::read_file;

const std::string h100 = std::string(TPCOST_TEST_DATA_DIR) + "/nccl/dgx-h100-8gpu-all_reduce.txt";

}  // namespace

TEST_CASE("calibrate --format json and --out agree with the core library", "[cli]") {
  const std::string profile_path = "calibrate_cli_test_profile.json";
  std::remove(profile_path.c_str());
  const auto [code, out] = tpcost::test::run("calibrate " + h100 + " --min-size 1KiB --out " +
                                             profile_path + " --format json");
  REQUIRE(code == 0);
  const auto j = nlohmann::json::parse(out);
  CHECK(j.at("schema") == "tpcost.calibration/1");
  CHECK(j.at("profile_file") == profile_path);
  REQUIRE(j.at("calibrations").size() == 1);
  const auto& c = j.at("calibrations")[0];

  const std::vector<tpcost::nccl_run> runs{
      tpcost::resolve_run(tpcost::parse_nccl_tests_text(read_file(h100), h100), {})};
  tpcost::calibration_options options;
  options.min_size = 1 * tpcost::units::KiB;
  const auto expected = tpcost::calibrate(runs, options);

  // JSON doubles round-trip exactly.
  CHECK(c.at("profile").at("alpha_s").get<double>() == expected.profile.link.latency.value());
  CHECK(c.at("profile").at("beta_bytes_per_s").get<double>() ==
        expected.profile.link.bandwidth.value());
  REQUIRE(c.at("points").size() == expected.points.size());
  for (std::size_t i = 0; i < expected.points.size(); ++i) {
    CHECK(c.at("points")[i].at("line_rel_error").get<double>() == expected.points[i].line_error);
    CHECK(c.at("points")[i].at("piecewise_rel_error").get<double>() ==
          expected.points[i].piecewise_error);
  }

  const auto profiles = tpcost::read_profile_file(profile_path, "--interconnect-file");
  REQUIRE(profiles.size() == 1);
  const auto& p = tpcost::primary_profile(profiles, "--interconnect-file");
  CHECK(p.link.latency.value() == expected.profile.link.latency.value());
  CHECK(p.link.bandwidth.value() == expected.profile.link.bandwidth.value());
  CHECK(p.segments.size() == 3);
  CHECK(p.sources == std::vector<std::string>{h100});
  std::remove(profile_path.c_str());
}

TEST_CASE("calibrate groups files by collective and rank count", "[cli]") {
  const std::string a100 =
      std::string(TPCOST_TEST_DATA_DIR) + "/nccl/azure-nd-a100-v4-8gpu-all_reduce.txt";
  // Both are all_reduce over 8 ranks: one calibration from both files.
  const auto [code, out] = tpcost::test::run("calibrate " + h100 + " " + a100 + " --format json");
  REQUIRE(code == 0);
  const auto j = nlohmann::json::parse(out);
  REQUIRE(j.at("calibrations").size() == 1);
  CHECK(j.at("calibrations")[0].at("profile").at("sources").size() == 2);
  CHECK(j.at("calibrations")[0].at("points").size() == 64 + 24);
}

TEST_CASE("calibrate reads nccl-tests' JSON report as well as its text", "[cli]") {
  // A report in the shape of nccl-tests src/util.cu (-J): model times, 8 ranks, 2 hosts.
  const tpcost::link_spec truth{300 * tpcost::units::GB / tpcost::units::s, 3 * tpcost::units::us};
  nlohmann::json results = nlohmann::json::array();
  for (int e = 20; e <= 30; ++e) {
    const tpcost::bytes m(std::ldexp(1.0, e));
    const double t = tpcost::ring_time(tpcost::collective_op::all_reduce, 8, m, truth).value();
    const double alg = m.value() / t / 1e9;
    results.push_back(
        {{"size", static_cast<std::uint64_t>(m.value())},
         {"out_of_place", nullptr},
         {"in_place",
          {{"time", t * 1e6}, {"alg_bw", alg}, {"bus_bw", alg * 1.75}, {"nwrong", 0}}}});
  }
  const nlohmann::json report = {
      {"version", 2},
      {"args", {"./build/all_reduce_perf", "-b", "1M", "-e", "1G"}},
      {"config",
       {{"nthreads", 1},
        {"ngpus", 4},
        {"devices", {{{"rank", 0}, {"hostname", "a"}}, {{"rank", 4}, {"hostname", "b"}}}}}},
      {"results", results}};
  const std::string path = "calibrate_cli_test_report.json";
  {
    std::ofstream out(path);
    out << report.dump();
  }
  const auto [code, out] = tpcost::test::run("calibrate " + path + " --segments 1 --format json");
  std::remove(path.c_str());
  REQUIRE(code == 0);
  const auto p = nlohmann::json::parse(out).at("calibrations")[0].at("profile");
  CHECK(p.at("ranks") == 8);
  CHECK(p.at("nodes") == 2);
  CHECK(p.at("collective") == "all_reduce");
  CHECK(std::fabs(p.at("beta_bytes_per_s").get<double>() / 300e9 - 1.0) < 1e-9);
  CHECK(std::fabs(p.at("alpha_s").get<double>() / 3e-6 - 1.0) < 1e-6);
}

TEST_CASE(
    "Two nodes round trip: calibrate, then collective with the profile on the same placement "
    "replays the file's large-message bus bandwidth within 10%",
    "[cli]") {
  // A synthetic two-node file (2 hosts x 8 ranks; tests/data/nccl/README.md says how it was
  // written): its 8 GiB rows print busbw 374.61 GB/s.
  const std::string file =
      std::string(TPCOST_TEST_DATA_DIR) + "/nccl/synthetic-2node-h100-all_reduce.txt";
  const std::string profile_path = "calibrate_cli_test_two_nodes.json";
  std::remove(profile_path.c_str());
  const auto [code, out] = tpcost::test::run("calibrate " + file + " --out " + profile_path);
  REQUIRE(code == 0);
  CHECK(out.find("measured: inter-node: 2 nodes x 8 ranks ('#  Rank ... on HOST' lines)") !=
        std::string::npos);
  const auto profile = nlohmann::json::parse(read_file(profile_path));
  const auto& p = profile.at("profiles")[0];
  CHECK(p.at("nodes") == 2);
  CHECK(p.at("measured_link").get<std::string>().starts_with("inter-node: 2 nodes x 8 ranks"));
  const auto [rc, json] = tpcost::test::run("collective --gpu h100-sxm --interconnect-file " +
                                            profile_path + " --ranks 16 --size 8GiB --format json");
  REQUIRE(rc == 0);
  const auto j = nlohmann::json::parse(json);
  const auto cheapest = j.at("cheapest").get<std::string>();
  double busbw = 0.0;
  for (const auto& r : j.at("results")) {
    if (r.at("algorithm") == cheapest) {
      busbw = r.at("busbw_bytes_per_s").get<double>();
    }
  }
  CHECK_THAT(busbw, Catch::Matchers::WithinRel(374.61e9, 0.10));
}

TEST_CASE("the profile keeps its residuals, and collective prints the band they give", "[cli]") {
  const std::string profile_path = "calibrate_cli_test_band_profile.json";
  std::remove(profile_path.c_str());
  const auto [code, out] =
      tpcost::test::run("calibrate " + h100 + " --out " + profile_path + " --format json");
  REQUIRE(code == 0);
  const auto c = nlohmann::json::parse(out).at("calibrations")[0];
  const std::vector<tpcost::nccl_run> runs{
      tpcost::resolve_run(tpcost::parse_nccl_tests_text(read_file(h100), h100), {})};
  const auto expected = tpcost::calibrate(runs, {});
  const auto whole = tpcost::profile_band(expected.profile);
  REQUIRE(whole);
  CHECK(c.at("band").at("points") == expected.points.size());
  CHECK(c.at("band").at("relative")[0].get<double>() == whole->band.low());
  CHECK(c.at("band").at("relative")[1].get<double>() == whole->band.high());
  for (std::size_t i = 0; i < expected.points.size(); ++i) {
    CHECK(c.at("points")[i].at("line_left_out_rel_error").get<double>() ==
          expected.points[i].loo_error);
  }
  // The profile file holds them; the collective on the link it measured reads its band back.
  const auto profiles = tpcost::read_profile_file(profile_path, "--interconnect-file");
  REQUIRE(profiles.at(0).residuals.size() == expected.points.size());
  const auto [rc, json] = tpcost::test::run("collective --interconnect-file " + profile_path +
                                            " --size 64MiB --ranks 8 --format json");
  REQUIRE(rc == 0);
  const auto j = nlohmann::json::parse(json);
  const auto near = tpcost::profile_band(profiles.at(0), tpcost::bytes(64.0 * 1024 * 1024));
  REQUIRE(near);
  CHECK(j.at("band").at("measured") == true);
  CHECK(j.at("band").at("points") == near->points);
  for (const auto& row : j.at("results")) {
    const double t = row.at("time_s");
    CHECK(row.at("time_band_s")[0].get<double>() == t * near->band.low());
    CHECK(row.at("time_band_s")[1].get<double>() == t * near->band.high());
  }
  // The same profile for a group that crosses nodes: the link it measured is not used.
  const auto [rc2, json2] =
      tpcost::test::run("collective --interconnect-file " + profile_path +
                        " --size 64MiB --ranks 16 --inter-bandwidth 50GB/s --format json");
  REQUIRE(rc2 == 0);
  const auto k = nlohmann::json::parse(json2);
  CHECK(k.at("band").at("measured") == false);
  CHECK(k.at("results")[0].at("time_band_s").is_null());
  std::remove(profile_path.c_str());
}

TEST_CASE("an inter-node profile bands the collectives that cross nodes, not those inside one",
          "[cli]") {
  const std::string file =
      std::string(TPCOST_TEST_DATA_DIR) + "/nccl/synthetic-2node-h100-all_reduce.txt";
  const std::string profile_path = "calibrate_cli_test_band_2node.json";
  std::remove(profile_path.c_str());
  REQUIRE(tpcost::test::run("calibrate " + file + " --out " + profile_path).exit_code == 0);
  const auto across = tpcost::test::run("collective --gpu h100-sxm --interconnect-file " +
                                        profile_path + " --ranks 16 --size 8GiB --format json");
  REQUIRE(across.exit_code == 0);
  const auto a = nlohmann::json::parse(across.out);
  CHECK(a.at("band").at("measured") == true);
  CHECK(a.at("results")[0].at("time_band_s").is_array());
  const auto inside = tpcost::test::run("collective --gpu h100-sxm --interconnect-file " +
                                        profile_path + " --ranks 8 --size 8GiB");
  REQUIRE(inside.exit_code == 0);
  CHECK(inside.out.find("no measured band: " + profile_path +
                        " measured the inter-node link, and this group stays in one node") !=
        std::string::npos);
  std::remove(profile_path.c_str());
}
