#include "commands/step_flags.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "options/cli_options.hpp"
#include "options/flag_options.hpp"
#include "tpcost/base/checked.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::cli {

namespace {

/// Fills t, p or d from --gpus when one of them is missing; checks t·p·cp·d = N.
void resolve_degrees(const step_flags& f, std::int64_t cp, parallel_config& par) {
  const bool has_t = !f.tp.empty();
  const bool has_p = !f.pp.empty();
  const bool has_d = !f.dp.empty();
  par.tp = has_t ? parse_count(f.tp, "--tp") : 1;
  par.pp = has_p ? parse_count(f.pp, "--pp") : 1;
  if (f.gpus.empty()) {
    par.dp = has_d ? parse_count(f.dp, "--dp") : 1;
    return;
  }
  const auto n = parse_count(f.gpus, "--gpus");
  if (n < 1) {
    throw invalid_spec("--gpus", std::to_string(n) + " is out of range; expected N >= 1");
  }
  if (has_d) {
    par.dp = parse_count(f.dp, "--dp");
    if (par.tp < 1 || par.pp < 1 || par.dp < 1) {
      return;  // validate() names the degree below 1
    }
    if (cp > 1) {
      const auto tpcd = checked_product("--gpus", {par.tp, par.pp, cp, par.dp}, "t*p*cp*d");
      if (tpcd != n) {
        throw invalid_spec("--gpus", "t*p*cp*d = " + std::to_string(par.tp) + "*" +
                                         std::to_string(par.pp) + "*" + std::to_string(cp) + "*" +
                                         std::to_string(par.dp) + " = " + std::to_string(tpcd) +
                                         " is not N = " + std::to_string(n));
      }
      return;
    }
    const auto tpd = checked_product("--gpus", {par.tp, par.pp, par.dp}, "t*p*d");
    if (tpd != n) {
      throw invalid_spec("--gpus", "t*p*d = " + std::to_string(par.tp) + "*" +
                                       std::to_string(par.pp) + "*" + std::to_string(par.dp) +
                                       " = " + std::to_string(tpd) +
                                       " is not N = " + std::to_string(n));
    }
    return;
  }
  if (par.tp < 1 || par.pp < 1) {
    return;  // validate() names the degree below 1
  }
  // Checked before it is formed: t = p = 2^32 would wrap t*p to 0 and divide by it.
  if (cp > 1) {
    const auto tpc = checked_product("--gpus", {par.tp, par.pp, cp}, "t*p*cp");
    if (n % tpc != 0) {
      throw invalid_spec("--gpus", std::to_string(n) + " GPUs are not a multiple of t*p*cp = " +
                                       std::to_string(tpc) +
                                       "; choose t, p and cp whose product divides N");
    }
    par.dp = n / tpc;
    return;
  }
  const auto tp = checked_product("--gpus", {par.tp, par.pp}, "t*p");
  if (n % tp != 0) {
    throw invalid_spec("--gpus", std::to_string(n) +
                                     " GPUs are not a multiple of t*p = " + std::to_string(tp) +
                                     "; choose t and p whose product divides N");
  }
  par.dp = n / tp;
}

/// --pp-layout: "first=N,last=N" (either may be left out) or Megatron-Core's
/// --pipeline-model-parallel-layout string, whose chunks per stage also set v when --vpp is 1.
void read_pp_layout(const std::string& text, std::int64_t layers, std::int64_t mtp_layers,
                    parallel_config& par, bool set_vpp) {
  if (text.find('=') != std::string::npos) {
    std::size_t start = 0;
    while (start <= text.size()) {
      const auto end = std::min(text.find(',', start), text.size());
      const auto item = text.substr(start, end - start);
      start = end + 1;
      const auto eq = item.find('=');
      const auto key = item.substr(0, eq);
      if (eq == std::string::npos || (key != "first" && key != "last")) {
        throw invalid_spec("--pp-layout",
                           "'" + item +
                               "': expected first=N and/or last=N, or a "
                               "Megatron-Core layout string such as 'Et*7|(t*8|)*14t*7L'");
      }
      const auto n = parse_count(item.substr(eq + 1), "--pp-layout");
      if (n < 1 || n > layers) {
        throw invalid_spec("--pp-layout",
                           "'" + item + "': expected 1.." + std::to_string(layers) + " layers");
      }
      (key == "first" ? par.first_stage_layers : par.last_stage_layers) = n;
      if (end == text.size()) {
        break;
      }
    }
    return;
  }
  const auto layout = parse_pipeline_layout(text, par.pp, layers, "--pp-layout", mtp_layers);
  par.first_stage_layers = layout.first;
  par.last_stage_layers = layout.last;
  par.chunks_from_layout = true;
  if (set_vpp) {
    par.vpp = layout.virtual_stages;
  } else if (par.vpp != layout.virtual_stages) {
    throw invalid_spec("--pp-layout", "has " + std::to_string(layout.virtual_stages) +
                                          " chunks per stage but --vpp is " +
                                          std::to_string(par.vpp));
  }
}

/// --attention-efficiency replaces the GPU's attention η in the long-context step too (0: not
/// given).
precision_device with_attention_override(precision_device device, double attention) {
  if (attention > 0.0) {
    device.attention_efficiency = attention;
  }
  return device;
}

}  // namespace

unsigned recompute_modules_for(const std::string& text, const transformer_spec& model,
                               selective_policy policy) {
  const auto modules = parse_recompute_modules(text, "--recompute-modules");
  if (policy != selective_policy::attention_core) {
    throw invalid_spec("--recompute-modules",
                       "are Megatron-Core's; this stack's selective recomputation is "
                       "torchtitan's per-op policy");
  }
  if ((modules & static_cast<unsigned>(recompute_module::mla_up_proj)) != 0U &&
      !is_mla(model.mla)) {
    throw invalid_spec("--recompute-modules",
                       "mla_up_proj needs multi-latent attention (Megatron refuses it "
                       "without --multi-latent-attention)");
  }
  return modules;
}

unsigned offload_modules_for(bool enabled, const std::string& modules,
                             const std::string& cpu_offloading_num_layers,
                             selective_policy policy) {
  if (!enabled) {
    if (!modules.empty()) {
      throw invalid_spec("--offload-modules",
                         "needs --fine-grained-activation-offloading (Megatron reads "
                         "offload_modules only with it)");
    }
    return 0;
  }
  if (!cpu_offloading_num_layers.empty()) {
    throw invalid_spec("--fine-grained-activation-offloading",
                       "cannot be used with --cpu-offloading-num-layers (Megatron refuses "
                       "fine-grained activation offloading with cpu_offloading)");
  }
  if (policy != selective_policy::attention_core) {
    throw invalid_spec("--fine-grained-activation-offloading",
                       "is Megatron-Core's; this stack (torchtitan's) has no such offloading");
  }
  return parse_offload_modules(modules, "--offload-modules");
}

namespace {

/// --cuda-graph-impl and --cuda-graph-scope, checked as Megatron-Core's TransformerConfig
/// __post_init__ checks them at core_v0.16.0 (transformer_config.py): the scope parser's rules
/// (cuda_graphs.hpp), then those that need the model and the options: moe and moe_router need
/// experts; moe needs drop-and-pad ("moe cuda graph is only supported with drop-padding MoE":
/// here a capacity factor); moe_preprocess with the alltoall dispatcher and a capacity factor
/// puts a device-to-host copy in the graph; full recomputation only with the whole iteration.
cuda_graphs to_cuda_graphs(const step_flags& f, const transformer_spec& model,
                           const expert_options& experts, recompute_mode recompute) {
  cuda_graphs g;
  g.impl = parse_cuda_graph_impl(f.cuda_graph_impl, "--cuda-graph-impl");
  if (g.impl == cuda_graph_impl::none) {
    if (!f.cuda_graph_scope.empty()) {
      throw invalid_spec("--cuda-graph-scope",
                         "needs --cuda-graph-impl local or "
                         "transformer_engine (none captures nothing)");
    }
    return g;
  }
  g = parse_cuda_graph_scope(f.cuda_graph_scope, g, "--cuda-graph-scope");
  using namespace cuda_graph_scope;
  const bool routed = model.moe.experts > 1;
  if (!routed && (g.scopes & (moe | moe_router)) != 0) {
    throw invalid_spec("--cuda-graph-scope", "moe and moe_router need a model with experts");
  }
  const bool capacity = experts.load.capacity_factor > 0.0;
  if ((g.scopes & moe) != 0 && !capacity) {
    throw invalid_spec("--cuda-graph-scope",
                       "moe is only supported with drop-and-pad MoE (give "
                       "--moe-expert-capacity-factor): a dropless layer synchronises");
  }
  if ((g.scopes & moe_preprocess) != 0 && capacity &&
      experts.dispatcher == token_dispatcher::all_to_all) {
    throw invalid_spec("--cuda-graph-scope",
                       "moe_preprocess with the alltoall dispatcher and a capacity factor: the "
                       "preprocess copies token counts to the host, which a graph cannot hold");
  }
  if (recompute == recompute_mode::full && g.impl != cuda_graph_impl::full_iteration) {
    throw invalid_spec("--cuda-graph-impl",
                       "--recompute full is only supported with the whole iteration captured "
                       "(full_iteration)");
  }
  return g;
}

/// --recompute-modules, --recompute-method, --recompute-num-layers and
/// --cpu-offloading-num-layers, checked as Megatron-Core's TransformerConfig.__post_init__
/// checks them (core_v0.16.0, transformer_config.py).
recompute_recipe to_recompute_recipe(const step_flags& f, const transformer_spec& model,
                                     const parallel_config& par, selective_policy policy) {
  recompute_recipe recipe;
  if (!f.recompute_modules.empty()) {
    recipe.modules = recompute_modules_for(f.recompute_modules, model, policy);
    if (par.recompute != recompute_mode::selective) {
      throw invalid_spec("--recompute-modules",
                         "applies to --recompute selective only (Megatron's recompute_modules "
                         "choose what selective recomputation reruns)");
    }
  }
  const bool full = par.recompute == recompute_mode::full;
  if (!f.recompute_method.empty()) {
    recipe.method = parse_recompute_method(f.recompute_method, "--recompute-method");
    if (!full) {
      throw invalid_spec("--recompute-method", "applies to --recompute full only");
    }
  }
  if (!f.recompute_num_layers.empty()) {
    if (f.recompute_num_layers == "auto") {
      throw invalid_spec("--recompute-num-layers",
                         "auto is a search, which plan runs; step costs one count of layers");
    }
    const auto n = parse_count(f.recompute_num_layers, "--recompute-num-layers");
    const auto stages = std::max<std::int64_t>(1, par.pp) * std::max<std::int64_t>(1, par.vpp);
    const auto chunk = (model.layers + stages - 1) / stages;
    const auto least = recipe.method == recompute_method::block ? 0 : 1;
    if (n < least || n > chunk) {
      throw invalid_spec("--recompute-num-layers",
                         fmt::format("{} is out of range; expected {}..{}, the layers of a model "
                                     "chunk (L/(p*v) = {}/{})",
                                     n, least, chunk, model.layers, stages));
    }
    if (!full) {
      throw invalid_spec("--recompute-num-layers", "applies to --recompute full only");
    }
    recipe.num_layers = n;
  }
  if (!f.cpu_offloading_num_layers.empty()) {
    const auto n = parse_count(f.cpu_offloading_num_layers, "--cpu-offloading-num-layers");
    if (n < 0 || n >= model.layers) {
      throw invalid_spec("--cpu-offloading-num-layers",
                         fmt::format("{} is out of range; expected 0..{} (Megatron offloads "
                                     "fewer layers than the model has)",
                                     n, model.layers - 1));
    }
    if (par.pp > 1 || par.recompute != recompute_mode::none) {
      throw invalid_spec("--cpu-offloading-num-layers",
                         "needs p = 1 and no recomputation (Megatron-Core refuses CPU "
                         "offloading with pipelines and with recomputation)");
    }
    recipe.offload_layers = n;
  }
  recipe.offload_modules = offload_modules_for(f.fine_grained_offloading, f.offload_modules,
                                               f.cpu_offloading_num_layers, policy);
  return recipe;
}

}  // namespace

context_parallel to_context_parallel(const step_flags& f) {
  context_parallel c;
  c.cp = parse_count(f.cp, "--cp");
  if (c.cp < 1) {
    throw invalid_spec("--cp", std::to_string(c.cp) + " is out of range; expected cp >= 1");
  }
  c.comm = parse_cp_comm_type(f.cp_comm_type, "--cp-comm-type");
  if (f.hierarchical_cp_sizes.empty()) {
    return c;
  }
  // Megatron's --hierarchical-context-parallel-sizes: the inner (a2a) size, then the outer.
  if (c.comm != cp_comm_type::a2a_p2p) {
    throw invalid_spec("--hierarchical-cp-sizes", "applies to --cp-comm-type a2a+p2p only");
  }
  const auto comma = f.hierarchical_cp_sizes.find(',');
  if (comma == std::string::npos) {
    throw invalid_spec("--hierarchical-cp-sizes",
                       "'" + f.hierarchical_cp_sizes +
                           "': expected A,B (the a2a group, then the p2p ring), e.g. 2,4");
  }
  const auto inner =
      parse_count(f.hierarchical_cp_sizes.substr(0, comma), "--hierarchical-cp-sizes");
  const auto outer =
      parse_count(f.hierarchical_cp_sizes.substr(comma + 1), "--hierarchical-cp-sizes");
  if (inner < 1 || outer < 1 ||
      checked_product("--hierarchical-cp-sizes", {inner, outer}, "A*B") != c.cp) {
    throw invalid_spec(
        "--hierarchical-cp-sizes",
        f.hierarchical_cp_sizes + ": the sizes' product must be cp = " + std::to_string(c.cp));
  }
  c.a2a_size = inner;
  return c;
}

step_report evaluate_step_flags(const step_flags& f) {
  step_report report;
  report.model = to_model(f.model);
  step_inputs& in = report.inputs;
  in.model = report.model.spec;

  // Hardware: the presets, then the explicit overrides.
  const auto hw = to_hardware(f.hardware);
  report.hardware = hw;
  in.gpu = hw.device;
  in.memory_capacity = hw.memory_capacity;
  in.topology = hw.topology;

  // Layout.
  parallel_config& par = in.par;
  const auto cp = to_context_parallel(f);
  resolve_degrees(f, cp.cp, par);
  par.ep = parse_count(f.ep, "--ep");
  par.etp = parse_count(f.etp, "--etp");
  par.vpp = parse_count(f.vpp, "--vpp");
  par.micro_batch = parse_count(f.micro_batch, "--micro-batch");
  if (f.global_batch.empty()) {
    throw invalid_spec("--global-batch", "is required: the sequences per step, e.g. 1536");
  }
  par.global_batch = parse_count(f.global_batch, "--global-batch");
  par.sequence_parallel = f.sp;
  par.recompute = parse_recompute(f.recompute, "--recompute");
  par.zero = f.zero.empty() ? zero_stage::none : parse_zero_stage(f.zero, "--zero");
  par.embedding_in_split = f.embedding_in_split;
  par.loss_in_split = f.loss_in_split;
  if (!f.pp_layout.empty()) {
    read_pp_layout(f.pp_layout, report.model.spec.layers, report.model.spec.mtp_layers, par,
                   par.vpp == 1);
  }
  report.stack = to_stack_choice(f.software, f.hardware);
  apply_kernel_efficiency(f.hardware, report.stack, report.hardware);
  in.gpu = report.hardware.device;
  apply_stack_sequence_parallel(f.sp, f.no_sp, f.software.stack.tp_comm_overlap,
                                in.topology.gpus_per_node, report.stack, par);
  in.options = report.stack.options;
  in.options.recompute = to_recompute_recipe(f, report.model.spec, par, in.options.selective);
  // What the recipe changes, listed with the stack's settings, and what it leaves uncosted.
  const auto& recipe = in.options.recompute;
  if (!f.recompute_modules.empty()) {
    report.stack.settings.push_back(
        {.field = "recompute_modules",
         .value = recompute_modules_to_string(recipe.modules),
         .source = "--recompute-modules: the memory each module's recomputation frees "
                   "(Megatron-Core core_v0.16.0), its rerun forward kernels and the collectives "
                   "mlp and moe rerun (the MLP's TP collectives, the dispatch and combine); not "
                   "those of shared_experts or mla_up_proj, nor the FLOPs in HFU",
         .from_flag = true});
  }
  if (!f.recompute_method.empty() || !f.recompute_num_layers.empty()) {
    report.stack.settings.push_back(
        {.field = "recompute_layers",
         .value = fmt::format("{} {}", to_string(recipe.method), recipe.num_layers),
         .source = recipe.method == recompute_method::block
                       ? "--recompute-method block: N layers of each model chunk recomputed "
                         "(memory and time), the others keep every activation"
                       : "--recompute-method uniform: units of N layers, each keeping its input; "
                         "every layer's forward runs again",
         .from_flag = true});
  }
  if (recipe.offload_layers > 0) {
    report.stack.settings.push_back(
        {.field = "cpu_offloading_num_layers",
         .value = std::to_string(recipe.offload_layers),
         .source = "--cpu-offloading-num-layers: those layers' activations leave the GPU; the "
                   "PCIe copies to the host and back are not costed in the step time",
         .from_flag = true});
  }
  if (recipe.offload_modules != 0U) {
    report.stack.settings.push_back(
        {.field = "offload_modules",
         .value = offload_modules_to_string(recipe.offload_modules),
         .source = "--fine-grained-activation-offloading: what these modules save leaves the GPU "
                   "between their forward and backward (tensors of 1Mi elements or more; one "
                   "layer's kept); the host copies run on side streams and are not costed in the "
                   "step time (no GPU preset gives the host link's bandwidth)",
         .from_flag = true});
  }
  // Without --zero the job shards as its stack does by default (fsdp2: fully_shard, stage 3).
  const auto& default_zero = report.stack.profile->default_zero;
  if (f.zero.empty() && par.dp > 1) {
    par.zero = static_cast<zero_stage>(default_zero.value);
  }
  apply_stack_zero(par.zero, report.stack);
  report.stack.settings.push_back({.field = "zero",
                                   .value = std::to_string(static_cast<int>(par.zero)),
                                   .source = !f.zero.empty() ? std::string("--zero")
                                             : par.dp > 1    ? std::string(default_zero.source)
                                                          : std::string("d = 1: nothing to shard"),
                                   .from_flag = !f.zero.empty()});
  if (f.software.stack.offload_param && par.zero != zero_stage::parameters) {
    // deepspeed/runtime/zero/config.py: offload_param is a ZeRO-3 option (stage 3 partitions the
    // parameters it offloads).
    throw invalid_spec("--offload-param",
                       "needs --zero 3: DeepSpeed offloads the parameter "
                       "partitions of ZeRO-3 only");
  }
  if (!f.dp_replicas.empty()) {
    par.dp_replicas = parse_count(f.dp_replicas, "--dp-replicas");
    report.stack.settings.push_back(
        {.field = "dp_replicas",
         .value = f.dp_replicas,
         .source = "--dp-replicas: HSDP, ZeRO shards within each of that many groups of DP "
                   "ranks and the groups all-reduce each gradient shard (FSDP2's HSDP, "
                   "Megatron-Core's distributed optimizer instances)",
         .from_flag = true});
  }
  in.options.experts.dispatcher =
      parse_token_dispatcher(f.moe_token_dispatcher, "--moe-token-dispatcher");
  in.options.experts.overlap_comm = f.overlap_moe_comm;
  in.options.experts.load.load_imbalance =
      parse_fraction(f.moe_load_imbalance, "--moe-load-imbalance", "a number >= 1 such as 1.2");
  if (!f.moe_capacity_factor.empty()) {
    const double c =
        parse_fraction(f.moe_capacity_factor, "--moe-expert-capacity-factor", "a number > 0");
    if (!(c > 0.0)) {
      throw invalid_spec("--moe-expert-capacity-factor",
                         f.moe_capacity_factor +
                             " is not positive; give a factor such as 1.0, "
                             "or leave it out for dropless routing");
    }
    in.options.experts.load.capacity_factor = c;
  }
  in.options.experts.graphs =
      to_cuda_graphs(f, report.model.spec, in.options.experts, par.recompute);
  if (captures(in.options.experts.graphs)) {
    const auto& g = in.options.experts.graphs;
    report.stack.settings.push_back(
        {.field = "cuda_graphs",
         .value = std::string(to_string(g.impl)) +
                  (g.impl == cuda_graph_impl::full_iteration
                       ? ""
                       : " " + (g.scopes == 0 ? std::string("layer")
                                              : cuda_graph_scopes_to_string(g.scopes))),
         .source = fmt::format("--cuda-graph-impl/--cuda-graph-scope: read and checked as "
                               "Megatron-Core checks them, not costed: the MoE host time stays "
                               "{:.2f} ms per pass (docs/moe.md)",
                               moe_host_time_per_pass_s * 1e3),
         .from_flag = true});
  }
  // The expert layout itself (EP, ETP, the folded groups) is checked by the core's
  // validate_experts when the step is evaluated; error_message names its fields as flags.
  require_experts_for(report.model.spec, f.overlap_moe_comm, "--overlap-moe-expert-parallel-comm");
  require_experts_for(report.model.spec, !f.moe_capacity_factor.empty(),
                      "--moe-expert-capacity-factor");
  in.precision.options = to_precision_options(f.software, f.hardware);
  // The step says whose η price its kernels: the linear GEMMs' rate's source.
  const auto rate = linear_rate(in.precision.options);
  note_kernel_efficiency(
      report.stack,
      rate == tensor_rate::bf16 || hw.gpu == nullptr
          ? report.hardware.efficiency_source
          : default_efficiency(hw.gpu->name, hw.gpu->arch, rate, report.stack.kernels).source);
  par.cp = cp.cp;
  in.options.cp = {.comm = cp.comm, .a2a_size = cp.a2a_size, .causal = cp.causal};
  if (cp.cp > 1 || changes_step(in.precision.options)) {
    // The long-context step: validated here first so that the error names the flag.
    validate(report.model.spec);
    validate(cp, report.model.spec, par.tp, in.topology.gpus_per_node, "--cp");
    in.precision = with_attention_override(
        precision_device_for(*hw.gpu, in.precision.options, "--precision", report.stack.kernels),
        f.hardware.attention_efficiency.empty() ? 0.0 : in.gpu.efficiency.attention);
  }
  report.result = evaluate_step(in);
  return report;
}

void add_step_flags(CLI::App& cmd, step_flags& f) {
  add_model_flags(cmd, f.model, false);
  add_hardware_flags(cmd, f.hardware);
  auto* layout = cmd.add_option_group("Layout");
  add_flag(*layout, "--gpus", f.gpus);
  add_flag(*layout, "--tp", f.tp);
  add_flag(*layout, "--pp", f.pp);
  add_flag(*layout, "--dp", f.dp);
  add_flag(*layout, "--cp", f.cp)->capture_default_str();
  add_flag(*layout, "--cp-comm-type", f.cp_comm_type)->capture_default_str();
  add_flag(*layout, "--hierarchical-cp-sizes", f.hierarchical_cp_sizes);
  add_flag(*layout, "--ep", f.ep)->capture_default_str();
  add_flag(*layout, "--etp", f.etp)->capture_default_str();
  add_flag(*layout, "--moe-token-dispatcher", f.moe_token_dispatcher)->capture_default_str();
  add_flag(*layout, "--overlap-moe-expert-parallel-comm", f.overlap_moe_comm);
  add_flag(*layout, "--moe-load-imbalance", f.moe_load_imbalance)->capture_default_str();
  add_flag(*layout, "--moe-expert-capacity-factor", f.moe_capacity_factor);
  add_flag(*layout, "--cuda-graph-impl", f.cuda_graph_impl)->capture_default_str();
  add_flag(*layout, "--cuda-graph-scope", f.cuda_graph_scope);
  add_flag(*layout, "--vpp", f.vpp)->capture_default_str();
  add_flag(*layout, "--micro-batch", f.micro_batch)->capture_default_str();
  add_flag(*layout, "--global-batch", f.global_batch);
  add_flag(*layout, "--sp", f.sp);
  add_flag(*layout, "--no-sp", f.no_sp);
  add_flag(*layout, "--recompute", f.recompute)->capture_default_str();
  add_flag(*layout, "--recompute-modules", f.recompute_modules);
  add_flag(*layout, "--recompute-method", f.recompute_method);
  add_flag(*layout, "--recompute-num-layers", f.recompute_num_layers);
  add_flag(*layout, "--cpu-offloading-num-layers", f.cpu_offloading_num_layers);
  add_flag(*layout, "--fine-grained-activation-offloading", f.fine_grained_offloading);
  add_flag(*layout, "--offload-modules", f.offload_modules);
  add_flag(*layout, "--zero", f.zero);
  add_flag(*layout, "--dp-replicas", f.dp_replicas);
  add_flag(*layout, "--pp-layout", f.pp_layout);
  add_flag(*layout, "--account-for-embedding-in-pipeline-split", f.embedding_in_split);
  add_flag(*layout, "--account-for-loss-in-pipeline-split", f.loss_in_split);
  add_software_flags(*layout, f.software);
  add_precision_flags(*layout, f.software);
}

}  // namespace tpcost::cli
