// Calibration: the nccl-tests parser (layouts, malformed input), the rank and collective
// checks, the exact recovery of alpha and beta from model-generated times, the piecewise fit,
// and the fit to published measurements with tolerance.
#include "tpcost/comm/calibration.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/matchers.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {

std::string fixture(const std::string& name) {
  const std::string path = std::string(TPCOST_TEST_DATA_DIR) + "/nccl/" + name;
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

run_overrides with_ranks(std::int64_t n) {
  run_overrides given;
  given.ranks = n;
  return given;
}

run_overrides with_collective(collective_op kind) {
  run_overrides given;
  given.collective = kind;
  return given;
}

nccl_run load(const std::string& name, const run_overrides& given = {}) {
  return resolve_run(parse_nccl_tests_text(fixture(name), name), given);
}

/// Power-of-two sizes from 2^lo to 2^hi bytes.
std::vector<bytes> sizes(int lo, int hi) {
  std::vector<bytes> out;
  for (int e = lo; e <= hi; ++e) {
    out.emplace_back(std::ldexp(1.0, e));
  }
  return out;
}

/// One nccl-tests text row (both placements) with the given time in µs, as all_reduce_perf
/// prints it, for n ranks.
std::string row(double size, double time_us, std::int64_t n) {
  const double algbw = size / (time_us * 1e-6) / 1e9;
  const double busbw = algbw * bus_factor(collective_op::all_reduce, n);
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "%12.0f  %12.0f  %8s  %6s  %6s  %7.2f  %6.2f  %6.2f  %6s  %7.2f  %6.2f  %6.2f  %6s\n", size,
      size / 4, "float", "sum", "-1", time_us, algbw, busbw, "0", time_us, algbw, busbw, "0");
  return buf;
}

std::string expect_error(const std::string& text, const std::string& source = "x.txt") {
  try {
    (void)parse_nccl_tests_text(text, source);
  } catch (const invalid_spec& e) {
    return e.what();
  }
  FAIL("accepted: " << text);
  return {};
}

}  // namespace

TEST_CASE("Ring steps and bus factors are those of nccl-tests", "[calibration]") {
  CHECK(ring_steps(collective_op::all_reduce, 8) == 14.0);
  CHECK(bus_factor(collective_op::all_reduce, 8) == 1.75);
  CHECK(ring_steps(collective_op::all_gather, 8) == 7.0);
  CHECK(bus_factor(collective_op::reduce_scatter, 8) == 0.875);
  CHECK(bus_factor(collective_op::all_reduce, 2) == 1.0);
  const link_spec link{400 * units::GB / units::s, 2 * units::us};
  // 2(n-1)·α + 2(n-1)/n·M/β = 14·2 µs + 1.75·1 GB / 400 GB/s
  CHECK_THAT(ring_time(collective_op::all_reduce, 8, 1 * units::GB, link).value(),
             near(28e-6 + 1.75e9 / 400e9));
}

TEST_CASE("Collective names are read in nccl-tests' and tpcost's spellings", "[calibration]") {
  CHECK(collective_from_name("all_reduce") == collective_op::all_reduce);
  CHECK(collective_from_name("all-reduce") == collective_op::all_reduce);
  CHECK(collective_from_name("AllReduce") == collective_op::all_reduce);
  CHECK(collective_from_name("all_reduce_perf") == collective_op::all_reduce);
  CHECK(collective_from_name("all_gather_perf") == collective_op::all_gather);
  CHECK(collective_from_name("reduce-scatter") == collective_op::reduce_scatter);
  CHECK_FALSE(collective_from_name("broadcast_perf"));
  CHECK_FALSE(collective_from_name("perf"));
}

TEST_CASE("The fit recovers alpha and beta exactly from times the model generates",
          "[calibration]") {
  for (const auto kind :
       {collective_op::all_reduce, collective_op::all_gather, collective_op::reduce_scatter}) {
    for (const std::int64_t n : {2, 8, 16, 72}) {
      const link_spec truth{371.25 * units::GB / units::s, 2.75 * units::us};
      std::vector<timed_size> points;
      for (const auto m : sizes(10, 34)) {
        points.push_back({m, ring_time(kind, n, m, truth)});
      }
      const auto fit = fit_ring_alpha_beta(kind, n, points);
      CAPTURE(nccl_tests_name(kind), n);
      CHECK_THAT(fit.link.latency.value(), near(truth.latency.value(), 1e-9));
      CHECK_THAT(fit.link.bandwidth.value(), near(truth.bandwidth.value(), 1e-9));
      CHECK_FALSE(fit.alpha_clamped);
    }
  }
}

TEST_CASE("A negative latency is clamped to zero and the bandwidth refitted", "[calibration]") {
  // Times that would need alpha < 0: pure bandwidth minus a constant.
  std::vector<timed_size> points;
  for (const auto m : sizes(20, 30)) {
    points.push_back({m, seconds(1.75 * m.value() / 100e9 - 1e-6)});
  }
  const auto fit = fit_ring_alpha_beta(collective_op::all_reduce, 8, points);
  CHECK(fit.alpha_clamped);
  CHECK(fit.link.latency.value() == 0.0);
  CHECK(fit.link.bandwidth.value() > 100e9);
}

TEST_CASE("The fit refuses data that cannot determine alpha and beta", "[calibration]") {
  std::vector<timed_size> one_size{{1 * units::MB, 10 * units::us},
                                   {1 * units::MB, 11 * units::us}};
  CHECK_THROWS_WITH(fit_ring_alpha_beta(collective_op::all_reduce, 8, one_size),
                    Catch::Contains("at least 2 distinct message sizes"));
  std::vector<timed_size> shrinking{{1 * units::kB, 90 * units::us},
                                    {1 * units::MB, 50 * units::us},
                                    {1 * units::GB, 10 * units::us}};
  CHECK_THROWS_WITH(fit_ring_alpha_beta(collective_op::all_reduce, 8, shrinking),
                    Catch::Contains("do not grow with the message size"));
  CHECK_THROWS_AS(fit_ring_alpha_beta(collective_op::all_reduce, 1, shrinking), invalid_spec);
}

TEST_CASE("The piecewise fit finds the breakpoints and lines that generated the data",
          "[calibration]") {
  // Three regimes, as NCCL's protocols give: LL-like, a middle line, Simple-like.
  const link_spec small{50 * units::GB / units::s, 1 * units::us};
  const link_spec middle{200 * units::GB / units::s, 3 * units::us};
  const link_spec large{450 * units::GB / units::s, 8 * units::us};
  nccl_run run;
  run.source = "synthetic";
  run.collective = collective_op::all_reduce;
  run.ranks = 8;
  for (const auto m : sizes(10, 34)) {
    const auto& link = m.value() < std::ldexp(1.0, 18)   ? small
                       : m.value() < std::ldexp(1.0, 26) ? middle
                                                         : large;
    nccl_sample sample;
    sample.size = m;
    sample.time = ring_time(collective_op::all_reduce, 8, m, link);
    run.samples.push_back(sample);
  }
  const std::vector<nccl_run> runs{run};
  const auto result = calibrate(runs, {});
  const auto& p = result.profile;
  REQUIRE(p.segments.size() == 3);
  CHECK(p.segments[0].min_size.value() == 1024.0);
  CHECK(p.segments[0].max_size.value() == std::ldexp(1.0, 17));
  CHECK(p.segments[1].min_size.value() == std::ldexp(1.0, 18));
  CHECK(p.segments[2].min_size.value() == std::ldexp(1.0, 26));
  CHECK_THAT(p.segments[0].link.bandwidth.value(), near(50e9, 1e-9));
  CHECK_THAT(p.segments[1].link.latency.value(), near(3e-6, 1e-9));
  CHECK_THAT(p.segments[2].link.bandwidth.value(), near(450e9, 1e-9));
  CHECK(p.piecewise_error.worst < 1e-9);
  CHECK(p.error.worst > 0.1);  // one line cannot fit three regimes
  CHECK(result.points.size() == 25);
}

TEST_CASE("Size and placement filters choose the points of the fit", "[calibration]") {
  const std::vector<nccl_run> runs{load("dgx-h100-8gpu-all_reduce.txt")};
  calibration_options o;
  o.min_size = 64 * units::MiB;
  o.max_size = 1 * units::GiB;
  o.placements = placement_filter::in_place;
  o.segments = 1;
  const auto r = calibrate(runs, o);
  CHECK(r.profile.points == 5);  // 64, 128, 256, 512 MiB and 1 GiB, in-place
  CHECK(r.profile.segments.empty());
  for (const auto& p : r.points) {
    CHECK(p.where == placement::in_place);
  }
  o.min_size = 32 * units::GiB;
  o.max_size.reset();
  CHECK_THROWS_WITH(calibrate(runs, o), Catch::Contains("no measurement is left"));
}

TEST_CASE("The DGX H100 fixture parses to 32 sizes in two placements", "[calibration]") {
  const auto run = load("dgx-h100-8gpu-all_reduce.txt");
  REQUIRE(run.samples.size() == 64);
  CHECK(run.samples[0].size.value() == 8.0);
  CHECK(run.samples[0].where == placement::out_of_place);
  CHECK_THAT(run.samples[0].time.value(), near(13.67e-6));
  CHECK(run.samples[1].where == placement::in_place);
  CHECK_THAT(run.samples[1].time.value(), near(13.03e-6));
  CHECK(run.samples.back().size.value() == 17179869184.0);
  CHECK_THAT(run.samples.back().time.value(), near(62636e-6));
  CHECK(run.collective == collective_op::all_reduce);
  CHECK(run.collective_from == "the file name");
  CHECK(run.ranks == 8);  // from busbw/algbw: 479.99/274.28 = 1.75 = 2(8-1)/8
  CHECK(run.ranks_from == "busbw/algbw");
}

TEST_CASE("The ND A100 v4 fixture parses in-place rows with a blank out-of-place group",
          "[calibration]") {
  const auto run = load("azure-nd-a100-v4-8gpu-all_reduce.txt");
  REQUIRE(run.samples.size() == 24);
  for (const auto& s : run.samples) {
    CHECK(s.where == placement::in_place);
  }
  CHECK(run.samples.front().size.value() == 1024.0);
  CHECK(run.ranks == 8);
}

TEST_CASE("Fits to the published sweeps stay within the errors the README reports",
          "[calibration]") {
  calibration_options o;
  o.min_size = 1 * units::KiB;
  SECTION("DGX H100, 8 GPUs, NVLink 4 + NVSwitch, 1 KiB to 16 GiB") {
    const std::vector<nccl_run> runs{load("dgx-h100-8gpu-all_reduce.txt")};
    const auto r = calibrate(runs, o);
    const auto& p = r.profile;
    CHECK(p.points == 50);
    CHECK_THAT(p.link.latency.value(), near(1.345e-6, 0.005));
    CHECK_THAT(p.link.bandwidth.value(), near(423.9e9, 0.005));
    CHECK_THAT(p.error.median, near(0.104, 0.02));
    CHECK_THAT(p.error.worst, near(0.553, 0.02));
    REQUIRE(p.segments.size() == 3);
    CHECK_THAT(p.piecewise_error.median, near(0.027, 0.05));
    CHECK(p.piecewise_error.worst < 0.35);
    // The large-message line beats the 450 GB/s per direction of NVLink 4: the busbw
    // convention assumes ring traffic 2(n-1)/n·M, which NVLS (reduction in the NVSwitch) beats.
    CHECK_THAT(p.segments.back().link.bandwidth.value(), near(472.2e9, 0.005));
    CHECK(p.segments.back().link.bandwidth.value() > 450e9);
  }
  SECTION("Azure ND A100 v4, 8 GPUs, NVLink 3 + NVSwitch, 1 KiB to 8 GiB") {
    const std::vector<nccl_run> runs{load("azure-nd-a100-v4-8gpu-all_reduce.txt")};
    const auto r = calibrate(runs, o);
    const auto& p = r.profile;
    CHECK(p.points == 24);
    CHECK_THAT(p.link.latency.value(), near(3.16e-6, 0.005));
    CHECK_THAT(p.link.bandwidth.value(), near(204.7e9, 0.005));
    CHECK_THAT(p.error.median, near(0.073, 0.02));
    CHECK_THAT(p.error.worst, near(0.432, 0.02));
    REQUIRE(p.segments.size() == 3);
    CHECK(p.piecewise_error.median < 0.02);
    CHECK(p.piecewise_error.worst < 0.11);
    // Large messages reach ~77% of NVLink 3's 300 GB/s per direction.
    CHECK_THAT(p.segments.back().link.bandwidth.value(), near(230.7e9, 0.005));
  }
}

TEST_CASE("Rows without redop or root, in-place only, and the header variants parse",
          "[calibration]") {
  // Old all_gather: size count type, then the two groups (11 fields).
  auto run = parse_nccl_tests_text(
      "   1048576        262144   float    27.37  38.31  33.52      0    26.93  38.94  34.07  0\n",
      "ag.txt");
  REQUIRE(run.samples.size() == 2);
  CHECK_THAT(run.samples[1].time.value(), near(26.93e-6));
  // Old all_reduce: redop, no root (12 fields).
  run = parse_nccl_tests_text(
      "1048576 262144 float sum 27.37 38.31 67.04 0e+00 26.93 38.94 68.14 0e+00\n", "ar.txt");
  CHECK(run.samples.size() == 2);
  // New all_gather: redop "none", root -1 (13 fields).
  run = parse_nccl_tests_text(
      "1048576 32768 float none -1 27.37 38.31 33.52 0 26.93 38.94 34.07 0\n", "ag.txt");
  CHECK(run.samples.size() == 2);
  // In-place only (9 fields).
  run = parse_nccl_tests_text("1048576 262144 float sum -1 26.93 38.94 68.14 N/A\n", "ar.txt");
  REQUIRE(run.samples.size() == 1);
  CHECK(run.samples[0].where == placement::in_place);
  // Per-iteration columns and a timestamp, announced by the header.
  run = parse_nccl_tests_text(
      "#       size  count  type  redop  root  time  algbw  busbw  #wrong  i_min  i_max  i_p99 "
      " i_cv%  time  algbw  busbw  #wrong  i_min  i_max  i_p99  i_cv%  timestamp\n"
      "1048576 262144 float sum -1 27.37 38.31 67.04 0 27.0 28.1 28.0 1.2 26.93 38.94 68.14 0 "
      "26.5 27.9 27.8 1.1 2025-01-01 12:00:00\n",
      "ar.txt");
  REQUIRE(run.samples.size() == 2);
  CHECK_THAT(run.samples[1].time.value(), near(26.93e-6));
  // cputime instead of time.
  run = parse_nccl_tests_text(
      "#  size count type redop root cputime algbw busbw #wrong cputime algbw busbw #wrong\n"
      "1048576 262144 float sum -1 27.37 38.31 67.04 0 26.93 38.94 68.14 0\n",
      "ar.txt");
  CHECK(run.samples.size() == 2);
}

TEST_CASE("Header lines give the ranks, the nodes and the collective", "[calibration]") {
  const std::string text =
      "# nccl-tests version 2.13.10 nccl-headers=22003 nccl-library=22003\n"
      "# Collective test starting: all_gather_perf\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5\n"
      "#\n"
      "# Using devices\n"
      "#  Rank  0 Group  0 Pid   6899 on node-a device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
      "#  Rank  1 Group  0 Pid   6900 on node-a device  1 [0000:05:00] NVIDIA H100 80GB HBM3\n"
      "#  Rank  2 Group  0 Pid   6733 on node-b device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
      "#  Rank  3 Group  0 Pid   6734 on node-b device  1 [0000:05:00] NVIDIA H100 80GB HBM3\n"
      "node-a:6899:6899 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
      "     1048576   65536   float   none   -1   100.00   10.49    7.86  0   99.00   10.59    "
      "7.94  0\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 7.9\n";
  const auto run = resolve_run(parse_nccl_tests_text(text, "run.log"), {});
  CHECK(run.collective == collective_op::all_gather);
  CHECK(run.collective_from == "'# Collective test starting' line");
  CHECK(run.ranks == 4);
  CHECK(run.ranks_from == "'#  Rank' lines");
  CHECK(run.nodes == 2);
  CHECK(run.ranks_per_process == 1);
  CHECK(run.samples.size() == 2);
}

TEST_CASE("Malformed input fails with the file and the line", "[calibration]") {
  CHECK(expect_error("") ==
        "x.txt: no nccl-tests data rows in 0 lines (expected rows such as '1048576  262144  "
        "float  sum  -1  27.37  38.31  67.04  0 ...'); is this nccl-tests output?");
  CHECK_THAT(expect_error("hello world\nthis is not\nnccl output\n"),
             Catch::StartsWith("x.txt: no nccl-tests data rows in 3 lines"));
  CHECK_THAT(expect_error("# header only\n#  size count type\n"),
             Catch::StartsWith("x.txt: no nccl-tests data rows"));
  const std::string good = "1048576 262144 float sum -1 27.37 38.31 67.04 0 26.93 38.94 68.14 0\n";
  CHECK_THAT(
      expect_error(good + "2097152 524288 float sum -1 42.21 49.68\n"),
      Catch::StartsWith("x.txt:2: a data row with 7 fields") && Catch::Contains("truncated?"));
  CHECK_THAT(expect_error(good + good.substr(0, 40) + "\n"), Catch::StartsWith("x.txt:2: "));
  CHECK_THAT(expect_error("1048576 262144 17 sum -1 27.37 38.31 67.04 0 26.93 38.94 68.14 0\n"),
             Catch::StartsWith("x.txt:1: the third field '17' should be the element type"));
  CHECK_THAT(expect_error("1048576 262144 float sum -1 abc 38.31 67.04 0 26.93 38.94 68.14 0\n"),
             Catch::StartsWith("x.txt:1: the out-of-place time 'abc' is not a positive number"));
  CHECK_THAT(expect_error("1048576 262144 float sum -1 -5 38.31 67.04 0 26.93 38.94 68.14 0\n"),
             Catch::StartsWith("x.txt:1: the out-of-place time '-5'"));
  CHECK_THAT(expect_error("1048576 262144 float sum -1 1e-300 38.31 67.04 0 26.93 38.94 68.14 0\n"),
             Catch::StartsWith("x.txt:1: the out-of-place time '1e-300' us is outside"));
  CHECK_THAT(expect_error("99999999999999999999 1 float sum -1 1 1 1 0 1 1 1 0\n"),
             Catch::StartsWith("x.txt:1: '99999999999999999999 1 float"));
  CHECK_THAT(expect_error("9999999999999999999 1 float sum -1 1 1 1 0 1 1 1 0\n"),
             Catch::StartsWith("x.txt:1: the size 9999999999999999999 B is above 2^60 B"));
  CHECK_THAT(expect_error("1048576 262144 float sum -1 27.37 38.31 67.04 0 nan 38.94 68.14 0\n"),
             Catch::StartsWith("x.txt:1: the in-place time 'nan'"));
  CHECK_THAT(expect_error("1048576 262144 float sum -1 27.37 38.31 67.04 0 26.93 38.94 68.14 12\n"),
             Catch::StartsWith("x.txt:1: nccl-tests found 12 wrong elements in the in-place"));
  CHECK_THAT(expect_error("#  size count type redop root time algbw busbw #wrong time algbw "
                          "busbw #wrong\n1048576 262144 float sum -1 27.37 38.31\n"),
             Catch::StartsWith("x.txt:2: a data row with 7 fields, which is not what the"));
}

TEST_CASE("Ranks and collective that disagree with busbw/algbw are refused", "[calibration]") {
  CHECK_THROWS_WITH(load("dgx-h100-8gpu-all_reduce.txt", with_ranks(16)),
                    Catch::Contains("dgx-h100-8gpu-all_reduce.txt:") &&
                        Catch::Contains("but all_reduce over 16 ranks (from --gpus") &&
                        Catch::Contains("check --gpus and --op"));
  CHECK_THROWS_WITH(
      load("dgx-h100-8gpu-all_reduce.txt", with_collective(collective_op::all_gather)),
      Catch::Contains("fits all_gather for no number of ranks (as all_reduce "
                      "it would be 8 ranks); check --op (collective from "
                      "--op)"));
  CHECK(load("dgx-h100-8gpu-all_reduce.txt", with_ranks(8)).ranks_from == "--gpus");
  // No collective anywhere.
  CHECK_THROWS_WITH(resolve_run(parse_nccl_tests_text(row(1048576, 27.37, 8), "run.txt"), {}),
                    Catch::Contains("run.txt: cannot tell which collective"));
  // Too few digits to infer the ranks, and no header.
  CHECK_THROWS_WITH(resolve_run(parse_nccl_tests_text(
                                    "1024 256 float sum -1 16.00 0.06 0.11 0 16.00 0.06 0.11 0\n",
                                    "all_reduce.txt"),
                                {}),
                    Catch::Contains("cannot tell the number of ranks"));
  // One rank.
  CHECK_THROWS_WITH(resolve_run(parse_nccl_tests_text(
                                    "# nThread 1 nGpus 1 minBytes 8\n"
                                    "1024 256 float sum -1 16.00 0.06 0.11 0 16.00 0.06 0.11 0\n",
                                    "all_reduce.txt"),
                                {}),
                    Catch::Contains("a collective over one rank moves no data"));
}

TEST_CASE("Text generated from the model calibrates back to the model", "[calibration]") {
  const link_spec truth{250 * units::GB / units::s, 4 * units::us};
  std::string text = "# Collective test starting: all_reduce_perf\n";
  for (const auto m : sizes(20, 34)) {
    text += row(m.value(), ring_time(collective_op::all_reduce, 8, m, truth).value() * 1e6, 8);
  }
  const std::vector<nccl_run> runs{resolve_run(parse_nccl_tests_text(text, "gen.txt"), {})};
  CHECK(runs[0].ranks == 8);
  const auto r = calibrate(runs, {});
  // Times are printed with 2 decimals of a microsecond: recovery to that rounding.
  CHECK_THAT(r.profile.link.bandwidth.value(), near(250e9, 1e-4));
  CHECK_THAT(r.profile.link.latency.value(), near(4e-6, 1e-2));
  CHECK(r.profile.error.worst < 1e-3);
}

TEST_CASE("The primary profile is the all-reduce one with the most ranks", "[calibration]") {
  std::vector<interconnect_profile> profiles(3);
  profiles[0].collective = collective_op::all_gather;
  profiles[0].ranks = 64;
  profiles[1].collective = collective_op::all_reduce;
  profiles[1].ranks = 8;
  profiles[2].collective = collective_op::all_reduce;
  profiles[2].ranks = 16;
  CHECK(&primary_profile(profiles, "f") == &profiles[2]);
  CHECK(&primary_profile(std::span(profiles).first(1), "f") == &profiles[0]);
  CHECK_THROWS_AS(primary_profile({}, "f"), invalid_spec);
}

TEST_CASE("Random damage to a fixture parses or fails cleanly, never with a non-finite fit",
          "[calibration]") {
  const auto original = fixture("dgx-h100-8gpu-all_reduce.txt");
  std::uint64_t state = 12345;  // a fixed LCG: the same cases every run
  const auto next = [&state](std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % bound;
  };
  const std::string alphabet = "0123456789.-e #\n\tNA/abc";
  int parsed = 0;
  int refused = 0;
  for (int i = 0; i < 1500; ++i) {
    auto text = original;
    const auto edits = 1 + next(4);
    for (std::uint64_t k = 0; k < edits; ++k) {
      const auto at = next(text.size());
      switch (next(3)) {
        case 0:
          text[at] = alphabet[next(alphabet.size())];
          break;
        case 1:
          text.erase(at, 1 + next(12));
          break;
        default:
          text.insert(at, 1, alphabet[next(alphabet.size())]);
      }
    }
    try {
      const std::vector<nccl_run> runs{
          resolve_run(parse_nccl_tests_text(text, "damaged_all_reduce.txt"), {})};
      const auto r = calibrate(runs, {});
      CHECK(std::isfinite(r.profile.link.latency.value()));
      CHECK(std::isfinite(r.profile.link.bandwidth.value()));
      CHECK(std::isfinite(r.profile.error.worst));
      ++parsed;
    } catch (const invalid_spec& e) {
      CHECK(std::string(e.what()).find('\n') == std::string::npos);  // one line for the user
      ++refused;
    }
  }
  CHECK(parsed > 0);
  CHECK(refused > 0);
}

TEST_CASE("A profile replaces the link it measured: across nodes the inter-node one",
          "[calibration]") {
  const cluster_topology dgx{.gpus_per_node = 8,
                             .intra = {450e9 * units::B / units::s, 3.4 * units::us},
                             .inter = {50e9 * units::B / units::s, 14 * units::us}};
  interconnect_profile p;
  p.link = {420e9 * units::B / units::s, 2 * units::us};
  p.ranks = 8;  // one node, node count unknown: the intra-node link
  CHECK(scope_of(p, 8) == profile_scope::intra_node);
  auto t = with_profile(dgx, p);
  CHECK_THAT(t.intra.bandwidth.value(), near(420e9));
  CHECK_THAT(t.intra.latency.value(), near(2e-6));
  CHECK_THAT(t.inter.bandwidth.value(), near(50e9));  // untouched
  CHECK(t.gpus_per_node == 8);

  p.ranks = 16;  // more ranks than a node holds: measured across nodes
  p.link = {45e9 * units::B / units::s, 20 * units::us};
  CHECK(scope_of(p, 8) == profile_scope::inter_node);
  CHECK(scope_of(p, 16) == profile_scope::intra_node);  // a 16-GPU node
  t = with_profile(dgx, p);
  // Stored per NIC (issue 11): the ring's bus bandwidth came through the 8 NICs of each node.
  CHECK_THAT(t.inter.bandwidth.value(), near(45e9 / 8));
  CHECK_THAT(t.inter.latency.value(), near(20e-6));
  CHECK_THAT(t.intra.bandwidth.value(), near(450e9));

  // The node count, when the file has it, decides over the rank count.
  p.nodes = 1;
  CHECK(scope_of(p, 8) == profile_scope::intra_node);
  p.ranks = 8;
  p.nodes = 2;  // 4 GPUs on each of 2 nodes
  CHECK(scope_of(p, 8) == profile_scope::inter_node);
  CHECK(to_string(profile_scope::inter_node) == "inter-node");
}

TEST_CASE("Each size is judged by the line fitted without it, and the band is conformal",
          "[calibration][band]") {
  // A hand-made sweep, 1 KiB .. 1 GiB, in-place and out-of-place, exactly on one line except
  // the 1 MiB timings, 10% slow.
  const link_spec link{300 * units::GB / units::s, 5 * units::us};
  nccl_run run;
  run.source = "hand-made";
  run.collective = collective_op::all_reduce;
  run.ranks = 8;
  for (const auto m : sizes(10, 30)) {
    for (const auto where : {placement::out_of_place, placement::in_place}) {
      nccl_sample sample;
      sample.size = m;
      sample.where = where;
      sample.time = ring_time(collective_op::all_reduce, 8, m, link) *
                    (m.value() == std::ldexp(1.0, 20) ? 1.1 : 1.0);
      run.samples.push_back(sample);
    }
  }
  const std::vector<nccl_run> runs{run};
  calibration_options one_line;
  one_line.segments = 1;
  const auto result = calibrate(runs, one_line);
  const auto& p = result.profile;
  REQUIRE(p.residuals.size() == result.points.size());
  for (const auto& pt : result.points) {
    if (pt.size.value() == std::ldexp(1.0, 20)) {
      // Without it the rest is exact: the left-out residual is the 10%, which the in-sample
      // fit, pulled towards the point, understates.
      CHECK_THAT(pt.loo_error, near(0.1, 1e-9));
      CHECK(pt.line_error < pt.loo_error);
    } else {
      CHECK(std::fabs(pt.loo_error) < 0.1);
    }
  }
  // The band is the step's formula on those residuals: over every point, and near a size.
  std::vector<double> all;
  for (const auto& r : p.residuals) {
    all.push_back(r.residual);
  }
  const auto whole = profile_band(p);
  REQUIRE(whole);
  CHECK(whole->points == 42);
  CHECK(whole->band.centre == conformal_band(all).centre);
  CHECK(whole->band.half_width == conformal_band(all).half_width);
  const auto at = profile_band(p, bytes(std::ldexp(1.0, 20)));
  REQUIRE(at);
  CHECK(at->near);
  CHECK(at->points == 10);  // 256 KiB .. 4 MiB, both placements
  CHECK(at->min_size.value() == std::ldexp(1.0, 18));
  CHECK(at->max_size.value() == std::ldexp(1.0, 22));
  CHECK(at->band.holds(0.1));
  // Far outside the sweep: every point's band, widened.
  const auto far = profile_band(p, bytes(std::ldexp(1.0, 40)));
  REQUIRE(far);
  CHECK_FALSE(far->near);
  CHECK(far->band.half_width == conformal_band(all).half_width * band_widening);
  // A profile without residuals (written before them): no band.
  auto old = p;
  old.residuals.clear();
  CHECK_FALSE(profile_band(old));
}
