// `tpcost plan` end to end: its JSON parsed back and compared with the core library's search of
// the same request.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

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
  const auto eta = default_efficiency(gpu.name, gpu.arch, tensor_rate::bf16);
  req.gpu = {
      gpu.peak.bf16.value, gpu.memory_bandwidth.value, {eta.matmul, eta.memory, eta.attention}};
  req.memory_capacity = gpu.memory.value;
  req.memory_reserve = default_memory_reserve(req.memory_capacity);  // the CLI's default
  req.topology = make_topology(gpu, interconnect_preset_by_name("ib-ndr", "interconnect"));
  req.gpus = 256;
  req.global_batch = 512;
  req.top = 4;
  req.options =
      options_of(stack_profile_by_name(default_stack_name, "stack"));  // the CLI's default
  req.constraints.max_cp = req.model.seq / 8192;                       // the CLI's default --max-cp
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
    args += l.at("sp").get<bool>() ? " --sp" : " --no-sp";
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

namespace {

/// plan's best layout (JSON), then the same plan written by --emit FORMAT to a file and costed
/// by step --from FILE with the same hardware flags (and `step_extra`): the layout and the step
/// time must come back. Returns the step time plan printed.
double check_emit_round_trip(const std::string& job, const std::string& hardware,
                             const std::string& format, const std::string& suffix,
                             const std::string& step_extra) {
  INFO(format + ": " + job);
  const auto plan = run_plan(job + " " + hardware + " --top 1 --format json");
  REQUIRE(plan.exit_code == 0);
  const auto l = nlohmann::json::parse(plan.out).at("layouts").at(0);
  INFO(l.at("layout").get<std::string>());
  static int n = 0;
  const auto file =
      (std::filesystem::temp_directory_path() /
       ("tpcost-emit-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + suffix))
          .string();
  REQUIRE(run_plan(job + " " + hardware + " --emit " + format + " -o " + file).exit_code == 0);
  const auto text = tpcost::test::read_file(file);
  CHECK(text.find("# Written by tpcost plan --emit " + format + ":") < 16);  // after a #!
  CHECK(text.find("Not set here:") != std::string::npos);
  if (format == "torchtitan") {
    // What the reader does not read back but torchtitan runs (torchtitan/train.py and
    // distributed/pipeline_parallel.py at v0.2.2): gradients accumulate over
    // global / (local_batch_size * dp) steps, each of local / microbatch_size pipeline
    // micro-batches under PP; tpcost's m micro-batches of b must be one step of them.
    const auto value = [&](const std::string& key) -> std::int64_t {
      const auto at = text.find("\n" + key + " = ");
      return at == std::string::npos ? 0 : std::stoll(text.substr(at + key.size() + 4));
    };
    const auto local = value("local_batch_size");
    const auto dp = value("data_parallel_replicate_degree") * value("data_parallel_shard_degree");
    REQUIRE(local > 0);
    CHECK(value("global_batch_size") == l.at("global_batch").get<std::int64_t>());
    CHECK(dp == l.at("dp").get<std::int64_t>());
    const auto accumulation = value("global_batch_size") / (local * dp);
    CHECK(accumulation * local * dp == value("global_batch_size"));
    if (l.at("pp").get<int>() > 1) {
      CHECK(accumulation == 1);
      CHECK(local / value("pipeline_parallel_microbatch_size") == l.at("micro_batches"));
      CHECK(value("pipeline_parallel_first_stage_less_layers") == 0);  // even stages
      CHECK(text.find("pipeline_parallel_last_stage_less_layers = 0\n") != std::string::npos);
    } else {
      CHECK(local == l.at("micro_batch"));
      CHECK(accumulation == l.at("micro_batches"));
    }
  }
  const auto step =
      tpcost::test::run("step --from " + file + " " + hardware + step_extra + " --format json");
  // The same file through convert, as a user checks what tpcost read: tpcost's own config,
  // which step costs the same.
  const auto converted = file + ".json";
  REQUIRE(tpcost::test::run("convert -q " + file + " -o " + converted).exit_code == 0);
  const auto via_convert = tpcost::test::run("step --from " + converted + " " + hardware +
                                             step_extra + " --format json");
  std::filesystem::remove(file);
  std::filesystem::remove(converted);
  REQUIRE(step.exit_code == 0);
  REQUIRE(via_convert.exit_code == 0);
  CHECK_THAT(nlohmann::json::parse(via_convert.out).at("step_time_s").get<double>(),
             Catch::WithinRel(l.at("step_time_s").get<double>(), 1e-12));
  const auto s = nlohmann::json::parse(step.out);
  const auto& got = s.at("layout");
  for (const char* key :
       {"tp", "pp", "cp", "dp", "ep", "etp", "vpp", "micro_batch", "micro_batches", "zero"}) {
    INFO(key);
    CHECK(got.value(key, 1) == l.value(key, 1));  // dense: no cp, ep, etp keys
  }
  CHECK(got.at("sp") == l.at("sp"));
  for (const char* key : {"recompute", "recompute_method", "recompute_num_layers"}) {
    INFO(key);
    CHECK(got.at(key) == l.at(key));
  }
  CHECK_THAT(s.at("step_time_s").get<double>(),
             Catch::WithinRel(l.at("step_time_s").get<double>(), 1e-12));
  return l.at("step_time_s").get<double>();
}

}  // namespace

TEST_CASE(
    "plan --emit megatron writes a launch that step --from reads back to the same layout "
    "and step time",
    "[cli][plan][emit]") {
  const std::string hardware = "--gpu h100-sxm --interconnect ib-ndr";
  check_emit_round_trip("--model llama-3-70b --gpus 64 --global-batch 128", hardware,  // dense
                        "megatron", ".sh", "");
  check_emit_round_trip("--model llama-3-8b --seq 131072 --gpus 64 --global-batch 16",  // CP
                        hardware, "megatron", ".sh", "");
  check_emit_round_trip("--model mixtral-8x7b --gpus 64 --global-batch 256 --max-tp 2",  // EP
                        hardware, "megatron", ".sh", "");
  // The switches plan priced with travel too: the MoE overlap, Megatron-Core's overlaps.
  check_emit_round_trip(
      "--model mixtral-8x7b --gpus 64 --global-batch 256 --max-tp 2 "
      "--overlap-moe-expert-parallel-comm --overlap-grad-reduce --overlap-param-gather",
      hardware, "megatron", ".sh", "");
  // --stack megatron-bridge: the recipe's switches are written out, and Megatron-Core with them
  // costs what the recipe profile did (at t > 1 with SP, and a layout where t > 1 without it).
  check_emit_round_trip("--model llama-3-70b --gpus 64 --global-batch 128 --stack megatron-bridge",
                        hardware, "megatron", ".sh", "");
  check_emit_round_trip("--model llama-3-70b --gpus 64 --global-batch 128 --stack megatron-bridge",
                        hardware, "bridge", ".yaml", " --gpus 64");
  check_emit_round_trip(
      "--model llama-3-8b --gpus 32 --global-batch 64 --stack megatron-bridge "
      "--compare t=2,p=2,d=8,b=2,sp=off,recompute=full,zero=1 t=8,p=1",
      hardware, "bridge", ".yaml", " --gpus 32");
  // Full recomputation of the fewest block layers that fit (--recompute-num-layers auto: the
  // winner is block 1), and a fixed method and layers.
  const std::string llama405b = "--model llama-3-405b --gpus 512 --global-batch 512 --zero 1";
  for (const std::string recompute :
       {" --recompute-num-layers auto", " --recompute-method block --recompute-num-layers 2",
        " --recompute-method uniform --recompute-num-layers 3"}) {
    const auto plan = run_plan(llama405b + recompute + " " + hardware + " --top 1 --format json");
    REQUIRE(plan.exit_code == 0);
    const auto l = nlohmann::json::parse(plan.out).at("layouts").at(0);
    CHECK(l.at("recompute") == "full");
    CHECK(l.at("recompute_method") ==
          (recompute.find("uniform") != std::string::npos ? "uniform" : "block"));
    check_emit_round_trip(llama405b + recompute, hardware, "megatron", ".sh", "");
    check_emit_round_trip(llama405b + recompute, hardware, "bridge", ".yaml", " --gpus 512");
  }
}

TEST_CASE(
    "plan --emit bridge writes a Megatron-Bridge YAML that step --from reads back to the same "
    "layout and step time",
    "[cli][plan][emit]") {
  const std::string hardware = "--gpu h100-sxm --interconnect ib-ndr";
  // The YAML has no world size (the launcher's): step is told N.
  check_emit_round_trip("--model llama-3-70b --gpus 64 --global-batch 128", hardware, "bridge",
                        ".yaml", " --gpus 64");
  check_emit_round_trip("--model llama-3-8b --seq 131072 --gpus 64 --global-batch 16", hardware,
                        "bridge", ".yaml", " --gpus 64");
  check_emit_round_trip("--model mixtral-8x7b --gpus 64 --global-batch 256 --max-tp 2", hardware,
                        "bridge", ".yaml", " --gpus 64");
  // --compare's first layout, with what the search above does not pick: uneven end stages,
  // ZeRO-3 (Megatron-FSDP), full recomputation, and the Megatron-Core overlap switches.
  check_emit_round_trip(
      "--model llama-3-8b --gpus 32 --global-batch 64 --overlap-grad-reduce --tp-comm-overlap "
      "--compare t=2,p=2,d=8,b=2,sp=on,recompute=full,zero=1,first=15,last=17 t=8,p=1",
      hardware, "bridge", ".yaml", " --gpus 32");
  check_emit_round_trip(
      "--model mixtral-8x7b --gpus 64 --global-batch 256 --max-tp 2 "
      "--overlap-moe-expert-parallel-comm --moe-token-dispatcher flex",
      hardware, "bridge", ".yaml", " --gpus 64");
}

TEST_CASE(
    "plan --emit torchtitan writes a v0.2.2 job config that step --from reads back to the same "
    "layout and step time",
    "[cli][plan][emit]") {
  const std::string hardware = "--gpu h100-sxm --interconnect ib-ndr";
  const std::string fsdp2 = " --stack fsdp2";
  check_emit_round_trip("--model llama-3-70b --gpus 64 --global-batch 128" + fsdp2, hardware,
                        "torchtitan", ".toml", "");
  // Long context: CP, its exchange as context_parallel_rotate_method.
  check_emit_round_trip(
      "--model llama-3-8b --seq 131072 --gpus 64 --global-batch 16 --cp-comm-type all_gather" +
          fsdp2,
      hardware, "torchtitan", ".toml", "");
  // MoE: EP with the experts split over TP (etp = t), pipeline stages, selective recomputation.
  check_emit_round_trip(
      "--model qwen3-30b-a3b --gpus 32 --global-batch 64" + fsdp2 +
          " --compare t=2,p=2,ep=4,etp=2,d=8,b=1,sp=on,recompute=selective,zero=3 t=1,p=1",
      hardware, "torchtitan", ".toml", "");
  // A winner torchtitan cannot write (interleaved stages): the error names the best of the top
  // that it can, and that layout, given to --compare, round-trips.
  const std::string searched = "--model llama-3-70b --seq 32768 --gpus 64 --global-batch 64" +
                               fsdp2 + " --fixed-pp 2 --top 10";
  const auto refused =  // stderr through the pipe: the exit code is cat's
      run_plan(searched + " " + hardware + " --emit torchtitan 2>&1 >/dev/null | cat");
  const std::string marker = "can express is #";
  REQUIRE(refused.out.find(marker) != std::string::npos);
  const auto quote = refused.out.find("--compare \"");
  REQUIRE(quote != std::string::npos);
  const auto start = quote + 11;
  const auto hinted = refused.out.substr(start, refused.out.find('"', start) - start);
  check_emit_round_trip("--model llama-3-70b --seq 32768 --gpus 64 --global-batch 64" + fsdp2 +
                            " --compare " + hinted + " t=1",
                        hardware, "torchtitan", ".toml", "");
  // PP with d = 1: DDP over nothing (ZeRO-0), micro-batches of pipeline_parallel_microbatch_size.
  check_emit_round_trip("--model llama-3-8b --gpus 16 --global-batch 64" + fsdp2 +
                            " --compare t=2,p=8,d=1,b=8,sp=on,zero=0 t=1,p=1",
                        hardware, "torchtitan", ".toml", "");
}

TEST_CASE(
    "plan --emit writes the FP8, MXFP8 and NVFP4 recipes as each format spells them, and step "
    "--from reads them back to the same step time",
    "[cli][plan][emit][precision]") {
  const std::string h100 = "--gpu h100-sxm --interconnect ib-ndr";
  const std::string b200 = "--gpu b200 --interconnect ib-ndr";
  const std::string job = "--model llama-3-70b --gpus 64 --global-batch 128";
  const auto bf16 = check_emit_round_trip(job, h100, "megatron", ".sh", "");
  // Each recipe round-trips, and is not costed as BF16 (the file carries it).
  for (const std::string precision : {"fp8", "fp8-current", "fp8-blockwise"}) {
    INFO(precision);
    CHECK(check_emit_round_trip(job + " --precision " + precision, h100, "megatron", ".sh", "") <
          bf16);
  }
  // Megatron-Bridge's delayed-scaling and MXFP8 recipes keep the parameters in FP8.
  CHECK(check_emit_round_trip(job + " --precision fp8 --fp8-param-gather", h100, "bridge", ".yaml",
                              " --gpus 64") < bf16);
  CHECK(check_emit_round_trip(job + " --precision fp8-current", h100, "bridge", ".yaml",
                              " --gpus 64") < bf16);
  CHECK(check_emit_round_trip(job + " --precision fp8-blockwise", h100, "bridge", ".yaml",
                              " --gpus 64") < bf16);
  const auto mx = check_emit_round_trip(job + " --precision mxfp8", b200, "megatron", ".sh", "");
  CHECK(check_emit_round_trip(job + " --precision nvfp4", b200, "megatron", ".sh", "") < mx);
  check_emit_round_trip(job + " --precision mxfp8 --fp8-param-gather", b200, "bridge", ".yaml",
                        " --gpus 64");
  check_emit_round_trip(job + " --precision nvfp4", b200, "bridge", ".yaml", " --gpus 64");
  // torchtitan: torchao's float8 tensorwise (fp8-current) and MX linears.
  const auto tt_bf16 =
      check_emit_round_trip(job + " --stack fsdp2", h100, "torchtitan", ".toml", "");
  CHECK(check_emit_round_trip(job + " --stack fsdp2 --precision fp8-current", h100, "torchtitan",
                              ".toml", "") < tt_bf16);
  check_emit_round_trip(job + " --stack fsdp2 --precision mxfp8", b200, "torchtitan", ".toml", "");
  // The spellings.
  const auto text = [&](const std::string& args) {
    const auto r = run_plan(args);
    REQUIRE(r.exit_code == 0);
    return r.out;
  };
  CHECK(text(job + " " + b200 + " --precision nvfp4 --emit megatron")
            .find("    --fp4-format e2m1 \\\n    --fp4-recipe nvfp4\n") != std::string::npos);
  CHECK(text(job + " " + b200 + " --precision mxfp8 --emit megatron")
            .find("    --fp8-format e4m3 \\\n    --fp8-recipe mxfp8\n") != std::string::npos);
  CHECK(text(job + " " + h100 + " --precision fp8-current --emit bridge")
            .find("\nmixed_precision: bf16_with_fp8_current_scaling_mixed\n") != std::string::npos);
  CHECK(text(job + " " + b200 + " --precision nvfp4 --emit bridge")
            .find("\nmixed_precision: bf16_with_nvfp4_mixed\n") != std::string::npos);
  const auto toml =
      text(job + " " + h100 + " --stack fsdp2 --precision fp8-current --emit torchtitan");
  CHECK(toml.find("\nconverters = [\"quantize.linear.float8\"]\n") != std::string::npos);
  CHECK(toml.find("\n[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n") !=
        std::string::npos);
}

TEST_CASE(
    "plan --precision auto searches each recipe the GPU runs and reports the fastest, which "
    "--emit writes",
    "[cli][plan][precision]") {
  const std::string job = "--model llama-3-70b --gpus 64 --global-batch 128";
  const auto json_of = [](const std::string& args) {
    const auto r = run_plan(args + " --top 1 --format json");
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out);
  };
  for (const std::string gpu : {"h100-sxm", "b200"}) {
    INFO(gpu);
    const std::string hardware = "--gpu " + gpu + " --interconnect ib-ndr";
    const auto a = json_of(job + " " + hardware + " --precision auto");
    const auto& searched = a.at("precisions");
    std::vector<std::string> names;
    double best = 0.0;
    std::string fastest;
    for (const auto& p : searched) {
      names.push_back(p.at("precision").get<std::string>());
      const auto t = p.at("step_time_s").get<double>();
      // Each recipe's best is what a search at that recipe alone finds.
      const auto one = json_of(job + " " + hardware + " --precision " + names.back());
      CHECK(one.at("layouts").at(0).at("step_time_s").get<double>() == t);
      CHECK(one.at("layouts").at(0).at("layout") == p.at("layout"));
      // fp8-current costs as fp8-delayed, mxfp8 as fp8-blockwise (same_costs): their searches
      // are the earlier recipe's, which the two checks above hold to a search of their own.
      const auto twin = names.back() == "fp8-current" ? nlohmann::json("fp8-delayed")
                        : names.back() == "mxfp8"     ? nlohmann::json("fp8-blockwise")
                                                      : nlohmann::json(nullptr);
      CHECK(p.at("costed_as") == twin);
      if (fastest.empty() || t < best) {
        best = t;
        fastest = names.back();
      }
    }
    // Hopper runs no MXFP8 nor NVFP4 (the check that refuses --precision nvfp4 on it).
    const std::vector<std::string> hopper{"bf16", "fp8-delayed", "fp8-current", "fp8-blockwise"};
    auto blackwell = hopper;
    blackwell.insert(blackwell.end(), {"mxfp8", "nvfp4"});
    CHECK(names == (gpu == "b200" ? blackwell : hopper));
    CHECK(a.at("request").at("precision") == fastest);
    CHECK(a.at("layouts").at(0).at("precision") == fastest);
    CHECK(a.at("layouts").at(0).at("step_time_s").get<double>() == best);
  }
  const std::string b200 = "--gpu b200 --interconnect ib-ndr";
  CHECK(json_of(job + " " + b200 + " --precision auto").at("request").at("precision") == "nvfp4");
  // --emit: the winner's recipe, which step --from costs as plan did; torchtitan searches only
  // the recipes it writes (bf16, fp8-current, mxfp8).
  check_emit_round_trip(job + " --precision auto", b200, "megatron", ".sh", "");
  check_emit_round_trip(job + " --precision auto", b200, "bridge", ".yaml", " --gpus 64");
  const std::string h100 = "--gpu h100-sxm --interconnect ib-ndr";
  const auto file = (std::filesystem::temp_directory_path() /
                     ("tpcost-emit-" + std::to_string(::getpid()) + "-auto.toml"))
                        .string();
  REQUIRE(
      run_plan(job + " " + h100 + " --stack fsdp2 --precision auto --emit torchtitan -o " + file)
          .exit_code == 0);
  CHECK(tpcost::test::read_file(file).find("\nconverters = [\"quantize.linear.float8\"]\n") !=
        std::string::npos);
  const auto step = tpcost::test::run("step --from " + file + " " + h100 + " --format json");
  std::filesystem::remove(file);
  REQUIRE(step.exit_code == 0);
  CHECK(nlohmann::json::parse(step.out).at("step_time_s").get<double>() ==
        json_of(job + " " + h100 + " --stack fsdp2 --precision fp8-current")
            .at("layouts")
            .at(0)
            .at("step_time_s")
            .get<double>());
}

TEST_CASE("plan --emit refuses what it cannot write, and writes no file then",
          "[cli][plan][emit]") {
  const auto file = (std::filesystem::temp_directory_path() /
                     ("tpcost-emit-" + std::to_string(::getpid()) + "-refused.toml"))
                        .string();
  std::filesystem::remove(file);
  for (const std::string args : {
           // torchtitan runs FSDP2: a layout priced on megatron-core is not what it runs.
           "--model llama-3-8b --gpus 8 --global-batch 8 --emit torchtitan",
           // No torchtitan flavour for GPT-3, nor for a modified Llama 3.
           "--model gpt-3-175b --gpus 512 --global-batch 1536 --stack fsdp2 --emit torchtitan",
           "--model llama-3-8b --layers 16 --gpus 8 --global-batch 8 --stack fsdp2 "
           "--emit torchtitan",
           // Interleaving, ZeRO-1, uneven end stages, expert TP neither 1 nor t.
           "--model llama-3-8b --gpus 16 --global-batch 64 --stack fsdp2 --emit torchtitan "
           "--compare t=2,p=4,d=2,v=2,sp=on t=1,p=1",
           "--model llama-3-8b --gpus 16 --global-batch 64 --stack fsdp2 --emit torchtitan "
           "--compare t=2,d=8,sp=on,zero=1 t=1,p=1",
           "--model llama-3-8b --gpus 16 --global-batch 64 --stack fsdp2 --emit torchtitan "
           "--compare t=2,p=2,d=4,sp=on,zero=3,first=15,last=17 t=1,p=1",
           "--model qwen3-30b-a3b --gpus 32 --global-batch 64 --stack fsdp2 --emit torchtitan "
           "--compare t=4,ep=2,etp=2,d=8,sp=on,zero=3 t=1,p=1",
           // A Megatron file is costed on megatron-core; tpcost-only knobs have no key.
           "--model llama-3-8b --gpus 8 --global-batch 8 --stack fsdp2 --emit bridge",
           "--model llama-3-8b --gpus 8 --global-batch 8 --tp-overlap 0.5 --emit megatron",
           "--model llama-3-8b --gpus 8 --global-batch 8 --stack deepspeed --emit megatron",
           "--model llama-3-8b --gpus 8 --global-batch 8 --emit deepspeed",
           // Recipes a format has no spelling for, or spells with what plan did not price.
           "--model llama-3-8b --gpus 8 --global-batch 8 --stack fsdp2 --precision fp8-blockwise "
           "--emit torchtitan",
           "--model llama-3-8b --gpus 8 --global-batch 8 --precision fp8 --emit bridge",
           "--model llama-3-8b --gpus 8 --global-batch 8 --precision fp8 --fp8-attention "
           "--emit megatron",
           "--model llama-3-8b --gpus 8 --global-batch 8 --dtype fp8 --emit megatron",
           // torchtitan's full activation checkpointing has no block method nor units.
           "--model llama-3-8b --gpus 8 --global-batch 8 --stack fsdp2 --emit torchtitan "
           "--recompute-method block --recompute-num-layers 2 --compare t=1,recompute=full t=1",
           "--model llama-3-8b --gpus 8 --global-batch 8 --stack fsdp2 --emit torchtitan "
           "--compare t=1,recompute=full,uniform=2 t=1",
       }) {
    INFO(args);
    const auto r = run_plan("--gpu h100-sxm --interconnect ib-ndr " + args + " -o " + file);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(!std::filesystem::exists(file));
    std::filesystem::remove(file);
  }
}

namespace {

/// The fields of one CSV line (RFC 4180: a quoted field may hold commas and doubled quotes).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

TEST_CASE(
    "plan --format csv carries every dimension, and a row's layout given to --compare gives "
    "its step time",
    "[cli][plan][csv]") {
  for (const std::string job :
       {"--model mixtral-8x7b --gpu h100-sxm --interconnect ib-ndr --gpus 64 --global-batch 256 "
        "--max-tp 2",
        // Full layouts at the fewest block layers that fit.
        "--model llama-3-405b --gpu h100-sxm --interconnect ib-ndr --gpus 512 --global-batch 512 "
        "--zero 1 --recompute-num-layers auto"}) {
    INFO(job);
    const auto csv = run_plan(job + " --top 3 --format csv");
    REQUIRE(csv.exit_code == 0);
    std::istringstream lines(csv.out);
    std::string line;
    REQUIRE(std::getline(lines, line));
    const auto header = csv_fields(line);
    const auto column = [&](const std::string& name) {
      const auto it = std::find(header.begin(), header.end(), name);
      REQUIRE(it != header.end());
      return static_cast<std::size_t>(it - header.begin());
    };
    // The columns other scripts read stay where they were.
    CHECK(header.at(0) == "rank");
    CHECK(header.at(2) == "tp");
    CHECK(header.at(11) == "step_s");
    int rows = 0;
    while (std::getline(lines, line)) {
      ++rows;
      const auto row = csv_fields(line);
      REQUIRE(row.size() == header.size());
      const auto layout = row.at(column("layout"));
      INFO(layout);
      // --compare costs the layout string as given: without the search's auto.
      const auto fixed = job.substr(0, job.find(" --recompute-num-layers auto"));
      const auto cmp =
          run_plan(fixed + " --format json --compare \"" + layout + "\" \"" + layout + "\"");
      REQUIRE(cmp.exit_code == 0);
      const auto l = nlohmann::json::parse(cmp.out).at("layouts").at(0);
      CHECK_THAT(l.at("step_time_s").get<double>(),
                 Catch::WithinRel(std::stod(row.at(column("step_s"))), 1e-12));
      for (const char* key : {"tp", "pp", "cp", "ep", "etp", "dp", "vpp", "micro_batch",
                              "micro_batches", "zero", "first_stage_layers", "last_stage_layers"}) {
        INFO(key);
        CHECK(std::stoll(row.at(column(key))) == l.at(key).get<std::int64_t>());
      }
      CHECK(row.at(column("sp")) == (l.at("sp").get<bool>() ? "on" : "off"));
      CHECK(row.at(column("recompute")) == l.at("recompute").get<std::string>());
      const auto text = [&](const char* key) {
        const auto& v = l.at(key);
        return v.is_null() ? std::string() : v.is_string() ? v.get<std::string>() : v.dump();
      };
      CHECK(row.at(column("recompute_method")) == text("recompute_method"));
      CHECK(row.at(column("recompute_num_layers")) == text("recompute_num_layers"));
      CHECK(row.at(column("embedding_in_split")) == "off");
      CHECK(row.at(column("loss_in_split")) == "off");
      CHECK(row.at(column("precision")) == "bf16");
    }
    CHECK(rows == 3);
  }
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
  args += l.at("sp").get<bool>() ? " --sp" : " --no-sp";
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

TEST_CASE(
    "plan --cp-comm-type auto and --moe-token-dispatcher auto search each value, report the "
    "fastest, and the winner's layout string costs the same under --compare and --emit",
    "[cli][plan][auto]") {
  const auto json_of = [](const std::string& args) {
    const auto r = run_plan(args + " --top 1 --format json");
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out);
  };
  const std::string hardware = "--gpu h100-sxm --interconnect ib-ndr";
  struct auto_case {
    std::string job, flag, list_key, value_key;
    std::vector<std::string> values;  // in the order searched, as the flag reads them
  };
  const std::vector<auto_case> cases{
      {"--model llama-3-8b --seq 131072 --gpus 64 --global-batch 32",
       "--cp-comm-type",
       "cp_comm_types",
       "cp_comm_type",
       {"p2p", "all_gather", "a2a", "a2a+p2p"}},
      {"--model qwen3-30b-a3b --gpus 64 --global-batch 512",
       "--moe-token-dispatcher",
       "dispatchers",
       "dispatcher",
       {"all-to-all", "deep-ep", "all-gather"}},
  };
  for (const auto& c : cases) {
    INFO(c.flag);
    const auto a = json_of(c.job + " " + hardware + " " + c.flag + " auto");
    const auto& searched = a.at(c.list_key);
    REQUIRE(searched.size() == c.values.size());
    double best = 0.0;
    std::string fastest;
    for (std::size_t i = 0; i < searched.size(); ++i) {
      const auto& v = searched[i];
      CHECK(v.at(c.value_key) == c.values[i]);
      // Each value's best is what a search with that value alone finds.
      const auto one = json_of(c.job + " " + hardware + " " + c.flag + " " + c.values[i]);
      const auto t = v.at("step_time_s").get<double>();
      CHECK(one.at("layouts").at(0).at("step_time_s").get<double>() == t);
      if (fastest.empty() || t < best) {
        best = t;
        fastest = c.values[i];
      }
    }
    const auto& winner = a.at("layouts").at(0);
    CHECK(winner.at(c.value_key) == fastest);
    CHECK(winner.at("step_time_s").get<double>() == best);
    // The winner's layout string names the choice, and --compare costs it as the search did,
    // whatever the flag's own default.
    const auto layout = winner.at("layout").get<std::string>();
    const auto key = c.flag == "--cp-comm-type" ? ",cp_comm=" : ",dispatcher=";
    CHECK(layout.find(key + fastest) != std::string::npos);
    const auto compared =
        run_plan(c.job + " " + hardware + " --format json --compare " + layout + " " + layout);
    REQUIRE(compared.exit_code == 0);
    CHECK(nlohmann::json::parse(compared.out).at("layouts").at(0).at("step_time_s").get<double>() ==
          best);
    // --emit megatron writes the winning value, and step --from costs it as plan did.
    CHECK_THAT(
        check_emit_round_trip(c.job + " " + c.flag + " auto", hardware, "megatron", ".sh", ""),
        Catch::WithinRel(best, 1e-12));
  }
}

TEST_CASE(
    "plan --recompute-modules auto searches every module set the model has, and the layout "
    "string's modules= costs the same under --compare and through --emit",
    "[cli][plan][auto][recompute]") {
  const std::string job =
      "--model qwen3-30b-a3b --gpu h100-sxm --interconnect ib-ndr --gpus 16 --global-batch 256";
  const auto a = run_plan(job + " --recompute-modules auto --format json");
  REQUIRE(a.exit_code == 0);
  const auto j = nlohmann::json::parse(a.out);
  CHECK(j.at("request").at("recompute_modules_auto") == true);
  const auto& searched = j.at("recompute_modules");
  // The layouts without selective recomputation, then every set of core_attn, layernorm,
  // moe_act and moe but those with moe and moe_act together: 1 + (15 - 4).
  REQUIRE(searched.size() == 12);
  CHECK(searched.at(0).at("recompute_modules") == "none-or-full");
  CHECK(searched.at(1).at("recompute_modules") == "core_attn");
  double best = 0.0;
  for (std::size_t i = 0; i < searched.size(); ++i) {
    const auto& v = searched[i];
    const auto name = v.at("recompute_modules").get<std::string>();
    INFO(name);
    const auto items = "," + name + ",";  // never moe beside moe_act
    CHECK(
        (items.find(",moe_act,") == std::string::npos || items.find(",moe,") == std::string::npos));
    const auto t = v.at("step_time_s").get<double>();
    best = i == 0 ? t : std::min(best, t);
    // Each set's best layout string names its modules (selective layouts only), and --compare
    // costs it as the search did.
    const auto layout = v.at("layout").get<std::string>();
    CHECK((i == 0) == (layout.find(",modules=") == std::string::npos));
    const auto c = run_plan(job + " --format json --compare " + layout + " " + layout);
    REQUIRE(c.exit_code == 0);
    CHECK(nlohmann::json::parse(c.out).at("layouts").at(0).at("step_time_s").get<double>() == t);
  }
  CHECK(j.at("layouts").at(0).at("step_time_s").get<double>() == best);

  // A selective layout with its modules, written by --emit megatron and bridge: the readers read
  // the list back and step costs it as --compare did.
  const std::string layout = "t=1,p=1,d=16,b=2,sp=off,recompute=selective,zero=3,modules=moe";
  const auto compared = run_plan(job + " --format json --compare " + layout + " t=1");
  REQUIRE(compared.exit_code == 0);
  const auto expected = nlohmann::json::parse(compared.out).at("layouts").at(0);
  CHECK(expected.at("recompute_modules") == "moe");
  for (const std::string format : {"megatron", "bridge"}) {
    INFO(format);
    const auto file = (std::filesystem::temp_directory_path() /
                       ("tpcost-modules-" + std::to_string(::getpid()) + "-" + format +
                        (format == "bridge" ? ".yaml" : ".sh")))
                          .string();
    REQUIRE(run_plan(job + " --compare " + layout + " t=1 --emit " + format + " -o " + file)
                .exit_code == 0);
    const auto text = tpcost::test::read_file(file);
    CHECK(text.find(format == "bridge" ? "recompute_modules: [moe]" : "--recompute-modules moe") !=
          std::string::npos);
    const auto step = tpcost::test::run("step --from " + file +
                                        " --gpu h100-sxm --interconnect ib-ndr --gpus 16 "
                                        "--format json");
    std::filesystem::remove(file);
    REQUIRE(step.exit_code == 0);
    CHECK_THAT(nlohmann::json::parse(step.out).at("step_time_s").get<double>(),
               Catch::WithinRel(expected.at("step_time_s").get<double>(), 1e-12));
  }
}
