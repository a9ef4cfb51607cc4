#include "render/render_hardware.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/text_table.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/io/presets_json.hpp"
#include "tpcost/version.hpp"

namespace tpcost::cli {

namespace {

/// Capacities in GiB with as few digits as they need, as the presets read the datasheets'
/// "80GB" of HBM (gib() prints one decimal).
std::string gib_shortest(bytes b) {
  return fmt::format("{:g} GiB", b.value() / units::GiB.value());
}

std::string rate_or_dash(flops_per_second r) {
  return r.value() > 0.0 ? io::to_string(r) : std::string("-");
}

std::string aliases_text(const auto& preset) {
  std::string out;
  for (const auto alias : preset.aliases) {
    if (!alias.empty()) {
      if (!out.empty()) {
        out += ", ";
      }
      out += std::string(alias);
    }
  }
  return out;
}

nlohmann::json document(const char* schema) {
  return {{"schema", schema}, {"tool", {{"name", "tpcost"}, {"version", TPCOST_VERSION}}}};
}

/// "label  value" then the source indented below it.
void field(std::string& out, const std::string& label, const std::string& value,
           std::string_view source) {
  out += fmt::format("  {:<31}{}\n      {}\n", label, value, source);
}

}  // namespace

std::string render_hardware_list(output_format format) {
  if (format == output_format::json) {
    auto j = document("tpcost.hardware-list/1");
    j["gpus"] = gpu_presets;
    j["interconnects"] = interconnect_presets;
    return j.dump(2) + "\n";
  }
  std::vector<std::vector<std::string>> gpus{{"name", "bf16 dense", "fp8 dense", "fp4 dense",
                                              "memory", "HBM bandwidth", "intra-node link",
                                              "per dir", "latency", "GPUs/node", "reference"}};
  for (const auto& g : gpu_presets) {
    gpus.push_back({std::string(g.name), rate_or_dash(g.peak.bf16.value),
                    rate_or_dash(g.peak.fp8.value), rate_or_dash(g.peak.fp4.value),
                    gib_shortest(g.memory.value), io::to_string(g.memory_bandwidth.value),
                    std::string(g.intra.name), io::to_string(g.intra.bandwidth.value),
                    io::to_string(g.intra.latency.value), fmt::format("{}", g.gpus_per_node.value),
                    std::string(g.reference)});
  }
  std::vector<std::vector<std::string>> nets{{"name", "link", "per dir", "latency", "reference"}};
  for (const auto& n : interconnect_presets) {
    nets.push_back({std::string(n.name), std::string(n.link.name),
                    io::to_string(n.link.bandwidth.value), io::to_string(n.link.latency.value),
                    std::string(n.reference)});
  }
  using enum align;
  std::string out =
      "GPU presets: dense peak rates (no sparsity), HBM capacity as GiB, link bandwidth per "
      "direction\n\n";
  out += layout_columns(gpus,
                        {left, right, right, right, right, right, left, right, right, right, left});
  out += "\nInter-node presets: per GPU (one NIC port each), per direction\n\n";
  out += layout_columns(nets, {left, left, right, right, left});
  out +=
      "\nLatencies are NCCL's tuner constants per ring step, not measurements. Every number's "
      "source:\n'tpcost hardware show NAME'. Your own cluster: 'tpcost calibrate "
      "nccl-tests-output.txt'.\n";
  return out;
}

std::string render_gpu_preset(const gpu_preset& g, output_format format) {
  if (format == output_format::json) {
    auto j = document("tpcost.hardware-preset/1");
    j["preset"] = g;
    return j.dump(2) + "\n";
  }
  std::string out = fmt::format("{}: {}\naliases: {}\nreference: {}\narchitecture: {}\n\n", g.name,
                                g.description, aliases_text(g), g.reference, to_string(g.arch));
  out += "Peak compute, dense (no structured sparsity)\n";
  const auto peak = [&](const char* label, const sourced<flops_per_second>& r) {
    field(out, label, r.value.value() > 0.0 ? io::to_string(r.value) : "not supported", r.source);
  };
  peak("fp64 (tensor core/matrix)", g.peak.fp64);
  peak("fp32 (vector)", g.peak.fp32);
  peak("tf32 (tensor core)", g.peak.tf32);
  peak("bf16 (tensor core)", g.peak.bf16);
  peak("fp16 (tensor core)", g.peak.fp16);
  peak("fp8 (tensor core)", g.peak.fp8);
  peak("fp4 (tensor core)", g.peak.fp4);
  out += "Memory\n";
  field(out, "capacity",
        fmt::format("{} ({:.0f} B)", gib_shortest(g.memory.value), g.memory.value.value()),
        g.memory.source);
  field(out, "bandwidth", io::to_string(g.memory_bandwidth.value), g.memory_bandwidth.source);
  out += fmt::format("Node: {}\n", g.intra.name);
  field(out, "GPUs per node", fmt::format("{}", g.gpus_per_node.value), g.gpus_per_node.source);
  field(out, "link bandwidth, per direction", io::to_string(g.intra.bandwidth.value),
        g.intra.bandwidth.source);
  field(out, "link latency, per ring step", io::to_string(g.intra.latency.value),
        g.intra.latency.source);
  return out;
}

std::string render_interconnect_preset(const interconnect_preset& n, output_format format) {
  if (format == output_format::json) {
    auto j = document("tpcost.hardware-preset/1");
    j["preset"] = n;
    return j.dump(2) + "\n";
  }
  std::string out = fmt::format("{}: {}\naliases: {}\nreference: {}\n\n", n.name, n.description,
                                aliases_text(n), n.reference);
  out += fmt::format("Link: {}, per GPU\n", n.link.name);
  field(out, "bandwidth, per direction", io::to_string(n.link.bandwidth.value),
        n.link.bandwidth.source);
  field(out, "latency, per ring step", io::to_string(n.link.latency.value), n.link.latency.source);
  return out;
}

}  // namespace tpcost::cli
