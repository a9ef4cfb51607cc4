// Using the core library without the CLI: does GPT-3 175B fit on 80 GiB GPUs at t=8, p=16,
// d=8? Per-GPU memory of the fullest stage for each recomputation mode, with and without SP,
// with the unfused attention of Megatron-LM 2021 (the s x s scores kept for the backward) and
// a fused one (FlashAttention: only a softmax statistic per row).
#include <cstdio>

#include <tpcost/tpcost.hpp>

int main() {
  using namespace tpcost;
  const auto& gpt3 = model_preset_named("gpt-3-175b", "model").spec;
  const auto capacity = 80.0 * units::GiB;
  std::printf("GPT-3 175B, t=8 p=16 d=8, b=1, G=1536 (m=192), mixed-precision Adam, 80 GiB\n");
  std::printf("%-9s %-3s %-9s %9s %9s %9s %9s  %s\n", "recompute", "SP", "attention", "states GB",
              "activ. GB", "total GB", "room GB", "fits");
  for (const bool sp : {false, true}) {
    for (const auto mode :
         {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
      for (const auto attention : {attention_kernel::unfused, attention_kernel::fused}) {
        const parallel_config par{.tp = 8,
                                  .pp = 16,
                                  .dp = 8,
                                  .micro_batch = 1,
                                  .global_batch = 1536,
                                  .sequence_parallel = sp,
                                  .recompute = mode};
        const auto report = memory_per_gpu(gpt3, par, capacity, attention);
        const auto& peak = report.peak();
        std::printf("%-9s %-3s %-9s %9.1f %9.1f %9.1f %9.1f  %s\n", to_string(mode).data(),
                    sp ? "yes" : "no", to_string(attention).data(),
                    peak.model_states().value() / 1e9, peak.activations.value() / 1e9,
                    peak.total().value() / 1e9, report.headroom().value() / 1e9,
                    report.fits() ? "yes" : "no");
      }
    }
  }
  const auto pipe =
      summarize_pipeline(gpt3, {.tp = 8, .pp = 16, .dp = 8, .global_batch = 1536}, 2, false);
  std::printf(
      "pipeline: %lld layers per stage, bubble %.1f%% of the ideal step, %lld p2p "
      "transfers per step of %.1f MB\n",
      static_cast<long long>(pipe.max_layers), pipe.bubble_fraction * 100.0,
      static_cast<long long>(pipe.transfers.per_step), pipe.p2p_message.value() / 1e6);
  return 0;
}
