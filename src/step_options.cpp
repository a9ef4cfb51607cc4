#include "step_options.hpp"

#include "tpcost/error.hpp"
#include "tpcost/io/profile_json.hpp"
#include "tpcost/parse.hpp"

namespace tpcost::cli {

namespace {

/// The GPU's dense peak for the compute dtype.
flops_per_second peak_for(const gpu_preset& gpu, const dtype& type, const std::string& text) {
  const std::string name = type.name;
  const auto& r = gpu.peak;
  const auto pick = name == "bf16" || name == "bfloat16"                     ? r.bf16.value
                    : name == "fp16" || name == "float16" || name == "half"  ? r.fp16.value
                    : name == "fp8" || name == "e4m3" || name == "e5m2"      ? r.fp8.value
                    : name == "tf32"                                         ? r.tf32.value
                    : name == "fp32" || name == "float32" || name == "float" ? r.fp32.value
                    : name == "fp64" || name == "float64"                    ? r.fp64.value
                                                                             : flops_per_second{};
  if (!(pick.value() > 0.0)) {
    throw invalid_spec("--dtype", "'" + text + "' has no dense peak in the " +
                                      std::string(gpu.name) + " preset; give --flops");
  }
  return pick;
}

}  // namespace

double fraction_flag(const std::string& text, const char* flag) {
  std::string_view rest;
  const double f = detail::leading_number(flag, text, rest, "a fraction such as 0.5");
  if (!rest.empty() || !(f >= 0.0 && f <= 1.0)) {
    throw invalid_spec(flag, "'" + text + "' is not a fraction in [0, 1]");
  }
  return f;
}

void add_hardware_flags(CLI::App& cmd, hardware_flags& f) {
  auto* hw = cmd.add_option_group("Hardware (presets, then overrides)");
  hw->add_option("--gpu", f.gpu, "GPU preset (tpcost hardware list)")->capture_default_str();
  hw->add_option("--interconnect", f.interconnect, "inter-node link preset")->capture_default_str();
  hw->add_option("--interconnect-file", f.interconnect_file,
                 "intra-node link from a `tpcost calibrate --out` profile (alpha, beta)");
  hw->add_option("--dtype", f.dtype, "compute dtype: picks the preset's dense peak")
      ->capture_default_str();
  hw->add_option("--flops", f.flops, "per-GPU peak FLOP/s (overrides the preset)");
  hw->add_option("--memory", f.memory, "HBM capacity per GPU, e.g. 80GiB");
  hw->add_option("--memory-bandwidth", f.memory_bandwidth, "HBM bandwidth, e.g. 2039GB/s");
  hw->add_option("--matmul-efficiency", f.matmul_efficiency,
                 "achievable share of peak for large matmuls (default 0.75)");
  hw->add_option("--memory-efficiency", f.memory_efficiency,
                 "achievable share of HBM bandwidth for element-wise kernels (default 0.66)");
  hw->add_option("--gpus-per-node", f.gpus_per_node, "GPUs per node (overrides the preset)");
  hw->add_option("--intra-bandwidth", f.intra_bandwidth, "intra-node link, per direction");
  hw->add_option("--intra-latency", f.intra_latency, "intra-node latency per step");
  hw->add_option("--inter-bandwidth", f.inter_bandwidth, "inter-node link per GPU, per direction");
  hw->add_option("--inter-latency", f.inter_latency, "inter-node latency per step");
}

void add_software_flags(CLI::Option_group& group, software_flags& f) {
  group
      .add_option("--attention", f.attention,
                  "attention kernel: fused (FlashAttention: no s*s scores in HBM) or unfused "
                  "(Megatron-LM 2021, as in the SC21 validation)")
      ->capture_default_str();
  group.add_option("--tp-overlap", f.tp_overlap, "share of TP comm hidden behind compute")
      ->capture_default_str();
  group
      .add_option("--dp-overlap", f.dp_overlap,
                  "share of the DP gradient sync hidden behind the last backward")
      ->capture_default_str();
}

chosen_hardware to_hardware(const hardware_flags& f) {
  chosen_hardware out;
  const auto& gpu = gpu_preset_by_name(f.gpu, "--gpu");
  const auto& net = interconnect_preset_by_name(f.interconnect, "--interconnect");
  out.gpu = &gpu;
  out.interconnect = &net;
  const auto type = parse_dtype(f.dtype, "--dtype");
  out.device.peak =
      f.flops.empty() ? peak_for(gpu, type, f.dtype) : parse_flop_rate(f.flops, "--flops");
  out.device.memory_bandwidth = f.memory_bandwidth.empty()
                                    ? gpu.memory_bandwidth.value
                                    : parse_bandwidth(f.memory_bandwidth, "--memory-bandwidth");
  out.memory_capacity = f.memory.empty() ? gpu.memory.value : parse_bytes(f.memory, "--memory");
  if (!f.matmul_efficiency.empty()) {
    out.device.efficiency.matmul = fraction_flag(f.matmul_efficiency, "--matmul-efficiency");
  }
  if (!f.memory_efficiency.empty()) {
    out.device.efficiency.memory = fraction_flag(f.memory_efficiency, "--memory-efficiency");
  }
  out.topology = make_topology(gpu, net);
  if (!f.interconnect_file.empty()) {
    const auto profiles = read_profile_file(f.interconnect_file, "--interconnect-file");
    out.topology.intra = primary_profile(profiles, "--interconnect-file").link;
    out.intra_from_profile = f.interconnect_file;
  }
  if (!f.gpus_per_node.empty()) {
    out.topology.gpus_per_node = parse_count(f.gpus_per_node, "--gpus-per-node");
  }
  if (!f.intra_bandwidth.empty()) {
    out.topology.intra.bandwidth = parse_bandwidth(f.intra_bandwidth, "--intra-bandwidth");
  }
  if (!f.intra_latency.empty()) {
    out.topology.intra.latency = parse_duration(f.intra_latency, "--intra-latency");
  }
  if (!f.inter_bandwidth.empty()) {
    out.topology.inter.bandwidth = parse_bandwidth(f.inter_bandwidth, "--inter-bandwidth");
  }
  if (!f.inter_latency.empty()) {
    out.topology.inter.latency = parse_duration(f.inter_latency, "--inter-latency");
  }
  return out;
}

step_options to_step_options(const software_flags& f) {
  step_options out;
  if (f.attention != "fused" && f.attention != "unfused") {
    throw invalid_spec("--attention", "'" + f.attention + "' is not one of fused|unfused");
  }
  out.attention = f.attention == "fused" ? attention_kernel::fused : attention_kernel::unfused;
  out.tp_overlap = fraction_flag(f.tp_overlap, "--tp-overlap");
  out.dp_overlap = fraction_flag(f.dp_overlap, "--dp-overlap");
  return out;
}

}  // namespace tpcost::cli
