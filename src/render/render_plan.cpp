#include "render/render_plan.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "render/render_step.hpp"
#include "render/text_table.hpp"
#include "report/error_band.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/io/step_json.hpp"

namespace tpcost::cli {

namespace {

constexpr std::array<const char*, 7> part_labels{"compute (recompute included)",
                                                 "exposed TP collectives",
                                                 "exposed EP all-to-all",
                                                 "pipeline bubble",
                                                 "p2p between stages",
                                                 "exposed DP sync + embedding",
                                                 "optimizer step"};

constexpr const char* cp_exchange_label = "exposed CP exchange";
constexpr const char* attention_extra_label = "  of compute: attention, s keys";

/// The label, the JSON key and the delta of the comparison's largest part.
const char* largest_label(const step_comparison& d) {
  return d.largest == cp_exchange_part ? cp_exchange_label : part_labels[d.largest];
}
std::string largest_key(const step_comparison& d) {
  return d.largest == cp_exchange_part ? "cp_comm" : std::string(breakdown_parts[d.largest].key);
}
seconds largest_delta(const step_comparison& d) {
  return d.largest == cp_exchange_part ? d.cp_exposed : d.delta.*breakdown_parts[d.largest].time;
}

/// A duration, "0" when it is exactly zero (a part the layout does not have).
std::string time_or_zero(seconds v) { return v.value() == 0.0 ? "0" : io::to_string(v); }

std::string signed_time(seconds v) {
  if (v.value() == 0.0) {
    return "0";
  }
  return (v.value() < 0.0 ? "-" : "+") + io::to_string(seconds(std::abs(v.value())));
}

std::string header(const chosen_model& model, const chosen_hardware& hw, const plan_request& req,
                   const char* what) {
  std::string o = hw.assumption.empty() ? std::string() : hw.assumption + "\n";
  o += fmt::format(
      "{}: {} on {} x {}, {} between nodes; G {} {} sequences of {} tokens; {} attention; stack "
      "{}\n",
      what, model_name(model), req.gpus, hw.gpu->name, hw.network,
      req.batch_is_maximum ? "<=" : "=", req.global_batch, req.model.seq,
      to_string(req.options.attention), profile_of(req.options.stack).name);
  if (changes_step(req.precision.options)) {  // every layout costed at the recipe (BF16: unsaid)
    o += precision_text(req.precision.options, req.precision.linear_peak);
  }
  if (req.batch_is_maximum) {
    o += "batch: G is a maximum; each layout runs d*floor(G/d) sequences, ranked by samples/s\n";
  }
  if (is_moe(req.model.moe)) {  // how every layout's dispatch and combine run
    o += fmt::format("experts: {} dispatcher, all-to-alls {}\n",
                     to_string(req.options.experts.dispatcher),
                     req.options.experts.overlap_comm
                         ? "overlapped with compute (--overlap-moe-expert-parallel-comm)"
                         : "exposed (no --overlap-moe-expert-parallel-comm)");
  }
  o += fmt::format(
      "GPU:   peak {}, HBM {} at {}; efficiency {:.2f} of peak (matmul), {:.2f} of HBM "
      "(element-wise)\n",
      io::to_string(req.gpu.peak), gib(req.memory_capacity),
      io::to_string(req.gpu.memory_bandwidth), req.gpu.efficiency.matmul,
      req.gpu.efficiency.memory);
  o += fmt::format(
      "links: intra-node {} / {} per step{}; inter-node {} / {}{}; {} GPUs per node\n",
      io::to_string(req.topology.intra.bandwidth), io::to_string(req.topology.intra.latency),
      profile_note(hw, profile_scope::intra_node), io::to_string(req.topology.inter.bandwidth),
      io::to_string(req.topology.inter.latency), profile_note(hw, profile_scope::inter_node),
      req.topology.gpus_per_node);
  return o;
}

std::string on_off(bool b) { return b ? "on" : "off"; }

/// "1 node" or "2 nodes (crosses IB-HDR)".
std::string tp_group_text(const parallel_config& par, const chosen_hardware& hw,
                          const cluster_topology& topo) {
  if (par.tp <= topo.gpus_per_node) {
    return fmt::format("{} GPUs in one node", par.tp);
  }
  return fmt::format("{} GPUs on {} nodes (crosses {})", par.tp, par.tp / topo.gpus_per_node,
                     hw.network);
}

/// The per-part times of A and B and their difference; columns as wide as the names need.
std::string difference_table(const std::string& a_name, const step_result& a,
                             const std::string& b_name, const step_result& b,
                             const step_comparison& d) {
  const std::size_t w = std::max({std::size_t{12}, a_name.size(), b_name.size()});
  std::string o;
  o += fmt::format("  {:<30} {:>{}} {:>{}} {:>12}\n", "", a_name, w, b_name, w, "difference");
  for (std::size_t i = 0; i < breakdown_parts.size(); ++i) {
    const auto member = breakdown_parts[i].time;
    if (member == &step_breakdown::ep_comm && !(a.time.ep_comm.value() > 0.0) &&
        !(b.time.ep_comm.value() > 0.0)) {
      continue;  // dense layouts: no EP row
    }
    o += fmt::format("  {:<30} {:>{}} {:>{}} {:>12}{}\n", part_labels[i],
                     time_or_zero(a.time.*member), w, time_or_zero(b.time.*member), w,
                     signed_time(d.delta.*member), i == d.largest ? "  <- largest" : "");
    if (i == 0 && (d.base_cp.cp > 1 || d.other_cp.cp > 1)) {
      o += fmt::format("  {:<30} {:>{}} {:>{}} {:>12}\n", attention_extra_label,
                       time_or_zero(d.base_cp.attention_extra), w,
                       time_or_zero(d.other_cp.attention_extra), w, signed_time(d.attention_extra));
    }
  }
  if (d.base_cp.cp > 1 || d.other_cp.cp > 1) {
    o +=
        fmt::format("  {:<30} {:>{}} {:>{}} {:>12}{}\n", cp_exchange_label,
                    time_or_zero(d.base_cp.exposed), w, time_or_zero(d.other_cp.exposed), w,
                    signed_time(d.cp_exposed), d.largest == cp_exchange_part ? "  <- largest" : "");
  }
  o += fmt::format("  {:<30} {:>{}} {:>{}} {:>12}\n", "step", io::to_string(a.step_time), w,
                   io::to_string(b.step_time), w, signed_time(d.step_time));
  o += fmt::format("  {:<30} {:>{}} {:>{}} {:>+11.1f}pt\n", "MFU", io::percent(a.mfu), w,
                   io::percent(b.mfu), w, d.mfu * 100.0);
  return o;
}

std::string changes_text(const step_comparison& d) {
  std::string o;
  for (const auto& c : d.changes) {
    o += (o.empty() ? "" : ", ") + c;
  }
  return o.empty() ? "nothing" : o;
}

}  // namespace

std::string plan_layouts_table(const plan_report& r) {
  const auto& res = r.result;
  const bool batch_column = r.request.batch_is_maximum;
  const bool ep_column = is_moe(r.request.model.moe);  // dense tables keep their columns
  std::string o = fmt::format(
      "  #   t   p  cp{}    d   b     m   v  SP   recompute ZeRO      step    MFU    HFU     "
      "memory "
      "compute    TP bubble   p2p    DP  optim     CP{}{}\n",
      ep_column ? "  ep etp" : "", ep_column ? "     EP" : "",
      batch_column ? "       G  samples/s" : "");
  for (std::size_t i = 0; i < res.top.size(); ++i) {
    const auto& par = res.top[i].candidate.par;
    const auto& s = res.top[i].result;
    const auto cp = cp_terms_of(res.top[i]);
    const double st = s.step_time.value();
    const auto share = [&](seconds v) { return fmt::format("{:>6.1f}", 100.0 * v.value() / st); };
    o += fmt::format(
        "  {:<2} {:>2} {:>3} {:>3}{} {:>4} {:>3} {:>5} {:>3}  {:<3}  {:<9} {:>4} {:>9} {:>6} {:>6} "
        "{:>10} {}{}{}{}{}{} {}{}{}\n",
        i + 1, par.tp, par.pp, res.top[i].candidate.par.cp,
        ep_column ? fmt::format(" {:>3} {:>3}", par.ep, par.etp) : std::string(), par.dp,
        par.micro_batch, s.micro_batches, par.vpp, on_off(par.sequence_parallel),
        recompute_label(par.recompute, r.choices(res.top[i].candidate)), static_cast<int>(par.zero),
        io::to_string(s.step_time), io::percent(s.mfu), io::percent(s.hfu),
        gib(s.memory.peak().total()), share(s.time.compute), share(s.time.tp_comm),
        share(s.time.bubble), share(s.time.p2p), share(s.time.dp_comm), share(s.time.optimizer),
        share(cp.exposed), ep_column ? " " + share(s.time.ep_comm) : std::string(),
        batch_column ? fmt::format(" {:>7} {:>10.1f}", par.global_batch,
                                   static_cast<double>(par.global_batch) / st)
                     : "");
  }
  return o;
}

namespace {

/// The error band of one layout of a plan (error_band.hpp), at the precision plan costs.
band_choice layout_band(const plan_request& req, const chosen_hardware& hw,
                        const parallel_config& par, std::int64_t cp) {
  step_inputs in;
  in.model = req.model;
  in.par = par;
  return choose_band(
      band_input_of(hw, in, req.precision.options.linear, cp, profile_of(req.options.stack).name),
      active_band_groups());
}

band_choice layout_band(const plan_report& r, const planned_layout& l) {
  return layout_band(r.request, r.hardware, l.candidate.par, l.candidate.par.cp);
}

bool bands_overlap(const band_choice& a, seconds ta, const band_choice& b, seconds tb) {
  const auto [a_lo, a_hi] = time_band(a, ta.value());
  const auto [b_lo, b_hi] = time_band(b, tb.value());
  return a_lo <= b_hi && b_lo <= a_hi;
}

std::string band_range(const band_choice& b, seconds t) {
  const auto [lo, hi] = time_band(b, t.value());
  return fmt::format("{} to {}", io::to_string(seconds(lo)), io::to_string(seconds(hi)));
}

/// How close the winner's fullest stage comes to the reserve plan keeps free.
std::string reserve_text(const memory_report& m, bytes reserve) {
  const auto& peak = m.peak();
  return fmt::format(
      "  winner's memory: stage {} peaks at {} allocated (about {} reserved) of {}; {} kept free "
      "(--memory-reserve), {} to spare beyond it\n",
      peak.stage, gib(peak.total()), gib(m.reserved(m.peak_stage)), gib(m.capacity), gib(reserve),
      gib(m.capacity - reserve - peak.total()));
}

/// What separates a layout from the winner besides a time the band cannot tell apart.
std::string separation_text(const planned_layout& w, const planned_layout& l,
                            std::int64_t gpus_per_node) {
  std::vector<std::string> parts;
  const double dh = (l.result.memory.headroom() - w.result.memory.headroom()) / units::GiB;
  if (std::fabs(dh) >= 0.05) {
    parts.push_back(fmt::format("{:+.1f} GiB headroom", dh));
  }
  const auto nodes = [&](const parallel_config& p, std::int64_t cp) {
    return (p.tp * cp + gpus_per_node - 1) / gpus_per_node;
  };
  if (nodes(l.candidate.par, l.candidate.par.cp) != nodes(w.candidate.par, w.candidate.par.cp) ||
      l.candidate.tp_spans_nodes != w.candidate.tp_spans_nodes) {
    parts.push_back(l.candidate.tp_spans_nodes ? "TP crosses nodes" : "TP inside a node");
  }
  if (l.candidate.par.pp != w.candidate.par.pp) {
    parts.push_back(
        fmt::format("{} stages", l.candidate.par.pp < w.candidate.par.pp ? "fewer" : "more"));
  }
  if ((l.candidate.par.vpp > 1) != (w.candidate.par.vpp > 1)) {
    parts.push_back(l.candidate.par.vpp > 1 ? "interleaved schedule" : "simpler schedule (1F1B)");
  }
  std::string out;
  for (const auto& p : parts) {
    out += (out.empty() ? "" : ", ") + p;
  }
  return out.empty() ? "nothing else" : out;
}

/// The winner's band and the listed layouts whose bands overlap it.
std::string ties_text(const plan_report& r) {
  const auto& top = r.result.top;
  if (top.empty()) {
    return {};
  }
  const auto wb = layout_band(r, top[0]);
  std::string o = fmt::format("  winner likely {} ({})\n", band_range(wb, top[0].result.step_time),
                              band_basis_text(wb));
  std::string list;
  std::size_t ties = 0;
  for (std::size_t i = 1; i < top.size(); ++i) {
    if (!bands_overlap(wb, top[0].result.step_time, layout_band(r, top[i]),
                       top[i].result.step_time)) {
      continue;
    }
    ++ties;
    list += fmt::format("    #{}: {}\n", i + 1,
                        separation_text(top[0], top[i], r.request.topology.gpus_per_node));
  }
  o += ties == 0
           ? fmt::format("  none of the other {} listed layouts is within the winner's band\n",
                         top.size() - 1)
           : fmt::format(
                 "  indistinguishable from the winner within the model's error: {} of the "
                 "other {} listed layouts; what else separates them:\n{}",
                 ties, top.size() - 1, list);
  return o;
}

}  // namespace

namespace {

/// "label auto: a 1.2 s, b 1.1 s; fastest b\n", saying which values tie with the winner.
std::string auto_line(std::string_view label, const std::vector<choice_searched>& searched,
                      std::string_view winner) {
  if (searched.empty()) {
    return {};
  }
  std::string o = fmt::format("{} auto:", label);
  std::optional<double> best;
  for (const auto& c : searched) {
    if (c.value == winner && c.best) {
      best = c.best->result.step_time.value();
    }
  }
  // A long list (the module sets) shows its fastest few, then how many more were searched.
  constexpr std::size_t shown = 6;
  std::vector<const choice_searched*> listed;
  listed.reserve(searched.size());
  for (const auto& c : searched) {
    listed.push_back(&c);
  }
  if (listed.size() > shown + 1) {
    std::stable_sort(listed.begin(), listed.end(), [](const auto* a, const auto* b) {
      return a->best && (!b->best || a->best->result.step_time < b->best->result.step_time);
    });
    listed.resize(shown);
  }
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const auto& c = *listed[i];
    o += fmt::format("{} {} {}{}", i == 0 ? "" : ",", c.value,
                     c.best ? io::to_string(c.best->result.step_time) : "no layout fits",
                     c.costed_as.empty() ? "" : fmt::format(" (costs as {})", c.costed_as));
  }
  if (listed.size() < searched.size()) {
    o += fmt::format(" (the fastest {} of {} searched)", listed.size(), searched.size());
  }
  std::vector<std::string_view> tied;
  for (const auto& c : searched) {
    if (best && c.best && c.value != winner &&
        std::abs(c.best->result.step_time.value() - *best) <= 1e-9 * *best) {
      tied.push_back(c.value);
    }
  }
  o += fmt::format("; fastest {}", winner);
  if (!tied.empty()) {
    o += fmt::format(", tied with {} (the first searched is kept)", fmt::join(tied, ", "));
  }
  return o + "\n";
}

}  // namespace

std::string auto_search_text(const plan_report& r) {
  const auto& req = r.request;
  return auto_line("precision", r.precisions, to_string(req.precision.options.linear)) +
         auto_line("cp-comm-type", r.cp_comms, to_string(req.options.cp.comm)) +
         auto_line("moe-token-dispatcher", r.dispatchers,
                   to_string(req.options.experts.dispatcher)) +
         auto_line("recompute-modules", r.recompute_modules,
                   !r.result.top.empty() &&
                           r.result.top.front().candidate.par.recompute == recompute_mode::selective
                       ? recompute_modules_to_string(req.options.recompute.modules)
                       : std::string(no_selective_label));
}

namespace {

std::string plan_text(const plan_report& r) {
  const auto& req = r.request;
  const auto& res = r.result;
  const auto& c = res.counts;
  std::string o = header(r.model, r.hardware, req, "Plan") + auto_search_text(r);
  std::string limits;
  if (req.constraints.max_tp > 0) {
    limits += fmt::format(" --max-tp {}", req.constraints.max_tp);
  }
  if (req.constraints.fixed_tp > 0) {
    limits += fmt::format(" --tp {}", req.constraints.fixed_tp);
  }
  if (req.constraints.fixed_pp > 0) {
    limits += fmt::format(" --pp {}", req.constraints.fixed_pp);
  }
  if (req.constraints.fixed_micro_batch > 0) {
    limits += fmt::format(" --micro-batch {}", req.constraints.fixed_micro_batch);
  }
  if (req.constraints.fixed_vpp > 0) {
    limits += fmt::format(" --vpp {}", req.constraints.fixed_vpp);
  }
  if (req.constraints.fixed_zero >= 0) {
    limits += fmt::format(" --zero {}", req.constraints.fixed_zero);
  }
  if (req.constraints.fixed_ep > 0) {
    limits += fmt::format(" --ep {}", req.constraints.fixed_ep);
  }
  if (req.constraints.fixed_etp > 0) {
    limits += fmt::format(" --etp {}", req.constraints.fixed_etp);
  }
  limits += req.constraints.fixed_cp > 0 ? fmt::format(" --cp {}", req.constraints.fixed_cp)
                                         : fmt::format(" --max-cp {}", req.constraints.max_cp);
  if (req.constraints.max_cp > 1 || req.constraints.fixed_cp > 1) {
    limits += fmt::format(" --cp-comm-type {}", to_string(req.options.cp.comm));
  }
  o += fmt::format(
      "\nsearch: {} (t, p, cp{}) with t*p*cp dividing N = {}{}, {} searched; their {} layouts, {} "
      "evaluated, {} fit; {:.1f} ms on {} thread{}\n",
      c.pairs, is_moe(req.model.moe) ? ", ep, etp" : "", req.gpus,
      limits.empty() ? "" : " (" + limits.substr(1) + ")", c.pairs_searched, c.layouts, c.evaluated,
      c.feasible, r.search_seconds * 1e3, res.threads, res.threads == 1 ? "" : "s");
  o += is_moe(req.model.moe) ? "rejected (t, p, cp, ep, etp):\n" : "rejected (t, p, cp):\n";
  bool any = false;
  for (std::size_t i = 0; i < plan_reason_count; ++i) {
    const auto reason = all_plan_reasons[i];
    if (i == plan_pair_reason_count) {
      o += any ? "" : "  none\n";
      o += "rejected layouts:\n";
      any = false;
    }
    if (c[reason] > 0) {
      o += fmt::format("  {:>9}  {}\n", c[reason], describe(reason));
      any = true;
    }
  }
  o += any ? "" : "  none\n";
  if (!res.top.empty() && res.top.front().candidate.tp_spans_nodes &&
      req.constraints.fixed_tp == 0) {
    o += fmt::format(
        "note: the winner's TP group spans nodes of {} GPUs and pays the inter-node link on every "
        "layer; --max-tp {} keeps TP inside a node\n",
        req.topology.gpus_per_node, req.topology.gpus_per_node);
  }

  o += fmt::format(
      "\nbest {} (t TP, p PP, d DP, b micro-batch, m micro-batches, v chunks per GPU; shares of "
      "the "
      "step)\n",
      res.top.size() == 1 ? "layout" : fmt::format("{} layouts", res.top.size()));
  o += plan_layouts_table(r);
  if (!res.top.empty()) {
    const auto& w = res.top.front();
    o += fmt::format("  winner: --compare {}\n",
                     describe_layout(w.candidate.par, w.candidate.par.cp, r.choices(w.candidate)));
    o += reserve_text(w.result.memory, req.memory_reserve);
    o += ties_text(r);
  }
  if (!res.top.empty() && res.runner_up) {
    const auto& w = res.top[0];
    const auto& u = *res.runner_up;
    const auto d = compare_planned(w, u);
    // Below a nanosecond in a step of seconds the two differ by rounding only: the tie order
    // (planner.hpp, tie_key) did not decide, the last bits of two sums did.
    const double share = d.step_time.value() / w.result.step_time.value();
    o += share < 1e-12
             ? fmt::format("\nwinner vs runner-up: {}; the two are as fast (equal to rounding)\n",
                           changes_text(d))
             : fmt::format("\nwinner vs runner-up: {}; the runner-up is {} slower ({:.2f}%)\n",
                           changes_text(d), io::to_string(d.step_time), 100.0 * share);
    o += difference_table("#1", w.result, "#2", u.result, d);
  }

  if (!res.per_degrees.empty()) {
    o += "\nbest layout per (t, p, cp): how many cooks\n";
    o += "     t    p   cp     d       step    MFU  fit  best layout\n";
    for (const auto& pd : res.per_degrees) {
      const auto& par = pd.best.par;
      const bool across = pd.best.tp_spans_nodes;
      o +=
          fmt::format("  {:>4} {:>4} {:>4} {:>5} {:>10} {:>6} {:>4}  {}{}\n", par.tp, par.pp,
                      pd.best.par.cp, par.dp, io::to_string(pd.best.step_time), io::percent(pd.mfu),
                      pd.feasible, describe_layout(par, pd.best.par.cp, r.choices(pd.best)),
                      across ? "  (TP crosses nodes)" : "");
    }
  }
  return o;
}

/// One layout; `req` is the request it was costed under (its CP exchange and dispatcher),
/// `choices` what its layout string names.
nlohmann::json layout_json(const parallel_config& par, const step_result& s,
                           const plan_request& req, const cp_step_terms& cp,
                           const layout_choices& choices) {
  const auto& topo = req.topology;
  // Full recomputation's method and layers per model chunk (Megatron's recompute_method and
  // recompute_num_layers), as the layout runs it.
  const bool full = par.recompute == recompute_mode::full;
  const auto recipe = full_recompute_of(req.options.recompute, choices);
  return {{"tp", par.tp},
          {"pp", par.pp},
          {"cp", cp.cp},
          {"ep", par.ep},
          {"etp", par.etp},
          {"dp", par.dp},
          {"micro_batch", par.micro_batch},
          {"micro_batches", s.micro_batches},
          {"vpp", par.vpp},
          {"sp", par.sequence_parallel},
          {"recompute", to_string(par.recompute)},
          {"recompute_modules",
           par.recompute == recompute_mode::selective
               ? nlohmann::json(recompute_modules_to_string(req.options.recompute.modules))
               : nlohmann::json(nullptr)},
          {"recompute_method", full ? nlohmann::json(to_string(recipe.method)) : nullptr},
          {"recompute_num_layers", full ? nlohmann::json(recipe.num_layers) : nullptr},
          {"zero", static_cast<int>(par.zero)},
          {"first_stage_layers", par.first_stage_layers},
          {"last_stage_layers", par.last_stage_layers},
          {"embedding_in_split", par.embedding_in_split},
          {"loss_in_split", par.loss_in_split},
          {"tp_spans_nodes", par.tp > topo.gpus_per_node},
          {"cp_comm_type", to_string(req.options.cp.comm)},
          {"dispatcher", is_moe(req.model.moe)
                             ? nlohmann::json(to_string(req.options.experts.dispatcher))
                             : nlohmann::json(nullptr)},
          {"layout", describe_layout(par, cp.cp, choices)},
          {"step_time_s", s.step_time.value()},
          {"cp_comm_exposed_s", cp.exposed.value()},
          {"cp_comm_hidden_s", cp.hidden.value()},
          {"cp_attention_extra_s", cp.attention_extra.value()},
          {"mfu", s.mfu},
          {"hfu", s.hfu},
          {"tokens_per_s", s.tokens_per_second},
          {"global_batch", par.global_batch},
          {"samples_per_s", static_cast<double>(par.global_batch) / s.step_time.value()},
          {"breakdown_s", s.time},
          {"memory", s.memory}};
}

nlohmann::json comparison_json(const step_comparison& d) {
  return {{"changes", d.changes},
          {"step_time_s", d.step_time.value()},
          {"mfu", d.mfu},
          {"breakdown_s", d.delta},
          {"cp_comm_exposed_s", d.cp_exposed.value()},
          {"cp_attention_extra_s", d.attention_extra.value()},
          {"largest", largest_key(d)}};
}

nlohmann::json plan_json(const plan_report& r) {
  const auto& req = r.request;
  const auto& res = r.result;
  const auto& c = res.counts;
  nlohmann::json rejected = nlohmann::json::object();
  for (const auto reason : all_plan_reasons) {
    rejected[std::string(key_of(reason))] = c[reason];
  }
  nlohmann::json layouts = nlohmann::json::array();
  std::size_t index = 0;
  for (const auto& l : res.top) {
    auto j = layout_json(l.candidate.par, l.result, req, cp_terms_of(l), r.choices(l.candidate));
    const auto b = layout_band(r, l);
    const auto [lo, hi] = time_band(b, l.result.step_time.value());
    j["precision"] = to_string(req.precision.options.linear);
    j["step_time_band_s"] = {lo, hi};
    j["band"] = band_basis_json(b);
    j["indistinguishable_from_winner"] =
        index > 0 && bands_overlap(layout_band(r, res.top[0]), res.top[0].result.step_time, b,
                                   l.result.step_time);
    layouts.push_back(j);
    ++index;
  }
  nlohmann::json per_degrees = nlohmann::json::array();
  for (const auto& pd : res.per_degrees) {
    per_degrees.push_back(
        {{"tp", pd.best.par.tp},
         {"pp", pd.best.par.pp},
         {"cp", pd.best.par.cp},
         {"ep", pd.best.par.ep},
         {"etp", pd.best.par.etp},
         {"dp", pd.best.par.dp},
         {"layout", describe_layout(pd.best.par, pd.best.par.cp, r.choices(pd.best))},
         {"step_time_s", pd.best.step_time.value()},
         {"mfu", pd.mfu},
         {"feasible", pd.feasible},
         {"tp_spans_nodes", pd.best.tp_spans_nodes}});
  }
  nlohmann::json runner_up = nullptr;
  if (!res.top.empty() && res.runner_up) {
    runner_up = comparison_json(compare_planned(res.top[0], *res.runner_up));
    runner_up["layout"] =
        describe_layout(res.runner_up->candidate.par, res.runner_up->candidate.par.cp,
                        r.choices(res.runner_up->candidate));
  }
  // --zero: the stage, or null when every stage the stack allows is searched.
  const auto fixed_zero = req.constraints.fixed_zero >= 0
                              ? nlohmann::json(req.constraints.fixed_zero)
                              : nlohmann::json(nullptr);
  nlohmann::json out = {
      {"schema", "tpcost.plan/1"},
      {"model", model_json(r.model, req.model)},
      {"hardware", hardware_json(r.hardware, req.gpu, req.memory_capacity, req.topology)},
      {"request",
       {{"gpus", req.gpus},
        {"global_batch", req.global_batch},
        {"global_batch_is_maximum", req.batch_is_maximum},
        {"memory_reserve_bytes", req.memory_reserve.value()},
        {"stack", profile_of(req.options.stack).name},
        {"seq", req.model.seq},
        {"attention", to_string(req.options.attention)},
        {"top", req.top},
        {"max_tp", req.constraints.max_tp},
        {"fixed_tp", req.constraints.fixed_tp},
        {"fixed_pp", req.constraints.fixed_pp},
        {"max_cp", req.constraints.max_cp},
        {"fixed_cp", req.constraints.fixed_cp},
        {"fixed_ep", req.constraints.fixed_ep},
        {"fixed_etp", req.constraints.fixed_etp},
        {"fixed_micro_batch", req.constraints.fixed_micro_batch},
        {"fixed_vpp", req.constraints.fixed_vpp},
        {"fixed_zero", fixed_zero},
        {"precision", to_string(req.precision.options.linear)},
        {"fp8_attention", req.precision.options.fp8_attention},
        {"fp8_param_gather", req.precision.options.fp8_param_gather},
        {"cp_comm_type", to_string(req.options.cp.comm)},
        {"tp_overlap", req.options.tp_overlap},
        {"tp_contention", req.options.tp_contention},
        {"dp_overlap", req.options.dp_overlap}}},
      {"search",
       {{"threads", res.threads},
        {"seconds", r.search_seconds},
        {"pairs", c.pairs},
        {"pairs_searched", c.pairs_searched},
        {"layouts", c.layouts},
        {"evaluated", c.evaluated},
        {"feasible", c.feasible},
        {"rejected", rejected}}},
      {"layouts", layouts},
      {"runner_up", runner_up},
      {"per_degrees", per_degrees}};
  // Each auto dimension: each value's best, in the order searched.
  const auto searched = [](const std::vector<choice_searched>& values, const char* key) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& v : values) {
      list.push_back(
          {{key, v.value},
           {"step_time_s", v.best ? nlohmann::json(v.best->result.step_time.value()) : nullptr},
           {"layout", v.best ? nlohmann::json(describe_layout(v.best->candidate.par,
                                                              v.best->candidate.par.cp, v.choices))
                             : nullptr},
           {"search_seconds", v.search_seconds},
           {"costed_as",
            v.costed_as.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.costed_as)}});
    }
    return list;
  };
  if (!r.precisions.empty()) {
    out["request"]["precision_auto"] = true;
    out["precisions"] = searched(r.precisions, "precision");
  }
  if (!r.cp_comms.empty()) {
    out["request"]["cp_comm_auto"] = true;
    out["cp_comm_types"] = searched(r.cp_comms, "cp_comm_type");
  }
  if (!r.dispatchers.empty()) {
    out["request"]["dispatcher_auto"] = true;
    out["dispatchers"] = searched(r.dispatchers, "dispatcher");
  }
  if (!r.recompute_modules.empty()) {
    out["request"]["recompute_modules_auto"] = true;
    out["recompute_modules"] = searched(r.recompute_modules, "recompute_modules");
  }
  return out;
}

/// Both layouts' error bands, and whether the difference is within them.
std::string compare_bands_text(const compare_report& r) {
  std::array<band_choice, 2> bands;
  std::string o;
  for (std::size_t i = 0; i < 2; ++i) {
    bands[i] = layout_band(r.request, r.hardware, r.layouts[i], r.cp[i].cp);
    o += fmt::format("{} likely {} ({})\n", i == 0 ? "A" : "B",
                     band_range(bands[i], r.results[i].step_time), band_basis_text(bands[i]));
  }
  o += bands_overlap(bands[0], r.results[0].step_time, bands[1], r.results[1].step_time)
           ? "the bands overlap: the two are indistinguishable within the model's error\n"
           : "the bands do not overlap: the difference is larger than the model's error\n";
  return o;
}

/// "fits", "fits, inside the 12.9 GiB reserve plan keeps free" or "DOES NOT FIT": a given
/// layout is evaluated whatever its memory, the reserve is what a search would have refused.
std::string fit_text(const memory_report& m, bytes reserve) {
  if (!m.fits()) {
    return "DOES NOT FIT";
  }
  return m.headroom() < reserve
             ? fmt::format("fits, inside the {} reserve plan keeps free (--memory-reserve)",
                           gib(reserve))
             : "fits";
}

std::string compare_text(const compare_report& r) {
  const auto& req = r.request;
  std::string o = header(r.model, r.hardware, req, "Compare");
  const std::array<std::string, 2> names{"A", "B"};
  o += "\n";
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& par = r.layouts[i];
    const auto& s = r.results[i];
    const auto own = request_for(req, r.choices[i]);
    o += fmt::format("{}: {}  (m = {}; TP group: {})\n", names[i],
                     describe_layout(par, r.cp[i].cp, r.choices[i]), s.micro_batches,
                     tp_group_text(par, r.hardware, req.topology));
    o += fmt::format(
        "   step {}, MFU {}, HFU {}, {:.0f} tokens/s; TP: {:.0f} collectives of {} per layer and "
        "micro-batch, {} ({}); memory {} of {}: {}\n",
        io::to_string(s.step_time), io::percent(s.mfu), io::percent(s.hfu), s.tokens_per_second,
        s.tp_collectives_per_layer, io::to_string(s.tp_message), io::to_string(s.tp_comm_per_layer),
        to_string(s.tp_algorithm), gib(s.memory.peak().total()), gib(s.memory.capacity),
        fit_text(s.memory, req.memory_reserve));
    if (r.cp[i].cp > 1) {
      o += fmt::format(
          "   CP: {} ranks ({}), {} of exchange per step exposed, {} hidden behind attention; "
          "attention against all {} keys adds {}\n",
          r.cp[i].cp, to_string(own.options.cp.comm), io::to_string(r.cp[i].exposed),
          io::to_string(r.cp[i].hidden), r.request.model.seq,
          io::to_string(r.cp[i].attention_extra));
    }
    if (r.broken[i]) {
      o += fmt::format("   plan would not propose it: {}\n", describe(*r.broken[i]));
    }
  }
  const auto& d = r.difference;
  o += fmt::format("\nwhere the time goes (B - A: {})\n", changes_text(d));
  o += difference_table("A", r.results[0], "B", r.results[1], d);
  const auto& a = r.results[0];
  const auto& b = r.results[1];
  const bool b_faster = b.step_time < a.step_time;
  const auto& fast = b_faster ? b : a;
  const auto& slow = b_faster ? a : b;
  o += fmt::format(
      "\n{} is faster by {:.2f}x ({} vs {}), MFU {} vs {}; the largest part of the difference is "
      "{} ({}).\n",
      b_faster ? "B" : "A", slow.step_time / fast.step_time, io::to_string(fast.step_time),
      io::to_string(slow.step_time), io::percent(fast.mfu), io::percent(slow.mfu), largest_label(d),
      signed_time(largest_delta(d)));
  o += compare_bands_text(r);
  return o;
}

nlohmann::json compare_json(const compare_report& r) {
  nlohmann::json layouts = nlohmann::json::array();
  for (std::size_t i = 0; i < 2; ++i) {
    auto l = layout_json(r.layouts[i], r.results[i], request_for(r.request, r.choices[i]), r.cp[i],
                         r.choices[i]);
    l["given"] = r.given[i];
    const auto b = layout_band(r.request, r.hardware, r.layouts[i], r.cp[i].cp);
    const auto [lo, hi] = time_band(b, r.results[i].step_time.value());
    l["step_time_band_s"] = {lo, hi};
    l["band"] = band_basis_json(b);
    l["plan_rule_broken"] =
        r.broken[i] ? nlohmann::json(std::string(key_of(*r.broken[i]))) : nlohmann::json(nullptr);
    layouts.push_back(l);
  }
  return {{"schema", "tpcost.plan.compare/1"},
          {"model", model_json(r.model, r.request.model)},
          {"hardware",
           hardware_json(r.hardware, r.request.gpu, r.request.memory_capacity, r.request.topology)},
          {"request",
           {{"gpus", r.request.gpus},
            {"global_batch", r.request.global_batch},
            {"attention", to_string(r.request.options.attention)},
            {"precision", to_string(r.request.precision.options.linear)}}},
          {"layouts", layouts},
          {"difference", comparison_json(r.difference)}};
}

}  // namespace

std::string render_plan(const plan_report& report, output_format format) {
  if (format == output_format::json) {
    return plan_json(report).dump(2) + "\n";
  }
  return plan_text(report);
}

std::string compare_difference_table(const compare_report& report) {
  return difference_table(report.given[0], report.results[0], report.given[1], report.results[1],
                          report.difference);
}

std::string render_compare(const compare_report& report, output_format format) {
  if (format == output_format::json) {
    return compare_json(report).dump(2) + "\n";
  }
  return compare_text(report);
}

}  // namespace tpcost::cli
