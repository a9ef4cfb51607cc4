#include "render/render_step.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/render_model.hpp"
#include "render/text_table.hpp"
#include "report/error_band.hpp"
#include "tpcost/io/format.hpp"
#include "tpcost/io/step_json.hpp"

namespace tpcost::cli {

namespace {

/// The recompute mode, with the recipe's modules or layers where they differ from the default.
std::string recompute_text(const step_inputs& in) {
  const auto mode = in.par.recompute;
  const auto& recipe = in.options.recompute;
  std::string text(to_string(mode));
  if (mode == recompute_mode::selective && recipe.modules != recompute_recipe{}.modules) {
    text += " (" + recompute_modules_to_string(recipe.modules) + ")";
  } else if (mode == recompute_mode::full && !recipe.full_is_default()) {
    text += fmt::format(" ({} {})", to_string(recipe.method), recipe.num_layers);
  }
  if (recipe.offload_layers > 0) {
    text += fmt::format(", {} layers offloaded", recipe.offload_layers);
  }
  return text;
}

/// What the DP group sends per step and how gradient accumulation changes it, by ZeRO stage
/// (stages.hpp prices them: an all-reduce, or reduce-scatter and all-gather, per step or per
/// micro-batch).
std::string dp_sentence_of_stage(const step_result& s, zero_stage zero) {
  const double m = static_cast<double>(s.micro_batches);
  switch (zero) {
    case zero_stage::none:
      return fmt::format(
          "one {} all-reduce of {} of gradients per GPU per step ({}), so {} per micro-batch: "
          "accumulation divides the DP cost by m, never the TP cost.",
          to_string(s.dp_algorithm), io::to_string(s.dp_bytes_per_gpu), io::to_string(s.dp_sync),
          io::to_string(s.dp_sync / m));
    case zero_stage::optimizer:
      return fmt::format(
          "the distributed optimizer reduce-scatters {} of gradients and all-gathers the "
          "updated weights once per step ({}, {}), so {} per micro-batch: accumulation divides "
          "the DP cost by m, never the TP cost.",
          io::to_string(s.dp_bytes_per_gpu), to_string(s.dp_algorithm), io::to_string(s.dp_sync),
          io::to_string(s.dp_sync / m));
    case zero_stage::gradients:
      return fmt::format(
          "ZeRO-2 reduce-scatters {} of gradients every micro-batch and all-gathers the weights "
          "once ({}, {} per step): accumulation does not divide the reduce-scatters.",
          io::to_string(s.dp_bytes_per_gpu), to_string(s.dp_algorithm), io::to_string(s.dp_sync));
    case zero_stage::parameters:
      break;
  }
  return fmt::format(
      "ZeRO-3 all-gathers the weights and reduce-scatters {} of gradients every micro-batch "
      "({}, {} per step): accumulation divides none of it.",
      io::to_string(s.dp_bytes_per_gpu), to_string(s.dp_algorithm), io::to_string(s.dp_sync));
}

/// The DP sentence, and under HSDP where the reduction runs (stages.hpp: the shard group's
/// reduce-scatter, then the replicas' all-reduce of each shard).
std::string dp_sentence(const step_result& s, const parallel_config& par) {
  auto text = dp_sentence_of_stage(s, par.zero);
  if (par.dp_replicas > 1 && par.zero != zero_stage::none) {
    text += fmt::format(
        " HSDP: the reduce-scatters and gathers run in {} groups of {} DP ranks, and each "
        "gradient shard is all-reduced across the {} replicas.",
        par.dp_replicas, shard_degree(par), par.dp_replicas);
  }
  return text;
}

/// Where an EP group's all-to-all runs: inside one NVLink domain, or across NICs.
std::string ep_where(const group_placement& g) {
  return g.spans_nodes()
             ? fmt::format("across {} nodes ({} per node): NIC and NVLink", g.nodes, g.per_node)
             : std::string("inside one node: NVLink");
}

/// The MoE lines of a step with experts (nothing for a dense model).
std::string experts_text(const step_report& r) {
  const auto& s = r.result;
  const auto& e = s.experts;
  if (e.moe_layers == 0) {
    return {};
  }
  const auto& par = r.inputs.par;
  const auto& moe = r.inputs.model.moe;
  const auto& opt = r.inputs.options.experts;
  std::string o = fmt::format(
      "experts: {} MoE layers, E={} top-{}{}; EP={} ETP={} expert-DP={} (folded over t*cp*d); {} "
      "experts and {:.0f} token copies per GPU and micro-batch; load factor {:.2f}{}\n",
      e.moe_layers, moe.experts, moe.top_k, routing_text(moe.routing), par.ep, par.etp, e.expert_dp,
      moe.experts / par.ep, e.routed_copies, opt.load.factor(),
      opt.load.capacity_factor > 0.0
          ? fmt::format(" (capacity factor {:.2f})", opt.load.capacity_factor)
          : std::string(" (dropless)"));
  o += fmt::format(
      "EP {} ({}): one dispatch sends {} over NVLink and {} over the NIC per GPU in {}, "
      "{}; {:.0f} per layer and micro-batch = {}, {}; exposed per step {}. TP+ETP per MoE layer "
      "{}\n",
      s.dispatcher == "all-gather" ? "all-gather, reduce-scatter back" : "all-to-all", s.dispatcher,
      io::to_string(e.dispatch.intra_node_bytes), io::to_string(e.dispatch.inter_node_bytes),
      io::to_string(e.dispatch.time), ep_where(e.ep_group), e.all_to_alls,
      io::to_string(e.all_to_all_per_layer),
      opt.overlap_comm ? "overlapped with compute (--overlap-moe-expert-parallel-comm)"
                       : "not overlapped",
      io::to_string(s.time.ep_comm), io::to_string(e.tp_per_layer));
  return o;
}

}  // namespace

std::string step_breakdown_table(const step_report& r) {
  const auto& s = r.result;
  const auto& t = s.time;
  const double st = s.step_time.value();
  std::string o = "breakdown on the critical GPU        time     share\n";
  const std::pair<const char*, seconds> rows[] = {
      {"compute (recompute included)", t.compute},
      {"exposed TP collectives", t.tp_comm},
      {"pipeline bubble", t.bubble},
      {"p2p between stages", t.p2p},
      {"exposed DP sync + embedding", t.dp_comm},
      {"optimizer step", t.optimizer},
  };
  for (const auto& [name, v] : rows) {
    o +=
        fmt::format("  {:<32} {:>9}  {:>6}\n", name, io::to_string(v), io::percent(v.value() / st));
  }
  if (s.experts.moe_layers > 0) {
    o += fmt::format("  {:<32} {:>9}  {:>6}\n", "exposed EP all-to-all", io::to_string(t.ep_comm),
                     io::percent(t.ep_comm.value() / st));
  }
  if (s.long_context.added) {  // the step time includes it; the rows above are the view's
    const auto exposed = s.long_context.cp_exposed;
    o += fmt::format("  {:<32} {:>9}  {:>6}\n", "exposed CP exchange", io::to_string(exposed),
                     io::percent(exposed.value() / st));
  }
  o += fmt::format("  {:<32} {:>9}  {:>6}\n", "step", io::to_string(s.step_time), "100.0%");
  return o;
}

namespace {

/// "FP8" for the second MFU's peak.
std::string rate_name(tensor_rate rate) {
  std::string out(to_string(rate));
  for (auto& c : out) {
    c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

}  // namespace

std::string precision_text(const precision_options& p, flops_per_second linear_peak) {
  std::string o = p.linear == linear_precision::bf16
                      ? std::string("precision: linear layers BF16")
                      : fmt::format("precision: linear layers {} (TE {}) at the {} peak {}",
                                    to_string(p.linear), format_of(p.linear).te_recipe,
                                    rate_name(linear_rate(p)), io::to_string(linear_peak));
  o += fmt::format(", attention core {}, logits BF16{}\n", p.fp8_attention ? "FP8" : "BF16",
                   p.fp8_param_gather ? ", parameters in FP8 (--fp8-param-gather)" : "");
  return o;
}

namespace {

/// The precision and CP lines of a long-context step (nothing for the plain step).
std::string long_context_text(const step_report& r) {
  const auto& lc = r.result.long_context;
  const auto& p = r.inputs.precision.options;
  const auto cp = r.inputs.par.cp;
  std::string o = precision_text(p, r.inputs.precision.linear_peak);
  if (cp > 1) {
    const auto& c = lc.cp_per_layer;
    o += fmt::format(
        "context parallel: cp={} {}, causal 2*cp = {} chunks, {} tokens per rank; exchange per "
        "layer and micro-batch {} sent, {} ({} forward, {} backward), exposed {}; per step "
        "exposed {}, hidden behind attention {}\n",
        cp, to_string(r.inputs.options.cp.comm), 2 * cp,
        r.inputs.par.micro_batch * r.inputs.model.seq / cp, io::to_string(c.sent),
        io::to_string(c.total()), io::to_string(c.forward), io::to_string(c.backward),
        io::to_string(c.exposed()), io::to_string(lc.cp_exposed), io::to_string(lc.cp_hidden));
  }
  o += fmt::format(
      "added to the compute per step: attention core against all s keys at the fused "
      "kernel's eta {}",
      io::to_string(lc.attention_extra));
  if (p.linear != linear_precision::bf16) {
    o += fmt::format(", linear layers at the {} rate -{}", rate_name(linear_rate(p)),
                     io::to_string(lc.linear_saving));
  }
  o += "\n";
  return o;
}

/// The step's error band (error_band.hpp): step time, tokens/s and MFU at the band's edges.
std::string band_text(const step_report& r) {
  const auto band = band_of(r);
  const auto& s = r.result;
  const auto [t_lo, t_hi] = time_band(band, s.step_time.value());
  const auto [k_lo, k_hi] = rate_band(band, s.tokens_per_second);
  const auto [m_lo, m_hi] = rate_band(band, s.mfu);
  return fmt::format("  likely {} to {} ({}); {:.0f} to {:.0f} tokens/s, MFU {} to {}\n",
                     io::to_string(seconds(t_lo)), io::to_string(seconds(t_hi)),
                     band_basis_text(band), k_lo, k_hi, io::percent(m_lo), io::percent(m_hi));
}

nlohmann::json band_pair(std::pair<double, double> b) { return {b.first, b.second}; }

std::string text(const step_report& r) {
  const auto& in = r.inputs;
  const auto& par = in.par;
  const auto& s = r.result;
  std::string o;
  // First, whether it fits: no one should read the time of a layout that cannot run.
  if (!s.memory.fits()) {
    o += fmt::format(
        "DOES NOT FIT: the fullest stage ({}) needs {} per GPU, {} more than the {} there is; "
        "the times below are for a layout that cannot run\n",
        s.memory.peak().stage, gib(s.memory.peak().total()), gib(-s.memory.headroom()),
        gib(s.memory.capacity));
  } else {
    o += fmt::format(
        "fits: the fullest stage ({}) needs {} per GPU of the {} there is (about {} reserved by "
        "PyTorch's caching allocator), {} headroom\n",
        s.memory.peak().stage, gib(s.memory.peak().total()), gib(s.memory.capacity),
        gib(s.memory.reserved(s.memory.peak_stage)), gib(s.memory.headroom()));
  }
  if (!r.hardware.assumption.empty()) {  // an answer for a network the user did not name
    o += r.hardware.assumption + "\n";
  }
  o += fmt::format("Training step: {} on {} x {}, {} between nodes\n", model_name(r.model), s.gpus,
                   r.hardware.gpu->name, r.hardware.network);
  o += fmt::format(
      "layout:  t={} p={} {}d={}  b={} G={} m={}  v={}  recompute {}  SP {}  ZeRO {}  attention "
      "{}\n",
      par.tp, par.pp, s.long_context.added ? fmt::format("cp={} ", par.cp) : std::string(), par.dp,
      par.micro_batch, par.global_batch, s.micro_batches, par.vpp, recompute_text(in),
      par.sequence_parallel ? "on" : "off", static_cast<int>(par.zero),
      to_string(in.options.attention));
  if (r.stack.profile != nullptr) {
    o += stack_text(r.stack);
  }
  if (const auto& l = s.memory.stages;
      l.size() > 1 && (l.front().layers != l.back().layers || l.front().layers != l[1].layers)) {
    const auto mtp = in.model.mtp_layers;
    o += fmt::format("stages:  {} layers on the first, {} on each middle one, {} on the last{}\n",
                     l.front().layers, l.size() > 2 ? l[1].layers : 0, l.back().layers,
                     mtp > 0 ? fmt::format(" ({} of them MTP)", mtp) : std::string());
  }
  o += fmt::format(
      "GPU:     peak {}, HBM {} at {}; efficiency {:.2f} of peak (matmul), {:.2f} of HBM "
      "(element-wise){}\n",
      io::to_string(in.gpu.peak), gib(in.memory_capacity), io::to_string(in.gpu.memory_bandwidth),
      in.gpu.efficiency.matmul, in.gpu.efficiency.memory,
      in.options.attention == attention_kernel::fused
          ? fmt::format(", {:.2f} of peak (fused attention, on its causal FLOPs)",
                        in.gpu.efficiency.attention)
          : std::string());
  o += fmt::format(
      "links:   intra-node {} / {} per step{}; inter-node {} / {}{}; {} GPUs per node\n\n",
      io::to_string(in.topology.intra.bandwidth), io::to_string(in.topology.intra.latency),
      profile_note(r.hardware, profile_scope::intra_node),
      io::to_string(in.topology.inter.bandwidth), io::to_string(in.topology.inter.latency),
      profile_note(r.hardware, profile_scope::inter_node), in.topology.gpus_per_node);
  if (s.long_context.added) {
    o.pop_back();  // the blank line goes after the long-context lines
    o += long_context_text(r) + "\n";
  }
  o += fmt::format(
      "step time {}   {:.0f} tokens/s   per GPU: {:.1f} TFLOP/s model, {:.1f} TFLOP/s "
      "hardware\n",
      io::to_string(s.step_time), s.tokens_per_second, s.model_flops_per_gpu.value() / 1e12,
      s.hardware_flops_per_gpu.value() / 1e12);
  o += band_text(r);
  if (s.long_context.added) {
    const auto& u = s.peak_utilisation;
    o += fmt::format(
        "MFU {} of BF16 peak{}   HFU {}   mu = {} (the share of the step spent computing)\n",
        io::percent(u.mfu_bf16_peak),
        u.precision_peak == tensor_rate::bf16
            ? std::string()
            : fmt::format(", {} of {} peak", io::percent(u.mfu_precision_peak),
                          rate_name(u.precision_peak)),
        io::percent(s.hfu), io::percent(s.utilisation));
  } else {
    o += fmt::format("MFU {}   HFU {}   mu = {} (the share of the step spent computing)\n",
                     io::percent(s.mfu), io::percent(s.hfu), io::percent(s.utilisation));
  }
  // Windowed layers count their window's (query, key) pairs under both conventions
  // (docs/moe.md, "Attention windows"); Megatron-LM's own count does not read --window-size
  // (megatron/training/training.py num_floating_point_operations, core_v0.16.0 to d98e8a6).
  const auto& model = r.inputs.model;
  const bool windowed = window_cuts(model, model.seq);
  const std::string window =
      windowed
          ? fmt::format(", the {} windowed layers of {} on their {} of {}", windowed_layers(model),
                        model.layers, model.attention_window > 0 ? "window" : "chunks",
                        model.attention_window > 0 ? model.attention_window : model.attention_chunk)
          : std::string();
  o += r.inputs.options.mfu_flops == flops_convention::full
           ? fmt::format(
                 "model FLOPs: 3 x forward with the full s*s attention scores{} "
                 "(Narayanan et al. 2021, PaLM); --mfu-flops megatron counts as "
                 "Megatron-LM does\n\n",
                 window)
           : fmt::format(
                 "model FLOPs: Megatron-LM's num_floating_point_operations (causal "
                 "attention halved, no router){}; --mfu-flops full for the PaLM "
                 "count\n\n",
                 windowed ? window + " (Megatron-LM's own count leaves them full)"
                          : std::string(", as the TFLOP/s Megatron-LM prints"));
  o += step_breakdown_table(r) + "\n";
  o += fmt::format(
      "gradient accumulation: m = {} micro-batches per step. TP: {:.0f} collectives of {} per "
      "layer and micro-batch ({}, {} per layer), paid m times, whatever m is. DP: {}\n",
      s.micro_batches, s.tp_collectives_per_layer, io::to_string(s.tp_message),
      to_string(s.tp_algorithm), io::to_string(s.tp_comm_per_layer), dp_sentence(s, in.par));
  o += fmt::format("pipeline: bubble (p-1)/(v*m) = {}, p2p message {}\n",
                   io::percent(s.bubble_fraction), io::to_string(s.p2p_message));
  o += experts_text(r) + "\n";
  const auto& peak = s.memory.peak();
  o += fmt::format(
      "memory per GPU (fullest stage {}, {} attention): weights {}, gradients {}, optimizer {}, "
      "activations {} = {} of {}: {}\n",
      peak.stage, to_string(in.options.attention), gib(peak.weights), gib(peak.gradients),
      gib(peak.optimizer), gib(peak.activations), gib(peak.total()), gib(s.memory.capacity),
      s.memory.fits() ? fmt::format("fits, {} headroom", gib(s.memory.headroom()))
                      : fmt::format("DOES NOT FIT, {} over", gib(-s.memory.headroom())));
  if (s.experts.moe_layers > 0) {
    o += fmt::format(
        "expert memory: {:.2f}B routed-expert parameters on this GPU (sharded by EP*ETP = {}), "
        "their weights, gradients and optimizer {} (ZeRO shards them over expert-DP = {})\n",
        peak.expert_params / 1e9, par.ep * par.etp, gib(s.experts.expert_states),
        s.experts.expert_dp);
  }
  for (const auto& w : s.warnings) {
    o += "warning: " + w + "\n";
  }
  return o;
}

/// The inputs of a long-context step beside what to_json(step_result) wrote of it
/// (io/step_json.hpp): the layout's cp, the CP layout and the recipe.
void add_long_context_inputs(const step_report& r, nlohmann::json& j) {
  const auto cp = r.inputs.par.cp;
  const auto& precision = r.inputs.precision.options;
  j["layout"]["cp"] = cp;
  j["context_parallel"].update(
      {{"cp", cp},
       {"comm_type", to_string(r.inputs.options.cp.comm)},
       {"chunks", cp > 1 ? 2 * cp : 1},
       {"tokens_per_rank", r.inputs.par.micro_batch * r.inputs.model.seq / cp}});
  j["precision"] = {{"linear", to_string(precision.linear)},
                    {"te_recipe", format_of(precision.linear).te_recipe},
                    {"linear_peak_flops_per_s", r.inputs.precision.linear_peak.value()},
                    {"attention", precision.fp8_attention ? "fp8" : "bf16"},
                    {"logits", "bf16"},
                    {"fp8_param_gather", precision.fp8_param_gather}};
}

nlohmann::json json(const step_report& r) {
  const auto band = band_of(r);
  const auto& in = r.inputs;
  const auto& par = in.par;
  const auto& s = r.result;
  const auto& t = s.time;
  const auto& peak = s.memory.peak();
  nlohmann::json j = s;  // what the model computed (io/step_json.hpp); then what it ran on
  j.update({
      {"schema", "tpcost.step/1"},
      {"model", model_json(r.model, in.model)},
      {"hardware", hardware_json(r.hardware, in.gpu, in.memory_capacity, in.topology)},
      {"layout",
       {{"gpus", s.gpus},
        {"tp", par.tp},
        {"pp", par.pp},
        {"dp", par.dp},
        {"vpp", par.vpp},
        {"stage_layers",
         [&] {
           auto layers = nlohmann::json::array();
           for (const auto& stage : s.memory.stages) {
             layers.push_back(stage.layers);
           }
           return layers;
         }()},
        {"micro_batch", par.micro_batch},
        {"global_batch", par.global_batch},
        {"micro_batches", s.micro_batches},
        {"sp", par.sequence_parallel},
        {"recompute", to_string(par.recompute)},
        // Full recomputation's method and layers per model chunk (null for the other modes),
        // as plan's layouts carry them.
        {"recompute_method", par.recompute == recompute_mode::full
                                 ? nlohmann::json(to_string(in.options.recompute.method))
                                 : nlohmann::json(nullptr)},
        {"recompute_num_layers", par.recompute == recompute_mode::full
                                     ? nlohmann::json(in.options.recompute.num_layers)
                                     : nlohmann::json(nullptr)},
        {"zero", static_cast<int>(par.zero)},
        {"attention", to_string(in.options.attention)},
        {"tp_overlap", in.options.tp_overlap},
        {"tp_contention", in.options.tp_contention},
        {"dp_overlap", in.options.dp_overlap}}},
      {"stack", r.stack.profile != nullptr ? stack_json(r.stack) : nlohmann::json(nullptr)},
      {"step_time_band_s", band_pair(time_band(band, s.step_time.value()))},
      {"tokens_per_s_band", band_pair(rate_band(band, s.tokens_per_second))},
      {"mfu_band", band_pair(rate_band(band, s.mfu))},
      {"band", band_basis_json(band)},
      {"flops_convention", to_string(r.inputs.options.mfu_flops)},
  });
  if (s.experts.moe_layers > 0) {
    const auto& e = s.experts;
    j["layout"]["ep"] = par.ep;
    j["layout"]["etp"] = par.etp;
    j["experts"] = {{"moe_layers", e.moe_layers},
                    {"ep", par.ep},
                    {"etp", par.etp},
                    {"expert_dp", e.expert_dp},
                    {"dispatcher", s.dispatcher},
                    {"overlap", in.options.experts.overlap_comm},
                    {"load_factor", in.options.experts.load.factor()},
                    {"routed_copies_per_gpu", e.routed_copies},
                    {"all_to_all",
                     {{"intra_node_bytes", e.dispatch.intra_node_bytes.value()},
                      {"inter_node_bytes", e.dispatch.inter_node_bytes.value()},
                      {"time_s", e.dispatch.time.value()},
                      {"spans_nodes", e.ep_group.spans_nodes()},
                      {"nodes", e.ep_group.nodes},
                      {"per_layer", e.all_to_alls},
                      {"per_layer_s", e.all_to_all_per_layer.value()},
                      {"exposed_per_step_s", t.ep_comm.value()}}},
                    {"tp_per_layer_s", e.tp_per_layer.value()},
                    {"expert_params_per_gpu", peak.expert_params},
                    {"expert_states_bytes", e.expert_states.value()}};
  }
  if (s.long_context.added) {
    add_long_context_inputs(r, j);
  }
  return j;
}

}  // namespace

std::string model_name(const chosen_model& model) {
  if (model.preset != nullptr) {
    return std::string(model.preset->name);
  }
  return model.origin == "hf-config" ? model.hf_config : "a model given by its dimensions";
}

nlohmann::json model_json(const chosen_model& model, const transformer_spec& spec) {
  return {{"name", model_name(model)}, {"origin", model.origin}, {"layers", spec.layers},
          {"hidden", spec.hidden},     {"heads", spec.heads},    {"kv_heads", kv_heads_of(spec)},
          {"ffn", ffn_of(spec)},       {"vocab", spec.vocab},    {"seq", spec.seq}};
}

nlohmann::json hardware_json(const chosen_hardware& hw, const compute_device& device, bytes memory,
                             const cluster_topology& topology) {
  return {{"gpu", hw.gpu->name},
          {"interconnect", hw.interconnect != nullptr ? nlohmann::json(hw.interconnect->name)
                                                      : nlohmann::json(nullptr)},
          {"interconnect_assumed",
           hw.assumption.empty() ? nlohmann::json(nullptr) : nlohmann::json(hw.assumption)},
          {"peak_flops_per_s", device.peak.value()},
          {"memory_bandwidth_bytes_per_s", device.memory_bandwidth.value()},
          {"memory_bytes", memory.value()},
          {"matmul_efficiency", device.efficiency.matmul},
          {"memory_efficiency", device.efficiency.memory},
          {"attention_efficiency", device.efficiency.attention},
          {"gpus_per_node", topology.gpus_per_node},
          {"intra_bandwidth_bytes_per_s", topology.intra.bandwidth.value()},
          {"intra_latency_s", topology.intra.latency.value()},
          {"inter_bandwidth_bytes_per_s", topology.inter.bandwidth.value()},
          {"inter_latency_s", topology.inter.latency.value()}};
}

std::string render_step(const step_report& report, output_format format) {
  if (format == output_format::json) {
    return json(report).dump(2) + "\n";
  }
  return text(report);
}

}  // namespace tpcost::cli
