// The token dispatch and combine of expert parallelism: what one GPU of an EP group sends, over
// NVLink inside its node and over its NIC to other nodes, and how long that takes.
//
// Before the experts, each GPU sends every token it holds to the GPUs that hold the token's
// top-k experts (dispatch); after them, the results come back and are summed with the router's
// weights (combine: the same traffic reversed). With E experts spread evenly over an EP group
// of e GPUs (E/e each), routing balanced (the load-imbalance factor 1 that published
// benchmarks force, docs/moe.md) and tokens routed independently, the traffic depends on how
// the dispatcher packs it:
//  - `all_to_all` (Megatron-Core --moe-token-dispatcher-type alltoall, an NCCL all-to-all):
//    every (token, expert) copy travels; of a token's k copies, k/e stay on the GPU,
//    k·(g−1)/e go to the other g−1 GPUs of the node, k·(e−g)/e to other nodes.
//  - `deep_ep` (--moe-token-dispatcher-type flex with DeepEP or HybridEP; DeepSeek-V3 report,
//    arXiv:2412.19437, Sec. 3.2.2; DeepEP README): a token goes once to each GPU of its own
//    node that holds one of its experts, and once to each other node that does (over RDMA,
//    to the GPU of the same index there), which forwards it over NVLink to the GPUs of that
//    node that need it. A group of m of the E experts holds none of a token's k experts with
//    probability C(E−m, k)/C(E, k) (top-k picks k distinct experts), so a token reaches
//    (g−1)·(1 − C(E−E/e, k)/C(E, k)) other GPUs of its node and (n−1)·(1 − C(E−E·g/e, k)/C(E, k))
//    other nodes.
//  - `all_gather` (Megatron-Core's default, --moe-token-dispatcher-type allgather;
//    token_dispatcher.py MoEAllGatherTokenDispatcher, core_v0.16.0): every token goes to every
//    GPU of the group, which keeps the copies routed to its own experts; the combine
//    reduce-scatters the outputs back. That is an NCCL all-gather of e·T tokens (and a
//    reduce-scatter of as many, which NCCL's ring runs in the same steps), priced by NCCL's
//    tuner (topology.hpp) rather than by the copies below, and blind to the routing load.
//    Under group-limited routing (moe_spec::routing: DeepSeek-V3 picks a token's experts within
//    4 of 8 expert groups) the same counts follow with the probabilities of none_of_top_k_routed.
//
// How the two point-to-point dispatchers run (docs/moe.md, "Against arXiv:2603.07685 Table 7"):
//  - NCCL (`all_to_all`): Megatron-Core's alltoall dispatcher calls torch.distributed's
//    all_to_all_single, which NCCL runs as grouped ncclSend/ncclRecv, one pair per peer
//    (NVIDIA/nccl at 5067397c, nccl4py-v0.3.1). ncclP2pSchedule (src/init.cc) orders the peers
//    in rounds group by group, groups of NCCL_P2P_SCHEDULE_GROUP_SIZE = 8 GPUs, the GPU's own
//    group first; src/enqueue.cc puts only the rounds of one group of 8 in a work batch
//    (NCCL_MAX_DEV_WORK_P2P_PER_BATCH = 8), and a channel runs its batches one after another.
//    On nodes of 8 the NVLink peers are one batch and each other node's peers another, so the
//    GPU's NVLink and NIC traffic take turns: their times add. Each peer's transfer is split
//    over up to p2pnChannelsPerPeer channels, halved while channels × peers exceeds the p2p
//    channels (enqueue.cc), so the more peers the fewer channels each: a cost λ per peer.
//    t = (e−1)·λ + intra bytes / (η_NVLink·β_intra) + inter bytes / (η_net·β_inter).
//  - HybridEP (`deep_ep`; DeepEP hybrid-ep branch at 94a9f8f, docs/README_Hybrid-EP.md:
//    TMA copies over NVLink and RDMA over the NIC, pipelined in one kernel on 16 SMs,
//    Megatron-Core core_v0.16.0 moe_hybridep_num_sms): the two links run at once,
//    t = τ + max(intra bytes / (η_NVLink·β_intra), inter bytes / (η_RDMA·β_inter)), τ the fixed
//    cost of one call through the torch API (the routing metadata and the permutes; the README's
//    "Torch API" and "Kernel only" bandwidths differ by such a fixed time). DeepEP's own
//    kernels are costed at the same rates.
// The η, λ and τ are the kernels', not the links': they are fitted, per dispatcher, on the 32
// measured latencies of arXiv:2603.07685 Table 7 (tests/reference/ep_alltoall.hpp fits them,
// tests/reference/ep_alltoall_table.cpp prints them with leave-one-out; docs/moe.md). Link
// latencies of the topology are not added: λ and τ stand for them.
//
// The EP group comes in as a `group_placement` (topology.hpp): GPUs per node and nodes. That
// is the one place where the rank placement of the parallel layout enters.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/hardware/hardware.hpp"
#include "tpcost/model/moe.hpp"

namespace tpcost {

/// How tokens travel to their experts (Megatron-Core's --moe-token-dispatcher-type).
enum class token_dispatcher {
  all_to_all,  ///< NCCL all-to-all of every (token, expert) copy
  deep_ep,     ///< DeepEP / HybridEP: one copy per destination GPU in the node, per other node
  all_gather,  ///< every token to every GPU of the group (NCCL all-gather, then reduce-scatter)
};

/// Each dispatcher's name, then the aliases parse_token_dispatcher reads (it ignores case,
/// '-' and '_').
inline constexpr std::array<enum_name<token_dispatcher>, 5> token_dispatcher_names{{
    {"all-to-all", token_dispatcher::all_to_all},
    {"deep-ep", token_dispatcher::deep_ep},
    {"all-gather", token_dispatcher::all_gather},
    {"flex", token_dispatcher::deep_ep},
    {"hybrid-ep", token_dispatcher::deep_ep},
}};

constexpr std::string_view to_string(token_dispatcher d) {
  return name_of(token_dispatcher_names, d);
}

/// Reads "all-to-all" (or "alltoall"), "deep-ep" (or "deepep", "flex", "hybrid-ep") and
/// "all-gather" (or "allgather");
/// throws `invalid_spec(field, ...)` otherwise.
inline token_dispatcher parse_token_dispatcher(std::string_view text, std::string_view field) {
  const auto key = [](std::string_view name) {
    std::string out;
    for (const char c : name) {
      if (c != '-' && c != '_') {
        out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      }
    }
    return out;
  };
  if (const auto d = value_named(token_dispatcher_names, text, key)) {
    return *d;
  }
  throw invalid_spec(std::string(field),
                     quote_value(text) +
                         " is not a token dispatcher; expected all-to-all (NCCL, every "
                         "token-expert copy), deep-ep (DeepEP/HybridEP, one copy per GPU and "
                         "per node) or all-gather (every token to every GPU of the group)");
}

/// The probability that none of a token's k distinct experts lies in a given set of m of the
/// E experts: C(E−m, k) / C(E, k) = Π_{i<k} (E−m−i)/(E−i).
constexpr double none_of_top_k_in(std::int64_t experts, std::int64_t top_k, std::int64_t m) {
  double p = 1.0;
  for (std::int64_t i = 0; i < top_k; ++i) {
    const auto left = experts - m - i;
    if (left <= 0) {
      return 0.0;
    }
    p *= static_cast<double>(left) / static_cast<double>(experts - i);
  }
  return p;
}

/// The probability that none of a token's k experts lies in a set of m experts (m a multiple of
/// the group size, or a part of one group) under the model's routing (moe_spec::routing); top-k
/// over all E when the set cuts groups otherwise or the routing is not group-limited.
constexpr double none_of_top_k_routed(const moe_spec& moe, std::int64_t m) {
  const auto g = moe.routing.groups;
  const auto M = moe.routing.groups_per_token;
  if (g <= 1 || M >= g || moe.experts % g != 0) {
    return none_of_top_k_in(moe.experts, moe.top_k, m);
  }
  const auto q = moe.experts / g;  // experts per group
  const auto pool = M * q;         // the experts a token may pick from
  if (m % q == 0) {
    // The set covers c whole groups; j of them among the token's M: C(c, j)·C(g−c, M−j)/C(g, M).
    const auto c = m / q;
    const auto choose = [](std::int64_t n, std::int64_t r) {
      if (r < 0 || r > n) {
        return 0.0;
      }
      double v = 1.0;
      for (std::int64_t i = 0; i < r; ++i) {
        v = v * static_cast<double>(n - i) / static_cast<double>(i + 1);
      }
      return v;
    };
    double p = 0.0;
    for (std::int64_t j = 0; j <= c && j <= M; ++j) {
      p += choose(c, j) * choose(g - c, M - j) / choose(g, M) *
           none_of_top_k_in(pool, moe.top_k, j * q);
    }
    return p;
  }
  if (q % m == 0) {
    // Inside one group: missed when the group is not picked, or is and the k picks miss it.
    const double picked = static_cast<double>(M) / static_cast<double>(g);
    return (1.0 - picked) + picked * none_of_top_k_in(pool, moe.top_k, m);
  }
  return none_of_top_k_in(moe.experts, moe.top_k, m);
}

/// Copies of one token that one GPU sends in a dispatch (or receives back in a combine).
struct token_copies {
  double intra = 0.0;  ///< to other GPUs of its node (and forwarded there, for deep_ep)
  double inter = 0.0;  ///< to other nodes, over the GPU's NIC
};

/// How many copies of one token leave the GPU, by link, for `dispatcher` on an EP group placed
/// as `ep` with E experts and top-k (see the file comment).
constexpr token_copies copies_per_token(const moe_spec& moe, const group_placement& ep,
                                        token_dispatcher dispatcher) {
  const auto e = static_cast<double>(ep.ranks);
  const auto g = static_cast<double>(ep.per_node);
  const auto n = static_cast<double>(ep.nodes);
  const auto k = static_cast<double>(moe.top_k);
  if (dispatcher == token_dispatcher::all_to_all) {
    return {.intra = k * (g - 1.0) / e, .inter = k * (e - g) / e};
  }
  if (dispatcher == token_dispatcher::all_gather) {
    return {.intra = g - 1.0, .inter = e - g};  // every token, to every other GPU
  }
  const auto per_gpu = moe.experts / ep.ranks;
  const double gpu_hit = 1.0 - none_of_top_k_routed(moe, per_gpu);
  const double node_hit = 1.0 - none_of_top_k_routed(moe, per_gpu * ep.per_node);
  const double inter = (n - 1.0) * node_hit;
  // A token arriving in a node goes on to the node's other GPUs that hold its experts: g·gpu_hit
  // of them on average, given the node is hit, less the one it arrived on when that one is hit.
  const double forwarded = node_hit > 0.0 ? inter * (g * gpu_hit / node_hit) * (g - 1.0) / g : 0.0;
  return {.intra = (g - 1.0) * gpu_hit + forwarded, .inter = inter};
}

/// How fast a dispatcher's kernels run the links: the share of each link's per-direction
/// bandwidth they reach, a cost per peer and a fixed cost per call (see the file comment).
struct ep_kernel_rates {
  double nvlink = 1.0;   ///< η over NVLink
  double network = 1.0;  ///< η over the NIC
  seconds per_peer{};    ///< λ, per other GPU of the group (NCCL's rounds)
  seconds fixed{};       ///< τ, per call
};

/// NCCL's all-to-all, fitted on the 16 NCCL rows of arXiv:2603.07685 Table 7 (H100 nodes of 8
/// with 400 Gb/s InfiniBand, GB200 NVL72; EP 8..64): 68.5% of NVLink, 94.1% of the NIC, 1.79 µs
/// per peer. Fitted: mean |error| 3.8%, worst 8.3%; leave-one-out 4.9%, 11.3%
/// (tests/reference/ep_alltoall_table.cpp, docs/moe.md).
inline constexpr ep_kernel_rates nccl_all_to_all_rates{
    .nvlink = 0.685, .network = 0.941, .per_peer = 1.79 * units::us, .fixed = seconds{}};

/// HybridEP, fitted on the 16 HybridEP rows of the same table: 81.3% of NVLink, 83.9% of the
/// NIC, 126 µs per call. Fitted: mean |error| 4.2%, worst 12.7%; leave-one-out 5.3%, 15.0%.
inline constexpr ep_kernel_rates hybrid_ep_rates{
    .nvlink = 0.813, .network = 0.839, .per_peer = seconds{}, .fixed = 126.0 * units::us};

/// The rates `dispatcher` runs at (all_gather is priced by NCCL's tuner instead).
constexpr ep_kernel_rates ep_rates_of(token_dispatcher dispatcher) {
  return dispatcher == token_dispatcher::deep_ep ? hybrid_ep_rates : nccl_all_to_all_rates;
}

/// One dispatch or one combine on one GPU.
struct ep_all_to_all_cost {
  seconds time{};
  seconds latency{};         ///< the part of `time` that does not grow with the bytes
  bytes intra_node_bytes{};  ///< sent by the GPU over NVLink
  bytes inter_node_bytes{};  ///< sent by the GPU over its NIC
};

/// The cost of one dispatch (or combine) of `tokens` tokens of `hidden` elements of
/// `element_bytes` each (2 for BF16; 1 for an FP8 dispatch, plus its scales, which are left
/// out) held by each GPU of the EP group `ep`. Throws `invalid_spec` when E is not a multiple
/// of the EP size, or the group spans nodes without an inter-node link.
inline ep_all_to_all_cost ep_all_to_all(const cluster_topology& topology, const group_placement& ep,
                                        const moe_spec& moe, std::int64_t tokens,
                                        std::int64_t hidden, double element_bytes,
                                        token_dispatcher dispatcher, const ep_kernel_rates& rates) {
  if (!is_moe(moe) || ep.ranks < 1 || moe.experts % ep.ranks != 0) {
    throw invalid_spec("ep", "EP = " + std::to_string(ep.ranks) + " does not divide the " +
                                 std::to_string(moe.experts) +
                                 " experts; each GPU of the group holds E/EP whole experts");
  }
  if (ep.ranks == 1) {
    return {};
  }
  if (ep.spans_nodes() && !(topology.inter.bandwidth.value() > 0.0)) {
    throw invalid_spec("inter-bandwidth", "the EP group of " + std::to_string(ep.ranks) +
                                              " spans nodes; give the inter-node link");
  }
  const double token_bytes = static_cast<double>(hidden) * element_bytes;
  const double t = static_cast<double>(tokens);
  ep_all_to_all_cost out;
  if (dispatcher == token_dispatcher::all_gather) {
    const auto gather =
        nccl_cheapest_collective(topology, ep, collective_op::all_gather,
                                 static_cast<double>(ep.ranks) * t * token_bytes * units::B);
    out.time = gather.cost.time;
    out.inter_node_bytes = gather.cost.inter_node_bytes;
    out.intra_node_bytes = gather.cost.wire_bytes - gather.cost.inter_node_bytes;
    return out;
  }
  const auto copies = copies_per_token(moe, ep, dispatcher);
  out.intra_node_bytes = t * copies.intra * token_bytes * units::B;
  out.inter_node_bytes = t * copies.inter * token_bytes * units::B;
  const seconds intra = out.intra_node_bytes / (rates.nvlink * topology.intra.bandwidth);
  const seconds inter = ep.spans_nodes()
                            ? out.inter_node_bytes / (rates.network * topology.inter.bandwidth)
                            : seconds{};
  out.latency = rates.fixed + static_cast<double>(ep.ranks - 1) * rates.per_peer;
  // NCCL's rounds take the links in turn; HybridEP's NVLink and RDMA kernels run at once.
  out.time =
      out.latency + (dispatcher == token_dispatcher::deep_ep ? max(intra, inter) : intra + inter);
  return out;
}

/// ep_all_to_all at the dispatcher's fitted rates.
inline ep_all_to_all_cost ep_all_to_all(const cluster_topology& topology, const group_placement& ep,
                                        const moe_spec& moe, std::int64_t tokens,
                                        std::int64_t hidden, double element_bytes,
                                        token_dispatcher dispatcher) {
  return ep_all_to_all(topology, ep, moe, tokens, hidden, element_bytes, dispatcher,
                       ep_rates_of(dispatcher));
}

}  // namespace tpcost
