// Numeric precision per kernel, the way Transformer Engine (TE) runs a Megatron-Core step.
//
// A training "precision" is a recipe for the linear layers only (TE's fp8_autocast /
// autocast wraps te.Linear, te.LayerNormLinear, te.LayerNormMLP); everything else keeps its
// 16-bit kernels. Per kernel (TE v2.18, transformer_engine/pytorch/module/linear.py and
// layernorm_linear.py; transformer_engine/common/recipe/__init__.py):
//
//   kernel                          BF16 run   FP8 / MXFP8 / NVFP4 run
//   QKV, output, FC1(+gate), FC2     BF16       the recipe's format (1 byte, or 4 bits + scales)
//   attention core (QKᵀ, PV)         BF16       BF16 unless FP8 attention is asked for
//                                               (Megatron --fp8-dot-product-attention, TE
//                                               NVTE_FP8_DPA); NVFP4 attention does not exist,
//                                               FP8 attention then runs at the FP8 rate
//   logits (output layer) + loss     BF16       BF16 (Megatron keeps the output layer out of
//                                               the FP8 region: --fp8-... applies to the
//                                               TransformerBlock, not the output_layer)
//   norms, activations, softmax      BF16       BF16 (memory-bound, unchanged)
//
// Communication (TE v2.18): with sequence parallelism, the all-gathers in front of a
// column-parallel GEMM (the norm output forward, layernorm_linear.py L296 `gather_along_
// first_dim(ln_out, tp_group, quantizer=quantizer)`) and of the gradient in front of a
// row-parallel GEMM's backward (module/base.py grad_output_preprocess L1680) run on the
// QUANTIZED tensor: 1 byte per element for FP8 (plus scales for MXFP8/NVFP4). The
// reduce-scatters and all-reduces carry GEMM outputs, which are BF16. TE 1.x (v1.13
// layernorm_linear.py L169) gathered in BF16 and cast afterwards unless userbuffers were on;
// `quantized_tp_all_gather = false` reproduces that. DP gradients stay BF16/FP32 (Megatron's
// grad buffer); the distributed optimizer's parameter all-gather is BF16 unless
// --fp8-param-gather (TE fp8_model_init / quantized_model_init) stores the parameters in FP8,
// when it gathers 1 byte per parameter.
//
// Memory: TE keeps the quantized weight as a workspace between micro-batches
// (linear.py `quantize_weight(..., workspace=..., cache=...)`, refreshed on the first
// micro-batch): rowwise data for the forward GEMM and columnwise data for dgrad/wgrad. Hopper's
// FP8 GEMM takes only the TN layout, so the columnwise copy is a real transpose (1 more byte);
// Blackwell reads either layout, so per-tensor FP8 needs one copy there, while MXFP8 and
// NVFP4 scale along different axes rowwise and columnwise and keep both. With
// --fp8-param-gather the FP8 weight IS the parameter: the 2-byte BF16 weight goes away (the
// FP32 master lives in the distributed optimizer).
//
// Not modelled: the FP8 activations TE saves for the backward pass (activation memory is
// counted in 16 bits, an upper bound), amax-history bookkeeping, and the cast kernels'
// own time (they fuse into the norms and activations in TE).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/hardware/hardware.hpp"
#include "tpcost/model/model.hpp"

namespace tpcost {

/// The recipe the linear layers run in (TE recipe classes, transformer_engine/common/recipe).
enum class linear_precision {
  bf16,           ///< no FP8 region
  fp8_delayed,    ///< DelayedScaling: per-tensor scale from an amax history (E4M3/E5M2 hybrid)
  fp8_current,    ///< Float8CurrentScaling: per-tensor scale from the tensor itself
  fp8_blockwise,  ///< Float8BlockScaling: 1×128 activation / 128×128 weight FP32 scales
                  ///< (DeepSeek-V3's recipe; Hopper and later)
  mxfp8,          ///< MXFP8BlockScaling: E8M0 scale per 32 elements (Blackwell)
  nvfp4,          ///< NVFP4BlockScaling: E2M1 data, E4M3 scale per 16 + FP32 per tensor
};

/// What a run asks of the precision machinery.
struct precision_options {
  linear_precision linear = linear_precision::bf16;
  bool fp8_attention = false;           ///< attention core in FP8 (--fp8-attention)
  bool fp8_param_gather = false;        ///< parameters stored and all-gathered in FP8
  bool quantized_tp_all_gather = true;  ///< TE >= 2.0: SP all-gathers carry quantized data
};

struct precision_format {
  std::string_view name;       ///< "fp8-delayed"
  std::string_view te_recipe;  ///< the TE recipe class
  tensor_rate rate;            ///< the tensor-core rate its GEMMs run at
  double data_bytes;           ///< bytes per element of quantized data
  double scale_bytes;          ///< bytes of scale factors per element
  /// One scale per tensor, so the transposed operand reuses it (a block scale runs along one
  /// axis, and the columnwise copy needs its own): weight_copy_bytes_per_param.
  bool per_tensor_scale;
};

/// The formats, indexed by linear_precision. Scale overheads: MXFP8 one E8M0 byte per 32
/// elements; NVFP4 one E4M3 byte per 16 (the per-tensor FP32 is negligible); FP8 blockwise
/// one FP32 per 128 activation elements (the 128×128 weight scales are negligible).
inline constexpr std::array<precision_format, 6> precision_formats{{
    {"bf16", "none (BF16 autocast)", tensor_rate::bf16, 2.0, 0.0, false},
    {"fp8-delayed", "DelayedScaling", tensor_rate::fp8, 1.0, 0.0, true},
    {"fp8-current", "Float8CurrentScaling", tensor_rate::fp8, 1.0, 0.0, true},
    {"fp8-blockwise", "Float8BlockScaling", tensor_rate::fp8, 1.0, 4.0 / 128.0, false},
    {"mxfp8", "MXFP8BlockScaling", tensor_rate::fp8, 1.0, 1.0 / 32.0, false},
    {"nvfp4", "NVFP4BlockScaling", tensor_rate::fp4, 0.5, 1.0 / 16.0, false},
}};

constexpr const precision_format& format_of(linear_precision p) {
  return precision_formats[static_cast<std::size_t>(p)];
}

constexpr std::string_view to_string(linear_precision p) { return format_of(p).name; }

/// Reads bf16, fp8 (= fp8-delayed, Megatron's --fp8-recipe default "delayed"),
/// fp8-delayed, fp8-current (also "tensorwise", Megatron's name), fp8-blockwise,
/// mxfp8, nvfp4; throws invalid_spec(field, ...) with the list otherwise.
/// Every spelling parse_linear_precision reads, canonical names (precision_formats) first;
/// the others are Megatron-LM's --fp8-recipe values and torchao's names.
inline constexpr std::array<enum_name<linear_precision>, 11> linear_precision_names{{
    {"bf16", linear_precision::bf16},
    {"fp8-delayed", linear_precision::fp8_delayed},
    {"fp8-current", linear_precision::fp8_current},
    {"fp8-blockwise", linear_precision::fp8_blockwise},
    {"mxfp8", linear_precision::mxfp8},
    {"nvfp4", linear_precision::nvfp4},
    {"fp8", linear_precision::fp8_delayed},
    {"delayed", linear_precision::fp8_delayed},
    {"fp8-tensorwise", linear_precision::fp8_current},
    {"tensorwise", linear_precision::fp8_current},
    {"blockwise", linear_precision::fp8_blockwise},
}};
static_assert(
    [] {
      for (std::size_t i = 0; i < precision_formats.size(); ++i) {
        if (linear_precision_names[i].name != precision_formats[i].name ||
            static_cast<std::size_t>(linear_precision_names[i].value) != i) {
          return false;
        }
      }
      return true;
    }(),
    "the canonical spellings are precision_formats' names, in its order");

inline linear_precision parse_linear_precision(std::string_view text, std::string_view field) {
  // Any case; '_' reads as '-' (Megatron's "fp8_blockwise" spellings in YAML).
  const auto key = [](std::string_view t) {
    std::string out(t);
    for (auto& c : out) {
      c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      c = c == '_' ? '-' : c;
    }
    return out;
  };
  if (const auto p = value_named(linear_precision_names, text, key)) {
    return *p;
  }
  throw invalid_spec(std::string(field),
                     quote_value(text) +
                         " is not a precision; expected bf16, fp8 (= fp8-delayed), fp8-current, "
                         "fp8-blockwise, mxfp8 or nvfp4");
}

/// Throws invalid_spec(field, ...) when the GPU cannot run the recipe: FP8 needs FP8 tensor
/// cores, MXFP8 block-scaled ones (TE: compute capability 10.0+), NVFP4 NVIDIA's FP4 ones.
inline void check_support(const precision_options& opts, const precision_support& gpu,
                          std::string_view gpu_name, std::string_view field) {
  const auto p = opts.linear;
  const auto name = std::string(to_string(p));
  const auto fail = [&](const std::string& why) {
    throw invalid_spec(std::string(field), name + " needs " + why + "; " + std::string(gpu_name) +
                                               " has none (give --precision bf16" +
                                               (gpu.fp8 ? " or fp8" : "") + ")");
  };
  if (p != linear_precision::bf16 && !gpu.fp8) {
    fail("FP8 tensor cores");
  }
  if (p == linear_precision::mxfp8 && !gpu.block_scaled) {
    fail("block-scaled (MX) tensor cores, Blackwell or later");
  }
  if (p == linear_precision::nvfp4 && !(gpu.fp4 && gpu.nvfp4)) {
    fail("NVFP4 tensor cores, NVIDIA Blackwell or later");
  }
  if (opts.fp8_attention && !gpu.fp8) {
    throw invalid_spec(std::string(field), "FP8 attention needs FP8 tensor cores; " +
                                               std::string(gpu_name) + " has none");
  }
  if (opts.fp8_param_gather && p == linear_precision::bf16) {
    throw invalid_spec(
        std::string(field),
        "--fp8-param-gather needs an FP8 precision (Megatron requires --fp8-format)");
  }
}

/// The rate of the linear layers' GEMMs.
constexpr tensor_rate linear_rate(const precision_options& opts) {
  return format_of(opts.linear).rate;
}

/// The rate of the attention core: BF16 unless FP8 attention was asked for (then FP8 even
/// under NVFP4, which has no attention kernel).
constexpr tensor_rate attention_rate(const precision_options& opts) {
  return opts.fp8_attention ? tensor_rate::fp8 : tensor_rate::bf16;
}

/// The logits GEMM and the loss stay BF16.
constexpr tensor_rate logits_rate(const precision_options&) { return tensor_rate::bf16; }

/// Bytes per element of a linear GEMM's quantized operand (data + scales); 2 in BF16.
constexpr double linear_operand_bytes(const precision_options& opts) {
  const auto& f = format_of(opts.linear);
  return f.data_bytes + f.scale_bytes;
}

/// Bytes per element on the wire of a sequence-parallel TP all-gather: the quantized operand
/// (TE >= 2.0) or BF16 (TE 1.x, or a BF16 run).
constexpr double tp_all_gather_bytes(const precision_options& opts) {
  return opts.quantized_tp_all_gather ? linear_operand_bytes(opts) : 2.0;
}

/// Bytes per element of TP reduce-scatters and all-reduces: GEMM outputs, BF16 in every recipe.
constexpr double tp_reduce_bytes(const precision_options&) { return 2.0; }

/// Bytes per parameter of the distributed optimizer's parameter all-gather: 2 (BF16), or the
/// FP8 data (+ scales) with --fp8-param-gather. Applies to the linear layers' weights only.
constexpr double param_gather_bytes(const precision_options& opts) {
  return opts.fp8_param_gather ? linear_operand_bytes(opts) : 2.0;
}

/// Extra bytes per linear-layer weight that the quantized run holds next to (or instead of)
/// the 2-byte BF16 weight: the rowwise workspace, plus a columnwise one where the GEMM
/// needs it (Hopper FP8: a transpose; MXFP8/NVFP4/blockwise: the other scaling axis), minus
/// the BF16 weight when --fp8-param-gather makes the FP8 copy the parameter itself.
/// Negative values mean memory saved. 0 for BF16.
constexpr double weight_copy_bytes_per_param(const precision_options& opts,
                                             const precision_support& gpu) {
  if (opts.linear == linear_precision::bf16) {
    return 0.0;
  }
  const double one = linear_operand_bytes(opts);
  const bool two_copies = !format_of(opts.linear).per_tensor_scale || gpu.fp8_tn_only;
  const double copies = (two_copies ? 2.0 : 1.0) * one;
  return opts.fp8_param_gather ? copies - 2.0 : copies;
}

/// Weights that run in the linear precision, per layer: the Q, K, V, output and MLP matrices
/// (biases, norms, embeddings and the output layer stay BF16). With MLA, its projections
/// (mla_params, whose two latent norms are a rounding error against them).
constexpr std::int64_t quantized_params_per_layer(const transformer_spec& spec) {
  const auto attention = is_mla(spec.mla) ? mla_params(spec.mla, spec.hidden, spec.heads)
                                          : attention_weights_per_layer(spec);
  return attention + mlp_matrices(spec) * spec.hidden * ffn_of(spec);
}

/// What the precision recipe needs from the GPU: the peak and η of the linear GEMMs' rate
/// (long_context.hpp, precision_device_for, fills them from a GPU preset).
struct precision_device {
  precision_options options;
  flops_per_second linear_peak{};  ///< the dense peak of the recipe's rate (0 = the BF16 peak)
  double linear_efficiency = 0.0;  ///< η_mm of that rate (0 = the BF16 η_mm)
  /// η_attn of the fused attention kernel (FlashAttention/cuDNN), of the peak of its rate, on
  /// the FLOPs it runs (compute_model.hpp, fused_attention_forward_time); 0 = the BF16 device's.
  double attention_efficiency = 0.0;
  /// The dense peak of the attention core's rate: BF16, or FP8 with fp8_attention (0 = the
  /// BF16 peak). Apart from linear_peak: FP8 attention may run beside BF16 or NVFP4 GEMMs.
  flops_per_second attention_peak{};
  precision_support support{};  ///< the GPU's: whether FP8 GEMMs need a transpose (memory)
};

/// Whether two recipes cost the same in every term of the model: the same tensor-core rate,
/// operand bytes and weight copies, and the same flags. TE's DelayedScaling and
/// Float8CurrentScaling differ in how a tensor's one scale is chosen (an amax history or the
/// tensor itself), not in what a step computes, moves or holds (the amax reduction of
/// current scaling, one value per tensor, is not priced).
constexpr bool same_costs(const precision_options& a, const precision_options& b) {
  const auto& fa = format_of(a.linear);
  const auto& fb = format_of(b.linear);
  return fa.rate == fb.rate && fa.data_bytes == fb.data_bytes && fa.scale_bytes == fb.scale_bytes &&
         fa.per_tensor_scale == fb.per_tensor_scale && a.fp8_attention == b.fp8_attention &&
         a.fp8_param_gather == b.fp8_param_gather &&
         a.quantized_tp_all_gather == b.quantized_tp_all_gather;
}

/// The same for two recipes on one GPU: the same costs and the same peaks and efficiencies.
constexpr bool same_costs(const precision_device& a, const precision_device& b) {
  return same_costs(a.options, b.options) && a.linear_peak == b.linear_peak &&
         a.linear_efficiency == b.linear_efficiency &&
         a.attention_efficiency == b.attention_efficiency && a.attention_peak == b.attention_peak &&
         a.support.fp8_tn_only == b.support.fp8_tn_only;
}

/// Whether a recipe changes the step at all: anything but BF16 linear layers, BF16 attention
/// and BF16 parameters (then the step is the BF16 step, exactly).
constexpr bool changes_step(const precision_options& p) {
  return p.linear != linear_precision::bf16 || p.fp8_attention || p.fp8_param_gather;
}

/// One utilisation figure per peak, so that a run compares with any published table: MFU
/// against the BF16 dense peak (Megatron README, most papers) and against the peak of the
/// run's own linear precision (DGX Cloud's FP8 tables), and the achieved model FLOP/s per
/// GPU (torchtitan, NeMo's long-sequence tables). For a BF16 run the two MFUs are equal.
struct utilisation_report {
  double mfu_bf16_peak = 0.0;
  double mfu_precision_peak = 0.0;
  tensor_rate precision_peak = tensor_rate::bf16;  ///< the rate the second MFU divides by
  flops_per_second model_flops_per_gpu{};          ///< model FLOPs / (step time · N)
};

/// `MFU = F_model / (T · N · P)` against both peaks (PaLM's definition, arXiv:2204.02311
/// Sec. 4.1, with P named).
constexpr utilisation_report utilisation(flops model_per_step, seconds step_time, std::int64_t gpus,
                                         flops_per_second bf16_peak,
                                         flops_per_second precision_peak, tensor_rate rate) {
  const flops_per_second achieved = model_per_step / step_time / static_cast<double>(gpus);
  return {achieved / bf16_peak, achieved / precision_peak, rate, achieved};
}

}  // namespace tpcost
