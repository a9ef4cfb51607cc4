// JSON for results, through nlohmann_json. Keys carry their unit (`compute_s`, `comm_bytes`);
// values are SI numbers. The schema is documented in README.md ("JSON schema") and versioned
// by the "schema" key: a change that removes or renames a key bumps it.
#pragma once

#include <nlohmann/json.hpp>

#include "tpcost/layer/sweep.hpp"
#include "tpcost/version.hpp"

namespace tpcost {

inline void to_json(nlohmann::json& j, const scaling_row& row) {
  j = nlohmann::json{
      {"tp", row.tp},
      {"compute_s", row.compute.value()},
      {"comm_s", row.comm.value()},
      {"serial_s", row.serial.value()},
      {"overlapped_s", row.overlapped.value()},
      {"ratio", row.ratio},
      {"efficiency", row.efficiency},
      {"comm_share", row.comm_share},
      {"speedup", row.speedup},
  };
}

inline void to_json(nlohmann::json& j, const sweep_result& r) {
  j = nlohmann::json{
      {"schema", "tpcost.sweep/1"},
      {"tool", {{"name", "tpcost"}, {"version", TPCOST_VERSION}}},
      {"model", "article"},
      {"inputs",
       {{"batch", r.layer.batch},
        {"seq", r.layer.seq},
        {"hidden", r.layer.hidden},
        {"dtype", r.layer.element.name},
        {"dtype_bytes", r.layer.element.size_bytes},
        {"flops_per_s", r.device.peak.value()},
        {"bandwidth_bytes_per_s", r.device.bandwidth.value()},
        {"min_efficiency", r.efficiency_target}}},
      {"per_layer",
       {{"message_bytes", r.message.value()},
        {"comm_bytes", r.comm_bytes.value()},
        {"flops", r.layer_flops.value()},
        {"single_gpu_compute_s", r.single_gpu_compute.value()},
        {"comm_s", r.comm.value()}}},
      {"rows", r.rows},
      {"summary",
       {{"critical_tp", r.critical_tp},
        {"tp_bound_for_min_efficiency", r.tp_bound_for_target},
        {"largest_swept_tp_meeting_min_efficiency", nullptr},
        {"utilisation_at_that_tp", nullptr}}},
  };
  if (r.best_swept_tp) {
    j["summary"]["largest_swept_tp_meeting_min_efficiency"] = *r.best_swept_tp;
    j["summary"]["utilisation_at_that_tp"] = r.utilisation_at_best;
  }
}

namespace detail {
inline nlohmann::json link_json(const link_spec& link, bool given) {
  return nlohmann::json{
      {"bandwidth_bytes_per_s", given ? nlohmann::json(link.bandwidth.value()) : nullptr},
      {"latency_s", link.latency.value()}};
}
}  // namespace detail

inline void to_json(nlohmann::json& j, const collective_cost& c) {
  j = nlohmann::json{{"time_s", c.time.value()},
                     {"wire_bytes", c.wire_bytes.value()},
                     {"inter_node_bytes", c.inter_node_bytes.value()},
                     {"steps", c.steps},
                     {"nic_bytes", c.nic_bytes.value()},
                     {"protocol", to_string(c.protocol)}};
}

inline void to_json(nlohmann::json& j, const collective_use& u) {
  j = nlohmann::json(u.cost);
  j["op"] = to_string(u.op);
  j["count"] = u.count;
  j["algorithm"] = to_string(u.algorithm);
}

inline void to_json(nlohmann::json& j, const refined_row& r) {
  to_json(j, r.row);
  const auto& c = r.cost;
  j["step_s"] = c.step.value();
  j["exposed_comm_s"] = c.exposed_comm.value();
  j["nodes"] = c.group ? nlohmann::json(c.group->nodes) : nullptr;
  j["gpus_per_node_in_group"] = c.group ? nlohmann::json(c.group->per_node) : nullptr;
  j["wire_bytes"] = c.wire_bytes.value();
  j["inter_node_bytes"] = c.inter_node_bytes.value();
  j["collectives"] = c.collectives;
  j["activation_bytes"] = c.memory.selected.value();
  j["activation_bytes_without_sp"] = c.memory.without_sp.value();
  j["activation_bytes_with_sp"] = c.memory.with_sp.value();
}

/// The refined sweep: the seed's keys (`per_layer.comm_s`, `summary.critical_tp` and
/// `summary.tp_bound_for_min_efficiency` are null: T_comm is no longer the same at every t)
/// plus the refined model's inputs, per-row costs and summary.
inline void to_json(nlohmann::json& j, const refined_sweep_result& r) {
  const bool alpha_beta = r.options.collective != collective_choice::article;
  j = nlohmann::json{
      {"schema", "tpcost.sweep/1"},
      {"tool", {{"name", "tpcost"}, {"version", TPCOST_VERSION}}},
      {"model", "refined"},
      {"inputs",
       {{"batch", r.layer.batch},
        {"seq", r.layer.seq},
        {"hidden", r.layer.hidden},
        {"heads", r.heads},
        {"dtype", r.layer.element.name},
        {"dtype_bytes", r.layer.element.size_bytes},
        {"comm_dtype", r.wire.name},
        {"comm_dtype_bytes", r.wire.size_bytes},
        {"flops_per_s", r.device.peak.value()},
        {"bandwidth_bytes_per_s", r.device.bandwidth.value()},
        {"bandwidth_kind", alpha_beta ? nlohmann::json(nullptr)
                                      : nlohmann::json(to_string(r.options.article_bandwidth))},
        {"collective", to_string(r.options.collective)},
        {"sequence_parallel", r.options.sequence_parallel},
        {"recompute", to_string(r.options.recompute)},
        {"overlap", r.options.overlap},
        {"min_efficiency", r.efficiency_target},
        {"topology", nullptr}}},
      {"per_layer",
       {{"message_bytes", r.message.value()},
        {"comm_bytes",
         static_cast<double>(r.collectives.all_reduce_equivalents()) * r.message.value()},
        {"flops", r.layer_flops.value()},
        {"flops_coefficient", flops_coefficient(r.options)},
        {"single_gpu_compute_s", r.single_gpu_compute.value()},
        {"comm_s", nullptr},
        {"collectives",
         {{"all_reduce", r.collectives.all_reduce},
          {"all_gather", r.collectives.all_gather},
          {"reduce_scatter", r.collectives.reduce_scatter}}}}},
      {"rows", r.rows},
      {"summary",
       {{"critical_tp", nullptr},
        {"tp_bound_for_min_efficiency", nullptr},
        {"largest_swept_tp_meeting_min_efficiency", nullptr},
        {"utilisation_at_that_tp", nullptr},
        {"first_swept_tp_comm_over_compute", nullptr},
        {"node_boundary", nullptr}}},
  };
  if (alpha_beta) {
    j["inputs"]["topology"] = {
        {"gpus_per_node", r.topology.gpus_per_node},
        {"intra", detail::link_json(r.topology.intra, true)},
        {"inter", detail::link_json(r.topology.inter, r.topology.inter.bandwidth.value() > 0.0)}};
  }
  auto& summary = j["summary"];
  if (r.best_swept_tp) {
    summary["largest_swept_tp_meeting_min_efficiency"] = *r.best_swept_tp;
    summary["utilisation_at_that_tp"] = r.utilisation_at_best;
  }
  if (r.first_tp_comm_over_compute) {
    summary["first_swept_tp_comm_over_compute"] = *r.first_tp_comm_over_compute;
  }
  if (r.boundary) {
    summary["node_boundary"] = {
        {"last_tp_inside_a_node", r.rows[r.boundary->last_inside].row.tp},
        {"first_tp_spanning_nodes", r.rows[r.boundary->first_spanning].row.tp},
        {"comm_growth", r.boundary->comm_growth ? nlohmann::json(*r.boundary->comm_growth)
                                                : nlohmann::json(nullptr)}};
  }
}

inline void to_json(nlohmann::json& j, const collective_comparison& c) {
  j = nlohmann::json{
      {"schema", "tpcost.collective/1"},
      {"tool", {{"name", "tpcost"}, {"version", TPCOST_VERSION}}},
      {"inputs",
       {{"op", to_string(c.op)},
        {"size_bytes", c.message.value()},
        {"ranks", c.group.ranks},
        {"topology",
         {{"gpus_per_node", c.topology.gpus_per_node},
          {"intra", detail::link_json(c.topology.intra, true)},
          {"inter",
           detail::link_json(c.topology.inter, c.topology.inter.bandwidth.value() > 0.0)}}}}},
      {"placement",
       {{"nodes", c.group.nodes},
        {"gpus_per_node_in_group", c.group.per_node},
        {"nvlink_domains", resolved(c.group).domains},
        {"nics_per_node", nics_of(c.topology)}}},
      {"cheapest", to_string(c.cheapest)},
      {"results", nlohmann::json::array()},
  };
  for (const auto& row : c.rows) {
    nlohmann::json r = row.cost;
    r["algorithm"] = to_string(row.algorithm);
    r["algbw_bytes_per_s"] = row.algbw ? nlohmann::json(row.algbw->value()) : nullptr;
    r["busbw_bytes_per_s"] = row.busbw ? nlohmann::json(row.busbw->value()) : nullptr;
    j["results"].push_back(r);
  }
}

}  // namespace tpcost
