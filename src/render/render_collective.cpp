#include "render/render_collective.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "render/hardware_text.hpp"
#include "render/text_table.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/io/json.hpp"

namespace tpcost::cli {

namespace {

std::string collective_text(const collective_comparison& c, const hardware_origin& origin,
                            const collective_band& band) {
  std::string o = assumption_line(origin);
  o += fmt::format("{} of {} ({:.0f} B) over {}: ", to_string(c.op), io::to_string(c.message),
                   c.message.value(), plural(c.group.ranks, "rank", "ranks"));
  o += c.group.spans_nodes()
           ? fmt::format("{} nodes x {} GPUs\n", c.group.nodes, c.group.per_node)
           : fmt::format("one node ({} GPUs per node)\n", c.topology.gpus_per_node);
  o += fmt::format("links: intra-node {}; inter-node {}\n", link_text(c.topology.intra),
                   inter_link_text(c.topology));
  if (origin.any()) {
    o += fmt::format("hardware: {}\n", hardware_line(origin));
  }
  o += "\n";
  text_table t{{"algorithm", "protocol", "time", "steps", "wire/GPU", "x-node/GPU", "per NIC",
                "algbw", "busbw"}};
  for (const auto& row : c.rows) {
    const bool nccl = row.algorithm != collective_algorithm::article &&
                      row.algorithm != collective_algorithm::hierarchical;
    t.push_back({std::string(to_string(row.algorithm)),
                 nccl ? std::string(to_string(row.cost.protocol)) : std::string("-"),
                 io::to_string(row.cost.time), fmt::format("{}", row.cost.steps),
                 io::to_string(row.cost.wire_bytes), io::to_string(row.cost.inter_node_bytes),
                 nccl && c.group.spans_nodes() ? io::to_string(row.cost.nic_bytes) : "-",
                 row.algbw ? io::to_string(*row.algbw) : "-",
                 row.busbw ? io::to_string(*row.busbw) : "-"});
  }
  o += aligned_table(t, false, {0});
  o += "\n";
  if (band.band) {
    const auto& b = band.band->band;
    const auto& row = c.rows.size() == 1
                          ? c.rows.front()
                          : *std::find_if(c.rows.begin(), c.rows.end(),
                                          [&](const auto& r) { return r.algorithm == c.cheapest; });
    o += fmt::format("likely {} to {} for {} ({:+.1f}% to {:+.1f}% of every time above): {}\n",
                     io::to_string(row.cost.time * b.low()),
                     io::to_string(row.cost.time * b.high()), to_string(row.algorithm),
                     100.0 * (b.low() - 1.0), 100.0 * (b.high() - 1.0), band.basis);
  } else if (!band.basis.empty()) {
    o += band.basis + "\n";
  }
  o += fmt::format(
      "cheapest (auto): {}, what NCCL's tuner picks (NCCL v2.23 model, "
      "docs/collectives.md)\n",
      to_string(c.cheapest));
  o += "hierarchical: a textbook two-level bound, not one of NCCL's algorithms\n";
  o += "article: M/B, the article's convention (B = the intra-node bandwidth as an all-reduce's "
       "algbw; no latency)\n";
  o += "algbw = M/T, busbw = algbw*2(n-1)/n (all-reduce) or algbw*(n-1)/n (nccl-tests "
       "doc/PERFORMANCE.md)\n";
  if (c.op != collective_op::all_reduce) {
    o += "tree, nvls-tree, collnet: all-reduce only, as in NCCL\n";
  }
  return o;
}

}  // namespace

std::string render_collective(const collective_comparison& comparison, output_format format,
                              const hardware_origin& origin, const collective_band& band) {
  if (format == output_format::json) {
    nlohmann::json j = with_hardware(comparison, origin);
    for (auto& row : j["results"]) {
      const double t = row.at("time_s").get<double>();
      row["time_band_s"] =
          band.band ? nlohmann::json::array({t * band.band->band.low(), t * band.band->band.high()})
                    : nlohmann::json(nullptr);
    }
    if (band.band) {
      const auto& b = *band.band;
      j["band"] = {{"measured", true},
                   {"kind", "leave-one-size-out"},
                   {"coverage", band_coverage},
                   {"points", b.points},
                   {"near_the_size", b.near},
                   {"min_size_bytes", b.min_size.value()},
                   {"max_size_bytes", b.max_size.value()},
                   {"relative", {b.band.low(), b.band.high()}},
                   {"mean_abs_error", b.mean_abs},
                   {"worst_abs_error", b.worst},
                   {"basis", band.basis}};
    } else {
      j["band"] = {{"measured", false}, {"basis", band.basis}};
    }
    return j.dump(2) + "\n";
  }
  return collective_text(comparison, origin, band);
}

}  // namespace tpcost::cli
