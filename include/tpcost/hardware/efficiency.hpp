// The fraction of a GPU's datasheet peaks that training software reaches, per GPU model where
// development rows measured that model, else per architecture generation, and tensor-core rate:
// η_mm of the dense tensor-core peak for large matmuls and η_bw of the HBM bandwidth for
// memory-bound kernels, and η_attn of the fused attention kernel (compute_model.hpp uses all three;
// η_attn in fused_attention_forward_time only).
//
// Every entry names where it comes from: a published measurement, a fit on the development
// rows of this project (the leave-one-out error is in docs/precision.md), or, where neither
// exists, the assumption that the generation behaves like the one it is closest to. The
// fitted entries are fitted on development rows only, never on the runs the project is
// judged on.
#pragma once

#include <string_view>

#include "tpcost/hardware/hardware.hpp"

namespace tpcost {

/// η_mm, η_bw and the fused attention kernel's η_attn with their source.
struct sourced_efficiency {
  double matmul = 0.75;     ///< of the dense peak of the rate, large matmuls
  double memory = 0.66;     ///< of the HBM bandwidth, memory-bound kernels
  double attention = 0.50;  ///< η_attn: fused causal attention, of its rate's peak, on the
                            ///< FLOPs the kernel runs (half the s×s scores; compute_model.hpp)
  std::string_view source;
  /// Bytes the element-wise kernels move against the fused kernels compute_model.hpp counts
  /// (1: fused; PyTorch eager's unfused ops move more: kernel_stack below).
  double elementwise_traffic = 1.0;
};

/// The kernels a software stack runs its step with (stack_profiles.hpp names each stack's):
/// the fits below were made on rows of one of them, and hold for that one.
enum class kernel_stack {
  /// Megatron-LM's fused CUDA kernels and Transformer Engine's (cuBLASLt GEMMs, cuDNN or
  /// FlashAttention, fused norms, bias-activation and bias-dropout-add): every fit of the
  /// generation tables was made on rows run with them.
  megatron_fused,
  /// PyTorch eager (torchtitan without torch.compile): aten GEMMs (cuBLAS), SDPA's flash
  /// kernel, and one kernel per op for the norms, RoPE, SwiGLU and residual adds.
  pytorch_eager,
  /// torchtitan with torch.compile (inductor, per TransformerBlock): the same aten GEMMs and
  /// SDPA, the element-wise ops fused into Triton kernels.
  pytorch_compiled,
};

namespace detail::efficiency {
inline constexpr std::string_view a100 =
    "A100 BF16: eta_mm 0.75 calibrated on the 27.2 ms of a 22B layer (Korthikanti et al. 2022, "
    "arXiv:2205.05198, Table 4); eta_bw 0.66 fitted to Narayanan et al. 2021 Table 1; eta_attn "
    "0.50, the bottom of FlashAttention-2's 50-73% of peak on A100 (Dao 2023, arXiv:2307.08691, "
    "abstract: the backward, 2.5x the forward's work, is the slower pass; no A100 "
    "fused-attention development row)";
inline constexpr std::string_view like_a100 =
    "assumption: no published measurement or development row for this generation and rate; "
    "the A100 BF16 values";
// Hopper and Blackwell: η_mm and η_attn fitted together by tests/reference/cp_fp8_fit.cpp on
// development rows only (tests/reference/cp_fp8_dev_rows.json); its leave-one-out table is in
// docs/precision.md. η_attn is of the FLOPs a causal FlashAttention kernel runs, forward and
// backward alike: 0.31 of H100's BF16 peak is ~305 TFLOP/s, where FlashAttention-2 runs on H100
// ("only 35% utilization", Shah et al. 2024, FlashAttention-3, arXiv:2407.08608, abstract), and
// below FlashAttention-3's forward (75%, same abstract), which the rows' stacks did not all run.
inline constexpr std::string_view hopper_bf16 =
    "Hopper BF16: eta_mm 0.710 and eta_attn 0.31 fitted with Hopper FP8's eta_mm and the hidden "
    "TP's contention (0.51) on 25 H100 development rows (8 DGX Cloud Nemotron-4 15B BF16, 8 FP8, "
    "9 NeMo long-sequence Llama-2 7B FP8 at 4k-1M tokens, CP 1-32; "
    "tests/reference/cp_fp8_fit.cpp); leave-one-out error: BF16 rows mean 1.1%, worst 2.4%; "
    "long-sequence rows mean 1.7%, worst 3.5%; eta_bw the A100's 0.66 (not fitted)";
inline constexpr std::string_view hopper_fp8 =
    "Hopper FP8: eta_mm 0.589 fitted with Hopper BF16's eta_mm, eta_attn and the hidden TP's "
    "contention on the same 25 H100 rows (leave-one-out: DGX Cloud FP8 rows mean 1.8%, worst "
    "3.2%); attention BF16 at eta_attn 0.31 (FP8 attention not fitted); eta_bw 0.66";
inline constexpr std::string_view blackwell_fp8 =
    "Blackwell FP8: eta_mm 0.537 and eta_attn 0.408 fitted together on the 6 consistent NeMo "
    "long-sequence Llama-3 8B B200 rows (8k-256k tokens, CP 1-4; their BF16 output layer at "
    "the B200 BF16 fit, the hidden TP's contention at the Hopper fit; leave-one-out mean 1.8%, "
    "worst 3.2%); eta_bw 0.66 (not fitted)";
inline constexpr std::string_view blackwell_fp4 =
    "assumption: no development row for Blackwell at the FP4 rate; eta_mm the Blackwell FP8 "
    "fit (the one GB300 NVFP4 row is within 5.2% of it); eta_attn the Blackwell fit";
// Per GPU model (default_efficiency(name, arch, rate)): B300/GB300 (Blackwell Ultra) have the
// FP8 and BF16 dense peaks of B200/GB200 but run them at 1,100/1,400 W against 1,000/1,200 W,
// and the Megatron-Bridge GB300 rows run 14-18% faster than the Blackwell fit predicts.
inline constexpr std::string_view gb300_fp8 =
    "GB300 FP8: eta_mm 0.678 fitted on the 3 GB300 Megatron-Bridge FP8/MXFP8 development "
    "rows (Llama-3 70B FSDP 64 and PP 4 VPP 5, Llama-3 8B DP 8, with the recipes' bf16 "
    "gradients; tests/reference/round3_fit.cpp; leave-one-out mean 2.2%, worst 3.4%; a fixed "
    "point, as GB300's BF16 logits take their eta from it); eta_attn the Blackwell "
    "fit (Blackwell Ultra's doubled exp throughput is not priced); eta_bw 0.66 (not fitted)";
inline constexpr std::string_view b300_fp8 =
    "assumption: no B300 development row; the GB300 FP8 fit (the same Blackwell Ultra GPU)";
inline constexpr std::string_view blackwell_ultra_bf16 =
    "assumption: no Blackwell Ultra BF16 development row; the GB300 FP8 fit times Blackwell's "
    "fitted BF16/FP8 ratio (0.393/0.537); eta_attn the Blackwell fit";
inline constexpr std::string_view b200_bf16 =
    "B200 BF16: eta_mm 0.393 fitted on the 4 dense SimuMax B200 development rows "
    "(Megatron-LM + TE 2.11, Llama-3 70B cut to 12 layers, TP 1-8, no userbuffer overlap; "
    "tests/reference/round3_fit.cpp; leave-one-out mean 18.4%, worst "
    "35.9% (TP 8, predicted too fast: the rows' error grows with t, which one eta cannot follow)); "
    "eta_attn the Blackwell fit; eta_bw 0.66 (not fitted)";
inline constexpr std::string_view gb200_bf16 =
    "assumption: no GB200 BF16 development row; the B200 BF16 fit (the same Blackwell GPU at "
    "1,200 W against 1,000 W; GB200's FP8 takes the B200 FP8 fit too)";
// torchtitan (PyTorch eager / torch.compile / torchao float8) on H100: three constants fitted
// together on the 6 torchtitan end-2024 H100 development rows (Llama-3.1 8B, FSDP 8 and 128,
// eager, + torch.compile, + compile + torchao float8 tensorwise;
// tests/reference/round3_fit.cpp). One η_mm of the BF16 GEMMs for eager and compiled alike
// (both call the same aten GEMMs: inductor does not replace them without max-autotune), and
// one eager traffic factor on the element-wise kernels' bytes, which torch.compile fuses back to
// the fused count (factor 1): so the compile speed-up is priced where it is, on the element-wise
// and norm work, not folded into the GEMMs' η. η_mm FP8 is torchao float8's tensorwise GEMMs
// with their amax and cast kernels, on the compiled rows. The rows' H100s are the 500 W HBM2e
// SKU (Meta Grand Teton): the power cap is in the η too.
inline constexpr std::string_view torchtitan_h100_bf16 =
    "torchtitan (PyTorch kernels) on H100 BF16: eta_mm 0.492, shared by eager and torch.compile, "
    "and eager's element-wise traffic x2.46 of the fused kernels' (torch.compile: x1), fitted "
    "with torchao float8's eta_mm on the 6 torchtitan end-2024 H100 development rows "
    "(Llama-3.1 8B FSDP 8 and 128, 500 W HBM2e; tests/reference/round3_fit.cpp); "
    "leave-one-out: eager rows mean 3.9%, worst 4.0%; compiled BF16 rows mean 3.6%, worst 3.7%; "
    "eta_attn and eta_bw the Hopper values (SDPA's flash kernel; not fitted)";
inline constexpr std::string_view torchtitan_h100_fp8 =
    "torchtitan torchao float8 (tensorwise) on H100: eta_mm 0.402, its amax and cast kernels "
    "included, fitted with the BF16 eta_mm and the eager traffic factor on the 6 torchtitan "
    "H100 development rows (tests/reference/round3_fit.cpp); leave-one-out on the 2 compiled "
    "float8 rows: 3.4% and 3.5%; eta_attn and eta_bw the Hopper values (not fitted)";
inline constexpr std::string_view tp_contention =
    "fitted: 0.51 of each second of TP collective that userbuffers hide behind compute is still "
    "lost to it (the SMs, copies and HBM bandwidth it takes from the GEMMs: NeMo's userbuffers "
    "configs reserve 16-32 of H100's 132 SMs), fitted with Hopper's eta on 25 H100 development "
    "rows (tests/reference/cp_fp8_fit.cpp; 0.50-0.53 leaving each row out); other GPUs take it; "
    "the async input-gradient collectives and SP re-gathers hide free";
inline constexpr std::string_view torchtitan_hopper =
    "assumption: no torchtitan development row on this Hopper GPU; the H100 torchtitan fit "
    "(tests/reference/round3_fit.cpp)";
inline constexpr std::string_view torchtitan_other =
    "assumption: no torchtitan development row for this GPU and rate; the Transformer Engine "
    "values of its generation, with the H100 fit's eager element-wise traffic factor";
}  // namespace detail::efficiency

/// The fitted per-GPU η_mm (efficiency.hpp's sources name the rows and the leave-one-out error).
inline constexpr double hopper_bf16_matmul = 0.710;    ///< the H100 fit (hopper_bf16)
inline constexpr double hopper_fp8_matmul = 0.589;     ///< the H100 fit (hopper_fp8)
inline constexpr double hopper_attention = 0.31;       ///< the H100 fit's η_attn (hopper_bf16)
inline constexpr double blackwell_fp8_matmul = 0.537;  ///< the B200 NeMo fit (blackwell_fp8)
inline constexpr double blackwell_attention = 0.408;   ///< its η_attn (blackwell_fp8)
inline constexpr double gb300_fp8_matmul = 0.678;
inline constexpr double b200_bf16_matmul = 0.393;
/// What a second of TP collective hidden behind compute still costs that compute: the GPU it
/// hides on is shared. Userbuffers' pipelined reduce-scatters reserve 16-32 of H100's 132 SMs
/// for the whole GEMM they overlap (set_sm_margin=True), its bulk overlaps run 2-24 SMs of
/// communication beside the GEMMs, and ring exchange splits each GEMM into t smaller ones (NeMo
/// 2.x recipes/tp_overlap_configs/userbuffers.py). Priced on what userbuffers (or a --tp-overlap
/// share) hide, where it was fitted; the async NCCL input-gradient collectives, which take CTAs
/// and HBM bandwidth too, hide free (stages.hpp exposed_tp: no row isolates them). Fitted with
/// Hopper's eta on its 25 development rows (tests/reference/cp_fp8_fit.cpp: 0.51; 0.50-0.53
/// leaving each row out; docs/precision.md), with SP's backward re-gathers of the GEMM inputs
/// among the hidden collectives (stages.hpp) and the DGX Cloud rows' fused cross entropy
/// (compute_model.hpp; 0.47, then 0.40, before); not fitted on any other generation, which takes
/// the Hopper value. Above the SM share alone (0.12-0.24), it takes in what else the t > 1 rows
/// cost that is not priced (a sink, not a measured constant): chunked GEMMs and HBM contention
/// are the candidates, which a kernel trace would settle.
inline constexpr double hidden_tp_contention = 0.51;
/// torchtitan on H100 (detail::efficiency::torchtitan_h100_bf16, _fp8): η_mm of its BF16 and
/// torchao float8 GEMMs, and the bytes PyTorch eager's element-wise kernels move against the
/// fused count.
inline constexpr double torchtitan_h100_bf16_matmul = 0.492;
inline constexpr double torchtitan_h100_fp8_matmul = 0.402;
inline constexpr double pytorch_eager_elementwise_traffic = 2.46;

/// The default η_mm, η_bw and attention η for kernels of `rate` on `arch` (attention: of the
/// BF16 peak for BF16 attention).
constexpr sourced_efficiency default_efficiency(gpu_architecture arch, tensor_rate rate) {
  using namespace detail::efficiency;
  switch (arch) {
    case gpu_architecture::ampere:
      return {0.75, 0.66, 0.50, rate == tensor_rate::bf16 ? a100 : like_a100};
    case gpu_architecture::hopper:
      return rate == tensor_rate::bf16
                 ? sourced_efficiency{hopper_bf16_matmul, 0.66, hopper_attention, hopper_bf16}
                 : sourced_efficiency{hopper_fp8_matmul, 0.66, hopper_attention, hopper_fp8};
    // The generation's values are its GPU models' fits; default_efficiency(name, ...) says
    // which model each was fitted on and where it is an assumption.
    case gpu_architecture::blackwell:
      return rate == tensor_rate::fp8 ? sourced_efficiency{blackwell_fp8_matmul, 0.66,
                                                           blackwell_attention, blackwell_fp8}
             : rate == tensor_rate::fp4
                 ? sourced_efficiency{blackwell_fp8_matmul, 0.66, blackwell_attention,
                                      blackwell_fp4}
                 : sourced_efficiency{b200_bf16_matmul, 0.66, blackwell_attention, gb200_bf16};
    case gpu_architecture::blackwell_ultra:
      return rate == tensor_rate::fp8
                 ? sourced_efficiency{gb300_fp8_matmul, 0.66, blackwell_attention, b300_fp8}
             : rate == tensor_rate::fp4
                 ? sourced_efficiency{blackwell_fp8_matmul, 0.66, blackwell_attention,
                                      blackwell_fp4}
                 : sourced_efficiency{gb300_fp8_matmul * (b200_bf16_matmul / blackwell_fp8_matmul),
                                      0.66, blackwell_attention, blackwell_ultra_bf16};
    case gpu_architecture::cdna3:
    case gpu_architecture::cdna4:
      break;
  }
  return {0.75, 0.66, 0.50, like_a100};
}

/// The default η for kernels of `rate` on the GPU model `gpu` (a preset's name) of `arch`: the
/// model's own where development rows of it were fitted (or a rule from them, said so), else
/// its generation's.
constexpr sourced_efficiency default_efficiency(std::string_view gpu, gpu_architecture arch,
                                                tensor_rate rate) {
  using namespace detail::efficiency;
  auto e = default_efficiency(arch, rate);
  // The generation's fitted values name the rows they came from on the model that ran them.
  if (gpu == "B200" && rate == tensor_rate::bf16) {
    e.source = b200_bf16;
  } else if (gpu == "GB300-NVL72" && rate == tensor_rate::fp8) {
    e.source = gb300_fp8;
  }
  return e;
}

/// The default η for kernels of `rate` on `gpu` of `arch` run by `kernels`: the Megatron / TE
/// values above unchanged for megatron_fused; for PyTorch's kernels the H100 torchtitan fit on
/// Hopper, else (said so) the generation's values, and eager's element-wise traffic factor.
constexpr sourced_efficiency default_efficiency(std::string_view gpu, gpu_architecture arch,
                                                tensor_rate rate, kernel_stack kernels) {
  using namespace detail::efficiency;
  auto e = default_efficiency(gpu, arch, rate);
  if (kernels == kernel_stack::megatron_fused) {
    return e;
  }
  e.elementwise_traffic =
      kernels == kernel_stack::pytorch_eager ? pytorch_eager_elementwise_traffic : 1.0;
  if (arch == gpu_architecture::hopper && (rate == tensor_rate::bf16 || rate == tensor_rate::fp8)) {
    e.matmul = rate == tensor_rate::bf16 ? torchtitan_h100_bf16_matmul : torchtitan_h100_fp8_matmul;
    e.source = gpu != "H100-SXM"           ? torchtitan_hopper
               : rate == tensor_rate::bf16 ? torchtitan_h100_bf16
                                           : torchtitan_h100_fp8;
  } else {
    e.source = torchtitan_other;
  }
  return e;
}

}  // namespace tpcost
