// `tpcost plan`: the fastest layout for a model on N GPUs, by exhaustive search; or, with
// --compare, two given layouts side by side.
#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "charts/plan_chart.hpp"
#include "commands/commands.hpp"
#include "commands/plan_emit.hpp"
#include "commands/step_flags.hpp"
#include "options/cli_options.hpp"
#include "options/config_overlay.hpp"
#include "options/flag_options.hpp"
#include "options/model_options.hpp"
#include "options/step_options.hpp"
#include "render/display.hpp"
#include "render/render_csv.hpp"
#include "render/render_plan.hpp"
#include "report/error_band.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/plan/planner.hpp"

namespace tpcost::cli {

namespace {

/// The fewest tokens per CP rank the search proposes by default (see read_inputs).
constexpr std::int64_t min_tokens_per_cp_rank = 8192;

struct plan_flags {
  model_flags model;
  hardware_flags hardware;
  software_flags software;
  std::string gpus, global_batch, max_global_batch;
  std::string top = "5";
  // A layout flag fixes its dimension, spelled as step spells it (--tp, --pp, --micro-batch,
  // --vpp, --zero; the older --fixed-tp and --fixed-pp are aliases); empty: searched.
  std::string max_tp, tp, pp, micro_batch, vpp, zero;
  std::string max_cp, cp, cp_comm_type = "p2p";
  std::string ep;
  std::string etp;
  // How the experts run, as step reads them (step_flags.cpp): every layout is priced with them.
  std::string moe_token_dispatcher = "alltoall";
  bool overlap_moe_comm = false;
  std::string recompute_modules;  ///< what selective layouts rerun; "": core_attn; or auto
  /// How full layouts recompute, as step reads them; --recompute-num-layers auto: the fewest
  /// block layers each layout fits with.
  std::string recompute_method, recompute_num_layers;
  /// Fine-grained activation offloading, as step reads it: fixed for every layout, not searched.
  bool fine_grained_offloading = false;
  std::string offload_modules;
  std::string threads = "0";
  std::string memory_reserve;  ///< empty: default_memory_reserve of the GPU's capacity
  std::vector<std::string> compare;
  std::string error_band;  ///< --error-band FILE
  std::string emit;        ///< --emit megatron|bridge|torchtitan: the winner as a launch config
  output_flags output;
  display_flags display;
  config_flags config;
};

std::int64_t positive(const std::string& text, const char* flag) {
  const auto n = parse_count(text, flag);
  if (n < 1 || n > max_parallel_degree) {
    throw invalid_spec(flag, std::to_string(n) +
                                 " is out of range; expected a whole number in 1.." +
                                 std::to_string(max_parallel_degree));
  }
  return n;
}

std::int64_t required(const std::string& text, const char* flag, const char* example) {
  if (text.empty()) {
    throw invalid_spec(flag, std::string("is required: ") + example);
  }
  return positive(text, flag);
}

/// --memory-reserve: a size with its unit ("8GiB") or a share of the GPU's memory ("10%"); a
/// bare number is refused (bytes or GiB? the user must say).
bytes parse_memory_reserve(const std::string& text, bytes capacity) {
  const char* flag = "--memory-reserve";
  if (!text.empty() && text.back() == '%') {
    const double share = parse_fraction(text, flag, "a share of the GPU's memory such as 10%");
    if (!(share >= 0.0 && share < 1.0)) {
      throw invalid_spec(flag, text +
                                   ": a share of the GPU's memory must be at least 0% and "
                                   "less than 100%");
    }
    return capacity * share;
  }
  if (text.empty() || (text.back() != 'B' && text.back() != 'b')) {
    throw invalid_spec(flag, "'" + text +
                                 "' has no unit; give a size such as 8GiB or a share "
                                 "of the GPU's memory such as 10%");
  }
  const bytes reserve = parse_bytes(text, flag);
  try {
    validate_memory_reserve(reserve, capacity);
  } catch (const invalid_spec& e) {
    throw invalid_spec(flag,
                       fmt::format("{}: {} ({:.1f} GiB)", text, e.detail(), capacity / units::GiB));
  }
  return reserve;
}

/// The request the flags describe, and the model and hardware behind it.
struct inputs {
  chosen_model model;
  chosen_hardware hardware;
  plan_request request;
  /// --precision auto: each recipe the GPU runs, in the order searched (empty otherwise).
  std::vector<precision_device> precisions;
  /// --cp-comm-type auto: each CP exchange, in the order searched (empty otherwise).
  std::vector<cp_comm_type> cp_comms;
  /// --moe-token-dispatcher auto: each dispatcher, in the order searched (empty otherwise).
  std::vector<token_dispatcher> dispatchers;
  /// --recompute-modules auto: each module set searched (recompute_module_sets; empty
  /// otherwise).
  std::vector<unsigned> recompute_module_sets;
};

/// --precision auto: the recipes to search, each with the GPU's peak and η for it; those the
/// GPU cannot run are left out by the check step and plan refuse them with (precision_device_for:
/// FP8 needs Hopper or Ada, MXFP8 and NVFP4 Blackwell). BF16 carries no FP8 switch.
std::vector<precision_device> auto_precisions(const gpu_preset& gpu, precision_options given,
                                              kernel_stack kernels) {
  std::vector<precision_device> out;
  for (const auto p :
       {linear_precision::bf16, linear_precision::fp8_delayed, linear_precision::fp8_current,
        linear_precision::fp8_blockwise, linear_precision::mxfp8, linear_precision::nvfp4}) {
    auto opts = given;
    opts.linear = p;
    if (p == linear_precision::bf16) {
      opts.fp8_attention = false;
      opts.fp8_param_gather = false;
    }
    try {
      out.push_back(precision_device_for(gpu, opts, "--precision", kernels));
    } catch (const invalid_spec&) {
      continue;  // not on this GPU
    }
  }
  return out;
}

/// An auto flag is a search; --compare costs two given layouts, whose strings name the value.
void refuse_auto_with_compare(const plan_flags& f, const char* flag, const char* what,
                              const char* key) {
  if (!f.compare.empty()) {
    throw invalid_spec(flag, fmt::format("auto is a search over the {}s; --compare costs two "
                                         "layouts at one: give the {}, or {}VALUE in a layout",
                                         what, what, key));
  }
}

/// --recompute-method and --recompute-num-layers: how the layouts with full recomputation run
/// it, checked as step checks them (a layout's chunk of L/(p*v) layers bounds the layers, the
/// search taking at most that many); auto: the fewest layers of the block method each layout
/// fits with (plan_constraints::least_block_layers).
void read_full_recompute(const plan_flags& f, bool torchtitan, plan_request& req) {
  auto& recipe = req.options.recompute;
  if (!f.recompute_method.empty()) {
    recipe.method = parse_recompute_method(f.recompute_method, "--recompute-method");
  }
  if (f.recompute_num_layers == "auto") {
    refuse_auto_with_compare(f, "--recompute-num-layers", "layer count", "block=");
    if (recipe.method != recompute_method::block && !f.recompute_method.empty()) {
      throw invalid_spec("--recompute-num-layers",
                         "auto searches the block method's layers per model chunk; "
                         "--recompute-method uniform recomputes every layer");
    }
    if (torchtitan) {
      throw invalid_spec("--recompute-num-layers",
                         "auto searches Megatron-Core's block method; torchtitan's full "
                         "activation checkpointing wraps every block alone");
    }
    recipe.method = recompute_method::uniform;  // each layout says its own method and layers
    req.constraints.least_block_layers = true;
  } else if (!f.recompute_num_layers.empty()) {
    const auto n = parse_count(f.recompute_num_layers, "--recompute-num-layers");
    if (n < 1 || n > req.model.layers) {
      throw invalid_spec("--recompute-num-layers",
                         fmt::format("{} is out of range; expected 1..{} (layers per model chunk, "
                                     "at most each layout's L/(p*v)), or auto",
                                     n, req.model.layers));
    }
    recipe.num_layers = n;
  }
}

inputs read_inputs(const plan_flags& f) {
  inputs in;
  in.model = to_model(f.model);
  in.hardware = to_hardware(f.hardware);
  // --precision (or --dtype fp8), as step reads it: every layout is costed at that recipe;
  // auto searches every recipe the GPU runs, one search each.
  const bool auto_precision = f.software.precision == "auto";
  auto software = f.software;
  if (auto_precision) {
    if (parse_dtype(f.hardware.dtype, "--dtype").size_bytes == 1) {
      throw invalid_spec("--precision", "auto searches the recipes over 16-bit weights; --dtype " +
                                            f.hardware.dtype + " fixes FP8: give one of them");
    }
    if (!f.compare.empty()) {
      throw invalid_spec("--precision",
                         "auto is a search over the recipes; --compare costs two layouts at one: "
                         "give the recipe");
    }
    software.precision = "bf16";
  }
  const auto precision = to_precision_options(software, f.hardware);
  auto& req = in.request;
  req.model = in.model.spec;
  // The η of the kernels the stack runs (torchtitan: eager or compiled PyTorch), as step's.
  auto stack = to_stack_choice(f.software, f.hardware);
  apply_kernel_efficiency(f.hardware, stack, in.hardware);
  req.gpu = in.hardware.device;
  req.memory_capacity = in.hardware.memory_capacity;
  req.memory_reserve = f.memory_reserve.empty()
                           ? default_memory_reserve(req.memory_capacity)
                           : parse_memory_reserve(f.memory_reserve, req.memory_capacity);
  req.topology = in.hardware.topology;
  req.options = stack.options;
  req.gpus = required(f.gpus, "--gpus", "the number of GPUs, e.g. 512");
  if (!f.max_global_batch.empty()) {
    if (!f.global_batch.empty()) {
      throw invalid_spec("--max-global-batch",
                         "give --global-batch (G exactly) or --max-global-batch (G at most), not "
                         "both");
    }
    req.global_batch = positive(f.max_global_batch, "--max-global-batch");
    req.batch_is_maximum = true;
  } else {
    req.global_batch =
        required(f.global_batch, "--global-batch", "the sequences per step, e.g. 1536");
  }
  req.top = static_cast<std::size_t>(positive(f.top, "--top"));
  if (!f.max_tp.empty()) {
    req.constraints.max_tp = positive(f.max_tp, "--max-tp");
  }
  if (!f.tp.empty()) {
    req.constraints.fixed_tp = positive(f.tp, "--tp");
  }
  if (!f.pp.empty()) {
    req.constraints.fixed_pp = positive(f.pp, "--pp");
  }
  if (!f.micro_batch.empty()) {
    req.constraints.fixed_micro_batch = positive(f.micro_batch, "--micro-batch");
  }
  if (!f.vpp.empty()) {
    req.constraints.fixed_vpp = positive(f.vpp, "--vpp");
  }
  if (!f.zero.empty()) {
    req.constraints.fixed_zero = static_cast<int>(parse_zero_stage(f.zero, "--zero"));
  }
  // Default: CP down to 8,192 tokens per rank, the shortest among published CP runs (Llama 3's
  // long-context stage, CP 16 at 131,072 tokens, arXiv:2407.21783 Sec. 3.3.2; the NeMo and
  // torchtitan rows of the development set keep 16k-64k per rank). Shorter chunks run the
  // attention kernel below the efficiency the model assumes, which it does not price, so the
  // search does not propose them unless asked (--max-cp).
  req.constraints.max_cp = f.max_cp.empty()
                               ? std::max<std::int64_t>(1, req.model.seq / min_tokens_per_cp_rank)
                               : positive(f.max_cp, "--max-cp");
  if (!f.cp.empty()) {
    req.constraints.fixed_cp = positive(f.cp, "--cp");
  }
  // auto: one search per value (Megatron's default first, so that a tie keeps it), as
  // --precision auto searches the recipes; with --emit, only the values the format writes.
  // torchtitan (--stack fsdp2, or a torchtitan file to write) runs fewer of them.
  const bool torchtitan = req.options.stack == software_stack::fsdp2 ||
                          (!f.emit.empty() && parse_emit_format(f.emit) == emit_format::torchtitan);
  if (f.cp_comm_type == "auto") {
    refuse_auto_with_compare(f, "--cp-comm-type", "exchange", "cp_comm=");
    if (req.constraints.max_cp <= 1 && req.constraints.fixed_cp <= 1) {
      throw invalid_spec("--cp-comm-type",
                         "auto searches the CP exchanges, but no cp > 1 is searched (--max-cp "
                         "or --cp, with s = " +
                             std::to_string(req.model.seq) + " tokens)");
    }
    // torchtitan v0.2.2 rotates K,V by all-gather or all-to-all only (the ring is p2p).
    in.cp_comms = torchtitan ? std::vector{cp_comm_type::p2p, cp_comm_type::all_gather}
                             : std::vector{cp_comm_type::p2p, cp_comm_type::all_gather,
                                           cp_comm_type::a2a, cp_comm_type::a2a_p2p};
  } else {
    req.options.cp.comm = parse_cp_comm_type(f.cp_comm_type, "--cp-comm-type");
  }
  if (f.moe_token_dispatcher == "auto") {
    refuse_auto_with_compare(f, "--moe-token-dispatcher", "dispatcher", "dispatcher=");
    require_experts_for(req.model, true, "--moe-token-dispatcher auto");
    // torchtitan's MoE dispatches with all-to-alls only (plan_emit.cpp says why).
    in.dispatchers = torchtitan
                         ? std::vector{token_dispatcher::all_to_all}
                         : std::vector{token_dispatcher::all_to_all, token_dispatcher::deep_ep,
                                       token_dispatcher::all_gather};
  } else {
    req.options.experts.dispatcher =
        parse_token_dispatcher(f.moe_token_dispatcher, "--moe-token-dispatcher");
  }
  req.options.experts.overlap_comm = f.overlap_moe_comm;
  require_experts_for(req.model, f.overlap_moe_comm, "--overlap-moe-expert-parallel-comm");
  // What selective layouts rerun, as step reads --recompute-modules; auto: every set of the
  // modules the model has, each set's selective layouts searched in the pass of the layouts
  // without selective recomputation (plan_module_sets).
  if (f.recompute_modules == "auto") {
    refuse_auto_with_compare(f, "--recompute-modules", "module set", "modules=");
    (void)recompute_modules_for("core_attn", req.model, req.options.selective);  // the stack
    in.recompute_module_sets = recompute_module_sets(req.model);
  } else if (!f.recompute_modules.empty()) {
    req.options.recompute.modules =
        recompute_modules_for(f.recompute_modules, req.model, req.options.selective);
  }
  read_full_recompute(f, torchtitan, req);
  req.options.recompute.offload_modules =
      offload_modules_for(f.fine_grained_offloading, f.offload_modules, "", req.options.selective);
  if (!f.ep.empty()) {
    req.constraints.fixed_ep = positive(f.ep, "--ep");
  }
  if (!f.etp.empty()) {
    req.constraints.fixed_etp = positive(f.etp, "--etp");
  }
  // The attention kernel's η of the GPU generation, as step's long-context model uses it.
  if (in.hardware.gpu != nullptr) {
    req.precision = precision_device_for(*in.hardware.gpu, precision, "--precision", stack.kernels);
    if (auto_precision) {
      in.precisions = auto_precisions(*in.hardware.gpu, precision, stack.kernels);
      if (!f.emit.empty()) {  // only the recipes the file can carry as plan priced them
        const auto format = parse_emit_format(f.emit);
        std::erase_if(in.precisions, [&](const precision_device& d) {
          return !emit_writes(format, d.options, f.hardware.dtype);
        });
      }
    }
  } else if (auto_precision) {
    throw invalid_spec("--precision", "auto needs a GPU preset (--gpu) to know its recipes");
  }
  const auto threads = parse_count(f.threads, "--threads");
  if (threads < 0 || threads > 4096) {  // -1 would wrap to 4,294,967,295 threads
    throw invalid_spec("--threads", std::to_string(threads) + " is out of range; expected 0..4096");
  }
  req.threads = static_cast<unsigned>(threads);
  return in;
}

std::string run_compare(const plan_flags& f, inputs in, output_format format) {
  compare_report r;
  std::array<layout_choices, 2> effective;  // each layout's exchange and dispatcher, as costed
  r.model = std::move(in.model);
  r.hardware = std::move(in.hardware);
  r.request = in.request;
  for (std::size_t i = 0; i < 2; ++i) {
    r.given[i] = f.compare[i];
    const auto layout =
        parse_plan_layout(f.compare[i], "--compare", r.request.gpus, r.request.global_batch);
    r.layouts[i] = layout.par;
    r.choices[i] = layout.choices;
    const auto own = request_for(r.request, layout.choices);
    const auto& recipe = own.options.recompute;
    const bool full_recipe =
        layout.par.recompute == recompute_mode::full && !recipe.full_is_default();
    effective[i] = {.cp_comm = own.options.cp.comm,
                    .dispatcher = own.options.experts.dispatcher,
                    .recompute_modules = layout.par.recompute == recompute_mode::selective
                                             ? std::optional{recipe.modules}
                                             : std::nullopt,
                    .full_method = full_recipe ? std::optional{recipe.method} : std::nullopt,
                    .full_layers = recipe.num_layers};
    try {
      if (layout.choices.dispatcher) {
        require_experts_for(own.model, true, "dispatcher=");
      }
      plan_candidate c;
      c.par = layout.par;
      if (c.par.cp > 1) {  // the errors step gives: 2*cp chunks, a2a's head split, the kernel
        validate(own.model);
        validate(context_parallel{.cp = c.par.cp, .comm = own.options.cp.comm}, own.model, c.par.tp,
                 own.topology.gpus_per_node, "cp");
      }
      const auto planned = evaluate_planned(own, c);
      r.results[i] = planned.result;
      r.cp[i] = cp_terms_of(planned);
    } catch (const invalid_spec& e) {
      throw invalid_spec("--compare", "'" + f.compare[i] + "': " + e.detail());
    }
    r.broken[i] = broken_plan_rule(own, r.layouts[i], layout.par.cp);
  }
  if (!f.emit.empty()) {  // the first layout given
    const auto layout =
        parse_plan_layout(f.compare[0], "--compare", r.request.gpus, r.request.global_batch);
    plan_candidate c;
    c.par = layout.par;
    return emit_plan(parse_emit_format(f.emit), request_for(r.request, layout.choices), c,
                     {f.hardware.dtype, f.software});
  }
  r.difference = compare_layouts(r.layouts[0], r.results[0], r.layouts[1], r.results[1], r.cp[0],
                                 r.cp[1], effective[0], effective[1]);
  if (f.display.quiet && format == output_format::table) {
    note_assumption(r.hardware.assumption);  // the report's first line says it
    for (std::size_t i = 0; i < 2; ++i) {    // the layout's line says it otherwise
      note_misfit(r.results[i].memory, r.given[i]);
    }
    return compare_difference_table(r);
  }
  return render_compare(r, format);
}

std::string run_search(inputs in, output_format format, const plan_flags& f) {
  plan_report r;
  r.model = std::move(in.model);
  r.hardware = std::move(in.hardware);
  r.request = in.request;
  const auto start = std::chrono::steady_clock::now();
  // One search per combination of the auto dimensions' values (a dimension given by its flag
  // has the one value); the report is the fastest search's, and each dimension's line gives
  // each value's best over the others. Ties keep the earlier search: bf16, p2p, all-to-all.
  const auto base = r.request;
  const bool auto_precision = !in.precisions.empty();
  const bool auto_comm = !in.cp_comms.empty();
  const bool auto_dispatcher = !in.dispatchers.empty();
  const auto precisions = auto_precision ? in.precisions : std::vector{base.precision};
  const auto comms = auto_comm ? in.cp_comms : std::vector{base.options.cp.comm};
  const auto dispatchers =
      auto_dispatcher ? in.dispatchers : std::vector{base.options.experts.dispatcher};
  const auto values = [](bool searched, const auto& all, const auto& name) {
    std::vector<choice_searched> out;
    for (const auto& v : all) {
      if (searched) {
        choice_searched c;
        c.value = std::string(name(v));
        out.push_back(std::move(c));
      }
    }
    return out;
  };
  r.precisions = values(auto_precision, precisions,
                        [](const precision_device& d) { return to_string(d.options.linear); });
  r.cp_comms = values(auto_comm, comms, [](cp_comm_type c) { return to_string(c); });
  r.dispatchers =
      values(auto_dispatcher, dispatchers, [](token_dispatcher d) { return to_string(d); });
  // The recompute modules: one entry, or with auto the layouts without selective recomputation
  // once, then each module set's selective layouts.
  struct module_entry {
    unsigned modes = 0b111U;
    unsigned modules = 0;
  };
  const bool auto_modules = !in.recompute_module_sets.empty();
  std::vector<module_entry> module_entries{{0b111U, base.options.recompute.modules}};
  if (auto_modules) {
    const auto bit = [](recompute_mode m) { return 1U << static_cast<unsigned>(m); };
    module_entries = {
        {bit(recompute_mode::none) | bit(recompute_mode::full), base.options.recompute.modules}};
    for (const auto set : in.recompute_module_sets) {
      module_entries.push_back({bit(recompute_mode::selective), set});
    }
    r.recompute_modules = values(true, module_entries, [](const module_entry& e) {
      return (e.modes & 0b010U) != 0U ? recompute_modules_to_string(e.modules)
                                      : std::string(no_selective_label);
    });
  }
  // A recipe that costs the same as one searched before it (same_costs: fp8-current beside
  // fp8-delayed) finds the same layouts: its searches are not run again, it takes that one's.
  std::vector<std::size_t> same_as(precisions.size(), precisions.size());
  for (std::size_t pi = 1; auto_precision && pi < precisions.size(); ++pi) {
    for (std::size_t pj = 0; pj < pi && same_as[pi] == precisions.size(); ++pj) {
      if (same_as[pj] == precisions.size() && same_costs(precisions[pi], precisions[pj])) {
        same_as[pi] = pj;
      }
    }
  }
  bool found = false;
  // The winning search's first layout. With auto modules, the module sets' selective layouts are
  // searched in the pass of the layouts without them (plan_module_sets), which gives each set's
  // first layout only: a set that wins is searched again alone at the end for its report.
  std::optional<planned_layout> leader;
  bool search_again = false;
  const auto searches =
      precisions.size() * comms.size() * dispatchers.size() * module_entries.size();
  module_sets_plan by_set;
  double by_set_seconds = 0.0;
  for (std::size_t i = 0; i < searches; ++i) {
    // The index in each dimension, the modules fastest: precision, exchange, dispatcher, set.
    const auto mi = i % module_entries.size();
    const auto di = i / module_entries.size() % dispatchers.size();
    const auto ci = i / (module_entries.size() * dispatchers.size()) % comms.size();
    const auto pi = i / (module_entries.size() * dispatchers.size() * comms.size());
    if (same_as[pi] < precisions.size()) {  // its twin's results stand (after the loop)
      continue;
    }
    auto req = base;
    req.precision = precisions[pi];
    req.options.cp.comm = comms[ci];
    req.options.experts.dispatcher = dispatchers[di];
    req.options.recompute.modules = module_entries[mi].modules;
    req.constraints.recompute_modes = module_entries[mi].modes;
    const auto one = std::chrono::steady_clock::now();
    plan_result result;
    const planned_layout* first = nullptr;
    double seconds = 0.0;
    if (!auto_modules) {
      result = plan(req);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - one).count();
      first = result.top.empty() ? nullptr : &result.top.front();
    } else {
      if (mi == 0) {  // the layouts without selective recomputation, and every set's
        by_set = plan_module_sets(req, in.recompute_module_sets);
        by_set_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - one).count();
        result = std::move(by_set.own);
        first = result.top.empty() ? nullptr : &result.top.front();
      } else if (const auto& best = by_set.best[mi - 1]) {
        first = &*best;
      }
      seconds = by_set_seconds / static_cast<double>(module_entries.size());
    }
    const layout_choices choices{
        .cp_comm = auto_comm ? std::optional{comms[ci]} : std::nullopt,
        .dispatcher = auto_dispatcher ? std::optional{dispatchers[di]} : std::nullopt,
        .recompute_modules =
            auto_modules ? std::optional{module_entries[mi].modules} : std::nullopt,
        .full_method = std::nullopt};
    const auto note = [&](std::vector<choice_searched>& searched, std::size_t at) {
      if (searched.empty()) {
        return;
      }
      auto& v = searched[at];
      v.search_seconds += seconds;
      if (first != nullptr && (!v.best || first->result.step_time < v.best->result.step_time)) {
        v.best = *first;
        v.choices = with_full_recompute(choices, first->candidate);
      }
    };
    note(r.precisions, pi);
    note(r.cp_comms, ci);
    note(r.dispatchers, di);
    note(r.recompute_modules, mi);
    const bool faster =
        first != nullptr && (!found || first->result.step_time < leader->result.step_time);
    if (faster || i == 0) {  // the first search stands until one finds a faster layout
      found = found || faster;
      r.request = req;
      leader = first != nullptr ? std::optional{*first} : std::nullopt;
      search_again = auto_modules && mi > 0;
      if (!search_again) {
        r.result = std::move(result);
      }
    }
  }
  for (std::size_t pi = 0; pi < precisions.size(); ++pi) {
    if (same_as[pi] < precisions.size()) {
      auto& v = r.precisions[pi];
      const auto& twin = r.precisions[same_as[pi]];
      v.best = twin.best;
      v.choices = twin.choices;
      v.costed_as = twin.value;
    }
  }
  if (search_again) {  // a module set won: its own search, as the report shows a search
    r.result = plan(r.request);
  }
  if (!found) {  // nothing fits: what is said of the nearest workable request searches all modes
    r.request.constraints.recompute_modes = 0b111U;
    if (auto_modules) {  // the counts of every layout, not of the first pass's modes alone
      r.result = plan(r.request);
    }
  }
  r.search_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.result.top.empty()) {
    throw invalid_spec("--gpus",
                       no_layout_message(r.request, r.result.counts, nearest_workable(r.request)));
  }
  if (!f.emit.empty()) {
    return emit_winner(parse_emit_format(f.emit), r.request, r.result.top,
                       {f.hardware.dtype, f.software});
  }
  const bool quiet = f.display.quiet && format == output_format::table;
  if (format == output_format::csv || quiet) {
    note_assumption(r.hardware.assumption);  // the report's first line says it
  }
  // Plots are written before the table: if gnuplot fails, stdout stays empty.
  const auto charts = show_figure(f.display, f.output, plan_figure(r.result.top));
  const auto text = format == output_format::csv ? plan_csv(r, true)
                    : quiet                      ? plan_layouts_table(r)
                                                 : render_plan(r, format);
  return charts.empty() ? text : text + "\n" + charts;
}

void run_plan(const plan_flags& f) {
  const auto format = parse_output_format(f.output.format, "table|json|csv");
  if (format == output_format::csv && !f.compare.empty()) {
    throw invalid_spec("--format",
                       "csv lists the layouts of a search; --compare prints table|json");
  }
  validate(f.display, format);
  if (!f.emit.empty()) {
    (void)parse_emit_format(f.emit);  // before the search
  }
  use_error_band_file(f.error_band);
  auto in = read_inputs(f);
  emit(f.output,
       f.compare.empty() ? run_search(std::move(in), format, f)
                         : run_compare(f, std::move(in), format),
       f.display.ascii);
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto f = std::make_shared<plan_flags>();
  auto* cmd = app.add_subcommand(
      "plan", "The fastest TP x PP x DP layout for a model on N GPUs, by exhaustive search");
  add_model_flags(*cmd, f->model, false);
  add_hardware_flags(*cmd, f->hardware);
  auto* search = cmd->add_option_group("Search");
  add_flag(*search, "--gpus", f->gpus);
  add_flag(*search, "--global-batch", f->global_batch);
  add_flag(*search, "--max-global-batch", f->max_global_batch);
  add_flag(*search, "--top", f->top)->capture_default_str();
  add_flag(*search, "--max-tp", f->max_tp);
  add_flag(*search, "--tp", f->tp);
  add_flag(*search, "--pp", f->pp);
  add_flag(*search, "--micro-batch", f->micro_batch);
  add_flag(*search, "--vpp", f->vpp);
  add_flag(*search, "--zero", f->zero);
  add_flag(*search, "--max-cp", f->max_cp);
  add_flag(*search, "--cp", f->cp);
  add_flag(*search, "--cp-comm-type", f->cp_comm_type)->capture_default_str();
  add_flag(*search, "--ep", f->ep);
  add_flag(*search, "--etp", f->etp);
  add_flag(*search, "--moe-token-dispatcher", f->moe_token_dispatcher)->capture_default_str();
  add_flag(*search, "--recompute-modules", f->recompute_modules);
  add_flag(*search, "--recompute-method", f->recompute_method);
  add_flag(*search, "--recompute-num-layers", f->recompute_num_layers);
  add_flag(*search, "--fine-grained-activation-offloading", f->fine_grained_offloading);
  add_flag(*search, "--offload-modules", f->offload_modules);
  add_flag(*search, "--overlap-moe-expert-parallel-comm", f->overlap_moe_comm);
  add_flag(*search, "--memory-reserve", f->memory_reserve);
  add_flag(*search, "--threads", f->threads)->capture_default_str();
  add_flag(*search, "--compare", f->compare)->expected(2);
  add_flag(*search, "--emit", f->emit);
  add_software_flags(*search, f->software);
  add_precision_flags(*search, f->software);
  add_output_flags(*cmd, f->output, "table|json|csv");
  add_display_flags(*cmd, f->display);
  add_error_band_flag(*cmd, f->error_band);
  cmd->footer(
      R"(Searched: every t dividing N and the heads, KV heads and MLP size; every p dividing N/t
and the layers (even stages); every cp dividing N/(t*p) up to --max-cp with s dividing by
2*cp (fused attention); d = N/(t*p*cp) dividing G; for MoE every ep dividing the experts
and every etp dividing the expert FFN, ep*etp dividing t*cp*d (SP on with t > 1);
every micro-batch b dividing G/d;
interleaving v with p*v dividing L; SP on/off; recompute none/selective/full; ZeRO 0-3.
--tp, --pp, --micro-batch, --vpp, --zero (as in step) fix their dimension. Every layout
is costed at --precision (default bf16), time and memory, as step costs that recipe;
--precision auto searches once per recipe the GPU runs and reports the fastest;
--cp-comm-type auto and --moe-token-dispatcher auto do the same for the CP exchange and
the MoE dispatcher, --recompute-modules auto for what selective recomputation reruns
(with several autos, once per combination), and the layout strings name the choice
(cp_comm=, dispatcher=, modules=) so that --compare costs it the same.
--recompute-method and --recompute-num-layers (as in step) set how full layouts recompute;
--recompute-num-layers auto gives each the fewest layers per model chunk of Megatron's
block method that fit (layout string block=N), the others running without recomputation.
Ranked by predicted step time; ties: TP in a node, smaller t, smaller p, larger b, smaller
v, less recompute, SP off, lower ZeRO. A TP group never crosses a slower inter-node link
unless nothing inside a node fits. docs/planner.md has the details.

Examples:
  tpcost plan --model gpt-3-175b --gpu a100-sxm4-80gb --interconnect ib-hdr --gpus 512 \
              --global-batch 1536
  tpcost plan --model gpt-3-175b --gpus 512 --global-batch 1536 \
              --compare "t=16,p=4,recompute=full" "t=8,p=8,recompute=full"
  tpcost plan --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 1024 \
              --global-batch 1024 --max-tp 8 --top 10 --format json
  tpcost plan --model llama-3-8b --gpu h100-sxm --interconnect ib-ndr --gpus 64 \
              --global-batch 64 --seq 131072
  tpcost plan --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 64 \
              --global-batch 128 --stack fsdp2 --emit torchtitan -o llama3-70b.toml
  tpcost step --from llama3-70b.toml --gpu h100-sxm --interconnect ib-ndr
  tpcost plan --model llama-3-70b --gpu b200 --interconnect ib-ndr --gpus 64 \
              --global-batch 128 --precision auto --emit megatron -o llama3-70b.sh
  tpcost plan --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 64 \
              --global-batch 128 --recompute-num-layers auto
)");
  add_config_flags(*cmd, f->config);
  cmd->callback([cmd, f] { run_with_config(*cmd, f->config, [&] { run_plan(*f); }); });
}

}  // namespace tpcost::cli
