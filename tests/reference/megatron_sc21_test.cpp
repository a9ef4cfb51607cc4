// The step model against the ten weak-scaling runs of Narayanan et al. 2021 (SC21,
// arXiv:2104.04473), Table 1: GPT models of 1.7B to 1T parameters on 32 to 3,072 A100s of
// NVIDIA's Selene (DGX A100 80GB, 8x HDR InfiniBand per node).
//
// One set of defaults, no per-row tuning: the A100-SXM4-80GB and IB-HDR presets, the default
// kernel efficiencies (compute_model.hpp), and the NVLink link calibrated by tpcost's own
// `calibrate` from the published 8xA100 nccl-tests sweep in tests/data/nccl (sizes >= 64 MiB,
// as the TP messages here are 100-300 MB). Compared like with like: the paper's TFLOP/s count
// the recomputed forward pass (eq. 3, full recomputation), which is the step model's hardware
// FLOPs, so the prediction is hardware FLOPs / (N x step time).
//
// The rows' micro-batch size, interleaving depth and gradient-sync flavour are not in Table 1;
// they are inputs taken from the authors' launch script, NVIDIA/Megatron-LM
// examples/sc21/run_table_1.sh (--micro-batch-size, --num-layers-per-virtual-pipeline-stage,
// --DDP-impl), with CONFIG.sh's fp16, full ("uniform") recomputation and s = 2048.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tpcost/calibration.hpp"
#include "tpcost/presets.hpp"
#include "tpcost/step.hpp"

using namespace tpcost;

namespace {

struct launch {
  std::int64_t micro_batch;
  std::int64_t layers_per_virtual_stage;  ///< 0: plain 1F1B (v = 1)
  bool torch_ddp;  ///< PyTorch DDP overlaps the gradient sync with the last backward
};

// run_table_1.sh, in Table 1's row order.
constexpr launch launches[] = {{16, 0, true}, {16, 0, true}, {16, 0, true}, {8, 0, true},
                               {4, 0, false}, {2, 5, false}, {2, 5, false}, {1, 3, false},
                               {1, 1, false}, {1, 0, false}};

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

link_spec calibrated_nvlink() {
  const std::string name = "azure-nd-a100-v4-8gpu-all_reduce.txt";
  std::ifstream in(std::string(TPCOST_TEST_DATA_DIR) + "/nccl/" + name);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<nccl_run> runs{resolve_run(parse_nccl_tests_text(text.str(), name), {})};
  calibration_options options;
  options.min_size = 64.0 * units::MiB;
  options.segments = 1;
  return calibrate(runs, options).profile.link;
}

struct validation {
  std::vector<double> errors;  ///< (predicted − measured) / measured, per row
  [[nodiscard]] double mean_abs() const {
    double sum = 0.0;
    for (const double e : errors) {
      sum += std::fabs(e);
    }
    return sum / static_cast<double>(errors.size());
  }
  [[nodiscard]] double worst() const {
    double w = 0.0;
    for (const double e : errors) {
      w = std::max(w, std::fabs(e));
    }
    return w;
  }
};

validation validate_table_1(kernel_efficiency efficiency) {
  const auto table = read_json(std::string(TPCOST_REFERENCE_DIR) + "/megatron_sc21_table1.json");
  const auto& gpu = gpu_preset_by_name("a100-sxm4-80gb", "gpu");
  const auto& ib = interconnect_preset_by_name("ib-hdr", "interconnect");
  const auto nvlink = calibrated_nvlink();
  validation out;
  std::size_t i = 0;
  for (const auto& run : table.at("runs")) {
    const auto& l = launches[i++];
    const auto& md = run.at("model");
    const auto& pl = run.at("parallel");
    transformer_spec model{};
    model.layers = md.at("layers");
    model.hidden = md.at("hidden");
    model.heads = md.at("heads");
    model.ffn = md.at("ffn_hidden");
    model.vocab = md.at("vocab");
    model.seq = md.at("seq_len");
    model = with_architecture(model, architecture::gpt);
    step_inputs in;
    in.model = model;
    in.par.tp = pl.at("tp");
    in.par.pp = pl.at("pp");
    in.par.dp = pl.at("dp");
    in.par.global_batch = pl.at("global_batch");
    in.par.micro_batch = l.micro_batch;
    in.par.vpp = l.layers_per_virtual_stage == 0 || in.par.pp == 1
                     ? 1
                     : model.layers / in.par.pp / l.layers_per_virtual_stage;
    in.par.recompute = recompute_mode::full;
    in.gpu = {gpu.peak.fp16.value, gpu.memory_bandwidth.value, efficiency};
    in.memory_capacity = gpu.memory.value;
    in.topology = {gpu.gpus_per_node.value, nvlink, ib.link.link()};
    in.options.dp_overlap = l.torch_ddp ? 1.0 : 0.0;
    const auto result = evaluate_step(in);
    const double measured = run.at("measured").at("tflops_per_gpu").get<double>() * 1e12;
    CAPTURE(md.at("name").get<std::string>(), result.hardware_flops_per_gpu.value(), measured);
    // The model's general FLOP count is the paper's eq. (3) for these GPT models.
    CHECK_THAT(
        result.flops.hardware.value(),
        Catch::Matchers::WithinRel(
            narayanan_step_flops(model, in.par.global_batch, model.seq, true).value(), 1e-12));
    CHECK(result.memory.fits());  // every published run fitted in 80 GB
    out.errors.push_back((result.hardware_flops_per_gpu.value() - measured) / measured);
  }
  REQUIRE(out.errors.size() == 10);
  return out;
}

}  // namespace

TEST_CASE(
    "SC21 Table 1: the default A100 model predicts all ten rows, mean error <= 5%, worst "
    "<= 12%",
    "[reference][step]") {
  const auto v = validate_table_1(kernel_efficiency{});
  CAPTURE(v.errors);
  CHECK(v.mean_abs() <= 0.05);
  CHECK(v.worst() <= 0.12);
  // What the README reports (mean 1.45%, worst 3.86%): keep it from drifting unnoticed.
  CHECK(v.mean_abs() <= 0.02);
  CHECK(v.worst() <= 0.045);
}

TEST_CASE(
    "SC21 Table 1: with no constant taken from the table (evidence-only efficiencies) the "
    "bar is still met",
    "[reference][step]") {
  // eta_mm = 0.754 and eta_bw = 0.790: the A100's best measured matmul (0.86 of peak) and HBM
  // (0.90) ceilings, slowed by one factor calibrated on the 27.2 ms measured for a 22B layer by
  // Korthikanti et al. 2022 (arXiv:2205.05198, Table 4), not on Table 1.
  const auto v = validate_table_1(kernel_efficiency{.matmul = 0.754, .memory = 0.790});
  CAPTURE(v.errors);
  CHECK(v.mean_abs() <= 0.05);
  CHECK(v.worst() <= 0.12);
}
