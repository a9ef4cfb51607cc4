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
                   "d: element type (on the wire too, unless --comm-dtype): fp32, tf32, bf16, "
                   "fp16, fp8, fp64, "
                   "or bytes 1..16")
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

void add_refined_flags(CLI::App& cmd, refined_flags& flags) {
  auto* model = cmd.add_option_group(
      "Refined model (default: the seed's; docs/formulas.md has every formula)");
  model
      ->add_option("--collective", flags.collective,
                   "seed (M/B per all-reduce) | ring | tree | hierarchical | auto (cheapest per "
                   "message, as NCCL's tuner)")
      ->capture_default_str();
  flags.bandwidth_kind_option =
      model
          ->add_option("--bandwidth-kind", flags.bandwidth_kind,
                       "with --collective seed, what --bandwidth is: algbw (the seed: an "
                       "all-reduce takes M/B) | busbw (nccl-tests bus bandwidth: 2(t-1)/t*M/B)")
          ->capture_default_str();
  model->add_flag("--sp", flags.sp,
                  "sequence parallelism: all-gather + reduce-scatter for each all-reduce; "
                  "reports activation memory");
  model
      ->add_option("--recompute", flags.recompute,
                   "none | full (forward rerun in backward: 6 collectives, 96*b*s*h^2 FLOP)")
      ->capture_default_str();
  model
      ->add_option("--overlap", flags.overlap,
                   "f in [0,1]: T = T_calc + T_comm - f*min(T_calc, T_comm); 0 serial, 1 max")
      ->capture_default_str();
  model->add_option("--comm-dtype", flags.comm_dtype,
                    "dtype on the wire, e.g. fp8 with --dtype bf16 (default: --dtype)");
  model->add_option("--heads", flags.heads,
                    "a: attention heads, for activation memory (default: h/128, 64 at h=8192)");
  auto* topo = cmd.add_option_group(
      "Topology (with --collective ring|tree|hierarchical|auto; --bandwidth is the intra-node "
      "link unless --intra-bandwidth is given)");
  flags.topology_options = {
      topo->add_option("--gpus-per-node", flags.gpus_per_node, "GPUs per node")
          ->capture_default_str(),
      topo->add_option("--intra-bandwidth", flags.intra_bandwidth,
                       "intra-node link, per GPU and direction, e.g. 450GB/s (default: "
                       "--bandwidth)"),
      topo->add_option("--intra-latency", flags.intra_latency,
                       "intra-node latency per step, e.g. 3us")
          ->capture_default_str(),
      topo->add_option("--inter-bandwidth", flags.inter_bandwidth,
                       "inter-node link per GPU and direction, e.g. 50GB/s (400Gb/s NIC); "
                       "needed when TP spans nodes"),
      topo->add_option("--inter-latency", flags.inter_latency,
                       "inter-node latency per step, e.g. 10us")
          ->capture_default_str(),
  };
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

namespace {
/// A fraction in [0, 1], e.g. "0.5".
double parse_unit_fraction(const std::string& text, const char* flag) {
  std::string_view rest;
  const double f = detail::leading_number(flag, text, rest, "a fraction such as 0.5");
  if (!rest.empty() || !(f >= 0.0 && f <= 1.0)) {
    throw invalid_spec(flag, "'" + text + "' is not a fraction in [0, 1]");
  }
  return f;
}
}  // namespace

tp_options to_tp_options(const refined_flags& flags) {
  tp_options o;
  o.collective = parse_collective_choice(flags.collective, "--collective");
  o.seed_bandwidth = parse_bandwidth_kind(flags.bandwidth_kind, "--bandwidth-kind");
  o.sequence_parallel = flags.sp;
  o.recompute = parse_recompute_mode(flags.recompute, "--recompute");
  o.overlap = parse_unit_fraction(flags.overlap, "--overlap");
  if (!flags.comm_dtype.empty()) {
    o.comm_dtype = parse_dtype(flags.comm_dtype, "--comm-dtype");
  }
  if (!flags.heads.empty()) {
    o.heads = parse_count(flags.heads, "--heads");
  }
  if (o.collective == collective_choice::seed) {
    for (const auto* option : flags.topology_options) {
      if (option != nullptr && option->count() > 0) {
        throw invalid_spec(option->get_name(),
                           "the seed's model has one bandwidth (--bandwidth) and no topology; "
                           "add --collective ring|tree|hierarchical|auto");
      }
    }
  } else if (flags.bandwidth_kind_option != nullptr && flags.bandwidth_kind_option->count() > 0) {
    throw invalid_spec("--bandwidth-kind",
                       "applies to --collective seed only; ring, tree and hierarchical take link "
                       "bandwidths per direction, which nccl-tests' busbw approaches");
  }
  return o;
}

cluster_topology to_topology(const refined_flags& flags, const layer_flags& layer) {
  cluster_topology t;
  t.gpus_per_node = parse_count(flags.gpus_per_node, "--gpus-per-node");
  t.intra.bandwidth = flags.intra_bandwidth.empty()
                          ? parse_bandwidth(layer.bandwidth, "--bandwidth")
                          : parse_bandwidth(flags.intra_bandwidth, "--intra-bandwidth");
  t.intra.latency = parse_duration(flags.intra_latency, "--intra-latency");
  if (!flags.inter_bandwidth.empty()) {
    t.inter.bandwidth = parse_bandwidth(flags.inter_bandwidth, "--inter-bandwidth");
    if (t.inter.bandwidth.value() <= 0.0) {
      throw invalid_spec("--inter-bandwidth", "must be a positive finite number of bytes/s");
    }
  }
  t.inter.latency = parse_duration(flags.inter_latency, "--inter-latency");
  return t;
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
