// `tpcost calibrate` end to end: its JSON and its profile file parsed back and compared with
// the core library's calibration of the same fixture.
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tpcost/calibration.hpp"
#include "tpcost/io/profile_json.hpp"

namespace {

/// Runs `tpcost <args>`, returns (exit code, stdout); stderr goes to /dev/null.
std::pair<int, std::string> run_tpcost(const std::string& args) {
  const std::string command = std::string(TPCOST_BINARY) + " " + args + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    out.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string h100 = std::string(TPCOST_TEST_DATA_DIR) + "/nccl/dgx-h100-8gpu-all_reduce.txt";

}  // namespace

TEST_CASE("calibrate --format json and --out agree with the core library", "[cli]") {
  const std::string profile_path = "calibrate_cli_test_profile.json";
  std::remove(profile_path.c_str());
  const auto [code, out] =
      run_tpcost("calibrate " + h100 + " --min-size 1KiB --out " + profile_path + " --format json");
  REQUIRE(code == 0);
  const auto j = nlohmann::json::parse(out);
  CHECK(j.at("schema") == "tpcost.calibration/1");
  CHECK(j.at("profile_file") == profile_path);
  REQUIRE(j.at("calibrations").size() == 1);
  const auto& c = j.at("calibrations")[0];

  const std::vector<tpcost::nccl_run> runs{
      tpcost::resolve_run(tpcost::parse_nccl_tests_text(slurp(h100), h100), {})};
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
  const auto [code, out] = run_tpcost("calibrate " + h100 + " " + a100 + " --format json");
  REQUIRE(code == 0);
  const auto j = nlohmann::json::parse(out);
  REQUIRE(j.at("calibrations").size() == 1);
  CHECK(j.at("calibrations")[0].at("profile").at("sources").size() == 2);
  CHECK(j.at("calibrations")[0].at("points").size() == 64 + 24);
}
