// Where a group of GPUs sits in a cluster of nodes, which links it uses, and what its
// collectives cost there.
//
// A group of `n` GPUs with `n <= gpus_per_node` fits in one node (by default: `place_group`
// fills nodes; comm/placement.hpp places every group of a layout where Megatron-Core puts its
// ranks). A group is costed as NCCL costs it (comm/nccl_tuner.hpp): rings and trees over the
// NVLink domain and the node's NICs, NVLS where the switches have SHARP, PAT with one GPU per
// node, CollNet where the network has SHARP; `cheapest_collective` ("auto") is what NCCL's
// tuner would pick. `hierarchical` (reduce-scatter in the node, the collective across nodes,
// all-gather in the node, phases added) is kept as a textbook bound and is never auto's pick.
//
// `cluster_topology` (hardware.hpp) is plain data that a preset or a config file can fill. An
// `inter.bandwidth` of zero means "no inter-node link given": a group that spans nodes is
// then rejected with a message naming --inter-bandwidth.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "tpcost/base/error.hpp"
#include "tpcost/comm/collectives.hpp"
#include "tpcost/comm/nccl_tuner.hpp"
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
  if (topology.nics_per_node < 0 || topology.nics_per_node > max_gpus_per_node) {
    throw invalid_spec("nics-per-node", std::to_string(topology.nics_per_node) +
                                            " is out of range; expected a whole number in 1.." +
                                            std::to_string(max_gpus_per_node));
  }
  if (topology.scale_up_domain < 0 || topology.scale_up_domain > max_gpus_per_node ||
      (topology.scale_up_domain > topology.gpus_per_node &&
       topology.scale_up_domain % topology.gpus_per_node != 0)) {
    throw invalid_spec("scale-up-domain", std::to_string(topology.scale_up_domain) +
                                              " must be a whole number of nodes of " +
                                              std::to_string(topology.gpus_per_node) +
                                              " GPUs (at most " +
                                              std::to_string(max_gpus_per_node) + ")");
  }
  const double peer = topology.peer_link.value();
  if (!std::isfinite(peer) || peer < 0.0) {
    throw invalid_spec("peer-link", "must be a finite number of bytes/s >= 0");
  }
}

/// How a group of `ranks` GPUs lies on the nodes: `per_node` GPUs in each of `nodes` nodes
/// (the most on any one node where they are uneven), `per_domain` in each of `domains` NVLink
/// domains (= the node unless `scale_up_domain` is larger), and `concurrent` groups of the
/// same parallel dimension on each node at once, sharing its NICs (8 DP groups of one GPU
/// each per node when t = 8). Fields left at 0 are derived from the others (`resolved`).
struct group_placement {
  std::int64_t ranks = 1;
  std::int64_t per_node = 1;    ///< g
  std::int64_t nodes = 1;       ///< k
  std::int64_t per_domain = 0;  ///< members per NVLink domain; 0 = per_node
  std::int64_t domains = 0;     ///< NVLink domains spanned; 0 = nodes
  std::int64_t concurrent = 1;  ///< groups of this dimension sharing each node's NICs
  [[nodiscard]] constexpr bool spans_nodes() const { return nodes > 1; }
  [[nodiscard]] constexpr bool spans_domains() const { return (domains > 0 ? domains : nodes) > 1; }
  friend constexpr bool operator==(const group_placement&, const group_placement&) = default;
};

/// `group` with per_domain/domains filled in (0 means: the same as per node).
constexpr group_placement resolved(group_placement group) {
  if (group.domains <= 0) {
    group.domains = group.nodes;
  }
  if (group.per_domain <= 0) {
    group.per_domain = group.domains == group.nodes
                           ? group.per_node
                           : (group.ranks + group.domains - 1) / group.domains;
  }
  if (group.concurrent < 1) {
    group.concurrent = 1;
  }
  return group;
}

/// What NCCL's tuner sees of `group` on `topology` (nccl_tuner.hpp explains each field).
/// Per GPU NVLink: the link's rate as NCCL sees it (or a full mesh's (g−1) peer links);
/// the NICs: those the group's members on one domain can reach (one per member on DGX-class
/// nodes, at least one), shared with the `concurrent` groups of the same dimension.
inline nccl_view nccl_view_of(const cluster_topology& topology, const group_placement& placed) {
  const auto group = resolved(placed);
  nccl_view v;
  v.ranks = group.ranks;
  v.nodes = group.domains;
  v.ppn = static_cast<double>(group.ranks) / static_cast<double>(group.domains);
  v.generation = topology.generation;
  const double share = topology.intra_measured ? 1.0 : nccl::nvlink_share(topology.generation);
  double intra = topology.intra.bandwidth.value() / 1e9;
  if (topology.peer_link.value() > 0.0) {
    intra = std::min(intra, static_cast<double>(std::max<std::int64_t>(1, group.per_domain - 1)) *
                                topology.peer_link.value() / 1e9);
  }
  v.intra_gbs = intra * share;
  const double gpus_per_domain = static_cast<double>(domain_of(topology));
  const double nics_per_domain = static_cast<double>(nics_of(topology)) * gpus_per_domain /
                                 static_cast<double>(topology.gpus_per_node);
  const double per_gpu = nics_per_domain / gpus_per_domain;
  v.nics = std::min(nics_per_domain / static_cast<double>(group.concurrent),
                    std::max(1.0, static_cast<double>(group.per_domain) * per_gpu));
  v.net_gbs = v.nics * nccl::nic_gbs(topology.inter.bandwidth.value() / 1e9, topology.generation,
                                     topology.inter_measured);
  // Two channels per NIC across nodes (search.cc duplicates them); inside a domain, one per
  // 20 GB/s of NVLink. Only NCCL's per-channel caps read it.
  v.channels = group.domains > 1 ? std::max(1.0, 2.0 * v.nics) : std::max(1.0, v.intra_gbs / 20.0);
  v.nvls = topology.nvls && topology.peer_link.value() <= 0.0 && group.per_domain >= 2;
  if (v.nvls) {
    const double g = static_cast<double>(group.per_domain);
    v.nvls_gbs = g * nccl::speed_at_most(nccl::sm90_speed_intra, v.intra_gbs / g);
  }
  v.collnet = topology.collnet;
  v.ll128 = topology.generation != gpu_generation::unknown && topology.peer_link.value() <= 0.0;
  v.intra_lat_us = topology.intra.latency.value() * 1e6;
  v.inter_lat_us = topology.inter.latency.value() * 1e6;
  return v;
}

namespace detail {
inline void require_inter_link(const cluster_topology& topology, std::int64_t ranks,
                               std::int64_t nodes, const std::string& field) {
  if (topology.inter.bandwidth.value() <= 0.0) {
    const std::string label = field == "tp" ? "TP " : "a group of ";
    throw invalid_spec("inter-bandwidth",
                       label + std::to_string(ranks) + " spans " + std::to_string(nodes) +
                           " nodes of " + std::to_string(topology.gpus_per_node) +
                           " GPUs; give the inter-node link (--interconnect NAME, or one NIC's "
                           "bandwidth, e.g. 50GB/s for a 400Gb/s NIC) or stay within " +
                           std::to_string(topology.gpus_per_node) + " GPUs");
  }
}
}  // namespace detail

/// Places a group of `ranks` GPUs with `ranks_per_node` members on each node (0: fill nodes:
/// inside one node if it fits, otherwise on `ranks / gpus_per_node` whole nodes). NVLink
/// domains larger than a node (NVL72) hold `ranks_per_node · nodes per domain` members.
/// Throws `invalid_spec(field, ...)` when the group does not split evenly over nodes, and
/// `invalid_spec("inter-bandwidth", ...)` when it spans nodes and no inter-node link was
/// given; `invalid_spec("ranks-per-node", ...)` when that exceeds the node. `field` names the
/// group size: "tp" for a TP group, "ranks" for `tpcost collective`.
inline group_placement place_group(const cluster_topology& topology, std::int64_t ranks,
                                   const std::string& field = "tp",
                                   std::int64_t ranks_per_node = 0) {
  const auto g = topology.gpus_per_node;
  if (ranks_per_node < 0 || ranks_per_node > g) {
    throw invalid_spec("ranks-per-node", std::to_string(ranks_per_node) +
                                             " is more ranks per node than its " +
                                             std::to_string(g) + " GPUs (--gpus-per-node)");
  }
  std::int64_t per_node = ranks_per_node;
  if (per_node == 0) {
    if (ranks <= g) {
      return {.ranks = ranks, .per_node = ranks, .nodes = 1};
    }
    if (ranks % g != 0) {
      throw invalid_spec(field, std::to_string(ranks) + " spans nodes of " + std::to_string(g) +
                                    " GPUs (--gpus-per-node) but is not a multiple of " +
                                    std::to_string(g) +
                                    "; a group larger than a node must fill whole nodes");
    }
    per_node = g;
  } else if (ranks % per_node != 0) {
    throw invalid_spec(field, std::to_string(ranks) + " ranks are not a multiple of " +
                                  std::to_string(per_node) + " ranks per node (--ranks-per-node)");
  }
  const std::int64_t nodes = ranks / per_node;
  if (nodes > 1) {
    detail::require_inter_link(topology, ranks, nodes, field);
  }
  const std::int64_t nodes_per_domain = domain_of(topology) / g;
  const std::int64_t domains = (nodes + nodes_per_domain - 1) / nodes_per_domain;
  return {.ranks = ranks,
          .per_node = per_node,
          .nodes = nodes,
          .per_domain = std::min(ranks, per_node * nodes_per_domain),
          .domains = domains,
          .concurrent = 1};
}

/// The link that paces a flat ring or tree over the group in the textbook α–β model: the
/// intra-node link inside a node; the inter-node link with one GPU per node; otherwise the
/// slowest hop. Only the `hierarchical` explanation and the seed's comparison use it now.
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

/// Whether `algorithm` implements `op` at all (as in NCCL): tree, NVLS-tree and CollNet are
/// all-reduce only, PAT all-gather/reduce-scatter only; `seed` is not an α–β algorithm and
/// is costed by `article_cost`. Whether the hardware runs it is `nccl_collective_cost`'s answer.
constexpr bool implements(collective_algorithm algorithm, collective_op op) {
  switch (algorithm) {
    case collective_algorithm::article:
      return false;
    case collective_algorithm::tree:
    case collective_algorithm::nvls_tree:
    case collective_algorithm::collnet_direct:
    case collective_algorithm::collnet_chain:
      return op == collective_op::all_reduce;
    case collective_algorithm::pat:
      return op != collective_op::all_reduce;
    case collective_algorithm::ring:
    case collective_algorithm::nvls:
    case collective_algorithm::hierarchical:
      return true;
  }
  return false;
}

namespace detail {
/// nccl_collective_cost on a resolved group of more than one rank and its view
/// (`nccl_view_of(topology, group)`), which the caller computes once for every algorithm.
inline std::optional<collective_cost> nccl_cost_in_view(const nccl_view& v,
                                                        const group_placement& group,
                                                        collective_op op,
                                                        collective_algorithm algorithm,
                                                        bytes message) {
  const auto choice = nccl_best_protocol(v, op, algorithm, message.value());
  if (!choice) {
    return std::nullopt;
  }
  const auto n = group.ranks;
  const auto k = group.domains;
  const double m = message.value();
  double wire = bus_factor(op, n) * m;
  double node_nic = k > 1 ? bus_factor(op, n) * m : 0.0;
  std::int64_t steps = ring_steps(op, n);
  switch (algorithm) {
    case collective_algorithm::tree:
      node_nic = k > 1 ? bus_factor(op, k) * m : 0.0;
      steps = 2 * (group.per_domain - 1 + tpcost::nccl::log2i(k));
      break;
    case collective_algorithm::nvls:
    case collective_algorithm::nvls_tree:
      // multimem reduce and store: each GPU sends its whole input once and its reduced share
      wire = (op == collective_op::all_reduce ? 1.0 + 1.0 / static_cast<double>(n) : 1.0) * m;
      steps = 1 + (k > 1 ? 2 * tpcost::nccl::log2i(k) : 0);
      break;
    case collective_algorithm::collnet_direct:
    case collective_algorithm::collnet_chain:
      node_nic = m;
      steps = 1;
      break;
    case collective_algorithm::pat:
      steps = tpcost::nccl::log2i(k) + 1;
      break;
    default:
      break;
  }
  return collective_cost{
      .time = choice->time_us * 1e-6 * units::s,
      .wire_bytes = wire * units::B,
      .inter_node_bytes = node_nic / static_cast<double>(group.per_domain) * units::B,
      .steps = steps,
      .nic_bytes = v.nics > 0.0 ? node_nic / v.nics * units::B : bytes{},
      .protocol = choice->protocol,
  };
}
}  // namespace detail

/// NCCL's cost of `op` with one of its algorithms over a placed group, at the best protocol
/// for this size (nccl_tuner.hpp); nothing when this hardware or placement does not run it
/// (NVLS without SHARP switches, PAT with more than one GPU per node, ...).
inline std::optional<collective_cost> nccl_collective_cost(const cluster_topology& topology,
                                                           const group_placement& placed,
                                                           collective_op op,
                                                           collective_algorithm algorithm,
                                                           bytes message) {
  const auto group = resolved(placed);
  if (group.ranks <= 1) {
    return collective_cost{};
  }
  return detail::nccl_cost_in_view(nccl_view_of(topology, group), group, op, algorithm, message);
}

/// The α–β cost of `op` with `algorithm` over a placed group: the textbook ring and tree on
/// `flat_link` and the two-level `hierarchical` (what the step model and the planner use
/// today); NCCL's model for NVLS, NVLS-tree, PAT and CollNet (nccl_collective_cost, which
/// also has NCCL's own ring and tree). Throws `invalid_spec("collective", ...)` for the seed,
/// an algorithm that does not implement `op`, or one this hardware does not run.
inline collective_cost collective_cost_in(const cluster_topology& topology,
                                          const group_placement& group, collective_op op,
                                          collective_algorithm algorithm, bytes message) {
  if (!implements(algorithm, op)) {
    throw invalid_spec("collective", std::string(to_string(algorithm)) + " does not implement " +
                                         std::string(to_string(op)));
  }
  if (algorithm == collective_algorithm::hierarchical) {
    return hierarchical_cost(op, group.per_node, group.nodes, message, topology.intra,
                             topology.inter);
  }
  if (algorithm == collective_algorithm::ring || algorithm == collective_algorithm::tree) {
    // The textbook α–β ring and tree on the slowest hop, as the step model and the planner
    // still price them (NCCL's ring and tree: nccl_collective_cost).
    const auto link = flat_link(topology, group);
    auto cost = algorithm == collective_algorithm::ring
                    ? ring_cost(op, group.ranks, message, link)
                    : tree_all_reduce_cost(group.ranks, message, link);
    if (group.spans_nodes()) {
      cost.inter_node_bytes = cost.wire_bytes;
    }
    return cost;
  }
  if (auto cost = nccl_collective_cost(topology, group, op, algorithm, message)) {
    return *cost;
  }
  throw invalid_spec("collective",
                     std::string(to_string(algorithm)) + " does not run on this group (" +
                         std::to_string(group.ranks) + " ranks, " + std::to_string(group.per_node) +
                         " per node): it needs NVLink SHARP (nvls), SHARP switches (collnet), "
                         "one GPU per node (pat) or several nodes (nvls-tree)");
}

/// One candidate algorithm and its cost.
struct algorithm_cost {
  collective_algorithm algorithm = collective_algorithm::ring;
  collective_cost cost;
};

/// Every α–β algorithm that implements `op`, in the order ring, tree, hierarchical (the
/// textbook costs of collective_cost_in).
inline std::vector<algorithm_cost> candidate_costs(const cluster_topology& topology,
                                                   const group_placement& group, collective_op op,
                                                   bytes message) {
  std::vector<algorithm_cost> out;
  for (const auto algorithm : {collective_algorithm::ring, collective_algorithm::tree,
                               collective_algorithm::hierarchical}) {
    if (implements(algorithm, op)) {
      out.push_back({algorithm, collective_cost_in(topology, group, op, algorithm, message)});
    }
  }
  return out;
}

/// The cheapest of ring, tree and hierarchical (textbook α–β costs); ties go to the earlier.
/// A reference for the tests: every "auto" prices through `nccl_cheapest_collective`.
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

/// Every NCCL algorithm this hardware runs for `op`, costed by NCCL's model, in
/// all_collective_algorithms' order, then the textbook `hierarchical` for reference.
inline std::vector<algorithm_cost> nccl_candidate_costs(const cluster_topology& topology,
                                                        const group_placement& group,
                                                        collective_op op, bytes message) {
  std::vector<algorithm_cost> out;
  for (const auto algorithm : all_collective_algorithms) {
    if (!implements(algorithm, op) || algorithm == collective_algorithm::hierarchical) {
      continue;
    }
    if (auto cost = nccl_collective_cost(topology, group, op, algorithm, message)) {
      out.push_back({algorithm, *cost});
    }
  }
  out.push_back(
      {collective_algorithm::hierarchical,
       collective_cost_in(topology, group, op, collective_algorithm::hierarchical, message)});
  return out;
}

/// "auto" on one placed group: its resolved placement and NCCL's view of it, computed once for
/// every op and message priced on it (a layer's TP group prices a dozen collectives).
class nccl_group_pricer {
 public:
  nccl_group_pricer(const cluster_topology& topology, const group_placement& group)
      : placed_(resolved(group)),
        view_(placed_.ranks > 1 ? nccl_view_of(topology, placed_) : nccl_view{}) {}

  /// What NCCL's tuner picks for `op` and `message`: the fastest of its algorithms and
  /// protocols (`hierarchical`, not NCCL's, is left out). Ties go to the ring. Allocates
  /// nothing.
  [[nodiscard]] algorithm_cost cheapest(collective_op op, bytes message) const {
    // The ring is NCCL's fallback, but it too is unavailable over a link whose rate rounds to
    // 0 GB/s (`--intra-bandwidth 1e-320`): then nothing is, and the time is infinite, which the
    // step's finite check reports by naming the link.
    algorithm_cost best{collective_algorithm::ring, collective_cost{}};
    if (placed_.ranks <= 1) {
      return best;  // nothing to exchange: every algorithm costs nothing, the ring stands
    }
    if (auto ring =
            detail::nccl_cost_in_view(view_, placed_, op, collective_algorithm::ring, message)) {
      best.cost = *ring;
    } else {
      best.cost.time = seconds{std::numeric_limits<double>::infinity()};
    }
    for (const auto algorithm : nccl_algorithms) {
      if (algorithm == collective_algorithm::ring || !implements(algorithm, op)) {
        continue;
      }
      if (auto cost = detail::nccl_cost_in_view(view_, placed_, op, algorithm, message);
          cost && cost->time < best.cost.time) {
        best = {algorithm, *cost};
      }
    }
    return best;
  }

 private:
  group_placement placed_;
  nccl_view view_;
};

/// "auto": what NCCL's tuner picks for this op, group and message (nccl_group_pricer, for a
/// group priced once).
inline algorithm_cost nccl_cheapest_collective(const cluster_topology& topology,
                                               const group_placement& group, collective_op op,
                                               bytes message) {
  return nccl_group_pricer(topology, group).cheapest(op, message);
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
  std::vector<collective_comparison_row> rows;  ///< seed, then candidate_costs' order
  collective_algorithm cheapest = collective_algorithm::ring;  ///< auto's pick (seed excluded)
};

/// Validates and compares every algorithm for `op` over `ranks` GPUs on `message` bytes. The
/// seed row charges the intra-node bandwidth as the all-reduce's algbw (M/B), for reference.
/// `ranks_per_node` places the group (0: fill nodes; see place_group).
inline collective_comparison compare_collectives(const cluster_topology& topology, collective_op op,
                                                 std::int64_t ranks, bytes message,
                                                 std::int64_t ranks_per_node = 0) {
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
  out.group = place_group(topology, ranks, "ranks", ranks_per_node);
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
  add(collective_algorithm::article,
      article_cost(op, ranks, message, topology.intra.bandwidth, bandwidth_kind::algbw));
  for (const auto& c : nccl_candidate_costs(topology, out.group, op, message)) {
    add(c.algorithm, c.cost);
  }
  out.cheapest = nccl_cheapest_collective(topology, out.group, op, message).algorithm;
  return out;
}

}  // namespace tpcost
