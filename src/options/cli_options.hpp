// Option groups shared by the subcommands, so that the same flag means the same quantity
// everywhere. Values are kept as text and read with the core's parsers, so that a bad value
// gets the core's one-line message naming the flag.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "options/hardware_origin.hpp"
#include "output/emit.hpp"
#include "output/output_format.hpp"
#include "tpcost/layer/tensor_parallel.hpp"
#include "tpcost/layer/tp_layer_options.hpp"
#include "tpcost/model/memory.hpp"

namespace tpcost::cli {

/// The seed's inputs: b, s, h, d, P, B. Defaults are the seed demo's; empty text means "not
/// given", so that a preset (--gpu) can fill it.
struct layer_flags {
  std::string model;      ///< a model preset: h, s and a unless --hidden, --seq, --heads are given
  std::string hf_config;  ///< or a Hugging Face config.json, the same way
  std::string batch = "2";
  std::string seq;        ///< empty: the --model's, else 2048
  std::string hidden;     ///< empty: the --model's, else 8192
  std::string dtype;      ///< empty: bf16 with --gpu, else fp32 (the seed's demo)
  std::string flops;      ///< empty: the --gpu preset's dense peak for --dtype, else 1PFLOP/s
  std::string bandwidth;  ///< empty: the intra-node link (profile, preset), else 600GB/s
  std::string min_efficiency = "0.7";
};

/// The refined model's flags (tp_layer_options.hpp, topology.hpp) and the hardware presets
/// (presets.hpp) and calibrated profile (calibration.hpp) that fill their defaults. Empty
/// text means "not given": a preset or the seed's default applies.
struct refined_flags {
  std::string gpu;                ///< --gpu NAME: P, the intra-node link, GPUs per node
  std::string interconnect;       ///< --interconnect NAME: the inter-node link
  std::string interconnect_file;  ///< --interconnect-file FILE: a calibrated link
  std::string collective;         ///< empty: auto with a preset or profile, else seed
  std::string bandwidth_kind;     ///< empty: algbw
  bool sp = false;
  std::string recompute = "none";
  std::string overlap = "0";
  std::string comm_dtype;       ///< empty: --dtype
  std::string heads;            ///< empty: h/128
  std::string gpus_per_node;    ///< empty: the GPU preset's, else 8
  std::string intra_bandwidth;  ///< empty: --bandwidth, else the profile's or the preset's
  std::string intra_latency;    ///< empty: the profile's or the preset's, else 0
  std::string inter_bandwidth;  ///< empty: the profile's or the preset's, else no link
  std::string inter_latency;    ///< empty: the profile's or the preset's, else 0
  /// `check`: the tp_within_node rule reads --gpus-per-node under the seed's model too, so it
  /// is not a flag that model would ignore.
  bool rules_read_gpus_per_node = false;
};

/// Everything the per-layer models read, resolved from the flags: presets first, then the
/// calibrated profile, then explicit flags (or config values), which always win.
struct layer_inputs {
  layer_spec layer;
  device_spec device;
  tp_options options;
  cluster_topology topology;
  hardware_origin origin;

  /// The seed's model exactly: the seed's sweep and renderers apply (sweep.hpp).
  [[nodiscard]] bool article_model() const { return is_article_model(layer, options); }
};

/// "{name,name,...}": the preset names as a positional's type (`model show NAME`), which --help
/// prints and the shell completions offer; the flags' come from the registry.
std::string model_choices();
/// GPU and interconnect presets together (`hardware show NAME`).
std::string hardware_choices();

void add_layer_flags(CLI::App& cmd, layer_flags& flags);
/// --gpu, --interconnect, --interconnect-file and the refined model's flags (sweep, explain).
void add_refined_flags(CLI::App& cmd, refined_flags& flags);
/// --gpu, --interconnect, --interconnect-file and the topology flags alone (collective).
void add_hardware_flags(CLI::App& cmd, refined_flags& flags);
void add_output_flags(CLI::App& cmd, output_flags& flags, const std::string& formats);

/// A fraction in [0, 1] written as a plain number ("0.5"); throws `invalid_spec(flag, ...)`.
double fraction_flag(const std::string& text, const char* flag);

/// --min-efficiency, a fraction strictly between 0 and 1.
double to_efficiency_target(const layer_flags& flags);

/// The inputs of the per-layer models. Throws `invalid_spec` naming the flag for a bad value,
/// an unknown preset (with a suggestion), a dtype the GPU preset has no rate for, or a flag the
/// chosen model would ignore (topology flags with --collective seed, --bandwidth-kind without
/// it). With a preset or a profile the collective defaults to auto: a preset is a real
/// topology, and the seed's one-bandwidth model would ignore its latencies and node boundary.
layer_inputs to_layer_inputs(const layer_flags& layer, const refined_flags& refined);

/// The topology alone (collective): presets, then the profile, then the flags; `bandwidth` is
/// the text of a --bandwidth flag that sets the intra-node link (empty: not given).
cluster_topology to_topology(const refined_flags& flags, const std::string& bandwidth,
                             hardware_origin& origin);

/// Core errors name a spec field ("global_batch"); on the command line that is the flag
/// ("--global-batch"). A field that is not a bare name (a JSON pointer "/a/b", a file location
/// "run.txt:12", a command "hardware show", a flag) is returned as it is.
std::string flag_of(const std::string& field);
/// "--flag: detail", the one line an invalid input prints after "tpcost: error: ".
std::string error_message(const invalid_spec& e);

/// Throws invalid_spec(flag, "applies to mixture-of-experts models; this one is dense") when
/// `given` and the model is dense: the MoE-only flags of step and plan.
void require_experts_for(const transformer_spec& model, bool given, const std::string& flag);

}  // namespace tpcost::cli
