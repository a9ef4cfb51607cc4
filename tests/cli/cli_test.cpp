// Runs the real binary, parses its JSON and CSV back, and compares with the core library.
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>

#include "run_binary.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/layer/sweep.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/model_presets.hpp"

using tpcost::test::read_file;
using tpcost::test::run;

TEST_CASE("sweep --format json parses back to the core's numbers", "[cli]") {
  const auto r = run("sweep --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto expected =
      tpcost::sweep_tp(tpcost::layer_spec{}, tpcost::device_spec{}, {1, 2, 4, 8, 16, 32});
  CHECK(j.at("schema") == "tpcost.sweep/1");
  CHECK(j.at("inputs").at("hidden") == 8192);
  CHECK(j.at("inputs").at("dtype_bytes") == 4);
  CHECK(j.at("inputs").at("bandwidth_bytes_per_s") == 600e9);
  CHECK(j.at("per_layer").at("comm_bytes") == 536870912.0);
  REQUIRE(j.at("rows").size() == expected.rows.size());
  for (std::size_t i = 0; i < expected.rows.size(); ++i) {
    const auto& row = j.at("rows")[i];
    CHECK(row.at("tp") == expected.rows[i].tp);
    // JSON doubles round-trip exactly.
    CHECK(row.at("compute_s").get<double>() == expected.rows[i].compute.value());
    CHECK(row.at("efficiency").get<double>() == expected.rows[i].efficiency);
    CHECK(row.at("speedup").get<double>() == expected.rows[i].speedup);
  }
  CHECK(j.at("summary").at("critical_tp").get<double>() == expected.critical_tp);
  CHECK(j.at("summary").at("largest_swept_tp_meeting_min_efficiency") == 8);
}

TEST_CASE("sweep --format json is byte-for-byte the committed golden file", "[cli]") {
  const auto r = run("sweep --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == read_file(std::string(TPCOST_EXPECTED_DIR) + "/sweep_default.json"));
}

TEST_CASE("a sweep where no degree meets the target has null summary fields", "[cli]") {
  const auto r = run("sweep --bandwidth 1GB/s --tp 1,2 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("summary").at("largest_swept_tp_meeting_min_efficiency").is_null());
  CHECK(j.at("summary").at("utilisation_at_that_tp").is_null());
}

TEST_CASE("sweep --format csv has one line per degree with SI values", "[cli]") {
  const auto r = run("sweep --format csv --tp 1..64");
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  CHECK(line == "tp,compute_s,comm_s,serial_s,overlapped_s,ratio,efficiency,comm_share,speedup");
  std::int64_t expected_tp = 1;
  while (std::getline(lines, line)) {
    CAPTURE(line);
    CHECK(std::stoll(line.substr(0, line.find(','))) == expected_tp);
    const double compute = std::stod(line.substr(line.find(',') + 1));
    CHECK(compute == Approx(0.019791209299968 / static_cast<double>(expected_tp)).epsilon(1e-12));
    expected_tp *= 2;
  }
  CHECK(expected_tp == 128);
}

TEST_CASE("the output flag writes the same bytes as stdout", "[cli]") {
  const std::string path = std::string(TPCOST_EXPECTED_DIR) + "/../out_test.tmp.json";
  const auto to_file = run("sweep --format json --output " + path);
  REQUIRE(to_file.exit_code == 0);
  CHECK(to_file.out.empty());
  CHECK(read_file(path) == run("sweep --format json").out);
  std::remove(path.c_str());
}

TEST_CASE("explain --format json carries the closed-form ratio", "[cli]") {
  const auto r = run("explain --tp 8 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("schema") == "tpcost.explain/2");
  CHECK(j.at("ratio_closed_form").get<double>() == Approx(0.3616898148148148).epsilon(1e-12));
  CHECK(j.at("rows").size() == 1);
}

TEST_CASE("check --format json parses back with one entry per file", "[cli][check]") {
  const std::string configs = std::string(TPCOST_EXPECTED_DIR) + "/../../../examples/configs";
  const auto r = run("check " + configs + "/gpt3-175b-dgx-a100.json " + configs +
                     "/gpt3-175b-tp16-mistake.json --format json");
  REQUIRE(r.exit_code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("schema") == "tpcost.check/1");
  CHECK(j.at("passed") == false);
  CHECK(j.at("exit_code") == 1);
  REQUIRE(j.at("files").size() == 2);
  CHECK(j.at("files")[0].at("passed") == true);
  CHECK(j.at("files")[1].at("passed") == false);
  CHECK(j.at("files")[1].at("tp") == 16);
  bool node_rule_failed = false;
  for (const auto& rule : j.at("files")[1].at("rules")) {
    if (rule.at("rule") == "tp_within_node") {
      node_rule_failed = rule.at("passed") == false && rule.at("measured") == 16.0 &&
                         rule.at("limit") == 8.0 && rule.at("relation") == "<=";
    }
  }
  CHECK(node_rule_failed);
}

TEST_CASE("model list --format json carries every preset with its count and sources", "[cli]") {
  const auto r = run("model list --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("schema") == "tpcost.model.list/1");
  const auto& models = j.at("models");
  REQUIRE(models.size() == tpcost::model_presets.size());
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& preset = tpcost::model_presets[i];
    CHECK(models[i].at("name") == preset.name);
    CHECK(models[i].at("params").get<std::int64_t>() == tpcost::count_params(preset.spec).total);
    CHECK(models[i].at("published_params").get<double>() == preset.published_params);
    CHECK(models[i].at("dimensions").at("kv_heads") == tpcost::kv_heads_of(preset.spec));
    CHECK(models[i].at("source") == preset.source);
  }
}

TEST_CASE("model show --format json parses back to the core's counts and FLOPs", "[cli]") {
  const auto r = run("model show llama-3-70b --seq 4096 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("schema") == "tpcost.model/1");
  auto spec = tpcost::model_preset_named("llama-3-70b", "test").spec;
  spec.seq = 4096;
  CHECK(j.at("model").at("overridden") == true);
  CHECK(j.at("published").is_null());
  CHECK(j.at("dimensions").at("seq") == 4096);
  CHECK(j.at("params").at("total").get<std::int64_t>() == tpcost::count_params(spec).total);
  const auto flops = tpcost::summarize_flops(spec, 4096);
  CHECK(j.at("flops_per_token").at("model_flops").get<double>() == flops.model.value());
  CHECK(j.at("flops_per_token").at("hardware_flops").at("full").get<double>() ==
        flops.hardware[2].value());
}

TEST_CASE("a Hugging Face config and its preset give the same JSON dimensions and counts",
          "[cli]") {
  const auto from_file = run(std::string("model show --format json --hf-config ") +
                             TPCOST_EXAMPLES_DIR + "/llama-3-8b.json");
  const auto from_preset = run("model show llama-3-8b --format json");
  REQUIRE(from_file.exit_code == 0);
  REQUIRE(from_preset.exit_code == 0);
  const auto a = nlohmann::json::parse(from_file.out);
  const auto b = nlohmann::json::parse(from_preset.out);
  CHECK(a.at("model").at("origin") == "hf-config");
  CHECK(b.at("model").at("origin") == "preset");
  CHECK(a.at("dimensions") == b.at("dimensions"));
  CHECK(a.at("params") == b.at("params"));
  CHECK(a.at("flops_per_token") == b.at("flops_per_token"));
  CHECK(b.at("published").at("relative_difference").get<double>() ==
        Approx(0.0037826).epsilon(1e-4));
}

TEST_CASE("Explicit seed flags (collective seed, overlap 0) keep the seed JSON byte for byte",
          "[cli]") {
  const auto golden = read_file(std::string(TPCOST_EXPECTED_DIR) + "/sweep_default.json");
  CHECK(run("sweep --collective seed --format json").out == golden);
  CHECK(run("sweep --overlap 0 --recompute none --bandwidth-kind algbw --format json").out ==
        golden);
}

TEST_CASE("A refined sweep's JSON keeps the seed's keys and adds the refined ones", "[cli]") {
  const auto r =
      run("sweep --tp 8,16 --collective auto --intra-bandwidth 450GB/s --intra-latency 3us "
          "--inter-bandwidth 50GB/s --inter-latency 10us --dtype bf16 --flops 989.4T --sp "
          "--format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("schema") == "tpcost.sweep/1");
  CHECK(j.at("model") == "refined");
  const auto& in = j.at("inputs");
  CHECK(in.at("collective") == "auto");
  CHECK(in.at("sequence_parallel") == true);
  CHECK(in.at("heads") == 64);
  CHECK(in.at("topology").at("gpus_per_node") == 8);
  CHECK(in.at("topology").at("inter").at("bandwidth_bytes_per_s").get<double>() == 50e9);
  CHECK(in.at("topology").at("intra").at("latency_s").get<double>() == 3e-6);
  CHECK(j.at("per_layer").at("collectives").at("all_gather") == 4);
  CHECK(j.at("per_layer").at("comm_s").is_null());
  // Each row has the seed's keys and the refined ones, parsed back to the core's numbers.
  const tpcost::layer_spec layer{.batch = 2, .seq = 2048, .hidden = 8192, .element = {"bf16", 2}};
  const tpcost::device_spec device{.peak = tpcost::flops_per_second(989.4e12),
                                   .bandwidth = tpcost::bytes_per_second(600e9)};
  const tpcost::cluster_topology topology{
      .gpus_per_node = 8,
      .intra = {.bandwidth = tpcost::bytes_per_second(450e9), .latency = tpcost::seconds(3e-6)},
      .inter = {.bandwidth = tpcost::bytes_per_second(50e9), .latency = tpcost::seconds(10e-6)}};
  tpcost::tp_options options;
  options.collective = tpcost::collective_choice::automatic;
  options.sequence_parallel = true;
  const auto expected = tpcost::sweep_tp(layer, device, topology, options, {8, 16});
  REQUIRE(j.at("rows").size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& row = j.at("rows")[i];
    const auto& want = expected.rows[i];
    for (const char* key : {"tp", "compute_s", "comm_s", "serial_s", "overlapped_s", "ratio",
                            "efficiency", "comm_share", "speedup"}) {
      CHECK(row.contains(key));
    }
    CHECK(row.at("comm_s").get<double>() == want.row.comm.value());
    CHECK(row.at("step_s").get<double>() == want.cost.step.value());
    CHECK(row.at("wire_bytes").get<double>() == want.cost.wire_bytes.value());
    CHECK(row.at("activation_bytes").get<double>() == want.cost.memory.with_sp.value());
    CHECK(row.at("collectives").size() == 2);  // all-gather, reduce-scatter
  }
  CHECK(j.at("rows")[1].at("nodes") == 2);
  // NCCL's tuner (as in collective and step) runs the all-gather over two nodes as its ring.
  CHECK(j.at("rows")[1].at("collectives")[0].at("algorithm") == "ring");
  const auto& boundary = j.at("summary").at("node_boundary");
  CHECK(boundary.at("last_tp_inside_a_node") == 8);
  CHECK(boundary.at("first_tp_spanning_nodes") == 16);
  CHECK(j.at("summary").at("critical_tp").is_null());
}

TEST_CASE("tpcost collective --format json gives algbw and busbw consistent with the time",
          "[cli]") {
  const auto r = run("collective --op all-reduce --size 1GiB --ranks 8 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("schema") == "tpcost.collective/1");
  CHECK(j.at("cheapest") == "ring");
  REQUIRE(j.at("results").size() == 4);
  for (const auto& row : j.at("results")) {
    const double t = row.at("time_s").get<double>();
    const double algbw = row.at("algbw_bytes_per_s").get<double>();
    CHECK_THAT(algbw, Catch::Matchers::WithinRel(1073741824.0 / t, 1e-12));
    CHECK_THAT(row.at("busbw_bytes_per_s").get<double>(),
               Catch::Matchers::WithinRel(algbw * 1.75, 1e-12));
  }
  // Ring at 1 GiB: busbw is the link bandwidth but for NCCL's base latency (v2.23 tuning.cc,
  // a few microseconds against milliseconds).
  CHECK_THAT(j.at("results")[1].at("busbw_bytes_per_s").get<double>(),
             Catch::Matchers::WithinRel(600e9, 0.01));
}

TEST_CASE("step --format json names the step time step_time_s and its parts add up to it",
          "[cli][step]") {
  const auto r =
      run("step --model gpt-3-175b --gpu a100-sxm4-80gb --gpus 1024 --tp 8 --pp 16 --global-batch "
          "1536 --recompute full "
          "--format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("schema") == "tpcost.step/1");
  const double step = j.at("step_time_s").get<double>();
  double sum = 0.0;
  for (const auto& [name, value] : j.at("breakdown_s").items()) {
    sum += value.get<double>();
  }
  CHECK(sum == Approx(step).epsilon(1e-12));
  CHECK(j.at("mfu").get<double>() < j.at("hfu").get<double>());
  CHECK(j.at("layout").at("dp") == 8);
  CHECK(j.at("memory").at("fits") == true);
  CHECK(j.at("tokens_per_s").get<double>() == Approx(1536.0 * 2048.0 / step).epsilon(1e-12));
}

TEST_CASE("step says loudly that a layout does not fit: --require-fit exits 1", "[cli][step]") {
  const std::string layout =
      "step --model gpt-3-175b --gpu a100-sxm4-80gb --interconnect ib-hdr --gpus 1024 --tp 8 --pp "
      "16 --global-batch 1536 --recompute none "
      "--micro-batch 8";
  const auto text = run(layout);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::StartsWith("DOES NOT FIT: the fullest stage"));
  const auto json = run(layout + " --format json");
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out).at("fits") == false);
  CHECK(run(layout + " --require-fit").exit_code == 1);
  const auto fits =
      run("step --model gpt-3-175b --gpu a100-sxm4-80gb --interconnect ib-hdr --gpus 1024 --tp 8 "
          "--pp 16 --global-batch 1536 --recompute full "
          "--require-fit");
  CHECK(fits.exit_code == 0);
  CHECK_THAT(fits.out, !Catch::Contains("DOES NOT FIT"));
}

TEST_CASE("step --pp-layout takes end stages or Megatron-Core's layout string", "[cli][step]") {
  const std::string base =
      "step --model llama-3-405b --gpu h100-sxm --interconnect ib-ndr --gpus 2048 --tp 8 --pp 16 "
      "--global-batch 2048 --sp --zero 1 --recompute full --format json";
  const auto ends = run(base + " --pp-layout first=7,last=7");
  REQUIRE(ends.exit_code == 0);
  const auto string = run(base + " --pp-layout 'Et*7|(t*8|)*14t*7L'");
  REQUIRE(string.exit_code == 0);
  const auto accounted =
      run(base + " --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split");
  REQUIRE(accounted.exit_code == 0);
  const auto layers = nlohmann::json::parse(ends.out).at("layout").at("stage_layers");
  CHECK(layers.front() == 7);
  CHECK(layers[1] == 8);
  CHECK(layers.back() == 7);
  CHECK(nlohmann::json::parse(string.out).at("step_time_s") ==
        nlohmann::json::parse(ends.out).at("step_time_s"));
  CHECK(nlohmann::json::parse(accounted.out).at("step_time_s") ==
        nlohmann::json::parse(ends.out).at("step_time_s"));
  // 126 - 13 = 113 layers do not split evenly over 14 middle stages.
  CHECK(run(base + " --pp-layout first=7,last=6").exit_code == 2);
  CHECK(run(base + " --pp-layout 'Et*7|(t*9|)*14t*7L'").exit_code == 2);  // 140 layers
  // ZeRO-2 with pipelines: refused by step as by plan; without pipelines it runs.
  const std::string small =
      "step --model gpt-3-175b --gpu a100-sxm4-80gb --interconnect ib-hdr --gpus 1024 --tp 8 "
      "--global-batch 1536 ";
  CHECK(run(small + "--pp 16 --zero 2 --recompute full").exit_code == 2);
  CHECK(run(small + "--pp 1 --zero 2 --recompute full").exit_code == 0);
}

TEST_CASE("a preset sweep's JSON is the core's refined sweep on the preset topology",
          "[cli][presets]") {
  const auto r = run("sweep --gpu h100-sxm --interconnect ndr --tp 1..64 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& h100 = *tpcost::find_gpu_preset("h100-sxm");
  const auto& ndr = *tpcost::find_interconnect_preset("ib-ndr");
  tpcost::layer_spec layer;
  layer.element = {"bf16", 2};
  const tpcost::device_spec device{h100.peak.bf16.value, h100.intra.bandwidth.value};
  tpcost::tp_options options;
  options.collective = tpcost::collective_choice::automatic;
  const auto expected = tpcost::sweep_tp(layer, device, tpcost::make_topology(h100, ndr), options,
                                         {1, 2, 4, 8, 16, 32, 64});
  CHECK(j.at("model") == "refined");
  CHECK(j.at("inputs").at("collective") == "auto");
  CHECK(j.at("inputs").at("flops_per_s").get<double>() == h100.peak.bf16.value.value());
  CHECK(j.at("inputs").at("topology").at("inter").at("bandwidth_bytes_per_s") == 50e9);
  const auto& hardware = j.at("inputs").at("hardware");
  CHECK(hardware.at("gpu") == "H100-SXM");
  CHECK(hardware.at("interconnect") == "IB-NDR");
  CHECK(hardware.at("peak_rate") == "bf16");
  CHECK(hardware.at("interconnect_file").is_null());
  CHECK(hardware.at("given").empty());
  REQUIRE(j.at("rows").size() == expected.rows.size());
  for (std::size_t i = 0; i < expected.rows.size(); ++i) {
    CHECK(j.at("rows")[i].at("comm_s").get<double>() == expected.rows[i].row.comm.value());
    CHECK(j.at("rows")[i].at("efficiency").get<double>() == expected.rows[i].row.efficiency);
  }
  CHECK(j.at("summary").at("node_boundary").at("first_tp_spanning_nodes") == 16);
}

TEST_CASE("check measures what sweep computes for the same config", "[cli][check]") {
  const std::string configs = std::string(TPCOST_EXPECTED_DIR) + "/../../../examples/configs";
  for (const auto* name :
       {"gpt3-175b-dgx-a100.json", "gpt3-175b-tp16-mistake.json", "llama3-70b-h100.json"}) {
    CAPTURE(name);
    const auto checked = run("check " + configs + "/" + name + " --format json");
    REQUIRE(checked.exit_code <= 1);
    const auto swept = run("sweep --config " + configs + "/" + name + " --format json");
    REQUIRE(swept.exit_code == 0);
    const auto c = nlohmann::json::parse(checked.out).at("files")[0];
    const auto s = nlohmann::json::parse(swept.out);
    CHECK(c.at("model") == "refined model, collective auto");
    CHECK(s.at("model") == "refined");
    REQUIRE(s.at("rows").size() == 1);
    const auto& row = s.at("rows")[0];
    for (const auto& rule : c.at("rules")) {
      if (rule.at("rule") == "min_efficiency") {
        CHECK(rule.at("measured").get<double>() == row.at("efficiency").get<double>());
      } else if (rule.at("rule") == "max_ratio") {
        CHECK(rule.at("measured").get<double>() == row.at("ratio").get<double>());
      } else if (rule.at("rule") == "tp_within_half_critical") {
        // t*/2 = A/(2*T_comm): the rule holds exactly when R <= 1/2.
        CHECK(rule.at("passed").get<bool>() == (row.at("ratio").get<double>() <= 0.5));
      }
    }
  }
}

TEST_CASE("check's step rules measure what step computes for the same config and flags",
          "[cli][check]") {
  const std::string configs = std::string(TPCOST_EXPECTED_DIR) + "/../../../examples/configs";
  for (const auto* name :
       {"gpt3-175b-dgx-a100.json", "gpt3-175b-tp16-mistake.json", "llama3-70b-h100.json"}) {
    // The file alone, then a what-if on the command line that both commands take.
    for (const std::string what_if : {"", " --gpu h100-sxm --interconnect ib-ndr"}) {
      CAPTURE(name, what_if);
      const auto checked = run("check " + configs + "/" + name + what_if + " --format json");
      REQUIRE(checked.exit_code <= 1);
      const auto stepped =
          run("step --config " + configs + "/" + name + what_if + " --format json");
      REQUIRE(stepped.exit_code == 0);
      const auto c = nlohmann::json::parse(checked.out).at("files")[0];
      const auto s = nlohmann::json::parse(stepped.out);
      int step_rules = 0;
      for (const auto& rule : c.at("rules")) {
        const auto measured = rule.at("measured").get<double>();
        if (rule.at("rule") == "min_mfu") {
          CHECK(measured == s.at("mfu").get<double>());
          ++step_rules;
        } else if (rule.at("rule") == "min_memory_headroom") {
          CHECK(rule.at("unit") == "B");
          CHECK(measured == s.at("memory").at("headroom_bytes").get<double>());
          ++step_rules;
        } else if (rule.at("rule") == "max_step_time") {
          CHECK(rule.at("unit") == "s");
          CHECK(measured == s.at("step_time_s").get<double>());
          CHECK(rule.at("passed").get<bool>() == (measured <= rule.at("limit").get<double>()));
          ++step_rules;
        }
      }
      CHECK(step_rules >= 2);
      CHECK(c.at("step").get<std::string>().find("t=" + std::to_string(c.at("tp").get<int>())) !=
            std::string::npos);
    }
  }
}

TEST_CASE("An empty GPU or interconnect preset is an input error, not a crash", "[cli]") {
  // to_topology reads "" as "no preset"; step and plan need both (HBM, peak, the network).
  for (const auto* args :
       {"step --model gpt-3-175b --gpu '' --global-batch 8",
        "step --model gpt-3-175b --interconnect '' --global-batch 8",
        "plan --model gpt-3-175b --gpu '' --global-batch 8 --gpus 8",
        "check " TPCOST_EXPECTED_DIR "/../../../examples/configs/llama3-70b-h100.json --gpu ''"}) {
    CAPTURE(args);
    const auto r = run(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
  }
}

TEST_CASE("One collective model: sweep, explain and collective price the same all-reduce alike",
          "[cli][nccl]") {
  // One layer's all-reduce, M = b·s·h·2 = 2·2048·8192·2 = 67,108,864 B, on presets inside a
  // node (NVLS on H100), across two (NVLS-tree) and on A100 (no NVLS).
  for (const auto& [hardware, t] : {std::pair{std::string("--gpu h100"), 8},
                                    std::pair{std::string("--gpu h100 --interconnect ndr"), 16},
                                    std::pair{std::string("--gpu a100 --interconnect hdr"), 8}}) {
    CAPTURE(hardware, t);
    const auto degree = " --tp " + std::to_string(t) + " --format json";
    const auto sweep = run("sweep " + hardware + degree);
    const auto explain = run("explain " + hardware + degree);
    const auto collective =
        run("collective " + hardware + " --op all-reduce --size 67108864B --ranks " +
            std::to_string(t) + " --algorithm auto --format json");
    REQUIRE(sweep.exit_code == 0);
    REQUIRE(explain.exit_code == 0);
    REQUIRE(collective.exit_code == 0);
    const auto s = nlohmann::json::parse(sweep.out).at("rows")[0].at("collectives")[0];
    const auto e = nlohmann::json::parse(explain.out).at("rows")[0].at("collectives")[0];
    const auto c = nlohmann::json::parse(collective.out);
    REQUIRE(c.at("results").size() == 1);
    const auto& picked = c.at("results")[0];
    CHECK(s.at("algorithm") == c.at("cheapest"));
    CHECK(s.at("algorithm") == picked.at("algorithm"));
    CHECK(s.at("protocol") == picked.at("protocol"));
    CHECK(s.at("time_s").get<double>() == picked.at("time_s").get<double>());
    CHECK(e == s);
  }
}
