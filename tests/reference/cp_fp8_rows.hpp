#pragma once
// The development rows for context parallelism and FP8 (tests/reference/cp_fp8_dev_rows.json,
// copied from the project's development set with each row's source and inferred fields),
// predicted by the long-context step (step/long_context.hpp). Shared by the reference test and
// the table printer.
//
// One profile for every Megatron-Core / NeMo row, nothing tuned per row: the GPU preset with its
// generation's default efficiencies (hardware/efficiency.hpp), IB-NDR, sequence parallelism
// when t > 1, the distributed optimizer (ZeRO-1), TP communication overlapped with the GEMMs
// (NeMo's tp_comm_overlap, TE userbuffers: --tp-overlap 1), the gradient sync overlapped with
// the backward (--overlap-grad-reduce), fused attention, no recomputation, b = 1 where the row
// gives none, CP over p2p (Megatron's default --cp-comm-type), FP8 linear layers with BF16
// attention. The torchtitan rows run the fsdp2 stack profile (ZeRO-3) with full activation
// checkpointing on a 2.4 TB/s HBM2e H100 and PyTorch's compiled kernels, and async TP where they
// name it (the 405B rows' AsyncTP: --async-tp), as they state. Compared
// like with like: a step time where the row has one, else model TFLOP/s per GPU (our model FLOPs
// count the full s×s scores, as NeMo's formula does).
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tpcost/step/stack_profiles.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::test {

struct cp_fp8_row {
  std::string id;
  std::string layout;      ///< "t4 p1 cp2 d8, fp8"
  bool step_time = false;  ///< measured is a step time in s, else TFLOP/s per GPU
  double measured = 0.0;
  double predicted = 0.0;
  double error = 0.0;   ///< > 0: predicted faster than measured
  std::string refused;  ///< the error when the row's layout is inconsistent
  double cp_exposed_s = 0.0, cp_hidden_s = 0.0;
  double mfu_bf16 = 0.0, mfu_own = 0.0;
  double mfu_dgxc = 0.0;  ///< DGX Cloud rows: the MFU on their FLOPs convention
  double measured_mfu = 0.0;
};

/// The constants a fit tries in place of the shipped ones (cp_fp8_fit.cpp): η_mm of the BF16
/// and of the FP8 GEMMs, and η_attn (efficiency.hpp), and what hidden TP costs the compute
/// (step_options::tp_contention), for every row of the set.
struct efficiency_trial {
  double bf16_matmul = 0.0, fp8_matmul = 0.0, attention = 0.0;
  double contention = hidden_tp_contention;
};

/// The rows of `set` ("fp8_rows", "cp_rows") of the development file.
inline nlohmann::json cp_fp8_set(const std::string& set) {
  std::ifstream f(std::string(TPCOST_REFERENCE_DIR) + "/cp_fp8_dev_rows.json");
  return nlohmann::json::parse(f).at(set);
}

/// `options`, when given, replaces the software half set below for every row (the stack
/// profile test, stack_dev_test.cpp); `trial`, when given, the efficiencies.
inline std::vector<cp_fp8_row> evaluate_cp_fp8_rows(const nlohmann::json& rows,
                                                    const step_options* options = nullptr,
                                                    const efficiency_trial* trial = nullptr) {
  const auto& ndr = interconnect_preset_by_name("ib-ndr", "interconnect");
  std::vector<cp_fp8_row> out;
  for (const auto& r : rows) {
    cp_fp8_row row;
    row.id = r.at("id").get<std::string>();
    const auto& gpu = gpu_preset_by_name(r.at("gpu").get<std::string>(), "gpu");
    const bool titan = row.id.rfind("torchtitan", 0) == 0;
    const bool nemotron = row.id.find("nemotron") != std::string::npos;
    step_inputs in;
    const auto seq =
        r.contains("seq") ? r.at("seq").get<std::int64_t>() : r.at("seq_len").get<std::int64_t>();
    in.model = with_architecture({.layers = r.at("layers"),
                                  .hidden = r.at("hidden"),
                                  .heads = r.at("heads"),
                                  .kv_heads = r.at("kv_heads"),
                                  .ffn = r.at("ffn"),
                                  .vocab = r.at("vocab"),
                                  .seq = seq},
                                 architecture::llama);
    in.model.gated_mlp = !nemotron;  // Nemotron-4: squared-ReLU, 2 matrices
    auto& par = in.par;
    par.tp = r.at("tp");
    par.pp = r.at("pp");
    par.dp = r.at("dp");
    par.micro_batch = r.at("micro_batch").is_null() ? 1 : r.at("micro_batch").get<std::int64_t>();
    par.global_batch = r.at("global_batch");
    par.sequence_parallel = par.tp > 1;
    par.recompute = titan ? recompute_mode::full : recompute_mode::none;
    par.zero = titan ? zero_stage::parameters : zero_stage::optimizer;
    // The torchtitan rows ran torch.compile (their notes): PyTorch's compiled kernels' η.
    const auto kernels = titan ? kernel_stack::pytorch_compiled : kernel_stack::megatron_fused;
    in.gpu = bf16_device_for(gpu, kernels);
    if (titan) {
      in.gpu.memory_bandwidth = bytes_per_second(2.4e12);  // their 96 GB HBM2e SKU
    }
    in.memory_capacity = gpu.memory.value;
    in.topology = make_topology(gpu, ndr);
    if (titan) {  // torchtitan's FSDP2 (ZeRO-3 with pipelines allowed), as its notes state
      in.options = options_of(stack_profile_by_name("fsdp2", "stack"));
    }
    in.options.attention = attention_kernel::fused;
    in.options.dp_overlap = 1.0;
    in.options.tp_overlap = titan ? 0.0 : 1.0;
    // The NeMo 2 rows' fused cross entropy (nemo/collections/llm/gpt/model/base.py and
    // nemotron.py at v2.2.0: cross_entropy_loss_fusion = True), with Transformer Engine's
    // kernels from the 25.04 performance scripts on (scripts/performance/helpers.py); the
    // Llama-2 rows ran NeMo 24.03 (unfused, and a 32k vocabulary).
    if (nemotron) {
      in.options.cross_entropy = cross_entropy_kernel::native;
    } else if (row.id.find("b200") != std::string::npos) {
      in.options.cross_entropy = cross_entropy_kernel::te;
    }
    // The torchtitan 405B rows name AsyncTP in their notes: --async-tp (stack_flags.cpp).
    if (titan && r.value("notes", std::string()).find("AsyncTP") != std::string::npos) {
      in.options.tp_overlap = 1.0;
      in.options.tp_overlap_needs_sp = true;
    }
    if (options != nullptr) {
      in.options = *options;
    }
    in.par.cp = r.at("cp").is_null() ? 1 : r.at("cp").get<std::int64_t>();
    const auto precision = r.at("precision").get<std::string>();
    const bool fp8 = precision.rfind("fp8", 0) == 0;
    in.precision = precision_device_for(
        gpu, {.linear = fp8 ? linear_precision::fp8_delayed : linear_precision::bf16}, "precision",
        kernels);
    if (trial != nullptr) {
      in.gpu.efficiency.matmul = trial->bf16_matmul;
      in.gpu.efficiency.attention = trial->attention;
      in.precision.linear_efficiency = fp8 ? trial->fp8_matmul : trial->bf16_matmul;
      in.precision.attention_efficiency = trial->attention;
      in.options.tp_contention = trial->contention;
    }
    row.layout = "t" + std::to_string(par.tp) + " p" + std::to_string(par.pp) + " cp" +
                 std::to_string(in.par.cp) + " d" + std::to_string(par.dp) + ", " +
                 (fp8 ? "fp8" : "bf16");
    try {
      const auto x = evaluate_step(in);
      const bool has_step = r.contains("measured_step_s") ||
                            (r.contains("step_time_s") && !r.at("step_time_s").is_null());
      row.step_time = has_step;
      if (has_step) {
        row.measured = r.contains("measured_step_s") ? r.at("measured_step_s").get<double>()
                                                     : r.at("step_time_s").get<double>();
        row.predicted = x.step_time.value();
        row.error = row.measured / row.predicted - 1.0;
      } else {
        row.measured = r.at("tflops_per_gpu");
        row.predicted = x.model_flops_per_gpu.value() / 1e12;
        row.error = row.predicted / row.measured - 1.0;
      }
      row.cp_exposed_s = x.long_context.cp_exposed.value();
      row.cp_hidden_s = x.long_context.cp_hidden.value();
      row.mfu_bf16 = x.peak_utilisation.mfu_bf16_peak;
      row.mfu_own = x.peak_utilisation.mfu_precision_peak;
      if (nemotron) {
        // DGX Cloud's convention (the row's flops_convention): 434.5e12 FLOP per sequence over
        // the peak of the run's precision.
        const double peak = fp8 ? gpu.peak.fp8.value.value() : gpu.peak.bf16.value.value();
        row.mfu_dgxc = 434.5e12 * static_cast<double>(par.global_batch) /
                       (x.step_time.value() * static_cast<double>(x.gpus) * peak);
        row.measured_mfu = r.at("measured_mfu");
      }
    } catch (const invalid_spec& e) {
      row.refused = e.what();
    }
    out.push_back(row);
  }
  return out;
}

inline std::vector<cp_fp8_row> cp_fp8_rows(const std::string& set,
                                           const step_options* options = nullptr) {
  return evaluate_cp_fp8_rows(cp_fp8_set(set), options);
}

}  // namespace tpcost::test
