// Model shapes the unit tests share: a GPT from its five dimensions, and the small GPT the step
// and planner tests evaluate layouts on.
#pragma once

#include <cstdint>

#include "tpcost/model/model.hpp"

namespace tpcost::test {

/// A GPT (GPT conventions: biases, LayerNorm, learned positions, tied embeddings, 4h MLP).
inline transformer_spec gpt_spec(std::int64_t L, std::int64_t h, std::int64_t a, std::int64_t V,
                                 std::int64_t s) {
  return with_architecture({.layers = L, .hidden = h, .heads = a, .vocab = V, .seq = s},
                           architecture::gpt);
}

/// 8 layers, h = 2048, 16 heads, V = 32000, s = 1024: small enough to enumerate layouts of.
inline transformer_spec small_gpt_spec() { return gpt_spec(8, 2048, 16, 32000, 1024); }

}  // namespace tpcost::test
