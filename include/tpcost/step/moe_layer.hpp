// An MoE layer in the step model, as Megatron-Core (core_v0.16.0, megatron/core/transformer/
// moe/) runs it with MoE parallel folding: what its kernels compute on one GPU, where its
// expert groups lie, and what its token dispatch and combine cost.
//
// Per MoE layer and micro-batch, on one GPU (tokens: model/expert_layout.hpp):
//   attention, norms          as a dense layer's, under TP (and its TP collectives: half of
//                             a dense layer's, the attention's reduce-scatter/all-gather pair)
//   router                    a GEMM T × h × E (TopKRouter), replicated over TP
//   shared experts            a dense MLP of shared·f_s under TP (SharedExpertMLP), with its
//                             own TP collectives: the other half of a dense layer's
//   dispatch, combine         the all-to-all of comm/expert_parallel.hpp on the EP group: 2
//                             forward, 2 backward (2 more with full recomputation); exposed
//                             unless --overlap-moe-expert-parallel-comm hides them behind the
//                             layer's compute (Megatron's combined 1F1B overlap; default off)
//   routed experts            E/ep grouped GEMMs (TEGroupedMLP) on the copies each expert gets,
//                             each at the roofline of its own shape (compute_model.hpp)
//   ETP                       with etp > 1 the ETP group all-gathers the received copies before
//                             the experts and reduce-scatters their outputs (the dispatcher's
//                             gather_from_sequence_parallel_region over the expert-TP group):
//                             one all-gather and one reduce-scatter forward, as many backward
// With one expert and top-1 nothing is routed (no router, no permutation) and ETP = t places
// the expert as the dense MLP: the layer costs exactly a dense layer (tests/unit/moe_step_test).
//
// Placement: Megatron-Core's expert ranks are generated with order "tp-ep-dp-pp" over the same
// world, the expert tp being etp (parallel_state.py, expert_decoder RankGenerator): ETP ranks
// adjacent, EP ranks etp apart, expert-DP ranks etp·ep apart (comm/placement.hpp).
#pragma once

#include <cstdint>

#include "tpcost/comm/expert_parallel.hpp"
#include "tpcost/comm/placement.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/model/expert_layout.hpp"
#include "tpcost/model/memory.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/step/compute_model.hpp"
#include "tpcost/step/cuda_graphs.hpp"

namespace tpcost {

/// The host-bound time of one pass (forward, backward or recomputed forward) of an MoE layer on
/// one micro-batch that the GPU waits for: the alltoall and flex dispatchers copy the tokens per
/// expert to the host and synchronise before the experts (token_dispatcher.py,
/// _maybe_dtoh_and_synchronize, core_v0.16.0), because TE's GroupedLinear takes its splits as
/// a host list, so the GPU's queue drains and waits for the host to launch the layer's next few
/// dozen kernels (router, permute, grouped GEMMs, combine), too short to hide it
/// (arXiv:2603.07685: MoE layers are host-bound, which the recipes attack with CUDA graphs).
/// The one constant fitted on the 10 BF16 MoE development rows only
/// (tests/reference/moe_dev_fit.cpp, docs/moe.md), refitted when the rows took the dispatcher
/// and the recompute modules their sources set (flex/HybridEP for the five Qwen3-30B-A3B
/// recipes; layernorm and moe_act for five Qwen3-235B rows), and again when Megatron's
/// input-gradient collectives came to hide behind their weight gradients (stages.hpp; the output
/// layer's too since stop 51) and B200's BF16 eta_mm was refitted (1.189 ms), and again when
/// sequence parallelism came to split the norms and residual kernels (compute_model.hpp) and
/// the Hopper and Blackwell eta_mm were refitted with it (1.032 ms), and again when hidden TP
/// collectives came to cost the compute they hide behind (stages.hpp, tp_contention) and the
/// eta_mm were refitted with that (1.238 ms), and again when SP's backward re-gathers of the
/// GEMM inputs and the fused cross entropy came to be counted (the MoE rows running the loss
/// their recipes set) with contention and eta refitted: 1.49 ms (1.487); fitted mean |error|
/// 18.1%, worst 35.9%; leave-one-out 20.1%, worst 42.8%, against 27.7% and 80.3% without it (the
/// 10 FP8/MXFP8 rows, not fitted: 16.0% and 32.5%, against 40.4% and 80.2%). Runs that capture the
/// MoE layer in CUDA graphs lose less of it; that is not modelled (expert_options::graphs).
inline constexpr double moe_host_time_per_pass_s = 1.49e-3;

/// How the software runs the experts.
struct expert_options {
  /// Megatron-Core's --moe-token-dispatcher-type: alltoall, flex (DeepEP/HybridEP) or
  /// allgather (Megatron's default; the MoE recipes set alltoall or flex).
  token_dispatcher dispatcher = token_dispatcher::all_to_all;
  bool overlap_comm = false;  ///< --overlap-moe-expert-parallel-comm (default off)
  expert_load load{};         ///< load imbalance and capacity factor (expert_layout.hpp)
  /// The host-bound time per pass of an MoE layer that routes (moe_host_time_per_pass_s).
  seconds host_time_per_pass{moe_host_time_per_pass_s};
  /// Megatron-Core's --cuda-graph-impl and --cuda-graph-scope (step/cuda_graphs.hpp): read,
  /// checked and reported, not costed. Splitting the host time into the dispatcher's sync and
  /// the launches that graphs remove did not improve the development rows (docs/moe.md).
  cuda_graphs graphs{};
};

/// The MLP part of one MoE layer on one GPU of a TP group of `tp` with expert groups ep × etp.
constexpr mlp_block moe_mlp_block(const transformer_spec& model, std::int64_t tp, std::int64_t ep,
                                  std::int64_t etp, const expert_tokens& tokens,
                                  token_dispatcher dispatcher = token_dispatcher::all_to_all) {
  const auto& moe = model.moe;
  const auto params = moe_params_per_layer(model);
  mlp_block b;
  b.ffn = static_cast<double>(moe.shared_experts * shared_ffn_of(moe));
  b.routed_tokens = tokens.routed;
  b.local_experts = tokens.local_experts;
  b.expert_ffn = static_cast<double>(moe.expert_ffn) / static_cast<double>(etp);
  if (tokens.routes) {
    b.router_tokens = tokens.local;
    b.router_width = static_cast<double>(moe.experts);
    b.permuted_copies = tokens.copies;
    // The alltoall dispatcher sorts what it received by local expert (and back); DeepEP
    // (flex) receives each token once and permutes it to its experts in the one permute.
    if (dispatcher == token_dispatcher::all_to_all && tokens.local_experts > 1.0) {
      b.sorted_copies = tokens.routed;
    }
  }
  b.params_here =
      static_cast<double>(params.shared) / static_cast<double>(tp) +
      static_cast<double>(params.router) +
      static_cast<double>(params.routed) / static_cast<double>(ep) / static_cast<double>(etp);
  return b;
}

/// One MoE layer's kernel times on one GPU of a TP group of `tp` for one micro-batch: the layer
/// of layer_compute_time with the MLP part of moe_mlp_block, plus the host-bound time of each
/// pass (forward, backward; a recomputed forward repeats the forward's) when the layer routes;
/// with `sequence_parallel` or without (layer_compute_time).
constexpr layer_compute moe_layer_compute(const transformer_spec& model, std::int64_t micro_batch,
                                          std::int64_t tp, std::int64_t ep, std::int64_t etp,
                                          const expert_tokens& tokens, const compute_device& gpu,
                                          attention_kernel attention, const expert_options& options,
                                          bool sequence_parallel = false) {
  auto k = layer_compute_time(model, micro_batch, tp, gpu, attention,
                              moe_mlp_block(model, tp, ep, etp, tokens, options.dispatcher),
                              sequence_parallel);
  if (tokens.routes) {
    k.other_forward += options.host_time_per_pass;
    k.backward += options.host_time_per_pass;
  }
  return k;
}

/// The folded expert ranks of a layout of `tp`·`dp` ranks per stage (dp holds d·cp in the CP
/// view) and `pp` stages, in Megatron-Core's expert order tp-ep-dp-pp with tp = etp.
constexpr rank_layout expert_rank_layout(std::int64_t tp, std::int64_t dp, std::int64_t pp,
                                         std::int64_t ep, std::int64_t etp) {
  return {.tp = etp, .cp = 1, .ep = ep, .dp = tp * dp / (ep * etp), .pp = pp};
}

/// One dispatch (or combine) of an MoE layer, with where it runs.
struct ep_exchange {
  ep_all_to_all_cost cost;  ///< on the busiest GPU: load-scaled bytes and time
  group_placement group;    ///< the EP group, as placed
};

/// The dispatch (or combine) of one micro-batch on the EP group `group`: each GPU sends its T
/// tokens' copies (comm/expert_parallel.hpp); the busiest GPU receives `load.factor()` times the
/// balanced share, so the bandwidth part scales by it.
inline ep_exchange ep_exchange_of(const cluster_topology& topology, const group_placement& group,
                                  const transformer_spec& model, const expert_tokens& tokens,
                                  int activation_bytes, const expert_options& options) {
  ep_exchange out;
  out.group = group;
  const auto balanced =
      ep_all_to_all(topology, group, model.moe, static_cast<std::int64_t>(tokens.local),
                    model.hidden, static_cast<double>(activation_bytes), options.dispatcher);
  if (group.ranks == 1) {
    return out;
  }
  // An all-gather sends every token everywhere whatever the routing: no GPU receives more.
  const double f = options.dispatcher == token_dispatcher::all_gather ? 1.0 : options.load.factor();
  out.cost.latency = balanced.latency;
  out.cost.time = balanced.latency + f * (balanced.time - balanced.latency);
  out.cost.intra_node_bytes = f * balanced.intra_node_bytes;
  out.cost.inter_node_bytes = f * balanced.inter_node_bytes;
  return out;
}

}  // namespace tpcost
