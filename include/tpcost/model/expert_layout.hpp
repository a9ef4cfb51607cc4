// How many tokens the experts of one GPU see under expert parallelism, as Megatron-Core's MoE
// layer moves them (core_v0.16.0 megatron/core/transformer/moe/token_dispatcher.py,
// MoEAlltoAllTokenDispatcher), with MoE parallel folding (arXiv:2504.14960): the expert groups
// EP × ETP are laid over the t·cp·d ranks of a pipeline stage, and the t·cp·d/(ep·etp) ranks
// that hold the same experts form the expert-DP group.
//
// With sequence parallelism (Megatron asserts it for MoE with t > 1, megatron/training/
// arguments.py: "When using MoE and tensor parallelism, sequence parallelism must be used")
// each rank of a TP group routes its own T = b·s/t tokens (b·s/(t·cp) with CP; the CP view of
// step/long_context.hpp passes s/cp). Each token goes to k experts: a rank sends T·k copies
// over its EP group, and with balanced routing receives T·k back for its E/ep experts; an ETP
// group then all-gathers what its etp members received, so each rank runs its E/ep experts
// (f_e/etp wide) on etp·T·k copies. The busiest rank receives `load_imbalance` times the mean
// (1.0 by default: the published benchmarks force-balance routing, Megatron
// --moe-router-force-load-balancing); a capacity factor c (Megatron --moe-expert-capacity-
// factor) drops what is beyond c times the mean, so the busiest rank sees min(imbalance, c).
#pragma once

#include <algorithm>
#include <cstdint>

#include "tpcost/model/model.hpp"

namespace tpcost {

/// How routing loads the experts: what the busiest GPU receives over the mean.
struct expert_load {
  double load_imbalance = 1.0;   ///< busiest GPU's tokens / the balanced share; >= 1
  double capacity_factor = 0.0;  ///< tokens kept per expert over the balanced share; 0: dropless
  [[nodiscard]] constexpr double factor() const {
    return capacity_factor > 0.0 ? std::min(load_imbalance, capacity_factor) : load_imbalance;
  }
};

/// The tokens of one MoE layer on one GPU, one micro-batch.
struct expert_tokens {
  double local = 0.0;          ///< T: tokens this rank routes (b·s/t)
  double copies = 0.0;         ///< T·k·load: (token, expert) copies sent and received back
  double routed = 0.0;         ///< etp·T·k·load: copies its experts process after the ETP gather
  double local_experts = 0.0;  ///< E/ep
  bool routes = false;         ///< E > 1: with one expert there is nothing to route or permute
};

/// The tokens of a micro-batch of `micro_batch` sequences of `seq` tokens on one GPU of a TP
/// group of `tp`, with expert groups `ep` × `etp` (see the file comment).
constexpr expert_tokens expert_tokens_of(const transformer_spec& spec, std::int64_t micro_batch,
                                         std::int64_t seq, std::int64_t tp, std::int64_t ep,
                                         std::int64_t etp, const expert_load& load) {
  expert_tokens x;
  if (!is_moe(spec.moe)) {
    return x;
  }
  x.local = static_cast<double>(micro_batch) * static_cast<double>(seq) / static_cast<double>(tp);
  x.copies = x.local * static_cast<double>(spec.moe.top_k) * load.factor();
  x.routed = x.copies * static_cast<double>(etp);
  x.local_experts = static_cast<double>(spec.moe.experts) / static_cast<double>(ep);
  x.routes = spec.moe.experts > 1;
  return x;
}

}  // namespace tpcost
