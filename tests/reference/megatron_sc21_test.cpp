// The step model against Narayanan et al. 2021 (SC21) Table 1; see sc21.hpp for the setup.
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>

#include "sc21.hpp"

using namespace tpcost;
using namespace tpcost::reference;

namespace {
void check_rows(const std::vector<sc21_row>& rows) {
  REQUIRE(rows.size() == 10);
  for (const auto& r : rows) {
    CAPTURE(r.name, r.predicted_tflops, r.measured_tflops);
    // The model's general FLOP count is the paper's eq. (3) for these GPT models.
    CHECK_THAT(r.result.flops.hardware.value(),
               Catch::Matchers::WithinRel(r.paper_flops.value(), 1e-12));
    CHECK(r.result.memory.fits());  // every published run fitted in 80 GB
  }
}
}  // namespace

TEST_CASE(
    "SC21 Table 1: the default A100 model predicts all ten rows, mean error <= 5%, worst "
    "<= 12%",
    "[reference][step]") {
  const auto rows = evaluate_table_1(kernel_efficiency{});
  check_rows(rows);
  CHECK(mean_abs_error(rows) <= 0.05);
  CHECK(worst_error(rows) <= 0.12);
  // What the README reports (mean 1.45%, worst 3.86%): keep it from drifting unnoticed.
  CHECK(mean_abs_error(rows) <= 0.02);
  CHECK(worst_error(rows) <= 0.045);
}

TEST_CASE(
    "SC21 Table 1: with no constant taken from the table (evidence-only efficiencies) the "
    "bar is still met",
    "[reference][step]") {
  // eta_mm = 0.754 and eta_bw = 0.790: the A100's best measured matmul (0.86 of peak) and HBM
  // (0.90) ceilings, slowed by one factor calibrated on the 27.2 ms measured for a 22B layer by
  // Korthikanti et al. 2022 (arXiv:2205.05198, Table 4), not on Table 1.
  const auto rows = evaluate_table_1(kernel_efficiency{.matmul = 0.754, .memory = 0.790});
  check_rows(rows);
  CHECK(mean_abs_error(rows) <= 0.05);
  CHECK(worst_error(rows) <= 0.12);
}

namespace {
/// One 22B layer of Korthikanti et al. 2022 (arXiv:2205.05198) Table 4: t = 8, b = 4, s = 2048,
/// A100 80 GB, fp16, unfused attention; per layer, the compute and the exposed TP collectives
/// (two layer counts apart, so that the model's ends cancel).
double korthikanti_22b_layer_ms(recompute_mode mode, async_input_grad async,
                                bool sequence_parallel = false) {
  const auto& gpu = gpu_preset_by_name("a100-sxm4-80gb", "gpu");
  const auto& ib = interconnect_preset_by_name("ib-hdr", "interconnect");
  const auto per_step = [&](std::int64_t layers) {
    step_inputs in;
    in.model = with_architecture(
        transformer_spec{
            .layers = layers, .hidden = 6144, .heads = 64, .vocab = 51200, .seq = 2048},
        architecture::gpt);
    in.par.tp = 8;
    in.par.micro_batch = 4;
    in.par.global_batch = 4;
    in.par.recompute = mode;
    in.par.sequence_parallel = sequence_parallel;
    in.gpu = {gpu.peak.fp16.value, gpu.memory_bandwidth.value, kernel_efficiency{}};
    in.memory_capacity = gpu.memory.value;
    in.topology = make_topology(gpu, ib);  // NCCL's view of NVLink: 240 GB/s per A100
    in.options.attention = attention_kernel::unfused;
    in.options.input_grad_overlap = async;
    const auto r = evaluate_step(in);
    return (r.time.compute + r.time.tp_comm).value();
  };
  return (per_step(96) - per_step(48)) / 48.0 * 1e3;
}
}  // namespace

TEST_CASE(
    "Korthikanti Table 4: the 22B layer that calibrates the A100's eta_mm, with Megatron's "
    "input-gradient all-reduces behind their weight gradients",
    "[reference][step]") {
  // Table 4, without sequence parallelism: no recomputation 19.6 ms, full 27.2 ms (the η_mm
  // anchor), selective 20.9 ms. Megatron-LM of 2022 (async all-reduce since Sep 2021).
  const std::pair<recompute_mode, double> rows[] = {{recompute_mode::none, 19.6},
                                                    {recompute_mode::full, 27.2},
                                                    {recompute_mode::selective, 20.9}};
  for (const auto& [mode, measured] : rows) {
    CAPTURE(measured);
    const double async = korthikanti_22b_layer_ms(mode, async_input_grad::all);
    const double inline_all_reduce = korthikanti_22b_layer_ms(mode, async_input_grad::none);
    CAPTURE(async, inline_all_reduce);
    CHECK(std::abs(async / measured - 1.0) <= 0.03);
    // All-reducing inline, as the model did before, puts the anchor itself 8-10% slow at the
    // 240 GB/s NCCL's tuner sees on A100 NVLink.
    CHECK(inline_all_reduce / measured - 1.0 >= 0.07);
  }
}

TEST_CASE(
    "Korthikanti Table 4: sequence parallelism makes the 22B layer faster, its norms and "
    "residual kernels on s/t tokens",
    "[reference][step]") {
  // Table 4's two rows with sequence parallelism: 19.0 ms without recomputation (19.6 without
  // SP) and 20.3 ms with selective recomputation (20.9 without): SP's all-gathers and
  // reduce-scatters move the all-reduces' bytes, and the element-wise kernels between them run
  // on s/t tokens. Same A100 eta as the anchor above; nothing fitted on these rows.
  const std::pair<recompute_mode, double> rows[] = {{recompute_mode::none, 19.0},
                                                    {recompute_mode::selective, 20.3}};
  for (const auto& [mode, measured] : rows) {
    CAPTURE(measured);
    const double sp = korthikanti_22b_layer_ms(mode, async_input_grad::all, true);
    const double plain = korthikanti_22b_layer_ms(mode, async_input_grad::all);
    CAPTURE(sp, plain);
    CHECK(std::abs(sp / measured - 1.0) <= 0.04);
    CHECK(sp < plain);
  }
}
