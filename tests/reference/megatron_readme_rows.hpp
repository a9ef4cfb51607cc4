#pragma once
// The nine H100 rows of the Megatron-LM README (megatron_readme_h100_rows.json), predicted with
// a given software half: shared by the stack profile test (stack_dev_test.cpp) and the
// error-band validation (error_band_validate.cpp).
#include <string>
#include <vector>

#include "sc21.hpp"
#include "tpcost/step/stack_profiles.hpp"

namespace tpcost::reference {

/// megatron-core with the three overlap flags, as resolve_stack (src/options/stack_flags.cpp) sets
/// them.
inline step_options megatron_core_overlapped() {
  auto o = options_of(stack_profile_by_name("megatron-core", "stack"));
  o.tp_overlap = 1.0;
  o.dp_overlap = 1.0;
  o.dp_overlap_zero3 = 1.0;
  return o;
}

struct readme_row {
  std::string id;
  double measured = 0.0, predicted = 0.0;  ///< model TFLOP/s per GPU
  bool fits = false;
  std::int64_t pp = 1;  ///< the row's pipeline degree
  [[nodiscard]] double error() const { return predicted / measured - 1.0; }
};

/// The nine Megatron-LM README H100 rows. What the README does not give is set as Megatron-Core
/// would run it: the GPT MLP of 4h (arguments.py: ffn_hidden_size = 4 * hidden_size), b = 1,
/// SP with TP, no recomputation, the distributed optimizer (--overlap-param-gather needs it),
/// v = 1, the H100-SXM preset with its generation's efficiencies, IB-NDR.
inline std::vector<readme_row> readme_rows(const step_options& options) {
  const auto table =
      read_json(std::string(TPCOST_REFERENCE_DIR) + "/megatron_readme_h100_rows.json");
  const auto& gpu = gpu_preset_by_name("h100-sxm", "gpu");
  const auto& ndr = interconnect_preset_by_name("ib-ndr", "interconnect");
  std::vector<readme_row> out;
  for (const auto& run : table.at("runs")) {
    const auto& md = run.at("model");
    const auto& pl = run.at("parallel");
    step_inputs in;
    in.model = with_architecture({.layers = md.at("layers"),
                                  .hidden = md.at("hidden"),
                                  .heads = md.at("heads"),
                                  .vocab = md.at("vocab"),
                                  .seq = md.at("seq_len")},
                                 architecture::gpt);
    in.par.tp = pl.at("tp");
    in.par.pp = pl.at("pp");
    in.par.dp = pl.at("dp");
    in.par.micro_batch = 1;
    in.par.global_batch = pl.at("global_batch");
    in.par.sequence_parallel = in.par.tp > 1;
    in.par.zero = zero_stage::optimizer;
    in.gpu = bf16_device_for(gpu);
    in.memory_capacity = gpu.memory.value;
    in.topology = make_topology(gpu, ndr);
    in.options = options;
    const auto r = evaluate_step(in);
    out.push_back({run.at("id").get<std::string>(),
                   run.at("measured").at("tflops_per_gpu").get<double>(),
                   r.model_flops_per_gpu.value() / 1e12, r.memory.fits(), in.par.pp});
  }
  return out;
}

}  // namespace tpcost::reference
