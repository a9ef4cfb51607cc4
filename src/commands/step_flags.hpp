// Every input of `tpcost step` as flags: the model, the hardware, the layout and the software.
// Shared by `step` and by `check`, whose step rules (min_mfu, min_memory_headroom,
// max_step_time) evaluate the same step from a config's keys.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "options/model_options.hpp"
#include "options/step_options.hpp"
#include "report/step_report.hpp"
#include "tpcost/step/context_parallel.hpp"

namespace tpcost::cli {

/// Kept as text and read with the core's parsers; empty text means "not given".
struct step_flags {
  model_flags model;
  hardware_flags hardware;
  std::string gpus, tp, pp, dp;
  std::string cp = "1";
  std::string cp_comm_type = "p2p";
  std::string hierarchical_cp_sizes;  ///< a2a+p2p: "A,B", the a2a group and the ring
  std::string ep = "1";
  std::string etp = "1";
  std::string moe_token_dispatcher = "alltoall";
  bool overlap_moe_comm = false;
  std::string moe_load_imbalance = "1";
  std::string moe_capacity_factor;  ///< empty: dropless
  std::string cuda_graph_impl = "none";
  std::string cuda_graph_scope;  ///< empty: the whole layer (with --cuda-graph-impl)
  std::string micro_batch = "1";
  std::string global_batch;
  std::string vpp = "1";
  std::string recompute = "none";
  std::string recompute_modules;          ///< Megatron's recompute_modules; "": ["core_attn"]
  std::string recompute_method;           ///< uniform|block; "": uniform
  std::string recompute_num_layers;       ///< "": 1 (every layer its own unit)
  std::string cpu_offloading_num_layers;  ///< "": none offloaded
  bool fine_grained_offloading = false;   ///< --fine-grained-activation-offloading
  std::string offload_modules;            ///< its offload_modules; "": none given
  std::string zero;                       ///< "" = the stack's default_zero (with d > 1)
  std::string dp_replicas;                ///< HSDP's replica groups; "" = 1 (ZeRO over d)
  bool sp = false;
  bool no_sp = false;     ///< --no-sp: off even where the stack turns it on
  std::string pp_layout;  ///< "first=N,last=N" or a Megatron-Core layout string
  bool embedding_in_split = false;
  bool loss_in_split = false;
  software_flags software;
};

/// Registers the model, hardware, layout and software flags of `tpcost step` on `cmd`.
void add_step_flags(CLI::App& cmd, step_flags& flags);

/// --recompute-modules' list, checked as Megatron-Core checks it (core_v0.16.0,
/// TransformerConfig.__post_init__): known names, mla_up_proj only with MLA, and only under a
/// stack whose selective recomputation is Megatron-Core's (not torchtitan's per-op policy).
unsigned recompute_modules_for(const std::string& text, const transformer_spec& model,
                               selective_policy policy);

/// --fine-grained-activation-offloading and --offload-modules, checked as Megatron-Core checks
/// them (core_v0.16.0, TransformerConfig.__post_init__): at least one known module, attn_proj
/// only with core_attn, not with --cpu-offloading-num-layers, and only under a Megatron-Core
/// stack; --offload-modules alone (which Megatron reads only with the switch) is refused. 0 when
/// neither is given.
unsigned offload_modules_for(bool enabled, const std::string& modules,
                             const std::string& cpu_offloading_num_layers, selective_policy policy);

/// Reads --cp, --cp-comm-type and --hierarchical-cp-sizes (not checked against the model).
context_parallel to_context_parallel(const step_flags& flags);

/// Reads the flags and evaluates the step with evaluate_step (with cp > 1 or a precision
/// other than BF16 it adds the terms of step/long_context.hpp); throws `invalid_spec` naming
/// the flag.
step_report evaluate_step_flags(const step_flags& flags);

}  // namespace tpcost::cli
