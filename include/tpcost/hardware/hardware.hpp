// Hardware as the cost models see it: links between GPUs and the node topology.
//
// Convention: a link's bandwidth is what one GPU can send in one direction (bytes/s), the
// way NCCL's bus bandwidth and the seed's `B` count it. Vendors often quote the sum of both
// directions ("900 GB/s NVLink 4" is 450 GB/s each way); presets say which they give.
#pragma once

#include <cstdint>
#include <string_view>

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

/// A GPU's architecture generation: what decides which number formats its tensor cores run
/// and how close to peak software gets.
enum class gpu_architecture { ampere, hopper, blackwell, blackwell_ultra, cdna3, cdna4 };

constexpr std::string_view to_string(gpu_architecture a) {
  switch (a) {
    case gpu_architecture::ampere:
      return "Ampere";
    case gpu_architecture::hopper:
      return "Hopper";
    case gpu_architecture::blackwell:
      return "Blackwell";
    case gpu_architecture::blackwell_ultra:
      return "Blackwell Ultra";
    case gpu_architecture::cdna3:
      return "CDNA 3";
    case gpu_architecture::cdna4:
      break;
  }
  return "CDNA 4";
}

/// Which tensor-core rate a kernel runs at.
enum class tensor_rate { bf16, fp8, fp4 };

constexpr std::string_view to_string(tensor_rate r) {
  return r == tensor_rate::bf16 ? "bf16" : r == tensor_rate::fp8 ? "fp8" : "fp4";
}

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
