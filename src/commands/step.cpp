// `tpcost step`: one whole training step across TP x PP x DP, from a model, a GPU, an
// interconnect and a layout.
#include <cmath>
#include <memory>

#include "cli_options.hpp"
#include "commands/commands.hpp"
#include "config_overlay.hpp"
#include "model_options.hpp"
#include "render_step.hpp"
#include "step_options.hpp"
#include "tpcost/parse.hpp"
#include "tpcost/presets.hpp"
#include "tpcost/step.hpp"

namespace tpcost::cli {

namespace {

struct step_flags {
  model_flags model;
  hardware_flags hardware;
  std::string gpus, tp, pp, dp;
  std::string micro_batch = "1";
  std::string global_batch;
  std::string vpp = "1";
  std::string recompute = "none";
  std::string zero = "0";
  bool sp = false;
  software_flags software;
  output_flags output;
  config_flags config;
};

std::int64_t count_flag(const std::string& text, const char* flag) {
  return parse_count(text, flag);
}

/// Fills t, p or d from --gpus when one of them is missing; checks t·p·d = N.
void resolve_degrees(const step_flags& f, parallel_config& par) {
  const bool has_t = !f.tp.empty();
  const bool has_p = !f.pp.empty();
  const bool has_d = !f.dp.empty();
  par.tp = has_t ? count_flag(f.tp, "--tp") : 1;
  par.pp = has_p ? count_flag(f.pp, "--pp") : 1;
  if (f.gpus.empty()) {
    par.dp = has_d ? count_flag(f.dp, "--dp") : 1;
    return;
  }
  const auto n = count_flag(f.gpus, "--gpus");
  if (n < 1) {
    throw invalid_spec("--gpus", std::to_string(n) + " is out of range; expected N >= 1");
  }
  if (has_d) {
    par.dp = count_flag(f.dp, "--dp");
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

step_report build(const step_flags& f) {
  step_report report;
  report.model = to_model(f.model);
  step_inputs& in = report.inputs;
  in.model = report.model.spec;

  // Hardware: the presets, then the explicit overrides.
  const auto hw = to_hardware(f.hardware);
  report.gpu = hw.gpu;
  report.interconnect = hw.interconnect;
  report.intra_from_profile = hw.intra_from_profile;
  in.gpu = hw.device;
  in.memory_capacity = hw.memory_capacity;
  in.topology = hw.topology;

  // Layout.
  parallel_config& par = in.par;
  resolve_degrees(f, par);
  par.vpp = count_flag(f.vpp, "--vpp");
  par.micro_batch = count_flag(f.micro_batch, "--micro-batch");
  if (f.global_batch.empty()) {
    throw invalid_spec("--global-batch", "is required: the sequences per step, e.g. 1536");
  }
  par.global_batch = count_flag(f.global_batch, "--global-batch");
  par.sequence_parallel = f.sp;
  par.recompute = parse_recompute(f.recompute, "--recompute");
  par.zero = parse_zero_stage(f.zero, "--zero");
  in.options = to_step_options(f.software);
  report.result = evaluate_step(in);
  return report;
}

void run_step(const step_flags& f) {
  const auto format = parse_output_format(f.output.format, "table|json");
  emit(f.output, render_step(build(f), format));
}

}  // namespace

void add_step_command(CLI::App& app) {
  auto f = std::make_shared<step_flags>();
  auto* cmd = app.add_subcommand(
      "step", "One whole training step across TP x PP x DP: time, breakdown, MFU, memory");
  add_model_flags(*cmd, f->model, false);
  add_hardware_flags(*cmd, f->hardware);
  auto* layout = cmd->add_option_group("Layout");
  layout->add_option("--gpus", f->gpus,
                     "N: total GPUs; the missing one of --tp/--pp/--dp is N/(the others)");
  layout->add_option("-t,--tp", f->tp, "t: tensor-parallel degree (default 1)");
  layout->add_option("--pp", f->pp, "p: pipeline stages (default 1)");
  layout->add_option("--dp", f->dp, "d: data-parallel replicas (default N/(t*p), or 1)");
  layout->add_option("--vpp", f->vpp, "v: interleaved model chunks per GPU")->capture_default_str();
  layout->add_option("-b,--micro-batch,--batch", f->micro_batch, "b: sequences per micro-batch")
      ->capture_default_str();
  layout->add_option("-G,--global-batch", f->global_batch, "G: sequences per step (required)");
  layout->add_flag("--sp", f->sp, "sequence parallelism (Megatron-SP)");
  layout->add_option("--recompute", f->recompute, "activation recomputation: none|selective|full")
      ->capture_default_str();
  layout->add_option("--zero", f->zero, "ZeRO stage 0..3 (distributed optimizer)")
      ->capture_default_str();
  add_software_flags(*layout, f->software);
  add_output_flags(*cmd, f->output, "table|json");
  cmd->footer(R"(Examples:
  tpcost step --model gpt3-175b --gpu a100-sxm4-80gb --interconnect ib-hdr --gpus 1024 \
              --tp 8 --pp 16 --micro-batch 1 --global-batch 1536 --recompute full
  tpcost step --model llama-3-70b --gpu h100-sxm --interconnect ib-ndr --gpus 512 --tp 8 \
              --pp 4 --global-batch 1024 --sp --recompute selective --format json
)");
  add_config_flags(*cmd, f->config);
  cmd->callback([cmd, f] { run_with_config(*cmd, f->config, [&] { run_step(*f); }); });
}

}  // namespace tpcost::cli
