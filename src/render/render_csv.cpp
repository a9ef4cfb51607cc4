#include "render/render_csv.hpp"

#include <fmt/format.h>

#include "tpcost/model/flops.hpp"
#include "tpcost/model/model_presets.hpp"

namespace tpcost::cli {

namespace {

/// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    return std::string(text);
  }
  std::string out = "\"";
  for (const char c : text) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

constexpr std::string_view layout_header =
    "tp,pp,dp,vpp,micro_batch,global_batch,sp,recompute,zero,step_s,compute_s,tp_comm_s,"
    "bubble_s,p2p_s,dp_comm_s,optimizer_s,tokens_per_s,mfu,hfu,peak_memory_bytes,"
    "memory_headroom_bytes,fits,cp,cp_comm_exposed_s,cp_comm_type,cp_comm_hidden_s,precision,"
    "mfu_precision_peak,mfu_precision_peak_rate";

/// The CP and precision columns that close a row (the long-context step's, docs/precision.md):
/// `mfu` before them is the BF16-peak MFU, `mfu_precision_peak` the one against the peak of the
/// run's own linear precision, named by `mfu_precision_peak_rate`.
struct long_context_columns {
  std::int64_t cp = 1;
  std::string_view comm_type = "none";  ///< cp = 1: no exchange
  seconds exposed{}, hidden{};
  std::string_view precision = "bf16";
  double mfu_precision_peak = 0.0;
  std::string_view rate = "bf16";
};

long_context_columns columns_of(std::int64_t cp, cp_comm_type comm,
                                const precision_options& precision, const step_result& r) {
  long_context_columns c{.cp = cp,
                         .comm_type = cp > 1 ? to_string(comm) : "none",
                         .precision = to_string(precision.linear),
                         .mfu_precision_peak = r.mfu};
  if (r.long_context.added) {
    c.exposed = r.long_context.cp_exposed;
    c.hidden = r.long_context.cp_hidden;
    c.mfu_precision_peak = r.peak_utilisation.mfu_precision_peak;
    c.rate = to_string(r.peak_utilisation.precision_peak);
  }
  return c;
}

/// The columns plan's CSV appends after the layout row's, so that a row carries every dimension
/// of the layout: the expert degrees, the micro-batches, the end stages' layers (0: the even
/// split), whether the embedding and the loss count in the split, the layout in the syntax
/// of `plan --compare`, the MoE token dispatcher (empty for a dense model), and full
/// recomputation's method and layers per model chunk (empty for the other modes).
constexpr std::string_view plan_columns_header =
    ",ep,etp,micro_batches,first_stage_layers,last_stage_layers,embedding_in_split,loss_in_split,"
    "layout,dispatcher,recompute_method,recompute_num_layers";

/// One layout's row, without its line break; the CP and precision columns close it. dp is d, the
/// replicas: N = tp·pp·cp·dp.
std::string layout_row(const parallel_config& p, const step_result& r,
                       const long_context_columns& c) {
  const auto& t = r.time;
  return fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
      p.tp, p.pp, p.dp, p.vpp, p.micro_batch, p.global_batch, p.sequence_parallel ? "on" : "off",
      to_string(p.recompute), static_cast<int>(p.zero), r.step_time.value(), t.compute.value(),
      t.tp_comm.value(), t.bubble.value(), t.p2p.value(), t.dp_comm.value(), t.optimizer.value(),
      r.tokens_per_second, r.mfu, r.hfu, r.memory.peak().total().value(),
      r.memory.headroom().value(), r.memory.fits() ? "yes" : "no", c.cp, c.exposed.value(),
      c.comm_type, c.hidden.value(), c.precision, c.mfu_precision_peak, c.rate);
}

}  // namespace

std::string step_csv(const step_report& report, bool header) {
  std::string out = header ? "model," + std::string(layout_header) + "\n" : "";
  return out + field(model_name(report.model)) + "," +
         layout_row(report.inputs.par, report.result,
                    columns_of(report.inputs.par.cp, report.inputs.options.cp.comm,
                               report.inputs.precision.options, report.result)) +
         "\n";
}

std::string plan_csv(const plan_report& report, bool header) {
  std::string out =
      header ? "rank,model," + std::string(layout_header) + std::string(plan_columns_header) + "\n"
             : "";
  const auto name = field(model_name(report.model));
  // The token dispatcher of an MoE model's layouts; empty for a dense model.
  const std::string dispatcher =
      is_moe(report.request.model.moe)
          ? std::string(to_string(report.request.options.experts.dispatcher))
          : std::string();
  std::size_t rank = 0;
  for (const auto& l : report.result.top) {
    const auto& p = l.candidate.par;
    // Full recomputation's method and layers per model chunk; empty for the other modes.
    const auto recipe = recompute_recipe_of(report.request, l.candidate);
    const bool full = p.recompute == recompute_mode::full;
    out += fmt::format("{},{},", ++rank, name) +
           layout_row(p, l.result,
                      columns_of(l.candidate.par.cp, report.request.options.cp.comm,
                                 report.request.precision.options, l.result)) +
           fmt::format(",{},{},{},{},{},{},{},{},{},{},{}\n", p.ep, p.etp, l.result.micro_batches,
                       p.first_stage_layers, p.last_stage_layers,
                       p.embedding_in_split ? "on" : "off", p.loss_in_split ? "on" : "off",
                       field(describe_layout(p, l.candidate.par.cp, report.choices(l.candidate))),
                       dispatcher, full ? to_string(recipe.method) : "",
                       full ? std::to_string(recipe.num_layers) : "");
  }
  return out;
}

std::string model_list_csv(bool header) {
  std::string out =
      header ? "name,layers,hidden,heads,kv_heads,ffn,vocab,seq,arch,params,published_params\n"
             : "";
  for (const auto& p : model_presets) {
    const auto& s = p.spec;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", field(p.name), s.layers, s.hidden,
                       s.heads, kv_heads_of(s), ffn_of(s), s.vocab, s.seq,
                       to_string(architecture_of(s)), count_params(s).total, p.published_params);
  }
  return out;
}

}  // namespace tpcost::cli
