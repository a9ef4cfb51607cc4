// The bytes per parameter of Megatron-Core's precision-aware optimizer (Transformer Engine's
// FusedAdam with lower-precision master weights, gradients and moments).
//
// Megatron-Core (megatron/core/optimizer/optimizer_config.py, OptimizerConfig, as read for
// core_v0.15 and later): with use_precision_aware_optimizer, main_grads_dtype (fp32|bf16),
// main_params_dtype (fp32|fp16), exp_avg_dtype and exp_avg_sq_dtype (fp32|fp16|bf16|fp8) set
// the dtypes of the gradient buffer, the master weights and Adam's two moments; without it
// every one must be fp32 (__post_init__ asserts it), and it needs Adam and the distributed
// optimizer. store_param_remainders (default True, Transformer Engine 2.1 and later) keeps of
// an fp32 master weight only the 16 bits that the bf16 parameter does not already hold: 2
// bytes, not 4. The 16-bit weights themselves are unchanged: 2 bytes.
#pragma once

#include <array>

#include <string_view>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/model/memory.hpp"

namespace tpcost {

/// A dtype of the precision-aware optimizer's tensors.
enum class optimizer_dtype { fp32, fp16, bf16, fp8 };

constexpr double bytes_of(optimizer_dtype d) {
  switch (d) {
    case optimizer_dtype::fp32:
      return 4.0;
    case optimizer_dtype::fp16:
    case optimizer_dtype::bf16:
      return 2.0;
    case optimizer_dtype::fp8:
      return 1.0;
  }
  return 4.0;
}

/// "fp32", "fp16", "bf16", "fp8", as Megatron-LM's flags spell them, or the torch names a
/// Megatron-Bridge YAML dump writes ("torch.float32", "torch.bfloat16", "torch.float16",
/// "torch.uint8" for fp8). Throws invalid_spec naming `field` otherwise.
inline constexpr std::array<enum_name<optimizer_dtype>, 8> optimizer_dtype_names{{
    {"fp32", optimizer_dtype::fp32},
    {"fp16", optimizer_dtype::fp16},
    {"bf16", optimizer_dtype::bf16},
    {"fp8", optimizer_dtype::fp8},
    {"torch.float32", optimizer_dtype::fp32},
    {"torch.float16", optimizer_dtype::fp16},
    {"torch.bfloat16", optimizer_dtype::bf16},
    {"torch.uint8", optimizer_dtype::fp8},
}};

inline optimizer_dtype parse_optimizer_dtype(std::string_view text, std::string_view field) {
  if (const auto d = value_named(optimizer_dtype_names, text)) {
    return *d;
  }
  throw invalid_spec(std::string(field), quote_value(text) + "; expected fp32, fp16, bf16 or fp8");
}

/// The precision-aware optimizer's choices (defaults: Megatron-Core's).
struct precision_aware_adam {
  optimizer_dtype main_grads = optimizer_dtype::fp32;
  optimizer_dtype main_params = optimizer_dtype::fp32;
  optimizer_dtype exp_avg = optimizer_dtype::fp32;
  optimizer_dtype exp_avg_sq = optimizer_dtype::fp32;
  bool store_param_remainders = true;
};

/// Throws invalid_spec for what Megatron-Core's argument checks refuse: a bf16 or fp8 master
/// weight (main_params_dtype is fp32 or fp16), fp16 or fp8 gradients (main_grads_dtype is fp32
/// or bf16).
inline void validate(const precision_aware_adam& a) {
  if (a.main_params != optimizer_dtype::fp32 && a.main_params != optimizer_dtype::fp16) {
    throw invalid_spec("main-params-dtype", "must be fp32 or fp16 (Megatron-LM's choices)");
  }
  if (a.main_grads != optimizer_dtype::fp32 && a.main_grads != optimizer_dtype::bf16) {
    throw invalid_spec("main-grads-dtype", "must be fp32 or bf16 (Megatron-LM's choices)");
  }
}

/// Bytes per parameter with 16-bit parameters: 2 of weights, the gradient buffer's dtype, and
/// the master weights (2 with fp32 remainders or fp16) and the two moments.
constexpr state_bytes state_bytes_of(const precision_aware_adam& a) {
  const double master = a.main_params == optimizer_dtype::fp32
                            ? (a.store_param_remainders ? 2.0 : 4.0)
                            : bytes_of(a.main_params);
  return {2.0, bytes_of(a.main_grads), master + bytes_of(a.exp_avg) + bytes_of(a.exp_avg_sq)};
}

}  // namespace tpcost
