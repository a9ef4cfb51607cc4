// Prints the kernel model of step/compute_model.hpp beside SimuMax's B200 kernel timings
// (simumax_b200_kernels.json; docs/precision.md "Kernels by shape"): each dense GEMM, grouped
// GEMM and fused attention call at the B200 preset's BF16 peak, HBM bandwidth and fitted η
// (efficiency.hpp), against the time the measured efficiency gives. Nothing is fitted here: it
// shows where one η per GPU and rate is wrong by shape, the evidence a shape model needs.
// `--rows` prints every kernel; the default prints the summaries by kernel class.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "error_summary.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/step/long_context.hpp"
#include "tpcost/step/stages.hpp"

namespace {

using namespace tpcost;

/// The weight-gradient GEMM's epilogue adding into `main_grad` of `grad_bytes` per element
/// beyond the 16-bit gradient the roofline writes, as the step prices the fused accumulation
/// (stages.hpp accumulation_bytes_per_param).
seconds main_grad_epilogue(double elements, double grad_bytes, const compute_device& gpu) {
  return memory_bound_time(accumulation_bytes_per_param(true, grad_bytes) * elements * units::B,
                           gpu);
}

struct kernel_class {
  test::error_summary errors;
  double signed_sum = 0.0;
  void add(double e) {
    errors.add(e);
    signed_sum += e;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const bool rows = argc > 1 && std::string_view(argv[1]) == "--rows";
  std::ifstream in(std::string(TPCOST_REFERENCE_DIR) + "/simumax_b200_kernels.json");
  const auto doc = nlohmann::json::parse(in);
  const auto* b200 = find_gpu_preset("B200");
  if (b200 == nullptr) {
    std::fprintf(stderr, "no B200 preset\n");
    return 1;
  }
  const compute_device gpu = bf16_device_for(*b200);
  const double peak = doc.at("peak_tflops").get<double>() * 1e12;
  // Error = measured time / model time − 1 (positive: the model is too fast), as the error band.
  std::map<std::string, kernel_class> classes;
  const auto record = [&](const std::string& name, const std::string& label, double measured_s,
                          seconds model) {
    const double error = measured_s / model.value() - 1.0;
    classes[name].add(error);
    if (rows) {
      std::printf("%-13s %-58s %10.1f %10.1f %+7.1f%%\n", name.c_str(), label.c_str(),
                  measured_s * 1e6, model.value() * 1e6, 100.0 * error);
    }
  };
  if (rows) {
    std::printf("%-13s %-58s %10s %10s %8s\n", "class", "kernel", "meas. us", "model us", "error");
  }
  for (const auto& g : doc.at("dense")) {
    const double m = g.at("m"), n = g.at("n"), k = g.at("k");
    const std::string layout = g.at("layout");
    const bool accumulate = g.at("accumulate");
    const double measured = 2.0 * m * n * k / (g.at("efficiency").get<double>() * peak);
    seconds model = matmul_time(m, n, k, 1.0, 2.0, gpu);
    if (accumulate) {
      model += main_grad_epilogue(m * n, g.at("out_dtype") == "fp32" ? 4.0 : 2.0, gpu);
    }
    // Thin: a side of the output or the reduction at most 2,560 (a TP shard at t = 4-8 of
    // Llama-3 70B), the others at least 4,096.
    const bool thin = std::min({m, n, k}) <= 2560.0;
    const std::string name = std::string(layout == "TN"   ? "fwd"
                                         : layout == "NN" ? "dgrad"
                                                          : "wgrad") +
                             (thin ? " thin" : " wide");
    char label[96];
    std::snprintf(label, sizeof label, "m %6.0f n %6.0f k %6.0f %s%s", m, n, k, layout.c_str(),
                  accumulate ? " +main_grad" : "");
    record(name, label, measured, model);
  }
  for (const auto& g : doc.at("grouped")) {
    const double e = g.at("groups"), m = g.at("m"), n = g.at("n"), k = g.at("k");
    const std::string stage = g.at("stage");
    const double measured = 2.0 * m * n * k * e / (g.at("efficiency").get<double>() * peak);
    // compute_model.hpp's grouped GEMM: E matmuls at the roofline of their own shape; the
    // weight gradient (k × n over the m tokens) adds into an fp32 main_grad.
    seconds model{};
    if (stage == "fwd") {
      model = matmul_time(m, n, k, e, 2.0, gpu);
    } else if (stage == "bwd_grad_act") {
      model = matmul_time(m, k, n, e, 2.0, gpu);
    } else {
      model = matmul_time(k, n, m, e, 2.0, gpu) + main_grad_epilogue(n * k * e, 4.0, gpu);
    }
    char label[96];
    std::snprintf(label, sizeof label, "%3.0f experts x m %5.0f n %5.0f k %5.0f %s", e, m, n, k,
                  stage.c_str());
    record(stage == "fwd"            ? "grouped fwd"
           : stage == "bwd_grad_act" ? "grouped dgrad"
                                     : "grouped wgrad",
           label, measured, model);
  }
  for (const auto& a : doc.at("attention")) {
    const double s = a.at("seq"), b = a.at("batch");
    const double heads = std::max(a.at("heads").get<double>(), a.at("kv_heads").get<double>());
    const double d = a.at("qk_head_dim").get<double>() + a.at("v_head_dim").get<double>();
    // SimuMax's FLOPs: the full s×s, 2·b·s²·heads·(d_qk + d_v) forward, 5/2 of it backward;
    // fused_attention_forward_time takes the same full count and runs its causal half.
    const double full = 2.0 * b * s * s * heads * d;
    const seconds fwd = fused_attention_forward_time(full * units::FLOP, gpu);
    char label[96];
    std::snprintf(label, sizeof label, "s %5.0f heads %3.0f/%3.0f d %3.0f", s,
                  a.at("heads").get<double>(), a.at("kv_heads").get<double>(), d);
    record("attn fwd", label, full / (a.at("forward").get<double>() * peak), fwd);
    record("attn bwd", label, 2.5 * full / (a.at("backward").get<double>() * peak),
           fused_attention_backward_factor * fwd);
  }
  std::printf("%-16s %6s %12s %12s %12s\n", "class", "kernels", "mean |error|", "worst", "mean");
  for (const auto& [name, c] : classes) {
    std::printf("%-16s %6d %11.1f%% %11.1f%% %+11.1f%%\n", name.c_str(), c.errors.n,
                100.0 * c.errors.mean(), 100.0 * c.errors.worst, 100.0 * c.signed_sum / c.errors.n);
  }
  std::printf("B200 BF16: eta_mm %.3f, eta_bw %.2f, eta_attn %.2f (efficiency.hpp)\n",
              gpu.efficiency.matmul, gpu.efficiency.memory, gpu.efficiency.attention);
  return 0;
}
