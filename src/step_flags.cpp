#include "step_flags.hpp"

#include "short_flags.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost::cli {

namespace {

/// Fills t, p or d from --gpus when one of them is missing; checks t·p·d = N.
void resolve_degrees(const step_flags& f, parallel_config& par) {
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
    if (par.tp * par.pp * par.dp != n) {
      throw invalid_spec("--gpus", "t*p*d = " + std::to_string(par.tp) + "*" +
                                       std::to_string(par.pp) + "*" + std::to_string(par.dp) +
                                       " = " + std::to_string(par.tp * par.pp * par.dp) +
                                       " is not N = " + std::to_string(n));
    }
    return;
  }
  if (par.tp < 1 || par.pp < 1 || n % (par.tp * par.pp) != 0) {
    throw invalid_spec("--gpus", std::to_string(n) + " GPUs are not a multiple of t*p = " +
                                     std::to_string(par.tp * par.pp) +
                                     "; choose t and p whose product divides N");
  }
  par.dp = n / (par.tp * par.pp);
}

}  // namespace

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
  resolve_degrees(f, par);
  par.vpp = parse_count(f.vpp, "--vpp");
  par.micro_batch = parse_count(f.micro_batch, "--micro-batch");
  if (f.global_batch.empty()) {
    throw invalid_spec("--global-batch", "is required: the sequences per step, e.g. 1536");
  }
  par.global_batch = parse_count(f.global_batch, "--global-batch");
  par.sequence_parallel = f.sp;
  par.recompute = parse_recompute(f.recompute, "--recompute");
  par.zero = parse_zero_stage(f.zero, "--zero");
  in.options = to_step_options(f.software);
  report.result = evaluate_step(in);
  return report;
}

void add_step_flags(CLI::App& cmd, step_flags& f) {
  add_model_flags(cmd, f.model, false);
  add_hardware_flags(cmd, f.hardware);
  auto* layout = cmd.add_option_group("Layout");
  layout->add_option(flag_names("--gpus"), f.gpus,
                     "N: total GPUs; the missing one of --tp/--pp/--dp is N/(the others)");
  layout->add_option("-t,--tp", f.tp, "t: tensor-parallel degree (default 1)");
  layout->add_option(flag_names("--pp"), f.pp, "p: pipeline stages (default 1)");
  layout->add_option("--dp", f.dp, "d: data-parallel replicas (default N/(t*p), or 1)");
  layout->add_option("--vpp", f.vpp, "v: interleaved model chunks per GPU")->capture_default_str();
  layout->add_option("-b,--micro-batch,--batch", f.micro_batch, "b: sequences per micro-batch")
      ->capture_default_str();
  layout->add_option("-G,--global-batch", f.global_batch, "G: sequences per step (required)");
  layout->add_flag("--sp", f.sp, "sequence parallelism (Megatron-SP)");
  layout->add_option("--recompute", f.recompute, "activation recomputation: none|selective|full")
      ->capture_default_str();
  layout->add_option("--zero", f.zero, "ZeRO stage 0..3 (distributed optimizer)")
      ->capture_default_str();
  add_software_flags(*layout, f.software);
}

}  // namespace tpcost::cli
