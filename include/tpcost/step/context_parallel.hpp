// Context parallelism (CP): the sequence of every micro-batch split over `cp` ranks, and the
// ways those ranks exchange keys and values so that each query still sees every earlier key.
//
// Split: with a causal mask the sequence is cut into 2·cp chunks and rank r holds chunks r
// and 2·cp−1−r, so that every rank does the same attention work (TE's "DualChunkSwap",
// transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py @v2.18,
// attn_forward_func_with_cp docstring; Megatron-Core get_batch_on_this_cp_rank; Llama 3,
// arXiv:2407.21783 Sec. 3.3.2). s must divide by 2·cp (TE: "requires sequence lengths to be,
// or are padded to be, divisible by (cp_size * 2)"). Each rank then holds b·s/cp tokens:
// the projections, MLP, norms and their activations shrink by cp; the attention core of its
// s/cp queries against all s keys is 1/cp of the whole, by the balancing.
//
// Exchanges, per layer and micro-batch, per rank (T = b·s/cp local tokens, K and V each
// T·kv_dim/t elements on a TP rank, Q and the attention output T·h/t):
//   p2p (Megatron-Core default; TE AttnFuncWithCPAndKVP2P): a ring of cp−1 send/recv steps
//       of the local K,V block forward; backward cp−1 steps of K,V plus dK,dV (the
//       dkv_send_buffer). Step i's transfer runs while step i's attention block computes,
//       so only max(0, transfer − block) per step is exposed.
//   all_gather (Llama 3 Sec. 3.3.2; TE AttnFuncWithCPAndKVAllGather, "KV all-gather
//       between CP ranks is exposed"): all-gather K and V forward; backward all-gathers
//       them again and reduce-scatters dK, dV. Exposed; cheap with GQA (few KV heads).
//   a2a (DeepSpeed-Ulysses; TE AttnFuncWithCPAndQKVOA2A): all-to-all of Q, K, V to a
//       head split before attention and of the output back; backward the same for dO and
//       dQ, dK, dV. Exposed. Needs the heads (and KV heads) of a TP rank to divide by cp.
//   a2a+p2p (TE "hierarchical CP", Megatron --hierarchical-context-parallel-sizes): a2a
//       inside groups of `a2a_size` ranks (placed first, so inside a node), then the p2p
//       ring over the cp/a2a_size groups, each ring step carrying the same bytes as p2p's.
//
// Placement: Megatron orders ranks tp-cp-ep-dp-pp (megatron/core/parallel_state.py,
// RankGenerator order "tp-cp-ep-dp-pp"), so CP ranks sit t apart: a node holds
// gpus_per_node/t of them, and CP crosses nodes once t·cp exceeds a node while TP does not.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/hardware/hardware.hpp"
#include "tpcost/model/model.hpp"

namespace tpcost {

/// How CP ranks exchange keys and values (Megatron --cp-comm-type).
enum class cp_comm_type { p2p, all_gather, a2a, a2a_p2p };

/// Megatron's names, then the aliases parse_cp_comm_type reads.
inline constexpr std::array<enum_name<cp_comm_type>, 6> cp_comm_type_names{{
    {"p2p", cp_comm_type::p2p},
    {"all_gather", cp_comm_type::all_gather},
    {"a2a", cp_comm_type::a2a},
    {"a2a+p2p", cp_comm_type::a2a_p2p},
    {"all-gather", cp_comm_type::all_gather},
    {"allgather", cp_comm_type::all_gather},
}};

constexpr std::string_view to_string(cp_comm_type c) { return name_of(cp_comm_type_names, c); }

/// Reads p2p, all_gather (or all-gather), a2a, a2a+p2p; throws invalid_spec(field, ...).
inline cp_comm_type parse_cp_comm_type(std::string_view text, std::string_view field) {
  if (const auto c = value_named(cp_comm_type_names, text)) {
    return *c;
  }
  throw invalid_spec(std::string(field), quote_value(text) +
                                             " is not a CP communication type; expected p2p, "
                                             "all_gather, a2a or a2a+p2p");
}

/// How the CP ranks exchange keys and values: a step's options (stages.hpp, step_options::cp);
/// the degree is the layout's (parallelism.hpp, parallel_config::cp).
struct cp_options {
  cp_comm_type comm = cp_comm_type::p2p;
  std::int64_t a2a_size = 0;  ///< a2a+p2p: ranks of the inner a2a group; 0 = chosen
  bool causal = true;         ///< causal mask: 2·cp chunks for load balance
};

/// The CP layout as the functions below read it: the degree and its exchange.
struct context_parallel {
  std::int64_t cp = 1;
  cp_comm_type comm = cp_comm_type::p2p;
  std::int64_t a2a_size = 0;  ///< a2a+p2p: ranks of the inner a2a group; 0 = chosen
  bool causal = true;         ///< causal mask: 2·cp chunks for load balance
};

/// The CP layout of degree `cp` exchanging as `options` say.
constexpr context_parallel context_parallel_of(std::int64_t cp, const cp_options& options) {
  return {.cp = cp, .comm = options.comm, .a2a_size = options.a2a_size, .causal = options.causal};
}

/// The inner a2a group of a2a+p2p: `a2a_size` if given, else the largest divisor of cp that
/// fits a node beside TP (t·size ≤ gpus_per_node) and divides the heads of a TP rank.
constexpr std::int64_t a2a_group_size(const transformer_spec& model, std::int64_t tp,
                                      const context_parallel& c, std::int64_t gpus_per_node) {
  if (c.comm == cp_comm_type::a2a) {
    return c.cp;
  }
  if (c.comm != cp_comm_type::a2a_p2p) {
    return 1;
  }
  if (c.a2a_size > 0) {
    return c.a2a_size;
  }
  const auto heads = model.heads / tp;
  const auto kv = std::max<std::int64_t>(1, kv_heads_of(model) / tp);
  std::int64_t best = 1;
  for (std::int64_t d = 1; d <= c.cp; ++d) {
    if (c.cp % d == 0 && tp * d <= gpus_per_node && heads % d == 0 && kv % d == 0) {
      best = d;
    }
  }
  return best;
}

/// Throws invalid_spec naming `field` (e.g. "cp") when the layout cannot run: cp < 1; s not a
/// multiple of 2·cp (causal) or cp; a2a whose group does not divide the heads or KV heads of
/// a TP rank; an a2a+p2p inner size that does not divide cp.
inline void validate(const context_parallel& c, const transformer_spec& model, std::int64_t tp,
                     std::int64_t gpus_per_node, const std::string& field = "cp") {
  if (c.cp < 1 || c.cp > max_model_dimension) {
    throw invalid_spec(field, std::to_string(c.cp) +
                                  " is out of range; the CP degree must be a "
                                  "whole number >= 1");
  }
  if (c.cp > 1 && window_cuts(model, model.seq)) {
    // The ring exchanges every K/V block with every rank; a window needs only its neighbours'
    // (and load balancing of a band differs), which long_context.hpp does not model.
    throw invalid_spec(field,
                       "context parallelism with sliding-window or chunked attention is not "
                       "modelled: its K/V exchange would cover only the window; use --cp 1");
  }
  const auto chunks = c.causal ? 2 * c.cp : c.cp;
  if (c.cp > 1 && model.seq % chunks != 0) {
    throw invalid_spec(field, std::to_string(c.cp) +
                                  " does not fit seq = " + std::to_string(model.seq) + ": " +
                                  (c.causal ? "causal load balancing cuts the sequence into 2*cp = "
                                            : "the sequence is cut into cp = ") +
                                  std::to_string(chunks) + " equal chunks");
  }
  if (c.comm == cp_comm_type::a2a_p2p && c.a2a_size > 0 && c.cp % c.a2a_size != 0) {
    throw invalid_spec(field, "the a2a group of " + std::to_string(c.a2a_size) +
                                  " ranks does not divide cp = " + std::to_string(c.cp));
  }
  const auto group = a2a_group_size(model, tp, c, gpus_per_node);
  const auto heads = model.heads / tp;
  const auto kv = kv_heads_of(model) / tp;
  if (group > 1 && (heads % group != 0 || kv < group || kv % group != 0)) {
    throw invalid_spec(field, std::string(to_string(c.comm)) + " splits the heads of a TP rank (" +
                                  std::to_string(heads) + " query, " + std::to_string(kv) +
                                  " KV) over " + std::to_string(group) +
                                  " ranks, which does not divide them; use --cp-comm-type p2p or "
                                  "all_gather");
  }
}

/// The widths, per token and in elements over all heads, of the tensors the CP exchanges carry
/// (cp_exchanges divides them by t). Without MLA: Q and the attention output heads·d (q_dim),
/// K and V kv_heads·d each (kv_dim). With MLA, TE's attention receives the up-projected
/// per-head tensors (Megatron-Core core_v0.16.0 multi_latent_attention.py: the query and key
/// of qk_nope + qk_rope per head, the rotary key broadcast to every head; the value and the
/// output of v_head_dim), so those are what its K,V ring and all-to-alls move. Megatron-Core
/// passes MLA's --cp-comm-type to TE as any other; TE v2.14 ran MLA under CP with p2p and
/// a2a+p2p only ("Context parallelism does not support MLA with cp_comm_type",
/// context_parallel.py), v2.16 (NVIDIA/TransformerEngine#2719) dropped that limit.
struct attention_widths {
  std::int64_t q = 0, k = 0, v = 0, out = 0;
};

constexpr attention_widths attention_widths_of(const transformer_spec& model) {
  if (is_mla(model.mla)) {
    const auto qk = model.heads * mla_qk_head_dim(model.mla);
    const auto v = model.heads * model.mla.v_head_dim;
    return {.q = qk, .k = qk, .v = v, .out = v};
  }
  return {.q = q_dim(model), .k = kv_dim(model), .v = kv_dim(model), .out = q_dim(model)};
}

/// How one exchange travels.
enum class cp_transfer { send_recv, all_gather, reduce_scatter, all_to_all };

inline constexpr std::array<enum_name<cp_transfer>, 4> cp_transfer_names{{
    {"send/recv", cp_transfer::send_recv},
    {"all-gather", cp_transfer::all_gather},
    {"reduce-scatter", cp_transfer::reduce_scatter},
    {"all-to-all", cp_transfer::all_to_all},
}};

constexpr std::string_view to_string(cp_transfer t) { return name_of(cp_transfer_names, t); }

/// One kind of CP transfer of a layer, per micro-batch, as one rank sees it.
struct cp_exchange {
  std::string_view what;  ///< "K,V ring step (forward)"
  cp_transfer op = cp_transfer::send_recv;
  std::int64_t ranks = 1;  ///< group size it runs over
  bool inner = false;      ///< on a2a+p2p's inner (a2a) group rather than the whole CP group
  bytes message{};         ///< per call: what one rank sends (send/recv), the full gathered
                           ///< tensor (all-gather, reduce-scatter), one rank's buffer (a2a)
  std::int64_t count = 1;  ///< calls per layer and micro-batch
  bool backward = false;
  bool overlaps_attention = false;  ///< ring steps, each hidden behind one attention block
};

/// The exchanges of one layer per micro-batch of `micro_batch` sequences on one rank of a TP
/// group of `tp`, of the widths attention_widths_of gives; `element_bytes` of Q, K, V (2 in
/// BF16, 1 with FP8 attention), gradients in 2 bytes. Call validate first. Empty at cp = 1.
inline std::vector<cp_exchange> cp_exchanges(const transformer_spec& model,
                                             std::int64_t micro_batch, std::int64_t tp,
                                             const context_parallel& c, double element_bytes,
                                             std::int64_t gpus_per_node) {
  std::vector<cp_exchange> out;
  if (c.cp <= 1) {
    return out;
  }
  const double t = static_cast<double>(tp);
  const double tokens = static_cast<double>(micro_batch * model.seq) / static_cast<double>(c.cp);
  const auto w = attention_widths_of(model);
  const double kv_elems = tokens * static_cast<double>(w.k + w.v) / t;
  const double q_elems = tokens * static_cast<double>(w.q) / t;
  const double o_elems = tokens * static_cast<double>(w.out) / t;
  const bytes kv = kv_elems * element_bytes * units::B;
  const bytes dkv = kv_elems * 2.0 * units::B;
  const bytes q = q_elems * element_bytes * units::B;
  const bytes o = o_elems * 2.0 * units::B;  // attention output and its gradient, BF16
  const auto inner = a2a_group_size(model, tp, c, gpus_per_node);
  const auto ring = c.cp / inner;
  const auto a2a = [&](std::int64_t n) {
    out.push_back({"Q,K,V to heads (forward)", cp_transfer::all_to_all, n, c.cp != n, q + kv, 1,
                   false, false});
    out.push_back({"output to sequence (forward)", cp_transfer::all_to_all, n, c.cp != n, o, 1,
                   false, false});
    out.push_back(
        {"dO to heads (backward)", cp_transfer::all_to_all, n, c.cp != n, o, 1, true, false});
    out.push_back({"dQ,dK,dV to sequence (backward)", cp_transfer::all_to_all, n, c.cp != n,
                   o + dkv, 1, true, false});
  };
  const auto p2p = [&](std::int64_t n) {
    if (n <= 1) {
      return;
    }
    out.push_back(
        {"K,V ring step (forward)", cp_transfer::send_recv, n, false, kv, n - 1, false, true});
    out.push_back({"K,V + dK,dV ring step (backward)", cp_transfer::send_recv, n, false, kv + dkv,
                   n - 1, true, true});
  };
  switch (c.comm) {
    case cp_comm_type::p2p:
      p2p(c.cp);
      break;
    case cp_comm_type::all_gather: {
      const bytes gathered = static_cast<double>(c.cp) * kv;
      out.push_back({"all-gather K,V (forward)", cp_transfer::all_gather, c.cp, false, gathered, 1,
                     false, false});
      out.push_back({"all-gather K,V again (backward)", cp_transfer::all_gather, c.cp, false,
                     gathered, 1, true, false});
      out.push_back({"reduce-scatter dK,dV (backward)", cp_transfer::reduce_scatter, c.cp, false,
                     static_cast<double>(c.cp) * dkv, 1, true, false});
      break;
    }
    case cp_comm_type::a2a:
      a2a(c.cp);
      break;
    case cp_comm_type::a2a_p2p:
      if (inner > 1) {
        a2a(inner);
      }
      p2p(ring);
      break;
  }
  return out;
}

/// The CP group's placement under Megatron's rank order: `cp` ranks at stride `tp`; a node of
/// g GPUs holds max(1, g/tp) of them. Returns {ranks, per node, nodes}.
struct cp_placement {
  std::int64_t ranks = 1;
  std::int64_t per_node = 1;
  std::int64_t nodes = 1;
  [[nodiscard]] constexpr bool spans_nodes() const { return nodes > 1; }
};

constexpr cp_placement place_strided(std::int64_t ranks, std::int64_t stride,
                                     std::int64_t gpus_per_node) {
  const auto per_node =
      std::clamp<std::int64_t>(gpus_per_node / std::max<std::int64_t>(1, stride), 1, ranks);
  return {ranks, per_node, (ranks + per_node - 1) / per_node};
}

/// α–β time of one exchange call on a group placed as `where` (intra link inside a node,
/// inter link across):
///  - send/recv of M: every rank sends to its ring neighbour at once, the slowest hop paces:
///    α + M/β, on the inter-node link once the ring leaves a node;
///  - all-gather / reduce-scatter of M (the full tensor): the ring, (n−1)·α + (n−1)/n·M/β
///    on the slowest hop (collectives.hpp ring_cost);
///  - all-to-all of a buffer M: (n−1)·α, the (g−1)/n·M for peers in the node on the intra
///    link and the (n−g)/n·M for the others on the inter link, the two in parallel.
constexpr seconds cp_exchange_time(const cp_exchange& x, const cp_placement& where,
                                   const cluster_topology& topo) {
  const auto n = static_cast<double>(x.ranks);
  if (x.ranks <= 1) {
    return {};
  }
  const bool crosses = where.spans_nodes();
  const link_spec slow = crosses ? link_spec{min(topo.intra.bandwidth, topo.inter.bandwidth),
                                             max(topo.intra.latency, topo.inter.latency)}
                                 : topo.intra;
  switch (x.op) {
    case cp_transfer::send_recv:
      return slow.latency + x.message / slow.bandwidth;
    case cp_transfer::all_gather:
    case cp_transfer::reduce_scatter:
      return (n - 1.0) * slow.latency + (n - 1.0) / n * x.message / slow.bandwidth;
    case cp_transfer::all_to_all:
      break;
  }
  const double g = static_cast<double>(std::min(where.per_node, x.ranks));
  const seconds intra = (g - 1.0) / n * x.message / topo.intra.bandwidth;
  const seconds inter = crosses ? (n - g) / n * x.message / topo.inter.bandwidth : seconds{};
  return (n - 1.0) * slow.latency + max(intra, inter);
}

/// The CP communication of one layer and micro-batch on one rank: all of it, and what stays
/// exposed after the ring steps hide behind their attention blocks.
struct cp_layer_comm {
  seconds forward{};          ///< all forward transfers
  seconds backward{};         ///< all backward transfers
  seconds exposed_forward{};  ///< what the forward attention does not hide
  seconds exposed_backward{};
  bytes sent{};  ///< bytes this rank sends, forward and backward
  [[nodiscard]] constexpr seconds total() const { return forward + backward; }
  [[nodiscard]] constexpr seconds exposed() const { return exposed_forward + exposed_backward; }
  [[nodiscard]] constexpr seconds hidden() const { return total() - exposed(); }
};

/// Sums `exchanges` (cp_exchanges) for a rank whose attention core takes `attention_forward`
/// and `attention_backward` per layer and micro-batch: a ring of n ranks runs n blocks of
/// attention, each 1/n of the whole by the causal balancing, and n−1 transfers, transfer i
/// hidden behind block i: exposed (n−1)·max(0, transfer − block). `outer` places the whole
/// CP group (place_strided(cp, tp, g)), `inner` a2a+p2p's inner group.
constexpr cp_layer_comm sum_cp_comm(const std::vector<cp_exchange>& exchanges,
                                    seconds attention_forward, seconds attention_backward,
                                    const cp_placement& outer, const cp_placement& inner,
                                    const cluster_topology& topo) {
  cp_layer_comm out;
  for (const auto& x : exchanges) {
    const seconds one = cp_exchange_time(x, x.inner ? inner : outer, topo);
    const double calls = static_cast<double>(x.count);
    seconds exposed = calls * one;
    if (x.overlaps_attention) {
      const seconds block =
          (x.backward ? attention_backward : attention_forward) / static_cast<double>(x.ranks);
      exposed = calls * max(one - block, seconds{});
    }
    (x.backward ? out.backward : out.forward) += calls * one;
    (x.backward ? out.exposed_backward : out.exposed_forward) += exposed;
    const double share = x.op == cp_transfer::send_recv
                             ? 1.0
                             : (static_cast<double>(x.ranks) - 1.0) / static_cast<double>(x.ranks);
    out.sent += calls * share * x.message;
  }
  return out;
}

}  // namespace tpcost
