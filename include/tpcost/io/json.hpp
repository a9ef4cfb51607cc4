// JSON for results, through nlohmann_json. Keys carry their unit (`compute_s`, `comm_bytes`);
// values are SI numbers. The schema is documented in README.md ("JSON schema") and versioned
// by the "schema" key: a change that removes or renames a key bumps it.
#pragma once

#include <nlohmann/json.hpp>

#include "tpcost/sweep.hpp"
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
      {"model", "seed"},
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

}  // namespace tpcost
