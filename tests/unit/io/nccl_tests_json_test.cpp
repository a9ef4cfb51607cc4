// nccl-tests' JSON report (-J): the same samples, ranks and collective as the text output.
#include "tpcost/io/nccl_tests_json.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "support/matchers.hpp"

using namespace tpcost;
using tpcost::test::near;
using json = nlohmann::json;

namespace {

/// A report in the shape nccl-tests src/util.cu writes (JSON_FILE_VERSION 2), 2 processes of
/// 4 GPUs each on two hosts.
json report() {
  const auto group = [](double time, double alg, double bus) {
    return json{{"time", time}, {"alg_bw", alg}, {"bus_bw", bus}, {"nwrong", 0}};
  };
  return json{
      {"version", 2},
      {"start_time", "2025-01-01 12:00:00"},
      {"args", {"/opt/nccl-tests/build/all_reduce_perf", "-b", "1M", "-e", "4M", "-f", "2"}},
      {"env", json::array()},
      {"nccl_version", 22003},
      {"config",
       {{"nthreads", 1},
        {"ngpus", 4},
        {"minimum_bytes", 1048576},
        {"maximum_bytes", 4194304},
        {"step_factor", 2},
        {"devices",
         {{{"rank", 0}, {"group", 0}, {"pid", 1}, {"hostname", "node-a"}, {"device", 0}},
          {{"rank", 4}, {"group", 0}, {"pid", 2}, {"hostname", "node-b"}, {"device", 0}}}}}},
      {"results",
       {{{"size", 1048576},
         {"count", 262144},
         {"type", "float"},
         {"redop", "sum"},
         {"root", "    -1"},
         {"out_of_place", group(40.0, 26.214400, 45.875200)},
         {"in_place", group(39.0, 26.886564, 47.051487)},
         {"actual_iterations", 20},
         {"experiment_name", ""}},
        {{"size", 4194304},
         {"count", 1048576},
         {"type", "float"},
         {"redop", "sum"},
         {"root", "    -1"},
         {"out_of_place", nullptr},
         {"in_place", group(80.0, 52.428800, 91.750400)},
         {"actual_iterations", 20},
         {"experiment_name", ""}}}},
      {"out_of_bounds", {{"count", 0}, {"okay", "true"}}},
      {"average_bus_bandwidth", {{"bandwidth", 61.5}, {"okay", "unchecked"}}},
      {"errors", json::array()},
      {"end_time", "2025-01-01 12:00:05"},
  };
}

std::string error_of(const json& doc) {
  try {
    (void)parse_nccl_tests_json(doc.dump(), "run.json");
  } catch (const invalid_spec& e) {
    return e.what();
  }
  FAIL("accepted");
  return {};
}

}  // namespace

TEST_CASE("A JSON report gives samples, ranks, nodes and the collective", "[nccl_tests_json]") {
  const auto run = resolve_run(parse_nccl_tests_json(report().dump(), "run.json"), {});
  REQUIRE(run.samples.size() == 3);
  CHECK(run.samples[0].where == placement::out_of_place);
  CHECK_THAT(run.samples[0].time.value(), near(40e-6));
  CHECK(run.samples[2].size.value() == 4194304.0);
  CHECK(run.samples[2].where == placement::in_place);
  CHECK(run.collective == collective_op::all_reduce);
  CHECK(run.collective_from == "/args/0");
  CHECK(run.ranks == 8);  // nthreads 1 x ngpus 4 x 2 processes
  CHECK(run.nodes == 2);
  CHECK(run.from_json);
}

TEST_CASE("A JSON report that disagrees with its rank count is refused", "[nccl_tests_json]") {
  auto doc = report();
  doc["config"]["ngpus"] = 8;  // 16 ranks claimed, busbw/algbw says 8
  try {
    (void)resolve_run(parse_nccl_tests_json(doc.dump(), "run.json"), {});
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::StartsWith("run.json: /results/") && Catch::Contains("over 16 ranks"));
  }
}

TEST_CASE("Malformed JSON reports name the JSON pointer", "[nccl_tests_json]") {
  CHECK_THAT(error_of(json::array()), Catch::StartsWith("run.json: /: the document is not"));
  auto doc = report();
  doc.erase("results");
  CHECK_THAT(error_of(doc), Catch::StartsWith("run.json: /results: is missing"));
  doc = report();
  doc["results"][1]["in_place"]["time"] = "nan";
  CHECK(error_of(doc) ==
        "run.json: /results/1/in_place/time: is \"nan\", expected a finite number");
  doc = report();
  doc["results"][0]["out_of_place"]["time"] = -3.0;
  CHECK_THAT(error_of(doc), Catch::StartsWith("run.json: /results/0/out_of_place/time: is not a "
                                              "positive"));
  doc = report();
  doc["results"][0]["in_place"]["nwrong"] = 5;
  CHECK_THAT(error_of(doc), Catch::StartsWith("run.json: /results/0/in_place/nwrong: nccl-tests "
                                              "found 5 wrong elements"));
  doc = report();
  doc["results"][1]["size"] = -1;
  CHECK_THAT(error_of(doc), Catch::StartsWith("run.json: /results/1/size: is missing or not"));
  doc = report();
  doc["results"] = json::array();
  CHECK(error_of(doc) == "run.json: /results: holds no timing");
  try {
    (void)parse_nccl_tests_json("{\"version\": 2, \"results\": [", "run.json");
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("run.json: not valid JSON: parse error"));
  }
}
