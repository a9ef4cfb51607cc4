// The fraction of a GPU's datasheet peaks that training software reaches, per architecture
// generation and tensor-core rate: η_mm of the dense tensor-core peak for large matmuls and
// η_bw of the HBM bandwidth for memory-bound kernels (compute_model.hpp uses both).
//
// Every entry names where it comes from: a published measurement, a fit on the development
// rows of this project (the leave-one-out error is in docs/precision.md), or, where neither
// exists, the assumption that the generation behaves like the one it is closest to. The
// fitted entries are fitted on development rows only, never on the runs the project is
// judged on.
#pragma once

#include <string_view>

#include "tpcost/hardware/hardware.hpp"

namespace tpcost {

/// η_mm, η_bw and the fused attention kernel's η with their source.
struct sourced_efficiency {
  double matmul = 0.75;    ///< of the dense peak of the rate, large matmuls
  double memory = 0.66;    ///< of the HBM bandwidth, memory-bound kernels
  double attention = 0.0;  ///< fused attention, of its rate's peak, counted on the full s×s
                           ///< score matrix as model FLOPs count it (a causal kernel does half
                           ///< that work, so it runs at attention/2 of peak); 0 = matmul
  std::string_view source;
};

namespace detail::efficiency {
inline constexpr std::string_view a100 =
    "A100 BF16: eta_mm 0.75 calibrated on the 27.2 ms of a 22B layer (Korthikanti et al. 2022, "
    "arXiv:2205.05198, Table 4); eta_bw 0.66 fitted to Narayanan et al. 2021 Table 1";
inline constexpr std::string_view like_a100 =
    "assumption: no published measurement or development row for this generation and rate; "
    "the A100 BF16 values";
inline constexpr std::string_view hopper_bf16 =
    "Hopper BF16: eta_mm 0.73 fitted on the 8 DGX Cloud Nemotron-4 15B BF16 rows (NeMo 25.02, "
    "tests/reference/cp_fp8_dev_rows.json; leave-one-out error mean 1.0%, worst 2.2%); "
    "attention 0.53 fitted on the 9 NeMo long-sequence Llama-2 7B H100 rows (4k-1M tokens, CP "
    "1-32; leave-one-out mean 4.1%, worst 7.7%); eta_bw the A100's 0.66 (not fitted)";
inline constexpr std::string_view hopper_fp8 =
    "Hopper FP8: eta_mm 0.68 fitted on the 8 DGX Cloud Nemotron-4 15B FP8 rows (leave-one-out "
    "mean 2.2%, worst 3.4%); attention as BF16 (FP8 attention not fitted); eta_bw 0.66";
inline constexpr std::string_view blackwell_fp8 =
    "Blackwell FP8: eta_mm 0.52 and attention 0.71 fitted together on the 6 consistent NeMo "
    "long-sequence Llama-3 8B B200 rows (8k-256k tokens; leave-one-out mean 2.2% / 1.9%, worst "
    "4.6% / 4.3%); eta_bw 0.66 (not fitted)";
inline constexpr std::string_view blackwell_other =
    "assumption: no development row for Blackwell at this rate; eta_mm the Blackwell FP8 fit "
    "scaled as Hopper's BF16/FP8 ratio (0.73/0.68) for BF16, the FP8 fit for FP4; attention "
    "the Blackwell fit";
}  // namespace detail::efficiency

/// The default η_mm, η_bw and attention η for kernels of `rate` on `arch` (attention: of the
/// BF16 peak for BF16 attention).
constexpr sourced_efficiency default_efficiency(gpu_architecture arch, tensor_rate rate) {
  using namespace detail::efficiency;
  switch (arch) {
    case gpu_architecture::ampere:
      return {0.75, 0.66, 0.0, rate == tensor_rate::bf16 ? a100 : like_a100};
    case gpu_architecture::hopper:
      return rate == tensor_rate::bf16 ? sourced_efficiency{0.73, 0.66, 0.53, hopper_bf16}
                                       : sourced_efficiency{0.68, 0.66, 0.53, hopper_fp8};
    case gpu_architecture::blackwell:
    case gpu_architecture::blackwell_ultra:
      return rate == tensor_rate::fp8   ? sourced_efficiency{0.52, 0.66, 0.71, blackwell_fp8}
             : rate == tensor_rate::fp4 ? sourced_efficiency{0.52, 0.66, 0.71, blackwell_other}
                                        : sourced_efficiency{0.56, 0.66, 0.71, blackwell_other};
    case gpu_architecture::cdna3:
    case gpu_architecture::cdna4:
      break;
  }
  return {0.75, 0.66, 0.0, like_a100};
}

}  // namespace tpcost
