// The EP dispatch/combine model against arXiv:2603.07685 ("Megatron-Core MoE" technical
// report), Table 7: measured latencies of one DeepSeek-V3 layer's token dispatch and combine
// (hidden 7168, sequence 4096, 256 experts, top-8) for EP 8..64, with HybridEP and with the
// NCCL all-to-all, on GB200 NVL72 and on H100 nodes of 8 (InfiniBand between nodes). The rows
// are copied unchanged in ep_alltoall_latency_2603.07685_t7.json.
//
// Setup (nothing fitted to the table): 4,096 tokens per GPU (micro-batch 1 of 4,096 tokens, no
// TP), BF16 tokens in both directions, the H100-SXM and GB200-NVL72 presets' NVLink (450 and
// 900 GB/s per direction) and 72-GPU NVLink domain, one 400 Gb/s NDR NIC per H100 (IB-NDR
// preset, 50 GB/s); HybridEP costed as `deep_ep`, NCCL as `all_to_all`.
#pragma once

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tpcost/comm/expert_parallel.hpp"
#include "tpcost/hardware/presets.hpp"

namespace tpcost::reference {

struct ep_row {
  std::string op;  ///< dispatch or combine
  std::int64_t ep = 0;
  bool nvl72 = false;  ///< GB200 NVL72, else H100 nodes of 8
  token_dispatcher dispatcher = token_dispatcher::all_to_all;
  double measured_us = 0.0;
  double predicted_us = 0.0;
  bool spans_nodes = false;
  [[nodiscard]] double error() const { return predicted_us / measured_us - 1.0; }
};

inline constexpr std::int64_t table7_tokens = 4096;
inline constexpr std::int64_t table7_hidden = 7168;
inline constexpr moe_spec table7_moe{.experts = 256, .top_k = 8, .expert_ffn = 2048};

inline cluster_topology table7_topology(bool nvl72) {
  const auto& gpu = gpu_preset_by_name(nvl72 ? "GB200-NVL72" : "H100-SXM", "gpu");
  cluster_topology t;
  t.gpus_per_node = gpu.gpus_per_node.value;
  t.intra = gpu.intra.link();
  t.inter = interconnect_preset_by_name("IB-NDR", "interconnect").link.link();
  return t;
}

inline std::vector<ep_row> evaluate_table_7() {
  std::ifstream in(std::string(TPCOST_REFERENCE_DIR) + "/ep_alltoall_latency_2603.07685_t7.json");
  const auto doc = nlohmann::json::parse(in);
  std::vector<ep_row> rows;
  for (const auto& r : doc.at("rows")) {
    ep_row row;
    row.op = r.at("op").get<std::string>();
    row.ep = r.at("ep").get<std::int64_t>();
    row.nvl72 = r.at("gpu").get<std::string>().find("NVL72") != std::string::npos;
    row.dispatcher = r.at("implementation").get<std::string>() == "HybridEP"
                         ? token_dispatcher::deep_ep
                         : token_dispatcher::all_to_all;
    row.measured_us = r.at("latency_us").get<double>();
    const auto topology = table7_topology(row.nvl72);
    const auto group = place_group(topology, row.ep, "ep");
    row.spans_nodes = group.spans_nodes();
    const auto cost = ep_all_to_all(topology, group, table7_moe, table7_tokens, table7_hidden, 2.0,
                                    row.dispatcher);
    row.predicted_us = cost.time.value() * 1e6;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace tpcost::reference
