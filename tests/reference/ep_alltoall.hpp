// The EP dispatch/combine model against arXiv:2603.07685 ("Megatron-Core MoE" technical
// report), Table 7: measured latencies of one DeepSeek-V3 layer's token dispatch and combine
// (hidden 7168, sequence 4096, 256 experts, top-8) for EP 8..64, with HybridEP and with the
// NCCL all-to-all, on GB200 NVL72 and on H100 nodes of 8 (InfiniBand between nodes). The rows
// are copied unchanged in ep_alltoall_latency_2603.07685_t7.json.
//
// Setup: 4,096 tokens per GPU (micro-batch 1 of 4,096 tokens, no TP), BF16 tokens in both
// directions, the H100-SXM and GB200-NVL72 presets' NVLink (450 and 900 GB/s per direction) and
// 72-GPU NVLink domain, one 400 Gb/s NDR NIC per H100 (IB-NDR preset, 50 GB/s); HybridEP costed
// as `deep_ep`, NCCL as `all_to_all`. DeepSeek-V3 routes group-limited, each token within 4 of
// 8 expert groups (config.json n_group 8, topk_group 4; arXiv:2412.19437 Sec. 2.1.2), which
// sets the nodes and GPUs HybridEP sends a token to (NCCL sends every copy whatever the rule).
// The kernels' rates (comm/expert_parallel.hpp nccl_all_to_all_rates, hybrid_ep_rates) are
// fitted here, per dispatcher, on its 16 rows: least squares of the relative errors,
// Nelder–Mead from the links' peaks; leave-one-out refits without each row and predicts it.
#pragma once

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nelder_mead.hpp"
#include "tpcost/comm/expert_parallel.hpp"
#include "tpcost/hardware/presets.hpp"

namespace tpcost::reference {

inline constexpr std::int64_t table7_tokens = 4096;
inline constexpr std::int64_t table7_hidden = 7168;
/// DeepSeek-V3's routed experts, routed within 4 of 8 groups as its config.json sets.
inline constexpr moe_spec table7_moe{.experts = 256,
                                     .top_k = 8,
                                     .expert_ffn = 2048,
                                     .routing = {.groups = 8, .groups_per_token = 4}};

inline cluster_topology table7_topology(bool nvl72) {
  const auto& gpu = gpu_preset_by_name(nvl72 ? "GB200-NVL72" : "H100-SXM", "gpu");
  cluster_topology t;
  t.gpus_per_node = gpu.gpus_per_node.value;
  t.intra = gpu.intra.link();
  t.inter = interconnect_preset_by_name("IB-NDR", "interconnect").link.link();
  return t;
}

struct ep_row {
  std::string op;  ///< dispatch or combine
  std::int64_t ep = 0;
  bool nvl72 = false;  ///< GB200 NVL72, else H100 nodes of 8
  token_dispatcher dispatcher = token_dispatcher::all_to_all;
  double measured_us = 0.0;
  double predicted_us = 0.0;
  double loo_us = 0.0;  ///< predicted with the rates fitted on the other rows of its dispatcher
  bool spans_nodes = false;
  cluster_topology topology;  ///< table7_topology(nvl72)
  group_placement group;      ///< the EP group placed on it
  [[nodiscard]] double error() const { return predicted_us / measured_us - 1.0; }
  [[nodiscard]] double loo_error() const { return loo_us / measured_us - 1.0; }
  /// The model's latency at `rates`, in µs.
  [[nodiscard]] double model_us(const ep_kernel_rates& rates) const {
    return ep_all_to_all(topology, group, table7_moe, table7_tokens, table7_hidden, 2.0, dispatcher,
                         rates)
               .time.value() *
           1e6;
  }
};

/// The rates of `d` fitted on `rows` (those of other dispatchers, and row `skip`, left out).
inline ep_kernel_rates fit_table_7_rates(const std::vector<ep_row>& rows, token_dispatcher d,
                                         std::size_t skip = static_cast<std::size_t>(-1)) {
  const auto rates = [d](const std::vector<double>& x) {
    ep_kernel_rates r{.nvlink = x[0], .network = x[1]};
    (d == token_dispatcher::deep_ep ? r.fixed : r.per_peer) = x[2] * units::us;
    return r;
  };
  const auto objective = [&](const std::vector<double>& x) {
    if (x[0] <= 0.0 || x[1] <= 0.0 || x[2] < 0.0) {
      return 1e30;
    }
    double sum = 0.0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i != skip && rows[i].dispatcher == d) {
        const double e = rows[i].model_us(rates(x)) / rows[i].measured_us - 1.0;
        sum += e * e;
      }
    }
    return sum;
  };
  return rates(test::nelder_mead_minimum(objective, {1.0, 1.0, 1.0}));
}

/// Table 7's rows, each predicted at its dispatcher's rates in comm/expert_parallel.hpp
/// (`predicted_us`) and, when `leave_one_out`, at the rates fitted without it (`loo_us`).
inline std::vector<ep_row> evaluate_table_7(bool leave_one_out = false) {
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
    row.topology = table7_topology(row.nvl72);
    row.group = place_group(row.topology, row.ep, "ep");
    row.spans_nodes = row.group.spans_nodes();
    row.predicted_us = row.model_us(ep_rates_of(row.dispatcher));
    rows.push_back(row);
  }
  if (leave_one_out) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      rows[i].loo_us = rows[i].model_us(fit_table_7_rates(rows, rows[i].dispatcher, i));
    }
  }
  return rows;
}

}  // namespace tpcost::reference
