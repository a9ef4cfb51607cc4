// The hardware and software flags of the whole-step model, shared by `tpcost step` and
// `tpcost plan`: GPU and interconnect presets, their overrides, kernel efficiencies, the
// attention kernel and overlap.
// Values are kept as text and read with the core's parsers, as the other flags are.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "options/stack_flags.hpp"
#include "tpcost/comm/calibration.hpp"
#include "tpcost/hardware/hardware.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/model/precision.hpp"
#include "tpcost/step/compute_model.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::cli {

/// Presets first, then the explicit overrides; empty text means "from the preset". No GPU is
/// assumed: an answer for hardware the user did not name would look like one for theirs
/// (`to_hardware` refuses and says how to name it). Without an interconnect the GPU's
/// reference NIC is used (reference_interconnect), and the report's first line says so.
struct hardware_flags {
  std::string gpu;
  std::string interconnect;
  std::string interconnect_file;  ///< a `calibrate --out` profile for the intra-node link
  std::string dtype = "bf16";
  std::string flops, memory, memory_bandwidth;
  std::string matmul_efficiency, memory_efficiency, attention_efficiency;
  std::string gpus_per_node, intra_bandwidth, intra_latency, inter_bandwidth, inter_latency;
};

/// How the software runs the step: the stack profile, the attention kernel, and how much of
/// the TP and DP communication hides behind compute; empty text means "from the stack".
struct software_flags {
  stack_flags stack;
  std::string attention;
  std::string tp_overlap;
  std::string dp_overlap;
  std::string mfu_flops = "full";  ///< how MFU counts model FLOPs (model/flops.hpp)
  std::string precision = "bf16";  ///< the linear layers' recipe (model/precision.hpp)
  bool fp8_attention = false;
  bool fp8_param_gather = false;
};

/// The hardware the flags describe, and where it came from.
struct chosen_hardware {
  const gpu_preset* gpu = nullptr;
  const interconnect_preset* interconnect = nullptr;  ///< nullptr when flags or a profile gave it
  std::string network;       ///< the inter-node link's name for reports ("IB-NDR")
  std::string assumption;    ///< "assumed: ..." when the network was not named, else ""
  std::string profile_file;  ///< the --interconnect-file, if any
  profile_scope profile_link = profile_scope::intra_node;  ///< the link the profile replaced
  compute_device device;
  std::string_view efficiency_source;  ///< where the default η came from (efficiency.hpp)
  /// The kernels the η are of (apply_kernel_efficiency; megatron-fused until a stack says).
  kernel_stack kernels = kernel_stack::megatron_fused;
  bytes memory_capacity{};
  cluster_topology topology;
};

/// Registers the "Hardware (presets, then overrides)" group.
void add_hardware_flags(CLI::App& cmd, hardware_flags& flags);
/// Registers --attention, --tp-overlap and --dp-overlap in `group`.
void add_software_flags(CLI::Option_group& group, software_flags& flags);
/// Registers --precision, --fp8-attention and --fp8-param-gather in `group` (step, check).
void add_precision_flags(CLI::Option_group& group, software_flags& flags);

/// Reads the presets and applies the overrides; throws `invalid_spec` naming the flag.
chosen_hardware to_hardware(const hardware_flags& flags);
/// " (from FILE)" when the --interconnect-file replaced `link`, else "".
std::string profile_note(const chosen_hardware& hw, profile_scope link);
/// The stack's profile with the explicit flags over it (resolve_stack, stack_flags.hpp), for a
/// run that trains in `hardware`'s --dtype (fp16 changes megatron-core's gradients).
stack_choice to_stack_choice(const software_flags& flags, const hardware_flags& hardware);
/// The default η of the kernels `choice` runs (efficiency.hpp: torchtitan's PyTorch kernels
/// have their own) on `hw`'s GPU, under the --*-efficiency flags of `f`, with their source.
void apply_kernel_efficiency(const hardware_flags& f, stack_choice& choice, chosen_hardware& hw);
/// The step options of `to_stack_choice` (a bf16 run).
step_options to_step_options(const software_flags& flags);
/// The precision recipe: --precision, or --dtype fp8 as its alias (fp8 = fp8-delayed,
/// Megatron's default recipe); --fp8-attention, --fp8-param-gather. Not yet checked against
/// the GPU (precision_device_for does that).
precision_options to_precision_options(const software_flags& software,
                                       const hardware_flags& hardware);

}  // namespace tpcost::cli
