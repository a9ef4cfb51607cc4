// Compile-time checks of the preset table: this file compiling is the test.
#include "tpcost/hardware/presets.hpp"

namespace {
using namespace tpcost;

consteval bool rates_ordered() {
  for (const auto& g : gpu_presets) {
    // tf32 = 0: the part has no TF32 mode (CDNA 4)
    const bool tf32_ok = g.peak.tf32.value.value() == 0.0 || g.peak.tf32.value > g.peak.fp32.value;
    if (!(g.peak.fp32.value >= g.peak.fp64.value && tf32_ok &&
          g.peak.bf16.value >= g.peak.tf32.value && g.peak.fp16.value >= g.peak.bf16.value)) {
      return false;
    }
  }
  return true;
}

consteval bool everything_sourced() {
  for (const auto& g : gpu_presets) {
    for (const auto* s :
         {&g.peak.fp64.source, &g.peak.fp32.source, &g.peak.tf32.source, &g.peak.bf16.source,
          &g.peak.fp16.source, &g.peak.fp8.source, &g.peak.fp4.source, &g.memory.source,
          &g.memory_bandwidth.source, &g.gpus_per_node.source, &g.intra.bandwidth.source,
          &g.intra.latency.source}) {
      if (s->empty()) {
        return false;
      }
    }
  }
  for (const auto& n : interconnect_presets) {
    if (n.link.bandwidth.source.empty() || n.link.latency.source.empty()) {
      return false;
    }
  }
  return true;
}

static_assert(rates_ordered(),
              "fp64 <= fp32 < tf32 (or none) <= bf16 <= fp16 for every GPU preset");
static_assert(everything_sourced(), "every preset number carries its source");
static_assert(gpu_presets[0].intra.link().bandwidth.value() == 300e9, "NVLink 3 per direction");
static_assert(make_topology(gpu_presets[2], interconnect_presets[1]).inter.bandwidth.value() ==
              50e9);
}  // namespace
