// The planner's speed: layouts per second through the fast path on one core, the full step
// model on one layout for comparison, and the wall time of whole searches (every option) for
// GPT-3 175B on 1,024 GPUs, Megatron 530B on 5,128 (and 5,120) and Megatron 1T on 16,384, on
// one thread and on every core, and Qwen3-235B-A22B (MoE, ep and etp searched) on 2,048 H100s
// on one and two threads. docs/planner.md records the figures and the machine.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "tpcost/hardware/presets.hpp"
#include "tpcost/model/model_presets.hpp"
#include "tpcost/plan/planner.hpp"

namespace {

using namespace tpcost;

plan_request request(const char* model, std::int64_t gpus, std::int64_t batch) {
  const auto& gpu = gpu_preset_by_name("a100-sxm4-80gb", "gpu");
  plan_request r;
  r.model = model_preset_named(model, "model").spec;
  r.gpu = {gpu.peak.bf16.value, gpu.memory_bandwidth.value, {}};
  r.memory_capacity = gpu.memory.value;
  r.topology = make_topology(gpu, interconnect_preset_by_name("ib-hdr", "interconnect"));
  r.gpus = gpus;
  r.global_batch = batch;
  return r;
}

/// One layout with its hoisted terms, as the search's inner loop sees it: the group terms of
/// its split and the micro-batch terms of its b, shared by every layout of that split and b
/// as the search shares them (a copy per layout would make the loop measure cache misses on
/// 21,492 copies of kilobyte structs, not the per-layout work).
struct prepared {
  const group_terms* x = nullptr;
  const batch_terms* y = nullptr;
  layout_choice choice;
};

/// Every layout the search evaluates for GPT-3 175B on 1,024 GPUs, G = 1536, in the search's
/// order; the terms they point to live in `xs` and `ys`.
struct layout_list {
  std::deque<group_terms> xs;
  std::deque<batch_terms> ys;
  std::vector<prepared> layouts;
};

layout_list layouts_175b(const plan_request& req, const step_environment& env) {
  layout_list list;
  auto& out = list.layouts;
  for (const auto t : detail::divisors(req.gpus)) {
    for (const auto p : detail::divisors(req.gpus / t)) {
      if (detail::pair_rule(req, t, p)) {
        continue;
      }
      const auto d = req.gpus / (t * p);
      for (const auto& split : detail::candidate_splits(req.model.layers, p)) {
        const auto& x = list.xs.emplace_back(group_stage(env, {.tp = t, .pp = p, .dp = d}, split));
        for (const auto b : detail::divisors(req.global_batch / d)) {
          const auto& y = list.ys.emplace_back(batch_stage(env, x, b, req.global_batch));
          for (const auto v : detail::chunk_counts(split)) {
            for (const auto rc :
                 {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
              for (int sp = 0; sp < (t > 1 ? 2 : 1); ++sp) {
                for (int z = 0; z <= (d > 1 ? 3 : 0); ++z) {
                  parallel_config par;
                  par.tp = t;
                  par.pp = p;
                  par.dp = d;
                  par.vpp = v;
                  par.micro_batch = b;
                  par.global_batch = req.global_batch;
                  par.sequence_parallel = sp == 1;
                  par.recompute = rc;
                  par.zero = static_cast<zero_stage>(z);
                  par.first_stage_layers = split.even() ? 0 : split.first;
                  par.last_stage_layers = split.even() ? 0 : split.last;
                  if (!broken_plan_rule(req, par)) {
                    out.push_back({&x,
                                   &y,
                                   {.vpp = v,
                                    .sequence_parallel = sp == 1,
                                    .recompute = rc,
                                    .zero = static_cast<zero_stage>(z)}});
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return list;
}

/// The search's per-layout work: peak_memory and combine_step, nothing hoisted out of it.
void BM_FastPathLayout(benchmark::State& state) {
  const auto req = request("gpt-3-175b", 1024, 1536);
  const auto env = detail::environment_of(req);
  const auto list = layouts_175b(req, env);
  const auto& layouts = list.layouts;
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& l = layouts[i];
    auto peak = peak_memory(env, *l.x, *l.y, l.choice, req.global_batch);
    auto time = combine_step(env, *l.x, *l.y, l.choice).step_time;
    benchmark::DoNotOptimize(peak);
    benchmark::DoNotOptimize(time);
    i = i + 1 == layouts.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["layouts_in_list"] = static_cast<double>(layouts.size());
}
BENCHMARK(BM_FastPathLayout);

/// The full step model on one layout (validation, stage vectors, warnings): the same stages
/// plus the report.
void BM_EvaluateStep(benchmark::State& state) {
  const auto req = request("gpt-3-175b", 1024, 1536);
  const auto par = parse_layout("t=8,p=16,b=1,recompute=full", "layout", 1024, 1536);
  for (auto _ : state) {
    auto r = evaluate_step(inputs_for(req, par));
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvaluateStep);

/// A whole search: every (t, p), every option, the top 5 evaluated in full. Arg: threads (0 =
/// every core, one thread per 65,536 layouts: small spaces stay on one). Counters: layouts
/// enumerated and evaluated per search, threads used.
/// Runs plan(req) per iteration; counters: layouts enumerated and evaluated per search, pairs
/// searched, threads used, layouts per second.
void run_search(benchmark::State& state, const plan_request& req) {
  plan_result r;
  for (auto _ : state) {
    r = plan(req);
    benchmark::DoNotOptimize(r);
  }
  state.counters["layouts"] = static_cast<double>(r.counts.layouts);
  state.counters["evaluated"] = static_cast<double>(r.counts.evaluated);
  state.counters["pairs"] = static_cast<double>(r.counts.pairs_searched);
  state.counters["threads"] = static_cast<double>(r.threads);
  state.counters["layouts_per_s"] = benchmark::Counter(
      static_cast<double>(r.counts.layouts), benchmark::Counter::kIsIterationInvariantRate);
}

void search(benchmark::State& state, const char* model, std::int64_t gpus, std::int64_t batch) {
  auto req = request(model, gpus, batch);
  req.threads = static_cast<unsigned>(state.range(0));
  run_search(state, req);
}
BENCHMARK_CAPTURE(search, gpt3_175b_1024_gpus, "gpt-3-175b", 1024, 1536)
    ->Arg(1)
    ->Arg(0)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
// 5,128 = 2^3 x 641: d = 5128/(t*p) must divide G, so G = 4 x 641 = 2564.
BENCHMARK_CAPTURE(search, megatron_530b_5128_gpus, "megatron-530b", 5128, 2564)
    ->Arg(1)
    ->Arg(0)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(search, megatron_530b_5120_gpus, "megatron-530b", 5120, 2560)
    ->Arg(1)
    ->Arg(0)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(search, megatron_1t_16384_gpus, "megatron-1t", 16384, 8192)
    ->Arg(1)
    ->Arg(0)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
// A larger space (many micro-batch sizes): 200k layouts, where the threads start.
BENCHMARK_CAPTURE(search, gpt3_175b_1536_gpus_g36864, "gpt-3-175b", 1536, 36864)
    ->Arg(1)
    ->Arg(0)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

/// The same searches with context parallelism: cp up to 32 (the CLI's --max-cp default), the
/// GPU's attention η; the searches above are those of plan --max-cp 1.
void search_cp(benchmark::State& state, const char* model, std::int64_t gpus, std::int64_t batch) {
  auto req = request(model, gpus, batch);
  req.threads = static_cast<unsigned>(state.range(0));
  req.options.attention = attention_kernel::fused;
  req.constraints.max_cp = 32;
  req.precision.attention_efficiency = 0.53;
  run_search(state, req);
}
BENCHMARK_CAPTURE(search_cp, gpt3_175b_1024_gpus, "gpt-3-175b", 1024, 1536)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(search_cp, megatron_530b_5120_gpus, "megatron-530b", 5120, 2560)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(search_cp, megatron_1t_16384_gpus, "megatron-1t", 16384, 8192)
    ->Arg(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

/// A mixture-of-experts search: Qwen3-235B-A22B (s = 4096, G = 2048) on 2,048 H100s over
/// IB-NDR, every ep dividing the 128 experts and every etp dividing the expert FFN of 1536
/// (ep·etp dividing t·cp·d), cp up to 1; the second argument fixes etp (1: the ep-only space
/// the planner searched before ETP; 0: every etp).
void search_moe(benchmark::State& state, const char* model, std::int64_t gpus, std::int64_t batch) {
  const auto& gpu = gpu_preset_by_name("h100-sxm", "gpu");
  plan_request req;
  req.model = model_preset_named(model, "model").spec;
  req.model.seq = 4096;
  req.gpu = {gpu.peak.bf16.value, gpu.memory_bandwidth.value, {}};
  req.memory_capacity = gpu.memory.value;
  req.topology = make_topology(gpu, interconnect_preset_by_name("ib-ndr", "interconnect"));
  req.gpus = gpus;
  req.global_batch = batch;
  req.threads = static_cast<unsigned>(state.range(0));
  req.constraints.fixed_etp = state.range(1);
  run_search(state, req);
}
BENCHMARK_CAPTURE(search_moe, qwen3_235b_2048_gpus, "qwen3-235b-a22b", 2048, 2048)
    ->Args({1, 1})
    ->Args({1, 0})
    ->Args({2, 1})
    ->Args({2, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

/// An MoE search with MLA and MTP: DeepSeek-V3 on the report's 2,048 H800 (IB NDR), G = 15360
/// sequences of 4096 (arXiv:2412.19437 Sec. 4.2), every ep dividing the 256 experts and every
/// etp dividing the expert FFN of 2048 (ep·etp dividing t·cp·d); the
/// issue's bound is under a second on 2 cores (Arg 2).
plan_request deepseek_v3_on_h800(unsigned threads) {
  const auto& gpu = gpu_preset_by_name("h800", "gpu");
  plan_request req;
  req.model = model_preset_named("deepseek-v3", "model").spec;
  req.gpu = {gpu.peak.bf16.value, gpu.memory_bandwidth.value, {}};
  req.memory_capacity = gpu.memory.value;
  req.topology = make_topology(gpu, interconnect_preset_by_name("ib-ndr", "interconnect"));
  req.gpus = 2048;
  req.global_batch = 15360;
  req.options.attention = attention_kernel::fused;
  req.threads = threads;
  return req;
}

void search_moe_mla(benchmark::State& state) {
  run_search(state, deepseek_v3_on_h800(static_cast<unsigned>(state.range(0))));
}
BENCHMARK(search_moe_mla)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

/// The same DeepSeek-V3 search with plan --recompute-modules auto's 79 module sets: the layouts
/// without selective recomputation, then each set's selective layouts. Arg 0: threads; Arg 1:
/// 0 for one pass (plan_module_sets, as the CLI runs it), 1 for one search per set (plan, as
/// the CLI ran it before issue 27's change).
void search_moe_mla_modules(benchmark::State& state) {
  auto req = deepseek_v3_on_h800(static_cast<unsigned>(state.range(0)));
  req.constraints.recompute_modes = 0b101U;  // none and full
  const auto sets = recompute_module_sets(req.model);
  const bool per_set = state.range(1) == 1;
  for (auto _ : state) {
    if (per_set) {
      auto r = plan(req);
      benchmark::DoNotOptimize(r);
      for (const auto set : sets) {
        auto alone = req;
        alone.options.recompute.modules = set;
        alone.constraints.recompute_modes = 0b010U;  // selective
        r = plan(alone);
        benchmark::DoNotOptimize(r);
      }
    } else {
      auto r = plan_module_sets(req, sets);
      benchmark::DoNotOptimize(r);
    }
  }
  state.counters["sets"] = static_cast<double>(sets.size());
}
BENCHMARK(search_moe_mla_modules)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1})
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
