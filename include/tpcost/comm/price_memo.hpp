// NCCL's tuner's picks remembered across the layouts of one search. The planner prices the
// same TP collectives (an op on a group of t GPUs placed the same way, b·s·h bytes) for every
// pair with the same t and micro-batch: hundreds of pairs for an MoE model (p, d, ep, etp
// differ), each a dozen collectives, each NCCL's model for every algorithm and protocol. A memo
// keeps each answer the first time it is computed and returns it, the very value, afterwards.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "tpcost/comm/collectives.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/hardware/hardware.hpp"

namespace tpcost {

/// What nccl_group_pricer::cheapest answered, per (group placement, op, message), for one
/// topology: the owner keeps one memo per topology (the planner: one per worker and search).
/// Not thread-safe; a memo per thread.
class nccl_price_memo {
  // The key compares every field of a placement: a field added to group_placement must join
  // operator== and the hash below, or two placements that differ in it would share a price.
  static_assert(sizeof(group_placement) == 6 * sizeof(std::int64_t),
                "group_placement changed: update nccl_price_memo's key");

 public:
  struct key {
    group_placement group;
    collective_op op = collective_op::all_reduce;
    std::uint64_t message_bits = 0;  ///< the message's double, bit for bit: exact, no rounding
    friend bool operator==(const key& a, const key& b) {
      const auto& g = a.group;
      const auto& h = b.group;
      return g.ranks == h.ranks && g.per_node == h.per_node && g.nodes == h.nodes &&
             g.per_domain == h.per_domain && g.domains == h.domains &&
             g.concurrent == h.concurrent && a.op == b.op && a.message_bits == b.message_bits;
    }
  };

  [[nodiscard]] const algorithm_cost* find(const key& k) const {
    const auto it = prices_.find(k);
    return it == prices_.end() ? nullptr : &it->second;
  }
  void remember(const key& k, const algorithm_cost& cost) { prices_.emplace(k, cost); }
  [[nodiscard]] std::size_t size() const { return prices_.size(); }

 private:
  struct hash {
    std::size_t operator()(const key& k) const {
      std::uint64_t h = k.message_bits;
      const auto mix = [&h](std::uint64_t v) {  // boost::hash_combine's constant, 64-bit
        h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U);
      };
      const auto& g = k.group;
      for (const auto v : {g.ranks, g.per_node, g.nodes, g.per_domain, g.domains, g.concurrent}) {
        mix(static_cast<std::uint64_t>(v));
      }
      mix(static_cast<std::uint64_t>(k.op));
      return static_cast<std::size_t>(h);
    }
  };
  std::unordered_map<key, algorithm_cost, hash> prices_;
};

/// nccl_group_pricer with a memo: NCCL's view of the group is built only when a price is not
/// remembered yet. Without a memo it is nccl_group_pricer. Every answer is the one
/// nccl_group_pricer gives for the same op and message.
class remembering_group_pricer {
 public:
  remembering_group_pricer(const cluster_topology& topology, const group_placement& group,
                           nccl_price_memo* memo)
      : topology_(topology), group_(group), memo_(memo) {}

  [[nodiscard]] algorithm_cost cheapest(collective_op op, bytes message) const {
    if (memo_ == nullptr) {
      return pricer().cheapest(op, message);
    }
    const nccl_price_memo::key k{
        .group = group_, .op = op, .message_bits = std::bit_cast<std::uint64_t>(message.value())};
    if (const auto* known = memo_->find(k)) {
      return *known;
    }
    const auto cost = pricer().cheapest(op, message);
    memo_->remember(k, cost);
    return cost;
  }

 private:
  const nccl_group_pricer& pricer() const {
    if (!pricer_) {
      pricer_.emplace(topology_, group_);
    }
    return *pricer_;
  }
  const cluster_topology& topology_;
  group_placement group_;
  nccl_price_memo* memo_;
  mutable std::optional<nccl_group_pricer> pricer_;
};

}  // namespace tpcost
