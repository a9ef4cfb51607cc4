// The refined per-layer TP model: the seed's layer (tensor_parallel.hpp) with a choice of
// collective algorithm on a node topology, sequence parallelism, activation recomputation,
// partial overlap and a separate wire dtype.
//
// With every option at its default (`tp_options{}`), the model is the seed's: 4 all-reduces of
// b·s·h·d bytes at `B` each, 72·b·s·h² FLOP, no overlap. `is_article_model` says when that is the
// case; the CLI then prints the seed's output unchanged.
//
// Collectives per layer (forward + backward):
//  - without SP: 2 all-reduces forward (after the attention output projection and after the
//    second MLP matmul) and 2 backward (Shoeybi et al. 2019, "Megatron-LM", Fig. 4: "4 total
//    communication operations in the forward and backward pass");
//  - with SP (Korthikanti et al. 2022, section 4.2.2): each all-reduce becomes an all-gather
//    and a reduce-scatter, the same bytes on the wire (a ring all-reduce is a reduce-scatter
//    then an all-gather): 4 all-gathers + 4 reduce-scatters;
//  - full recomputation reruns the forward pass in the backward pass, its 2 collectives with
//    it: 6 all-reduces (or 6 + 6 with SP), and compute is 96·b·s·h² instead of 72·b·s·h²:
//    the forward's 24·b·s·h² once more (Narayanan et al., "Efficient Large-Scale Language
//    Model Training on GPU Clusters Using Megatron-LM", SC21, arXiv:2104.04473, eq. 3:
//    96·B·s·l·h² with full recomputation; Korthikanti et al. 2022 discuss the same overhead).
//
// With a model (`tp_options::model`, from --model or --hf-config), the layer is that model's:
// its FLOPs are flops.hpp's per-layer count (GQA K/V projections, a gated MLP's three
// matrices, the attention scores), and a TP degree must divide its heads, KV heads and MLP
// size, as in `step` (parallelism.hpp). Without one, the layer is the seed's GPT layer, exact.
//
// The wire dtype: an FP8 (or FP4) compute dtype quantizes the GEMM inputs only; the TP
// all-reduces and reduce-scatters carry GEMM outputs in BF16 (precision.hpp,
// tp_reduce_bytes, from Transformer Engine v2.18), so the wire is BF16 unless --comm-dtype
// names another; `step` sends the same 16-bit activations.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tpcost/base/dtype.hpp"
#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/comm/collectives.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/hardware/hardware.hpp"
#include "tpcost/layer/metrics.hpp"
#include "tpcost/layer/tensor_parallel.hpp"
#include "tpcost/model/activation_memory.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/parallelism.hpp"

namespace tpcost {

/// `--collective`: one algorithm for every collective (the article's M/B, or a textbook α–β
/// ring, tree or hierarchical), or auto: NCCL's tuner, the one "auto" of every command.
enum class collective_choice { article, ring, tree, hierarchical, automatic };

/// The refinements of the seed's per-layer model. The defaults give the seed's model.
struct tp_options {
  collective_choice collective = collective_choice::article;
  bandwidth_kind article_bandwidth = bandwidth_kind::algbw;  ///< what B is under `seed`
  bool sequence_parallel = false;
  /// Selective reruns only the attention core (Q·Kᵀ, softmax, dropout, scores·V): no TP
  /// collective and no FLOP of the 72·b·s·h² count, so it changes the activation memory alone.
  recompute_mode recompute = recompute_mode::none;
  double overlap = 0.0;               ///< f in [0, 1]
  std::optional<dtype> comm_dtype;    ///< the wire dtype; none: the compute dtype
  std::optional<std::int64_t> heads;  ///< a; none: h/128 (head dimension 128)
  /// The model whose layer this is (its FLOPs and divisibility rules); none: the seed's GPT
  /// layer. The layer's h is its hidden size; the layer's s applies, not the model's seq.
  std::optional<transformer_spec> model;
};

/// Head dimension assumed when --heads is not given: 128, as in GPT-3 175B (12288/96) and
/// Llama-2-70B (8192/64).
inline constexpr std::int64_t default_head_dim = 128;

/// Each choice's name; "seed", the article's model's old name, is read as "article".
inline constexpr std::array<enum_name<collective_choice>, 6> collective_choice_names{{
    {"article", collective_choice::article},
    {"ring", collective_choice::ring},
    {"tree", collective_choice::tree},
    {"hierarchical", collective_choice::hierarchical},
    {"auto", collective_choice::automatic},
    {"seed", collective_choice::article},
}};

/// "article", "ring", "tree", "hierarchical", "auto".
constexpr std::string_view to_string(collective_choice choice) {
  return name_of(collective_choice_names, choice);
}

/// Reads "article", "ring", "tree", "hierarchical" or "auto"; "seed", the article's model's
/// old name, is read as "article".
inline collective_choice parse_collective_choice(std::string_view text, std::string_view field) {
  if (const auto c = value_named(collective_choice_names, text)) {
    return *c;
  }
  throw invalid_spec(std::string(field),
                     quote_value(text) + " is not one of article|ring|tree|hierarchical|auto");
}

/// The dtype the TP collectives carry for a compute dtype: BF16 for an FP8 one (its
/// GEMM outputs are BF16: precision.hpp's tp_reduce_bytes), else the compute dtype itself (a
/// byte count given as the seed's d stays that count).
inline dtype activation_dtype(const dtype& compute) {
  const bool quantized = compute.name == "fp8" || compute.name == "e4m3" || compute.name == "e5m2";
  return quantized ? dtype{.name = "bf16", .size_bytes = 2} : compute;
}

/// The dtype on the wire: --comm-dtype, or the activations' dtype (activation_dtype).
inline dtype wire_dtype(const layer_spec& layer, const tp_options& options) {
  return options.comm_dtype.value_or(activation_dtype(layer.element));
}

/// a: --heads, or h/128 (at least 1).
constexpr std::int64_t attention_heads(const layer_spec& layer, const tp_options& options) {
  if (options.heads) {
    return *options.heads;
  }
  const auto a = layer.hidden / default_head_dim;
  return a < 1 ? 1 : a;
}

/// True when the options change nothing in the seed's model: seed collective with B as the
/// all-reduce's algbw, no SP, no recomputation, no overlap, the wire dtype of the compute
/// dtype's size, and no --heads (heads only enter the activation memory of the refined
/// report).
inline bool is_article_model(const layer_spec& layer, const tp_options& options) {
  return options.collective == collective_choice::article &&
         options.article_bandwidth == bandwidth_kind::algbw && !options.sequence_parallel &&
         options.recompute == recompute_mode::none && options.overlap == 0.0 &&
         wire_dtype(layer, options).size_bytes == layer.element.size_bytes && !options.heads &&
         !options.model;
}

/// Throws `invalid_spec` naming the flag: overlap in [0, 1], heads in 1..2^31−1, wire dtype
/// 1..16 bytes.
inline void validate(const tp_options& options) {
  if (!(options.overlap >= 0.0 && options.overlap <= 1.0)) {
    throw invalid_spec("overlap", "must be a fraction in [0, 1]");
  }
  if (options.heads) {
    detail::require_dimension("heads", *options.heads);
  }
  if (options.comm_dtype &&
      (options.comm_dtype->size_bytes < 1 || options.comm_dtype->size_bytes > 16)) {
    throw invalid_spec("comm-dtype", "bytes per element out of range; expected 1..16");
  }
  if (options.model) {
    validate(*options.model);
    require_dense_mha(*options.model, "model");
  }
}

/// With a model: throws `invalid_spec("tp", ...)` when `tp` does not divide its heads, KV heads
/// or MLP size, the rule `step` applies (parallelism.hpp). Nothing for the seed's layer.
inline void validate_tp_for_model(const tp_options& options, std::int64_t tp) {
  if (options.model) {
    parallel_config par;
    par.tp = tp;
    validate(*options.model, par);
  }
}

/// How many collectives of each kind one layer runs, forward and backward.
struct layer_collectives {
  std::int64_t all_reduce = 0;
  std::int64_t reduce_scatter = 0;
  std::int64_t all_gather = 0;
  /// The all-reduce-equivalents: an all-gather plus a reduce-scatter count as one.
  [[nodiscard]] constexpr std::int64_t all_reduce_equivalents() const {
    return all_reduce + (reduce_scatter + all_gather) / 2;
  }
};

/// 4 all-reduces (6 with full recomputation); with SP, as many all-gathers and reduce-scatters.
constexpr layer_collectives collectives_per_layer(const tp_options& options) {
  const std::int64_t n =
      options.recompute == recompute_mode::full ? 6 : article_collectives_per_layer;
  if (options.sequence_parallel) {
    return {.all_reduce = 0, .reduce_scatter = n, .all_gather = n};
  }
  return {.all_reduce = n, .reduce_scatter = 0, .all_gather = 0};
}

/// FLOP per b·s·h² for the layer: 72 (forward 24, backward 48), 96 with full recomputation.
constexpr double flops_coefficient(const tp_options& options) {
  return options.recompute == recompute_mode::full ? 96.0 : article_flops_coefficient;
}

/// `F = 72·b·s·h²` or `96·b·s·h²` FLOP per layer, forward and backward; with a model, its
/// own layer's count for b·s tokens (flops.hpp, layer_flops_with_recompute).
constexpr flops layer_flops(const layer_spec& layer, const tp_options& options) {
  if (options.model) {
    return layer_flops_with_recompute(
        *options.model, layer.seq, static_cast<double>(layer.batch * layer.seq), options.recompute);
  }
  return layer_flops(layer) * (flops_coefficient(options) / article_flops_coefficient);
}

/// Per-GPU activation bytes of one layer, without and with SP, and the one the options select.
struct activation_memory {
  bytes without_sp{};  ///< TP alone (or 2·s·b·h under full recomputation)
  bytes with_sp{};     ///< TP + SP (or 2·s·b·h/t under full recomputation)
  bytes selected{};    ///< the one of --sp
  bytes unsharded{};   ///< s·b·h·(34 + 5·a·s/h), one GPU and no parallelism
};

/// Activation memory at TP degree `tp` (Korthikanti et al. 2022; activation_memory.hpp).
constexpr activation_memory activation_memory_per_layer(const layer_spec& layer,
                                                        const tp_options& options,
                                                        std::int64_t tp) {
  const activation_shape shape{.batch = layer.batch,
                               .seq = layer.seq,
                               .hidden = layer.hidden,
                               .heads = attention_heads(layer, options)};
  activation_memory m;
  m.unsharded = activation_bytes_unsharded(shape);
  if (options.recompute == recompute_mode::full) {
    m.without_sp = activation_bytes_full_recompute(shape, tp, false);
    m.with_sp = activation_bytes_full_recompute(shape, tp, true);
  } else if (options.recompute == recompute_mode::selective) {
    m.without_sp = activation_bytes_selective(shape, tp, false);
    m.with_sp = activation_bytes_selective(shape, tp, true);
  } else {
    m.without_sp = activation_bytes_tp(shape, tp);
    m.with_sp = activation_bytes_tp_sp(shape, tp);
  }
  m.selected = options.sequence_parallel ? m.with_sp : m.without_sp;
  return m;
}

/// One kind of collective in the layer: how many run, the algorithm used, the cost of one.
struct collective_use {
  collective_op op = collective_op::all_reduce;
  std::int64_t count = 0;
  collective_algorithm algorithm = collective_algorithm::article;
  collective_cost cost;  ///< of one collective
};

/// One layer at one TP degree under the refined model.
struct refined_layer_cost {
  std::int64_t tp = 1;
  std::optional<group_placement> group;  ///< none under the seed collective (no topology)
  dtype wire;                            ///< the dtype on the wire
  bytes message{};                       ///< b·s·h·d_wire, one collective's full message
  std::vector<collective_use> collectives;
  bytes wire_bytes{};        ///< Σ count·wire bytes: what one GPU sends per layer
  bytes inter_node_bytes{};  ///< the part of wire_bytes that crosses nodes
  flops layer_flops{};       ///< 72 or 96 ·b·s·h²
  flops gpu_flops{};         ///< layer_flops / t
  seconds compute{};         ///< T_calc
  seconds comm{};            ///< T_comm = Σ count·time
  seconds step{};            ///< T = T_calc + T_comm − f·min(T_calc, T_comm)
  seconds exposed_comm{};    ///< T − T_calc: the comm time not hidden behind compute
  activation_memory memory;
};

/// The algorithm and cost of one `op` at `tp` under the options (ring, tree, hierarchical,
/// cheapest, or the seed's convention). A tree reduce-scatter or all-gather is a ring, as in
/// NCCL.
inline collective_use use_collective(const device_spec& device, const cluster_topology& topology,
                                     const tp_options& options,
                                     const std::optional<group_placement>& group, collective_op op,
                                     std::int64_t count, bytes message, std::int64_t tp) {
  collective_use use;
  use.op = op;
  use.count = count;
  switch (options.collective) {
    case collective_choice::article:
      use.algorithm = collective_algorithm::article;
      use.cost = article_cost(op, tp, message, device.bandwidth, options.article_bandwidth);
      return use;
    case collective_choice::automatic: {
      // What NCCL picks, as `collective`, `step` and `plan` price it (topology.hpp).
      const auto best = nccl_cheapest_collective(topology, *group, op, message);
      use.algorithm = best.algorithm;
      use.cost = best.cost;
      return use;
    }
    case collective_choice::ring:
      use.algorithm = collective_algorithm::ring;
      break;
    case collective_choice::tree:
      use.algorithm = implements(collective_algorithm::tree, op) ? collective_algorithm::tree
                                                                 : collective_algorithm::ring;
      break;
    case collective_choice::hierarchical:
      use.algorithm = collective_algorithm::hierarchical;
      break;
  }
  use.cost = collective_cost_in(topology, *group, op, use.algorithm, message);
  return use;
}

/// The refined per-layer cost at TP degree `tp`. The caller validates (see `sweep_tp` in
/// sweep.hpp); `topology` is ignored under the seed collective. Throws `invalid_spec` when the
/// group cannot be placed on the topology (topology.hpp, `place_group`).
inline refined_layer_cost tp_cost_per_layer(const layer_spec& layer, const device_spec& device,
                                            const cluster_topology& topology,
                                            const tp_options& options, std::int64_t tp) {
  refined_layer_cost c;
  c.tp = tp;
  if (options.collective != collective_choice::article) {
    c.group = place_group(topology, tp);
  }
  c.wire = wire_dtype(layer, options);
  layer_spec on_wire = layer;
  on_wire.element = c.wire;
  c.message = message_bytes(on_wire);
  const auto counts = collectives_per_layer(options);
  const std::array<std::pair<collective_op, std::int64_t>, 3> kinds{{
      {collective_op::all_reduce, counts.all_reduce},
      {collective_op::all_gather, counts.all_gather},
      {collective_op::reduce_scatter, counts.reduce_scatter},
  }};
  for (const auto& [op, count] : kinds) {
    if (count == 0) {
      continue;
    }
    c.collectives.push_back(
        use_collective(device, topology, options, c.group, op, count, c.message, tp));
    const auto& use = c.collectives.back();
    const auto n = static_cast<double>(count);
    c.wire_bytes += n * use.cost.wire_bytes;
    c.inter_node_bytes += n * use.cost.inter_node_bytes;
    c.comm += n * use.cost.time;
  }
  const auto t = static_cast<double>(tp);
  c.layer_flops = layer_flops(layer, options);
  c.gpu_flops = c.layer_flops / t;
  c.compute = c.layer_flops / device.peak / t;
  c.step = partially_overlapped_time(c.compute, c.comm, options.overlap);
  c.exposed_comm = c.step - c.compute;
  c.memory = activation_memory_per_layer(layer, options, tp);
  return c;
}

}  // namespace tpcost
