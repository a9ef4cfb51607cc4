// Where Megatron-Core puts every rank of a layout, and what that means for each group.
//
// API (for the step model, the planner, and EP's all-to-all):
//   rank_layout layout{.tp = 8, .cp = 1, .ep = 1, .dp = 4, .pp = 2};    // order tp-cp-ep-dp-pp
//   group_placement g = place_dimension(topology, layout, parallel_dim::dp, /*stage=*/1);
//   algorithm_cost c = nccl_cheapest_collective(topology, g, collective_op::all_reduce, bytes);
//   link_spec l = p2p_link(topology, layout, /*stage=*/0);   // stage 0 -> 1, per GPU
//   group_placement e = embedding_group(topology, layout);   // first and last stage
// `group_placement` (topology.hpp) says how many members share a node (`per_node`, the most
// on any node), how many nodes and NVLink domains the group spans, and how many groups of
// the same dimension run at once on each node (`concurrent`), sharing its NICs; every cost
// in comm/ (NCCL's model, nccl_tuner.hpp) reads it.
//
// Rank order: Megatron-Core's RankGenerator numbers ranks with the first dimension of
// `--order` fastest; the default order is "tp-cp-ep-dp-pp" (NVIDIA/Megatron-LM
// megatron/core/parallel_state.py, core_r0.9.0: initialize_model_parallel(order=
// "tp-cp-ep-dp-pp")). So rank = tp + t·(cp + c·(ep + e·(dp + d·pp))), nodes hold consecutive
// ranks (torchrun's default), and the group of dimension X through a rank holds the ranks
// that differ from it only in X's coordinate, at a stride of the product of the sizes before
// X. EP is kept as its own dimension here (Megatron folds it into DP for dense layers; a
// dense layout has ep = 1).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <string>

#include "tpcost/base/error.hpp"
#include "tpcost/comm/topology.hpp"

namespace tpcost {

/// A parallel dimension of Megatron-Core.
enum class parallel_dim { tp, cp, ep, dp, pp };

/// A layout and its rank order (fastest first); Megatron's default tp-cp-ep-dp-pp.
struct rank_layout {
  std::int64_t tp = 1;
  std::int64_t cp = 1;
  std::int64_t ep = 1;
  std::int64_t dp = 1;
  std::int64_t pp = 1;
  std::array<parallel_dim, 5> order{parallel_dim::tp, parallel_dim::cp, parallel_dim::ep,
                                    parallel_dim::dp, parallel_dim::pp};

  [[nodiscard]] constexpr std::int64_t size(parallel_dim d) const {
    switch (d) {
      case parallel_dim::tp:
        return tp;
      case parallel_dim::cp:
        return cp;
      case parallel_dim::ep:
        return ep;
      case parallel_dim::dp:
        return dp;
      case parallel_dim::pp:
        return pp;
    }
    return 1;
  }
  [[nodiscard]] constexpr std::int64_t world() const { return tp * cp * ep * dp * pp; }
  /// The distance between consecutive members of a group of `d`: the product of the sizes
  /// before `d` in `order`.
  [[nodiscard]] constexpr std::int64_t stride(parallel_dim d) const {
    std::int64_t s = 1;
    for (const auto x : order) {
      if (x == d) {
        return s;
      }
      s *= size(x);
    }
    return s;
  }
};

namespace detail {
inline void require_layout(const rank_layout& layout) {
  for (const auto d : layout.order) {
    if (layout.size(d) < 1 || layout.size(d) > (std::int64_t{1} << 24)) {
      throw invalid_spec("layout", "every parallel degree must be a whole number in 1..16777216");
    }
  }
  if (layout.world() > (std::int64_t{1} << 24)) {
    throw invalid_spec("layout", "more than 16777216 GPUs");
  }
}

/// The first rank of stage `stage` (pp coordinate) with every other coordinate 0.
constexpr std::int64_t stage_base(const rank_layout& layout, std::int64_t stage) {
  return stage * layout.stride(parallel_dim::pp);
}

/// How the ranks base, base+stride, ... (n of them) fall into blocks of `block` ranks (nodes,
/// or NVLink domains): the blocks touched, the most ranks in one block, and the ranks in the
/// first rank's block. In closed form, without walking the ranks (a DP group of 2^24 ranks was
/// 2^24 map insertions, for every stage of every layout the planner tried: issue 30):
///   - stride >= block: every rank in its own block;
///   - stride < block: no block between the first and the last is skipped, and the count of a
///     block strictly between them is periodic with a period of stride/gcd(stride, block)
///     blocks (lcm(stride, block) ranks), so the first block, one period and the last block
///     hold every count there is.
struct block_spread {
  std::int64_t blocks = 0;
  std::int64_t most = 0;
  std::int64_t first = 0;
};

inline block_spread spread_over_blocks(std::int64_t base, std::int64_t stride, std::int64_t n,
                                       std::int64_t block) {
  if (n <= 0) {
    return {};
  }
  if (stride >= block || n == 1) {
    return {.blocks = n, .most = 1, .first = 1};
  }
  const std::int64_t first = base / block;
  const std::int64_t last = (base + (n - 1) * stride) / block;
  // Ranks of the progression in block k: i from ceil((k·block − base)/stride) to
  // floor(((k+1)·block − 1 − base)/stride), within [0, n).
  const auto count = [&](std::int64_t k) {
    const std::int64_t low = k * block - base;
    const std::int64_t i_lo = low <= 0 ? 0 : (low + stride - 1) / stride;
    const std::int64_t i_hi = std::min(n - 1, ((k + 1) * block - 1 - base) / stride);
    return std::max<std::int64_t>(0, i_hi - i_lo + 1);
  };
  block_spread out{.blocks = last - first + 1, .most = count(last), .first = count(first)};
  out.most = std::max(out.most, out.first);
  const std::int64_t period = stride / std::gcd(stride, block);
  for (std::int64_t k = first + 1; k < last && k <= first + period; ++k) {
    out.most = std::max(out.most, count(k));
  }
  return out;
}

/// Places the ranks base, base+stride, ... (n of them) on nodes of `g` and domains of `dom`.
inline group_placement place_ranks(const cluster_topology& topology, std::int64_t base,
                                   std::int64_t stride, std::int64_t n) {
  const std::int64_t g = topology.gpus_per_node;
  const std::int64_t dom = domain_of(topology);
  const auto nodes = spread_over_blocks(base, stride, n, g);
  const auto domains = spread_over_blocks(base, stride, n, dom);
  group_placement out;
  out.ranks = n;
  out.nodes = nodes.blocks;
  out.domains = domains.blocks;
  out.per_node = std::max<std::int64_t>(out.per_node, nodes.most);
  out.per_domain = domains.most;
  // Groups of this dimension on the first member's node: each rank of the node belongs to one.
  out.concurrent = std::max<std::int64_t>(1, g / std::max<std::int64_t>(1, nodes.first));
  return out;
}
}  // namespace detail

/// The group of dimension `dim` that holds the first rank of pipeline stage `stage` (every
/// other coordinate 0), placed on `topology`. For `pp` the stage is ignored (the pipeline
/// group through rank 0). Throws `invalid_spec` for a bad layout or stage.
inline group_placement place_dimension(const cluster_topology& topology, const rank_layout& layout,
                                       parallel_dim dim, std::int64_t stage = 0) {
  detail::require_layout(layout);
  if (stage < 0 || stage >= layout.pp) {
    throw invalid_spec(
        "stage", std::to_string(stage) + " is not a stage of pp = " + std::to_string(layout.pp));
  }
  const std::int64_t base = dim == parallel_dim::pp ? 0 : detail::stage_base(layout, stage);
  auto group = detail::place_ranks(topology, base, layout.stride(dim), layout.size(dim));
  group.concurrent =
      std::min(group.concurrent, layout.world() / std::max<std::int64_t>(1, layout.size(dim)));
  return group;
}

/// HSDP's two parts of the group of `dim` at stage `stage`: the `inner` consecutive members
/// that shard (torchtitan's dp_shard mesh dimension, inside dp_replicate; Megatron-Core's
/// intra-partial DP group, consecutive DP ranks: parallel_state.py, core_v0.16.0), or, with
/// `replicas`, the size/inner members `inner` apart that hold the same shard. `inner` must
/// divide the dimension's size.
inline group_placement place_dimension_part(const cluster_topology& topology,
                                            const rank_layout& layout, parallel_dim dim,
                                            std::int64_t stage, std::int64_t inner, bool replicas) {
  detail::require_layout(layout);
  const std::int64_t size = layout.size(dim);
  if (inner < 1 || size % inner != 0 || stage < 0 || stage >= layout.pp) {
    throw invalid_spec(
        "dp_shard", std::to_string(inner) + " does not divide a group of " + std::to_string(size));
  }
  const std::int64_t base = dim == parallel_dim::pp ? 0 : detail::stage_base(layout, stage);
  const std::int64_t n = replicas ? size / inner : inner;
  const std::int64_t stride = layout.stride(dim) * (replicas ? inner : 1);
  auto group = detail::place_ranks(topology, base, stride, n);
  group.concurrent = std::min(group.concurrent, layout.world() / std::max<std::int64_t>(1, n));
  return group;
}

/// The group of `dim` placed at every stage; the one that costs most under NCCL's model is
/// what a step waits for (DP groups of a stage that straddles nodes or racks).
inline group_placement worst_stage_group(const cluster_topology& topology,
                                         const rank_layout& layout, parallel_dim dim,
                                         collective_op op, bytes message) {
  group_placement worst = place_dimension(topology, layout, dim, 0);
  if (dim == parallel_dim::pp || layout.size(dim) <= 1) {
    return worst;
  }
  seconds slowest = nccl_cheapest_collective(topology, worst, op, message).cost.time;
  for (std::int64_t s = 1; s < layout.pp; ++s) {
    const auto g = place_dimension(topology, layout, dim, s);
    const auto t = nccl_cheapest_collective(topology, g, op, message).cost.time;
    if (t > slowest) {
      slowest = t;
      worst = g;
    }
  }
  return worst;
}

/// Whether the boundary between stage `stage` and `stage + 1` crosses a node (some rank of
/// the stage and its peer at the next stage sit on different nodes) or an NVLink domain.
struct stage_boundary {
  bool crosses_node = false;
  bool crosses_domain = false;
};
inline stage_boundary boundary_after(const cluster_topology& topology, const rank_layout& layout,
                                     std::int64_t stage) {
  detail::require_layout(layout);
  stage_boundary out;
  if (stage < 0 || stage + 1 >= layout.pp) {
    return out;
  }
  const std::int64_t s = layout.stride(parallel_dim::pp);
  const std::int64_t g = topology.gpus_per_node;
  const std::int64_t dom = domain_of(topology);
  if (layout.order.back() == parallel_dim::pp) {
    // pp slowest: the stage is the block [stage·s, (stage+1)·s) and its peers are s ranks on.
    // A peer s >= g ranks away is on another node; closer, walk the block (s < g ranks).
    out.crosses_node = s >= g;
    out.crosses_domain = s >= dom;
    for (std::int64_t r = stage * s; r < (stage + 1) * s && !out.crosses_domain && s < dom; ++r) {
      out.crosses_node = out.crosses_node || r / g != (r + s) / g;
      out.crosses_domain = r / dom != (r + s) / dom;
    }
    return out;
  }
  // Another order: walk every rank of the stage.
  for (std::int64_t r = 0; r < layout.world(); ++r) {
    if ((r / s) % layout.pp != stage) {
      continue;
    }
    out.crosses_node = out.crosses_node || r / g != (r + s) / g;
    out.crosses_domain = out.crosses_domain || r / dom != (r + s) / dom;
    if (out.crosses_domain) {
      break;
    }
  }
  return out;
}

/// The link one GPU's p2p send from stage `stage` to `stage + 1` uses: NVLink inside the
/// domain; across domains its share of the node's NICs (every GPU of the node sends at once:
/// nics · NIC / gpus_per_node, NCCL's NIC speed; the NIC's latency).
inline link_spec p2p_link(const cluster_topology& topology, const rank_layout& layout,
                          std::int64_t stage) {
  const auto b = boundary_after(topology, layout, stage);
  if (!b.crosses_domain) {
    return topology.intra;
  }
  const double nic = nccl::nic_gbs(topology.inter.bandwidth.value() / 1e9, topology.generation,
                                   topology.inter_measured) *
                     1e9;
  const double share = std::min(
      1.0, static_cast<double>(nics_of(topology)) / static_cast<double>(topology.gpus_per_node));
  return link_spec{.bandwidth = share * nic * units::B / units::s,
                   .latency = topology.inter.latency};
}

/// The slowest stage boundary's p2p link (the pipeline waits for it).
inline link_spec slowest_p2p_link(const cluster_topology& topology, const rank_layout& layout) {
  link_spec slowest = topology.intra;
  for (std::int64_t s = 0; s + 1 < layout.pp; ++s) {
    const auto l = p2p_link(topology, layout, s);
    if (l.bandwidth < slowest.bandwidth) {
      slowest = l;
    }
  }
  return slowest;
}

/// The DP group of the stage that spreads widest (most NVLink domains, then most nodes):
/// the one whose gradient sync the step waits for.
inline group_placement widest_stage_group(const cluster_topology& topology,
                                          const rank_layout& layout, parallel_dim dim) {
  group_placement widest = place_dimension(topology, layout, dim, 0);
  for (std::int64_t s = 1; s < layout.pp && dim != parallel_dim::pp; ++s) {
    const auto g = place_dimension(topology, layout, dim, s);
    if (g.domains > widest.domains || (g.domains == widest.domains && g.nodes > widest.nodes)) {
      widest = g;
    }
  }
  return widest;
}

/// Whether any stage boundary of the layout crosses a NVLink domain (p2p on the network).
inline bool any_p2p_across_domains(const cluster_topology& topology, const rank_layout& layout) {
  for (std::int64_t s = 0; s + 1 < layout.pp; ++s) {
    if (boundary_after(topology, layout, s).crosses_domain) {
      return true;
    }
  }
  return false;
}

/// The embedding all-reduce's group: the first and last stage's ranks of one (tp, cp, ep,
/// dp) coordinate, tied word embeddings (Megatron's embedding group); one rank at pp = 1.
inline group_placement embedding_group(const cluster_topology& topology,
                                       const rank_layout& layout) {
  detail::require_layout(layout);
  if (layout.pp <= 1) {
    return group_placement{};
  }
  auto g = detail::place_ranks(topology, 0, (layout.pp - 1) * layout.stride(parallel_dim::pp), 2);
  g.concurrent = std::min(g.concurrent, layout.world() / layout.pp);
  return g;
}

}  // namespace tpcost
