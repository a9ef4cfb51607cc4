#include "render/render.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "render/hardware_text.hpp"
#include "render/text_table.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/io/json.hpp"
#include "tpcost/version.hpp"

namespace tpcost::cli {

namespace {

std::string inputs_line(const sweep_result& r) {
  return fmt::format("b={}  s={}  h={}  d={} B ({})  P={}  B={}", r.layer.batch, r.layer.seq,
                     r.layer.hidden, r.layer.element.size_bytes, r.layer.element.name,
                     io::to_string(r.device.peak), io::to_string(r.device.bandwidth));
}

std::string summary_lines(const sweep_result& r) {
  std::string out = fmt::format("t* = A/C = {} / {} = {:.2f}  (E(t*) = 50%)\n",
                                io::to_ms(r.single_gpu_compute), io::to_ms(r.comm), r.critical_tp);
  out += fmt::format("E >= {} while t <= {:.2f}; ", io::percent(r.efficiency_target),
                     r.tp_bound_for_target);
  if (r.best_swept_tp) {
    out += fmt::format("largest swept TP meeting it: {} (μ = {} there)\n", *r.best_swept_tp,
                       io::percent(r.utilisation_at_best));
  } else {
    out += "no swept TP meets it\n";
  }
  return out;
}

text_table sweep_table(const sweep_result& r) {
  text_table t{
      {"TP", "compute ms", "comm ms", "total ms", "overlap ms", "R", "efficiency", "speed-up"}};
  for (const auto& row : r.rows) {
    t.push_back({fmt::format("{}", row.tp), fmt::format("{:.3f}", row.compute.value() * 1e3),
                 fmt::format("{:.3f}", row.comm.value() * 1e3),
                 fmt::format("{:.3f}", row.serial.value() * 1e3),
                 fmt::format("{:.3f}", row.overlapped.value() * 1e3),
                 fmt::format("{:.4f}", row.ratio), io::percent(row.efficiency),
                 fmt::format("{:.2f}x", row.speedup)});
  }
  return t;
}

std::string sweep_csv(const sweep_result& r) {
  std::string out =
      "tp,compute_s,comm_s,serial_s,overlapped_s,ratio,efficiency,comm_share,speedup\n";
  for (const auto& row : r.rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", row.tp, row.compute.value(),
                       row.comm.value(), row.serial.value(), row.overlapped.value(), row.ratio,
                       row.efficiency, row.comm_share, row.speedup);
  }
  return out;
}

std::string explain_text(const tp_explanation& x, const hardware_origin& origin) {
  const auto& r = x.sweep;
  const auto& row = r.rows.front();
  const auto& L = r.layer;
  std::string o = assumption_line(origin);
  o += fmt::format("One transformer layer at TP t = {}, the article's model, forward + backward.\n",
                   row.tp);
  o += fmt::format("Inputs: {}\n", inputs_line(r));
  o += hardware_section(origin, r.device, nullptr);
  o += "\n1. Message of one all-reduce: the full activation, whatever t is\n";
  o += fmt::format("   M_msg = b*s*h*d = {} * {} * {} * {} B = {:.0f} B = {}\n", L.batch, L.seq,
                   L.hidden, L.element.size_bytes, r.message.value(), io::to_string(r.message));
  o += "2. TP traffic per layer: 2 all-reduces forward, 2 backward\n";
  o += fmt::format("   M_layer = 4*M_msg = {:.0f} B = {}\n", r.comm_bytes.value(),
                   io::to_string(r.comm_bytes));
  o += "3. Compute per layer (Megatron's 72*b*s*h^2, attention scores left out)\n";
  o += fmt::format("   F_layer = 72*b*s*h^2 = 72 * {} * {} * {}^2 = {:.4e} FLOP = {}\n", L.batch,
                   L.seq, L.hidden, r.layer_flops.value(), io::to_string(r.layer_flops));
  o += "4. Compute time of the whole layer on one GPU\n";
  o += fmt::format("   A = F_layer / P = {} / {} = {}\n", io::to_string(r.layer_flops),
                   io::to_string(r.device.peak), io::to_ms(r.single_gpu_compute));
  o += fmt::format("5. Compute time per GPU at t = {}: split evenly\n", row.tp);
  o += fmt::format("   T_calc = A / t = {} / {} = {}\n", io::to_ms(r.single_gpu_compute), row.tp,
                   io::to_ms(row.compute));
  o += "6. Comm time per GPU: the same at every t\n";
  o += fmt::format("   C = T_comm = M_layer / B = {} / {} = {}\n", io::to_string(r.comm_bytes),
                   io::to_string(r.device.bandwidth), io::to_ms(row.comm));
  o += "7. Comm/compute ratio\n";
  o += fmt::format("   R = T_comm / T_calc = {} / {} = {:.6f}\n", io::to_ms(row.comm),
                   io::to_ms(row.compute), row.ratio);
  o += fmt::format("     = t*P*d / (18*h*B) = {} * {:.6g} * {} / (18 * {} * {:.6g}) = {:.6f}\n",
                   row.tp, r.device.peak.value(), L.element.size_bytes, L.hidden,
                   r.device.bandwidth.value(), x.ratio_closed_form);
  o += "8. Efficiency and comm share\n";
  o += fmt::format("   E = 1/(1+R) = {}, comm share R/(1+R) = {}\n", io::percent(row.efficiency),
                   io::percent(row.comm_share));
  o += "9. Step time of the layer\n";
  o += fmt::format("   serial  T = T_calc + T_comm = {}\n", io::to_ms(row.serial));
  o += fmt::format("   overlap T_opt = max(T_calc, T_comm) = {} (the best overlap can do)\n",
                   io::to_ms(row.overlapped));
  o += fmt::format("   speed-up A / T = {:.3f}x\n", row.speedup);
  o += "10. Critical degree\n";
  o += fmt::format("   t* = A / C = {:.3f}: at t*, T_comm = T_calc and E = 50%\n", r.critical_tp);
  o += fmt::format("   E >= {} needs t <= t*(1-E)/E = {:.3f}", io::percent(r.efficiency_target),
                   r.tp_bound_for_target);
  o += fmt::format("; the rule of thumb t <= t*/2 = {:.3f} gives E = {}\n", x.half_critical_tp,
                   io::percent(x.efficiency_at_half_critical));
  return o;
}

// ---- The refined model -------------------------------------------------------------------

/// "4 all-reduces", "4 all-gathers + 4 reduce-scatters".
std::string collective_counts(const layer_collectives& c) {
  if (c.all_reduce > 0) {
    return plural(c.all_reduce, "all-reduce", "all-reduces");
  }
  return plural(c.all_gather, "all-gather", "all-gathers") + " + " +
         plural(c.reduce_scatter, "reduce-scatter", "reduce-scatters");
}

/// Where the collectives come from: 2 forward and 2 backward, plus the recomputed forward.
std::string collective_origin(const tp_options& o) {
  std::string out = o.recompute == recompute_mode::full
                        ? "2 forward, 2 backward, 2 in the recomputed forward"
                        : "2 forward, 2 backward";
  if (o.sequence_parallel) {
    out += "; SP: an all-gather and a reduce-scatter for each all-reduce";
  }
  return out;
}
std::string links_line(const refined_sweep_result& r) {
  if (r.options.collective == collective_choice::article) {
    return r.options.article_bandwidth == bandwidth_kind::algbw
               ? fmt::format(
                     "the article's B = {} as an all-reduce's algbw: M/B per all-reduce, "
                     "M/(2B) per all-gather or reduce-scatter, no latency",
                     io::to_string(r.device.bandwidth))
               : fmt::format(
                     "the article's B = {} as nccl-tests busbw: 2(t-1)/t*M/B per "
                     "all-reduce, (t-1)/t*M/B per all-gather or reduce-scatter, no "
                     "latency",
                     io::to_string(r.device.bandwidth));
  }
  return fmt::format("intra-node {}; inter-node {}; {} GPUs per node", link_text(r.topology.intra),
                     inter_link_text(r.topology), r.topology.gpus_per_node);
}

std::string algorithm_description(collective_choice c) {
  switch (c) {
    case collective_choice::article:
      return "article (M/B per all-reduce, no latency)";
    case collective_choice::ring:
      return "ring (textbook; across nodes one flat ring, every step at the slowest hop)";
    case collective_choice::tree:
      return "tree (textbook double binary tree; all-gather and reduce-scatter use the ring)";
    case collective_choice::hierarchical:
      return "hierarchical (textbook: reduce-scatter in the node, all-reduce of M/g across "
             "nodes, all-gather in the node)";
    case collective_choice::automatic:
      return "auto (what NCCL's tuner picks for each message, as in collective, step and "
             "plan)";
  }
  return "?";
}

/// The algorithms a row used: "ring", or "tree/ring" when the kinds differ; "-" for a group of
/// one GPU, which runs no collective.
std::string row_algorithms(const refined_layer_cost& c) {
  if (c.group && c.group->ranks == 1) {
    return "-";
  }
  std::vector<std::string_view> names;
  for (const auto& use : c.collectives) {
    const auto name = to_string(use.algorithm);
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) {
      out += '/';
    }
    out += name;
  }
  return out;
}

bool shows_memory(const refined_sweep_result& r) {
  return r.options.sequence_parallel || r.options.heads.has_value();
}

std::string mb(bytes v) { return fmt::format("{:.1f}", v.value() / 1e6); }
std::string ms(seconds v) { return fmt::format("{:.3f}", v.value() * 1e3); }

text_table refined_table(const refined_sweep_result& r) {
  const bool memory = shows_memory(r);
  text_table t{{"TP", "nodes", "algorithm", "wire MB", "x-node MB", "compute ms", "comm ms",
                "exposed ms", "total ms", "R", "efficiency", "speed-up"}};
  if (memory) {
    t.front().push_back("act MB");
    if (r.options.sequence_parallel) {
      t.front().push_back("act MB no SP");
    }
  }
  for (const auto& [row, cost] : r.rows) {
    std::vector<std::string> line{fmt::format("{}", row.tp),
                                  cost.group ? fmt::format("{}", cost.group->nodes) : "-",
                                  row_algorithms(cost),
                                  mb(cost.wire_bytes),
                                  cost.group ? mb(cost.inter_node_bytes) : "-",
                                  ms(row.compute),
                                  ms(row.comm),
                                  ms(cost.exposed_comm),
                                  ms(cost.step),
                                  fmt::format("{:.4f}", row.ratio),
                                  io::percent(row.efficiency),
                                  fmt::format("{:.2f}x", row.speedup)};
    if (memory) {
      line.push_back(mb(cost.memory.selected));
      if (r.options.sequence_parallel) {
        line.push_back(mb(cost.memory.without_sp));
      }
    }
    t.push_back(std::move(line));
  }
  return t;
}

std::string refined_csv(const refined_sweep_result& r) {
  std::string out =
      "tp,compute_s,comm_s,serial_s,overlapped_s,ratio,efficiency,comm_share,speedup,step_s,"
      "exposed_comm_s,nodes,algorithm,wire_bytes,inter_node_bytes,activation_bytes,"
      "activation_bytes_without_sp,activation_bytes_with_sp\n";
  for (const auto& [row, cost] : r.rows) {
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", row.tp, row.compute.value(),
        row.comm.value(), row.serial.value(), row.overlapped.value(), row.ratio, row.efficiency,
        row.comm_share, row.speedup, cost.step.value(), cost.exposed_comm.value(),
        cost.group ? fmt::format("{}", cost.group->nodes) : "", row_algorithms(cost),
        cost.wire_bytes.value(), cost.inter_node_bytes.value(), cost.memory.selected.value(),
        cost.memory.without_sp.value(), cost.memory.with_sp.value());
  }
  return out;
}

std::string refined_inputs_line(const refined_sweep_result& r) {
  std::string out =
      fmt::format("b={}  s={}  h={}  a={}  d={} B ({})", r.layer.batch, r.layer.seq, r.layer.hidden,
                  r.heads, r.layer.element.size_bytes, r.layer.element.name);
  if (const auto& m = r.options.model) {
    out += fmt::format("  kv={}  f={} ({})", kv_heads_of(*m), ffn_of(*m),
                       mlp_matrices(*m) == 3 ? "gated MLP" : "MLP");
  }
  if (r.wire.size_bytes != r.layer.element.size_bytes || r.wire.name != r.layer.element.name) {
    out += fmt::format("  wire d={} B ({})", r.wire.size_bytes, r.wire.name);
  }
  return out + fmt::format("  P={}", io::to_string(r.device.peak));
}

std::string options_line(const refined_sweep_result& r) {
  const auto count = r.options.model ? std::string("the model's layer")
                                     : fmt::format("{:.0f}*b*s*h^2", flops_coefficient(r.options));
  return fmt::format("SP {}, recompute {} ({} = {} per layer), overlap f = {:g}",
                     r.options.sequence_parallel ? "on" : "off", to_string(r.options.recompute),
                     count, io::to_string(r.layer_flops), r.options.overlap);
}

/// Explain's compute step for a model's own layer: the per-token terms of flops.hpp.
std::string model_layer_compute(const refined_sweep_result& r, int step) {
  const auto& f = *r.model_layer;
  const auto& m = *r.options.model;
  const auto forward = f.projections + f.attention + f.mlp;
  const auto rerun = r.options.recompute == recompute_mode::full        ? forward
                     : r.options.recompute == recompute_mode::selective ? f.attention
                                                                        : flops{};
  std::string o = fmt::format(
      "{}. Compute per layer (the model's layer, docs/flops.md: kv_dim = {}, f = {}, {} MLP "
      "matrices)\n",
      step, kv_dim(m), ffn_of(m), mlp_matrices(m));
  o += fmt::format(
      "   forward per token: projections 4h^2+4h*kv_dim = {:.4e}, attention 4sh = {:.4e}, MLP "
      "2*m*h*f = {:.4e}; {:.4e} FLOP\n",
      f.projections.value(), f.attention.value(), f.mlp.value(), forward.value());
  o += fmt::format("   F = b*s*(3*forward{}) = {} * {} * {:.4e} = {:.4e} FLOP = {}\n",
                   r.options.recompute == recompute_mode::full        ? " + forward recomputed"
                   : r.options.recompute == recompute_mode::selective ? " + attention recomputed"
                                                                      : "",
                   r.layer.batch, r.layer.seq, (3.0 * forward + rerun).value(),
                   r.layer_flops.value(), io::to_string(r.layer_flops));
  return o;
}

/// The table with a rule between the last row inside one node and the first that spans nodes,
/// so that the cliff is seen at a glance.
std::string with_boundary_rule(const refined_sweep_result& r, const std::string& table) {
  if (!r.boundary) {
    return table;
  }
  const auto header_width = table.find('\n');
  std::size_t at = 0;
  for (std::size_t line = 0; line < r.boundary->last_inside + 2; ++line) {
    at = table.find('\n', at) + 1;  // past the header and the rows inside one node
  }
  auto rule = fmt::format(
      "-- node boundary: a group of more than {} GPUs spans nodes and pays "
      "the inter-node link ",
      r.topology.gpus_per_node);
  if (rule.size() < header_width) {
    rule += std::string(header_width - rule.size(), '-');
  }
  return table.substr(0, at) + rule + "\n" + table.substr(at);
}

std::string refined_summary(const refined_sweep_result& r) {
  std::string out = fmt::format("E = T_calc/T >= {}: ", io::percent(r.efficiency_target));
  if (r.best_swept_tp) {
    out += fmt::format("largest swept TP meeting it: {} (μ = {} there)\n", *r.best_swept_tp,
                       io::percent(r.utilisation_at_best));
  } else {
    out += "no swept TP meets it\n";
  }
  if (r.first_tp_comm_over_compute) {
    out += fmt::format("T_comm >= T_calc from swept TP {} on\n", *r.first_tp_comm_over_compute);
  } else {
    out += "T_comm < T_calc at every swept TP\n";
  }
  if (r.boundary) {
    const auto& below = r.rows[r.boundary->last_inside];
    const auto& above = r.rows[r.boundary->first_spanning];
    out += fmt::format("node boundary: TP {} (1 node) -> TP {} ({} nodes): T_comm {} -> {}",
                       below.row.tp, above.row.tp, above.cost.group->nodes,
                       io::to_ms(below.row.comm), io::to_ms(above.row.comm));
    if (r.boundary->comm_growth) {
      out += fmt::format(" (x{:.2f})", *r.boundary->comm_growth);
    }
    out += fmt::format(", efficiency {} -> {}\n", io::percent(below.row.efficiency),
                       io::percent(above.row.efficiency));
  }
  return out;
}

// ---- explain, refined ----------------------------------------------------------------------

/// The cost of one algorithm for one op, its formula with the numbers substituted.
std::string algorithm_derivation(const refined_sweep_result& r, const refined_layer_cost& cost,
                                 collective_op op, const algorithm_cost& c) {
  const auto& g = *cost.group;
  const auto n = g.ranks;
  const auto m = io::to_string(cost.message);
  const bool ar = op == collective_op::all_reduce;
  const std::string two = ar ? "2*" : "";
  std::string o;
  if (n == 1) {
    return fmt::format("     {:<12} n = 1: no communication, 0\n", to_string(c.algorithm));
  }
  const auto flat = flat_link(r.topology, g);
  const std::string hop = g.spans_nodes()
                              ? (g.per_node > 1 ? "flat, every step at the slowest hop: "
                                                : "one GPU per node, the inter-node link: ")
                              : "the intra-node link: ";
  switch (c.algorithm) {
    case collective_algorithm::ring:
      o += fmt::format("     ring         ({}β = {}, α = {})\n", hop, io::to_string(flat.bandwidth),
                       duration(flat.latency));
      o += fmt::format(
          "       T = {0}(n-1)*α + {0}(n-1)/n*M/β = {0}({1}-1)*{2} + {0}({1}-1)/{1}*{3} "
          "/ {4} = {5}\n",
          two, n, duration(flat.latency), m, io::to_string(flat.bandwidth),
          io::to_string(c.cost.time));
      break;
    case collective_algorithm::tree:
      o += fmt::format("     tree         ({}β = {}, α = {})\n", hop, io::to_string(flat.bandwidth),
                       duration(flat.latency));
      o += fmt::format(
          "       T = 2*ceil(log2 n)*α + w(n)*M/β = 2*ceil(log2 {})*{} + {:g}*{} / {} "
          "= {}\n",
          n, duration(flat.latency), tree_wire_factor(n), m, io::to_string(flat.bandwidth),
          io::to_string(c.cost.time));
      break;
    case collective_algorithm::hierarchical:
      if (!g.spans_nodes()) {
        o += "     hierarchical (one node: the intra-node ring itself)\n";
        o += fmt::format("       T = {}\n", io::to_string(c.cost.time));
      } else if (g.per_node == 1) {
        o += "     hierarchical (one GPU per node: the inter-node ring itself)\n";
        o += fmt::format("       T = {}\n", io::to_string(c.cost.time));
      } else {
        o += fmt::format(
            "     hierarchical (g = {} GPUs per node on the intra link, k = {} nodes "
            "on the inter link)\n",
            g.per_node, g.nodes);
        o += fmt::format(
            "       T = {0}(g-1)*α_i + {0}(g-1)/g*M/β_i + {0}(k-1)*α_e + "
            "{0}(k-1)/k*(M/g)/β_e\n",
            two);
        o += fmt::format(
            "         = {0}({1}-1)*{2} + {0}({1}-1)/{1}*{3} / {4} + {0}({5}-1)*{6} + "
            "{0}({5}-1)/{5}*({3}/{1}) / {7} = {8}\n",
            two, g.per_node, duration(r.topology.intra.latency), m,
            io::to_string(r.topology.intra.bandwidth), g.nodes, duration(r.topology.inter.latency),
            io::to_string(r.topology.inter.bandwidth), io::to_string(c.cost.time));
      }
      break;
    case collective_algorithm::nvls:
    case collective_algorithm::nvls_tree:
    case collective_algorithm::pat:
    case collective_algorithm::collnet_direct:
    case collective_algorithm::collnet_chain: {
      // NCCL's tuner: T = lat + M/bw with its tables (comm/nccl_tuner.hpp).
      const auto v = nccl_view_of(r.topology, g);
      const auto e = nccl_tune(v, op, c.algorithm, c.cost.protocol);
      o += fmt::format("     {:<12} (NCCL {}, {} NVLink domain(s), {:g} ranks each)\n",
                       to_string(c.algorithm), to_string(c.cost.protocol), v.nodes, v.ppn);
      o += fmt::format("       T = lat + M/bw = {:.1f} us + {} / {:.1f} GB/s = {}\n", e.latency_us,
                       m, e.bandwidth_gbs, io::to_string(c.cost.time));
      break;
    }
    case collective_algorithm::article:
      break;
  }
  o += fmt::format("       wire bytes per GPU {}", io::to_string(c.cost.wire_bytes));
  if (g.spans_nodes()) {
    o += fmt::format(", {} of them across nodes", io::to_string(c.cost.inter_node_bytes));
  }
  o += fmt::format("; {} latency terms\n", c.cost.steps);
  return o;
}

std::string article_derivation(const refined_sweep_result& r, const collective_use& use) {
  const auto m = io::to_string(use.cost.wire_bytes);
  const auto b = io::to_string(r.device.bandwidth);
  const bool ar = use.op == collective_op::all_reduce;
  const auto t = use.cost.time;
  if (r.options.article_bandwidth == bandwidth_kind::algbw) {
    return ar ? fmt::format("     article: T = M/B = {} / {} = {}\n", m, b, io::to_string(t))
              : fmt::format("     article: T = M/(2B) = half an all-reduce = {} / {} = {}\n", m, b,
                            io::to_string(t));
  }
  const auto n = r.rows.front().row.tp;
  return fmt::format(
      "     article, B as busbw: T = {0}(t-1)/t*M/B = {0}({1}-1)/{1}*{2} / {3} = {4}\n",
      ar ? "2*" : "", n, io::to_string(r.message), b, io::to_string(t));
}

std::string refined_explain_text(const refined_explanation& x, const hardware_origin& origin) {
  const auto& r = x.sweep;
  const auto& [row, cost] = r.rows.front();
  const auto& L = r.layer;
  std::string o = assumption_line(origin);
  o += fmt::format("One transformer layer at TP t = {}, the refined model, forward + backward.\n",
                   row.tp);
  o += fmt::format("Inputs: {}\n", refined_inputs_line(r));
  o += fmt::format("Links:  {}\n", links_line(r));
  o += fmt::format("Model:  collective {}; {}\n", algorithm_description(r.options.collective),
                   options_line(r));
  o += hardware_section(origin, r.device,
                        r.options.collective == collective_choice::article ? nullptr : &r.topology);
  o += "\n";
  int step = 0;
  o += fmt::format("{}. Message of one collective: the full activation, in the wire dtype\n",
                   ++step);
  o += fmt::format("   M = b*s*h*d_wire = {} * {} * {} * {} B = {:.0f} B = {}\n", L.batch, L.seq,
                   L.hidden, r.wire.size_bytes, r.message.value(), io::to_string(r.message));
  o += fmt::format("{}. Collectives per layer ({})\n", ++step, collective_origin(r.options));
  o += fmt::format("   {}\n", collective_counts(r.collectives));
  if (cost.group) {
    const auto& g = *cost.group;
    o += fmt::format("{}. Placement of the TP group on nodes of {} GPUs\n", ++step,
                     r.topology.gpus_per_node);
    o += g.spans_nodes()
             ? fmt::format(
                   "   t = {} > {}: {} nodes x {} GPUs (k = {}, g = {}); the inter-node "
                   "link is paid\n",
                   g.ranks, r.topology.gpus_per_node, g.nodes, g.per_node, g.nodes, g.per_node)
             : fmt::format("   t = {} <= {}: one node, the intra-node link only\n", g.ranks,
                           r.topology.gpus_per_node);
  }
  for (std::size_t i = 0; i < cost.collectives.size(); ++i) {
    const auto& use = cost.collectives[i];
    o += fmt::format("{}. One {} of M over n = {}\n", ++step, to_string(use.op), row.tp);
    if (!cost.group) {
      o += article_derivation(r, use);
    } else {
      const bool automatic = r.options.collective == collective_choice::automatic;
      if (automatic) {
        o += "     the textbook alpha-beta costs, for reference:\n";
      }
      for (const auto& c : x.candidates[i]) {
        o += algorithm_derivation(r, cost, use.op, c);
      }
      if (use.op != collective_op::all_reduce && r.options.collective == collective_choice::tree) {
        o += "     (the tree implements all-reduce only, as in NCCL: the ring is used)\n";
      }
      if (automatic) {
        // auto is NCCL's tuner, as in collective, step and plan: its costs, not the above.
        std::string costs;
        for (const auto& c : x.nccl_candidates[i]) {
          costs += fmt::format("{}{} {}", costs.empty() ? "" : ", ", to_string(c.algorithm),
                               duration(c.cost.time));
        }
        o += fmt::format("     NCCL's tuner (auto; 'tpcost collective' shows each protocol): {}\n",
                         costs);
      }
      o += fmt::format("     used: {}{}\n", to_string(use.algorithm),
                       automatic ? " (NCCL's pick)" : "");
    }
  }
  o += fmt::format("{}. Comm time and traffic per layer\n", ++step);
  std::string sum;
  std::string bytes_sum;
  for (const auto& use : cost.collectives) {
    sum += fmt::format("{}{} * {}", sum.empty() ? "" : " + ", use.count, duration(use.cost.time));
    bytes_sum += fmt::format("{}{} * {}", bytes_sum.empty() ? "" : " + ", use.count,
                             io::to_string(use.cost.wire_bytes));
  }
  o += fmt::format("   T_comm = {} = {}\n", sum, io::to_ms(row.comm));
  o += fmt::format("   wire bytes per GPU = {} = {}", bytes_sum, io::to_string(cost.wire_bytes));
  if (cost.group && cost.group->spans_nodes()) {
    o += fmt::format(" ({} across nodes)", io::to_string(cost.inter_node_bytes));
  }
  o += "\n";
  if (r.model_layer) {
    o += model_layer_compute(r, ++step);
  } else {
    o += fmt::format("{}. Compute per layer ({:.0f}*b*s*h^2{})\n", ++step,
                     flops_coefficient(r.options),
                     r.options.recompute == recompute_mode::full
                         ? ": forward 24, backward 48, recomputed forward 24"
                     : r.options.recompute == recompute_mode::selective
                         ? ": forward 24, backward 48; attention scores and their selective "
                           "recompute left out"
                         : ": forward 24, backward 48; attention scores left out");
    o += fmt::format("   F = {:.0f}*b*s*h^2 = {:.0f} * {} * {} * {}^2 = {:.4e} FLOP = {}\n",
                     flops_coefficient(r.options), flops_coefficient(r.options), L.batch, L.seq,
                     L.hidden, r.layer_flops.value(), io::to_string(r.layer_flops));
  }
  o += fmt::format("   A = F / P = {} / {} = {}\n", io::to_string(r.layer_flops),
                   io::to_string(r.device.peak), io::to_ms(r.single_gpu_compute));
  o += fmt::format("   T_calc = A / t = {} / {} = {}\n", io::to_ms(r.single_gpu_compute), row.tp,
                   io::to_ms(row.compute));
  o += fmt::format("{}. Comm/compute ratio\n", ++step);
  o += fmt::format("   R = T_comm / T_calc = {} / {} = {:.6f}\n", io::to_ms(row.comm),
                   io::to_ms(row.compute), row.ratio);
  o += fmt::format("{}. Step time with overlap f = {:g}\n", ++step, r.options.overlap);
  o += fmt::format("   T = T_calc + T_comm - f*min(T_calc, T_comm) = {} + {} - {:g}*{} = {}\n",
                   io::to_ms(row.compute), io::to_ms(row.comm), r.options.overlap,
                   io::to_ms(min(row.compute, row.comm)), io::to_ms(cost.step));
  o += fmt::format("   (f = 0: serial {}; f = 1: max(T_calc, T_comm) = {})\n",
                   io::to_ms(row.serial), io::to_ms(row.overlapped));
  o += fmt::format("   exposed comm T - T_calc = {}\n", io::to_ms(cost.exposed_comm));
  o += fmt::format("   E = T_calc / T = {}, exposed share = {}, speed-up A / T = {:.3f}x\n",
                   io::percent(row.efficiency), io::percent(row.comm_share), row.speedup);
  o += fmt::format(
      "{}. Activation memory per GPU per layer (Korthikanti et al. 2022, 16-bit activations)\n",
      ++step);
  const auto sbh = fmt::format("{}*{}*{}", L.seq, L.batch, L.hidden);
  o += fmt::format("   no parallelism: s*b*h*(34 + 5*a*s/h) = {}*(34 + 5*{}*{}/{}) = {}\n", sbh,
                   r.heads, L.seq, L.hidden, io::to_string(cost.memory.unsharded));
  if (r.options.recompute == recompute_mode::full) {
    o += fmt::format("   full recompute, TP:      2*s*b*h = 2*{} = {}\n", sbh,
                     io::to_string(cost.memory.without_sp));
    o += fmt::format("   full recompute, TP + SP: 2*s*b*h/t = 2*{}/{} = {}\n", sbh, row.tp,
                     io::to_string(cost.memory.with_sp));
  } else if (r.options.recompute == recompute_mode::selective) {
    o += fmt::format("   selective recompute, TP:      s*b*h*(10 + 24/t) = {}*(10 + 24/{}) = {}\n",
                     sbh, row.tp, io::to_string(cost.memory.without_sp));
    o += fmt::format("   selective recompute, TP + SP: s*b*h*34/t = {}*34/{} = {}\n", sbh, row.tp,
                     io::to_string(cost.memory.with_sp));
  } else {
    o += fmt::format(
        "   TP:      s*b*h*(10 + 24/t + 5*a*s/(h*t)) = {}*(10 + 24/{} + 5*{}*{}/({}*{})) = {}\n",
        sbh, row.tp, r.heads, L.seq, L.hidden, row.tp, io::to_string(cost.memory.without_sp));
    o += fmt::format("   TP + SP: s*b*h/t*(34 + 5*a*s/h) = {}/{}*(34 + 5*{}*{}/{}) = {}\n", sbh,
                     row.tp, r.heads, L.seq, L.hidden, io::to_string(cost.memory.with_sp));
  }
  o += fmt::format("   with these options ({}): {}\n", r.options.sequence_parallel ? "SP" : "no SP",
                   io::to_string(cost.memory.selected));
  o += fmt::format(
      "{}. For comparison, the article's model: C = 4*M/B = 4 * {} / {} = {} at every t\n"
      "   ({}, as the all-reduce's algbw)\n",
      ++step, io::to_string(r.message), io::to_string(r.article_comparison_bandwidth),
      io::to_ms(r.article_comm),
      r.options.collective == collective_choice::article ? "B = --bandwidth"
                                                         : "B = the intra-node link");
  return o;
}

/// A sweep in the formats without its title and summary: JSON, CSV, Markdown and the quiet
/// table (`table(markdown)` lays the table out); nullopt for the full text.
template <class Result, class Csv, class Table>
std::optional<std::string> bare_sweep(const Result& result, output_format format, bool quiet,
                                      const hardware_origin& origin, const Csv& csv,
                                      const Table& table) {
  switch (format) {
    case output_format::json: {
      nlohmann::json j = with_hardware(result, origin);
      return j.dump(2) + "\n";
    }
    case output_format::csv:
      return csv(result);
    case output_format::markdown:
      return table(true);
    case output_format::table:
    case output_format::junit:
    case output_format::sarif:
      break;
  }
  if (quiet) {
    return table(false);
  }
  return std::nullopt;
}

}  // namespace

std::string render_sweep(const sweep_result& result, output_format format, bool quiet,
                         const hardware_origin& origin) {
  if (auto bare = bare_sweep(result, format, quiet, origin, sweep_csv, [&](bool markdown) {
        return aligned_table(sweep_table(result), markdown);
      })) {
    return *std::move(bare);
  }
  return assumption_line(origin) +
         fmt::format(
             "TP sweep of one transformer layer, forward + backward (the article's model)\n{}"
             "inputs:    {}\n"
             "per layer: 4 all-reduces x {} = {} per GPU; {} of compute\n\n{}\n{}",
             origin.any() ? fmt::format("hardware:  {}\n", hardware_line(origin)) : std::string(),
             inputs_line(result), io::to_string(result.message), io::to_string(result.comm_bytes),
             io::to_string(result.layer_flops), aligned_table(sweep_table(result), false),
             summary_lines(result));
}

std::string render_explain(const tp_explanation& explanation, output_format format,
                           const hardware_origin& origin) {
  if (format == output_format::json) {
    nlohmann::json j = with_hardware(explanation.sweep, origin);
    j["schema"] = "tpcost.explain/2";
    j["ratio_closed_form"] = explanation.ratio_closed_form;
    j["half_critical_tp"] = explanation.half_critical_tp;
    j["efficiency_at_half_critical"] = explanation.efficiency_at_half_critical;
    return j.dump(2) + "\n";
  }
  return explain_text(explanation, origin);
}

std::string render_sweep(const refined_sweep_result& result, output_format format, bool quiet,
                         const hardware_origin& origin) {
  if (auto bare = bare_sweep(result, format, quiet, origin, refined_csv, [&](bool markdown) {
        return aligned_table(refined_table(result), markdown, {2});
      })) {
    return *std::move(bare);
  }
  return assumption_line(origin) +
         fmt::format(
             "TP sweep of one transformer layer, forward + backward (the refined model)\n{}"
             "inputs:      {}\n"
             "links:       {}\n"
             "collectives: {} of M = {} per layer ({}); {}\n"
             "options:     {}\n\n{}\n{}",
             origin.any() ? fmt::format("hardware:    {}\n", hardware_line(origin)) : std::string(),
             refined_inputs_line(result), links_line(result), collective_counts(result.collectives),
             io::to_string(result.message), collective_origin(result.options),
             algorithm_description(result.options.collective), options_line(result),
             with_boundary_rule(result, aligned_table(refined_table(result), false, {2})),
             refined_summary(result));
}

std::string render_explain(const refined_explanation& explanation, output_format format,
                           const hardware_origin& origin) {
  if (format == output_format::json) {
    nlohmann::json j = with_hardware(explanation.sweep, origin);
    j["schema"] = "tpcost.explain/2";
    j["article_comm_s"] = explanation.sweep.article_comm.value();
    auto& alternatives = j["alternatives"] = nlohmann::json::array();
    const auto& uses = explanation.sweep.rows.front().cost.collectives;
    for (std::size_t i = 0; i < uses.size(); ++i) {
      nlohmann::json entry{{"op", to_string(uses[i].op)}, {"algorithms", nlohmann::json::array()}};
      const auto costs = [](const std::vector<algorithm_cost>& candidates) {
        auto out = nlohmann::json::array();
        for (const auto& c : candidates) {
          nlohmann::json a = c.cost;
          a["algorithm"] = to_string(c.algorithm);
          out.push_back(a);
        }
        return out;
      };
      entry["algorithms"] = costs(explanation.candidates[i]);
      // Under auto: NCCL's algorithms as its tuner costs them; auto took the cheapest.
      if (!explanation.nccl_candidates[i].empty()) {
        entry["nccl_algorithms"] = costs(explanation.nccl_candidates[i]);
      }
      alternatives.push_back(entry);
    }
    return j.dump(2) + "\n";
  }
  return refined_explain_text(explanation, origin);
}

}  // namespace tpcost::cli
