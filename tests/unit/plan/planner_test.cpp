// The planner: its fast path against the full step model on every layout of small spaces, the
// best layout against a brute-force search, determinism across thread counts, every rejection
// rule counted, TP across InfiniBand ranked by its cost like any layout, and the seed's 175B
// case.
#include "tpcost/plan/planner.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/matchers.hpp"
#include "support/models.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/model/model_presets.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {

transformer_spec small_gpt() { return tpcost::test::small_gpt_spec(); }

/// GQA, gated MLP, untied embeddings, 12 layers: middle stages differ from the ends.
transformer_spec small_llama() {
  transformer_spec m{};
  m.layers = 12;
  m.hidden = 1024;
  m.heads = 16;
  m.kv_heads = 4;
  m.ffn = 2816;
  m.vocab = 32000;
  m.seq = 512;
  return with_architecture(m, architecture::llama);
}

/// small_llama with 8 routed experts of top-2 (Mixtral's routing) on every layer.
transformer_spec small_moe() {
  auto m = small_llama();
  m.moe = moe_spec{.experts = 8, .top_k = 2, .expert_ffn = 1408};
  return m;
}

plan_request request(const transformer_spec& model, std::int64_t gpus, std::int64_t batch,
                     std::int64_t gpus_per_node = 4) {
  plan_request r;
  r.model = model;
  r.gpu = {flops_per_second(312e12), bytes_per_second(2039e9), {}};
  r.memory_capacity = 1024.0 * units::GiB;
  r.topology = {gpus_per_node,
                {bytes_per_second(300e9), seconds(3e-6)},
                {bytes_per_second(25e9), seconds(10e-6)}};
  r.gpus = gpus;
  r.global_batch = batch;
  r.threads = 1;
  return r;
}

/// Every layout `evaluate_step` accepts for the pairs that pass the pair rules, including those
/// the layout rules would drop.
std::vector<parallel_config> every_layout(const plan_request& req) {
  std::vector<parallel_config> out;
  const auto n = req.gpus;
  for (const auto t : detail::divisors(n)) {
    for (const auto p : detail::divisors(n / t)) {
      const bool moe = is_moe(req.model.moe);
      const auto eps = moe ? detail::divisors(req.model.moe.experts) : std::vector<std::int64_t>{1};
      const auto etps =
          moe ? detail::divisors(req.model.moe.expert_ffn) : std::vector<std::int64_t>{1};
      for (const auto& [ep, etp] : [&] {
             std::vector<std::pair<std::int64_t, std::int64_t>> folds;
             for (const auto e : eps) {
               for (const auto f : etps) {
                 folds.emplace_back(e, f);
               }
             }
             return folds;
           }()) {
        if (detail::pair_rule(req, t, p, 1, ep * etp)) {
          continue;
        }
        const auto d = n / (t * p);
        for (const auto& split : detail::candidate_splits(req.model.layers, p)) {
          for (const auto b : detail::divisors(req.global_batch / d)) {
            for (const auto v : detail::chunk_counts(split)) {
              if (v > 1 && req.global_batch / (d * b) < p) {
                continue;  // evaluate_step refuses it, as Megatron-Core does
              }
              for (const auto rc :
                   {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
                for (const bool sp : {false, true}) {
                  if ((sp && t == 1) || (!sp && t > 1 && is_moe(req.model.moe))) {
                    continue;  // MoE with t > 1 needs SP (validate_experts)
                  }
                  const int max_zero = profile_of(req.options.stack).max_zero.value;
                  for (int z = 0; z <= (d > 1 ? max_zero : 0); ++z) {
                    if (!sharding_allowed(req.options, static_cast<zero_stage>(z), p)) {
                      continue;  // evaluate_step refuses it, as the planner does
                    }
                    parallel_config par;
                    par.tp = t;
                    par.pp = p;
                    par.dp = d;
                    par.ep = ep;
                    par.etp = etp;
                    par.vpp = v;
                    par.micro_batch = b;
                    par.global_batch = req.global_batch;
                    par.sequence_parallel = sp;
                    par.recompute = rc;
                    par.zero = static_cast<zero_stage>(z);
                    if (!split.even()) {
                      par.first_stage_layers = split.first;
                      par.last_stage_layers = split.last;
                    }
                    out.push_back(par);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

/// The layouts `plan` may propose, ranked by `evaluate_step`, as a brute force would.
std::vector<plan_candidate> brute_force_ranking(const plan_request& req) {
  std::vector<plan_candidate> ranked;
  for (const auto& par : every_layout(req)) {
    if (broken_plan_rule(req, par)) {
      continue;
    }
    const auto r = evaluate_step(inputs_for(req, par));
    if (!r.memory.fits()) {
      continue;
    }
    plan_candidate c{par, r.step_time, r.memory.peak().total(),
                     par.tp > req.topology.gpus_per_node};
    ranked.push_back(c);
  }
  std::sort(ranked.begin(), ranked.end(), ranks_before);
  return ranked;
}

void check_identities(const plan_counts& c) {
  std::int64_t pair_rejections = 0;
  for (std::size_t i = 0; i < plan_pair_reason_count; ++i) {
    pair_rejections += c.rejected[i];
  }
  CHECK(c.pairs == c.pairs_searched + pair_rejections);
  CHECK(c.layouts == c.evaluated + c[plan_reason::interleave_batch] + c[plan_reason::zero_with_pp]);
  CHECK(c.evaluated == c.feasible + c[plan_reason::memory] + c[plan_reason::recompute_unneeded]);
}

/// Checks plan(req) against brute_force_ranking(req): the same top layouts in the same order
/// with the same step times, the same count of feasible layouts, and the counts' identities.
/// Returns the brute-force list and the plan for the caller's own checks.
std::pair<std::vector<plan_candidate>, plan_result> check_plan_matches_brute_force(
    const plan_request& req) {
  auto expected = brute_force_ranking(req);
  auto got = plan(req);
  REQUIRE(expected.size() >= req.top);
  REQUIRE(got.top.size() == req.top);
  for (std::size_t i = 0; i < req.top; ++i) {
    INFO("rank " << i + 1);
    CHECK(describe_layout(got.top[i].candidate.par) == describe_layout(expected[i].par));
    CHECK_THAT(got.top[i].result.step_time.value(), near(expected[i].step_time.value(), 1e-12));
  }
  CHECK(got.counts.feasible == static_cast<std::int64_t>(expected.size()));
  check_identities(got.counts);
  return {std::move(expected), std::move(got)};
}

}  // namespace

TEST_CASE(
    "The search's hoisted stages give evaluate_step's step time and memory on every layout "
    "of small spaces",
    "[planner]") {
  struct scenario {
    plan_request req;
    const char* name;
  };
  std::vector<scenario> scenarios;
  scenarios.push_back({request(small_gpt(), 16, 32), "GPT, 16 GPUs in nodes of 4"});
  auto capped = request(small_llama(), 24, 48, 8);
  capped.memory_capacity = 1.5 * units::GiB;  // some fit, some do not
  capped.options.tp_overlap = 0.3;
  capped.options.dp_overlap = 0.6;
  capped.options.attention = attention_kernel::fused;
  scenarios.push_back({capped, "Llama-like, 24 GPUs, overlap, 1.5 GiB"});
  auto plain = request(small_llama(), 12, 24, 2);
  plain.options.scatter_gather = false;
  plain.options.dp_overlap = 1.0;
  plain.memory_capacity = 0.6 * units::GiB;
  scenarios.push_back({plain, "Llama-like, 12 GPUs, nodes of 2, no scatter/gather"});

  for (const auto& s : scenarios) {
    INFO(s.name);
    const auto env = detail::environment_of(s.req);
    std::int64_t checked = 0, fitting = 0;
    for (const auto& par : every_layout(s.req)) {
      INFO(describe_layout(par));
      const auto full = evaluate_step(inputs_for(s.req, par));
      const auto x =
          group_stage(env, {.tp = par.tp, .pp = par.pp, .dp = par.dp}, split_of(s.req.model, par));
      const auto y = batch_stage(env, x, par.micro_batch, par.global_batch);
      const layout_choice choice{.vpp = par.vpp,
                                 .sequence_parallel = par.sequence_parallel,
                                 .recompute = par.recompute,
                                 .zero = par.zero};
      const auto time = combine_step(env, x, y, choice).step_time;
      const auto peak = peak_memory(env, x, y, choice, par.global_batch);
      CHECK_THAT(time.value(), near(full.step_time.value(), 1e-9));
      CHECK_THAT(peak.value(), near(full.memory.peak().total().value(), 1e-9));
      CHECK(((s.req.memory_capacity - peak).value() >= 0.0) == full.memory.fits());
      ++checked;
      fitting += full.memory.fits() ? 1 : 0;
    }
    CHECK(checked > 1000);
    CHECK(fitting > 0);
    if (s.req.memory_capacity < 100.0 * units::GiB) {
      CHECK(fitting < checked);  // the fit test is exercised both ways
    }
  }
}

TEST_CASE("The best layouts of plan are the best of a brute-force list ranked by evaluate_step",
          "[planner]") {
  auto gpt = request(small_gpt(), 16, 32);
  gpt.memory_capacity = 3.0 * units::GiB;
  auto llama = request(small_llama(), 24, 48, 8);
  llama.memory_capacity = 1.5 * units::GiB;
  llama.options.dp_overlap = 0.5;
  for (auto req : {gpt, llama}) {
    req.top = 8;
    const auto [expected, got] = check_plan_matches_brute_force(req);
    req.top = 1;  // the runner-up is still there to compare with
    const auto one = plan(req);
    REQUIRE(one.top.size() == 1);
    REQUIRE(one.runner_up);
    CHECK(describe_layout(one.runner_up->candidate.par) == describe_layout(expected[1].par));
  }
}

TEST_CASE(
    "For every stack, the best layouts of plan are the best of a brute-force list ranked by "
    "evaluate_step (uneven stages included)",
    "[planner][stack]") {
  for (const auto& stack : stack_profiles) {
    INFO(stack.name);
    auto req = request(small_llama(), 24, 48, 8);  // 12 layers: uneven splits on 8 stages
    req.memory_capacity = 1.5 * units::GiB;
    req.options = options_of(stack);
    req.top = 4;
    const auto [expected, got] = check_plan_matches_brute_force(req);
    // The stack's rules shape the space: no ZeRO under megatron-2021, ZeRO-3 with PP only
    // under FSDP2.
    const bool sharded_pp = std::any_of(
        expected.begin(), expected.end(),
        [](const plan_candidate& c) { return c.par.pp > 1 && static_cast<int>(c.par.zero) >= 2; });
    CHECK(sharded_pp == stack.sharding_with_pp.value);
    const bool any_zero = std::any_of(expected.begin(), expected.end(),
                                      [](const auto& c) { return c.par.zero != zero_stage::none; });
    CHECK(any_zero == (stack.max_zero.value > 0));
  }
}

TEST_CASE("The ranking, counts and per-pair table are the same on one thread and on four",
          "[planner]") {
  const auto& gpu = gpu_preset_by_name("a100-sxm4-80gb", "gpu");
  auto req = request(model_preset_named("gpt-3-175b", "model").spec, 512, 1536);
  req.gpu = {gpu.peak.bf16.value, gpu.memory_bandwidth.value, {}};
  req.memory_capacity = gpu.memory.value;
  req.topology = make_topology(gpu, interconnect_preset_by_name("ib-hdr", "interconnect"));
  req.top = 20;
  req.threads = 1;
  const auto one = plan(req);
  req.threads = 4;
  req.layouts_per_thread = 1;  // force the threads on a space this small
  const auto four = plan(req);
  CHECK(one.threads == 1);
  CHECK(four.threads == 4);
  REQUIRE(one.top.size() == four.top.size());
  for (std::size_t i = 0; i < one.top.size(); ++i) {
    CHECK(describe_layout(one.top[i].candidate.par) == describe_layout(four.top[i].candidate.par));
    CHECK(one.top[i].result.step_time == four.top[i].result.step_time);
  }
  CHECK(one.counts.layouts == four.counts.layouts);
  CHECK(one.counts.evaluated == four.counts.evaluated);
  CHECK(one.counts.feasible == four.counts.feasible);
  CHECK(one.counts.rejected == four.counts.rejected);
  REQUIRE(one.per_degrees.size() == four.per_degrees.size());
  for (std::size_t i = 0; i < one.per_degrees.size(); ++i) {
    CHECK(describe_layout(one.per_degrees[i].best.par) ==
          describe_layout(four.per_degrees[i].best.par));
    CHECK(one.per_degrees[i].feasible == four.per_degrees[i].feasible);
  }
}

TEST_CASE("Equal step times are ordered by the documented tie key", "[planner]") {
  plan_candidate a;
  a.step_time = seconds(1.0);
  a.par.tp = 8;
  auto b = a;
  b.par.tp = 4;
  CHECK(ranks_before(b, a));  // smaller t first
  b = a;
  b.peak_memory = a.peak_memory + 1.0 * units::GiB;
  b.par.tp = 1;
  CHECK(ranks_before(a, b));  // less memory before any field of the layout
  b = a;
  b.tp_spans_nodes = true;
  b.par.tp = 1;
  CHECK(ranks_before(a, b));  // then TP in a node
  b = a;
  b.par.ep = 2;
  b.par.micro_batch = 2;
  CHECK(ranks_before(a, b));  // smaller ep before larger b
  b = a;
  b.par.etp = 2;
  b.par.micro_batch = 2;
  CHECK(ranks_before(a, b));  // and smaller etp: layouts apart in etp alone never tie
  CHECK_FALSE(ranks_before(b, a));
  b = a;
  b.par.micro_batch = 2;
  CHECK(ranks_before(b, a));  // larger b first
  b = a;
  b.par.recompute = recompute_mode::selective;
  CHECK(ranks_before(a, b));  // none < selective
  b = a;
  b.par.zero = zero_stage::optimizer;
  CHECK(ranks_before(a, b));  // lower ZeRO first
  b.step_time = seconds(0.5);
  CHECK(ranks_before(b, a));  // time first
  CHECK_FALSE(ranks_before(a, a));
}

TEST_CASE("Every rejection rule is exercised and counted", "[planner]") {
  const auto counts = [](const plan_request& r) {
    const auto c = detail::search(r).counts;
    check_identities(c);
    return c;
  };
  // 16 GPUs: 15 (t, p) pairs with t*p | 16; L = 8 rejects p = 16 only.
  const auto base = request(small_gpt(), 16, 32, 8);
  const auto c0 = counts(base);
  CHECK(c0.pairs == 15);
  CHECK(c0[plan_reason::pp_layers] == 1);
  CHECK(c0.pairs_searched == 14);

  auto r = base;
  r.constraints.max_tp = 4;  // t = 8 (p = 1, 2) and t = 16
  CHECK(counts(r)[plan_reason::tp_limit] == 3);
  r = base;
  r.constraints.fixed_pp = 2;  // every pair but the four with p = 2
  CHECK(counts(r)[plan_reason::pp_limit] == 11);

  r = base;
  r.model.heads = 12;
  r.model.hidden = 1536;  // t = 8 and 16 do not divide 12 heads
  CHECK(counts(r)[plan_reason::tp_heads] == 3);
  r = base;
  r.model.kv_heads = 2;  // t = 4, 8, 16: 3 + 2 + 1 pairs
  CHECK(counts(r)[plan_reason::tp_kv_heads] == 6);
  r = base;
  r.model.ffn = 6146;  // 2 x 3073: t = 4, 8, 16
  CHECK(counts(r)[plan_reason::tp_ffn] == 6);

  // 24 GPUs in nodes of 8, 12 heads: t = 3 and 6 straddle nodes, t = 12 is not whole nodes.
  r = request(small_gpt(), 24, 48, 8);
  r.model.heads = 12;
  r.model.hidden = 1536;
  const auto straddle = counts(r);
  CHECK(straddle[plan_reason::tp_straddles] == 4 + 3 + 2);
  CHECK(straddle[plan_reason::tp_heads] == 2 + 1);  // t = 8 (p = 1, 3), t = 24

  r = base;
  r.global_batch = 12;  // d = 8 and 16 do not divide 12: (1,2), (2,1), (1,1)
  CHECK(counts(r)[plan_reason::dp_batch] == 3);

  // 4 GPUs, t = 1, p = 4, G = 6: m = 6, 3, 2, 1; Megatron-Core interleaves only with m >= 4,
  // so v = 2 is dropped for b = 2, 3, 6 (m = 3, 2, 1) and each recompute mode, kept for b = 1.
  r = request(small_gpt(), 4, 6, 8);
  r.constraints.fixed_tp = 1;
  r.constraints.fixed_pp = 4;
  CHECK(counts(r)[plan_reason::interleave_batch] == 3 * 3);

  // 8 GPUs, t = 1, p = 2, d = 4, G = 8, L = 8: 7 splits (first = 4, then 1..7 but 4), whose
  // v divide both stages: 3 + 1 + 2 + 1 + 1 + 2 + 1 = 11 (split, v) pairs. b = 1 (m = 2 >= p)
  // keeps all 11, b = 2 (m = 1 < p) only the 7 with v = 1: 18 combinations, each losing ZeRO 2
  // and 3 for each recompute mode; the 4 with v > 1 and b = 2 lose every recompute mode and
  // ZeRO stage to interleave_batch.
  r = request(small_gpt(), 8, 8, 8);
  r.constraints.fixed_tp = 1;
  r.constraints.fixed_pp = 2;
  const auto zero = counts(r);
  CHECK(zero[plan_reason::zero_with_pp] == 18 * 3 * 2);
  CHECK(zero[plan_reason::interleave_batch] == 4 * 3 * 4);

  r = base;
  r.memory_capacity = 0.1 * units::GiB;
  const auto tight = counts(r);
  CHECK(tight[plan_reason::memory] == tight.evaluated);
  CHECK(tight.feasible == 0);

  // Nodes of 4: t = 8 and 16 span nodes over the slower link; they are ranked by their cost
  // with the rest, so the search's winner is the best of t <= 4, t = 8 and t = 16 searched
  // apart, and the layouts that fit are those of the three.
  r = request(small_gpt(), 16, 32, 4);
  const auto found = plan(r);
  auto inside = r;
  inside.constraints.max_tp = 4;
  auto only8 = r;
  only8.constraints.fixed_tp = 8;
  auto only16 = r;
  only16.constraints.fixed_tp = 16;
  const auto c4 = plan(inside);
  const auto c8 = plan(only8);
  const auto c16 = plan(only16);
  REQUIRE_FALSE(found.top.empty());
  REQUIRE_FALSE(c4.top.empty());
  REQUIRE_FALSE(c8.top.empty());
  REQUIRE_FALSE(c16.top.empty());
  CHECK(c8.top.front().candidate.tp_spans_nodes);
  const auto best =
      std::min({c4.top.front().candidate.step_time, c8.top.front().candidate.step_time,
                c16.top.front().candidate.step_time});
  CHECK(found.top.front().candidate.step_time == best);
  CHECK(found.counts.feasible == c4.counts.feasible + c8.counts.feasible + c16.counts.feasible);
}

TEST_CASE(
    "plan ranks TP across InfiniBand by its cost: its winner is never slower than the best "
    "in-node layout, and crosses nodes only when that is faster (every model and GPU preset)",
    "[planner]") {
  int proposed = 0, crossing = 0;
  for (const auto& model : model_presets) {
    if (!is_dense_mha(model.spec)) {
      continue;  // the planner refuses MoE/MLA presets by name (moe_test.cpp)
    }
    for (const auto& gpu : gpu_presets) {
      for (const char* net : {"ib-hdr", "ib-ndr"}) {
        plan_request r;
        r.model = model.spec;
        r.gpu = {gpu.peak.bf16.value, gpu.memory_bandwidth.value, {}};
        r.memory_capacity = gpu.memory.value;
        r.topology = make_topology(gpu, interconnect_preset_by_name(net, "interconnect"));
        r.gpus = 256;
        r.global_batch = 512;
        r.top = 1;
        r.threads = 1;
        INFO(model.name << " on " << gpu.name << " with " << net);
        if (!(r.topology.inter.bandwidth < r.topology.intra.bandwidth)) {
          continue;  // PCIe nodes with NDR: the node boundary is not the slower link
        }
        const auto found = detail::search(r);
        if (found.top.empty()) {
          continue;
        }
        ++proposed;
        auto in_node = r;
        in_node.constraints.max_tp = r.topology.gpus_per_node;
        const auto inside = detail::search(in_node);
        const auto& winner = found.top.front();
        if (inside.top.empty()) {
          CHECK(winner.tp_spans_nodes);  // only a cross-node TP group fits
          ++crossing;
          continue;
        }
        CHECK(winner.time_per_sample() <= inside.top.front().time_per_sample());
        if (winner.tp_spans_nodes) {
          ++crossing;
          CHECK(winner.time_per_sample() < inside.top.front().time_per_sample());
        }
      }
    }
  }
  CHECK(proposed > 100);
  CHECK(crossing < proposed / 4);  // crossing the slower link rarely pays at 256 GPUs
}

TEST_CASE(
    "The seed's 175B case: on 512 A100s over HDR InfiniBand the best layout keeps TP <= 8, "
    "and TP = 8 beats TP = 16 at equal N",
    "[planner]") {
  const auto& gpu = gpu_preset_by_name("a100-sxm4-80gb", "gpu");
  auto req = request(model_preset_named("gpt-3-175b", "model").spec, 512, 1536);
  req.gpu = {gpu.peak.bf16.value, gpu.memory_bandwidth.value, {}};
  req.memory_capacity = gpu.memory.value;
  req.topology = make_topology(gpu, interconnect_preset_by_name("ib-hdr", "interconnect"));
  const auto found = plan(req);
  REQUIRE_FALSE(found.top.empty());
  CHECK(found.top.front().candidate.par.tp <= 8);
  CHECK(found.top.front().result.memory.fits());

  // The best TP = 16 layout (it crosses two nodes) is slower than the winner, with a lower MFU.
  const auto t16 = std::find_if(found.per_degrees.begin(), found.per_degrees.end(),
                                [](const degree_choice& d) { return d.best.par.tp == 16; });
  REQUIRE(t16 != found.per_degrees.end());
  CHECK(t16->best.step_time > found.top.front().result.step_time);
  CHECK(t16->mfu < found.top.front().result.mfu);

  // TP = 8 x DP = 64 on 512 GPUs means p = 1: 175B/8 parameters per GPU need 4 bytes each for
  // 16-bit weights and gradients alone, 87.6 GB, so only ZeRO-2/3 can fit it.
  auto tp8dp64 = parse_layout("t=8,p=1,d=64,b=1,sp=on,recompute=full,zero=1", "compare", 512, 1536);
  CHECK_FALSE(evaluate_step(inputs_for(req, tp8dp64)).memory.fits());
  tp8dp64.zero = zero_stage::gradients;
  CHECK(evaluate_step(inputs_for(req, tp8dp64)).memory.fits());

  // The same 512 GPUs and the same d = 8, the factor of two moved from TP to PP.
  const auto a = parse_layout("t=16,p=4,recompute=full", "compare", 512, 1536);
  const auto b = parse_layout("t=8,p=8,recompute=full", "compare", 512, 1536);
  CHECK(a.dp == 8);
  CHECK(b.dp == 8);
  const auto ra = evaluate_step(inputs_for(req, a));
  const auto rb = evaluate_step(inputs_for(req, b));
  REQUIRE(ra.memory.fits());
  REQUIRE(rb.memory.fits());
  CHECK(rb.step_time < ra.step_time);
  CHECK(rb.mfu > ra.mfu);
  const auto diff = compare_layouts(a, ra, b, rb);
  CHECK(breakdown_parts[diff.largest].key == "tp_comm");  // where the time goes
  CHECK(diff.delta.tp_comm.value() < 0.0);
  CHECK(broken_plan_rule(req, a) == std::nullopt);
}

TEST_CASE(
    "With fused attention the planner accepts a long-sequence layout without recomputation "
    "that the unfused scores cannot fit",
    "[planner]") {
  // Llama-3-8B (a = 32) at s = 32768 on one node of 8 H100 80 GB, G = 8. Without
  // recomputation, a layer at t = 4 keeps 5*a*s^2*b/t = 5*32*32768^2/4 = 42.9 GB of scores
  // with an unfused kernel (more than a GPU), and 4*a*s*b/t = 4*32*32768/4 = 1 MiB of softmax
  // statistics with a fused one.
  const auto& gpu = gpu_preset_by_name("h100-sxm", "gpu");
  auto req = request(model_preset_named("llama-3-8b", "model").spec, 8, 8);
  req.model.seq = 32768;
  req.gpu = {gpu.peak.bf16.value, gpu.memory_bandwidth.value, {}};
  req.memory_capacity = gpu.memory.value;
  req.topology = make_topology(gpu, interconnect_preset_by_name("ib-ndr", "interconnect"));
  const auto par = parse_layout("t=4,p=1,d=2,b=1,sp=on,recompute=none,zero=1", "compare", 8, 8);
  CHECK(broken_plan_rule(req, par) == std::nullopt);

  req.options.attention = attention_kernel::unfused;
  const auto unfused_step = evaluate_step(inputs_for(req, par));
  CHECK_FALSE(unfused_step.memory.fits());
  const auto unfused = plan(req);
  REQUIRE_FALSE(unfused.top.empty());
  for (const auto& l : unfused.top) {
    CHECK(l.candidate.par.recompute != recompute_mode::none);  // no such layout fits
  }

  req.options.attention = attention_kernel::fused;
  const auto fused_step = evaluate_step(inputs_for(req, par));
  CHECK(fused_step.memory.fits());
  CHECK_THAT(
      (unfused_step.memory.peak().activations - fused_step.memory.peak().activations).value(),
      near(32.0 * (5.0 * 32 * 32768.0 * 32768 - 4.0 * 32 * 32768) / 4, 1e-12));
  const auto fused = plan(req);
  REQUIRE_FALSE(fused.top.empty());
  CHECK(fused.top.front().candidate.par.recompute == recompute_mode::none);
  CHECK(fused.counts.feasible > unfused.counts.feasible);
  CHECK(fused.counts[plan_reason::memory] < unfused.counts[plan_reason::memory]);
  const auto proposed = std::any_of(
      fused.per_degrees.begin(), fused.per_degrees.end(),
      [&](const degree_choice& d) { return describe_layout(d.best.par) == describe_layout(par); });
  CHECK(proposed);  // the best layout of its (t, p) pair
}

TEST_CASE("A comparison's part deltas add up to the step-time delta and name what changed",
          "[planner]") {
  const auto req = request(small_gpt(), 16, 32);
  const auto a = parse_layout("t=4,p=2,b=2", "compare", 16, 32);
  const auto b = parse_layout("t=2,p=4,b=1,v=2,sp=on,recompute=selective", "compare", 16, 32);
  const auto ra = evaluate_step(inputs_for(req, a));
  const auto rb = evaluate_step(inputs_for(req, b));
  const auto d = compare_layouts(a, ra, b, rb);
  CHECK_THAT(d.delta.total().value(), near(d.step_time.value(), 1e-9));
  CHECK(d.changes == std::vector<std::string>{"t 4 -> 2", "p 2 -> 4", "b 2 -> 1", "v 1 -> 2",
                                              "sp off -> on", "recompute none -> selective"});
  CHECK(compare_layouts(a, ra, a, ra).changes.empty());
  // The exchange and the dispatcher each layout was costed under: a change where they differ.
  layout_choices p2p;
  p2p.cp_comm = cp_comm_type::p2p;
  p2p.dispatcher = token_dispatcher::deep_ep;
  auto a2a = p2p;
  a2a.cp_comm = cp_comm_type::a2a;
  CHECK(compare_layouts(a, ra, a, ra, {}, {}, p2p, a2a).changes ==
        std::vector<std::string>{"cp_comm p2p -> a2a"});
  CHECK(compare_layouts(a, ra, a, ra, {}, {}, p2p, p2p).changes.empty());
}

TEST_CASE("Layouts are read from key=value text, missing degrees derived from N", "[planner]") {
  const auto par =
      parse_layout("t=8, p=4, b=2, v=3, sp=on, recompute=full, zero=1", "compare", 512, 1536);
  CHECK(par.dp == 16);
  CHECK(describe_layout(par) == "t=8,p=4,d=16,b=2,v=3,sp=on,recompute=full,zero=1");
  const auto back = parse_layout(describe_layout(par), "compare", 512, 1536);
  CHECK(describe_layout(back) == describe_layout(par));
  CHECK(parse_layout("tp=8,dp=64", "compare", 512, 1536).pp == 1);
  CHECK(parse_layout("t=8,d=16", "compare", 512, 1536).pp == 4);
  CHECK(parse_layout("sp", "compare", 8, 8).sequence_parallel);
  const auto fails = [](const char* text, const char* what) {
    try {
      (void)parse_layout(text, "compare", 512, 1536);
      FAIL("accepted " << text);
    } catch (const invalid_spec& e) {
      CHECK(e.field() == "compare");
      CHECK_THAT(e.detail(), Catch::Matchers::Contains(what));
    }
  };
  fails("t=8,q=2", "'q' is not a layout key");
  fails("t=eight", "t = 'eight' is not a whole number");
  fails("t=0", "t = 0 is out of range");
  fails("t=3", "t*p = 3 does not divide N = 512");
  fails("t=8,p=4,d=8", "t*p*d = 8*4*8 is not N = 512");
  // Each degree passes its range, their product does not fit an int64: no wrapped product.
  fails("t=16777216,p=16777216,d=16777216", "t*p*d = 16777216*16777216*16777216 is not N = 512");
  fails("t=8,recompute=some", "recompute = 'some'");
  fails("t=8,sp=maybe", "sp = 'maybe'");
  fails("t=8,zero=4", "zero = '4'");
  fails("t=8,cp_comm=ring", "cp_comm = 'ring'");
  fails("t=8,dispatcher=nccl", "dispatcher = 'nccl'");
}

TEST_CASE("a layout string names the CP exchange and the dispatcher a search chose, and reads back",
          "[planner][compare]") {
  parallel_config par;
  par.tp = 2;
  par.pp = 1;
  par.ep = 8;
  par.dp = 4;
  par.global_batch = 64;
  layout_choices chosen;
  chosen.cp_comm = cp_comm_type::a2a_p2p;
  chosen.dispatcher = token_dispatcher::deep_ep;
  const auto text = describe_layout(par, 4, chosen);
  CHECK_THAT(text, Catch::Matchers::EndsWith(",cp_comm=a2a+p2p,dispatcher=deep-ep"));
  const auto back = parse_plan_layout(text, "compare", 32, 64);
  CHECK(back.par.cp == 4);
  CHECK(back.choices.cp_comm == cp_comm_type::a2a_p2p);
  CHECK(back.choices.dispatcher == token_dispatcher::deep_ep);
  CHECK(describe_layout(back.par, back.par.cp, back.choices) == text);
  // Only where it applies: no exchange without CP, no dispatcher without EP.
  par.ep = 1;
  CHECK(describe_layout(par, 1, chosen) == describe_layout(par));
  // Megatron's spellings read too; a layout that names nothing keeps the request's.
  CHECK(parse_plan_layout("t=2,cp=4,dispatcher=flex", "compare", 32, 64).choices.dispatcher ==
        token_dispatcher::deep_ep);
  plan_request req;
  req.options.cp.comm = cp_comm_type::p2p;
  req.options.experts.dispatcher = token_dispatcher::all_to_all;
  const auto none = request_for(req, parse_plan_layout("t=2", "compare", 32, 64).choices);
  CHECK(none.options.cp.comm == cp_comm_type::p2p);
  CHECK(none.options.experts.dispatcher == token_dispatcher::all_to_all);
  const auto own = request_for(req, back.choices);
  CHECK(own.options.cp.comm == cp_comm_type::a2a_p2p);
  CHECK(own.options.experts.dispatcher == token_dispatcher::deep_ep);
}

TEST_CASE("No layout at all: the message names the rules and what would work", "[planner]") {
  // 7 GPUs for a 32-head model cut to 6 layers and G = 64: t = 7 divides no head count, p = 7
  // exceeds the layers, and d = 7 does not divide 64.
  auto r = request(model_preset_named("llama-3-8b", "model").spec, 7, 64, 8);
  r.model.layers = 6;
  r.memory_capacity = 80.0 * units::GiB;
  const auto found = plan(r);
  CHECK(found.top.empty());
  CHECK(found.counts.pairs_searched == 0);
  const auto help = nearest_workable(r);
  REQUIRE(help.more_gpus);
  CHECK(help.more_gpus->gpus == 8);
  REQUIRE(help.fewer_gpus);
  CHECK(help.fewer_gpus->gpus == 6);  // p = 6, one layer a stage
  const auto message = no_layout_message(r, found.counts, help);
  CHECK_THAT(message, Catch::Matchers::StartsWith("no layout of 7 GPUs"));
  CHECK_THAT(message, Catch::Matchers::Contains("t does not divide the attention heads"));
  CHECK_THAT(message, Catch::Matchers::Contains("--gpus 8"));
  CHECK(message.find('\n') == std::string::npos);

  // Invalid requests are errors naming the field.
  const auto rejects = [](plan_request bad, const char* field) {
    try {
      (void)plan(bad);
      FAIL("accepted");
    } catch (const invalid_spec& e) {
      CHECK(e.field() == field);
    }
  };
  auto bad = r;
  bad.gpus = 0;
  rejects(bad, "gpus");
  bad = r;
  bad.global_batch = 0;
  rejects(bad, "global_batch");
  bad = r;
  bad.top = 0;
  rejects(bad, "top");
  bad = r;
  bad.gpus = 64;
  bad.topology.inter = {};
  rejects(bad, "inter-bandwidth");
}

TEST_CASE(
    "Llama 3.1 405B on 2,048 H100 (G = 2048, s = 8192): plan's best is at least as fast as "
    "Meta's t=8, p=16 with stages of 7, 8 x 14, 7, SP and the distributed optimizer",
    "[planner]") {
  plan_request r;
  r.model = model_preset_named("llama-3-405b", "test").spec;
  const auto& gpu = gpu_preset_by_name("h100-sxm", "gpu");
  r.gpu = {gpu.peak.bf16.value, gpu.memory_bandwidth.value, {}};
  r.memory_capacity = gpu.memory.value;
  r.topology = make_topology(gpu, interconnect_preset_by_name("ib-ndr", "interconnect"));
  r.options.attention = attention_kernel::fused;
  r.gpus = 2048;
  r.global_batch = 2048;
  r.top = 1;
  const auto found = plan(r);
  REQUIRE_FALSE(found.top.empty());
  const auto& best = found.top.front();
  CHECK(best.result.memory.fits());
  // Meta's layout (arXiv:2407.21783, Sec. 3.3.2), with whichever recomputation and
  // interleaving fits best: the planner must do at least as well, by the same step model.
  std::optional<step_result> meta;
  for (const char* rc : {"none", "selective", "full"}) {
    for (const int v : {1}) {  // no v > 1 divides both 7 and 8
      const auto par = parse_layout(std::string("t=8,p=16,b=1,sp=on,zero=1,first=7,last=7,") +
                                        "recompute=" + rc + ",v=" + std::to_string(v),
                                    "layout", 2048, 2048);
      const auto s = evaluate_step(inputs_for(r, par));
      CHECK_FALSE(broken_plan_rule(r, par));  // the planner's space contains it
      if (s.memory.fits() && (!meta || s.step_time < meta->step_time)) {
        meta = s;
      }
    }
  }
  REQUIRE(meta);
  CHECK(best.result.step_time <= meta->step_time);
}

TEST_CASE(
    "A maximum global batch: 5128 GPUs with G = 2520 get a layout whose batch is rounded down to "
    "d*floor(G/d) and ranked by samples/s",
    "[planner]") {
  auto req = request(small_gpt(), 5128, 2520, 8);  // 5,128 = 8 x 641, 641 prime
  req.top = 3;
  CHECK(plan(req).top.empty());  // G exactly: no d of 641 or more divides 2,520
  req.batch_is_maximum = true;
  const auto got = plan(req);
  REQUIRE(!got.top.empty());
  for (const auto& l : got.top) {
    const auto& par = l.candidate.par;
    INFO(describe_layout(par));
    CHECK(par.global_batch == 2520 / par.dp * par.dp);
    CHECK(par.global_batch % (par.dp * par.micro_batch) == 0);
    CHECK(par.global_batch <= 2520);
    CHECK(l.result.micro_batches == par.global_batch / (par.dp * par.micro_batch));
  }
  // Ranked by samples per second, which the full evaluation agrees with.
  for (std::size_t i = 1; i < got.top.size(); ++i) {
    const auto rate = [](const planned_layout& l) {
      return static_cast<double>(l.candidate.par.global_batch) / l.result.step_time.value();
    };
    CHECK(rate(got.top[i - 1]) >= rate(got.top[i]));
  }
  // t*p divides 5,128 with at most 8 layers and t <= 8: t*p in {1, 2, 4, 8}, d in {5128, 2564,
  // 1282, 641}; d > G leaves no sequence per replica, so d = 1,282 (G' = 1,282) or 641
  // (G' = 3 x 641 = 1,923).
  for (const auto& l : got.top) {
    const auto& par = l.candidate.par;
    CHECK(((par.dp == 641 && par.global_batch == 1923) ||
           (par.dp == 1282 && par.global_batch == 1282)));
  }
  CHECK(got.counts[plan_reason::dp_batch] > 0);  // the pairs of d = 5,128 and 2,564
}

namespace {

/// A long-sequence request: the small Llama at 16k tokens on 16 GPUs in nodes of 4, memory
/// tight enough that some layouts need CP or recomputation, with CP searched up to 8.
plan_request cp_request(cp_comm_type comm) {
  auto m = small_llama();
  m.seq = 16384;
  auto r = request(m, 16, 8);
  r.options.attention = attention_kernel::fused;  // CP runs on a fused kernel
  r.memory_capacity = 6.0 * units::GiB;
  r.constraints.max_cp = 8;
  r.options.cp.comm = comm;
  r.precision.attention_efficiency = 0.53;  // Hopper's fitted η (efficiency.hpp)
  return r;
}

}  // namespace

TEST_CASE(
    "With CP, the search's best over a small space is the fastest fitting layout of a brute "
    "force through evaluate_step (cp = 1, 2, 4, 8)",
    "[planner][cp]") {
  for (const auto comm : {cp_comm_type::p2p, cp_comm_type::all_gather}) {
    INFO(to_string(comm));
    const auto req = cp_request(comm);
    std::optional<plan_candidate> best;
    std::int64_t cp_layouts = 0;
    for (const std::int64_t cp : {1, 2, 4, 8}) {
      auto sub = req;
      sub.gpus = req.gpus / cp;  // every_layout enumerates (t, p, d) of N/cp
      for (auto par : every_layout(sub)) {
        if (broken_plan_rule(req, par, cp)) {
          continue;
        }
        plan_candidate c;
        c.par = par;
        c.par.cp = cp;
        const auto l = evaluate_planned(req, c);
        if (!l.result.memory.fits()) {
          continue;
        }
        c.step_time = l.result.step_time;
        c.peak_memory = l.result.memory.peak().total();
        c.tp_spans_nodes = par.tp > req.topology.gpus_per_node;
        cp_layouts += cp > 1 ? 1 : 0;
        if (!best || ranks_before(c, *best)) {
          best = c;
        }
      }
    }
    REQUIRE(best);
    CHECK(cp_layouts > 0);
    const auto found = plan(req);
    REQUIRE(!found.top.empty());
    const auto& top = found.top.front();
    INFO(describe_layout(top.candidate.par, top.candidate.par.cp) + " vs brute force " +
         describe_layout(best->par, best->par.cp));
    CHECK(top.candidate.par.cp == best->par.cp);
    CHECK(describe_layout(top.candidate.par) == describe_layout(best->par));
    CHECK_THAT(top.result.step_time.value(), near(best->step_time.value(), 1e-12));
    // The search's own time for the winner is its full evaluation's.
    CHECK_THAT(top.candidate.step_time.value(), near(top.result.step_time.value(), 1e-9));
    check_identities(found.counts);
  }
}

TEST_CASE("The search's time of every CP layout it ranks is evaluate_step's", "[planner][cp]") {
  std::int64_t with_cp = 0;
  for (const std::int64_t fixed : {0, 2, 8}) {
    auto req = cp_request(cp_comm_type::p2p);
    req.top = 20;
    req.constraints.fixed_cp = fixed;
    const auto found = plan(req);
    for (const auto& l : found.top) {
      INFO(describe_layout(l.candidate.par, l.candidate.par.cp));
      CHECK_THAT(l.candidate.step_time.value(), near(l.result.step_time.value(), 1e-9));
      CHECK_THAT(l.candidate.peak_memory.value(),
                 near(l.result.memory.peak().total().value(), 1e-9));
      if (l.candidate.par.cp > 1) {
        ++with_cp;
        REQUIRE(l.result.long_context.added);
        CHECK(l.result.long_context.cp_per_layer.total().value() > 0.0);
        CHECK(l.candidate.par.tp * l.candidate.par.pp * l.candidate.par.cp * l.candidate.par.dp ==
              req.gpus);
      }
    }
  }
  CHECK(with_cp > 0);
}

TEST_CASE("CP search rules: 2*cp must divide s, --cp must divide N, --max-cp >= 1",
          "[planner][cp]") {
  auto req = cp_request(cp_comm_type::p2p);
  req.model.seq = 16384 + 8;  // 2·cp divides s for cp = 1, 2, 4 but not 8
  const auto c = plan(req).counts;
  CHECK(c[plan_reason::cp_sequence] > 0);
  check_identities(c);
  auto fixed = cp_request(cp_comm_type::p2p);
  fixed.constraints.fixed_cp = 3;
  CHECK_THROWS_WITH(plan(fixed), Catch::Contains("3 does not divide N = 16"));
  fixed.constraints.fixed_cp = 4;
  fixed.model.seq = 16384 + 4;
  CHECK_THROWS_WITH(plan(fixed), Catch::Contains("2*cp = 8 equal chunks"));
  auto none = cp_request(cp_comm_type::p2p);
  none.constraints.max_cp = 0;
  CHECK_THROWS_WITH(plan(none), Catch::Contains("out of range"));
  // With --cp fixed, every proposed layout has it.
  auto four = cp_request(cp_comm_type::p2p);
  four.constraints.fixed_cp = 4;
  for (const auto& l : plan(four).top) {
    CHECK(l.candidate.par.cp == 4);
  }
}

TEST_CASE("A layout with cp reads and prints as t=..,p=..,cp=..", "[planner][cp]") {
  const auto l = parse_plan_layout("t=2,p=1,cp=4,b=1", "--compare", 16, 8);
  CHECK(l.par.cp == 4);
  CHECK(l.par.dp == 2);
  CHECK(describe_layout(l.par, l.par.cp) ==
        "t=2,p=1,cp=4,d=2,b=1,v=1,sp=off,recompute=none,zero=0");
  CHECK_THROWS_WITH(parse_plan_layout("t=2,cp=3", "--compare", 16, 8),
                    Catch::Contains("t*p*cp = 2*1*3 does not divide N = 16"));
  CHECK_THROWS_WITH(parse_layout("t=2,cp=4", "--compare", 16, 8),
                    Catch::Contains("cp = 4 is not accepted here"));
}

TEST_CASE(
    "With experts, the best layouts of plan are the best of a brute-force list over every ep "
    "and etp ranked by evaluate_step",
    "[planner][moe]") {
  auto req = request(small_moe(), 16, 32);
  req.memory_capacity = 1.5 * units::GiB;  // some fit, some do not
  req.top = 6;
  const auto [expected, got] = check_plan_matches_brute_force(req);
  // ep is searched: more than one ep among the fitting layouts, and an ep of 8 does not fold
  // over the t*d = 4 ranks of a (t, p) = (1, 4) stage.
  bool some_ep = false;
  bool some_etp = false;
  for (const auto& c : expected) {
    some_ep = some_ep || c.par.ep > 1;
    some_etp = some_etp || c.par.etp > 1;
  }
  CHECK(some_ep);
  CHECK(some_etp);
  CHECK(got.counts[plan_reason::ep_fold] > 0);
  CHECK(detail::pair_rule(req, 1, 4, 1, 8) == plan_reason::ep_fold);
  CHECK_FALSE(detail::pair_rule(req, 1, 4, 1, 4));

  // --ep fixes it: the best of the ep = 2 layouts of the brute-force list.
  req.constraints.fixed_ep = 2;
  const auto fixed = plan(req);
  REQUIRE_FALSE(fixed.top.empty());
  const auto first_ep2 = std::find_if(expected.begin(), expected.end(),
                                      [](const plan_candidate& c) { return c.par.ep == 2; });
  REQUIRE(first_ep2 != expected.end());
  CHECK(describe_layout(fixed.top[0].candidate.par) == describe_layout(first_ep2->par));
  check_identities(fixed.counts);
  req.constraints.fixed_ep = 3;  // does not divide the 8 experts
  CHECK_THROWS_AS(plan(req), invalid_spec);

  // --etp fixes etp: the best of the etp = 2 layouts (any ep) of the brute-force list.
  req.constraints.fixed_ep = 0;
  req.constraints.fixed_etp = 2;
  const auto fixed_etp = plan(req);
  REQUIRE_FALSE(fixed_etp.top.empty());
  const auto first_etp2 = std::find_if(expected.begin(), expected.end(),
                                       [](const plan_candidate& c) { return c.par.etp == 2; });
  REQUIRE(first_etp2 != expected.end());
  CHECK(describe_layout(fixed_etp.top[0].candidate.par) == describe_layout(first_etp2->par));
  check_identities(fixed_etp.counts);
  req.constraints.fixed_etp = 3;  // does not divide the expert FFN of 1408
  CHECK_THROWS_AS(plan(req), invalid_spec);
}

TEST_CASE("A layout with ep reads back from describe_layout", "[planner][moe]") {
  parallel_config par;
  par.tp = 2;
  par.pp = 2;
  par.dp = 4;
  par.ep = 8;
  par.global_batch = 32;
  const auto text = describe_layout(par);
  CHECK(text.find(",ep=8,") != std::string::npos);
  const auto back = parse_layout(text, "compare", 16, 32);
  CHECK(back.ep == 8);
  CHECK(back.etp == 1);
  CHECK(describe_layout(back) == text);
}

TEST_CASE("plan keeps its memory reserve free: no proposed layout reaches into it", "[planner]") {
  auto req = request(small_gpt(), 16, 32);
  req.memory_capacity = 3.0 * units::GiB;
  req.top = 8;
  const auto free_plan = plan(req);
  REQUIRE(!free_plan.top.empty());
  // A reserve that the lightest layout of the unreserved plan's top still clears but the
  // winner does not: the winner must change, and every layout listed must keep the reserve.
  const auto lightest = std::min_element(
      free_plan.top.begin(), free_plan.top.end(), [](const auto& a, const auto& b) {
        return a.result.memory.peak().total() < b.result.memory.peak().total();
      });
  const bytes winner_peak = free_plan.top.front().result.memory.peak().total();
  const bytes lightest_peak = lightest->result.memory.peak().total();
  REQUIRE(lightest_peak < winner_peak);
  req.memory_reserve = req.memory_capacity - 0.5 * (winner_peak + lightest_peak);
  const auto kept = plan(req);
  REQUIRE(!kept.top.empty());
  for (const auto& l : kept.top) {
    CHECK(l.result.memory.peak().total() <= req.memory_capacity - req.memory_reserve);
  }
  CHECK(describe_layout(kept.top.front().candidate.par) !=
        describe_layout(free_plan.top.front().candidate.par));
  CHECK(kept.counts[plan_reason::memory] > free_plan.counts[plan_reason::memory]);
  // A reserve of the whole GPU, or a negative one, is refused.
  req.memory_reserve = req.memory_capacity;
  CHECK_THROWS_AS(plan(req), invalid_spec);
  req.memory_reserve = bytes(-1.0);
  CHECK_THROWS_AS(plan(req), invalid_spec);
}

namespace {

/// `model` on a GPU preset with its generation's η, at the recipe `opts` as the CLI reads it
/// (precision_device_for), with memory tight enough that the recipe's weight copies matter.
plan_request precision_request(const transformer_spec& model, const char* gpu_name,
                               precision_options opts, double memory_gib) {
  const auto& gpu = gpu_preset_by_name(gpu_name, "gpu");
  auto r = request(model, 16, 32);
  r.gpu = bf16_device_for(gpu);
  r.memory_capacity = memory_gib * units::GiB;
  r.options.attention = attention_kernel::fused;
  r.precision = precision_device_for(gpu, opts, "precision");
  r.top = 40;
  return r;
}

}  // namespace

TEST_CASE(
    "With an FP8 or FP4 recipe the search's time and memory of every layout it ranks are "
    "evaluate_step's, weight copies and ZeRO-3 sharding included",
    "[planner][precision]") {
  struct recipe {
    const char* gpu;
    precision_options opts;
  };
  const std::vector<recipe> recipes{
      {"h100-sxm", {.linear = linear_precision::fp8_delayed}},
      {"h100-sxm", {.linear = linear_precision::fp8_blockwise}},
      {"h100-sxm", {.linear = linear_precision::fp8_current, .fp8_param_gather = true}},
      {"h100-sxm", {.linear = linear_precision::fp8_delayed, .fp8_attention = true}},
      {"b200", {.linear = linear_precision::mxfp8}},
      {"gb200", {.linear = linear_precision::nvfp4}},
  };
  std::int64_t checked = 0, zero3 = 0;
  for (const auto& model : {small_llama(), small_moe()}) {
    for (const auto& rc : recipes) {
      for (const int fixed_zero : {-1, 3}) {
        auto req = precision_request(model, rc.gpu, rc.opts, 1.0);
        req.constraints.fixed_zero = fixed_zero;
        INFO(rc.gpu << " " << to_string(rc.opts.linear) << " zero " << fixed_zero
                    << (is_moe(model.moe) ? " MoE" : " dense"));
        const auto found = plan(req);
        REQUIRE(!found.top.empty());
        for (const auto& l : found.top) {
          INFO(describe_layout(l.candidate.par));
          REQUIRE(l.result.long_context.added);  // evaluated as step --precision evaluates it
          CHECK_THAT(l.candidate.step_time.value(), near(l.result.step_time.value(), 1e-9));
          CHECK_THAT(l.candidate.peak_memory.value(),
                     near(l.result.memory.peak().total().value(), 1e-9));
          zero3 += l.candidate.par.zero == zero_stage::parameters ? 1 : 0;
          ++checked;
        }
        check_identities(found.counts);
      }
    }
  }
  CHECK(checked > 500);
  CHECK(zero3 > 100);
}

TEST_CASE("An FP8 search ranks by FP8 times and memory: its winner is a brute force's at FP8",
          "[planner][precision]") {
  auto req =
      precision_request(small_llama(), "h100-sxm", {.linear = linear_precision::fp8_delayed}, 1.0);
  req.top = 1;
  std::optional<plan_candidate> best;
  std::int64_t differs_from_bf16 = 0;
  for (const auto& par : every_layout(req)) {
    if (broken_plan_rule(req, par)) {
      continue;
    }
    plan_candidate c;
    c.par = par;
    const auto l = evaluate_planned(req, c);
    REQUIRE(l.result.long_context.added);
    auto bf16_inputs = inputs_for(req, par);
    bf16_inputs.precision = {};
    const auto bf16 = evaluate_step(bf16_inputs);
    differs_from_bf16 += bf16.memory.fits() != l.result.memory.fits() ? 1 : 0;
    if (!l.result.memory.fits()) {
      continue;
    }
    c.step_time = l.result.step_time;
    c.peak_memory = l.result.memory.peak().total();
    if (!best || ranks_before(c, *best)) {
      best = c;
    }
  }
  REQUIRE(best);
  CHECK(differs_from_bf16 > 0);  // the weight copies decide what fits at 1 GiB
  const auto found = plan(req);
  REQUIRE(found.top.size() == 1);
  CHECK(describe_layout(found.top[0].candidate.par) == describe_layout(best->par));
  CHECK_THAT(found.top[0].result.step_time.value(), near(best->step_time.value(), 1e-12));
  // And the BF16 search of the same request is slower: the recipe was priced.
  auto bf16 = req;
  bf16.precision = precision_device_for(gpu_preset_by_name("h100-sxm", "gpu"), {}, "precision");
  const auto slow = plan(bf16);
  REQUIRE(!slow.top.empty());
  CHECK(slow.top[0].result.step_time > found.top[0].result.step_time);
  CHECK(!slow.top[0].result.long_context.added);
}

TEST_CASE("A fixed b, v or ZeRO stage holds for every returned layout", "[planner][constraints]") {
  const auto base = [] {
    auto r = request(small_llama(), 16, 32);
    r.top = 50;
    return r;
  };
  for (const std::int64_t b : {1, 2, 4}) {
    auto req = base();
    req.constraints.fixed_micro_batch = b;
    const auto found = plan(req);
    REQUIRE(!found.top.empty());
    for (const auto& l : found.top) {
      CHECK(l.candidate.par.micro_batch == b);
    }
    for (const auto& pd : found.per_degrees) {
      CHECK(pd.best.par.micro_batch == b);
    }
    check_identities(found.counts);
  }
  for (const std::int64_t v : {1, 2, 3}) {
    auto req = base();
    req.constraints.fixed_vpp = v;
    const auto found = plan(req);
    REQUIRE(!found.top.empty());
    for (const auto& l : found.top) {
      CHECK(l.candidate.par.vpp == v);
      CHECK((v == 1 || l.candidate.par.pp > 1));
    }
    check_identities(found.counts);
  }
  for (const int z : {0, 1, 2, 3}) {
    auto req = base();
    req.constraints.fixed_zero = z;
    const auto found = plan(req);
    REQUIRE(!found.top.empty());
    for (const auto& l : found.top) {
      CHECK(static_cast<int>(l.candidate.par.zero) == z);
      CHECK((z == 0 || l.candidate.par.dp > 1));
    }
    check_identities(found.counts);
  }
  // All of them at once, with t and p: exactly one layout family.
  auto req = base();
  req.constraints = {
      .fixed_tp = 2, .fixed_pp = 2, .fixed_micro_batch = 2, .fixed_vpp = 2, .fixed_zero = 1};
  const auto found = plan(req);
  REQUIRE(!found.top.empty());
  for (const auto& l : found.top) {
    const auto& p = l.candidate.par;
    CHECK(describe_layout(p).find("t=2,p=2,d=4,b=2,v=2,") == 0);
    CHECK(p.zero == zero_stage::optimizer);
  }
}

TEST_CASE("An impossible fixed b, v or ZeRO stage is refused in one line naming it",
          "[planner][constraints]") {
  auto req = request(small_llama(), 16, 32);
  req.constraints.fixed_micro_batch = 3;
  CHECK_THROWS_WITH(plan(req), Catch::Contains("b = 3 does not divide G = 32"));
  req = request(small_llama(), 16, 32);
  req.constraints.fixed_vpp = 13;
  CHECK_THROWS_WITH(plan(req), Catch::Contains("13 is out of range; expected 1..12"));
  req.constraints.fixed_vpp = 2;
  req.constraints.fixed_pp = 1;
  CHECK_THROWS_WITH(plan(req), Catch::Contains("p = 1 has none"));
  req = request(small_llama(), 16, 32);
  req.constraints.fixed_zero = 4;
  CHECK_THROWS_WITH(plan(req), Catch::Contains("4 is not a ZeRO stage"));
  req = request(small_llama(), 16, 32);
  req.constraints.fixed_tp = 3;
  CHECK_THROWS_WITH(plan(req), Catch::Contains("t = 3 does not divide N = 16"));
  req = request(small_llama(), 16, 32);
  req.constraints.fixed_pp = 32;
  CHECK_THROWS_WITH(plan(req), Catch::Contains("more stages than the 12 layers"));
  // A fixed ZeRO stage no d > 1 allows: the search finds nothing, with an empty top.
  req = request(small_llama(), 16, 16);
  req.constraints.fixed_tp = 4;
  req.constraints.fixed_pp = 4;
  req.constraints.fixed_zero = 1;
  CHECK(plan(req).top.empty());
}

TEST_CASE("plan --recompute-modules auto searches every set of the modules a model has",
          "[planner][recompute]") {
  using m = recompute_module;
  const auto bit = [](m x) { return static_cast<unsigned>(x); };
  // Dense: core_attn, layernorm and mlp, every non-empty set (7), Megatron's default first.
  const auto dense = recompute_module_sets(model_preset_named("llama-3-8b", "model").spec);
  CHECK(dense.size() == 7);
  CHECK(dense.front() == bit(m::core_attn));
  // DeepSeek-V3: dense leading layers, shared experts and MLA too: of the 2^7 - 1 sets, those
  // with moe beside moe_act or shared_experts are left out (48): 79.
  const auto v3 = recompute_module_sets(model_preset_named("deepseek-v3", "model").spec);
  CHECK(v3.size() == 79);
  for (const auto set : v3) {
    CHECK(set != 0U);
    CHECK_FALSE(
        ((set & bit(m::moe)) != 0U && (set & (bit(m::moe_act) | bit(m::shared_experts))) != 0U));
  }
  // A layout string's modules= reads back, and names the modules only under selective.
  parallel_config par;
  par.tp = 8;
  par.dp = 4;
  par.global_batch = 64;
  par.recompute = recompute_mode::selective;
  layout_choices chosen;
  chosen.recompute_modules = bit(m::core_attn) | bit(m::mlp);
  const auto text = describe_layout(par, 1, chosen);
  CHECK_THAT(text, Catch::Matchers::EndsWith(",modules=core_attn+mlp"));
  CHECK(parse_plan_layout(text, "compare", 32, 64).choices.recompute_modules ==
        chosen.recompute_modules);
  par.recompute = recompute_mode::full;
  CHECK(describe_layout(par, 1, chosen) == describe_layout(par));
}

namespace {

/// Two layouts are the same candidate, bit for bit.
void check_same(const plan_candidate& a, const plan_candidate& b) {
  CHECK(describe_layout(a.par, a.par.cp) == describe_layout(b.par, b.par.cp));
  CHECK(a.par.global_batch == b.par.global_batch);
  CHECK(a.step_time.value() == b.step_time.value());
  CHECK(a.peak_memory.value() == b.peak_memory.value());
  CHECK(a.tp_spans_nodes == b.tp_spans_nodes);
}

}  // namespace

namespace {

struct module_set_counts {
  std::int64_t fit = 0, none = 0, beat_own = 0;
};

/// plan_module_sets(req, sets) against plan(req) for the layouts without selective
/// recomputation, and against one search per set of its selective layouts alone, bit for bit.
module_set_counts check_module_sets(const plan_request& req, const std::vector<unsigned>& sets) {
  const auto bit = [](recompute_mode m) { return 1U << static_cast<unsigned>(m); };
  module_set_counts n;
  const auto both = plan_module_sets(req, sets);
  // The layouts without selective recomputation: plan(req)'s result, unchanged.
  const auto own = plan(req);
  REQUIRE(both.own.top.size() == own.top.size());
  for (std::size_t i = 0; i < own.top.size(); ++i) {
    check_same(both.own.top[i].candidate, own.top[i].candidate);
  }
  REQUIRE(both.own.runner_up.has_value() == own.runner_up.has_value());
  CHECK(both.own.counts.layouts == own.counts.layouts);
  CHECK(both.own.counts.evaluated == own.counts.evaluated);
  CHECK(both.own.counts.feasible == own.counts.feasible);
  CHECK(both.own.counts.rejected == own.counts.rejected);
  CHECK(both.own.threads == own.threads);
  REQUIRE(both.own.per_degrees.size() == own.per_degrees.size());
  for (std::size_t i = 0; i < own.per_degrees.size(); ++i) {
    check_same(both.own.per_degrees[i].best, own.per_degrees[i].best);
    CHECK(both.own.per_degrees[i].feasible == own.per_degrees[i].feasible);
  }
  // Each set: the first layout of a search of its selective layouts alone.
  REQUIRE(both.best.size() == sets.size());
  for (std::size_t j = 0; j < sets.size(); ++j) {
    INFO("modules " << recompute_modules_to_string(sets[j]));
    auto alone = req;
    alone.options.recompute.modules = sets[j];
    alone.constraints.recompute_modes = bit(recompute_mode::selective);
    const auto found = plan(alone);
    REQUIRE(found.top.empty() == !both.best[j].has_value());
    if (found.top.empty()) {
      ++n.none;
      continue;
    }
    ++n.fit;
    check_same(both.best[j]->candidate, found.top.front().candidate);
    CHECK(both.best[j]->result.step_time.value() == found.top.front().result.step_time.value());
    CHECK(both.best[j]->result.memory.peak().total().value() ==
          found.top.front().result.memory.peak().total().value());
    if (!own.top.empty() && found.top.front().result.step_time < own.top.front().result.step_time) {
      ++n.beat_own;
    }
  }
  return n;
}

plan_request module_set_request(const char* name, std::int64_t gpus, std::int64_t batch,
                                std::int64_t seq, double gib, unsigned threads) {
  auto model = model_preset_named(name, "model").spec;
  model.seq = seq;
  auto req = request(model, gpus, batch);
  req.memory_capacity = gib * units::GiB;
  req.options.attention = attention_kernel::fused;
  req.top = 3;
  req.threads = threads;
  req.layouts_per_thread = 1;  // the pairs spread over every thread asked for
  req.constraints.recompute_modes = (1U << static_cast<unsigned>(recompute_mode::none)) |
                                    (1U << static_cast<unsigned>(recompute_mode::full));
  return req;
}

}  // namespace

TEST_CASE(
    "plan_module_sets in one pass gives plan's result without selective recomputation and each "
    "module set's best as a search of that set alone, bit for bit",
    "[planner][recompute]") {
  struct fixture {
    const char* model;
    std::int64_t gpus, batch, seq;
  };
  module_set_counts total;
  for (const auto& f :
       {fixture{"qwen3-30b-a3b", 16, 64, 1024}, fixture{"deepseek-v3", 32, 64, 512}}) {
    for (const double gib : {1024.0, 40.0}) {
      for (const unsigned threads : {1U, 2U}) {
        INFO(f.model << " at " << gib << " GiB on " << threads << " threads");
        const auto req = module_set_request(f.model, f.gpus, f.batch, f.seq, gib, threads);
        const auto n = check_module_sets(req, recompute_module_sets(req.model));
        total.fit += n.fit;
        total.none += n.none;
        total.beat_own += n.beat_own;
      }
    }
  }
  CHECK(total.fit > 100);
  CHECK(total.none > 0);      // some sets have no selective layout that fits
  CHECK(total.beat_own > 0);  // and some beat every layout without selective recomputation
}

TEST_CASE(
    "plan_module_sets with context parallelism and fine-grained offloading: each set's own "
    "long-context and offloaded terms, bit for bit",
    "[planner][recompute]") {
  // cp up to 4 on 8192-token sequences: a set without core_attn does not rerun the CP stage's
  // attention core (long_context.hpp); the offloaded modules free what each set keeps.
  std::int64_t fit = 0;
  for (const double gib : {1024.0, 30.0}) {
    INFO("at " << gib << " GiB");
    auto req = module_set_request("qwen3-30b-a3b", 16, 32, 8192, gib, 2);
    req.constraints.max_cp = 4;
    req.options.recompute.offload_modules =
        parse_offload_modules("core_attn,expert_fc1", "offload_modules");
    const auto searched = plan(req).per_degrees;
    CHECK(std::any_of(searched.begin(), searched.end(),
                      [](const auto& d) { return d.best.par.cp > 1; }));  // CP is searched
    fit += check_module_sets(req, recompute_module_sets(req.model)).fit;
  }
  CHECK(fit > 0);
}

TEST_CASE(
    "A module set's memory terms at a layout are another set's with the set's own three "
    "activation terms, taken at any layout of the same t, ep, etp, b and SP (another p and d "
    "too), as is its layer compute, and its step-time floor is below its step time",
    "[planner][recompute]") {
  struct fixture {
    const char* model;
    std::int64_t seq;
  };
  struct groups {
    std::int64_t t, p, ep, etp;
  };
  std::int64_t checked = 0;
  double highest = 0.0;
  for (const auto& f : {fixture{"qwen3-30b-a3b", 1024}, fixture{"deepseek-v3", 512}}) {
    auto model = model_preset_named(f.model, "model").spec;
    model.seq = f.seq;
    auto req = request(model, 32, 64);
    req.options.attention = attention_kernel::fused;
    const auto env = detail::environment_of(req);
    const auto sets = recompute_module_sets(model);
    for (const auto& g : {groups{1, 1, 8, 1}, groups{2, 2, 4, 2}, groups{4, 4, 2, 1}}) {
      const auto d = req.gpus / (g.t * g.p);
      const group_sizes sizes{.tp = g.t, .pp = g.p, .dp = d, .ep = g.ep, .etp = g.etp};
      const auto splits = detail::candidate_splits(model.layers, g.p);
      // The other layout: another p (so another d), its default split, v = 1, ZeRO-0.
      const auto p0 = g.p == 1 ? 2 : 1;
      const group_sizes sizes0{
          .tp = g.t, .pp = p0, .dp = req.gpus / (g.t * p0), .ep = g.ep, .etp = g.etp};
      const auto x0 = group_stage(env, sizes0, detail::candidate_splits(model.layers, p0).front());
      for (const auto& split : splits) {
        const auto x = group_stage(env, sizes, split);
        for (const std::int64_t b : {1, 2}) {
          const auto y = batch_stage(env, x, b, req.global_batch);
          const auto y0 = batch_stage(env, x0, b, req.global_batch);
          const bool sp = g.t > 1;  // MoE with TP: SP on
          const layout_choice other{.sequence_parallel = sp,
                                    .recompute = recompute_mode::selective};
          for (const auto v : detail::chunk_counts(split)) {
            for (const auto zero : {zero_stage::none, zero_stage::optimizer}) {
              const layout_choice c{.vpp = v,
                                    .sequence_parallel = sp,
                                    .recompute = recompute_mode::selective,
                                    .zero = zero};
              auto first = env;
              first.options.recompute.modules = sets.front();
              auto terms = detail::memory_terms_of(first, x, y, c, req.global_batch);
              // The layout's stages, built once from the first set's terms (the search's).
              const detail::layout_stages stages(x, terms);
              for (const auto set : sets) {
                auto e = env;
                e.options.recompute.modules = set;
                detail::use_set_memory_terms(
                    terms, detail::set_memory_terms_of(
                               detail::memory_terms_of(e, x0, y0, other, req.global_batch)));
                INFO(f.model << " t " << g.t << " p " << g.p << " b " << b << " v " << v
                             << " modules " << recompute_modules_to_string(set));
                CHECK(peak_memory_from_terms(x, terms).value() ==
                      peak_memory(e, x, y, c, req.global_batch).value());
                CHECK(stages.peak(terms).value() ==
                      peak_memory(e, x, y, c, req.global_batch).value());
                // The floor the search skips a set's layout by: m times the slowest stage's
                // compute, lowered by the margin, at most the step time, and close to it.
                const auto compute = detail::layer_compute_of(e, detail::layer_kernels_of(y, sp),
                                                              recompute_mode::selective, set);
                const auto compute0 = detail::layer_compute_of(e, detail::layer_kernels_of(y0, sp),
                                                               recompute_mode::selective, set);
                CHECK(compute.dense.value() == compute0.dense.value());
                CHECK(compute.moe.value() == compute0.moe.value());
                // With the bubble's average stages and the rest (layout_floor_parts), and with
                // Megatron's EP overlap on and off (the all-to-alls' floor differs).
                for (const bool overlap : {false, true}) {
                  e.options.experts.overlap_comm = overlap;
                  const detail::stage_compute_floor stage_floor(e, x, y);
                  const seconds stages_floor = static_cast<double>(y.micro_batches) *
                                               stage_floor(compute) * detail::compute_floor_margin;
                  const seconds floor =
                      stages_floor + (bubble_stages(g.p, v) * stage_floor.average_stage(compute) +
                                      detail::layout_floor_parts(e, x, y, c)) *
                                         detail::compute_floor_margin;
                  const seconds time = combine_step(e, x, y, c).step_time;
                  INFO("EP overlap " << overlap);
                  CHECK(stages_floor <= floor);
                  CHECK(floor <= time);
                  highest = std::max(highest, floor / time);
                  ++checked;
                }
              }
            }
          }
        }
      }
    }
  }
  CHECK(checked > 2000);
  CHECK(highest > 0.9);  // the floor is most of the step on some layouts
}

namespace {

/// small_llama on 8 GPUs, G = 16, full recomputation only, with `gib` of memory per GPU.
plan_request full_only_request(double gib) {
  auto req = request(small_llama(), 8, 16, 8);
  req.memory_capacity = gib * units::GiB;
  req.constraints.recompute_modes = 1U << static_cast<unsigned>(recompute_mode::full);
  req.top = 1000;
  return req;
}

/// `req`'s step of `par` with full recomputation by `method` of `layers` per model chunk.
step_result full_step(const plan_request& req, const parallel_config& par, recompute_method method,
                      std::int64_t layers) {
  auto in = inputs_for(req, par);
  in.options.recompute.method = method;
  in.options.recompute.num_layers = layers;
  return evaluate_step(in);
}

bool fits(const plan_request& req, const step_result& r) {
  return r.memory.peak().total().value() <= (req.memory_capacity - req.memory_reserve).value();
}

}  // namespace

TEST_CASE(
    "plan --recompute-num-layers auto: each full layout runs the fewest block layers that fit, "
    "costed as evaluate_step costs them",
    "[planner][recompute]") {
  std::int64_t blocks = 0, every_layer = 0;
  for (const double gib : {0.5, 0.75, 1.0, 1.5}) {
    INFO(gib << " GiB");
    auto req = full_only_request(gib);
    req.constraints.least_block_layers = true;
    const auto found = plan(req);
    check_identities(found.counts);
    for (const auto& l : found.top) {
      const auto& c = l.candidate;
      INFO(describe_layout(c.par, 1, with_full_recompute({}, c)));
      REQUIRE(c.par.recompute == recompute_mode::full);
      CHECK_THAT(c.step_time.value(), near(l.result.step_time.value(), 1e-9));
      CHECK_THAT(c.peak_memory.value(), near(l.result.memory.peak().total().value(), 1e-9));
      const auto bound = chunk_layers_bound(req.model, c.par.pp, c.par.vpp);
      // Without recomputation it would not fit: else the search drops it (recompute_unneeded).
      CHECK_FALSE(fits(req, full_step(req, c.par, recompute_method::block, 0)));
      if (c.full_method == recompute_method::block) {
        ++blocks;
        REQUIRE(c.full_layers >= 1);
        REQUIRE(c.full_layers <= bound);
        // The fewest: one layer fewer does not fit, and would have been faster.
        const auto fewer = full_step(req, c.par, recompute_method::block, c.full_layers - 1);
        CHECK_FALSE(fits(req, fewer));
        CHECK(fewer.step_time < l.result.step_time);
        CHECK(block_recompute_share(req.model, c.par.pp, c.par.vpp, c.full_layers) < 1.0);
      } else {
        ++every_layer;
        CHECK(c.full_layers == 1);
      }
    }
    // Every layout that fits without recomputation is counted, none listed.
    const auto plain = [&] {
      auto r = req;
      r.constraints.least_block_layers = false;
      r.constraints.recompute_modes = 1U << static_cast<unsigned>(recompute_mode::none);
      return plan(r).counts;
    }();
    CHECK(found.counts[plan_reason::recompute_unneeded] == plain.feasible);
  }
  CHECK(blocks > 0);
  CHECK(every_layer > 0);
}

TEST_CASE("plan --recompute-num-layers auto's best is a brute force's best over every block count",
          "[planner][recompute]") {
  for (const double gib : {0.5, 0.75, 1.0}) {
    INFO(gib << " GiB");
    auto req = full_only_request(gib);
    req.constraints.least_block_layers = true;
    req.top = 1;
    std::optional<plan_candidate> best;
    for (const auto& par : every_layout(req)) {
      if (par.recompute != recompute_mode::full || broken_plan_rule(req, par) ||
          fits(req, full_step(req, par, recompute_method::block, 0))) {
        continue;
      }
      const auto bound = chunk_layers_bound(req.model, par.pp, par.vpp);
      for (std::int64_t n = 0; n <= bound; ++n) {  // 0: every layer alone (uniform 1)
        const auto method = n == 0 ? recompute_method::uniform : recompute_method::block;
        const auto r = full_step(req, par, method, n == 0 ? 1 : n);
        if (!fits(req, r)) {
          continue;
        }
        plan_candidate c{par, r.step_time, r.memory.peak().total(),
                         par.tp > req.topology.gpus_per_node};
        c.full_method = method;
        c.full_layers = n == 0 ? 1 : n;
        if (!best || ranks_before(c, *best)) {
          best = c;
        }
      }
    }
    const auto found = plan(req);
    REQUIRE(best.has_value() == !found.top.empty());
    if (best) {
      const auto& got = found.top.front().candidate;
      CHECK(describe_layout(got.par, 1, with_full_recompute({}, got)) ==
            describe_layout(best->par, 1, with_full_recompute({}, *best)));
      CHECK_THAT(found.top.front().result.step_time.value(), near(best->step_time.value(), 1e-12));
    }
  }
}

TEST_CASE("A fixed recompute method and layers hold for every full layout, bounded by its chunk",
          "[planner][recompute]") {
  for (const auto method : {recompute_method::block, recompute_method::uniform}) {
    INFO(to_string(method));
    auto req = full_only_request(64.0);
    req.options.recompute.method = method;
    req.options.recompute.num_layers = 3;
    req.top = 40;
    const auto found = plan(req);
    REQUIRE(found.top.size() == 40);
    bool bounded = false;
    for (const auto& l : found.top) {
      const auto& c = l.candidate;
      INFO(describe_layout(c.par, 1, with_full_recompute({}, c)));
      const auto bound = chunk_layers_bound(req.model, c.par.pp, c.par.vpp);
      CHECK(c.full_method == method);
      CHECK(c.full_layers == std::min<std::int64_t>(3, bound));
      bounded = bounded || bound < 3;
      CHECK_THAT(c.step_time.value(), near(l.result.step_time.value(), 1e-9));
      CHECK_THAT(c.peak_memory.value(), near(l.result.memory.peak().total().value(), 1e-9));
    }
    CHECK(bounded);
  }
}

TEST_CASE("A layout string names full recomputation's method and layers, and reads back",
          "[planner][recompute]") {
  parallel_config par;
  par.tp = 2;
  par.pp = 2;
  par.dp = 2;
  par.recompute = recompute_mode::full;
  plan_candidate c{par, seconds(1.0), bytes(1.0), false};
  CHECK(describe_layout(par, 1, with_full_recompute({}, c)).find("block") == std::string::npos);
  c.full_method = recompute_method::uniform;
  c.full_layers = 1;  // every layer alone: the default, not written
  CHECK(describe_layout(par, 1, with_full_recompute({}, c)).find("uniform") == std::string::npos);
  c.full_method = recompute_method::block;
  c.full_layers = 2;
  const auto text = describe_layout(par, 1, with_full_recompute({}, c));
  CHECK(text == "t=2,p=2,d=2,b=1,v=1,sp=off,recompute=full,zero=0,block=2");
  CHECK(recompute_label(par.recompute, with_full_recompute({}, c)) == "block:2");
  const auto back = parse_plan_layout(text, "--compare", 8, 8);
  REQUIRE(back.choices.full_method == recompute_method::block);
  CHECK(back.choices.full_layers == 2);
  plan_request req;
  const auto recipe = request_for(req, back.choices).options.recompute;
  CHECK(recipe.method == recompute_method::block);
  CHECK(recipe.num_layers == 2);
  CHECK(parse_plan_layout("t=2,p=2,recompute=full,uniform=4", "--compare", 8, 8)
            .choices.full_method == recompute_method::uniform);
  CHECK_THROWS_WITH(parse_plan_layout("t=2,p=2,recompute=none,block=2", "--compare", 8, 8),
                    Catch::Contains("block = N") && Catch::Contains("needs recompute=full"));
  CHECK_THROWS_WITH(parse_plan_layout("t=2,p=2,recompute=full,block=0", "--compare", 8, 8),
                    Catch::Contains("block = 0 is out of range"));
}

TEST_CASE("With CP, a block layout's search time is evaluate_step's, its CP terms blended too",
          "[planner][cp][recompute]") {
  auto req = cp_request(cp_comm_type::p2p);
  req.constraints.recompute_modes = 1U << static_cast<unsigned>(recompute_mode::full);
  req.constraints.least_block_layers = true;
  req.memory_capacity = 1.0 * units::GiB;
  req.top = 200;
  const auto found = plan(req);
  std::int64_t blocks_with_cp = 0;
  for (const auto& l : found.top) {
    const auto& c = l.candidate;
    INFO(describe_layout(c.par, c.par.cp, with_full_recompute({}, c)));
    CHECK_THAT(c.step_time.value(), near(l.result.step_time.value(), 1e-9));
    CHECK_THAT(c.peak_memory.value(), near(l.result.memory.peak().total().value(), 1e-9));
    if (c.par.cp > 1 && c.full_method == recompute_method::block) {
      ++blocks_with_cp;
    }
  }
  CHECK(blocks_with_cp > 0);
}

TEST_CASE(
    "module_set_partial keeps its sets slowest first, those without a best before all, and "
    "gives each group's micro-batches their own slots",
    "[planner][recompute]") {
  detail::module_set_partial sets;
  sets.resize(5);
  CHECK(sets.slowest_first == std::vector<std::size_t>{0, 1, 2, 3, 4});
  const auto keep = [&](std::size_t j, double seconds_per_step) {
    plan_candidate c;
    c.par.global_batch = 4;
    c.step_time = seconds_per_step * units::s;
    sets.keep(j, c);
    CHECK(sets.best_time[j].value() == seconds_per_step / 4.0);
  };
  keep(1, 8.0);
  keep(3, 12.0);
  keep(0, 10.0);
  // 2 and 4 have no best (infinite time), then 3, 0, 1: each time no smaller than the next's.
  CHECK(sets.slowest_first == std::vector<std::size_t>{2, 4, 3, 0, 1});
  keep(3, 6.0);  // a better best moves a set towards the end
  CHECK(sets.slowest_first == std::vector<std::size_t>{2, 4, 0, 1, 3});
  keep(2, 9.0);
  CHECK(sets.slowest_first == std::vector<std::size_t>{4, 0, 2, 1, 3});
  for (std::size_t i = 1; i < sets.slowest_first.size(); ++i) {
    CHECK(!(sets.best_time[sets.slowest_first[i - 1]] < sets.best_time[sets.slowest_first[i]]));
  }

  // Groups: pairs with the same t, cp, ep and etp share a number; their b's keep their slots.
  const detail::plan_pair a{.tp = 2, .pp = 1, .cp = 1, .dp = 8, .ep = 4, .etp = 1};
  auto a_other_p = a;
  a_other_p.pp = 2;
  a_other_p.dp = 4;
  auto b = a;
  b.etp = 2;
  const auto first = sets.group_of(a);
  CHECK(sets.batch_slot(4) == std::pair<std::size_t, bool>{0, true});
  CHECK(sets.batch_slot(1) == std::pair<std::size_t, bool>{1, true});
  CHECK(sets.group_of(a_other_p) == first);
  CHECK(sets.batch_slot(1) == std::pair<std::size_t, bool>{1, false});
  CHECK(sets.batch_slot(2) == std::pair<std::size_t, bool>{2, true});
  CHECK(sets.compute.size() >= 3 * 2 * 5);
  CHECK(sets.least.size() >= 3 * 2);
  CHECK(sets.lc.size() >= 3 * 5);
  CHECK(sets.memory.size() >= 3 * 2 * 5);
  const auto second = sets.group_of(b);
  CHECK(second != first);
  CHECK(sets.batch_slot(1) == std::pair<std::size_t, bool>{0, true});  // a new group: refilled
  CHECK(sets.group_of(a) != second);
  CHECK(sets.group_of(a) != first);  // numbers are never reused: stale terms stay stale
}
