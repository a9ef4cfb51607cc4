// α–β costs of the collectives tensor parallelism uses, on one class of link.
//
// A collective runs over a group of `n` GPUs on a message of `M` bytes (the full, unsharded
// tensor: the input of an all-reduce or a reduce-scatter, the output of an all-gather). A link
// has a per-direction bandwidth β and a per-message latency α (hardware.hpp); sending `m` bytes
// once costs α + m/β. The reduction arithmetic itself (the γ term of Thakur et al.) is left
// out: on GPUs it runs at memory speed, far above link speed.
//
// Every function is pure and returns a `collective_cost`: the time, the bytes the busiest GPU
// sends (for the ring and hierarchical algorithms every GPU sends the same), and the number
// of latency terms. A group of one GPU costs nothing, except under the seed's convention, which
// charges its bandwidth whatever the group (its table shows comm time at TP = 1).
//
// Sources:
//  - ring reduce-scatter, all-gather and all-reduce (= reduce-scatter + all-gather):
//    R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of Collective Communication
//    Operations in MPICH", IJHPCA 19(1), 2005, sections 4.1-4.4.
//  - double binary tree all-reduce: P. Sanders, J. Speck, J. L. Träff, "Two-tree algorithms for
//    full bandwidth broadcast, reduction and scan", Parallel Computing 35(12), 2009; NCCL 2.4
//    (S. Jeaugey, "Massively Scale Your Deep Learning Training with NCCL 2.4", NVIDIA developer
//    blog, 2019); the tree layout of NCCL's src/graph/trees.cc (ncclGetDtree) and the cost
//    model of its src/graph/tuning.cc (tree algorithm bandwidth = bus bandwidth / 2).
//  - algorithm and bus bandwidth: NVIDIA nccl-tests, doc/PERFORMANCE.md.
// Derivations: docs/formulas.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/hardware/hardware.hpp"

namespace tpcost {

/// The collectives of Megatron-style TP: all-reduce without sequence parallelism, reduce-scatter
/// and all-gather with it.
enum class collective_op { all_reduce, reduce_scatter, all_gather };

/// How a collective moves its data.
///  - `article`: the article's convention (DESIGN.md), `M/B` per all-reduce, no latency;
///  - `ring`: NCCL's rings, one per channel over the node's NICs (comm/nccl_tuner.hpp);
///  - `tree`: NCCL's tree: a chain inside each node, a double binary tree across nodes
///    (Sanders et al. 2009), all-reduce only, as in NCCL;
///  - `hierarchical`: a textbook two-level scheme, not one of NCCL's: reduce-scatter inside
///    each node, the collective across nodes, all-gather inside each node (topology.hpp);
///    never picked by auto;
///  - `nvls`, `nvls_tree`: NVLink SHARP inside an NVLink domain (H100 and later), alone or
///    with a tree across domains;
///  - `pat`: NCCL's Parallel Aggregated Trees, all-gather/reduce-scatter with one GPU per node;
///  - `collnet_direct`, `collnet_chain`: SHARP in the network switches (CollNet), all-reduce.
/// Choosing the cheapest ("auto") happens a level up, where the topology is known.
enum class collective_algorithm {
  article,
  ring,
  tree,
  hierarchical,
  nvls,
  nvls_tree,
  pat,
  collnet_direct,
  collnet_chain
};

/// NCCL's protocols (src/device/prims_*.h): LL (8-byte flag+data stores, lowest latency),
/// LL128 (128-byte lines), Simple (bulk copies with fences, full bandwidth).
enum class nccl_protocol { ll, ll128, simple };

/// What the seed's `B` is, under the seed's convention:
///  - `algbw`: the algorithm bandwidth of an all-reduce (nccl-tests' `algbw` = M/t): an
///    all-reduce of M bytes takes M/B, as in the seed;
///  - `busbw`: nccl-tests' bus bandwidth: an all-reduce takes 2(n−1)/n·M/B.
enum class bandwidth_kind { algbw, busbw };

/// The cost of one collective for one GPU of the group.
struct collective_cost {
  seconds time{};
  bytes wire_bytes{};        ///< bytes the busiest GPU sends, over every link it uses
  bytes inter_node_bytes{};  ///< the part of `wire_bytes` that crosses a node boundary
  std::int64_t steps = 0;    ///< latency terms: α is paid `steps` times
  bytes nic_bytes{};         ///< bytes each NIC in use carries (per direction), 0 inside a node
  nccl_protocol protocol = nccl_protocol::simple;  ///< the protocol NCCL's model picked
};

inline constexpr std::array<collective_op, 3> all_collective_ops{
    collective_op::all_reduce, collective_op::reduce_scatter, collective_op::all_gather};
inline constexpr std::array<collective_algorithm, 9> all_collective_algorithms{
    collective_algorithm::article,      collective_algorithm::ring,
    collective_algorithm::tree,         collective_algorithm::hierarchical,
    collective_algorithm::nvls,         collective_algorithm::nvls_tree,
    collective_algorithm::pat,          collective_algorithm::collnet_direct,
    collective_algorithm::collnet_chain};

/// Each collective's name, then the aliases parse_collective_op reads.
inline constexpr std::array<enum_name<collective_op>, 9> collective_op_names{{
    {"all-reduce", collective_op::all_reduce},
    {"reduce-scatter", collective_op::reduce_scatter},
    {"all-gather", collective_op::all_gather},
    {"allreduce", collective_op::all_reduce},
    {"all_reduce", collective_op::all_reduce},
    {"reducescatter", collective_op::reduce_scatter},
    {"reduce_scatter", collective_op::reduce_scatter},
    {"allgather", collective_op::all_gather},
    {"all_gather", collective_op::all_gather},
}};

/// NCCL_PROTO's names, lower case.
inline constexpr std::array<enum_name<nccl_protocol>, 3> nccl_protocol_names{{
    {"ll", nccl_protocol::ll},
    {"ll128", nccl_protocol::ll128},
    {"simple", nccl_protocol::simple},
}};

inline constexpr std::array<enum_name<collective_algorithm>, 9> collective_algorithm_names{{
    {"nvls", collective_algorithm::nvls},
    {"nvls-tree", collective_algorithm::nvls_tree},
    {"pat", collective_algorithm::pat},
    {"collnet-direct", collective_algorithm::collnet_direct},
    {"collnet-chain", collective_algorithm::collnet_chain},
    {"article", collective_algorithm::article},
    {"ring", collective_algorithm::ring},
    {"tree", collective_algorithm::tree},
    {"hierarchical", collective_algorithm::hierarchical},
}};

inline constexpr std::array<enum_name<bandwidth_kind>, 2> bandwidth_kind_names{{
    {"algbw", bandwidth_kind::algbw},
    {"busbw", bandwidth_kind::busbw},
}};

/// "all-reduce", "reduce-scatter", "all-gather".
constexpr std::string_view to_string(collective_op op) { return name_of(collective_op_names, op); }

/// "ll", "ll128", "simple" (NCCL_PROTO's names, lower case).
constexpr std::string_view to_string(nccl_protocol protocol) {
  return name_of(nccl_protocol_names, protocol);
}

/// "article", "ring", "tree", "hierarchical", "nvls", "nvls-tree", "pat", "collnet-direct",
/// "collnet-chain".
constexpr std::string_view to_string(collective_algorithm algorithm) {
  return name_of(collective_algorithm_names, algorithm);
}

/// "algbw", "busbw".
constexpr std::string_view to_string(bandwidth_kind kind) {
  return name_of(bandwidth_kind_names, kind);
}

/// Reads "all-reduce" (also "allreduce", "all_reduce"), "reduce-scatter", "all-gather".
inline collective_op parse_collective_op(std::string_view text, std::string_view field) {
  if (const auto op = value_named(collective_op_names, text)) {
    return *op;
  }
  throw invalid_spec(std::string(field), quote_value(text) +
                                             " is not one of all-reduce|reduce-scatter|"
                                             "all-gather");
}

/// Reads "algbw" or "busbw".
inline bandwidth_kind parse_bandwidth_kind(std::string_view text, std::string_view field) {
  if (const auto kind = value_named(bandwidth_kind_names, text)) {
    return *kind;
  }
  throw invalid_spec(std::string(field), quote_value(text) + " is not one of algbw|busbw");
}

/// The passes of a ring over the n ranks: all-reduce is a reduce-scatter then an all-gather.
constexpr std::int64_t ring_passes(collective_op op) {
  return op == collective_op::all_reduce ? 2 : 1;
}

/// A ring's steps, each paying the latency α once: `passes·(n−1)`.
constexpr std::int64_t ring_steps(collective_op op, std::int64_t n) {
  return ring_passes(op) * (n - 1);
}

/// nccl-tests' bus factor: busbw = algbw · factor, with factor `2(n−1)/n` for all-reduce and
/// `(n−1)/n` for reduce-scatter and all-gather (nccl-tests doc/PERFORMANCE.md). It is the share
/// of the message each GPU's link carries in a ring; 0 for n = 1.
constexpr double bus_factor(collective_op op, std::int64_t n) {
  return static_cast<double>(ring_steps(op, n)) / static_cast<double>(n);
}

/// nccl-tests' algorithm bandwidth of one run: `algbw = M / t` (bytes/s), M the full message.
constexpr bytes_per_second algorithm_bandwidth(bytes message, seconds time) {
  return message / time;
}

/// nccl-tests' bus bandwidth from the algorithm bandwidth: `busbw = algbw · bus_factor(op, n)`.
constexpr bytes_per_second bus_bandwidth(collective_op op, std::int64_t n, bytes_per_second algbw) {
  return algbw * bus_factor(op, n);
}

/// The inverse: `algbw = busbw / bus_factor(op, n)`. Needs n >= 2 (at n = 1 the bus factor is
/// 0 and any algbw maps to busbw 0).
inline bytes_per_second algorithm_bandwidth_from_bus(collective_op op, std::int64_t n,
                                                     bytes_per_second busbw) {
  if (n < 2) {
    throw invalid_spec("ranks", "algbw from busbw needs at least 2 ranks; at 1 rank busbw is 0");
  }
  return busbw / bus_factor(op, n);
}

/// `⌈log₂ n⌉` for n >= 1: the depth of NCCL's binary trees over n ranks.
constexpr std::int64_t ceil_log2(std::int64_t n) {
  std::int64_t depth = 0;
  while ((std::int64_t{1} << depth) < n) {
    ++depth;
  }
  return depth;
}

/// Ring collective on one link class (Thakur, Rabenseifner & Gropp 2005, §4):
///  - reduce-scatter and all-gather: `n−1` steps of `M/n` bytes:
///    `T = (n−1)·α + (n−1)/n·M/β`, wire bytes `(n−1)/n·M`;
///  - all-reduce = reduce-scatter + all-gather: `T = 2(n−1)·α + 2(n−1)/n·M/β`,
///    wire bytes `2(n−1)/n·M`.
/// n = 1 costs nothing.
constexpr collective_cost ring_cost(collective_op op, std::int64_t n, bytes message,
                                    const link_spec& link) {
  if (n <= 1) {
    return {};
  }
  const bytes wire = bus_factor(op, n) * message;
  return collective_cost{
      .time = static_cast<double>(ring_steps(op, n)) * link.latency + wire / link.bandwidth,
      .wire_bytes = wire,
      .inter_node_bytes = {},
      .steps = ring_steps(op, n),
  };
}

/// What the busiest GPU of NCCL's double binary tree sends, as a multiple of M: each tree
/// carries M/2 up (reduce) and down (broadcast), and a rank that is interior with two children
/// in one tree and a leaf in the other sends M/2 + 2·M/2 + M/2 = 2M. That rank exists for
/// n >= 4; at n = 3 the busiest rank sends 3M/2, at n = 2 (one edge per tree) M. Checked
/// against ncclGetDtree (NCCL src/graph/trees.cc) for n = 2..64. The average over ranks is
/// 2(n−1)/n·M, the ring's.
constexpr double tree_wire_factor(std::int64_t n) {
  if (n <= 1) {
    return 0.0;
  }
  if (n == 2) {
    return 1.0;
  }
  if (n == 3) {
    return 1.5;
  }
  return 2.0;
}

/// Double binary tree all-reduce (Sanders, Speck & Träff 2009; NCCL >= 2.4):
/// `T = 2·⌈log₂ n⌉·α + w(n)·M/β`, with `w(n) = tree_wire_factor(n)` (2 for n >= 4).
/// The message goes up two complementary binary trees (M/2 each, reduction) and back down
/// (broadcast); the latency is paid once per tree level each way; the pipelined data is paced
/// by the busiest GPU's link. Pipeline fill and chunking are left out, as NCCL's own tuner
/// does (tuning.cc: tree algorithm bandwidth = busbw/2, latency 2·log₂ levels). n = 1 costs
/// nothing.
constexpr collective_cost tree_all_reduce_cost(std::int64_t n, bytes message,
                                               const link_spec& link) {
  if (n <= 1) {
    return {};
  }
  const std::int64_t steps = 2 * ceil_log2(n);
  const bytes wire = tree_wire_factor(n) * message;
  return collective_cost{
      .time = static_cast<double>(steps) * link.latency + wire / link.bandwidth,
      .wire_bytes = wire,
      .inter_node_bytes = {},
      .steps = steps,
  };
}

/// The seed's convention, no latency, with `B` the seed's bandwidth:
///  - `algbw` (the seed): an all-reduce takes `M/B` whatever n, even n = 1 (the seed charges
///    comm at TP = 1); a reduce-scatter or an all-gather is half an all-reduce, `M/(2B)` (at
///    equal bus bandwidth a ring reduce-scatter moves half an all-reduce's bytes), so sequence
///    parallelism costs what the all-reduces cost. Wire bytes are what B is charged for.
///  - `busbw`: B is nccl-tests' bus bandwidth, `T = bus_factor(op, n)·M/B` (0 at n = 1): the
///    ring's bandwidth term without latency.
constexpr collective_cost article_cost(collective_op op, std::int64_t n, bytes message,
                                       bytes_per_second bandwidth, bandwidth_kind kind) {
  if (kind == bandwidth_kind::busbw) {
    if (n <= 1) {
      return {};
    }
    const bytes wire = bus_factor(op, n) * message;
    return {.time = wire / bandwidth, .wire_bytes = wire, .inter_node_bytes = {}, .steps = 0};
  }
  const bytes charged = op == collective_op::all_reduce ? message : message / 2.0;
  return {.time = charged / bandwidth, .wire_bytes = charged, .inter_node_bytes = {}, .steps = 0};
}

/// Hierarchical collective over `nodes` nodes with `per_node` GPUs of the group in each
/// (n = per_node·nodes): the inter-node phase runs `per_node` rings in parallel, one per local
/// rank, each on its own GPU's share of the inter-node link, over `M/per_node` bytes.
///  - all-reduce: intra reduce-scatter (g), inter all-reduce of M/g (k), intra all-gather (g):
///    `T = 2(g−1)·α_i + 2(g−1)/g·M/β_i + 2(k−1)·α_e + 2(k−1)/k·(M/g)/β_e`;
///  - reduce-scatter: intra reduce-scatter, then inter reduce-scatter of M/g;
///  - all-gather: inter all-gather of M/g, then intra all-gather:
///    `T = (g−1)·α_i + (g−1)/g·M/β_i + (k−1)·α_e + (k−1)/k·(M/g)/β_e`.
/// Wire bytes: `2(g−1)/g·M + 2(k−1)/k·M/g` for all-reduce, of which `2(k−1)/k·M/g` cross nodes;
/// the total equals the ring's 2(n−1)/n·M. With one node it is the intra ring; with one GPU
/// per node it is the inter ring.
constexpr collective_cost hierarchical_cost(collective_op op, std::int64_t per_node,
                                            std::int64_t nodes, bytes message,
                                            const link_spec& intra, const link_spec& inter) {
  if (nodes <= 1) {
    return ring_cost(op, per_node, message, intra);
  }
  if (per_node <= 1) {
    auto cost = ring_cost(op, nodes, message, inter);
    cost.inter_node_bytes = cost.wire_bytes;
    return cost;
  }
  const auto inside = ring_cost(op, per_node, message, intra);
  const auto across = ring_cost(op, nodes, message / static_cast<double>(per_node), inter);
  return collective_cost{
      .time = inside.time + across.time,
      .wire_bytes = inside.wire_bytes + across.wire_bytes,
      .inter_node_bytes = across.wire_bytes,
      .steps = inside.steps + across.steps,
  };
}

}  // namespace tpcost
