// Hardware as the cost models see it: links between GPUs and the node topology.
//
// Convention: a link's bandwidth is what one GPU can send in one direction (bytes/s), the
// way NCCL's bus bandwidth and the seed's `B` count it. Vendors often quote the sum of both
// directions ("900 GB/s NVLink 4" is 450 GB/s each way); presets say which they give.
#pragma once

#include <cstdint>

#include "tpcost/base/units.hpp"

namespace tpcost {

/// One class of link as seen from one GPU: per-direction bandwidth β and per-message
/// latency α (the α–β model: sending M bytes once costs α + M/β).
struct link_spec {
  bytes_per_second bandwidth{};
  seconds latency{};
};

/// GPUs grouped in nodes: a fast link inside a node, a slower one between nodes.
/// `inter.bandwidth` is per GPU (one NIC per GPU on DGX-class nodes).
struct cluster_topology {
  std::int64_t gpus_per_node = 8;
  link_spec intra{};
  link_spec inter{};
};

}  // namespace tpcost
