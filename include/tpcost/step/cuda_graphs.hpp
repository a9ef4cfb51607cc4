// CUDA graphs as Megatron-Core configures them: read and checked, not costed (see below).
//
// The knob (NVIDIA/Megatron-LM core_v0.16.0, megatron/training/arguments.py and
// megatron/core/transformer/transformer_config.py):
//   --cuda-graph-impl none|local|transformer_engine   (default none; local is Megatron's own
//                     capture, transformer_engine TE's make_graphed_callables)
//   --cuda-graph-scope LIST   attn, mlp, moe, moe_router, moe_preprocess, mamba, full_iteration;
//                     empty (or the deprecated "full") captures the whole transformer layer;
//                     full_iteration (with local only) the whole forward-backward
// core_v0.18.0 renames --cuda-graph-scope to --cuda-graph-modules (the old name still read and
// migrated) and moves the whole iteration to --cuda-graph-impl full_iteration; both spellings
// mean the same capture here.
//
// What graphs would take off an MoE layer's host time, read from core_v0.16.0
// (megatron/core/transformer/moe/token_dispatcher.py, fused_a2a.py), and NOT costed here:
//   * a device-to-host synchronisation once per dispatch, in the forward (and the recomputed
//     forward), for every dispatcher unless the layer pads to capacity: alltoall copies the
//     split sizes to the host and waits on `d2h_event.synchronize()` before the all-to-all;
//     allgather's dispatch_postprocess calls `.cpu()` on the tokens per expert; flex with DeepEP
//     returns `num_recv_tokens_per_expert_list`, a host list (deepseek-ai/DeepEP
//     csrc/deep_ep.cpp, Buffer::intranode_dispatch: "Synchronize total received tokens and
//     tokens per expert", a host loop on moe_recv_counter unless num_worst_tokens > 0); with
//     HybridEP `hybrid_ep_dispatch` runs blocking unless `num_permuted_tokens` is known
//     (drop-and-pad). The backward reuses the host split sizes and does not synchronise.
//   * the kernel launches of the layer's eager parts, in every pass.
// A captured scope launches as one graph. A synchronisation cannot be captured: Megatron lets a
// scope reach past it only without one (transformer_config.py: "moe cuda graph is only
// supported with drop-padding MoE"; moe_preprocess refused for alltoall when a capacity factor
// or router padding puts a D2H copy in the preprocess; the whole-iteration recipes run HybridEP
// with a static token bound, moe_paged_stash). moe_router and moe_preprocess end before the
// sync. A model of this (the sync per forward, a quarter of the launches per captured part, two
// constants fitted on the 20 MoE development rows) made those rows no better: docs/moe.md.
#pragma once

#include <string>
#include <string_view>

#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/word_list.hpp"

namespace tpcost {

/// Megatron-Core's --cuda-graph-impl (full_iteration: core_v0.18.0's, which core_v0.16.0
/// spells --cuda-graph-impl local --cuda-graph-scope full_iteration).
enum class cuda_graph_impl { none, local, transformer_engine, full_iteration };

/// The scopes of --cuda-graph-scope (core_v0.16.0 CudaGraphScope, megatron/core/transformer/
/// enums.py), as bits of a set. full_iteration is kept apart (cuda_graphs::impl).
namespace cuda_graph_scope {
inline constexpr unsigned attn = 1U << 0;
inline constexpr unsigned mlp = 1U << 1;
inline constexpr unsigned moe = 1U << 2;
inline constexpr unsigned moe_router = 1U << 3;
inline constexpr unsigned moe_preprocess = 1U << 4;
inline constexpr unsigned mamba = 1U << 5;
}  // namespace cuda_graph_scope

/// What a run captures: the implementation and its scopes (0: the whole layer).
struct cuda_graphs {
  cuda_graph_impl impl = cuda_graph_impl::none;
  unsigned scopes = 0;  ///< cuda_graph_scope bits; 0 with a layer implementation: the layer
  friend constexpr bool operator==(const cuda_graphs&, const cuda_graphs&) = default;
};

constexpr std::string_view to_string(cuda_graph_impl impl) {
  switch (impl) {
    case cuda_graph_impl::local:
      return "local";
    case cuda_graph_impl::transformer_engine:
      return "transformer_engine";
    case cuda_graph_impl::full_iteration:
      return "full_iteration";
    case cuda_graph_impl::none:
      break;
  }
  return "none";
}

inline constexpr std::string_view cuda_graph_scope_names[] = {
    "attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba"};

/// The scopes as Megatron lists them ("attn,moe_router"; "" for the whole layer).
inline std::string cuda_graph_scopes_to_string(unsigned scopes) {
  std::string out;
  for (unsigned i = 0; i < std::size(cuda_graph_scope_names); ++i) {
    if ((scopes & (1U << i)) != 0) {
      out += (out.empty() ? "" : ",") + std::string(cuda_graph_scope_names[i]);
    }
  }
  return out;
}

/// Reads --cuda-graph-impl: none, local, transformer_engine (core_v0.16.0's choices) or
/// full_iteration (core_v0.18.0's); '-' reads as '_'. Throws invalid_spec(field, ...).
inline cuda_graph_impl parse_cuda_graph_impl(std::string_view text, std::string_view field) {
  std::string key;
  for (const char c : text) {
    key += c == '-' ? '_' : c;
  }
  if (key == "none") {
    return cuda_graph_impl::none;
  }
  if (key == "local") {
    return cuda_graph_impl::local;
  }
  if (key == "transformer_engine") {
    return cuda_graph_impl::transformer_engine;
  }
  if (key == "full_iteration") {
    return cuda_graph_impl::full_iteration;
  }
  throw invalid_spec(std::string(field),
                     quote_value(text) +
                         " is not a CUDA graph implementation; expected none, local, "
                         "transformer_engine or full_iteration");
}

/// Reads --cuda-graph-scope (or core_v0.18.0's --cuda-graph-modules) onto `graphs`: names
/// separated by commas, spaces or a Python list's brackets and quotes; "full" (deprecated,
/// alone) and an empty list mean the whole layer; full_iteration turns `impl` local into
/// full_iteration as core_v0.18.0 migrates it. Checks what transformer_config.py's
/// __post_init__ asserts at core_v0.16.0 without the model (scope_checks below has the rest):
/// "full" alone, not moe with moe_router, moe_preprocess only with moe_router (local adds each
/// to the other), full_iteration only with local. Throws invalid_spec(field, ...).
inline cuda_graphs parse_cuda_graph_scope(std::string_view text, cuda_graphs graphs,
                                          std::string_view field) {
  unsigned scopes = 0;
  int words = 0;
  bool full = false, full_iteration = false;
  for_each_listed_name(text, false, [&](std::string_view word) {
    ++words;
    bool known = false;
    for (unsigned i = 0; i < std::size(cuda_graph_scope_names); ++i) {
      if (word == cuda_graph_scope_names[i]) {
        scopes |= 1U << i;
        known = true;
      }
    }
    if (word == "full") {
      full = known = true;
    } else if (word == "full_iteration") {
      full_iteration = known = true;
    }
    if (!known) {
      throw invalid_spec(std::string(field),
                         quote_value(word) +
                             " is not a CUDA graph scope; expected attn, mlp, moe, moe_router, "
                             "moe_preprocess, mamba or full_iteration");
    }
  });
  if (graphs.impl == cuda_graph_impl::full_iteration && words > 0 && !full_iteration) {
    throw invalid_spec(std::string(field),
                       "must be empty with --cuda-graph-impl full_iteration (core_v0.18.0)");
  }
  if (full && words > 1) {
    throw invalid_spec(std::string(field), "full scope cannot be used with other scopes");
  }
  if (full_iteration) {
    if (graphs.impl == cuda_graph_impl::transformer_engine) {
      throw invalid_spec(std::string(field),
                         "full_iteration needs --cuda-graph-impl local (transformer_engine "
                         "captures layers)");
    }
    if (graphs.impl != cuda_graph_impl::none) {
      graphs.impl = cuda_graph_impl::full_iteration;
    }
    graphs.scopes = 0;
    return graphs;
  }
  using namespace cuda_graph_scope;
  if ((scopes & moe) != 0 && (scopes & moe_router) != 0) {
    throw invalid_spec(std::string(field), "cannot contain both moe and moe_router");
  }
  if (graphs.impl == cuda_graph_impl::local && (scopes & (moe_router | moe_preprocess)) != 0) {
    scopes |= moe_router | moe_preprocess;  // "local impl doesn't currently distinguish"
  }
  if ((scopes & moe_preprocess) != 0 && (scopes & moe_router) == 0) {
    throw invalid_spec(std::string(field), "moe_preprocess is only supported with moe_router");
  }
  graphs.scopes = scopes;
  return graphs;
}

/// Whether the run captures anything.
constexpr bool captures(const cuda_graphs& g) { return g.impl != cuda_graph_impl::none; }

}  // namespace tpcost
