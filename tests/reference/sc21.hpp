#pragma once
// The SC21 Table 1 rows evaluated by the step model (shared by the reference test and the
// table printer). The step model against the ten weak-scaling runs of Narayanan et al. 2021 (SC21,
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
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tpcost/comm/calibration.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::reference {

struct launch {
  std::int64_t micro_batch;
  std::int64_t layers_per_virtual_stage;  ///< 0: plain 1F1B (v = 1)
  bool torch_ddp;  ///< PyTorch DDP overlaps the gradient sync with the last backward
};

// run_table_1.sh, in Table 1's row order.
inline constexpr launch launches[] = {{16, 0, true}, {16, 0, true}, {16, 0, true}, {8, 0, true},
                                      {4, 0, false}, {2, 5, false}, {2, 5, false}, {1, 3, false},
                                      {1, 1, false}, {1, 0, false}};

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot read " + path);
  }
  return nlohmann::json::parse(in);
}

inline link_spec calibrated_nvlink() {
  const std::string name = "azure-nd-a100-v4-8gpu-all_reduce.txt";
  std::ifstream in(std::string(TPCOST_TEST_DATA_DIR) + "/nccl/" + name);
  if (!in) {
    throw std::runtime_error("cannot read the nccl-tests fixture " + name);
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<nccl_run> runs{resolve_run(parse_nccl_tests_text(text.str(), name), {})};
  calibration_options options;
  options.min_size = 64.0 * units::MiB;
  options.segments = 1;
  return calibrate(runs, options).profile.link;
}

/// One row: what was measured and what the model predicts.
struct sc21_row {
  std::string name;
  step_inputs inputs;
  step_result result;
  double measured_tflops = 0.0;   ///< per GPU, the paper's convention (recompute counted)
  double predicted_tflops = 0.0;  ///< hardware FLOPs / (N x step time)
  flops paper_flops{};            ///< eq. (3) for the row
  [[nodiscard]] double error() const {
    return (predicted_tflops - measured_tflops) / measured_tflops;
  }
};

inline std::vector<sc21_row> evaluate_table_1(kernel_efficiency efficiency) {
  const auto table = read_json(std::string(TPCOST_REFERENCE_DIR) + "/megatron_sc21_table1.json");
  const auto& gpu = gpu_preset_by_name("a100-sxm4-80gb", "gpu");
  const auto& ib = interconnect_preset_by_name("ib-hdr", "interconnect");
  const auto nvlink = calibrated_nvlink();
  std::vector<sc21_row> rows;
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
    sc21_row row;
    row.name = md.at("name").get<std::string>();
    step_inputs& in = row.inputs;
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
    row.result = evaluate_step(in);
    row.measured_tflops = run.at("measured").at("tflops_per_gpu").get<double>();
    row.predicted_tflops = row.result.hardware_flops_per_gpu.value() / 1e12;
    row.paper_flops = narayanan_step_flops(model, in.par.global_batch, model.seq, true);
    rows.push_back(std::move(row));
  }
  return rows;
}

inline double mean_abs_error(const std::vector<sc21_row>& rows) {
  double sum = 0.0;
  for (const auto& r : rows) {
    sum += std::fabs(r.error());
  }
  return sum / static_cast<double>(rows.size());
}

inline double worst_error(const std::vector<sc21_row>& rows) {
  double worst = 0.0;
  for (const auto& r : rows) {
    worst = std::max(worst, std::fabs(r.error()));
  }
  return worst;
}

}  // namespace tpcost::reference
