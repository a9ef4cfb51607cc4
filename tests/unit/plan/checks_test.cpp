// Config rules: each compares one metric with a limit.
#include "tpcost/plan/checks.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>

#include "support/matchers.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/model/model_presets.hpp"

using namespace tpcost;
using tpcost::test::near;

TEST_CASE("Rules measure E, R, t and mu at the config's TP degree", "[checks]") {
  const auto at16 = sweep_tp(layer_spec{}, device_spec{}, {16});  // the seed demo: E = 58.0%
  const std::array<rule, 5> rules{{{rule_kind::min_efficiency, 0.7},
                                   {rule_kind::max_ratio, 1.0},
                                   {rule_kind::tp_within_half_critical, 0.0},
                                   {rule_kind::tp_within_node, 0.0},
                                   {rule_kind::min_utilisation, 0.5}}};
  const auto out = evaluate_rules(at16, rules, 8);
  REQUIRE(out.size() == 5);
  CHECK_THAT(out[0].measured, near(at16.rows[0].efficiency));
  CHECK_FALSE(out[0].passed);  // 58.0% < 70%
  CHECK_THAT(out[1].measured, near(at16.rows[0].ratio));
  CHECK(out[1].passed);  // R = 0.72 <= 1
  CHECK(out[2].measured == 16.0);
  CHECK_THAT(out[2].limit, near(at16.critical_tp / 2.0));
  CHECK_FALSE(out[2].passed);  // 16 > t*/2 = 11.06
  CHECK(out[3].limit == 8.0);
  CHECK_FALSE(out[3].passed);  // 16 GPUs span two nodes of 8
  CHECK(out[4].passed);        // mu = 58% >= 50%
}

TEST_CASE("A limit equal to the measured value passes", "[checks]") {
  const auto at8 = sweep_tp(layer_spec{}, device_spec{}, {8});
  const std::array<rule, 2> rules{
      {{rule_kind::min_efficiency, at8.rows[0].efficiency}, {rule_kind::tp_within_node, 0.0}}};
  const auto out = evaluate_rules(at8, rules, 8);
  CHECK(out[0].passed);
  CHECK(out[1].passed);
}

TEST_CASE("Rules need exactly one TP degree", "[checks]") {
  const auto two = sweep_tp(layer_spec{}, device_spec{}, {4, 8});
  const std::array<rule, 1> rules{{{rule_kind::max_ratio, 1.0}}};
  CHECK_THROWS_AS(evaluate_rules(two, rules, 8), invalid_spec);
}

TEST_CASE("Rule names are those of the config format", "[checks]") {
  CHECK(rule_name(rule_kind::min_efficiency) == "min_efficiency");
  CHECK(rule_name(rule_kind::tp_within_node) == "tp_within_node");
  CHECK(is_upper_bound(rule_kind::max_ratio));
  CHECK_FALSE(is_upper_bound(rule_kind::min_utilisation));
}

TEST_CASE("Under the refined model the rules read T_calc/T, R(t) and the topology's node size",
          "[checks]") {
  const cluster_topology nvl72{
      .gpus_per_node = 72, .intra = {900e9 * units::B / units::s, 3.4 * units::us}, .inter = {}};
  tp_options auto_collective;
  auto_collective.collective = collective_choice::automatic;
  auto_collective.overlap = 0.5;
  const auto at16 = sweep_tp(layer_spec{}, device_spec{}, nvl72, auto_collective, {16});
  const auto m = metrics_at(at16);
  const auto& row = at16.rows.front().row;
  CHECK(m.tp == 16);
  CHECK(m.gpus_per_node == 72);
  CHECK_THAT(m.efficiency, near(row.efficiency));  // T_calc/T with the overlap
  CHECK_THAT(m.utilisation, near(row.efficiency));
  CHECK_THAT(m.ratio, near(row.ratio));
  // t* is A over T_comm at this degree, so t <= t*/2 holds exactly when R(t) <= 1/2.
  CHECK_THAT(m.critical_tp, near(at16.single_gpu_compute / row.comm));
  CHECK_THAT(16.0 / m.critical_tp, near(row.ratio));
  const std::array<rule, 2> rules{
      {{rule_kind::tp_within_node, 0.0}, {rule_kind::tp_within_half_critical, 0.0}}};
  const auto out = evaluate_rules(m, rules);
  CHECK(out[0].passed);  // 16 <= 72: one NVLink domain
  CHECK(out[0].limit == 72.0);
  CHECK(out[1].passed == (row.ratio <= 0.5));
}

TEST_CASE("A TP degree that communicates nothing has no critical degree", "[checks]") {
  tp_options ring;
  ring.collective = collective_choice::ring;
  const auto at1 = sweep_tp(
      layer_spec{}, device_spec{},
      cluster_topology{.gpus_per_node = 8, .intra = {600e9 * units::B / units::s, {}}, .inter = {}},
      ring, {1});
  const auto m = metrics_at(at1);
  CHECK(std::isinf(m.critical_tp));
  const std::array<rule, 1> rules{{{rule_kind::tp_within_half_critical, 0.0}}};
  CHECK(evaluate_rules(m, rules).front().passed);
}

namespace {
/// GPT-3 175B on 1,024 A100s at t=8 p=16 d=8 (the example config's step), from the presets.
step_inputs gpt3_on_a100s() {
  step_inputs in;
  in.model = find_model_preset("gpt-3-175b")->spec;
  const auto& gpu = gpu_preset_by_name("a100-sxm4-80gb", "gpu");
  in.gpu = {gpu.peak.bf16.value, gpu.memory_bandwidth.value, {}};
  in.memory_capacity = gpu.memory.value;
  in.topology = make_topology(gpu, interconnect_preset_by_name("ib-hdr", "interconnect"));
  in.par = {.tp = 8, .pp = 16, .dp = 8, .micro_batch = 1, .global_batch = 1536};
  in.par.recompute = recompute_mode::full;
  return in;
}
}  // namespace

TEST_CASE("Step rules read the MFU, the memory headroom and the step time of evaluate_step",
          "[checks]") {
  const auto step = evaluate_step(gpt3_on_a100s());
  rule_metrics m;
  m.tp = 8;
  m.step = step_metrics_of(step);
  const double headroom = step.memory.headroom().value();
  REQUIRE(headroom > 0.0);
  const std::array<rule, 6> rules{{{rule_kind::min_mfu, step.mfu},
                                   {rule_kind::min_mfu, std::nextafter(step.mfu, 1.0)},
                                   {rule_kind::min_memory_headroom, headroom},
                                   {rule_kind::min_memory_headroom, headroom + 1.0},
                                   {rule_kind::max_step_time, step.step_time.value()},
                                   {rule_kind::max_step_time, 0.99 * step.step_time.value()}}};
  const auto out = evaluate_rules(m, rules);
  CHECK(out[0].measured == step.mfu);
  CHECK(out[0].passed);  // equal to the limit
  CHECK_FALSE(out[1].passed);
  CHECK(out[2].measured == headroom);
  CHECK(out[2].passed);
  CHECK_FALSE(out[3].passed);  // one byte short
  CHECK(out[4].measured == step.step_time.value());
  CHECK(out[4].passed);
  CHECK_FALSE(out[5].passed);
  // A layout that does not fit has a negative headroom, which fails a limit of 0.
  auto tight = gpt3_on_a100s();
  tight.memory_capacity = 8.0 * units::GiB;
  const auto over = evaluate_step(tight);
  m.step = step_metrics_of(over);
  const std::array<rule, 1> fits{{{rule_kind::min_memory_headroom, 0.0}}};
  const auto no_fit = evaluate_rules(m, fits).front();
  CHECK(no_fit.measured < 0.0);
  CHECK_FALSE(no_fit.passed);
  CHECK(no_fit.passed == over.memory.fits());
}

TEST_CASE("A step rule without the step is an error, not a pass", "[checks]") {
  rule_metrics m;
  m.tp = 8;
  for (const auto kind :
       {rule_kind::min_mfu, rule_kind::min_memory_headroom, rule_kind::max_step_time}) {
    CAPTURE(rule_name(kind));
    CHECK(reads_step(kind));
    const std::array<rule, 1> rules{{{kind, 0.5}}};
    CHECK_THROWS_AS(evaluate_rules(m, rules), invalid_spec);
  }
  CHECK_FALSE(reads_step(rule_kind::min_efficiency));
  CHECK(is_upper_bound(rule_kind::max_step_time));
  CHECK_FALSE(is_upper_bound(rule_kind::min_memory_headroom));
  CHECK(rule_name(rule_kind::min_memory_headroom) == "min_memory_headroom");
}
