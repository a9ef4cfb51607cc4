// torchtitan's per-op selective activation checkpointing of a dense layer
// (selective_policy::per_op, parallelism.hpp): which of the layer's matmuls keep their output
// for the backward pass and which run again, one list for its memory (memory.hpp), its time
// (compute_model.hpp) and its FLOPs (flops.hpp).
//
// torchtitan wraps each transformer block in a checkpoint whose policy counts the block's
// matmuls in forward order and saves the output of every op on its save list (the matmuls, the
// attention kernels, the reduce-scatters) "except every second mm" (pytorch/torchtitan, the op
// policy of its activation checkpointing, selective_ac_option = "op", which the Llama 3
// configs set). A Llama layer runs wq, wk, wv, wo, w1, w3, w2 (torchtitan's Attention and
// FeedForward modules): wq, wv, w1 and w2 are saved, wk, wo and w3 recomputed. A plain MLP
// (w1, w2) makes it wq, wv, w1 saved and wk, wo, w2 recomputed.
#pragma once

#include <array>
#include <cstddef>

#include "tpcost/model/model.hpp"

namespace tpcost {

/// One matmul of a layer, per token: its input and output widths before TP, whether TP splits
/// its output (column-parallel) or its input (row-parallel), and whether per-op checkpointing
/// keeps its output.
struct layer_matmul {
  double in = 0.0;
  double out = 0.0;
  bool row_parallel = false;
  bool saved = false;
};

/// The layer's matmuls in torchtitan's forward order, every second one not saved; a plain
/// MLP leaves the last entry empty (in = out = 0).
constexpr std::array<layer_matmul, 7> per_op_matmuls(const transformer_spec& spec) {
  const auto h = static_cast<double>(spec.hidden);
  const auto q = static_cast<double>(q_dim(spec));
  const auto kv = static_cast<double>(kv_dim(spec));
  const auto f = static_cast<double>(ffn_of(spec));
  std::array<layer_matmul, 7> mm{{
      {h, q, false, false},   // wq
      {h, kv, false, false},  // wk
      {h, kv, false, false},  // wv
      {q, h, true, false},    // wo
      {h, f, false, false},   // w1
      {h, f, false, false},   // w3 (gated MLPs only)
      {f, h, true, false},    // w2
  }};
  if (!spec.gated_mlp) {
    mm[5] = mm[6];
    mm[6] = {};
  }
  for (std::size_t i = 0; i < mm.size(); ++i) {
    mm[i].saved = i % 2 == 0;  // the 1st, 3rd, 5th and 7th matmul of the block
  }
  return mm;
}

/// The forward FLOPs per token of the matmuls per-op checkpointing runs again.
constexpr double per_op_recomputed_flops_per_token(const transformer_spec& spec) {
  double total = 0.0;
  for (const auto& m : per_op_matmuls(spec)) {
    total += m.saved ? 0.0 : 2.0 * m.in * m.out;
  }
  return total;
}

}  // namespace tpcost
