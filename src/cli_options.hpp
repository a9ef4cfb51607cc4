// Option groups shared by the subcommands, so that the same flag means the same quantity
// everywhere. Values are kept as text and read with the core's parsers, so that a bad value
// gets the core's one-line message naming the flag.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "render.hpp"
#include "tpcost/tensor_parallel.hpp"
#include "tpcost/tp_layer_options.hpp"

namespace tpcost::cli {

/// The seed's inputs: b, s, h, d, P, B. Defaults are the seed demo's.
struct layer_flags {
  std::string batch = "2";
  std::string seq = "2048";
  std::string hidden = "8192";
  std::string dtype = "fp32";
  std::string flops = "1PFLOP/s";
  std::string bandwidth = "600GB/s";
  std::string min_efficiency = "0.7";
};

/// The refined model's flags (tp_layer_options.hpp, topology.hpp). Empty text means "not
/// given"; the pointers tell which flags the user typed, to reject combinations that would be
/// silently ignored.
struct refined_flags {
  std::string collective = "seed";
  std::string bandwidth_kind = "algbw";
  bool sp = false;
  std::string recompute = "none";
  std::string overlap = "0";
  std::string comm_dtype;  ///< empty: --dtype
  std::string heads;       ///< empty: h/128
  std::string gpus_per_node = "8";
  std::string intra_bandwidth;  ///< empty: --bandwidth
  std::string intra_latency = "0";
  std::string inter_bandwidth;  ///< empty: no inter-node link
  std::string inter_latency = "0";
  CLI::Option* bandwidth_kind_option = nullptr;
  std::vector<CLI::Option*> topology_options;
};

struct output_flags {
  std::string format = "table";
  std::string output;  ///< empty: stdout
};

void add_layer_flags(CLI::App& cmd, layer_flags& flags);
void add_refined_flags(CLI::App& cmd, refined_flags& flags);
void add_output_flags(CLI::App& cmd, output_flags& flags, const std::string& formats);

layer_spec to_layer_spec(const layer_flags& flags);
device_spec to_device_spec(const layer_flags& flags);
/// --min-efficiency, a fraction strictly between 0 and 1.
double to_efficiency_target(const layer_flags& flags);

/// The refined options; throws `invalid_spec` for a bad value or a flag that the chosen
/// collective would ignore (topology flags with --collective seed, --bandwidth-kind without it).
tp_options to_tp_options(const refined_flags& flags);
/// The topology: --intra-bandwidth (or --bandwidth), latencies, --inter-bandwidth (or none).
cluster_topology to_topology(const refined_flags& flags, const layer_flags& layer);

/// Writes `text` to --output (or stdout) whole; throws io_error when the file cannot be written.
void emit(const output_flags& flags, const std::string& text);

/// A file could not be written: exit code 3.
class io_error : public tpcost::error {
 public:
  using tpcost::error::error;
};

}  // namespace tpcost::cli
