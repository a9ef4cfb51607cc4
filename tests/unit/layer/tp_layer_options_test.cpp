// The refined per-layer model: SP, recomputation, overlap, wire dtype, collective choice, and
// its agreement with the seed's model when every option is at its default.
#include "tpcost/layer/tp_layer_options.hpp"

#include <catch2/catch.hpp>
#include <random>

#include "support/matchers.hpp"
#include "tpcost/layer/sweep.hpp"
#include "tpcost/model/model_presets.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
constexpr layer_spec demo{};     // b=2, s=2048, h=8192, fp32
constexpr device_spec device{};  // 1 PFLOP/s, 600 GB/s
// An H100-like node: NVLink 450 GB/s, 3 us; one 400 Gb/s NIC per GPU, 10 us.
const cluster_topology dgx{
    .gpus_per_node = 8,
    .intra = {.bandwidth = bytes_per_second(450e9), .latency = seconds(3e-6)},
    .inter = {.bandwidth = bytes_per_second(50e9), .latency = seconds(10e-6)},
};

tp_options with(collective_choice c) {
  tp_options o;
  o.collective = c;
  return o;
}
}  // namespace

TEST_CASE("Default options are the seed's model, number for number", "[tp_layer_options][seed]") {
  const tp_options defaults;
  CHECK(is_article_model(demo, defaults));
  for (const std::int64_t t : {1, 2, 4, 8, 16, 32, 3}) {
    CAPTURE(t);
    const auto seed = tp_cost_per_layer(demo, device, t);
    const auto refined = tp_cost_per_layer(demo, device, dgx, defaults, t);
    CHECK_THAT(refined.comm.value(), near(seed.comm.value(), 1e-12));
    CHECK_THAT(refined.compute.value(), near(seed.compute.value(), 1e-12));
    CHECK_THAT(refined.wire_bytes.value(), near(seed.comm_bytes.value(), 1e-12));
    CHECK(refined.step == refined.compute + refined.comm);  // f = 0: serial
    CHECK_FALSE(refined.group.has_value());                 // the seed has no topology
  }
}

TEST_CASE("Any refinement leaves the seed's model", "[tp_layer_options]") {
  auto o = tp_options{};
  o.sequence_parallel = true;
  CHECK_FALSE(is_article_model(demo, o));
  o = {};
  o.overlap = 0.25;
  CHECK_FALSE(is_article_model(demo, o));
  o = {};
  o.comm_dtype = dtype{"fp8", 1};
  CHECK_FALSE(is_article_model(demo, o));
  o = {};
  o.comm_dtype = dtype{"float32", 4};  // the same size on the wire: still the seed
  CHECK(is_article_model(demo, o));
  CHECK_FALSE(is_article_model(demo, with(collective_choice::ring)));
}

TEST_CASE("SP: 4 all-gathers + 4 reduce-scatters put the all-reduces' bytes on the wire",
          "[tp_layer_options]") {
  // Not auto: NCCL's tuner prices an all-reduce on its own (NVLS, tree), not as the
  // reduce-scatter and all-gather it may pick for SP.
  for (const auto c : {collective_choice::article, collective_choice::ring, collective_choice::tree,
                       collective_choice::hierarchical}) {
    for (const std::int64_t t : {1, 2, 8, 16, 64}) {
      CAPTURE(to_string(c), t);
      auto sp = with(c);
      sp.sequence_parallel = true;
      const auto counts = collectives_per_layer(sp);
      CHECK(counts.all_gather == 4);
      CHECK(counts.reduce_scatter == 4);
      CHECK(counts.all_reduce == 0);
      // The tree has no reduce-scatter or all-gather (NCCL neither): SP under `tree` runs
      // rings, so it matches the ring all-reduce, which is a reduce-scatter + an all-gather.
      const auto reference = c == collective_choice::tree ? collective_choice::ring : c;
      const auto plain = tp_cost_per_layer(demo, device, dgx, with(reference), t);
      const auto seq = tp_cost_per_layer(demo, device, dgx, sp, t);
      CHECK_THAT(seq.wire_bytes.value(), near(plain.wire_bytes.value(), 1e-12));
      CHECK_THAT(seq.inter_node_bytes.value(), near(plain.inter_node_bytes.value(), 1e-12));
      CHECK_THAT(seq.comm.value(), near(plain.comm.value(), 1e-12));
      // What SP changes is the activation memory.
      CHECK(seq.memory.selected == seq.memory.with_sp);
      CHECK(plain.memory.selected == plain.memory.without_sp);
      if (t > 1) {
        CHECK(seq.memory.selected < plain.memory.selected);
      }
    }
  }
}

TEST_CASE("Full recomputation: 6 collectives per layer and 96*b*s*h^2 FLOP", "[tp_layer_options]") {
  auto full = tp_options{};
  full.recompute = recompute_mode::full;
  CHECK(collectives_per_layer(full).all_reduce == 6);
  CHECK(layer_flops(demo, full).value() == 96.0 * 2 * 2048 * 8192.0 * 8192.0);
  const auto none = tp_cost_per_layer(demo, device, dgx, tp_options{}, 8);
  const auto re = tp_cost_per_layer(demo, device, dgx, full, 8);
  CHECK_THAT(re.comm.value(), near(none.comm.value() * 6.0 / 4.0, 1e-12));
  CHECK_THAT(re.compute.value(), near(none.compute.value() * 96.0 / 72.0, 1e-12));
  CHECK_THAT(re.memory.selected.value(), near(2.0 * 2048 * 2 * 8192));  // 2*s*b*h
  auto full_sp = full;
  full_sp.sequence_parallel = true;
  const auto counts = collectives_per_layer(full_sp);
  CHECK(counts.all_gather == 6);
  CHECK(counts.reduce_scatter == 6);
}

TEST_CASE("Selective recomputation changes the activation memory alone", "[tp_layer_options]") {
  auto selective = tp_options{};
  selective.recompute = recompute_mode::selective;
  auto full = tp_options{};
  full.recompute = recompute_mode::full;
  for (const std::int64_t t : {1, 2, 8, 16}) {
    CAPTURE(t);
    const auto none = tp_cost_per_layer(demo, device, dgx, tp_options{}, t);
    const auto sel = tp_cost_per_layer(demo, device, dgx, selective, t);
    const auto re = tp_cost_per_layer(demo, device, dgx, full, t);
    // The attention core it reruns holds no collective and none of the 72*b*s*h^2 FLOP.
    CHECK(sel.comm.value() == none.comm.value());
    CHECK(sel.compute.value() == none.compute.value());
    // s*b*h*(10 + 24/t): the 5*a*s/(h*t) scores term of `none` is gone (Korthikanti Table 2).
    const double sbh = 2048.0 * 2 * 8192;
    CHECK_THAT(sel.memory.without_sp.value(), near(sbh * (10.0 + 24.0 / static_cast<double>(t))));
    CHECK(re.memory.without_sp < sel.memory.without_sp);
    CHECK(sel.memory.without_sp < none.memory.without_sp);
    CHECK(sel.memory.with_sp < none.memory.with_sp);
  }
}

TEST_CASE("Overlap f = 0 is the seed's serial time, f = 1 the seed's max, exactly",
          "[tp_layer_options][metrics]") {
  for (const std::int64_t t : {1, 2, 8, 16, 32}) {
    CAPTURE(t);
    const auto seed = make_row(demo, device, t);
    auto o = tp_options{};
    o.overlap = 0.0;
    CHECK(tp_cost_per_layer(demo, device, dgx, o, t).step.value() ==
          Approx(seed.serial.value()).epsilon(1e-12));
    o.overlap = 1.0;
    const auto full = tp_cost_per_layer(demo, device, dgx, o, t);
    CHECK(full.step.value() == Approx(seed.overlapped.value()).epsilon(1e-12));
    // In between: T_calc + T_comm - f*min(T_calc, T_comm).
    o.overlap = 0.3;
    const auto part = tp_cost_per_layer(demo, device, dgx, o, t);
    CHECK_THAT(part.step.value(), near(seed.compute.value() + seed.comm.value() -
                                           0.3 * std::min(seed.compute.value(), seed.comm.value()),
                                       1e-12));
    CHECK_THAT(part.exposed_comm.value(), near(part.step.value() - part.compute.value(), 1e-12));
  }
  // The metric itself is exact at both endpoints.
  CHECK(partially_overlapped_time(seconds(0.3), seconds(0.1), 0.0) == seconds(0.3) + seconds(0.1));
  CHECK(partially_overlapped_time(seconds(0.3), seconds(0.1), 1.0) == seconds(0.3));
}

TEST_CASE("The wire dtype sets the message: fp8 halves bf16's comm, compute unchanged",
          "[tp_layer_options]") {
  const layer_spec bf16{.batch = 2, .seq = 2048, .hidden = 8192, .element = {"bf16", 2}};
  auto o = with(collective_choice::ring);
  const auto wide = tp_cost_per_layer(bf16, device, dgx, o, 8);
  o.comm_dtype = dtype{"fp8", 1};
  const auto narrow = tp_cost_per_layer(bf16, device, dgx, o, 8);
  CHECK(narrow.message.value() == 2.0 * 2048 * 8192);
  CHECK_THAT(narrow.wire_bytes.value(), near(wide.wire_bytes.value() / 2.0, 1e-12));
  CHECK(narrow.compute == wide.compute);
  // Latency does not halve: 4 all-reduces x 14 steps x 3 us stay.
  CHECK_THAT(wide.comm.value() - 2.0 * narrow.comm.value(), near(-4 * 14 * 3e-6, 1e-9));
}

TEST_CASE("Ring all-reduce in a node at the layer level: 4 x (2(t-1)*a + 2(t-1)/t*M/b)",
          "[tp_layer_options]") {
  // t=8, M = 134217728 B (fp32): 4 * (14*3 us + 1.75*134217728/450e9) = 4 * 564.0 us.
  const auto c = tp_cost_per_layer(demo, device, dgx, with(collective_choice::ring), 8);
  CHECK_THAT(c.comm.value(), near(4.0 * (14 * 3e-6 + 1.75 * 134217728.0 / 450e9)));
  CHECK_THAT(c.wire_bytes.value(), near(4.0 * 1.75 * 134217728.0));
  REQUIRE(c.collectives.size() == 1);
  CHECK(c.collectives[0].cost.steps == 14);
}

TEST_CASE("The refined sweep shows the cliff at the node boundary", "[tp_layer_options][sweep]") {
  // The README's cliff sweep: bf16, 989.4 TFLOP/s, NVLink 450 GB/s 3 us, IB 50 GB/s 10 us.
  const layer_spec bf16{.batch = 2, .seq = 2048, .hidden = 8192, .element = {"bf16", 2}};
  const device_spec h100{.peak = flops_per_second(989.4e12), .bandwidth = bytes_per_second(450e9)};
  const auto r =
      sweep_tp(bf16, h100, dgx, with(collective_choice::hierarchical), {1, 2, 4, 8, 16, 32, 64});
  REQUIRE(r.boundary.has_value());
  const auto& below = r.rows[r.boundary->last_inside];
  const auto& above = r.rows[r.boundary->first_spanning];
  CHECK(below.row.tp == 8);
  CHECK(above.row.tp == 16);
  CHECK(above.cost.collectives[0].algorithm == collective_algorithm::hierarchical);
  // Inside the node, doubling t raises T_comm by at most 2(7/8)/(2(3/4)) plus latency: < x1.3.
  CHECK(r.rows[3].row.comm / r.rows[2].row.comm < 1.3);
  // Across it, T_comm jumps by > x1.6 while T_calc halves: efficiency falls from 67% to 39%.
  CHECK(*r.boundary->comm_growth > 1.6);
  CHECK(below.row.efficiency > 0.67);
  CHECK(above.row.efficiency < 0.39);
  // Hand value at t=16, hierarchical, M = 67108864 B:
  //   intra 2*7*3 us + 1.75*M/450e9; inter 2*1*10 us + 1*(M/8)/50e9; times 4.
  const double m = 67108864.0;
  CHECK_THAT(above.row.comm.value(),
             near(4.0 * (42e-6 + 1.75 * m / 450e9 + 20e-6 + m / 8.0 / 50e9)));
  CHECK_THAT(above.cost.inter_node_bytes.value(), near(4.0 * m / 8.0));
  // A flat ring falls much further: every step at 50 GB/s.
  const auto flat = sweep_tp(bf16, h100, dgx, with(collective_choice::ring), {8, 16});
  CHECK(flat.rows[1].row.comm / flat.rows[0].row.comm > 9.0);
}

TEST_CASE("auto prices each collective as NCCL's tuner does, as step and collective do",
          "[tp_layer_options][nccl]") {
  const layer_spec bf16{.batch = 2, .seq = 2048, .hidden = 8192, .element = {"bf16", 2}};
  const device_spec h100{.peak = flops_per_second(989.4e12), .bandwidth = bytes_per_second(450e9)};
  for (const bool sp : {false, true}) {
    for (const std::int64_t t : {2, 8, 16, 64}) {
      CAPTURE(sp, t);
      auto o = with(collective_choice::automatic);
      o.sequence_parallel = sp;
      const auto c = tp_cost_per_layer(bf16, h100, dgx, o, t);
      REQUIRE(c.group.has_value());
      REQUIRE_FALSE(c.collectives.empty());
      for (const auto& use : c.collectives) {
        const auto nccl = nccl_cheapest_collective(dgx, *c.group, use.op, c.message);
        CHECK(use.algorithm == nccl.algorithm);
        CHECK_THAT(use.cost.time.value(), near(nccl.cost.time.value(), 1e-12));
      }
    }
  }
}

TEST_CASE("Options are validated with the flag's name", "[tp_layer_options][validation]") {
  const auto field_of = [](const tp_options& o) {
    try {
      validate(o);
    } catch (const invalid_spec& e) {
      return e.field();
    }
    return std::string("(no throw)");
  };
  auto o = tp_options{};
  o.overlap = 1.5;
  CHECK(field_of(o) == "overlap");
  o.overlap = -0.1;
  CHECK(field_of(o) == "overlap");
  o = {};
  o.heads = 0;
  CHECK(field_of(o) == "heads");
  CHECK(field_of(tp_options{}) == "(no throw)");
  CHECK(parse_collective_choice("auto", "f") == collective_choice::automatic);
  CHECK_THROWS_AS(parse_collective_choice("foo", "--collective"), invalid_spec);
  CHECK(parse_recompute("selective", "--recompute") == recompute_mode::selective);
  CHECK_THROWS_AS(parse_recompute("partial", "--recompute"), invalid_spec);
}

TEST_CASE("Heads default to h/128", "[tp_layer_options]") {
  CHECK(attention_heads(demo, tp_options{}) == 64);
  CHECK(attention_heads(layer_spec{.hidden = 12288}, tp_options{}) == 96);
  CHECK(attention_heads(layer_spec{.hidden = 64}, tp_options{}) == 1);
  auto o = tp_options{};
  o.heads = 40;
  CHECK(attention_heads(demo, o) == 40);
}

TEST_CASE("An FP8 compute dtype sends BF16 activations unless the wire dtype is named",
          "[tp_layer_options]") {
  layer_spec fp8 = demo;
  fp8.element = dtype{.name = "fp8", .size_bytes = 1};
  CHECK(wire_dtype(fp8, tp_options{}).name == "bf16");
  CHECK(wire_dtype(fp8, tp_options{}).size_bytes == 2);
  CHECK_FALSE(is_article_model(fp8, tp_options{}));
  tp_options fp8_comm;
  fp8_comm.comm_dtype = dtype{.name = "fp8", .size_bytes = 1};
  CHECK(wire_dtype(fp8, fp8_comm).size_bytes == 1);
  CHECK(is_article_model(fp8, fp8_comm));  // the article's d = 1, asked for
  layer_spec one_byte = demo;              // a byte count is the article's d, as given
  one_byte.element = dtype{.name = "1", .size_bytes = 1};
  CHECK(wire_dtype(one_byte, tp_options{}).size_bytes == 1);
}

TEST_CASE("A model's layer: GQA, SwiGLU and the attention scores, and its TP rule",
          "[tp_layer_options]") {
  // GPT (f = 4h, kv = a): 72*b*s*h^2 + 12*b*s^2*h, the seed's count plus the scores.
  tp_options gpt;
  gpt.model = model_preset_named("gpt-3-175b", "model").spec;
  layer_spec l = demo;
  l.hidden = gpt.model->hidden;
  const double b = 2, s = 2048, h = 12288;
  CHECK_THAT(layer_flops(l, gpt).value(), near(72 * b * s * h * h + 12 * b * s * s * h, 1e-12));
  CHECK_FALSE(is_article_model(l, gpt));
  // Llama 3 70B: 8 KV heads, a gated MLP of 28672.
  tp_options llama;
  llama.model = model_preset_named("llama-3-70b", "model").spec;
  l.hidden = 8192;
  const double H = 8192, kv = 1024, f = 28672;
  const double forward = (4 * H * H + 4 * H * kv) + 4 * s * H + 2 * 3 * H * f;
  CHECK_THAT(layer_flops(l, llama).value(), near(b * s * 3 * forward, 1e-12));
  llama.recompute = recompute_mode::full;
  CHECK_THAT(layer_flops(l, llama).value(), near(b * s * 4 * forward, 1e-12));
  llama.recompute = recompute_mode::none;
  CHECK_NOTHROW(validate_tp_for_model(llama, 8));
  CHECK_THROWS_WITH(validate_tp_for_model(llama, 16), Catch::Contains("8 KV heads"));
  CHECK_THROWS_WITH(sweep_tp(l, device, dgx, llama, {8, 16}), Catch::Contains("8 KV heads"));
}
