// Hardware presets: GPUs (peak rates, memory, the link inside a node) and inter-node links,
// every number with the document it comes from. This file is the one place to read them.
//
// Conventions, per field:
// - Peak rates are DENSE (no 2:4 structured sparsity). NVIDIA's datasheets print the sparse
//   figure for tensor-core types ("1,979 TFLOPS*", * = with sparsity); the preset holds half
//   of it and its source says so. `fp64` is the FP64 tensor-core (matrix) rate where the part
//   has one, `fp32` the non-tensor (vector) FP32 rate, `tf32` the TF32 tensor-core rate.
//   A rate of 0 means the part has no such mode (A100 has no FP8).
// - Memory capacity: vendors write "80GB" for HBM whose size is binary (an 80GB A100 reports
//   81920 MiB in nvidia-smi), so the preset reads the datasheet figure as GiB. Memory
//   bandwidth is decimal, as datasheets mean it (3.35 TB/s = 3.35e12 B/s).
// - Link bandwidth is PER DIRECTION, what one GPU can send while it also receives (the
//   convention of hardware.hpp, of nccl-tests' bus bandwidth and of the seed's B). Vendors
//   quote NVLink as the sum of both directions ("900 GB/s" is 450 GB/s each way); networks
//   quote one direction in bits ("400Gb/s" is 50 GB/s each way).
// - Link latency is the per-step latency α of the ring model t = steps·α + bytes/β. No
//   datasheet gives it; the presets take the constant NCCL's own tuner assumes for one ring
//   step with the Simple protocol, the one NCCL picks for the megabyte-sized messages of
//   tensor parallelism (NCCL 2.20.3 src/graph/tuning.cc, hwLat[...][Ring][Simple]); the
//   value for the LL protocol (small messages) is in the source text. These are model
//   constants, not measurements of the link: calibrate from your own nccl-tests runs
//   (`tpcost calibrate`) for numbers you can trust.
//
// A preset is a plain aggregate: copy it and change any field (a config loader does). A
// `source` is a std::string_view: point it at text that outlives the preset.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tpcost/base/dtype.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/suggest.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/hardware/hardware.hpp"

namespace tpcost {

/// A number and where it comes from (datasheet, paper, or "assumption: ...").
template <class T>
struct sourced {
  T value{};
  std::string_view source;
};

/// Dense peak compute rates of one GPU, per element type; 0 = not supported.
struct peak_rates {
  sourced<flops_per_second> fp64;  ///< FP64 tensor core (matrix) where the part has one
  sourced<flops_per_second> fp32;  ///< FP32 without tensor cores (vector)
  sourced<flops_per_second> tf32;  ///< TF32 tensor core, dense
  sourced<flops_per_second> bf16;  ///< BF16 tensor core, dense, FP32 accumulate
  sourced<flops_per_second> fp16;  ///< FP16 tensor core, dense, FP32 accumulate
  sourced<flops_per_second> fp8;   ///< FP8 tensor core, dense; 0 where there is none
  sourced<flops_per_second> fp4;   ///< FP4 tensor core (NVFP4/MXFP4), dense; 0 = none
};

/// A class of link: its name, per-direction bandwidth β and per-step latency α.
struct link_preset {
  std::string_view name;  ///< "NVLink 4 (NVSwitch)"
  sourced<bytes_per_second> bandwidth;
  sourced<seconds> latency;

  [[nodiscard]] constexpr link_spec link() const { return {bandwidth.value, latency.value}; }
};

/// One GPU model as it sits in its usual node.
struct gpu_preset {
  std::string_view name;                    ///< canonical, e.g. "H100-SXM"
  std::string_view description;             ///< "NVIDIA H100 SXM5 80GB (Hopper)"
  std::array<std::string_view, 5> aliases;  ///< other names it answers to; "" = unused
  std::string_view reference;               ///< the main document, short, for tables
  peak_rates peak;
  sourced<bytes> memory;  ///< HBM capacity
  sourced<bytes_per_second> memory_bandwidth;
  sourced<std::int64_t> gpus_per_node;               ///< GPUs that share the intra-node link
  link_preset intra;                                 ///< the link between GPUs of one node
  gpu_architecture arch = gpu_architecture::ampere;  ///< formats and efficiency generation
  /// The inter-node preset (its name) of the GPU's reference system: what the commands pair
  /// it with when no --interconnect is given, and say so (reference_interconnect).
  sourced<std::string_view> scale_out;
};

/// An inter-node link, per GPU (one NIC port per GPU, as on DGX-class nodes).
struct interconnect_preset {
  std::string_view name;
  std::string_view description;
  std::array<std::string_view, 5> aliases;
  std::string_view reference;
  link_preset link;
};

namespace detail::presets {
using namespace units;
inline constexpr flops_per_second tflops = TFLOP / s;
inline constexpr bytes_per_second gbs = GB / s;

// Latency constants of NCCL's tuner (NCCL 2.20.3, src/graph/tuning.cc, hwLat in µs).
inline constexpr std::string_view nccl_nvlink_latency =
    "NCCL 2.20.3 src/graph/tuning.cc hwLat[NVLINK][Ring][Simple] = 3.4 us (LL: 0.6 us; "
    "base latency per collective 8.4 us not included): NCCL's tuner constant, not a "
    "measurement";
inline constexpr std::string_view nccl_pci_latency =
    "NCCL 2.20.3 src/graph/tuning.cc hwLat[PCI][Ring][Simple] = 5.7 us (LL: 1.0 us): NCCL's "
    "tuner constant, not a measurement";
inline constexpr std::string_view nccl_net_latency =
    "NCCL 2.20.3 src/graph/tuning.cc hwLat[NET][Ring][Simple] = 14 us (LL: 2.7 us), one "
    "constant for every network: NCCL's tuner constant, not a measurement of this fabric";

inline constexpr link_preset nvlink3{
    "NVLink 3 (NVSwitch)",
    {300 * gbs,
     "NVIDIA A100 datasheet (2021): NVLink 600 GB/s, the sum of both directions -> 300 GB/s "
     "per direction"},
    {3.4 * us, nccl_nvlink_latency}};
inline constexpr link_preset nvlink4{
    "NVLink 4 (NVSwitch)",
    {450 * gbs,
     "NVIDIA H100 datasheet (2023): NVLink 900 GB/s, the sum of both directions -> 450 GB/s "
     "per direction"},
    {3.4 * us, nccl_nvlink_latency}};
inline constexpr link_preset nvlink5{
    "NVLink 5 (NVSwitch)",
    {900 * gbs,
     "NVIDIA HGX B200 / GB200 NVL72 datasheet (2024): 5th-generation NVLink 1.8 TB/s per GPU, "
     "the sum of both directions -> 900 GB/s per direction"},
    {3.4 * us, nccl_nvlink_latency}};
}  // namespace detail::presets

/// The GPU presets. Sources are vendor datasheets; where a number could not be checked
/// against the vendor's own PDF for this table, its source says so.
inline constexpr std::array<gpu_preset, 13> gpu_presets =
    [] {
      using namespace detail::presets;
      return std::array<gpu_preset, 13>{{
          {
              .name = "A100-SXM4-80GB",
              .description = "NVIDIA A100 SXM4 80GB (Ampere), HGX/DGX A100 node",
              .aliases = {"a100", "a100-sxm", "a100-sxm4", "a100-80gb", "a100-sxm-80gb"},
              .reference = "NVIDIA A100 datasheet (2021)",
              .peak =
                  {
                      .fp64 = {19.5 * tflops,
                               "NVIDIA A100 datasheet (2021): FP64 Tensor Core 19.5 TFLOPS (FP64 "
                               "vector 9.7)"},
                      .fp32 = {19.5 * tflops, "NVIDIA A100 datasheet (2021): FP32 19.5 TFLOPS"},
                      .tf32 = {156 * tflops,
                               "NVIDIA A100 datasheet (2021): TF32 Tensor Core 156 TFLOPS dense "
                               "(312 with sparsity)"},
                      .bf16 = {312 * tflops,
                               "NVIDIA A100 datasheet (2021): BF16 Tensor Core 312 TFLOPS dense "
                               "(624 with sparsity)"},
                      .fp16 = {312 * tflops,
                               "NVIDIA A100 datasheet (2021): FP16 Tensor Core 312 TFLOPS dense "
                               "(624 with sparsity)"},
                      .fp8 = {0 * tflops, "Ampere has no FP8 tensor cores"},
                      .fp4 = {0 * tflops, "Ampere has no FP4 tensor cores"},
                  },
              .memory = {80 * GiB, "NVIDIA A100 datasheet (2021): 80GB HBM2e"},
              .memory_bandwidth = {2039 * gbs, "NVIDIA A100 datasheet (2021): 2,039 GB/s (SXM)"},
              .gpus_per_node = {8, "NVIDIA DGX A100 / HGX A100 8-GPU: 8 GPUs per NVSwitch node"},
              .intra = nvlink3,
              .arch = gpu_architecture::ampere,
              .scale_out = {"IB-HDR",
                            "DGX A100: 8 x single-port ConnectX-6 HDR 200 Gb/s, one per GPU "
                            "(NVIDIA DGX A100 user guide, hardware overview)"},
          },
          {
              .name = "A100-PCIe-80GB",
              .description = "NVIDIA A100 PCIe 80GB (Ampere), 8 cards on PCIe Gen4 without NVLink",
              .aliases = {"a100-pcie", "", "", "", ""},
              .reference = "NVIDIA A100 datasheet (2021)",
              .peak =
                  {
                      .fp64 = {19.5 * tflops,
                               "NVIDIA A100 datasheet (2021): FP64 Tensor Core 19.5 TFLOPS, the "
                               "same peak for PCIe (300 W caps sustained clocks)"},
                      .fp32 = {19.5 * tflops, "NVIDIA A100 datasheet (2021): FP32 19.5 TFLOPS"},
                      .tf32 = {156 * tflops,
                               "NVIDIA A100 datasheet (2021): TF32 Tensor Core 156 TFLOPS dense "
                               "(312 with sparsity)"},
                      .bf16 = {312 * tflops,
                               "NVIDIA A100 datasheet (2021): BF16 Tensor Core 312 TFLOPS dense "
                               "(624 with sparsity)"},
                      .fp16 = {312 * tflops,
                               "NVIDIA A100 datasheet (2021): FP16 Tensor Core 312 TFLOPS dense "
                               "(624 with sparsity)"},
                      .fp8 = {0 * tflops, "Ampere has no FP8 tensor cores"},
                      .fp4 = {0 * tflops, "Ampere has no FP4 tensor cores"},
                  },
              .memory = {80 * GiB, "NVIDIA A100 datasheet (2021): 80GB HBM2e"},
              .memory_bandwidth = {1935 * gbs, "NVIDIA A100 datasheet (2021): 1,935 GB/s (PCIe)"},
              .gpus_per_node = {8,
                                "assumption: a common 8-card PCIe server; the datasheet fixes no "
                                "node size"},
              .intra =
                  {
                      "PCIe Gen4 x16",
                      {32 * gbs,
                       "NVIDIA A100 datasheet (2021): PCIe Gen4 64 GB/s, the sum of both "
                       "directions -> 32 GB/s per direction (the optional NVLink bridge joins "
                       "only 2 cards)"},
                      {5.7 * units::us, nccl_pci_latency},
                  },
              .arch = gpu_architecture::ampere,
              .scale_out =
                  {"IB-HDR",
                   "no NVIDIA reference node for the PCIe card: the NIC of its generation's DGX "
                   "A100, 8 x ConnectX-6 HDR 200 Gb/s, one per GPU (NVIDIA DGX A100 user guide)"},
          },
          {
              .name = "H100-SXM",
              .description = "NVIDIA H100 SXM5 80GB (Hopper), HGX/DGX H100 node",
              .aliases = {"h100", "h100-sxm5", "h100-sxm5-80gb", "h100-sxm-80gb", "h100-80gb"},
              .reference = "NVIDIA H100 datasheet (2023), Hopper whitepaper (2022)",
              .peak =
                  {
                      .fp64 = {66.9 * tflops,
                               "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): FP64 "
                               "Tensor 66.9 TFLOPS (datasheet rounds to 67)"},
                      .fp32 = {66.9 * tflops,
                               "NVIDIA Hopper whitepaper (2022): FP32 66.9 TFLOPS (datasheet 67)"},
                      .tf32 = {494.7 * tflops,
                               "NVIDIA Hopper whitepaper (2022): TF32 Tensor 494.7 TFLOPS dense "
                               "(datasheet: 989 with sparsity)"},
                      .bf16 = {989.4 * tflops,
                               "NVIDIA Hopper whitepaper (2022): BF16 Tensor 989.4 TFLOPS dense "
                               "(datasheet: 1,979 with sparsity)"},
                      .fp16 = {989.4 * tflops,
                               "NVIDIA Hopper whitepaper (2022): FP16 Tensor 989.4 TFLOPS dense "
                               "(datasheet: 1,979 with sparsity)"},
                      .fp8 = {1978.9 * tflops,
                              "NVIDIA Hopper whitepaper (2022): FP8 Tensor 1978.9 TFLOPS dense "
                              "(datasheet: 3,958 with sparsity)"},
                      .fp4 = {0 * tflops, "Hopper has no FP4 tensor cores"},
                  },
              .memory = {80 * GiB, "NVIDIA H100 datasheet (2023): 80GB HBM3"},
              .memory_bandwidth = {3350 * gbs, "NVIDIA H100 datasheet (2023): 3.35 TB/s (SXM)"},
              .gpus_per_node = {8, "NVIDIA DGX H100 / HGX H100 8-GPU: 8 GPUs per NVSwitch node"},
              .intra = nvlink4,
              .arch = gpu_architecture::hopper,
              .scale_out = {"IB-NDR",
                            "DGX H100: 8 x single-port ConnectX-7 NDR 400 Gb/s, one per GPU "
                            "(NVIDIA DGX H100 user guide, hardware overview)"},
          },
          {
              .name = "H100-PCIe",
              .description = "NVIDIA H100 PCIe 80GB (Hopper), 8 cards on PCIe Gen5 without NVLink",
              .aliases = {"h100-pcie-80gb", "", "", "", ""},
              .reference = "NVIDIA H100 datasheet (2023)",
              .peak =
                  {
                      .fp64 = {51 * tflops,
                               "NVIDIA H100 datasheet (2023): FP64 Tensor Core 51 TFLOPS (PCIe)"},
                      .fp32 = {51 * tflops, "NVIDIA H100 datasheet (2023): FP32 51 TFLOPS (PCIe)"},
                      .tf32 = {378 * tflops,
                               "NVIDIA H100 datasheet (2023): TF32 Tensor Core 756 TFLOPS with "
                               "sparsity, halved -> 378 dense"},
                      .bf16 = {756.5 * tflops,
                               "NVIDIA H100 datasheet (2023): BF16 Tensor Core 1,513 TFLOPS with "
                               "sparsity, halved -> 756.5 dense"},
                      .fp16 = {756.5 * tflops,
                               "NVIDIA H100 datasheet (2023): FP16 Tensor Core 1,513 TFLOPS with "
                               "sparsity, halved -> 756.5 dense"},
                      .fp8 = {1513 * tflops,
                              "NVIDIA H100 datasheet (2023): FP8 Tensor Core 3,026 TFLOPS with "
                              "sparsity, halved -> 1,513 dense"},
                      .fp4 = {0 * tflops, "Hopper has no FP4 tensor cores"},
                  },
              .memory = {80 * GiB, "NVIDIA H100 datasheet (2023): 80GB HBM2e (PCIe)"},
              .memory_bandwidth = {2000 * gbs, "NVIDIA H100 datasheet (2023): 2 TB/s (PCIe)"},
              .gpus_per_node = {8,
                                "assumption: a common 8-card PCIe server; the datasheet fixes no "
                                "node size"},
              .intra =
                  {
                      "PCIe Gen5 x16",
                      {64 * gbs,
                       "NVIDIA H100 datasheet (2023): PCIe Gen5 128 GB/s, the sum of both "
                       "directions -> 64 GB/s per direction (the NVLink bridge joins only 2 "
                       "cards)"},
                      {5.7 * units::us, nccl_pci_latency},
                  },
              .arch = gpu_architecture::hopper,
              .scale_out =
                  {"IB-NDR",
                   "no NVIDIA reference node for the PCIe card: the NIC of its generation's DGX "
                   "H100, 8 x ConnectX-7 NDR 400 Gb/s, one per GPU (NVIDIA DGX H100 user guide)"},
          },
          {
              .name = "H200-SXM",
              .description = "NVIDIA H200 SXM 141GB (Hopper), HGX H200 node",
              .aliases = {"h200", "h200-sxm5", "h200-141gb", "h200-sxm-141gb", ""},
              .reference = "NVIDIA H200 datasheet (2024)",
              .peak =
                  {
                      .fp64 = {66.9 * tflops,
                               "NVIDIA H200 datasheet (2024): FP64 Tensor Core 67 TFLOPS, the "
                               "H100 SXM die and clocks (whitepaper value 66.9)"},
                      .fp32 = {66.9 * tflops, "NVIDIA H200 datasheet (2024): FP32 67 TFLOPS"},
                      .tf32 = {494.7 * tflops,
                               "NVIDIA H200 datasheet (2024): TF32 Tensor Core 989 TFLOPS with "
                               "sparsity -> 494.7 dense (the H100 SXM figure)"},
                      .bf16 = {989.4 * tflops,
                               "NVIDIA H200 datasheet (2024): BF16 Tensor Core 1,979 TFLOPS with "
                               "sparsity -> 989.4 dense (the H100 SXM figure)"},
                      .fp16 = {989.4 * tflops,
                               "NVIDIA H200 datasheet (2024): FP16 Tensor Core 1,979 TFLOPS with "
                               "sparsity -> 989.4 dense"},
                      .fp8 = {1978.9 * tflops,
                              "NVIDIA H200 datasheet (2024): FP8 Tensor Core 3,958 TFLOPS with "
                              "sparsity -> 1978.9 dense"},
                      .fp4 = {0 * tflops, "Hopper has no FP4 tensor cores"},
                  },
              .memory = {141 * GiB, "NVIDIA H200 datasheet (2024): 141GB HBM3e"},
              .memory_bandwidth = {4800 * gbs, "NVIDIA H200 datasheet (2024): 4.8 TB/s"},
              .gpus_per_node = {8, "NVIDIA HGX H200 8-GPU: 8 GPUs per NVSwitch node"},
              .intra = nvlink4,
              .arch = gpu_architecture::hopper,
              .scale_out = {"IB-NDR",
                            "DGX H200: 8 x single-port ConnectX-7 400 Gb/s, one per GPU (NVIDIA "
                            "DGX H200 datasheet)"},
          },
          {
              .name = "B200",
              .description = "NVIDIA B200 (Blackwell), HGX/DGX B200 node, 1000 W",
              .aliases = {"b200-sxm", "hgx-b200", "dgx-b200", "b200-180gb", ""},
              .reference = "NVIDIA HGX B200 datasheet (2024)",
              .peak =
                  {
                      .fp64 = {37 * tflops,
                               "NVIDIA HGX B200 datasheet, per-GPU table: FP64/FP64 Tensor Core 37 "
                               "TFLOPS (other NVIDIA material says 40; not checked against the "
                               "PDF here)"},
                      .fp32 = {75 * tflops,
                               "NVIDIA HGX B200 datasheet, per-GPU table: FP32 75 TFLOPS"},
                      .tf32 = {1100 * tflops,
                               "NVIDIA HGX B200 datasheet, per-GPU table: TF32 Tensor Core 2.2 "
                               "PFLOPS with sparsity -> 1.1 dense"},
                      .bf16 = {2250 * tflops,
                               "NVIDIA HGX B200 datasheet, per-GPU table: FP16/BF16 Tensor Core "
                               "4.5 "
                               "PFLOPS with sparsity -> 2.25 dense"},
                      .fp16 = {2250 * tflops,
                               "NVIDIA HGX B200 datasheet, per-GPU table: FP16/BF16 Tensor Core "
                               "4.5 "
                               "PFLOPS with sparsity -> 2.25 dense"},
                      .fp8 = {4500 * tflops,
                              "NVIDIA HGX B200 datasheet, per-GPU table: FP8 Tensor Core 9 PFLOPS "
                              "with sparsity -> 4.5 dense"},
                      .fp4 = {9000 * tflops,
                              "NVIDIA HGX B200 datasheet, per-GPU table: FP4 Tensor Core 18 PFLOPS "
                              "with sparsity -> 9 dense"},
                  },
              .memory = {180 * GiB,
                         "NVIDIA HGX B200 datasheet: 180GB HBM3e per GPU (1.44 TB per 8 GPUs)"},
              .memory_bandwidth = {7700 * gbs,
                                   "NVIDIA HGX B200 datasheet, per-GPU table: 7.7 TB/s (earlier "
                                   "material: 8 TB/s)"},
              .gpus_per_node = {8, "NVIDIA HGX B200 / DGX B200: 8 GPUs per NVSwitch node"},
              .intra = nvlink5,
              .arch = gpu_architecture::blackwell,
              .scale_out = {"IB-NDR",
                            "DGX B200: 8 x single-port ConnectX-7 400 Gb/s, one per GPU (NVIDIA "
                            "DGX B200 datasheet)"},
          },
          {
              .name = "GB200-NVL72",
              .description = "NVIDIA GB200 NVL72 (Blackwell), 72 GPUs in one NVLink domain, 1200 W",
              .aliases = {"gb200", "nvl72", "b200-nvl72", "gb200-nvl", ""},
              .reference = "NVIDIA GB200 NVL72 datasheet (2024)",
              .peak =
                  {
                      .fp64 = {40 * tflops,
                               "NVIDIA GB200 NVL72 datasheet, per-GPU table: FP64/FP64 Tensor Core "
                               "40 TFLOPS (a rack figure of 3,240 TFLOPS / 72 = 45 also "
                               "circulates; "
                               "not checked against the PDF here)"},
                      .fp32 = {80 * tflops,
                               "NVIDIA GB200 NVL72 datasheet, per-GPU table: FP32 80 TFLOPS"},
                      .tf32 = {1250 * tflops,
                               "NVIDIA GB200 NVL72 datasheet, per-GPU table: TF32 Tensor Core 2.5 "
                               "PFLOPS with sparsity -> 1.25 dense"},
                      .bf16 = {2500 * tflops,
                               "NVIDIA GB200 NVL72 datasheet, per-GPU table: FP16/BF16 Tensor Core "
                               "5 PFLOPS with sparsity -> 2.5 dense (rack: 360 PFLOPS / 72 "
                               "sparse)"},
                      .fp16 = {2500 * tflops,
                               "NVIDIA GB200 NVL72 datasheet, per-GPU table: FP16/BF16 Tensor Core "
                               "5 PFLOPS with sparsity -> 2.5 dense"},
                      .fp8 = {5000 * tflops,
                              "NVIDIA GB200 NVL72 datasheet, per-GPU table: FP8 Tensor Core 10 "
                              "PFLOPS with sparsity -> 5 dense (rack: 720 PFLOPS / 72 sparse)"},
                      .fp4 = {10000 * tflops,
                              "NVIDIA GB200 NVL72 datasheet, per-GPU table: FP4 Tensor Core 20 "
                              "PFLOPS with sparsity -> 10 dense (rack: 1,440 PFLOPS / 72 sparse)"},
                  },
              .memory = {186 * GiB,
                         "NVIDIA GB200 NVL72 datasheet: 186GB HBM3e per GPU (13.4 TB per rack)"},
              .memory_bandwidth = {8000 * gbs,
                                   "NVIDIA GB200 NVL72 datasheet: 8 TB/s per GPU (576 TB/s per "
                                   "rack)"},
              .gpus_per_node = {72,
                                "NVIDIA GB200 NVL72 datasheet: 72 GPUs in one NVLink domain (18 "
                                "compute trays of 4 GPUs, NVLink Switch trays)"},
              .intra = nvlink5,
              .arch = gpu_architecture::blackwell,
              .scale_out = {"IB-NDR",
                            "GB200 NVL72: one ConnectX-7 400 Gb/s per GPU, 4 per compute tray "
                            "(NVIDIA DGX GB200 user guide)"},
          },
          {
              .name = "MI300X",
              .description = "AMD Instinct MI300X 192GB (CDNA 3), 8 OAM modules on Infinity Fabric",
              .aliases = {"mi300", "amd-mi300x", "instinct-mi300x", "mi300x-192gb", ""},
              .reference = "AMD Instinct MI300X data sheet (2023)",
              .peak =
                  {
                      .fp64 = {163.4 * tflops,
                               "AMD Instinct MI300X data sheet (2023): FP64 matrix 163.4 TFLOPS "
                               "(vector 81.7)"},
                      .fp32 = {163.4 * tflops,
                               "AMD Instinct MI300X data sheet (2023): FP32 vector 163.4 TFLOPS"},
                      .tf32 = {653.7 * tflops,
                               "AMD Instinct MI300X data sheet (2023): TF32 matrix 653.7 TFLOPS "
                               "dense (1,307.4 with sparsity)"},
                      .bf16 = {1307.4 * tflops,
                               "AMD Instinct MI300X data sheet (2023): BF16 1,307.4 TFLOPS dense "
                               "(2,614.9 with sparsity)"},
                      .fp16 = {1307.4 * tflops,
                               "AMD Instinct MI300X data sheet (2023): FP16 1,307.4 TFLOPS dense "
                               "(2,614.9 with sparsity)"},
                      .fp8 = {2614.9 * tflops,
                              "AMD Instinct MI300X data sheet (2023): FP8 2,614.9 TFLOPS dense "
                              "(5,229.8 with sparsity)"},
                      .fp4 = {0 * tflops,
                              "CDNA 3 has no FP4 matrix cores (AMD CDNA 3 whitepaper, 2023)"},
                  },
              .memory = {192 * GiB, "AMD Instinct MI300X data sheet (2023): 192GB HBM3"},
              .memory_bandwidth = {5300 * gbs,
                                   "AMD Instinct MI300X data sheet (2023): 5.3 TB/s peak"},
              .gpus_per_node = {8,
                                "AMD Instinct MI300X platform: 8 OAM GPUs, each linked to the 7 "
                                "others"},
              .intra =
                  {
                      "Infinity Fabric (xGMI, full mesh)",
                      {448 * gbs,
                       "AMD Instinct MI300X data sheet (2023): 7 Infinity Fabric links x 128 GB/s "
                       "= 896 GB/s, the sum of both directions -> 448 GB/s per direction, "
                       "reached only when a collective drives all 7 peer links at once (one peer "
                       "link: 64 GB/s); not checked against the PDF here"},
                      {2.7 * units::us,
                       "RCCL src/graph/tuning.cc (ROCm/rccl @0023b9b, 2020) hwLat[xGMI as "
                       "NVLINK][Ring][Simple] = 2.7 us: RCCL's tuner constant, not a measurement"},
                  },
              .arch = gpu_architecture::cdna3,
              .scale_out = {"RoCE-400G",
                            "assumption: one 400 GbE NIC per GPU, as MI300X clusters are built "
                            "(the OAM platform has no NIC of its own); IB-NDR gives the same 50 "
                            "GB/s and latency here"},
          },
          {
              .name = "H800-SXM",
              .description = "NVIDIA H800 SXM5 80GB (Hopper, export variant), HGX H800 node",
              .aliases = {"h800", "h800-sxm5", "h800-80gb", "", ""},
              .reference = "NVIDIA H800 product brief (2023); DeepSeek-V3 report (2024)",
              .peak =
                  {
                      .fp64 = {1 * tflops,
                               "H800 SXM: FP64 cut to about 1 TFLOPS for export (reported; not "
                               "checked against an NVIDIA PDF here)"},
                      .fp32 = {66.9 * tflops, "the H100 SXM die and clocks: FP32 66.9 TFLOPS"},
                      .tf32 = {494.7 * tflops,
                               "the H100 SXM die and clocks: TF32 Tensor 494.7 TFLOPS dense"},
                      .bf16 = {989.4 * tflops,
                               "the H100 SXM die and clocks: BF16 Tensor 989.4 TFLOPS dense "
                               "(DeepSeek-V3 report, arXiv:2412.19437, trains on H800 at the "
                               "H100's rates)"},
                      .fp16 = {989.4 * tflops,
                               "the H100 SXM die and clocks: FP16 Tensor 989.4 TFLOPS dense"},
                      .fp8 = {1978.9 * tflops,
                              "the H100 SXM die and clocks: FP8 Tensor 1978.9 TFLOPS dense"},
                      .fp4 = {0 * tflops, "Hopper has no FP4 tensor cores"},
                  },
              .memory = {80 * GiB, "NVIDIA H800 SXM: 80GB HBM3"},
              .memory_bandwidth = {3350 * gbs, "NVIDIA H800 SXM: 3.35 TB/s, as the H100 SXM"},
              .gpus_per_node = {8, "HGX H800 8-GPU: 8 GPUs per NVSwitch node"},
              .intra =
                  {
                      "NVLink 4, export-limited (8 links)",
                      {200 * gbs,
                       "NVIDIA H800: NVLink 400 GB/s, the sum of both directions -> 200 GB/s per "
                       "direction (the H100's 900 GB/s cut for export); DeepSeek-V3 report "
                       "(arXiv:2412.19437, Sec. 3.2.2) measures 'NVLink ... 160 GB/s', 0.8 of it"},
                      {3.4 * units::us, nccl_nvlink_latency},
                  },
              .arch = gpu_architecture::hopper,
              .scale_out = {"IB-NDR",
                            "DeepSeek-V3's H800 cluster: InfiniBand at 50 GB/s per GPU, i.e. 400 "
                            "Gb/s NDR (arXiv:2412.19437, section 3.2.2)"},
          },
          {
              .name = "B300",
              .description = "NVIDIA B300 (Blackwell Ultra), HGX/DGX B300 node",
              .aliases = {"b300-sxm", "hgx-b300", "dgx-b300", "b300-288gb", ""},
              .reference = "NVIDIA HGX B300 datasheet (2025)",
              .peak =
                  {
                      .fp64 = {1.25 * tflops,
                               "NVIDIA HGX B300 datasheet: FP64/FP64 Tensor Core 10 TFLOPS per 8 "
                               "GPUs -> 1.25 per GPU (Blackwell Ultra drops FP64 throughput; not "
                               "checked against the PDF here)"},
                      .fp32 = {75 * tflops,
                               "NVIDIA HGX B300 datasheet: FP32 600 TFLOPS per 8 GPUs -> 75"},
                      .tf32 = {1125 * tflops,
                               "NVIDIA HGX B300 datasheet: TF32 Tensor Core 18 PFLOPS per 8 GPUs "
                               "with sparsity -> 1.125 dense per GPU"},
                      .bf16 = {2250 * tflops,
                               "NVIDIA HGX B300 datasheet: FP16/BF16 Tensor Core 36 PFLOPS per 8 "
                               "GPUs with sparsity -> 2.25 dense per GPU"},
                      .fp16 = {2250 * tflops,
                               "NVIDIA HGX B300 datasheet: FP16/BF16 Tensor Core 36 PFLOPS per 8 "
                               "GPUs with sparsity -> 2.25 dense per GPU"},
                      .fp8 = {4500 * tflops,
                              "NVIDIA HGX B300 datasheet: FP8/FP6 Tensor Core 72 PFLOPS per 8 GPUs "
                              "with sparsity -> 4.5 dense per GPU"},
                      .fp4 = {13500 * tflops,
                              "NVIDIA HGX B300 datasheet: FP4 Tensor Core 144 | 108 PFLOPS per 8 "
                              "GPUs (sparse | dense) -> 13.5 dense per GPU"},
                  },
              .memory = {288 * GiB,
                         "NVIDIA HGX B300 datasheet: up to 2.3 TB HBM3e per 8 GPUs -> 288GB "
                         "per GPU (Blackwell Ultra: 12-high HBM3e stacks)"},
              .memory_bandwidth = {8000 * gbs,
                                   "NVIDIA HGX B300 datasheet: 8 TB/s per GPU (not checked "
                                   "against the PDF here)"},
              .gpus_per_node = {8, "NVIDIA HGX B300 / DGX B300: 8 GPUs per NVSwitch node"},
              .intra = nvlink5,
              .arch = gpu_architecture::blackwell_ultra,
              .scale_out = {"IB-XDR",
                            "DGX B300: 8 x ConnectX-8 SuperNIC 800 Gb/s, one per GPU (NVIDIA DGX "
                            "B300 datasheet)"},
          },
          {
              .name = "GB300-NVL72",
              .description =
                  "NVIDIA GB300 NVL72 (Blackwell Ultra), 72 GPUs in one NVLink domain, 1400 W",
              .aliases = {"gb300", "gb300-nvl", "b300-nvl72", "", ""},
              .reference = "NVIDIA GB300 NVL72 datasheet (2025)",
              .peak =
                  {
                      .fp64 = {1.39 * tflops,
                               "NVIDIA GB300 NVL72 datasheet: FP64/FP64 Tensor Core 100 TFLOPS "
                               "per rack -> 1.39 per GPU (not checked against the PDF here)"},
                      .fp32 = {83.3 * tflops,
                               "NVIDIA GB300 NVL72 datasheet: FP32 6 PFLOPS per rack -> 83.3"},
                      .tf32 = {1250 * tflops,
                               "NVIDIA GB300 NVL72 datasheet: TF32 Tensor Core 180 PFLOPS per rack "
                               "with sparsity -> 1.25 dense per GPU"},
                      .bf16 = {2500 * tflops,
                               "NVIDIA GB300 NVL72 datasheet: FP16/BF16 Tensor Core 360 PFLOPS per "
                               "rack with sparsity -> 2.5 dense per GPU"},
                      .fp16 = {2500 * tflops,
                               "NVIDIA GB300 NVL72 datasheet: FP16/BF16 Tensor Core 360 PFLOPS per "
                               "rack with sparsity -> 2.5 dense per GPU"},
                      .fp8 = {5000 * tflops,
                              "NVIDIA GB300 NVL72 datasheet: FP8/FP6 Tensor Core 720 PFLOPS per "
                              "rack with sparsity -> 5 dense per GPU"},
                      .fp4 = {15000 * tflops,
                              "NVIDIA GB300 NVL72 datasheet: FP4 Tensor Core 1,440 | 1,080 PFLOPS "
                              "per rack (sparse | dense) -> 15 dense per GPU"},
                  },
              .memory = {288 * GiB,
                         "NVIDIA GB300 NVL72 datasheet: up to 20 TB HBM3e per rack, 288GB per "
                         "GPU"},
              .memory_bandwidth = {8000 * gbs,
                                   "NVIDIA GB300 NVL72 datasheet: up to 576 TB/s per rack -> 8 "
                                   "TB/s per GPU"},
              .gpus_per_node = {72, "NVIDIA GB300 NVL72 datasheet: 72 GPUs in one NVLink domain"},
              .intra = nvlink5,
              .arch = gpu_architecture::blackwell_ultra,
              .scale_out = {"IB-XDR",
                            "GB300 NVL72: one ConnectX-8 SuperNIC 800 Gb/s per GPU (NVIDIA GB300 "
                            "NVL72 datasheet)"},
          },
          {
              .name = "MI325X",
              .description = "AMD Instinct MI325X 256GB (CDNA 3), 8 OAM modules on Infinity Fabric",
              .aliases = {"mi325", "amd-mi325x", "instinct-mi325x", "mi325x-256gb", ""},
              .reference = "AMD Instinct MI325X data sheet (2024)",
              .peak =
                  {
                      .fp64 = {163.4 * tflops,
                               "AMD Instinct MI325X data sheet (2024): FP64 matrix 163.4 TFLOPS, "
                               "the MI300X's compute die"},
                      .fp32 = {163.4 * tflops,
                               "AMD Instinct MI325X data sheet (2024): FP32 163.4 TFLOPS"},
                      .tf32 = {653.7 * tflops,
                               "AMD Instinct MI325X data sheet (2024): TF32 653.7 TFLOPS dense"},
                      .bf16 = {1307.4 * tflops,
                               "AMD Instinct MI325X data sheet (2024): BF16 1,307.4 TFLOPS dense "
                               "(2,614.9 with sparsity)"},
                      .fp16 = {1307.4 * tflops,
                               "AMD Instinct MI325X data sheet (2024): FP16 1,307.4 TFLOPS dense"},
                      .fp8 = {2614.9 * tflops,
                              "AMD Instinct MI325X data sheet (2024): FP8 2,614.9 TFLOPS dense "
                              "(5,229.8 with sparsity)"},
                      .fp4 = {0 * tflops, "CDNA 3 has no FP4 matrix cores"},
                  },
              .memory = {256 * GiB, "AMD Instinct MI325X data sheet (2024): 256GB HBM3E"},
              .memory_bandwidth = {6000 * gbs,
                                   "AMD Instinct MI325X data sheet (2024): 6 TB/s peak"},
              .gpus_per_node = {8, "AMD Instinct MI325X platform: 8 OAM GPUs, fully connected"},
              .intra =
                  {
                      "Infinity Fabric (xGMI, full mesh)",
                      {448 * gbs,
                       "AMD Instinct MI325X data sheet (2024): 7 Infinity Fabric links x 128 GB/s "
                       "= 896 GB/s, the sum of both directions -> 448 GB/s per direction with all "
                       "7 peer links driven at once (as MI300X)"},
                      {2.7 * units::us,
                       "RCCL src/graph/tuning.cc (ROCm/rccl @0023b9b, 2020) hwLat[xGMI as "
                       "NVLINK][Ring][Simple] = 2.7 us: RCCL's tuner constant, not a measurement"},
                  },
              .arch = gpu_architecture::cdna3,
              .scale_out = {"RoCE-400G",
                            "assumption: one 400 GbE NIC per GPU, as MI325X clusters are built "
                            "(the OAM platform has no NIC of its own); IB-NDR gives the same 50 "
                            "GB/s and latency here"},
          },
          {
              .name = "MI355X",
              .description = "AMD Instinct MI355X 288GB (CDNA 4), 8 OAM modules, 1400 W",
              .aliases = {"mi355", "amd-mi355x", "instinct-mi355x", "mi355x-288gb", ""},
              .reference = "AMD Instinct MI355X data sheet (2025)",
              .peak =
                  {
                      .fp64 = {78.6 * tflops,
                               "AMD Instinct MI355X data sheet (2025): FP64 matrix 78.6 TFLOPS"},
                      .fp32 = {157.3 * tflops,
                               "AMD Instinct MI355X data sheet (2025): FP32 157.3 TFLOPS"},
                      .tf32 = {0 * tflops,
                               "AMD CDNA 4 whitepaper (2025): no TF32 matrix mode (not checked "
                               "against the PDF here)"},
                      .bf16 = {2516.6 * tflops,
                               "AMD Instinct MI355X data sheet (2025): BF16 2.5 PFLOPS dense "
                               "(5.0 with sparsity); 2,516.6 TFLOPS"},
                      .fp16 = {2516.6 * tflops,
                               "AMD Instinct MI355X data sheet (2025): FP16 2.5 PFLOPS dense"},
                      .fp8 = {5033.2 * tflops,
                              "AMD Instinct MI355X data sheet (2025): FP8 5.0 PFLOPS dense (10.1 "
                              "with sparsity); 5,033.2 TFLOPS"},
                      .fp4 = {10066.3 * tflops,
                              "AMD Instinct MI355X data sheet (2025): MXFP4/MXFP6 10.1 PFLOPS "
                              "dense; 10,066.3 TFLOPS"},
                  },
              .memory = {288 * GiB, "AMD Instinct MI355X data sheet (2025): 288GB HBM3E"},
              .memory_bandwidth = {8000 * gbs,
                                   "AMD Instinct MI355X data sheet (2025): 8 TB/s peak"},
              .gpus_per_node = {8, "AMD Instinct MI355X platform: 8 OAM GPUs, fully connected"},
              .intra =
                  {
                      "Infinity Fabric 4 (xGMI, full mesh)",
                      {537.6 * gbs,
                       "AMD Instinct MI355X data sheet (2025): 7 Infinity Fabric links, 1,075 "
                       "GB/s peer-to-peer in all, the sum of both directions -> 537.6 GB/s per "
                       "direction with all 7 peer links driven (not checked against the PDF "
                       "here)"},
                      {2.7 * units::us,
                       "RCCL src/graph/tuning.cc (ROCm/rccl @0023b9b, 2020) hwLat[xGMI as "
                       "NVLINK][Ring][Simple] = 2.7 us: RCCL's tuner constant, not a measurement"},
                  },
              .arch = gpu_architecture::cdna4,
              .scale_out =
                  {"RoCE-400G",
                   "one 400 Gb/s AMD Pensando Pollara 400 AI NIC per GPU (AMD Instinct MI355X "
                   "platform, 2025); IB-NDR gives the same 50 GB/s and latency here"},
          },
      }};
    }();

/// The inter-node link presets, per GPU and per direction (one NIC port per GPU).
inline constexpr std::array<interconnect_preset, 4> interconnect_presets = [] {
  using namespace detail::presets;
  return std::array<interconnect_preset, 4>{{
      {
          .name = "IB-HDR",
          .description = "InfiniBand HDR, 200 Gb/s per port, one port per GPU (DGX A100)",
          .aliases = {"hdr", "infiniband-hdr", "hdr200", "ib-hdr200", ""},
          .reference = "NVIDIA ConnectX-6 / Quantum HDR (2019)",
          .link =
              {
                  "InfiniBand HDR 200 Gb/s",
                  {25 * gbs,
                   "InfiniBand HDR data rate 200 Gb/s per port per direction = 25 GB/s "
                   "(NVIDIA ConnectX-6 VPI product brief; DGX A100 has one HDR port per GPU); "
                   "protocol headers take a few % of it"},
                  {14 * units::us, nccl_net_latency},
              },
      },
      {
          .name = "IB-NDR",
          .description = "InfiniBand NDR, 400 Gb/s per port (ConnectX-7), one port per GPU (DGX "
                         "H100, DGX B200, GB200 NVL72)",
          .aliases = {"ndr", "infiniband-ndr", "ndr400", "ib-ndr400", ""},
          .reference = "NVIDIA ConnectX-7 / Quantum-2 NDR (2022)",
          .link =
              {
                  "InfiniBand NDR 400 Gb/s",
                  {50 * gbs,
                   "InfiniBand NDR data rate 400 Gb/s per port per direction = 50 GB/s "
                   "(NVIDIA ConnectX-7 product brief; DGX H100 has one NDR port per GPU); "
                   "protocol headers take a few % of it"},
                  {14 * units::us, nccl_net_latency},
              },
      },
      {
          .name = "IB-XDR",
          .description =
              "InfiniBand XDR, 800 Gb/s per port, one port per GPU (ConnectX-8: GB300 NVL72); "
              "DGX B200 and GB200 NVL72 ship 400 Gb/s ConnectX-7: use IB-NDR",
          .aliases = {"xdr", "infiniband-xdr", "xdr800", "ib-xdr800", ""},
          .reference = "NVIDIA ConnectX-8 SuperNIC / Quantum-X800 (2024)",
          .link =
              {
                  "InfiniBand XDR 800 Gb/s",
                  {100 * gbs,
                   "InfiniBand XDR data rate 800 Gb/s per port per direction = 100 GB/s "
                   "(NVIDIA ConnectX-8 SuperNIC user manual: up to 800 Gb/s); protocol "
                   "headers take a few % of it"},
                  {14 * units::us, nccl_net_latency},
              },
      },
      {
          .name = "RoCE-400G",
          .description = "RDMA over Converged Ethernet, 400 GbE per GPU",
          .aliases = {"roce", "roce400", "400g-roce", "roce-400gbe", ""},
          .reference = "IEEE 802.3bs 400GbE; NVIDIA ConnectX-7 (2022)",
          .link =
              {
                  "RoCE v2 over 400 GbE",
                  {50 * gbs,
                   "400 Gb/s Ethernet (IEEE 802.3bs) per port per direction = 50 GB/s, one "
                   "ConnectX-7 400GbE port per GPU; Ethernet/IP/UDP/RoCE headers take a few "
                   "% of it"},
                  {14 * units::us, nccl_net_latency},
              },
      },
  }};
}();

namespace detail {
/// Lower case without '-', '_', ' ' and '.': "H100-SXM5_80GB" and "h100sxm580gb" are equal.
inline std::string normalise_preset_name(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '-' || c == '_' || c == ' ' || c == '.') {
      continue;
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

template <class Preset>
bool answers_to(const Preset& preset, const std::string& wanted) {
  if (normalise_preset_name(preset.name) == wanted) {
    return true;
  }
  return std::any_of(preset.aliases.begin(), preset.aliases.end(), [&](std::string_view alias) {
    return !alias.empty() && normalise_preset_name(alias) == wanted;
  });
}

template <class Preset>
const Preset* find_in(std::span<const Preset> presets, std::string_view name) {
  const auto wanted = normalise_preset_name(name);
  for (const auto& preset : presets) {
    if (answers_to(preset, wanted)) {
      return &preset;
    }
  }
  return nullptr;
}

/// The closest name or alias (by edit distance on normalised names), reported by its
/// canonical name, if it is close enough to be a plausible typo.
template <class Preset>
void closest_in(std::span<const Preset> presets, const std::string& wanted,
                std::size_t& best_distance, std::string_view& best_name) {
  for (const auto& preset : presets) {
    auto consider = [&](std::string_view candidate) {
      if (candidate.empty()) {
        return;
      }
      const auto d = edit_distance(wanted, normalise_preset_name(candidate));
      if (d < best_distance) {
        best_distance = d;
        best_name = preset.name;
      }
    };
    consider(preset.name);
    for (const auto alias : preset.aliases) {
      consider(alias);
    }
  }
}

template <class Preset>
std::string name_list(std::span<const Preset> presets) {
  std::string out;
  for (const auto& preset : presets) {
    if (!out.empty()) {
      out += ", ";
    }
    out += std::string(preset.name);
  }
  return out;
}

/// "did you mean 'H100-SXM'?" when a name is within a few edits of `text`, else the list.
template <class... Presets>
std::string suggestion(std::string_view text, std::span<const Presets>... tables) {
  const auto wanted = normalise_preset_name(text);
  std::size_t best = static_cast<std::size_t>(-1);
  std::string_view best_name;
  (closest_in(tables, wanted, best, best_name), ...);
  const std::size_t tolerance = std::max<std::size_t>(2, wanted.size() / 3);
  if (!best_name.empty() && best <= tolerance) {
    return "did you mean '" + std::string(best_name) + "'?";
  }
  std::string all;
  const auto append = [&all](const std::string& names) {
    if (!all.empty()) {
      all += ", ";
    }
    all += names;
  };
  (append(name_list(tables)), ...);
  return "known presets: " + all;
}
}  // namespace detail

/// The GPU preset called `name` (case-insensitive; '-', '_', ' ', '.' ignored; aliases such as
/// "h100" or "h100-sxm5-80gb" accepted), or nullptr.
inline const gpu_preset* find_gpu_preset(std::string_view name) {
  return detail::find_in(std::span<const gpu_preset>(gpu_presets), name);
}

/// The interconnect preset called `name`, or nullptr. Same matching as find_gpu_preset.
inline const interconnect_preset* find_interconnect_preset(std::string_view name) {
  return detail::find_in(std::span<const interconnect_preset>(interconnect_presets), name);
}

/// The GPU preset called `name`; throws invalid_spec(field, "... did you mean 'X'?").
inline const gpu_preset& gpu_preset_by_name(std::string_view name, std::string_view field) {
  if (const auto* preset = find_gpu_preset(name)) {
    return *preset;
  }
  if (const auto* other = find_interconnect_preset(name)) {
    throw invalid_spec(std::string(field), quote_value(name) + " is an interconnect preset (" +
                                               std::string(other->name) + "), not a GPU preset");
  }
  throw invalid_spec(std::string(field),
                     quote_value(name) + " is not a GPU preset; " +
                         detail::suggestion(name, std::span<const gpu_preset>(gpu_presets)));
}

/// The interconnect preset called `name`; throws invalid_spec with a suggestion.
inline const interconnect_preset& interconnect_preset_by_name(std::string_view name,
                                                              std::string_view field) {
  if (const auto* preset = find_interconnect_preset(name)) {
    return *preset;
  }
  if (const auto* other = find_gpu_preset(name)) {
    throw invalid_spec(std::string(field), quote_value(name) + " is a GPU preset (" +
                                               std::string(other->name) +
                                               "), not an interconnect preset");
  }
  throw invalid_spec(
      std::string(field),
      quote_value(name) + " is not an interconnect preset; " +
          detail::suggestion(name, std::span<const interconnect_preset>(interconnect_presets)));
}

/// For a name that is neither a GPU nor an interconnect preset: the nearest of either kind.
inline std::string preset_suggestion(std::string_view name) {
  return detail::suggestion(name, std::span<const gpu_preset>(gpu_presets),
                            std::span<const interconnect_preset>(interconnect_presets));
}

/// Which of a preset's peak rates a compute dtype runs at: its kind (dtype.hpp), fp64, fp32, tf32,
/// bf16, fp16 or fp8. Empty for a dtype given as a byte count, which names no rate.
inline std::optional<std::string_view> peak_rate_name(const dtype& type) {
  return dtype_kind(type.name);
}

/// The GPU's dense peak rate for the compute dtype `type` (see peak_rate_name), with its
/// source. Throws invalid_spec("dtype", ...) for a byte-count dtype or a rate the part does
/// not have (0 in the table, e.g. fp8 on the A100), telling the user to give --flops.
inline const sourced<flops_per_second>& dense_peak(const gpu_preset& gpu, const dtype& type) {
  const auto rate = peak_rate_name(type);
  if (!rate) {
    throw invalid_spec("dtype", "a byte count (" + type.name + ") names no peak rate of the " +
                                    std::string(gpu.name) +
                                    " preset; give --flops, or a dtype name such as bf16");
  }
  const auto& p = gpu.peak;
  const sourced<flops_per_second>* pick = *rate == "fp64"   ? &p.fp64
                                          : *rate == "fp32" ? &p.fp32
                                          : *rate == "tf32" ? &p.tf32
                                          : *rate == "bf16" ? &p.bf16
                                          : *rate == "fp16" ? &p.fp16
                                                            : &p.fp8;
  if (!(pick->value.value() > 0.0)) {
    throw invalid_spec("dtype", std::string(gpu.name) + " has no dense " + std::string(*rate) +
                                    " rate (" + std::string(pick->source) +
                                    "); give --flops or another --dtype");
  }
  return *pick;
}

/// What NCCL needs to know of a GPU preset's scale-up fabric, set on `t`:
///  - the generation (NCCL's tables; A100 Ampere, H100/H200 Hopper, B200/GB200/GB300
///    Blackwell), on NVLink parts only: a PCIe card is left `unknown` (no LL128, the PCIe
///    link as given);
///  - NVLink SHARP (NVLS) on third-generation NVSwitch and later: H100/H200 HGX, B200 HGX,
///    GB200 NVL72 (NVIDIA Hopper architecture whitepaper (2022), "NVLink SHARP"; NCCL 2.17+
///    runs NVLS when the switches have it);
///  - AMD MI300X: 8 GPUs in a full mesh of xGMI peer links of 64 GB/s per direction each
///    (AMD Instinct MI300X data sheet (2023): 7 x 128 GB/s bidirectional links per GPU),
///    so a group of g GPUs in a node gets (g−1)·64 GB/s, 448 GB/s only at g = 8.
/// The NICs: one per GPU (`nics_per_node = 0`) on DGX A100 (8 x HDR, NVIDIA DGX A100 user
/// guide), DGX H100 (8 x NDR ConnectX-7, DGX H100 user guide), DGX B200 (8 x 400 Gb/s
/// ConnectX-7, DGX B200 datasheet) and GB200/GB300 NVL72 (one ConnectX-7/-8 per GPU, NVIDIA
/// GB200 NVL72 datasheet); change it with --nics-per-node (e.g. 4 HDR NICs on some A100
/// clouds).
constexpr void apply_scale_up(cluster_topology& t, const gpu_preset& gpu) {
  const std::string_view name = gpu.name;
  const bool nvlink = gpu.intra.name.starts_with("NVLink");
  if (name.starts_with("MI300") || name.starts_with("MI325")) {
    t.peer_link = 64 * detail::presets::gbs;
    return;
  }
  if (name.starts_with("MI355")) {
    // AMD Instinct MI355X data sheet (2025): 7 xGMI links, 1,075 GB/s bidirectional in all.
    t.peer_link = 76.8 * detail::presets::gbs;
    return;
  }
  if (!nvlink) {
    return;
  }
  if (name.starts_with("A100")) {
    t.generation = gpu_generation::ampere;
  } else if (name.starts_with("H100") || name.starts_with("H200") || name.starts_with("H800")) {
    t.generation = gpu_generation::hopper;
    t.nvls = true;
  } else if (name.starts_with("B200") || name.starts_with("GB200") || name.starts_with("B300") ||
             name.starts_with("GB300")) {
    t.generation = gpu_generation::blackwell;
    t.nvls = true;
  }
}

/// The GPU's dense peak for a tensor-core rate (precision.hpp: BF16 for the 16-bit kernels,
/// FP8 or FP4 for a quantized recipe's GEMMs), with its source. Throws invalid_spec(field,
/// ...) naming the GPU when the part has no such rate.
inline const sourced<flops_per_second>& rate_peak(const gpu_preset& gpu, tensor_rate rate,
                                                  std::string_view field) {
  const auto& p = gpu.peak;
  const auto& pick = rate == tensor_rate::bf16 ? p.bf16 : rate == tensor_rate::fp8 ? p.fp8 : p.fp4;
  if (!(pick.value.value() > 0.0)) {
    throw invalid_spec(std::string(field), std::string(gpu.name) + " has no dense " +
                                               std::string(to_string(rate)) + " rate (" +
                                               std::string(pick.source) + ")");
  }
  return pick;
}

/// The inter-node preset of the GPU's reference system (its `scale_out`, with the source that
/// pairs them): DGX A100 with HDR, DGX H100/H200/B200 and GB200 NVL72 with 400 Gb/s
/// ConnectX-7 (NDR), DGX B300 and GB300 NVL72 with 800 Gb/s ConnectX-8 (XDR). The commands
/// use it when no --interconnect is named, and print that they did.
inline const interconnect_preset& reference_interconnect(const gpu_preset& gpu) {
  const auto* net = find_interconnect_preset(gpu.scale_out.value);
  if (net == nullptr) {  // a preset table error, which the unit tests rule out
    throw invalid_spec("gpu", std::string(gpu.name) + " names no known scale-out preset ('" +
                                  std::string(gpu.scale_out.value) + "')");
  }
  return *net;
}

/// The cluster a GPU preset and an inter-node preset describe together.
constexpr cluster_topology make_topology(const gpu_preset& gpu, const interconnect_preset& net) {
  cluster_topology t{.gpus_per_node = gpu.gpus_per_node.value,
                     .intra = gpu.intra.link(),
                     .inter = net.link.link()};
  apply_scale_up(t, gpu);
  return t;
}

}  // namespace tpcost
