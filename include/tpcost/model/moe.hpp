// The mixture-of-experts part of a transformer: how many experts, how many a token visits, how
// large each is, and which layers have them. Plain data; the formulas that use it are in
// model.hpp (parameters) and flops.hpp (FLOPs).
//
// An MoE layer replaces the MLP by a router (a linear layer h → E, softmax or sigmoid scores,
// top-k), `experts` routed experts of inner size `expert_ffn` and `shared_experts` experts that
// every token goes through (DeepSeekMoE, arXiv:2401.06066, Sec. 3). Every expert is an MLP of
// the model's kind (gated SwiGLU: 3 matrices; plain: 2). Which layers are MoE follows the
// configs that describe it:
//   DeepSeek-V2/V3, Kimi-K2: layer i (0-based) is MoE when i >= first_k_dense_replace and
//     i % moe_layer_freq == 0 (HF modeling_deepseek.py, DeepseekV3DecoderLayer);
//   Qwen2-MoE / Qwen3-MoE: when (i + 1) % decoder_sparse_step == 0 (HF modeling_qwen2_moe.py);
//   Llama 4: when (i + 1) % interleave_moe_layer_step == 0 (HF configuration_llama4.py,
//     moe_layers = range(step − 1, L, step));
// which is `i >= dense_layers && i % layer_freq == layer_offset`, with offset 0 (DeepSeek) or
// freq − 1 (Qwen, Llama 4). Other layers keep the dense MLP of size `transformer_spec::ffn`.
#pragma once

#include <cstdint>
#include <string>

#include "tpcost/base/error.hpp"

namespace tpcost {

/// How the router picks a token's experts: top-k over all E (groups = 1), or group-limited
/// routing, top-k within the `groups_per_token` best of `groups` contiguous groups of E/groups
/// experts. Megatron-Core core_v0.16.0 `group_limited_topk` (moe/moe_utils.py), set by
/// --moe-router-num-groups and --moe-router-group-topk; HF DeepSeek configs' n_group and
/// topk_group. DeepSeek-V3 routes within 4 of 8 groups, one group per node at EP 64 on nodes of
/// 8 ("node-limited routing", arXiv:2412.19437 Sec. 2.1.2): a token reaches at most 4 nodes.
/// Only the traffic of a dispatcher that sends a token once per node or GPU changes
/// (comm/expert_parallel.hpp); which experts compute stays balanced.
struct expert_routing {
  std::int64_t groups = 1;
  std::int64_t groups_per_token = 1;
};

/// Whether `routing` limits a token's experts to some of the groups.
constexpr bool is_group_limited(const expert_routing& routing) {
  return routing.groups > 1 && routing.groups_per_token < routing.groups;
}

/// The experts of a mixture-of-experts model; `experts == 0` is a dense model.
struct moe_spec {
  std::int64_t experts = 0;         ///< E, routed experts per MoE layer; 0 = dense
  std::int64_t top_k = 0;           ///< k, routed experts each token visits
  std::int64_t expert_ffn = 0;      ///< inner size of one routed expert
  std::int64_t shared_experts = 0;  ///< experts every token visits (DeepSeekMoE's shared experts)
  std::int64_t shared_ffn = 0;      ///< inner size of one shared expert; 0 = expert_ffn
  std::int64_t dense_layers = 0;    ///< leading layers with a dense MLP (first_k_dense_replace)
  std::int64_t layer_freq = 1;      ///< after them, MoE layers are those with i % freq == offset
  std::int64_t layer_offset = 0;    ///< 0 (DeepSeek's moe_layer_freq) or freq − 1 (Qwen, Llama 4)
  bool shared_gate = false;         ///< a sigmoid gate h → 1 scales the shared expert (Qwen2-MoE)
  expert_routing routing{};         ///< group-limited routing; 1 group: top-k over all E
};

/// Whether `moe` describes a mixture of experts (E >= 1 routed experts).
constexpr bool is_moe(const moe_spec& moe) { return moe.experts > 0; }

/// Inner size of one shared expert.
constexpr std::int64_t shared_ffn_of(const moe_spec& moe) {
  return moe.shared_ffn == 0 ? moe.expert_ffn : moe.shared_ffn;
}

/// Whether layer `i` (0-based) of the model has experts.
constexpr bool is_moe_layer(const moe_spec& moe, std::int64_t i) {
  return is_moe(moe) && i >= moe.dense_layers && moe.layer_freq >= 1 &&
         i % moe.layer_freq == moe.layer_offset;
}

/// How many of the first `layers` layers have experts: the i in [dense_layers, layers) with
/// i % freq == offset, counted in closed form (the count of such i below N is
/// ⌊N/freq⌋ + [N mod freq > offset]).
constexpr std::int64_t moe_layer_count(const moe_spec& moe, std::int64_t layers) {
  if (!is_moe(moe) || moe.layer_freq < 1 || layers <= moe.dense_layers) {
    return 0;
  }
  const auto below = [&](std::int64_t n) {
    return n / moe.layer_freq + (n % moe.layer_freq > moe.layer_offset ? 1 : 0);
  };
  return below(layers) - below(moe.dense_layers < 0 ? 0 : moe.dense_layers);
}

/// Throws `invalid_spec` naming the field ("experts", "top_k", "expert_ffn", "shared_experts",
/// "shared_ffn", "dense_layers", "layer_freq", "router_groups", "router_group_topk") when the
/// experts cannot describe a model of `layers` layers: top-k outside 1..E, an expert without a
/// size, a layer pattern with no MoE layer, routing groups that do not divide E (Megatron-Core
/// asserts it, transformer_config.py core_v0.16.0), more groups per token than groups, or too
/// few experts in a token's groups for its top-k. A dense spec (E = 0) must leave every other
/// field at its default.
inline void validate(const moe_spec& moe, std::int64_t layers) {
  constexpr std::int64_t max_count = std::int64_t{1} << 31;
  const auto in_range = [&](const char* field, std::int64_t v, std::int64_t lo, const char* what) {
    if (v < lo || v >= max_count) {
      throw invalid_spec(field, std::to_string(v) + " is out of range; " + what +
                                    " must be a whole number in " + std::to_string(lo) + ".." +
                                    std::to_string(max_count - 1));
    }
  };
  if (!is_moe(moe)) {
    if (moe.experts < 0) {
      in_range("experts", moe.experts, 0, "the number of routed experts");
    }
    if (moe.top_k != 0 || moe.expert_ffn != 0 || moe.shared_experts != 0 ||
        moe.routing.groups != 1 || moe.routing.groups_per_token != 1) {
      throw invalid_spec("experts",
                         "0 routed experts (a dense model) with top_k, expert_ffn, "
                         "shared_experts or routing groups set; give the number of experts");
    }
    return;
  }
  in_range("experts", moe.experts, 1, "the number of routed experts");
  in_range("top_k", moe.top_k, 1, "the number of experts per token");
  if (moe.top_k > moe.experts) {
    throw invalid_spec("top_k", "top-k = " + std::to_string(moe.top_k) + " is above the " +
                                    std::to_string(moe.experts) +
                                    " routed experts; a token cannot visit more experts than "
                                    "there are");
  }
  in_range("expert_ffn", moe.expert_ffn, 1, "the inner size of a routed expert");
  in_range("shared_experts", moe.shared_experts, 0, "the number of shared experts");
  in_range("shared_ffn", moe.shared_ffn, 0, "the inner size of a shared expert");
  in_range("dense_layers", moe.dense_layers, 0, "the number of leading dense layers");
  in_range("layer_freq", moe.layer_freq, 1, "the MoE layer frequency");
  if (moe.layer_offset < 0 || moe.layer_offset >= moe.layer_freq) {
    throw invalid_spec("layer_freq", "offset " + std::to_string(moe.layer_offset) +
                                         " is not in 0.." + std::to_string(moe.layer_freq - 1));
  }
  const auto& routing = moe.routing;
  in_range("router_groups", routing.groups, 1, "the number of routing groups");
  in_range("router_group_topk", routing.groups_per_token, 1, "the routing groups per token");
  if (moe.experts % routing.groups != 0) {
    throw invalid_spec("router_groups", std::to_string(routing.groups) +
                                            " routing groups do not divide the " +
                                            std::to_string(moe.experts) +
                                            " routed experts; each group holds E/groups experts");
  }
  if (routing.groups_per_token > routing.groups) {
    throw invalid_spec("router_group_topk", std::to_string(routing.groups_per_token) +
                                                " groups per token is above the " +
                                                std::to_string(routing.groups) + " routing groups");
  }
  const auto reachable = routing.groups_per_token * (moe.experts / routing.groups);
  if (reachable < moe.top_k) {
    throw invalid_spec("router_group_topk",
                       std::to_string(routing.groups_per_token) + " of " +
                           std::to_string(routing.groups) + " groups hold " +
                           std::to_string(reachable) +
                           " experts, fewer than top-k = " + std::to_string(moe.top_k));
  }
  if (moe_layer_count(moe, layers) == 0) {
    throw invalid_spec("dense_layers", std::to_string(moe.dense_layers) +
                                           " leading dense layers"
                                           " and a frequency of " +
                                           std::to_string(moe.layer_freq) + " leave none of the " +
                                           std::to_string(layers) + " layers with experts");
  }
}

}  // namespace tpcost
