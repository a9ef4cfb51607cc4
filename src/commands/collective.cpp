// `tpcost collective`: one collective on one group, every algorithm side by side, with the
// nccl-tests bandwidths each would report.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "options/cli_options.hpp"
#include "options/flag_options.hpp"
#include "render/render_collective.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/comm/collectives.hpp"
#include "tpcost/comm/topology.hpp"

namespace tpcost::cli {

namespace {

constexpr const char* algorithm_names =
    "all|auto|article|ring|tree|nvls|nvls-tree|pat|collnet-direct|collnet-chain|hierarchical";

struct collective_options {
  std::string op = "all-reduce";
  std::string size = "1GiB";
  std::string gpus = "8";
  std::string algorithm = "all";
  std::string ranks_per_node;  ///< empty: fill nodes
  std::string nics_per_node;   ///< empty: the preset's (one NIC per GPU)
  bool collnet = false;
  std::string bandwidth;  ///< empty: the profile's or the --gpu preset's link, else 600GB/s
  refined_flags refined;  ///< only the preset and topology flags are registered
  output_flags output;
};

/// Keeps the row of `--algorithm` (auto: the cheapest one), or every row for "all".
collective_comparison select(collective_comparison c, const std::string& algorithm) {
  if (algorithm == "all") {
    return c;
  }
  collective_algorithm wanted = c.cheapest;
  if (algorithm != "auto") {
    bool known = false;
    for (const auto a : all_collective_algorithms) {
      // "seed": the article's convention under its old name.
      if (algorithm == to_string(a) ||
          (algorithm == "seed" && a == collective_algorithm::article)) {
        wanted = a;
        known = true;
      }
    }
    if (!known) {
      throw invalid_spec("--algorithm", "'" + algorithm + "' is not one of " + algorithm_names);
    }
  }
  std::erase_if(c.rows, [&](const auto& row) { return row.algorithm != wanted; });
  if (c.rows.empty()) {
    throw invalid_spec("--algorithm", algorithm + " does not run " + std::string(to_string(c.op)) +
                                          " on this group and hardware (tree, nvls-tree and "
                                          "collnet: all-reduce only; pat: all-gather and "
                                          "reduce-scatter with one GPU per node; nvls: NVLink "
                                          "SHARP; collnet: --collnet)");
  }
  return c;
}

void run_collective(const collective_options& opts) {
  const auto format = parse_output_format(opts.output.format, "table|json");
  const auto op = parse_collective_op(opts.op, "--op");
  // + 0.0 turns "-0B" into +0, which prints as "0 B", never "-0 B" (issue 30).
  const auto size = bytes(parse_bytes(opts.size, "--size").value() + 0.0);
  const auto ranks = parse_count(opts.gpus, "--gpus");
  hardware_origin origin;
  auto topology = to_topology(opts.refined, opts.bandwidth, origin);
  if (!opts.nics_per_node.empty()) {
    topology.nics_per_node = parse_count(opts.nics_per_node, "--nics-per-node");
  }
  topology.collnet = topology.collnet || opts.collnet;
  const std::int64_t per_node =
      opts.ranks_per_node.empty() ? 0 : parse_count(opts.ranks_per_node, "--ranks-per-node");
  if (topology.intra.bandwidth.value() <= 0.0 || !std::isfinite(topology.intra.bandwidth.value())) {
    throw invalid_spec(opts.refined.intra_bandwidth.empty() ? "--bandwidth" : "--intra-bandwidth",
                       "must be a positive finite number of bytes/s");
  }
  const auto comparison = [&] {
    try {
      return compare_collectives(topology, op, ranks, size, per_node);
    } catch (const invalid_spec& e) {
      if (e.field() == "ranks") {  // the core's name of the group size, which is --gpus here
        throw invalid_spec("--gpus", e.detail());
      }
      throw;
    }
  }();
  const auto chosen = select(comparison, opts.algorithm);
  emit(opts.output, render_collective(chosen, format, origin, collective_band_of(chosen, origin)));
}

}  // namespace

void add_collective_command(CLI::App& app) {
  auto opts = std::make_shared<collective_options>();
  auto* cmd = app.add_subcommand(
      "collective", "One collective on one group: time, wire bytes, algbw and busbw per algorithm");
  add_flag(*cmd, "--op", opts->op)->capture_default_str();
  add_flag(*cmd, "--size", opts->size)->capture_default_str();
  // --gpus as in every other command; --ranks, its old name, is still read.
  add_flag(*cmd, "--gpus", opts->gpus)->capture_default_str();
  add_flag(*cmd, "--algorithm", opts->algorithm)->capture_default_str();
  // Not --gpus-per-node: that is the node's size (the --gpu preset's), as in every command;
  // this is how many of the group's GPUs sit on each node, calibrate's --ranks-per-node.
  add_flag(*cmd, "--ranks-per-node", opts->ranks_per_node);
  add_flag(*cmd, "--nics-per-node", opts->nics_per_node);
  add_flag(*cmd, "--collnet", opts->collnet);
  add_flag(*cmd, "--bandwidth", opts->bandwidth);
  add_hardware_flags(*cmd, opts->refined);
  add_output_flags(*cmd, opts->output, "table|json");
  cmd->footer(R"(Examples:
  tpcost collective --op all-reduce --size 1GiB --gpus 8
  tpcost collective --size 64MB --gpus 16 --intra-bandwidth 450GB/s --intra-latency 3us \
                    --inter-bandwidth 50GB/s --inter-latency 10us --algorithm auto
  tpcost collective --op reduce-scatter --size 256MiB --gpus 8 --format json
  tpcost collective --gpu h100-sxm --interconnect ndr --size 8GiB --gpus 16 --algorithm auto
  tpcost collective --gpu h100-sxm --interconnect ndr --size 8GiB --gpus 16 --ranks-per-node 1
  tpcost collective --gpu a100 --interconnect hdr --nics-per-node 4 --size 8GiB --gpus 24
  tpcost collective --interconnect-file my-cluster.json --size 64MiB --gpus 8
)");
  cmd->callback([opts] { run_collective(*opts); });
}

}  // namespace tpcost::cli
