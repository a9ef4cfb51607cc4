// NCCL's cost model of one collective: its algorithm × protocol tables and formulas, as its
// tuner computes them to choose an algorithm (NVIDIA/nccl v2.23.4-1, src/graph/tuning.cc,
// ncclTopoTuneModel and ncclTopoGetAlgoTime; NVLink per-link rates from src/graph/topo.h at
// v2.27.7-1, which adds SM100). Each (algorithm, protocol) has a latency `lat` (µs) and a
// bandwidth `bw` (GB/s, the rate the message moves at); a call of M bytes takes
//   T = lat + M / bw                                        (ncclTopoGetAlgoTime)
// and the tuner takes the smallest T. M is the full message (the output of an all-gather,
// the input of a reduce-scatter), as NCCL sizes all-gather/reduce-scatter (count · nRanks).
//
// NCCL's tuner reads its bandwidths from the channels its topology search built. We do not
// rerun that search; we rebuild its result from the hardware (nccl_view below, documented in
// docs/collectives.md):
//  - NVLink: NCCL sees each link at its own rate (topo.h: 20 GB/s per NVLink 2/3 link,
//    20.6 per NVLink 4 link, 40.1 per NVLink 5 link) against the datasheet's 25/25/50 GB/s per
//    direction: 240 GB/s per A100, 370.8 per H100. Measured single-node ring busbw is
//    230-235 GB/s (A100) and 360-370 GB/s (H100; NVIDIA/nccl#1455).
//  - NICs: the search gives each channel a speed from its table (search.cc speedArrayInter,
//    sm90SpeedArrayInter) and runs two channels per NIC: a 400 Gb/s NIC (50 GB/s) becomes
//    2 × 24 = 48 GB/s, a 200 Gb/s one 2 × 12 = 24 GB/s. Its maintainers quote 46-48 GB/s per
//    NDR NIC (NVIDIA/nccl-tests#290).
//  - a ring or a tree leaving a node uses the NICs of the node that its members can reach:
//    a ring crosses each node boundary once per channel, so its bus bandwidth is
//    min(NVLink, the NICs' sum), not one NIC's (nccl-tests doc/PERFORMANCE.md: busbw is the
//    per-hop rate of the ring).
//  - NVLS: one channel per GPU of the domain at a speed of sm90SpeedArrayIntra that the GPU's
//    NVLink can feed: 8 × 40 = 320 GB/s on 8 H100, algbw = 320 · 5/6 = 267 GB/s, i.e. busbw
//    467 GB/s (measured 480: /work/shared nccl_allreduce_single_node.json, DGX H100).
//  - NVLS-tree across domains: its inter-node tree carries the ring's bytes per NIC; measured
//    busbw is the ring's, 370-380 GB/s on DGX H100 nodes (GTC 2024 S62129, quoted in
//    NVIDIA/nccl#1649), so its bandwidth is capped by the NICs as a ring's is.
//  - CollNet (SHARP): busbw from the NICs, with tuning.cc's GPU:NIC factor and Hopper 0.85.
// Defaults NCCL assumes and we assume too: an Intel x86 host (netOverhead 1 µs, llMaxBws row
// 0), no net latency from the plugin (graph latencyInter = 0), NVLink hardware tables for the
// intra-node hops (a PCIe-only node is costed as NVLink; give a profile for it).
// The topology's own latencies replace NCCL's Simple-protocol constants: `intra.latency` for
// hwLat[NVLINK][Ring][Simple] (3.4 µs) and `inter.latency` for hwLat[NET][Ring|Tree][Simple]
// (14 µs), so a calibrated α carries through; every other constant is NCCL's table.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>

#include "tpcost/comm/collectives.hpp"
#include "tpcost/hardware/hardware.hpp"

namespace tpcost {

/// What NCCL's tuner knows of one communicator, in its units (GB/s = 1e9 B/s, µs). A "node"
/// here is an NVLink domain, as NCCL counts nodes (NCCL >= 2.20 treats a multi-node NVLink
/// clique as one node).
struct nccl_view {
  std::int64_t ranks = 1;
  std::int64_t nodes = 1;      ///< NVLink domains the group spans
  double ppn = 1.0;            ///< ranks per domain: ranks / nodes
  double intra_gbs = 0.0;      ///< per-GPU NVLink bandwidth, NCCL's view
  double net_gbs = 0.0;        ///< the NICs one domain's part of the group uses, NCCL's view
  double nics = 0.0;           ///< how many NICs (may be a share of one) that is
  double channels = 1.0;       ///< channels of the ring/tree graph (per-channel caps)
  double nvls_gbs = 0.0;       ///< nChannels·bw of the NVLS graph; 0 without NVLS
  double intra_lat_us = 3.4;   ///< hwLat[NVLINK][Ring][Simple] or the topology's α_intra
  double inter_lat_us = 14.0;  ///< hwLat[NET][Ring/Tree][Simple] or the topology's α_inter
  gpu_generation generation = gpu_generation::unknown;
  bool nvls = false;
  bool collnet = false;
  bool ll128 = true;  ///< NCCL enables LL128 by default on NVLink Volta..Hopper (and later)
};

/// NCCL's estimate for one algorithm and protocol: 0 bandwidth = not available.
struct nccl_estimate {
  double latency_us = 0.0;
  double bandwidth_gbs = 0.0;
  [[nodiscard]] constexpr bool available() const { return bandwidth_gbs > 0.0; }
};

namespace nccl {

inline constexpr std::size_t ll = 0;
inline constexpr std::size_t ll128 = 1;
inline constexpr std::size_t simple = 2;
constexpr std::size_t index(nccl_protocol p) {
  return p == nccl_protocol::ll ? ll : p == nccl_protocol::ll128 ? ll128 : simple;
}

// tuning.cc v2.23.4-1: baseLat[algo][proto] (µs); only Tree and Ring have one.
inline constexpr std::array<double, 3> base_lat_tree{6.8, 14.0, 8.4};
inline constexpr std::array<double, 3> base_lat_ring{6.6, 14.0, 8.4};
// hwLat[NVLINK][algo][proto] (µs).
inline constexpr std::array<double, 3> nvlink_lat_tree{0.6, 1.25, 4.0};
inline constexpr std::array<double, 3> nvlink_lat_ring{0.6, 1.9, 3.4};
inline constexpr double nvlink_lat_collnet_direct = 3.7;
inline constexpr double nvlink_lat_collnet_chain = 2.8;
inline constexpr double nvlink_lat_nvls = 25.0;
inline constexpr double nvlink_lat_nvls_tree = 25.0;
// hwLat[NET][algo][proto] (µs).
inline constexpr std::array<double, 3> net_lat_tree{5.0, 8.5, 14.0};
inline constexpr std::array<double, 3> net_lat_ring{2.7, 4.0, 14.0};
inline constexpr double net_lat_collnet_direct = 31.0;
inline constexpr double net_lat_collnet_chain = 30.0;
inline constexpr double net_lat_nvls = 18.0;
inline constexpr double net_lat_nvls_tree = 14.0;
/// getNetOverhead on an Intel x86 host (µs), tripled for Simple.
inline constexpr double net_overhead_us = 1.0;

/// Rows Volta, Ampere, Hopper of the per-arch tables.
constexpr std::size_t arch_row(gpu_generation g) {
  switch (g) {
    case gpu_generation::volta:
      return 0;
    case gpu_generation::hopper:
    case gpu_generation::blackwell:
      return 2;
    case gpu_generation::ampere:
    case gpu_generation::unknown:
      return 1;
  }
  return 1;
}
// llMaxBws[row][nodes: 1, 2, >2] (GB/s); multi-node rows are the CPU's (Intel: row 0).
inline constexpr std::array<std::array<double, 3>, 3> ll_max_bws{
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}}};
inline constexpr std::array<std::array<double, 3>, 3> per_ch_max_ring_ll128_bws{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}}};
inline constexpr std::array<std::array<double, 3>, 3> per_ch_max_tree_ll128_bws{
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}}};
inline constexpr std::array<std::array<double, 3>, 3> per_ch_max_tree_bws{
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}}};
// treeCorrectionFactor[proto][log2(bytes/64)], 64 B to 256 MB.
inline constexpr std::array<std::array<double, 23>, 3> tree_correction{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
}};
// search.cc v2.23.4-1: channel speeds (GB/s) the topology search tries, fastest first.
inline constexpr std::array<double, 19> speed_inter{48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0,
                                                    12.0, 10.0, 9.0,  7.0,  6.0,  5.0,  4.0,
                                                    3.0,  2.4,  1.2,  0.24, 0.12};
inline constexpr std::array<double, 17> sm90_speed_inter{48.0, 45.0, 42.0, 40.0, 30.0, 24.0,
                                                         22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
                                                         3.0,  2.4,  1.2,  0.24, 0.12};
inline constexpr std::array<double, 11> sm90_speed_intra{60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                                         15.0, 12.0, 11.0, 6.0,  3.0};

/// The fastest entry of a speed table at most `limit`; below the table, `limit` itself. NCCL
/// stops its search at the last entry, but a link slower than that (a 1 Gb/s NIC, or an
/// absurd `--intra-bandwidth 1e-320`) cannot carry a channel at the table's floor, and
/// taking the floor made such a link look fast.
template <std::size_t N>
constexpr double speed_at_most(const std::array<double, N>& table, double limit) {
  for (const double s : table) {
    if (s <= limit) {
      return s;
    }
  }
  return std::min(table.back(), limit);
}

/// floor(log2(n)) for n >= 1 (NCCL's log2i).
constexpr std::int64_t log2i(std::int64_t n) {
  std::int64_t r = 0;
  while (n > 1) {
    n >>= 1;
    ++r;
  }
  return r;
}

/// NCCL's per-link NVLink rate over the datasheet's per-direction rate (topo.h):
/// SM70/SM80 20 of 25 GB/s, SM90 20.6 of 25, SM100 40.1 of 50; 1 when not known.
constexpr double nvlink_share(gpu_generation g) {
  switch (g) {
    case gpu_generation::volta:
    case gpu_generation::ampere:
      return 20.0 / 25.0;
    case gpu_generation::hopper:
      return 20.6 / 25.0;
    case gpu_generation::blackwell:
      return 40.1 / 50.0;
    case gpu_generation::unknown:
      return 1.0;
  }
  return 1.0;
}

/// One NIC of `gbs` as NCCL's search sees it: two channels at the table speed that half the
/// NIC can carry (a measured NIC is taken as it is).
constexpr double nic_gbs(double gbs, gpu_generation g, bool measured) {
  if (measured || !(gbs > 0.0)) {
    return gbs;
  }
  const bool sm90 = g == gpu_generation::hopper || g == gpu_generation::blackwell;
  return 2.0 * (sm90 ? speed_at_most(sm90_speed_inter, gbs / 2.0)
                     : speed_at_most(speed_inter, gbs / 2.0));
}

}  // namespace nccl

/// NCCL's latency and bandwidth of `algorithm` with `protocol` for `op` on `v`
/// (ncclTopoTuneModel, v2.23.4-1). Unavailable pairs have bandwidth 0: Tree, NVLS-tree and
/// CollNet are all-reduce only; PAT is all-gather/reduce-scatter with one GPU per node;
/// NVLS, NVLS-tree and CollNet run Simple only; NVLS needs NVLink SHARP and, across nodes,
/// CollNet (v2.23 disables multi-node NVLS without it); NVLS-tree needs two or more nodes;
/// `seed` and `hierarchical` are not NCCL's.
inline nccl_estimate nccl_tune(const nccl_view& v, collective_op op, collective_algorithm algorithm,
                               nccl_protocol protocol) {
  using namespace nccl;
  const std::size_t p = index(protocol);
  const bool ar = op == collective_op::all_reduce;
  const std::int64_t n = v.ranks;
  const std::int64_t k = v.nodes;
  if (n <= 1) {
    return {};
  }
  const std::size_t row = arch_row(v.generation);
  const std::size_t col = k <= 2 ? static_cast<std::size_t>(k - 1) : 2;
  const double ll_max = ll_max_bws[k == 1 ? row : 0][col];
  const std::int64_t nsteps = ring_steps(op, n);
  // The graph's bus bandwidth of a ring or tree: NVLink inside one domain, the slower of
  // NVLink and the NICs across domains (one GPU per domain: only the NICs).
  const double graph_bw =
      k == 1 ? v.intra_gbs : (v.ppn > 1.0 ? std::min(v.intra_gbs, v.net_gbs) : v.net_gbs);
  nccl_estimate e;
  if (protocol == nccl_protocol::ll128 && !v.ll128) {
    return {};
  }
  switch (algorithm) {
    case collective_algorithm::ring: {
      double bw = graph_bw;
      if (p == ll) {
        bw = std::min(ll_max, bw * 0.5);
      } else if (p == ll128) {
        bw = std::min(bw * 0.92, v.channels * per_ch_max_ring_ll128_bws[row][col]);
      }
      e.bandwidth_gbs = bw * static_cast<double>(n) / static_cast<double>(nsteps);
      double intra_lat = p == simple ? v.intra_lat_us : nvlink_lat_ring[p];
      const double inter_lat =
          p == simple ? v.inter_lat_us : (v.ppn == 1.0 ? net_lat_tree[p] : net_lat_ring[p]);
      if (k > 1) {
        intra_lat = std::max(intra_lat, p == simple ? 3.0 * net_overhead_us : net_overhead_us);
      }
      const std::int64_t inter_steps = k == 1 ? 0 : (ar ? 2 * (k - 1) : k - 1);
      e.latency_us = base_lat_ring[p] + static_cast<double>(nsteps - inter_steps) * intra_lat +
                     static_cast<double>(inter_steps) * inter_lat;
      return e;
    }
    case collective_algorithm::tree: {
      if (!ar) {
        return {};
      }
      double bw = std::min(graph_bw * 0.92, v.channels * per_ch_max_tree_bws[row][col]);
      if (p == ll) {
        bw = std::min(bw / 3.8, ll_max);
      } else if (p == ll128) {
        bw = std::min(bw * (k == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                      v.channels * per_ch_max_tree_ll128_bws[row][col]);
      }
      e.bandwidth_gbs = bw * 0.5;
      const double intra_lat = nvlink_lat_tree[p];
      const double inter_lat = p == simple ? v.inter_lat_us : net_lat_tree[p];
      e.latency_us = base_lat_tree[p] +
                     2.0 * ((v.ppn - 1.0) * intra_lat + static_cast<double>(log2i(k)) * inter_lat);
      return e;
    }
    case collective_algorithm::nvls: {
      if (p != simple || !v.nvls || v.nvls_gbs <= 0.0 || (k > 1 && !v.collnet)) {
        return {};
      }
      const double bw = k == 1 ? v.nvls_gbs : std::min(v.nvls_gbs, v.net_gbs);
      e.bandwidth_gbs = ar ? bw * 5.0 / 6.0 : bw;
      e.latency_us = nvlink_lat_nvls + (k > 1 ? net_lat_nvls : 0.0);
      return e;
    }
    case collective_algorithm::nvls_tree: {
      if (!ar || p != simple || !v.nvls || v.nvls_gbs <= 0.0 || k == 1) {
        return {};
      }
      const double net = k <= 2 ? v.net_gbs : v.net_gbs / 2.0;
      // Measured NVLS-tree busbw equals the ring's across nodes (header): the NICs carry the
      // ring's 2(n-1)/n share.
      const double ring_like = v.net_gbs * static_cast<double>(n) / static_cast<double>(nsteps);
      e.bandwidth_gbs = std::min(std::min(v.nvls_gbs, net) * 5.0 / 6.0, ring_like);
      e.latency_us = nvlink_lat_nvls_tree + 2.0 * static_cast<double>(log2i(k)) * net_lat_nvls_tree;
      return e;
    }
    case collective_algorithm::pat: {
      if (ar || p != simple || v.ppn != 1.0) {
        return {};
      }
      e.bandwidth_gbs = graph_bw * 0.85;
      e.latency_us = 8.0 + static_cast<double>(log2i(k)) * (v.inter_lat_us / 3.5) +
                     static_cast<double>(n) * 2.8;
      return e;
    }
    case collective_algorithm::collnet_direct:
    case collective_algorithm::collnet_chain: {
      if (!ar || p != simple || !v.collnet || k == 1) {
        return {};
      }
      const double intra_lat = algorithm == collective_algorithm::collnet_direct
                                   ? nvlink_lat_collnet_direct
                                   : nvlink_lat_collnet_chain;
      const double inter_lat = algorithm == collective_algorithm::collnet_direct
                                   ? net_lat_collnet_direct
                                   : net_lat_collnet_chain;
      // SHARP reduces in the switch: each domain sends its data up once and receives the
      // result, so the NICs pace M, not 2(n-1)/n·M; busBw·0.5 = algbw as in tuning.cc.
      double bw = std::min(v.intra_gbs, 2.0 * v.net_gbs);
      if (algorithm == collective_algorithm::collnet_direct) {
        double factor = v.ppn / std::max(1.0, v.nics);  // GPU:NIC ratio
        factor -= (factor - 1.0) / 2.0;
        bw /= std::max(1.0, factor);
        if (v.generation == gpu_generation::hopper || v.generation == gpu_generation::blackwell) {
          bw *= 0.85;
        }
        e.latency_us =
            2.0 * (std::min(1.0, v.ppn - 1.0) * intra_lat + (v.ppn - 1.0) * 0.4) + inter_lat;
      } else {
        e.latency_us = 2.0 * (v.ppn - 1.0) * intra_lat + inter_lat;
      }
      e.bandwidth_gbs = bw * 0.5;
      return e;
    }
    case collective_algorithm::article:
    case collective_algorithm::hierarchical:
      return {};
  }
  return {};
}

/// NCCL's time (µs) for `bytes` with this algorithm and protocol, or nothing when it is not
/// available (ncclTopoGetAlgoTime: the tree's size correction, the ring's multi-node Simple
/// plateau ×1.4 from Ampere, ×1.9 before).
inline std::optional<double> nccl_time_us(const nccl_view& v, collective_op op,
                                          collective_algorithm algorithm, nccl_protocol protocol,
                                          double message_bytes) {
  const auto e = nccl_tune(v, op, algorithm, protocol);
  if (!e.available()) {
    return std::nullopt;
  }
  double bw = e.bandwidth_gbs;
  double lat = e.latency_us;
  const double chunks = message_bytes / 64.0;
  if (algorithm == collective_algorithm::tree && op == collective_op::all_reduce && chunks >= 1.0) {
    const auto log_size = static_cast<std::int64_t>(std::floor(std::log2(chunks)));
    if (log_size >= 0 && log_size < 23) {
      bw *= nccl::tree_correction[nccl::index(protocol)][static_cast<std::size_t>(log_size)];
    }
  }
  if (algorithm == collective_algorithm::ring && protocol == nccl_protocol::simple && v.nodes > 1 &&
      op == collective_op::all_reduce &&
      message_bytes / (v.channels * static_cast<double>(v.ranks)) >= 64.0) {
    lat *= v.generation == gpu_generation::volta ? 1.9 : 1.4;
  }
  return lat + message_bytes / (1000.0 * bw);
}

/// The NCCL algorithms `auto` chooses among, in NCCL's order (NCCL_ALGO names).
inline constexpr std::array<collective_algorithm, 7> nccl_algorithms{
    collective_algorithm::tree,
    collective_algorithm::ring,
    collective_algorithm::collnet_direct,
    collective_algorithm::collnet_chain,
    collective_algorithm::nvls,
    collective_algorithm::nvls_tree,
    collective_algorithm::pat};
inline constexpr std::array<nccl_protocol, 3> nccl_protocols{
    nccl_protocol::ll, nccl_protocol::ll128, nccl_protocol::simple};

/// The best protocol for one algorithm and its time (µs), or nothing when unavailable.
struct nccl_choice {
  collective_algorithm algorithm = collective_algorithm::ring;
  nccl_protocol protocol = nccl_protocol::simple;
  double time_us = 0.0;
};
inline std::optional<nccl_choice> nccl_best_protocol(const nccl_view& v, collective_op op,
                                                     collective_algorithm algorithm,
                                                     double message_bytes) {
  std::optional<nccl_choice> best;
  for (const auto protocol : nccl_protocols) {
    const auto t = nccl_time_us(v, op, algorithm, protocol, message_bytes);
    if (t && (!best || *t < best->time_us)) {
      best = nccl_choice{algorithm, protocol, *t};
    }
  }
  return best;
}

}  // namespace tpcost
