// Option groups shared by the subcommands, so that the same flag means the same quantity
// everywhere. Values are kept as text and read with the core's parsers, so that a bad value
// gets the core's one-line message naming the flag.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "render.hpp"
#include "tpcost/tensor_parallel.hpp"

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

struct output_flags {
  std::string format = "table";
  std::string output;  ///< empty: stdout
};

void add_layer_flags(CLI::App& cmd, layer_flags& flags);
void add_output_flags(CLI::App& cmd, output_flags& flags, const std::string& formats);

layer_spec to_layer_spec(const layer_flags& flags);
device_spec to_device_spec(const layer_flags& flags);
/// --min-efficiency, a fraction strictly between 0 and 1.
double to_efficiency_target(const layer_flags& flags);

/// Writes `text` to --output (or stdout) whole; throws io_error when the file cannot be written.
void emit(const output_flags& flags, const std::string& text);

/// A file could not be written: exit code 3.
class io_error : public tpcost::error {
 public:
  using tpcost::error::error;
};

}  // namespace tpcost::cli
