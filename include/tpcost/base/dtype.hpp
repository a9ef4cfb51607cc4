// Element types and their sizes in bytes (the seed's `d`).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace tpcost {

/// A floating-point element type as used for activations on the wire.
/// `name` is what the user typed or the canonical name; `size_bytes` is the seed's `d`.
struct dtype {
  std::string name;
  int size_bytes = 0;
};

/// A dtype's name, its size and its kind: the canonical name every spelling of the same format
/// shares (float16 and half are fp16; e4m3 and e5m2 are fp8), which names a GPU's peak rate
/// (presets.hpp) and a stack's gradient type (fp16 keeps 2-byte gradients).
struct named_dtype {
  std::string_view name;
  int size_bytes;
  std::string_view kind;
};

/// Every name parse_dtype accepts. fp32/float32/float is the vector rate, without tensor cores
/// (PyTorch's default for matmuls since 1.12, torch.backends.cuda.matmul.allow_tf32 = False);
/// tf32 runs on TF32 tensor cores and is stored, so sent, in 4 bytes.
inline constexpr std::array<named_dtype, 14> dtype_names{{
    {"fp64", 8, "fp64"},
    {"float64", 8, "fp64"},
    {"fp32", 4, "fp32"},
    {"float32", 4, "fp32"},
    {"float", 4, "fp32"},
    {"tf32", 4, "tf32"},
    {"bf16", 2, "bf16"},
    {"bfloat16", 2, "bf16"},
    {"fp16", 2, "fp16"},
    {"float16", 2, "fp16"},
    {"half", 2, "fp16"},
    {"fp8", 1, "fp8"},
    {"e4m3", 1, "fp8"},
    {"e5m2", 1, "fp8"},
}};

/// The kind of a dtype named as dtype_names names it (exactly, as parse_dtype stores it); empty
/// for a dtype given as a byte count, which names no format.
inline std::optional<std::string_view> dtype_kind(std::string_view name) {
  for (const auto& n : dtype_names) {
    if (n.name == name) {
      return n.kind;
    }
  }
  return std::nullopt;
}

}  // namespace tpcost
