// JSON for the whole-step model's results (step.hpp): the time breakdown, the memory of every
// pipeline stage with the two peaks PyTorch reports, and the step's communication figures.
// `tpcost step` prints a step_result as the body of its document and `tpcost plan` each
// layout's breakdown and memory, so that both write them alike (docs/json.md). Keys carry
// their unit; values are SI numbers.
#pragma once

#include <nlohmann/json.hpp>

#include "tpcost/model/allocator.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost {

/// Every part of the critical GPU's step, seconds ("ep_comm" is 0 for a dense model).
inline void to_json(nlohmann::json& j, const step_breakdown& b) {
  j = nlohmann::json::object();
  for (const auto& part : breakdown_parts) {
    j[std::string(part.key)] = (b.*part.time).value();
  }
}

/// One pipeline stage's GPU: its layers, the terms, and the peaks PyTorch reports
/// (`max_memory_allocated`, and `max_memory_reserved` with the allocator's fragmentation).
inline void to_json(nlohmann::json& j, const stage_memory& st) {
  j = nlohmann::json{{"stage", st.stage},
                     {"layers", st.layers},
                     {"weights_bytes", st.weights.value()},
                     {"gradients_bytes", st.gradients.value()},
                     {"optimizer_bytes", st.optimizer.value()},
                     {"activations_bytes", st.activations.value()},
                     {"allocated_bytes", st.total().value()},
                     {"reserved_bytes", reserved_of(st.total()).value()}};
}

/// The fullest stage's terms and peaks, the room under the capacity, and every stage.
inline void to_json(nlohmann::json& j, const memory_report& m) {
  const auto& peak = m.peak();
  j = nlohmann::json{{"peak_stage", peak.stage},
                     {"weights_bytes", peak.weights.value()},
                     {"gradients_bytes", peak.gradients.value()},
                     {"optimizer_bytes", peak.optimizer.value()},
                     {"activations_bytes", peak.activations.value()},
                     {"total_bytes", peak.total().value()},
                     {"allocated_bytes", peak.total().value()},
                     {"reserved_bytes", m.reserved(m.peak_stage).value()},
                     {"outside_allocator_bytes", outside_allocator.value()},
                     {"capacity_bytes", m.capacity.value()},
                     {"headroom_bytes", m.headroom().value()},
                     {"fits", m.fits()},
                     {"stages", m.stages}};
}

/// What context parallelism and the precision recipe added (step.hpp, long_context_terms): the
/// exposed CP exchange as a part of the breakdown, the exchange per layer and per step, the
/// attention and linear terms, and MFU against both peaks. The CP layout and the recipe are the
/// caller's to add beside them ("context_parallel", "precision").
inline void add_long_context_json(nlohmann::json& j, const step_result& s) {
  const auto& lc = s.long_context;
  const auto& c = lc.cp_per_layer;
  const auto& u = s.peak_utilisation;
  j["breakdown_s"]["cp_exposed"] = lc.cp_exposed.value();
  j["context_parallel"] = {
      {"per_layer_micro_batch",
       {{"sent_bytes", c.sent.value()},
        {"forward_s", c.forward.value()},
        {"backward_s", c.backward.value()},
        {"exposed_s", c.exposed().value()},
        {"hidden_s", c.hidden().value()}}},
      {"per_step", {{"exposed_s", lc.cp_exposed.value()}, {"hidden_s", lc.cp_hidden.value()}}}};
  j["long_context_s"] = {{"attention_extra", lc.attention_extra.value()},
                         {"linear_saving", lc.linear_saving.value()}};
  j["mfu_bf16_peak"] = u.mfu_bf16_peak;
  j["mfu_precision_peak"] = u.mfu_precision_peak;
  j["mfu_precision_peak_rate"] = to_string(u.precision_peak);
}

/// What the step model computed: time, throughput, FLOPs, utilisation, communication before
/// overlap, memory and warnings, and with CP or an FP8/FP4 recipe what they added. The inputs
/// (layout, model, hardware, stack, the CP layout, the recipe) are the caller's to add: the
/// result does not hold them.
inline void to_json(nlohmann::json& j, const step_result& s) {
  j = nlohmann::json{
      {"fits", s.memory.fits()},
      {"step_time_s", s.step_time.value()},
      {"breakdown_s", s.time},
      {"tokens_per_s", s.tokens_per_second},
      {"model_flops_per_step", s.flops.model.value()},
      {"hardware_flops_per_step", s.flops.hardware.value()},
      {"model_tflops_per_gpu", s.model_flops_per_gpu.value() / 1e12},
      {"hardware_tflops_per_gpu", s.hardware_flops_per_gpu.value() / 1e12},
      {"mfu", s.mfu},
      {"hfu", s.hfu},
      {"utilisation", s.utilisation},
      {"communication",
       {{"tp_message_bytes", s.tp_message.value()},
        {"tp_collectives_per_layer", s.tp_collectives_per_layer},
        {"tp_comm_per_layer_s", s.tp_comm_per_layer.value()},
        {"tp_algorithm", to_string(s.tp_algorithm)},
        {"dp_bytes_per_gpu", s.dp_bytes_per_gpu.value()},
        {"dp_sync_s", s.dp_sync.value()},
        {"dp_algorithm", to_string(s.dp_algorithm)},
        {"p2p_message_bytes", s.p2p_message.value()},
        {"bubble_fraction", s.bubble_fraction}}},
      {"memory", s.memory},
      {"warnings", s.warnings},
  };
  if (s.long_context.added) {
    add_long_context_json(j, s);
  }
}

}  // namespace tpcost
