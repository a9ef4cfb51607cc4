#pragma once
// The third-round development rows (tests/reference/gb300_b200_torchtitan_rows.json: the GB300
// Megatron-Bridge performance-summary runs, SimuMax's single-node B200 BF16 validation runs and
// torchtitan's H100 FSDP runs, copied with their sources and inferred fields), predicted by the
// long-context step with each row's layout and the setup its fields spell out: the stack profile
// it names with the TP and gradient-sync overlaps it states, the GPU preset with its generation's
// efficiencies (hardware/efficiency.hpp), the preset's reference interconnect unless the row
// names one, fused attention, sequence parallelism when t > 1, and the kernels the row ran
// (kernels_of: torchtitan's eager or compiled PyTorch kernels). round3_fit.cpp fits the per-GPU
// and torchtitan efficiencies on some of them (dev_fits.hpp); the error-band validation
// (error_band_validate.cpp) takes step time against step time (the GB300 and torchtitan rows'
// from their tokens/s, by exact arithmetic), leave-one-out where a fit saw the row.
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tpcost/model/model_presets.hpp"
#include "tpcost/step/stack_profiles.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::test {

struct round3_row {
  std::string id;
  std::string gpu, precision, stack;
  bool moe = false, cp = false, ep = false, pp = false;
  double measured = 0.0, predicted = 0.0;  ///< step time, s
  [[nodiscard]] double error() const { return measured / predicted - 1.0; }
};

inline nlohmann::json round3_dev_rows() {
  const std::string path = std::string(TPCOST_REFERENCE_DIR) + "/gb300_b200_torchtitan_rows.json";
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot read " + path);
  }
  return nlohmann::json::parse(in).at("rows");
}

/// The torchtitan efficiencies a fit tries in place of efficiency.hpp's (round3_fit.cpp): η_mm
/// of the BF16 GEMMs (eager and compiled), of torchao float8's GEMMs, and PyTorch eager's
/// element-wise traffic factor (compiled rows: 1).
struct torchtitan_trial {
  double bf16_matmul = 0.5, fp8_matmul = 0.5, eager_traffic = 2.0;
};

/// The kernels a row ran: its stack's (fsdp2: PyTorch eager, or compiled where the row's
/// torch_compile says so).
inline kernel_stack kernels_of(const nlohmann::json& r) {
  if (r.at("stack").get<std::string>() != "fsdp2") {
    return kernel_stack::megatron_fused;
  }
  return r.value("torch_compile", false) ? kernel_stack::pytorch_compiled
                                         : kernel_stack::pytorch_eager;
}

/// `matmul`, when given, replaces the row's η_mm of its linear recipe (and of the BF16 GEMMs in
/// a BF16 row): what round3_fit.cpp and the leave-one-out rerun try; `titan`, the torchtitan
/// efficiencies of a torchtitan row.
inline round3_row evaluate_round3_row(const nlohmann::json& r, const double* matmul = nullptr,
                                      const torchtitan_trial* titan = nullptr) {
  const auto kernels = kernels_of(r);
  const auto& gpu = gpu_preset_by_name(r.at("gpu").get<std::string>(), "gpu");
  step_inputs in;
  const bool moe = r.contains("model_preset");
  if (moe) {
    in.model = model_preset_named(r.at("model_preset").get<std::string>(), "model").spec;
    in.model.layers = r.at("model_layers");
  } else {
    const auto& m = r.at("model");
    in.model = with_architecture({.layers = m.at("layers"),
                                  .hidden = m.at("hidden"),
                                  .heads = m.at("heads"),
                                  .kv_heads = m.at("kv_heads"),
                                  .ffn = m.at("ffn"),
                                  .vocab = m.at("vocab")},
                                 architecture::llama);
  }
  in.model.seq = r.at("seq");
  auto& par = in.par;
  par.tp = r.at("tp");
  par.pp = r.at("pp");
  par.vpp = r.at("vpp");
  par.dp = r.at("dp");
  par.ep = r.at("ep");
  par.etp = r.at("etp");
  par.micro_batch = r.at("micro_batch");
  par.global_batch = r.at("global_batch");
  par.sequence_parallel = par.tp > 1;
  par.recompute = parse_recompute(r.at("recompute").get<std::string>(), "recompute");
  par.zero = static_cast<zero_stage>(r.at("zero").get<int>());
  in.gpu = bf16_device_for(gpu, kernels);
  in.memory_capacity = gpu.memory.value;
  if (r.contains("memory_bandwidth_tb_s")) {
    in.gpu.memory_bandwidth = bytes_per_second(r.at("memory_bandwidth_tb_s").get<double>() * 1e12);
    in.memory_capacity = bytes(r.at("memory_gb").get<double>() * 1e9);
  }
  in.topology = make_topology(
      gpu, r.contains("interconnect") ? interconnect_preset_by_name(
                                            r.at("interconnect").get<std::string>(), "interconnect")
                                      : reference_interconnect(gpu));
  const auto stack = r.at("stack").get<std::string>();
  in.options = options_of(stack_profile_by_name(stack, "stack"));
  in.options.attention = attention_kernel::fused;
  in.options.tp_overlap = r.at("tp_overlap");
  in.options.dp_overlap = r.at("dp_overlap");
  in.options.dp_overlap_zero3 = r.at("dp_overlap");
  if (r.at("id").get<std::string>().rfind("mbridge", 0) == 0) {
    // The Megatron-Bridge performance recipes these rows ran: bf16 gradients on the wire and in
    // main_grad (grad_reduce_in_fp32 = False), and no fused accumulation under Megatron-FSDP
    // (stack_profiles.hpp, megatron-bridge).
    in.options.grad_wire_bytes = 2;
    in.options.state.gradients = 2.0;
    in.options.grad_accumulation_fusion = fused_accumulation::except_zero3;
    // And Transformer Engine's cross entropy (scripts/performance/utils/overrides.py).
    in.options.cross_entropy = cross_entropy_kernel::te;
  }
  if (r.at("id").get<std::string>().rfind("simumax", 0) == 0) {
    // "CE fusion on" (the rows' notes), at Megatron-Core's default impl.
    in.options.cross_entropy = cross_entropy_kernel::native;
  }
  if (moe) {
    in.options.experts.dispatcher =
        parse_token_dispatcher(r.at("dispatcher").get<std::string>(), "dispatcher");
    in.options.experts.overlap_comm = false;
  }
  in.par.cp = r.at("cp").get<std::int64_t>();
  const auto precision = r.at("precision").get<std::string>();
  in.precision = precision_device_for(
      gpu, {.linear = parse_linear_precision(precision, "precision")}, "precision", kernels);
  if (titan != nullptr && kernels != kernel_stack::megatron_fused) {
    const bool bf16 = in.precision.options.linear == linear_precision::bf16;
    in.gpu.efficiency.matmul = titan->bf16_matmul;
    in.gpu.efficiency.elementwise_traffic =
        kernels == kernel_stack::pytorch_eager ? titan->eager_traffic : 1.0;
    in.precision.linear_efficiency = bf16 ? titan->bf16_matmul : titan->fp8_matmul;
  }
  if (matmul != nullptr) {
    in.precision.linear_efficiency = *matmul;
    if (in.precision.options.linear == linear_precision::bf16) {
      in.gpu.efficiency.matmul = *matmul;
    }
  }
  const auto x = evaluate_step(in);
  return {.id = r.at("id").get<std::string>(),
          .gpu = r.at("gpu").get<std::string>(),
          .precision = precision,
          .stack = stack,
          .moe = moe,
          .cp = in.par.cp > 1,
          .ep = par.ep > 1,
          .pp = par.pp > 1,
          .measured = r.at("measured_step_s").get<double>(),
          .predicted = x.step_time.value()};
}

}  // namespace tpcost::test
