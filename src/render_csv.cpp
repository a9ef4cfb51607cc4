#include "render_csv.hpp"

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
    "memory_headroom_bytes,fits,cp,cp_comm_exposed_s";

/// One layout's row; `cp` and `cp_exposed` (the exposed CP exchange, which the step time holds
/// beside the other parts) close it. dp is d, the replicas: N = tp·pp·cp·dp.
std::string layout_row(const parallel_config& p, const step_result& r, std::int64_t cp,
                       seconds cp_exposed) {
  const auto& t = r.time;
  return fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", p.tp, p.pp, p.dp,
      p.vpp, p.micro_batch, p.global_batch, p.sequence_parallel ? "on" : "off",
      to_string(p.recompute), static_cast<int>(p.zero), r.step_time.value(), t.compute.value(),
      t.tp_comm.value(), t.bubble.value(), t.p2p.value(), t.dp_comm.value(), t.optimizer.value(),
      r.tokens_per_second, r.mfu, r.hfu, r.memory.peak().total().value(),
      r.memory.headroom().value(), r.memory.fits() ? "yes" : "no", cp, cp_exposed.value());
}

}  // namespace

std::string step_csv(const step_report& report, bool header) {
  std::string out = header ? "model," + std::string(layout_header) + "\n" : "";
  return out + field(model_name(report.model)) + "," +
         layout_row(report.inputs.par, report.result, report.cp.cp,
                    report.long_context ? report.long_context->cp_exposed : seconds{});
}

std::string plan_csv(const plan_report& report, bool header) {
  std::string out = header ? "rank,model," + std::string(layout_header) + "\n" : "";
  const auto name = field(model_name(report.model));
  std::size_t rank = 0;
  for (const auto& l : report.result.top) {
    out += fmt::format("{},{},", ++rank, name) +
           layout_row(l.candidate.par, l.result, l.candidate.cp, cp_terms_of(l).exposed);
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
