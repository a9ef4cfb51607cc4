#include "cli_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "tpcost/parse.hpp"

namespace tpcost::cli {

void add_layer_flags(CLI::App& cmd, layer_flags& flags) {
  auto* group = cmd.add_option_group("Layer and hardware (the seed's symbols)");
  group->add_option("-b,--batch", flags.batch, "b: micro-batch size, sequences")
      ->capture_default_str();
  group->add_option("-s,--seq", flags.seq, "s: sequence length, tokens")->capture_default_str();
  group->add_option("--hidden", flags.hidden, "h: hidden size")->capture_default_str();
  group
      ->add_option("--dtype", flags.dtype,
                   "d: element type on the wire: fp32, tf32, bf16, fp16, fp8, fp64, or bytes 1..16")
      ->capture_default_str();
  group
      ->add_option("--flops", flags.flops, "P: per-GPU compute rate, e.g. 1PFLOP/s, 989.4T, 312e12")
      ->capture_default_str();
  group
      ->add_option("--bandwidth", flags.bandwidth,
                   "B: per-GPU bandwidth applied to the full message, e.g. 600GB/s, 600e9, 400Gb/s")
      ->capture_default_str();
  group
      ->add_option("--min-efficiency", flags.min_efficiency,
                   "efficiency target for the 'largest TP' summary, in (0,1)")
      ->capture_default_str();
}

void add_output_flags(CLI::App& cmd, output_flags& flags, const std::string& formats) {
  std::string choices = "{" + formats + "}";  // the help's and completions' list of values
  std::replace(choices.begin(), choices.end(), '|', ',');
  cmd.add_option("-f,--format", flags.format, "output format: " + formats)
      ->type_name(choices)
      ->capture_default_str();
  cmd.add_option("-o,--output", flags.output, "write to FILE instead of stdout")->type_name("FILE");
}

layer_spec to_layer_spec(const layer_flags& flags) {
  return layer_spec{
      .batch = parse_count(flags.batch, "--batch"),
      .seq = parse_count(flags.seq, "--seq"),
      .hidden = parse_count(flags.hidden, "--hidden"),
      .element = parse_dtype(flags.dtype, "--dtype"),
  };
}

device_spec to_device_spec(const layer_flags& flags) {
  return device_spec{
      .peak = parse_flop_rate(flags.flops, "--flops"),
      .bandwidth = parse_bandwidth(flags.bandwidth, "--bandwidth"),
  };
}

double to_efficiency_target(const layer_flags& flags) {
  std::string_view rest;
  const double e = detail::leading_number("--min-efficiency", flags.min_efficiency, rest,
                                          "a fraction such as 0.7");
  if (!rest.empty() || !(e > 0.0 && e < 1.0)) {
    throw invalid_spec("--min-efficiency",
                       "'" + flags.min_efficiency + "' is not a fraction strictly between 0 and 1");
  }
  return e;
}

void emit(const output_flags& flags, const std::string& text) {
  if (flags.output.empty() || flags.output == "-") {
    std::cout << text << std::flush;
    if (!std::cout) {
      throw io_error("cannot write to stdout");
    }
    return;
  }
  std::ofstream file(flags.output, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    throw io_error("--output: cannot write '" + flags.output + "'");
  }
}

}  // namespace tpcost::cli
