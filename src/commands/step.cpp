// `tpcost step`: one whole training step across TP x PP x DP, from a model, a GPU, an
// interconnect and a layout.
#include <cmath>
#include <memory>

#include "cli_options.hpp"
#include "commands/commands.hpp"
#include "config_overlay.hpp"
#include "model_options.hpp"
#include "render_step.hpp"
#include "tpcost/io/profile_json.hpp"
#include "tpcost/parse.hpp"
#include "tpcost/presets.hpp"
#include "tpcost/step.hpp"

namespace tpcost::cli {

namespace {

struct step_flags {
  model_flags model;
  std::string gpu = "a100-sxm4-80gb";
  std::string interconnect = "ib-hdr";
  std::string interconnect_file;  ///< a `calibrate --out` profile for the intra-node link
  std::string dtype = "bf16";
  std::string flops, memory, memory_bandwidth;
  std::string gpus_per_node, intra_bandwidth, intra_latency, inter_bandwidth, inter_latency;
  std::string gpus, tp, pp, dp;
  std::string micro_batch = "1";
  std::string global_batch;
  std::string vpp = "1";
  std::string recompute = "none";
  std::string zero = "0";
  bool sp = false;
  std::string tp_overlap = "0";
  std::string dp_overlap = "0";
  std::string matmul_efficiency, memory_efficiency;
  std::string attention = "fused";
  output_flags output;
  config_flags config;
};

std::int64_t count_flag(const std::string& text, const char* flag) {
  return parse_count(text, flag);
}

double fraction_flag(const std::string& text, const char* flag) {
  std::string_view rest;
  const double f = detail::leading_number(flag, text, rest, "a fraction such as 0.5");
  if (!rest.empty() || !(f >= 0.0 && f <= 1.0)) {
    throw invalid_spec(flag, "'" + text + "' is not a fraction in [0, 1]");
  }
  return f;
}

/// The GPU's dense peak for the compute dtype.
flops_per_second peak_for(const gpu_preset& gpu, const dtype& type, const std::string& text) {
  const std::string name = type.name;
  const auto& r = gpu.peak;
  const auto pick = name == "bf16" || name == "bfloat16"                     ? r.bf16.value
                    : name == "fp16" || name == "float16" || name == "half"  ? r.fp16.value
                    : name == "fp8" || name == "e4m3" || name == "e5m2"      ? r.fp8.value
                    : name == "tf32"                                         ? r.tf32.value
                    : name == "fp32" || name == "float32" || name == "float" ? r.fp32.value
                    : name == "fp64" || name == "float64"                    ? r.fp64.value
                                                                             : flops_per_second{};
  if (!(pick.value() > 0.0)) {
    throw invalid_spec("--dtype", "'" + text + "' has no dense peak in the " +
                                      std::string(gpu.name) + " preset; give --flops");
  }
  return pick;
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
  const auto& gpu = gpu_preset_by_name(f.gpu, "--gpu");
  const auto& net = interconnect_preset_by_name(f.interconnect, "--interconnect");
  report.gpu = &gpu;
  report.interconnect = &net;
  const auto type = parse_dtype(f.dtype, "--dtype");
  in.gpu.peak =
      f.flops.empty() ? peak_for(gpu, type, f.dtype) : parse_flop_rate(f.flops, "--flops");
  in.gpu.memory_bandwidth = f.memory_bandwidth.empty()
                                ? gpu.memory_bandwidth.value
                                : parse_bandwidth(f.memory_bandwidth, "--memory-bandwidth");
  in.memory_capacity = f.memory.empty() ? gpu.memory.value : parse_bytes(f.memory, "--memory");
  if (!f.matmul_efficiency.empty()) {
    in.gpu.efficiency.matmul = fraction_flag(f.matmul_efficiency, "--matmul-efficiency");
  }
  if (!f.memory_efficiency.empty()) {
    in.gpu.efficiency.memory = fraction_flag(f.memory_efficiency, "--memory-efficiency");
  }
  in.topology = make_topology(gpu, net);
  if (!f.interconnect_file.empty()) {
    const auto profiles = read_profile_file(f.interconnect_file, "--interconnect-file");
    in.topology.intra = primary_profile(profiles, "--interconnect-file").link;
    report.intra_from_profile = f.interconnect_file;
  }
  if (!f.gpus_per_node.empty()) {
    in.topology.gpus_per_node = count_flag(f.gpus_per_node, "--gpus-per-node");
  }
  if (!f.intra_bandwidth.empty()) {
    in.topology.intra.bandwidth = parse_bandwidth(f.intra_bandwidth, "--intra-bandwidth");
  }
  if (!f.intra_latency.empty()) {
    in.topology.intra.latency = parse_duration(f.intra_latency, "--intra-latency");
  }
  if (!f.inter_bandwidth.empty()) {
    in.topology.inter.bandwidth = parse_bandwidth(f.inter_bandwidth, "--inter-bandwidth");
  }
  if (!f.inter_latency.empty()) {
    in.topology.inter.latency = parse_duration(f.inter_latency, "--inter-latency");
  }

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
  in.options.tp_overlap = fraction_flag(f.tp_overlap, "--tp-overlap");
  in.options.dp_overlap = fraction_flag(f.dp_overlap, "--dp-overlap");
  if (f.attention != "fused" && f.attention != "unfused") {
    throw invalid_spec("--attention", "'" + f.attention + "' is not one of fused|unfused");
  }
  in.options.attention =
      f.attention == "fused" ? attention_kernel::fused : attention_kernel::unfused;
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
  auto* hw = cmd->add_option_group("Hardware (presets, then overrides)");
  hw->add_option("--gpu", f->gpu, "GPU preset (tpcost hardware list)")->capture_default_str();
  hw->add_option("--interconnect", f->interconnect, "inter-node link preset")
      ->capture_default_str();
  hw->add_option("--interconnect-file", f->interconnect_file,
                 "intra-node link from a `tpcost calibrate --out` profile (alpha, beta)");
  hw->add_option("--dtype", f->dtype, "compute dtype: picks the preset's dense peak")
      ->capture_default_str();
  hw->add_option("--flops", f->flops, "per-GPU peak FLOP/s (overrides the preset)");
  hw->add_option("--memory", f->memory, "HBM capacity per GPU, e.g. 80GiB");
  hw->add_option("--memory-bandwidth", f->memory_bandwidth, "HBM bandwidth, e.g. 2039GB/s");
  hw->add_option("--matmul-efficiency", f->matmul_efficiency,
                 "achievable share of peak for large matmuls (default 0.75)");
  hw->add_option("--memory-efficiency", f->memory_efficiency,
                 "achievable share of HBM bandwidth for element-wise kernels (default 0.66)");
  hw->add_option("--gpus-per-node", f->gpus_per_node, "GPUs per node (overrides the preset)");
  hw->add_option("--intra-bandwidth", f->intra_bandwidth, "intra-node link, per direction");
  hw->add_option("--intra-latency", f->intra_latency, "intra-node latency per step");
  hw->add_option("--inter-bandwidth", f->inter_bandwidth, "inter-node link per GPU, per direction");
  hw->add_option("--inter-latency", f->inter_latency, "inter-node latency per step");
  auto* layout = cmd->add_option_group("Layout");
  layout->add_option("--gpus", f->gpus,
                     "N: total GPUs; the missing one of --tp/--pp/--dp is N/(the others)");
  layout->add_option("-t,--tp", f->tp, "t: tensor-parallel degree (default 1)");
  layout->add_option("--pp", f->pp, "p: pipeline stages (default 1)");
  layout->add_option("--dp", f->dp, "d: data-parallel replicas (default N/(t*p), or 1)");
  layout->add_option("--vpp", f->vpp, "v: interleaved model chunks per GPU")->capture_default_str();
  layout->add_option("-b,--micro-batch", f->micro_batch, "b: sequences per micro-batch")
      ->capture_default_str();
  layout->add_option("-G,--global-batch", f->global_batch, "G: sequences per step (required)");
  layout->add_flag("--sp", f->sp, "sequence parallelism (Megatron-SP)");
  layout->add_option("--recompute", f->recompute, "activation recomputation: none|selective|full")
      ->capture_default_str();
  layout->add_option("--zero", f->zero, "ZeRO stage 0..3 (distributed optimizer)")
      ->capture_default_str();
  layout
      ->add_option("--attention", f->attention,
                   "attention kernel: fused (FlashAttention: no s*s scores in HBM) or unfused "
                   "(Megatron-LM 2021, as in the SC21 validation)")
      ->capture_default_str();
  layout->add_option("--tp-overlap", f->tp_overlap, "share of TP comm hidden behind compute")
      ->capture_default_str();
  layout
      ->add_option("--dp-overlap", f->dp_overlap,
                   "share of the DP gradient sync hidden behind the last backward")
      ->capture_default_str();
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
