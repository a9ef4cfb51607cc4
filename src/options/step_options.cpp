#include "options/step_options.hpp"

#include "options/cli_options.hpp"
#include "options/flag_options.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/hardware/efficiency.hpp"
#include "tpcost/io/profile_json.hpp"

namespace tpcost::cli {

void add_hardware_flags(CLI::App& cmd, hardware_flags& f) {
  auto* hw = cmd.add_option_group("Hardware (presets, then overrides)");
  add_flag(*hw, "--gpu", f.gpu);
  // capture_default_str: the config overlay resets an option to its captured default.
  add_flag(*hw, "--interconnect", f.interconnect)->capture_default_str();
  add_flag(*hw, "--interconnect-file", f.interconnect_file);
  add_flag(*hw, "--dtype", f.dtype)->capture_default_str();
  add_flag(*hw, "--flops", f.flops);
  add_flag(*hw, "--memory", f.memory);
  add_flag(*hw, "--memory-bandwidth", f.memory_bandwidth);
  add_flag(*hw, "--matmul-efficiency", f.matmul_efficiency);
  add_flag(*hw, "--attention-efficiency", f.attention_efficiency);
  add_flag(*hw, "--memory-efficiency", f.memory_efficiency);
  add_flag(*hw, "--gpus-per-node", f.gpus_per_node);
  add_flag(*hw, "--intra-bandwidth", f.intra_bandwidth);
  add_flag(*hw, "--intra-latency", f.intra_latency);
  add_flag(*hw, "--inter-bandwidth", f.inter_bandwidth);
  add_flag(*hw, "--inter-latency", f.inter_latency);
}

void add_software_flags(CLI::Option_group& group, software_flags& f) {
  add_stack_flags(group, f.stack);
  add_flag(group, "--attention", f.attention)->capture_default_str();
  add_flag(group, "--tp-overlap", f.tp_overlap)->capture_default_str();
  add_flag(group, "--dp-overlap", f.dp_overlap)->capture_default_str();
  add_flag(group, "--mfu-flops", f.mfu_flops)->capture_default_str();
}

void add_precision_flags(CLI::Option_group& group, software_flags& f) {
  add_flag(group, "--precision", f.precision)->capture_default_str();
  add_flag(group, "--fp8-attention", f.fp8_attention);
  add_flag(group, "--fp8-param-gather", f.fp8_param_gather);
}

chosen_hardware to_hardware(const hardware_flags& f) {
  // The topology as every other command reads it (cli_options.cpp): the presets, GPUs per
  // node, the calibrated profile (which replaces the link it measured), then the link flags.
  // The step needs both presets (HBM, peak, the node); "" would mean "none" to to_topology.
  if (f.gpu.empty()) {
    throw invalid_spec("--gpu",
                       "no GPU given; name the hardware, e.g. --gpu h100-sxm --interconnect ib-ndr "
                       "('tpcost hardware list' shows the presets)");
  }
  refined_flags topology_flags;
  topology_flags.gpu = f.gpu;
  topology_flags.interconnect = f.interconnect;
  topology_flags.interconnect_file = f.interconnect_file;
  topology_flags.gpus_per_node = f.gpus_per_node;
  topology_flags.intra_bandwidth = f.intra_bandwidth;
  topology_flags.intra_latency = f.intra_latency;
  topology_flags.inter_bandwidth = f.inter_bandwidth;
  topology_flags.inter_latency = f.inter_latency;
  hardware_origin origin;
  chosen_hardware out;
  out.topology = to_topology(topology_flags, "", origin);
  out.gpu = origin.gpu;
  out.interconnect = origin.interconnect;
  out.assumption = origin.assumption();
  out.network = origin.interconnect != nullptr ? std::string(origin.interconnect->name)
                : origin.profile_link == profile_scope::inter_node
                    ? "the --interconnect-file link"
                    : "the --inter-bandwidth/--inter-latency link";
  out.profile_file = origin.profile_file;
  out.profile_link = origin.profile_link;

  const auto type = parse_dtype(f.dtype, "--dtype");
  if (f.flops.empty()) {
    try {
      // --dtype fp8 is --precision fp8 (to_precision_options): the FP8 peak applies to the
      // linear layers only, and the BF16 peak is the step's (MFU's) reference.
      out.device.peak =
          dense_peak(*out.gpu, type.size_bytes == 1 ? parse_dtype("bf16", "--dtype") : type).value;
    } catch (const invalid_spec& e) {
      throw invalid_spec("--dtype", e.detail());
    }
  } else {
    out.device.peak = parse_flop_rate(f.flops, "--flops");
  }
  out.device.memory_bandwidth = f.memory_bandwidth.empty()
                                    ? out.gpu->memory_bandwidth.value
                                    : parse_bandwidth(f.memory_bandwidth, "--memory-bandwidth");
  out.memory_capacity =
      f.memory.empty() ? out.gpu->memory.value : parse_bytes(f.memory, "--memory");
  // The GPU model's η, else its generation's (hardware/efficiency.hpp), with its source; the
  // flags override.
  const auto eta = default_efficiency(out.gpu->name, out.gpu->arch, tensor_rate::bf16);
  out.device.efficiency = {.matmul = eta.matmul, .memory = eta.memory, .attention = eta.attention};
  out.efficiency_source = eta.source;
  if (!f.matmul_efficiency.empty()) {
    out.device.efficiency.matmul = fraction_flag(f.matmul_efficiency, "--matmul-efficiency");
  }
  if (!f.memory_efficiency.empty()) {
    out.device.efficiency.memory = fraction_flag(f.memory_efficiency, "--memory-efficiency");
  }
  if (!f.attention_efficiency.empty()) {
    out.device.efficiency.attention =
        fraction_flag(f.attention_efficiency, "--attention-efficiency");
  }
  return out;
}

std::string profile_note(const chosen_hardware& hw, profile_scope link) {
  return !hw.profile_file.empty() && hw.profile_link == link ? " (from " + hw.profile_file + ")"
                                                             : std::string();
}

stack_choice to_stack_choice(const software_flags& f, const hardware_flags& hardware) {
  const bool fp16 = dtype_kind(parse_dtype(hardware.dtype, "--dtype").name) == "fp16";
  auto choice = resolve_stack(f.stack, f.attention, f.tp_overlap, f.dp_overlap, fp16);
  choice.options.mfu_flops = parse_flops_convention(f.mfu_flops, "--mfu-flops");
  return choice;
}

void apply_kernel_efficiency(const hardware_flags& f, stack_choice& choice, chosen_hardware& hw) {
  hw.kernels = choice.kernels;
  if (hw.gpu == nullptr || choice.kernels == kernel_stack::megatron_fused) {
    return;  // to_hardware's η are these kernels' already
  }
  const auto eta = default_efficiency(hw.gpu->name, hw.gpu->arch, tensor_rate::bf16, hw.kernels);
  auto& e = hw.device.efficiency;
  e.elementwise_traffic = eta.elementwise_traffic;
  if (f.matmul_efficiency.empty()) {
    e.matmul = eta.matmul;
  }
  if (f.memory_efficiency.empty()) {
    e.memory = eta.memory;
  }
  if (f.attention_efficiency.empty()) {
    e.attention = eta.attention;
  }
  hw.efficiency_source = eta.source;
}

step_options to_step_options(const software_flags& f) {
  return to_stack_choice(f, hardware_flags{}).options;
}

}  // namespace tpcost::cli

namespace tpcost::cli {

precision_options to_precision_options(const software_flags& software,
                                       const hardware_flags& hardware) {
  precision_options out;
  out.linear = parse_linear_precision(software.precision, "--precision");
  if (parse_dtype(hardware.dtype, "--dtype").size_bytes == 1) {  // fp8, e4m3, e5m2
    if (out.linear != linear_precision::bf16 && out.linear != linear_precision::fp8_delayed) {
      throw invalid_spec("--dtype",
                         "fp8 means --precision fp8 (fp8-delayed); it contradicts "
                         "--precision " +
                             software.precision + ": give one of them");
    }
    out.linear = linear_precision::fp8_delayed;
  }
  out.fp8_attention = software.fp8_attention;
  out.fp8_param_gather = software.fp8_param_gather;
  return out;
}

}  // namespace tpcost::cli
