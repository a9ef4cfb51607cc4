// Hardware as the cost models see it: links between GPUs and the node topology.
//
// Convention: a link's bandwidth is what one GPU can send in one direction (bytes/s), the
// way NCCL's bus bandwidth and the seed's `B` count it. Vendors often quote the sum of both
// directions ("900 GB/s NVLink 4" is 450 GB/s each way); presets say which they give.
#pragma once

#include <cstdint>
#include <string_view>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/units.hpp"

namespace tpcost {

/// One class of link as seen from one GPU: per-direction bandwidth β and per-message
/// latency α (the α–β model: sending M bytes once costs α + M/β).
struct link_spec {
  bytes_per_second bandwidth{};
  seconds latency{};
};

/// The GPU generation NCCL's tuner keys its tables on (compute capability 7.x, 8.x, 9.x,
/// 10.x; NCCL src/graph/tuning.cc, src/graph/topo.h). `unknown` uses the Ampere rows and
/// takes the NVLink bandwidth as given.
enum class gpu_generation { unknown, volta, ampere, hopper, blackwell };

/// GPUs grouped in nodes: a fast scale-up link inside a node (or a larger NVLink domain), and
/// `nics_per_node` NICs between nodes.
///
/// `inter` is ONE NIC (per direction). With `nics_per_node = 0` a node has one NIC per GPU
/// (DGX A100/H100/B200, GB200 NVL72), so `inter` is also the per-GPU inter-node link, as
/// before these fields existed. Collectives see the node's NICs as NCCL does: one or more
/// channels per NIC (comm/nccl_tuner.hpp).
struct cluster_topology {
  std::int64_t gpus_per_node = 8;
  link_spec intra{};
  link_spec inter{};
  std::int64_t nics_per_node = 0;    ///< NICs of `inter` per node; 0 = one per GPU
  std::int64_t scale_up_domain = 0;  ///< GPUs sharing one NVLink domain; 0 = one node
  /// > 0: GPUs of a node are a full mesh of peer links of this bandwidth each (AMD MI300X
  /// xGMI, 64 GB/s): a group of g GPUs in a node gets (g−1) of them, at most `intra`.
  bytes_per_second peer_link{};
  bool nvls = false;     ///< NVLink SHARP in the NVSwitches (third-generation NVSwitch, H100+)
  bool collnet = false;  ///< SHARP in the network switches (NCCL's CollNet); off unless given
  gpu_generation generation = gpu_generation::unknown;
  /// true when `intra` (`inter`) is a measured rate (a calibrated profile): NCCL's topology
  /// search is then not re-applied to it (no per-link NVLink rate, no NIC speed table).
  bool intra_measured = false;
  bool inter_measured = false;
};

/// NICs per node, with the `0 = one per GPU` default resolved.
constexpr std::int64_t nics_of(const cluster_topology& t) {
  return t.nics_per_node > 0 ? t.nics_per_node : t.gpus_per_node;
}

/// GPUs per NVLink domain: at least one node.
constexpr std::int64_t domain_of(const cluster_topology& t) {
  return t.scale_up_domain > t.gpus_per_node ? t.scale_up_domain : t.gpus_per_node;
}

/// A GPU's architecture generation: what decides which number formats its tensor cores run
/// and how close to peak software gets.
enum class gpu_architecture { ampere, hopper, blackwell, blackwell_ultra, cdna3, cdna4 };

inline constexpr std::array<enum_name<gpu_architecture>, 6> gpu_architecture_names{{
    {"Ampere", gpu_architecture::ampere},
    {"Hopper", gpu_architecture::hopper},
    {"Blackwell", gpu_architecture::blackwell},
    {"Blackwell Ultra", gpu_architecture::blackwell_ultra},
    {"CDNA 3", gpu_architecture::cdna3},
    {"CDNA 4", gpu_architecture::cdna4},
}};

constexpr std::string_view to_string(gpu_architecture a) {
  return name_of(gpu_architecture_names, a);
}

/// Which tensor-core rate a kernel runs at.
enum class tensor_rate { bf16, fp8, fp4 };

inline constexpr std::array<enum_name<tensor_rate>, 3> tensor_rate_names{{
    {"bf16", tensor_rate::bf16},
    {"fp8", tensor_rate::fp8},
    {"fp4", tensor_rate::fp4},
}};

constexpr std::string_view to_string(tensor_rate r) { return name_of(tensor_rate_names, r); }

/// The number formats a GPU's tensor cores run (what the precision recipes need).
struct precision_support {
  bool fp8 = false;           ///< FP8 tensor cores (Hopper, Blackwell, CDNA 3 and later)
  bool block_scaled = false;  ///< MX block-scaled tensor cores (Blackwell, CDNA 4)
  bool fp4 = false;           ///< FP4 tensor cores (Blackwell, CDNA 4)
  bool fp8_tn_only = false;   ///< FP8 GEMMs take only the TN layout (Hopper): TE keeps a
                              ///< transposed FP8 copy of each weight
  bool nvfp4 = false;         ///< NVIDIA's NVFP4 format (E4M3 scale per 16; Blackwell)
};

/// The formats of each generation: NVIDIA Hopper whitepaper (2022, FP8 E4M3/E5M2), Blackwell
/// whitepaper (2024, 2nd-gen Transformer Engine: MXFP8, MXFP6, MXFP4, NVFP4), AMD CDNA 3 (FP8,
/// no MX) and CDNA 4 whitepapers (2025: MXFP8, MXFP6, MXFP4; no NVFP4). The TN-only FP8 GEMM
/// of Hopper: TE v2.18 transformer_engine/pytorch/utils.py is_non_tn_fp8_gemm_supported()
/// (compute capability >= 10.0).
constexpr precision_support support_of(gpu_architecture a) {
  switch (a) {
    case gpu_architecture::ampere:
      return {};
    case gpu_architecture::hopper:
      return {.fp8 = true, .fp8_tn_only = true};
    case gpu_architecture::blackwell:
    case gpu_architecture::blackwell_ultra:
      return {.fp8 = true, .block_scaled = true, .fp4 = true, .nvfp4 = true};
    case gpu_architecture::cdna3:
      return {.fp8 = true};
    case gpu_architecture::cdna4:
      break;
  }
  return {.fp8 = true, .block_scaled = true, .fp4 = true};
}

}  // namespace tpcost
