// Where a TP group sits in a cluster of nodes, which links it uses, and what its collectives
// cost there.
//
// A group of `n` GPUs with `n <= gpus_per_node` fits in one node and uses the intra-node link.
// A larger group must fill whole nodes (`n` a multiple of `gpus_per_node`) and pays the
// inter-node link, in one of two ways:
//  - flat (`ring`, `tree`): one ring or tree over all n GPUs; each step runs in lock-step, so
//    every step is paced by the slowest hop: α = max(α_intra, α_inter), β = min(β_intra,
//    β_inter);
//  - `hierarchical`: reduce-scatter inside each node, the collective across nodes on the
//    inter-node link over M/g bytes per GPU, all-gather inside each node (collectives.hpp).
// `cheapest_collective` ("auto") takes the cheapest per message, as NCCL's tuner does. The
// hierarchical algorithm is never slower than the flat ring, whatever the two links
// (docs/formulas.md), so across nodes auto picks it, or the tree for small messages; the flat
// ring is what `--collective ring` asks for: the pessimistic single-ring bound.
//
// `cluster_topology` (hardware.hpp) is plain data that a preset or a config file can fill. An
// `inter.bandwidth` of zero means "no inter-node link given": a group that spans nodes is
// then rejected with a message naming --inter-bandwidth.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpcost/base/error.hpp"
#include "tpcost/comm/collectives.hpp"
#include "tpcost/hardware/hardware.hpp"

namespace tpcost {

/// The largest GPUs-per-node accepted (NVL72 racks have 72; leave room for larger domains).
inline constexpr std::int64_t max_gpus_per_node = 1 << 20;

namespace detail {
inline void require_link(const link_spec& link, const char* bandwidth_field,
                         const char* latency_field, bool bandwidth_may_be_zero) {
  const double beta = link.bandwidth.value();
  if (!std::isfinite(beta) || beta < 0.0 || (beta == 0.0 && !bandwidth_may_be_zero)) {
    throw invalid_spec(bandwidth_field, "must be a positive finite number of bytes/s");
  }
  const double alpha = link.latency.value();
  if (!std::isfinite(alpha) || alpha < 0.0) {
    throw invalid_spec(latency_field, "must be a finite duration >= 0, e.g. 3us");
  }
}
}  // namespace detail

/// Throws `invalid_spec` naming the flag: GPUs per node in 1..2^20, bandwidths positive and
/// finite (the inter-node one may be 0: not given), latencies finite and >= 0.
inline void validate(const cluster_topology& topology) {
  if (topology.gpus_per_node < 1 || topology.gpus_per_node > max_gpus_per_node) {
    throw invalid_spec("gpus-per-node", std::to_string(topology.gpus_per_node) +
                                            " is out of range; expected a whole number in 1.." +
                                            std::to_string(max_gpus_per_node));
  }
  detail::require_link(topology.intra, "intra-bandwidth", "intra-latency", false);
  detail::require_link(topology.inter, "inter-bandwidth", "inter-latency", true);
}

/// How a group of `ranks` GPUs lies on the nodes: `per_node` GPUs in each of `nodes` nodes.
struct group_placement {
  std::int64_t ranks = 1;
  std::int64_t per_node = 1;  ///< g
  std::int64_t nodes = 1;     ///< k
  [[nodiscard]] constexpr bool spans_nodes() const { return nodes > 1; }
};

/// Places a group of `ranks` GPUs: inside one node if it fits, otherwise on `ranks /
/// gpus_per_node` whole nodes. Throws `invalid_spec(field, ...)` when a group larger than a
/// node is not a multiple of the node size, and `invalid_spec("inter-bandwidth", ...)` when it
/// spans nodes and no inter-node link was given. `field` names the group size: "tp" for a TP
/// group, "ranks" for `tpcost collective`.
inline group_placement place_group(const cluster_topology& topology, std::int64_t ranks,
                                   const std::string& field = "tp") {
  const auto g = topology.gpus_per_node;
  if (ranks <= g) {
    return {.ranks = ranks, .per_node = ranks, .nodes = 1};
  }
  if (ranks % g != 0) {
    throw invalid_spec(field, std::to_string(ranks) + " spans nodes of " + std::to_string(g) +
                                  " GPUs (--gpus-per-node) but is not a multiple of " +
                                  std::to_string(g) +
                                  "; a group larger than a node must fill whole nodes");
  }
  if (topology.inter.bandwidth.value() <= 0.0) {
    const std::string label = field == "tp" ? "TP " : "a group of ";
    throw invalid_spec("inter-bandwidth",
                       label + std::to_string(ranks) + " spans " + std::to_string(ranks / g) +
                           " nodes of " + std::to_string(g) +
                           " GPUs; give the inter-node link (--interconnect NAME, or its per-GPU "
                           "bandwidth, e.g. 50GB/s for one 400Gb/s NIC per GPU) or stay within " +
                           std::to_string(g) + " GPUs");
  }
  return {.ranks = ranks, .per_node = g, .nodes = ranks / g};
}

/// The link that paces a flat ring or tree over the group: the intra-node link inside a node;
/// the inter-node link with one GPU per node; otherwise the slowest hop (min bandwidth, max
/// latency of the two links).
constexpr link_spec flat_link(const cluster_topology& topology, const group_placement& group) {
  if (!group.spans_nodes()) {
    return topology.intra;
  }
  if (group.per_node <= 1) {
    return topology.inter;
  }
  return link_spec{.bandwidth = min(topology.intra.bandwidth, topology.inter.bandwidth),
                   .latency = max(topology.intra.latency, topology.inter.latency)};
}

/// Whether `algorithm` implements `op`: the tree is all-reduce only (as in NCCL, whose tuner
/// offers only the ring for reduce-scatter and all-gather); `seed` is not an α–β algorithm and
/// is costed by `seed_cost`.
constexpr bool implements(collective_algorithm algorithm, collective_op op) {
  switch (algorithm) {
    case collective_algorithm::seed:
      return false;
    case collective_algorithm::tree:
      return op == collective_op::all_reduce;
    case collective_algorithm::ring:
    case collective_algorithm::hierarchical:
      return true;
  }
  return false;
}

/// The α–β cost of `op` with `algorithm` (ring, tree or hierarchical) over a placed group.
/// Flat algorithms use `flat_link`; the hierarchical one uses both links. Throws
/// `invalid_spec("collective", ...)` for the seed or for a tree reduce-scatter/all-gather.
inline collective_cost collective_cost_in(const cluster_topology& topology,
                                          const group_placement& group, collective_op op,
                                          collective_algorithm algorithm, bytes message) {
  if (!implements(algorithm, op)) {
    throw invalid_spec("collective", std::string(to_string(algorithm)) + " does not implement " +
                                         std::string(to_string(op)) +
                                         " as an alpha-beta algorithm");
  }
  const auto link = flat_link(topology, group);
  collective_cost cost;
  switch (algorithm) {
    case collective_algorithm::ring:
      cost = ring_cost(op, group.ranks, message, link);
      break;
    case collective_algorithm::tree:
      cost = tree_all_reduce_cost(group.ranks, message, link);
      break;
    case collective_algorithm::hierarchical:
      return hierarchical_cost(op, group.per_node, group.nodes, message, topology.intra,
                               topology.inter);
    case collective_algorithm::seed:
      break;
  }
  if (group.spans_nodes()) {
    cost.inter_node_bytes = cost.wire_bytes;  // a flat ring or tree crosses nodes on every GPU
  }
  return cost;
}

/// One candidate algorithm and its cost.
struct algorithm_cost {
  collective_algorithm algorithm = collective_algorithm::ring;
  collective_cost cost;
};

/// Every α–β algorithm that implements `op`, in the order ring, tree, hierarchical.
inline std::vector<algorithm_cost> candidate_costs(const cluster_topology& topology,
                                                   const group_placement& group, collective_op op,
                                                   bytes message) {
  std::vector<algorithm_cost> out;
  for (const auto algorithm : all_collective_algorithms) {
    if (implements(algorithm, op)) {
      out.push_back({algorithm, collective_cost_in(topology, group, op, algorithm, message)});
    }
  }
  return out;
}

/// "auto": the cheapest α–β algorithm for this op, group and message, as NCCL's tuner picks
/// per call. Ties go to the earlier of ring, tree, hierarchical (inside one node the
/// hierarchical algorithm is the ring itself). Never slower than any single algorithm.
inline algorithm_cost cheapest_collective(const cluster_topology& topology,
                                          const group_placement& group, collective_op op,
                                          bytes message) {
  const auto candidates = candidate_costs(topology, group, op, message);
  algorithm_cost best = candidates.front();
  for (const auto& c : candidates) {
    if (c.cost.time < best.cost.time) {
      best = c;
    }
  }
  return best;
}

/// One line of a collective comparison: an algorithm, its cost, and the nccl-tests
/// bandwidths it would report (`algbw = M/T`, `busbw = algbw·bus_factor`; none when T = 0).
struct collective_comparison_row {
  collective_algorithm algorithm = collective_algorithm::ring;
  collective_cost cost;
  std::optional<bytes_per_second> algbw;
  std::optional<bytes_per_second> busbw;
};

/// What `tpcost collective` prints: one op on one group, every algorithm side by side.
struct collective_comparison {
  collective_op op = collective_op::all_reduce;
  bytes message{};
  group_placement group;
  cluster_topology topology;
  std::vector<collective_comparison_row> rows;  ///< seed, ring, tree (all-reduce), hierarchical
  collective_algorithm cheapest = collective_algorithm::ring;  ///< auto's pick (seed excluded)
};

/// Validates and compares every algorithm for `op` over `ranks` GPUs on `message` bytes. The
/// seed row charges the intra-node bandwidth as the all-reduce's algbw (M/B), for reference.
inline collective_comparison compare_collectives(const cluster_topology& topology, collective_op op,
                                                 std::int64_t ranks, bytes message) {
  validate(topology);
  if (ranks < 1 || ranks > (std::int64_t{1} << 24)) {
    throw invalid_spec("ranks", std::to_string(ranks) +
                                    " is out of range; expected a whole number in 1..16777216");
  }
  if (!std::isfinite(message.value()) || message.value() < 0.0) {
    throw invalid_spec("size", "must be a finite number of bytes >= 0");
  }
  collective_comparison out;
  out.op = op;
  out.message = message;
  out.group = place_group(topology, ranks, "ranks");
  out.topology = topology;
  const auto add = [&](collective_algorithm algorithm, const collective_cost& cost) {
    if (!std::isfinite(cost.time.value())) {
      throw invalid_spec("size", "makes the collective time overflow a double");
    }
    collective_comparison_row row{.algorithm = algorithm, .cost = cost, .algbw = {}, .busbw = {}};
    if (cost.time.value() > 0.0) {
      row.algbw = algorithm_bandwidth(message, cost.time);
      row.busbw = bus_bandwidth(op, ranks, *row.algbw);
    }
    out.rows.push_back(row);
  };
  add(collective_algorithm::seed,
      seed_cost(op, ranks, message, topology.intra.bandwidth, bandwidth_kind::algbw));
  for (const auto& c : candidate_costs(topology, out.group, op, message)) {
    add(c.algorithm, c.cost);
  }
  out.cheapest = cheapest_collective(topology, out.group, op, message).algorithm;
  return out;
}

}  // namespace tpcost
