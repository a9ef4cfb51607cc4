#pragma once
// The MoE rows of the development set (moe_dev_rows.json: Megatron-LM MoE recipes and
// Megatron-MoE-ModelZoo, copied with their citations), predicted by the step with experts, each
// with its stated layout and nothing tuned per row: megatron-core's stack profile, the GPU
// preset with its generation's efficiencies (hardware/efficiency.hpp), the preset's
// interconnect, Megatron-LM's FLOP count (--mfu-flops megatron), balanced routing as the
// benchmarks force it; a row's CP and uneven end stages where it gives them (the fourth-round
// rows of moe_cp_dev_rows.json), its VPP and embedding/loss slots where its command sets them.
// Shared by the reference test (moe_dev_test.cpp), the fit of the MoE layer's host time
// (moe_dev_fit.cpp) and the error-band validation.
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tpcost/model/model_presets.hpp"
#include "tpcost/model/recompute_recipe.hpp"
#include "tpcost/step/stack_profiles.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::test {

struct moe_row {
  std::string id;
  std::string precision;                   ///< the row's linear-layer recipe
  double measured = 0.0, predicted = 0.0;  ///< model TFLOP/s per GPU (Megatron's count)
  [[nodiscard]] double error() const { return predicted / measured - 1.0; }
};

inline nlohmann::json moe_dev_runs() {
  const std::string path = std::string(TPCOST_REFERENCE_DIR) + "/moe_dev_rows.json";
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot read " + path);
  }
  return nlohmann::json::parse(in).at("runs");
}

/// A row's CUDA graphs: its "cuda_graph_impl" and "cuda_graph_scope" (the recipe's keys), none
/// where absent.
inline cuda_graphs cuda_graphs_of(const nlohmann::json& run) {
  cuda_graphs g;
  g.impl =
      parse_cuda_graph_impl(run.value("cuda_graph_impl", std::string("none")), "cuda_graph_impl");
  return parse_cuda_graph_scope(run.value("cuda_graph_scope", std::string()), g,
                                "cuda_graph_scope");
}

/// Every row of `runs`; `host_time`, when >= 0, replaces the MoE layer's host-bound time per
/// pass (moe_layer.hpp, moe_host_time_per_pass_s; in seconds) for the fit.
inline std::vector<moe_row> evaluate_moe_rows(const nlohmann::json& runs, double host_time = -1.0) {
  std::vector<moe_row> out;
  for (const auto& run : runs) {
    const auto& pl = run.at("parallel");
    const auto& gpu = gpu_preset_by_name(run.at("gpu").get<std::string>(), "gpu");
    step_inputs in;
    in.model = model_preset_named(run.at("model").get<std::string>(), "model").spec;
    in.model.seq = run.at("seq");
    in.par.tp = pl.at("tp");
    in.par.pp = pl.at("pp");
    in.par.dp = pl.at("dp");
    in.par.ep = pl.at("ep");
    in.par.etp = pl.at("etp");
    in.par.micro_batch = pl.at("micro_batch");
    in.par.global_batch = pl.at("global_batch");
    const std::int64_t ends = pl.at("end_stage_layers");
    if (ends > 0) {
      in.par.first_stage_layers = ends;
      in.par.last_stage_layers = ends;
    }
    // The rows whose commands give VPP with the embedding and the loss each a layer's slot
    // (their pipeline_source): the interleaved schedule on equal chunks of slots.
    in.par.vpp = pl.value("vpp", std::int64_t{1});
    in.par.embedding_in_split = pl.value("embedding_in_split", false);
    in.par.loss_in_split = pl.value("loss_in_split", false);
    // moe_cp_dev_rows.json: the end stages apart, and CP.
    in.par.first_stage_layers = pl.value("first_stage_layers", in.par.first_stage_layers);
    in.par.last_stage_layers = pl.value("last_stage_layers", in.par.last_stage_layers);
    in.par.cp = pl.value("cp", std::int64_t{1});
    in.par.sequence_parallel = in.par.tp > 1;
    in.par.recompute = parse_recompute(run.at("recompute").get<std::string>(), "recompute");
    in.par.zero = zero_stage::optimizer;
    in.gpu = bf16_device_for(gpu);
    in.memory_capacity = gpu.memory.value;
    in.topology = make_topology(gpu, reference_interconnect(gpu));
    in.options = options_of(stack_profile_by_name("megatron-core", "stack"));
    in.options.mfu_flops = flops_convention::megatron;
    // Selective recomputation of the modules the row's source names (recompute_source).
    if (run.contains("recompute_modules")) {
      in.options.recompute.modules = parse_recompute_modules(
          run.at("recompute_modules").get<std::string>(), "recompute_modules");
    }
    in.options.experts.dispatcher =
        parse_token_dispatcher(run.at("dispatcher").get<std::string>(), "dispatcher");
    in.options.experts.overlap_comm = run.at("overlap_moe_comm");
    in.options.experts.graphs = cuda_graphs_of(run);  // read, not costed (moe_layer.hpp)
    // The cross entropy the row's recipe sets (cross_entropy_source); the fourth-round rows,
    // whose sources do not say, Megatron-Core's default (unfused).
    in.options.cross_entropy =
        value_named(cross_entropy_kernel_names, run.value("cross_entropy", std::string("unfused")))
            .value();
    if (host_time >= 0.0) {
      in.options.experts.host_time_per_pass = seconds(host_time);
    }
    const auto precision = run.value("precision", std::string("bf16"));
    in.precision = precision_device_for(
        gpu, {.linear = parse_linear_precision(precision, "precision")}, "precision");
    const auto r = evaluate_step(in);
    out.push_back({run.at("id").get<std::string>(), precision,
                   run.at("measured").at("tflops_per_gpu").get<double>(),
                   r.model_flops_per_gpu.value() / 1e12});
  }
  return out;
}

}  // namespace tpcost::test
