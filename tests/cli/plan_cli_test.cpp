// `tpcost plan` end to end: its JSON parsed back and compared with the core library's search of
// the same request.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "run_binary.hpp"
#include "tpcost/hardware/efficiency.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/model/model_presets.hpp"
#include "tpcost/plan/planner.hpp"
#include "tpcost/step/long_context.hpp"

namespace {

tpcost::test::run_result run_plan(const std::string& args) {
  return tpcost::test::run("plan " + args);
}

}  // namespace

TEST_CASE("plan --format json lists the core's best layouts, best first, with the counts",
          "[cli][plan]") {
  const auto [code, out] = run_plan(
      "--model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 256 --global-batch 512 "
      "--top 4 --format json");
  REQUIRE(code == 0);
  const auto j = nlohmann::json::parse(out);
  CHECK(j.at("schema") == "tpcost.plan/1");

  using namespace tpcost;
  const auto& gpu = gpu_preset_by_name("h100-sxm", "gpu");
  plan_request req;
  req.model = model_preset_named("llama-3-70b", "model").spec;
  // The generation's η, as the CLI applies it (hardware/efficiency.hpp: 0.73 and 0.31 on Hopper).
  const auto eta = default_efficiency(gpu.arch, tensor_rate::bf16);
  req.gpu = {
      gpu.peak.bf16.value, gpu.memory_bandwidth.value, {eta.matmul, eta.memory, eta.attention}};
  req.memory_capacity = gpu.memory.value;
  req.memory_reserve = default_memory_reserve(req.memory_capacity);  // the CLI's default
  req.topology = make_topology(gpu, interconnect_preset_by_name("ib-ndr", "interconnect"));
  req.gpus = 256;
  req.global_batch = 512;
  req.top = 4;
  req.options = options_of(stack_profile_by_name("megatron-core", "stack"));  // the CLI's default
  req.constraints.max_cp = req.model.seq / 8192;  // the CLI's default --max-cp
  req.precision = precision_device_for(gpu, {}, "precision");
  const auto expected = plan(req);

  const auto& layouts = j.at("layouts");
  REQUIRE(layouts.size() == expected.top.size());
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const auto& l = layouts[i];
    const auto& e = expected.top[i];
    CHECK(l.at("layout") == describe_layout(e.candidate.par));
    CHECK(l.at("tp") == e.candidate.par.tp);
    CHECK(l.at("pp") == e.candidate.par.pp);
    CHECK(l.at("dp") == e.candidate.par.dp);
    CHECK(l.at("micro_batch") == e.candidate.par.micro_batch);
    CHECK(l.at("step_time_s").get<double>() == e.result.step_time.value());
    CHECK(l.at("mfu").get<double>() == e.result.mfu);
    CHECK(l.at("memory").at("fits") == true);
    if (i > 0) {
      CHECK(layouts[i - 1].at("step_time_s").get<double>() <= l.at("step_time_s").get<double>());
    }
  }
  const auto& search = j.at("search");
  CHECK(search.at("evaluated") == expected.counts.evaluated);
  CHECK(search.at("feasible") == expected.counts.feasible);
  CHECK(search.at("rejected").at("memory") == expected.counts[plan_reason::memory]);
  CHECK(j.at("runner_up").at("changes").size() >= 1);
  CHECK(j.at("per_degrees").size() == expected.per_degrees.size());
}

TEST_CASE("plan --compare --format json gives both layouts and their difference", "[cli][plan]") {
  const auto [code, out] = run_plan(
      "--model gpt-3-175b --gpu a100-sxm4-80gb --gpus 512 --global-batch 1536 --format json "
      "--compare "
      "t=16,p=4,recompute=full t=8,p=8,recompute=full");
  REQUIRE(code == 0);
  const auto j = nlohmann::json::parse(out);
  CHECK(j.at("schema") == "tpcost.plan.compare/1");
  REQUIRE(j.at("layouts").size() == 2);
  const auto a = j.at("layouts")[0].at("step_time_s").get<double>();
  const auto b = j.at("layouts")[1].at("step_time_s").get<double>();
  CHECK(b < a);
  CHECK(j.at("difference").at("step_time_s").get<double>() == Approx(b - a));
  CHECK(j.at("difference").at("largest") == "tp_comm");
  CHECK(j.at("layouts")[0].at("tp_spans_nodes") == true);
}

TEST_CASE("plan's best layout, with and without CP, run through step gives the same step time",
          "[cli][plan][cp]") {
  const std::string machine =
      "--model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 64 "
      "--seq 131072";
  for (const std::string limit : {"--max-cp 32", "--cp 4", "--cp 2 --cp-comm-type all_gather"}) {
    INFO(limit);
    const auto [code, out] = run_plan(machine + " " + limit + " --top 1 --format json");
    REQUIRE(code == 0);
    const auto j = nlohmann::json::parse(out);
    const auto& l = j.at("layouts").at(0);
    std::string args = "step " + machine + " --format json";
    args += " --tp " + std::to_string(l.at("tp").get<int>());
    args += " --pp " + std::to_string(l.at("pp").get<int>());
    args += " --cp " + std::to_string(l.at("cp").get<int>());
    args += " --dp " + std::to_string(l.at("dp").get<int>());
    args += " --micro-batch " + std::to_string(l.at("micro_batch").get<int>());
    args += " --vpp " + std::to_string(l.at("vpp").get<int>());
    args += " --recompute " + l.at("recompute").get<std::string>();
    args += " --zero " + std::to_string(l.at("zero").get<int>());
    args += l.at("sp").get<bool>() ? " --sp" : "";
    const auto layout = l.at("layout").get<std::string>();
    const auto first = layout.find(",first=");
    if (first != std::string::npos) {
      const auto last = layout.find(",last=");
      args += " --pp-layout first=" + layout.substr(first + 7, last - first - 7) +
              ",last=" + layout.substr(last + 6);
    }
    if (limit.find("all_gather") != std::string::npos) {
      args += " --cp-comm-type all_gather";
    }
    INFO(args);
    const auto step = tpcost::test::run(args);
    REQUIRE(step.exit_code == 0);
    const auto s = nlohmann::json::parse(step.out);
    CHECK_THAT(s.at("step_time_s").get<double>(),
               Catch::WithinRel(l.at("step_time_s").get<double>(), 1e-12));
    CHECK_THAT(s.at("mfu").get<double>(), Catch::WithinRel(l.at("mfu").get<double>(), 1e-12));
    if (limit != "--max-cp 32") {
      CHECK(l.at("cp").get<int>() > 1);
      CHECK(l.at("cp_comm_exposed_s").get<double>() >= 0.0);
    }
  }
}

TEST_CASE(
    "plan --emit megatron writes a launch that step --from reads back to the same layout "
    "and step time",
    "[cli][plan][emit]") {
  const std::string hardware = "--gpu h100-sxm --interconnect ib-ndr";
  const auto dir = std::filesystem::temp_directory_path();
  int n = 0;
  for (const std::string job :
       {"--model llama-3-70b --gpus 64 --global-batch 128",                 // dense
        "--model llama-3-8b --seq 131072 --gpus 64 --global-batch 16",      // long context: CP
        "--model mixtral-8x7b --gpus 64 --global-batch 256 --max-tp 2"}) {  // MoE: EP
    INFO(job);
    const auto plan = run_plan(job + " " + hardware + " --top 1 --format json");
    REQUIRE(plan.exit_code == 0);
    const auto l = nlohmann::json::parse(plan.out).at("layouts").at(0);
    const auto file = (dir / ("tpcost-emit-" + std::to_string(n++) + ".sh")).string();
    REQUIRE(run_plan(job + " " + hardware + " --emit megatron -o " + file).exit_code == 0);
    const auto step = tpcost::test::run("step --from " + file + " " + hardware + " --format json");
    std::filesystem::remove(file);
    REQUIRE(step.exit_code == 0);
    const auto s = nlohmann::json::parse(step.out);
    const auto& got = s.at("layout");
    for (const char* key : {"tp", "pp", "cp", "dp", "ep", "etp", "vpp", "micro_batch", "zero"}) {
      INFO(key);
      CHECK(got.value(key, 1) == l.value(key, 1));  // dense: no cp, ep, etp keys
    }
    CHECK(got.at("sp") == l.at("sp"));
    CHECK(got.at("recompute") == l.at("recompute"));
    CHECK_THAT(s.at("step_time_s").get<double>(),
               Catch::WithinRel(l.at("step_time_s").get<double>(), 1e-12));
  }
}

TEST_CASE("plan --emit refuses what it cannot write, in one line", "[cli][plan][emit]") {
  const auto r =
      run_plan("--model llama-3-8b --gpu h100-sxm --gpus 8 --global-batch 8 --emit torchtitan");
  CHECK(r.exit_code == 2);
}

namespace {

/// `tpcost step` flags for a layout of plan's JSON (its "layouts" entry).
std::string step_layout_flags(const nlohmann::json& l) {
  std::string args;
  for (const char* key : {"tp", "pp", "dp", "micro_batch", "vpp", "zero"}) {
    const std::string flag = std::string(key) == "micro_batch" ? "micro-batch" : key;
    args += " --" + flag + " " + std::to_string(l.at(key).get<int>());
  }
  args += " --cp " + std::to_string(l.value("cp", 1));
  args += " --recompute " + l.at("recompute").get<std::string>();
  args += l.at("sp").get<bool>() ? " --sp" : "";
  const auto layout = l.at("layout").get<std::string>();
  const auto first = layout.find(",first=");
  if (first != std::string::npos) {
    const auto last = layout.find(",last=");
    args += " --pp-layout first=" + layout.substr(first + 7, last - first - 7) +
            ",last=" + layout.substr(last + 6);
  }
  return args;
}

}  // namespace

TEST_CASE(
    "plan --precision fp8 and nvfp4: step of each layout with the same --precision gives the "
    "same step time and memory",
    "[cli][plan][precision]") {
  struct job {
    std::string machine, precision, recipe;
  };
  for (const auto& [machine, precision, recipe] :
       {job{"--model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 128",
            "--precision fp8", "fp8-delayed"},
        job{"--model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 128",
            "--dtype fp8", "fp8-delayed"},
        job{"--model llama-3-70b --gpu gb200 --interconnect ib-ndr --gpus 72 --global-batch 144",
            "--precision nvfp4", "nvfp4"}}) {
    INFO(machine + " " + precision);
    const auto plan = run_plan(machine + " " + precision + " --top 3 --format json");
    REQUIRE(plan.exit_code == 0);
    const auto j = nlohmann::json::parse(plan.out);
    CHECK(j.at("request").at("precision") == recipe);
    const auto bf16 = run_plan(machine + " --top 1 --format json");
    REQUIRE(bf16.exit_code == 0);
    const auto bf16_j = nlohmann::json::parse(bf16.out);
    CHECK(bf16_j.at("request").at("precision") == "bf16");
    // The recipe was priced: its winner is faster than BF16's.
    CHECK(j.at("layouts").at(0).at("step_time_s").get<double>() <
          bf16_j.at("layouts").at(0).at("step_time_s").get<double>());
    const auto& layouts = j.at("layouts");
    REQUIRE(layouts.size() == 3);
    for (const auto& l : layouts) {
      const auto args =
          "step " + machine + " " + precision + " --format json" + step_layout_flags(l);
      INFO(args);
      const auto step = tpcost::test::run(args);
      REQUIRE(step.exit_code == 0);
      const auto s = nlohmann::json::parse(step.out);
      CHECK(s.at("precision").at("linear") == recipe);
      CHECK_THAT(s.at("step_time_s").get<double>(),
                 Catch::WithinRel(l.at("step_time_s").get<double>(), 1e-9));
      CHECK_THAT(s.at("mfu").get<double>(), Catch::WithinRel(l.at("mfu").get<double>(), 1e-9));
      for (const char* key : {"total_bytes", "weights_bytes", "activations_bytes"}) {
        INFO(key);
        CHECK_THAT(s.at("memory").at(key).get<double>(),
                   Catch::WithinRel(l.at("memory").at(key).get<double>(), 1e-9));
      }
      CHECK(s.at("memory").at("peak_stage") == l.at("memory").at("peak_stage"));
    }
  }
}

TEST_CASE("plan's layout flags fix their dimension in every layout it lists", "[cli][plan]") {
  const auto r = run_plan(
      "--model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 128 "
      "--tp 4 --pp 4 --micro-batch 1 --zero 1 --vpp 2 --top 5 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const auto& req = j.at("request");
  CHECK(req.at("fixed_tp") == 4);
  CHECK(req.at("fixed_pp") == 4);
  CHECK(req.at("fixed_micro_batch") == 1);
  CHECK(req.at("fixed_vpp") == 2);
  CHECK(req.at("fixed_zero") == 1);
  REQUIRE(!j.at("layouts").empty());
  for (const auto& l : j.at("layouts")) {
    CHECK(l.at("tp") == 4);
    CHECK(l.at("pp") == 4);
    CHECK(l.at("micro_batch") == 1);
    CHECK(l.at("vpp") == 2);
    CHECK(l.at("zero") == 1);
  }
  // The older spellings are the same flags.
  const auto alias = run_plan(
      "--model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 128 "
      "--fixed-tp 4 --fixed-pp 4 -b 1 --zero 1 --vpp 2 --top 5 --format json");
  REQUIRE(alias.exit_code == 0);
  CHECK(nlohmann::json::parse(alias.out).at("layouts") == j.at("layouts"));
}
