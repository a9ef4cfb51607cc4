// The fastest parallel layout for a model on a cluster, found by exhaustive search.
//
// The search space, for N GPUs and a global batch of G sequences:
//   t   the TP degree: a divisor of N that divides the attention heads, the KV heads and the MLP
//       size (Megatron-LM splits each over t), at most --max-tp; a TP group either tiles a node
//       (t divides the GPUs per node) or fills whole nodes;
//   p   the pipeline stages: a divisor of N/t that divides the L layers. Megatron-LM's stages
//       are even (--num-layers must be a multiple of the pipeline size), so uneven stages are
//       not searched, although the step model can evaluate them;
//   d   = N/(t·p) data-parallel replicas; d must divide G;
//   b   the micro-batch: every divisor of G/d; m = G/(d·b) micro-batches per step;
//   v   interleaved model chunks per GPU: 1, or (with p > 1) every v > 1 with p·v dividing L;
//       Megatron-LM's interleaved schedule needs m to be a multiple of p;
//   SP  sequence parallelism off, or on (t > 1 only);
//   recomputation none, selective or full;
//   ZeRO stage 0, or (with d > 1) 1, 2 or 3; ZeRO-2 and 3 only without pipeline parallelism
//       (DeepSpeed's pipeline engine refuses them; Megatron-LM's distributed optimizer is
//       stage 1).
// Every candidate that breaks a rule is counted under its first broken rule (plan_reason, in
// the order of the enum); every other one is evaluated: its peak memory per GPU against the
// capacity, then its step time. Those that fit are ranked by step time; equal times are
// ordered by `ranks_before`: TP inside a node first, then smaller t, smaller p, larger b,
// smaller v, recomputation none < selective < full, SP off before on, lower ZeRO stage.
//
// A TP group larger than a node pays the inter-node link on every layer. When that link is
// slower than the intra-node one (InfiniBand, Ethernet), such layouts are evaluated but only
// proposed if no layout with t <= GPUs per node fits: they are counted under
// `tp_across_nodes` otherwise.
//
// Speed: `evaluate_step` validates and allocates (stage vectors, warnings). The search uses a
// fast path instead, `detail::plan_kernel`, which does the same arithmetic with everything
// that does not depend on the remaining choices hoisted out of the loops: per (t, p) the
// parameters, the DP collectives, the embedding all-reduce and the optimizer; per (t, p, b)
// the layer's kernel times, the TP collectives and the p2p transfer; per layout only adds and
// multiplies, and the peak memory of the first, second and last stage (the middle stages hold
// the same parameters and fewer micro-batches than the second). It does not allocate. A test
// holds it to `evaluate_step` on every layout of small spaces. The (t, p) pairs are shared
// among threads; each keeps its own best k, merged in the total order above, so the ranking
// does not depend on the number of threads. The top k are then evaluated in full.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "tpcost/base/error.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/memory.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/model/pipeline_parallel.hpp"
#include "tpcost/step/compute_model.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost {

/// Why a candidate was not proposed; each candidate is counted under its first broken rule,
/// in this order. The first nine judge a (t, p) pair, the others one layout.
enum class plan_reason : int {
  tp_limit,          ///< t above --max-tp, or not --fixed-tp
  tp_heads,          ///< t does not divide the attention heads
  tp_kv_heads,       ///< t does not divide the KV heads
  tp_ffn,            ///< t does not divide the MLP size
  tp_straddles,      ///< t neither divides the node size nor fills whole nodes
  pp_limit,          ///< p is not --fixed-pp
  pp_layers,         ///< p does not divide L (Megatron-LM's stages are even)
  dp_batch,          ///< d = N/(t·p) does not divide G
  interleave_batch,  ///< v > 1 with m not a multiple of p (Megatron-LM's interleaved schedule)
  zero_with_pp,      ///< ZeRO-2/3 with p > 1 (DeepSpeed's pipeline engine refuses it)
  memory,            ///< the fullest stage does not fit the GPU's memory
  tp_across_nodes,   ///< fits, but its TP group crosses a slower link and an in-node layout fits
};

inline constexpr std::size_t plan_reason_count = 12;
inline constexpr std::size_t plan_pair_reason_count = 8;  ///< tp_limit .. dp_batch judge pairs

inline constexpr std::array<plan_reason, plan_reason_count> all_plan_reasons{
    plan_reason::tp_limit,     plan_reason::tp_heads,     plan_reason::tp_kv_heads,
    plan_reason::tp_ffn,       plan_reason::tp_straddles, plan_reason::pp_limit,
    plan_reason::pp_layers,    plan_reason::dp_batch,     plan_reason::interleave_batch,
    plan_reason::zero_with_pp, plan_reason::memory,       plan_reason::tp_across_nodes};

/// A short key for JSON: "tp_limit", "tp_heads", ...
constexpr std::string_view key_of(plan_reason reason) {
  switch (reason) {
    case plan_reason::tp_limit:
      return "tp_limit";
    case plan_reason::tp_heads:
      return "tp_heads";
    case plan_reason::tp_kv_heads:
      return "tp_kv_heads";
    case plan_reason::tp_ffn:
      return "tp_ffn";
    case plan_reason::tp_straddles:
      return "tp_straddles_nodes";
    case plan_reason::pp_limit:
      return "pp_limit";
    case plan_reason::pp_layers:
      return "pp_layers";
    case plan_reason::dp_batch:
      return "dp_batch";
    case plan_reason::interleave_batch:
      return "interleave_batch";
    case plan_reason::zero_with_pp:
      return "zero_with_pp";
    case plan_reason::memory:
      return "memory";
    case plan_reason::tp_across_nodes:
      break;
  }
  return "tp_across_nodes";
}

/// One line for people: what the rule is.
constexpr std::string_view describe(plan_reason reason) {
  switch (reason) {
    case plan_reason::tp_limit:
      return "t outside --max-tp / --fixed-tp";
    case plan_reason::tp_heads:
      return "t does not divide the attention heads";
    case plan_reason::tp_kv_heads:
      return "t does not divide the KV heads";
    case plan_reason::tp_ffn:
      return "t does not divide the MLP size";
    case plan_reason::tp_straddles:
      return "TP group straddles nodes (t neither divides the node nor fills whole nodes)";
    case plan_reason::pp_limit:
      return "p is not --fixed-pp";
    case plan_reason::pp_layers:
      return "p does not divide the layers: even stages only";
    case plan_reason::dp_batch:
      return "d = N/(t*p) does not divide the global batch";
    case plan_reason::interleave_batch:
      return "interleaving with m not a multiple of p";
    case plan_reason::zero_with_pp:
      return "ZeRO-2/3 with pipeline parallelism";
    case plan_reason::memory:
      return "does not fit in GPU memory";
    case plan_reason::tp_across_nodes:
      break;
  }
  return "TP group crosses the slower inter-node link while an in-node layout fits";
}

/// Limits the user puts on the search; 0 means none.
struct plan_constraints {
  std::int64_t max_tp = 0;    ///< t <= max_tp
  std::int64_t fixed_tp = 0;  ///< t = fixed_tp
  std::int64_t fixed_pp = 0;  ///< p = fixed_pp
};

/// A search: the model, the hardware, how the software runs, N and G, and the limits.
struct plan_request {
  transformer_spec model;
  compute_device gpu;
  bytes memory_capacity{};
  cluster_topology topology;
  step_options options;
  std::int64_t gpus = 0;          ///< N
  std::int64_t global_batch = 0;  ///< G, sequences per step
  plan_constraints constraints;
  std::size_t top = 5;   ///< layouts to return, best first (at least 1)
  unsigned threads = 0;  ///< at most this many threads; 0: every hardware thread
  /// One thread per this many layouts (estimated), so that a small space, done in well under a
  /// millisecond, does not pay for starting threads.
  std::int64_t layouts_per_thread = std::int64_t{1} << 16;
};

/// One layout as the search ranks it.
struct plan_candidate {
  parallel_config par;
  seconds step_time{};
  bytes peak_memory{};  ///< of the fullest stage, per GPU
  bool tp_spans_nodes = false;
};

/// The tie order, after the step time: TP inside a node, smaller t, smaller p, larger b,
/// smaller v, recompute none < selective < full, SP off < on, lower ZeRO stage. Every field of
/// a layout appears, so two different layouts never tie: the order is total.
constexpr auto tie_key(const plan_candidate& c) {
  const auto& p = c.par;
  return std::tuple{c.tp_spans_nodes,
                    p.tp,
                    p.pp,
                    -p.micro_batch,
                    p.vpp,
                    static_cast<int>(p.recompute),
                    p.sequence_parallel,
                    static_cast<int>(p.zero)};
}

/// Whether `a` ranks before `b`: a shorter step, or the same step and an earlier `tie_key`.
constexpr bool ranks_before(const plan_candidate& a, const plan_candidate& b) {
  if (a.step_time != b.step_time) {
    return a.step_time < b.step_time;
  }
  return tie_key(a) < tie_key(b);
}

/// How many candidates were looked at and why the others were dropped.
struct plan_counts {
  std::int64_t pairs = 0;           ///< (t, p) with t·p dividing N
  std::int64_t pairs_searched = 0;  ///< pairs that passed the pair rules
  std::int64_t layouts = 0;         ///< layouts of the searched pairs
  std::int64_t evaluated = 0;       ///< layouts that passed the layout rules: memory checked
  std::int64_t feasible = 0;        ///< fit, and proposed
  std::array<std::int64_t, plan_reason_count> rejected{};
  [[nodiscard]] constexpr std::int64_t operator[](plan_reason r) const {
    return rejected[static_cast<std::size_t>(r)];
  }
  constexpr plan_counts& operator+=(const plan_counts& o) {
    pairs += o.pairs;
    pairs_searched += o.pairs_searched;
    layouts += o.layouts;
    evaluated += o.evaluated;
    feasible += o.feasible;
    for (std::size_t i = 0; i < plan_reason_count; ++i) {
      rejected[i] += o.rejected[i];
    }
    return *this;
  }
};

/// A proposed layout, evaluated in full.
struct planned_layout {
  plan_candidate candidate;
  step_result result;
};

/// The best layout of one (t, p) pair, for the "how many cooks" table.
struct degree_choice {
  plan_candidate best;
  double mfu = 0.0;
  std::int64_t feasible = 0;  ///< layouts of this pair that fit
};

/// The outcome of a search.
struct plan_result {
  std::vector<planned_layout> top;          ///< best first; empty when nothing fits
  std::optional<planned_layout> runner_up;  ///< the second best, even with `top` = 1
  std::vector<degree_choice> per_degrees;   ///< the best of each (t, p) that has one, best first
  plan_counts counts;
  bool tp_across_nodes_needed = false;     ///< nothing fit inside a node; TP crosses nodes
  bool tp_across_nodes_penalised = false;  ///< the inter-node link is the slower one
  unsigned threads = 1;                    ///< threads the search ran on
};

namespace detail {

/// The divisors of n in increasing order (n >= 1), by trial division up to √n.
inline std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> low, high;
  for (std::int64_t k = 1; k * k <= n; ++k) {
    if (n % k == 0) {
      low.push_back(k);
      if (k != n / k) {
        high.push_back(n / k);
      }
    }
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

/// The best k candidates in `ranks_before` order, in storage reserved up front: offering a
/// candidate never allocates.
class best_k {
 public:
  explicit best_k(std::size_t k) : k_(std::max<std::size_t>(k, 1)) { items_.reserve(k_ + 1); }
  /// Whether a candidate of this step time could still enter.
  [[nodiscard]] bool could_enter(seconds time) const {
    return items_.size() < k_ || !(items_.back().step_time < time);
  }
  void offer(const plan_candidate& c) {
    if (items_.size() == k_ && !ranks_before(c, items_.back())) {
      return;
    }
    items_.insert(std::upper_bound(items_.begin(), items_.end(), c, ranks_before), c);
    if (items_.size() > k_) {
      items_.pop_back();
    }
  }
  [[nodiscard]] const std::vector<plan_candidate>& items() const { return items_; }

 private:
  std::size_t k_;
  std::vector<plan_candidate> items_;
};

/// The number of divisors of n >= 1.
constexpr std::int64_t divisor_count(std::int64_t n) {
  std::int64_t count = 0;
  for (std::int64_t k = 1; k * k <= n; ++k) {
    if (n % k == 0) {
      count += k * k == n ? 1 : 2;
    }
  }
  return count;
}

/// A (t, p) pair that passed the pair rules.
struct plan_pair {
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  std::int64_t dp = 1;
  bool spans_nodes = false;
};

/// The search's fast path: `evaluate_step` and `memory_per_gpu` for every layout of one (t, p)
/// pair, with the layout-independent terms hoisted, without allocating. Call only for a
/// validated request and a pair that passed the pair rules.
class plan_kernel {
 public:
  explicit plan_kernel(const plan_request& req) : req_(req) {
    for (const auto mode :
         {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
      flops_[static_cast<std::size_t>(mode)] =
          flops_per_step(req.model, req.global_batch, req.model.seq, mode);
    }
  }

  /// Per-pair terms (parameters, DP and embedding collectives, optimizer).
  struct pair_terms {
    std::int64_t t = 1, p = 1, d = 1, layers = 1;  ///< layers per stage: L/p
    group_placement tp_group;
    double params_first = 0.0, params_middle = 0.0, params_last = 0.0, params_here = 0.0;
    bytes dp_bytes{};
    seconds dp_all_reduce{}, dp_reduce_scatter{}, dp_all_gather{};
    seconds embedding{};  ///< tied embedding's gradient all-reduce between the end stages
    seconds optimizer_full{}, optimizer_sharded{};
    bool p2p_across_nodes = false;
  };

  [[nodiscard]] pair_terms terms_of(const plan_pair& pair) const {
    const auto& model = req_.model;
    const auto& topo = req_.topology;
    pair_terms x;
    x.t = pair.tp;
    x.p = pair.pp;
    x.d = pair.dp;
    x.layers = model.layers / pair.pp;
    x.tp_group =
        x.t <= topo.gpus_per_node
            ? group_placement{.ranks = x.t, .per_node = x.t, .nodes = 1}
            : group_placement{
                  .ranks = x.t, .per_node = topo.gpus_per_node, .nodes = x.t / topo.gpus_per_node};
    parallel_config par;
    par.tp = x.t;
    par.pp = x.p;
    x.params_first = params_per_gpu(model, par, 0, x.layers);
    x.params_middle = x.p > 2 ? params_per_gpu(model, par, 1, x.layers) : 0.0;
    x.params_last = params_per_gpu(model, par, x.p - 1, x.layers);
    x.params_here = std::max(x.params_first, x.params_last);
    x.dp_bytes = 2.0 * x.params_here * units::B;
    if (x.d > 1) {
      const auto group = dp_placement(topo, x.t, x.d);
      x.dp_all_reduce =
          fastest_collective(topo, group, collective_op::all_reduce, x.dp_bytes).cost.time;
      x.dp_reduce_scatter =
          fastest_collective(topo, group, collective_op::reduce_scatter, x.dp_bytes).cost.time;
      x.dp_all_gather =
          fastest_collective(topo, group, collective_op::all_gather, x.dp_bytes).cost.time;
    }
    if (x.p > 1 && model.tied_embeddings) {
      const auto& link = topo.inter.bandwidth.value() > 0.0 ? topo.inter : topo.intra;
      x.embedding = ring_cost(collective_op::all_reduce, 2,
                              2.0 * static_cast<double>(model.vocab * model.hidden) /
                                  static_cast<double>(x.t) * units::B,
                              link)
                        .time;
    }
    x.optimizer_full = optimizer_time(x.params_here, req_.gpu);
    x.optimizer_sharded = optimizer_time(x.params_here / static_cast<double>(x.d), req_.gpu);
    x.p2p_across_nodes = x.t * x.d >= topo.gpus_per_node;
    return x;
  }

  /// Per-(t, p, b) terms: the layer's kernels, the TP collectives, the p2p transfer.
  struct batch_terms {
    std::int64_t b = 1, m = 1;
    layer_compute kernels;
    seconds logits{};
    seconds tp_all_reduce{}, tp_reduce_scatter{}, tp_all_gather{};
    std::array<seconds, 2> p2p_one{};  ///< one transfer, [SP off, SP on]
    double sb = 0.0, sbh = 0.0;
  };

  [[nodiscard]] batch_terms batch_of(const pair_terms& x, std::int64_t b) const {
    const auto& model = req_.model;
    const auto& topo = req_.topology;
    const auto& opt = req_.options;
    batch_terms y;
    y.b = b;
    y.m = req_.global_batch / (x.d * b);
    y.kernels = layer_compute_time(model, b, x.t, req_.gpu, opt.attention);
    y.logits = logits_compute_time(model, b, x.t, req_.gpu);
    const bytes message =
        static_cast<double>(b * model.seq * model.hidden * opt.activation_bytes) * units::B;
    if (x.t > 1) {
      y.tp_all_reduce =
          fastest_collective(topo, x.tp_group, collective_op::all_reduce, message).cost.time;
      y.tp_reduce_scatter =
          fastest_collective(topo, x.tp_group, collective_op::reduce_scatter, message).cost.time;
      y.tp_all_gather =
          fastest_collective(topo, x.tp_group, collective_op::all_gather, message).cost.time;
    }
    if (x.p > 1) {
      const auto& link = x.p2p_across_nodes ? topo.inter : topo.intra;
      for (const bool sp : {false, true}) {
        const bytes p2p = p2p_message_bytes(b, model.seq, model.hidden, opt.activation_bytes, x.t,
                                            sp || opt.scatter_gather);
        seconds one = link.latency + p2p / link.bandwidth;
        if (opt.scatter_gather && !sp && x.t > 1) {
          one += ring_cost(collective_op::all_gather, x.t, message, topo.intra).time;
        }
        y.p2p_one[sp ? 1 : 0] = one;
      }
    }
    y.sb = static_cast<double>(model.seq) * static_cast<double>(b);
    y.sbh = y.sb * static_cast<double>(model.hidden);
    return y;
  }

  /// The fast-path outcome of one layout.
  struct outcome {
    seconds step_time{};
    bytes peak_memory{};
    bool fits = false;
  };

  /// Peak memory of the layout (the fullest of the first, second and last stage).
  [[nodiscard]] bytes peak_memory(const pair_terms& x, const batch_terms& y, std::int64_t v,
                                  bool sp, recompute_mode mode, zero_stage zero) const {
    const auto& model = req_.model;
    const double d = static_cast<double>(x.d);
    const int z = static_cast<int>(zero);
    const double t = static_cast<double>(x.t);
    const double sp_divisor = sp ? t : 1.0;
    const auto attention = req_.options.attention;
    const auto per_layer =
        activation_bytes_per_layer(model, y.b, model.seq, x.t, sp, mode, attention);
    const bytes working = mode == recompute_mode::full
                              ? activation_bytes_per_layer(model, y.b, model.seq, x.t, sp,
                                                           recompute_mode::none, attention)
                              : bytes{};
    const auto& w = mixed_precision_adam;
    const auto stage_total = [&](std::int64_t i, double params) {
      const bytes weights = params * w.weights / (z >= 3 ? d : 1.0) * units::B;
      const bytes gradients = params * w.gradients / (z >= 2 ? d : 1.0) * units::B;
      const bytes optimizer = params * w.optimizer / (z >= 1 ? d : 1.0) * units::B;
      bytes activations = layers_in_flight(x.layers, i, x.p, y.m, v) * per_layer;
      if (mode == recompute_mode::full) {
        activations += working;
      }
      if (i == 0) {
        const auto in_flight = std::min(x.p, y.m);
        activations += static_cast<double>(in_flight) * y.sbh / sp_divisor * units::B;
      }
      if (i == x.p - 1) {
        activations +=
            (4.0 * y.sbh / sp_divisor + 4.0 * y.sb * static_cast<double>(model.vocab) / t) *
            units::B;
      }
      return weights + gradients + optimizer + activations;
    };
    bytes peak = stage_total(0, x.params_first);
    if (x.p > 2) {
      peak = max(peak, stage_total(1, x.params_middle));
    }
    if (x.p > 1) {
      peak = max(peak, stage_total(x.p - 1, x.params_last));
    }
    return peak;
  }

  /// The step time of the layout, as `evaluate_step` computes it.
  [[nodiscard]] seconds step_time(const pair_terms& x, const batch_terms& y, std::int64_t v,
                                  bool sp, recompute_mode mode, zero_stage zero) const {
    const auto& model = req_.model;
    const auto& opt = req_.options;
    const auto counts = tp_collectives_per_layer(mode, sp);
    seconds tp_layer{};
    if (x.t > 1) {
      tp_layer = counts.all_reduce * y.tp_all_reduce + counts.reduce_scatter * y.tp_reduce_scatter +
                 counts.all_gather * y.tp_all_gather;
    }
    const seconds tp_exposed = (1.0 - opt.tp_overlap) * tp_layer;
    const seconds layer_compute = y.kernels.total(mode) + y.kernels.grad_accumulation;
    const seconds logits_tp = x.t > 1 ? (1.0 - opt.tp_overlap) * y.tp_all_reduce : seconds{};
    const double layers = static_cast<double>(x.layers);
    const seconds per_layer = layer_compute + tp_exposed;
    const bool last_is_slowest = layers * per_layer + y.logits + logits_tp >= layers * per_layer;
    const seconds stage_compute =
        last_is_slowest ? layers * layer_compute + y.logits : layers * layer_compute;
    const seconds stage_tp =
        last_is_slowest ? layers * tp_exposed + logits_tp : layers * tp_exposed;
    const seconds slowest = stage_compute + stage_tp;
    const seconds average =
        static_cast<double>(model.layers) / static_cast<double>(x.p) * per_layer +
        (y.logits + logits_tp) / static_cast<double>(x.p);
    const seconds p2p = x.p > 1 ? 2.0 * static_cast<double>(v) * y.p2p_one[sp ? 1 : 0] : seconds{};
    const double fm = static_cast<double>(y.m);
    const seconds steady = fm * (slowest + p2p);
    const seconds bubble = static_cast<double>(x.p - 1) / static_cast<double>(v) * (average + p2p);
    seconds dp_exposed{};
    if (x.d > 1) {
      const double f = opt.dp_overlap;
      if (zero == zero_stage::none || zero == zero_stage::optimizer) {
        const seconds last_backward = layers * (y.kernels.backward + tp_exposed / 3.0);
        dp_exposed = x.dp_all_reduce - f * min(x.dp_all_reduce, last_backward);
      } else if (zero == zero_stage::gradients) {
        const seconds backward = layers * (y.kernels.backward + tp_exposed / 3.0);
        dp_exposed =
            fm * (x.dp_reduce_scatter - f * min(x.dp_reduce_scatter, backward)) + x.dp_all_gather;
      } else {
        const seconds per_micro_batch = 2.0 * x.dp_all_gather + x.dp_reduce_scatter;
        const seconds compute = layers * layer_compute;
        dp_exposed = fm * (per_micro_batch - f * min(per_micro_batch, compute));
      }
    }
    dp_exposed += x.embedding;
    const seconds optimizer = zero == zero_stage::none ? x.optimizer_full : x.optimizer_sharded;
    return steady + bubble + dp_exposed + optimizer;
  }

  [[nodiscard]] const step_flops& flops_of(recompute_mode mode) const {
    return flops_[static_cast<std::size_t>(mode)];
  }

 private:
  const plan_request& req_;
  std::array<step_flops, 3> flops_{};
};

/// What one worker found.
struct plan_partial {
  explicit plan_partial(std::size_t k) : inside(k), across(k) {}
  best_k inside;  ///< layouts whose TP group stays in a node (or crosses a link as fast)
  best_k across;  ///< layouts whose TP group crosses the slower inter-node link
  plan_counts counts;
};

/// Every layout of one pair through the fast path: counts, the best k, the pair's best.
inline void search_pair(const plan_request& req, const plan_kernel& kernel, const plan_pair& pair,
                        bool penalise_across, plan_partial& out, degree_choice& pair_best) {
  const auto x = kernel.terms_of(pair);
  const auto& model = req.model;
  const bool across = penalise_across && pair.spans_nodes;
  auto& bucket = across ? out.across : out.inside;
  auto& counts = out.counts;
  const auto reject = [&](plan_reason r, std::int64_t n) {
    counts.rejected[static_cast<std::size_t>(r)] += n;
  };
  const std::int64_t zero_max = x.d > 1 ? 3 : 0;
  const std::int64_t sp_options = x.t > 1 ? 2 : 1;
  // b divides G/d; v divides L/p (v > 1 only with p > 1). Two small vectors per pair; the
  // layouts below allocate nothing.
  const auto batches = divisors(req.global_batch / x.d);
  const auto chunks = x.p > 1 ? divisors(model.layers / x.p) : std::vector<std::int64_t>{1};
  for (const auto b : batches) {
    const auto y = kernel.batch_of(x, b);
    for (const auto v : chunks) {
      const std::int64_t per_v = 3 * sp_options * (zero_max + 1);
      counts.layouts += per_v;
      if (v > 1 && y.m % x.p != 0) {
        reject(plan_reason::interleave_batch, per_v);
        continue;
      }
      for (const auto mode :
           {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
        for (std::int64_t sp_i = 0; sp_i < sp_options; ++sp_i) {
          const bool sp = sp_i == 1;
          for (std::int64_t z_i = 0; z_i <= zero_max; ++z_i) {
            const auto zero = static_cast<zero_stage>(z_i);
            if (z_i >= 2 && x.p > 1) {
              reject(plan_reason::zero_with_pp, 1);
              continue;
            }
            ++counts.evaluated;
            const bytes peak = kernel.peak_memory(x, y, v, sp, mode, zero);
            if (!((req.memory_capacity - peak).value() >= 0.0)) {  // memory_report::fits
              reject(plan_reason::memory, 1);
              continue;
            }
            const seconds time = kernel.step_time(x, y, v, sp, mode, zero);
            plan_candidate c;
            c.par.tp = x.t;
            c.par.pp = x.p;
            c.par.dp = x.d;
            c.par.vpp = v;
            c.par.micro_batch = b;
            c.par.global_batch = req.global_batch;
            c.par.sequence_parallel = sp;
            c.par.recompute = mode;
            c.par.zero = zero;
            c.step_time = time;
            c.peak_memory = peak;
            c.tp_spans_nodes = pair.spans_nodes;
            ++pair_best.feasible;
            if (pair_best.feasible == 1 || ranks_before(c, pair_best.best)) {
              pair_best.best = c;
            }
            if (bucket.could_enter(time)) {
              bucket.offer(c);
            }
          }
        }
      }
    }
  }
}

/// The first pair rule that (t, p) breaks, if any.
inline std::optional<plan_reason> pair_rule(const plan_request& req, std::int64_t t,
                                            std::int64_t p) {
  const auto& model = req.model;
  const auto& c = req.constraints;
  const auto g = req.topology.gpus_per_node;
  if ((c.max_tp > 0 && t > c.max_tp) || (c.fixed_tp > 0 && t != c.fixed_tp)) {
    return plan_reason::tp_limit;
  }
  if (model.heads % t != 0) {
    return plan_reason::tp_heads;
  }
  if (kv_heads_of(model) % t != 0) {
    return plan_reason::tp_kv_heads;
  }
  if (ffn_of(model) % t != 0) {
    return plan_reason::tp_ffn;
  }
  if (t <= g ? g % t != 0 : t % g != 0) {
    return plan_reason::tp_straddles;
  }
  if (c.fixed_pp > 0 && p != c.fixed_pp) {
    return plan_reason::pp_limit;
  }
  if (model.layers % p != 0) {
    return plan_reason::pp_layers;
  }
  if (req.global_batch % (req.gpus / (t * p)) != 0) {
    return plan_reason::dp_batch;
  }
  return std::nullopt;
}

inline void validate_request(const plan_request& req) {
  validate(req.model);
  require_dense_mha(req.model, "model");
  validate_step_environment(req.gpu, req.topology, req.options);
  detail::require_degree("gpus", req.gpus, "the number of GPUs");
  detail::require_degree("global_batch", req.global_batch, "the global batch size");
  if (!(req.memory_capacity.value() > 0.0)) {
    throw invalid_spec("memory", "must be a positive number of bytes per GPU");
  }
  if (req.top < 1) {
    throw invalid_spec("top", "must be at least 1");
  }
  if (req.options.activation_bytes < 1) {
    throw invalid_spec("activation_bytes", "must be at least 1");
  }
  const auto& c = req.constraints;
  for (const auto& [field, value] :
       {std::pair{"max-tp", c.max_tp}, std::pair{"fixed-tp", c.fixed_tp},
        std::pair{"fixed-pp", c.fixed_pp}}) {
    if (value < 0 || value > max_parallel_degree) {
      throw invalid_spec(field, std::to_string(value) + " is out of range; expected 1.." +
                                    std::to_string(max_parallel_degree));
    }
  }
  if (req.gpus > req.topology.gpus_per_node && !(req.topology.inter.bandwidth.value() > 0.0)) {
    throw invalid_spec("inter-bandwidth",
                       std::to_string(req.gpus) + " GPUs span nodes of " +
                           std::to_string(req.topology.gpus_per_node) +
                           "; give the inter-node link (e.g. --interconnect ib-ndr)");
  }
}

/// The search without the full evaluation of the winners: counts, the best k, the best per pair.
struct plan_search {
  std::vector<plan_candidate> top;  ///< the best max(top, 2), best first
  std::vector<degree_choice> per_degrees;
  plan_counts counts;
  bool tp_across_nodes_needed = false;
  bool tp_across_nodes_penalised = false;
  unsigned threads = 1;
};

inline plan_search search(const plan_request& req) {
  validate_request(req);
  plan_search out;
  const auto n = req.gpus;
  // The pair rules, in the calling thread: at most a few thousand pairs.
  std::vector<plan_pair> pairs;
  for (const auto t : divisors(n)) {
    for (const auto p : divisors(n / t)) {
      ++out.counts.pairs;
      if (const auto broken = pair_rule(req, t, p)) {
        ++out.counts.rejected[static_cast<std::size_t>(*broken)];
        continue;
      }
      pairs.push_back(
          {.tp = t, .pp = p, .dp = n / (t * p), .spans_nodes = t > req.topology.gpus_per_node});
    }
  }
  out.counts.pairs_searched = static_cast<std::int64_t>(pairs.size());
  std::int64_t estimate = 0;  // layouts to enumerate, for the number of threads
  for (const auto& pair : pairs) {
    estimate += divisor_count(req.global_batch / pair.dp) *
                (pair.pp > 1 ? divisor_count(req.model.layers / pair.pp) : 1) * 3 *
                (pair.tp > 1 ? 2 : 1) * (pair.dp > 1 ? 4 : 1);
  }
  out.tp_across_nodes_penalised = req.topology.inter.bandwidth < req.topology.intra.bandwidth;

  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const unsigned wanted = req.threads == 0 ? hardware : req.threads;
  const auto by_work =
      static_cast<std::size_t>(estimate / std::max<std::int64_t>(1, req.layouts_per_thread)) + 1;
  const unsigned threads = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min({std::size_t{wanted}, pairs.size(), by_work})));
  out.threads = threads;
  const std::size_t k = std::max<std::size_t>(req.top, 2);  // the runner-up is always kept
  const plan_kernel kernel(req);
  std::vector<plan_partial> partials;
  partials.reserve(threads);
  for (unsigned w = 0; w < threads; ++w) {
    partials.emplace_back(k);
  }
  std::vector<degree_choice> pair_best(pairs.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> failures(threads);  // rethrown in the calling thread
  const auto work = [&](unsigned w) {
    try {
      for (std::size_t i = next.fetch_add(1); i < pairs.size(); i = next.fetch_add(1)) {
        search_pair(req, kernel, pairs[i], out.tp_across_nodes_penalised, partials[w],
                    pair_best[i]);
      }
    } catch (...) {
      failures[w] = std::current_exception();
      next = pairs.size();
    }
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (unsigned w = 1; w < threads; ++w) {
      pool.emplace_back(work, w);
    }
    work(0);
    for (auto& thread : pool) {
      thread.join();
    }
  }
  for (const auto& failure : failures) {
    if (failure) {
      std::rethrow_exception(failure);
    }
  }

  // Deterministic merge: the union of every worker's best k, in the total order.
  std::vector<plan_candidate> inside, across;
  std::int64_t across_feasible = 0;
  for (const auto& part : partials) {
    out.counts += part.counts;
    inside.insert(inside.end(), part.inside.items().begin(), part.inside.items().end());
    across.insert(across.end(), part.across.items().begin(), part.across.items().end());
  }
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (pair_best[i].feasible > 0) {
      pair_best[i].mfu =
          model_flops_utilisation(kernel.flops_of(pair_best[i].best.par.recompute).model,
                                  pair_best[i].best.step_time, n, req.gpu.peak);
      if (out.tp_across_nodes_penalised && pairs[i].spans_nodes) {
        across_feasible += pair_best[i].feasible;
      }
      out.per_degrees.push_back(pair_best[i]);
    }
  }
  std::sort(
      out.per_degrees.begin(), out.per_degrees.end(),
      [](const degree_choice& a, const degree_choice& b) { return ranks_before(a.best, b.best); });
  std::sort(inside.begin(), inside.end(), ranks_before);
  std::sort(across.begin(), across.end(), ranks_before);
  const auto& chosen = inside.empty() ? across : inside;
  out.tp_across_nodes_needed = inside.empty() && !across.empty();
  if (!out.tp_across_nodes_needed) {
    out.counts.rejected[static_cast<std::size_t>(plan_reason::tp_across_nodes)] = across_feasible;
  }
  // feasible counted what fit; the across-node ones are proposed only when needed.
  std::int64_t fit = 0;
  for (const auto& d : out.per_degrees) {
    fit += d.feasible;
  }
  out.counts.feasible = out.tp_across_nodes_needed ? fit : fit - across_feasible;
  out.top.assign(chosen.begin(),
                 chosen.begin() + static_cast<std::ptrdiff_t>(std::min(k, chosen.size())));
  return out;
}

}  // namespace detail

/// The step inputs of a request with one layout.
inline step_inputs inputs_for(const plan_request& req, const parallel_config& par) {
  return step_inputs{.model = req.model,
                     .par = par,
                     .gpu = req.gpu,
                     .memory_capacity = req.memory_capacity,
                     .topology = req.topology,
                     .options = req.options};
}

/// Searches every layout of `req` (see the file comment) and evaluates the best `req.top` in
/// full. Throws `invalid_spec` for invalid inputs; an empty `top` means nothing fits (see
/// `no_layout_message`).
inline plan_result plan(const plan_request& req) {
  auto found = detail::search(req);
  plan_result out;
  out.counts = found.counts;
  out.per_degrees = std::move(found.per_degrees);
  out.tp_across_nodes_needed = found.tp_across_nodes_needed;
  out.tp_across_nodes_penalised = found.tp_across_nodes_penalised;
  out.threads = found.threads;
  for (std::size_t i = 0; i < found.top.size(); ++i) {
    planned_layout l{found.top[i], evaluate_step(inputs_for(req, found.top[i].par))};
    if (i == 1) {
      out.runner_up = l;
    }
    if (i < req.top) {
      out.top.push_back(std::move(l));
    }
  }
  return out;
}

/// The first search rule a valid layout breaks, if any (memory aside): what keeps `plan` from
/// proposing it. Call `validate(model, par)` first (evaluate_step does).
inline std::optional<plan_reason> broken_plan_rule(const plan_request& req,
                                                   const parallel_config& par) {
  auto r = req;
  r.gpus = par.tp * par.pp * par.dp;
  r.global_batch = par.global_batch;
  if (const auto broken = detail::pair_rule(r, par.tp, par.pp)) {
    return broken;
  }
  if (par.vpp > 1 && micro_batches(par) % par.pp != 0) {
    return plan_reason::interleave_batch;
  }
  if (static_cast<int>(par.zero) >= 2 && par.pp > 1) {
    return plan_reason::zero_with_pp;
  }
  return std::nullopt;
}

/// A layout in the syntax `parse_layout` reads: "t=8,p=16,d=8,b=1,v=1,sp=off,recompute=full,
/// zero=0".
inline std::string describe_layout(const parallel_config& par) {
  return "t=" + std::to_string(par.tp) + ",p=" + std::to_string(par.pp) +
         ",d=" + std::to_string(par.dp) + ",b=" + std::to_string(par.micro_batch) +
         ",v=" + std::to_string(par.vpp) + ",sp=" + (par.sequence_parallel ? "on" : "off") +
         ",recompute=" + std::string(to_string(par.recompute)) +
         ",zero=" + std::to_string(static_cast<int>(par.zero));
}

/// Reads a layout written as comma-separated key=value pairs, e.g. "t=16,p=4,d=8,b=1,
/// recompute=full": t|tp, p|pp, d|dp, b|mb (micro-batch), v|vpp, sp (on|off), recompute|rc
/// (none|selective|full), zero (0..3). Missing t, b and v are 1, SP off, recompute none, ZeRO 0;
/// a missing d is N/(t·p) and a missing p is N/(t·d) (p = 1 when both are missing). With
/// `gpus` > 0, t·p·d must equal it. Throws `invalid_spec(field, ...)` quoting the text.
inline parallel_config parse_layout(std::string_view text, std::string_view field,
                                    std::int64_t gpus, std::int64_t global_batch) {
  const std::string quoted = "'" + detail::printable(text) + "': ";
  const auto fail = [&](const std::string& detail) -> void {
    throw invalid_spec(std::string(field), quoted + detail);
  };
  parallel_config par;
  par.global_batch = global_batch;
  bool has_p = false, has_d = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    const auto item = detail::trim(text.substr(start, end - start));
    start = end + 1;
    if (item.empty()) {
      if (end == text.size()) {
        break;
      }
      continue;
    }
    const auto eq = item.find('=');
    const auto key = detail::trim(item.substr(0, eq));
    const auto value =
        eq == std::string_view::npos ? std::string_view{"on"} : detail::trim(item.substr(eq + 1));
    const auto count = [&] {
      std::int64_t n = 0;
      try {
        n = parse_count(value, field);
      } catch (const invalid_spec&) {
        fail(std::string(key) + " = '" + detail::printable(value) + "' is not a whole number");
      }
      if (n < 1 || n > max_parallel_degree) {
        fail(std::string(key) + " = " + std::to_string(n) + " is out of range 1.." +
             std::to_string(max_parallel_degree));
      }
      return n;
    };
    if (key == "t" || key == "tp") {
      par.tp = count();
    } else if (key == "p" || key == "pp") {
      par.pp = count();
      has_p = true;
    } else if (key == "d" || key == "dp") {
      par.dp = count();
      has_d = true;
    } else if (key == "b" || key == "mb" || key == "micro_batch" || key == "micro-batch") {
      par.micro_batch = count();
    } else if (key == "v" || key == "vpp") {
      par.vpp = count();
    } else if (key == "sp") {
      if (value == "on" || value == "true" || value == "1" || value == "yes") {
        par.sequence_parallel = true;
      } else if (value == "off" || value == "false" || value == "0" || value == "no") {
        par.sequence_parallel = false;
      } else {
        fail("sp = '" + detail::printable(value) + "'; expected on or off");
      }
    } else if (key == "recompute" || key == "rc") {
      try {
        par.recompute = parse_recompute(value, field);
      } catch (const invalid_spec&) {
        fail("recompute = '" + detail::printable(value) + "'; expected none, selective or full");
      }
    } else if (key == "zero") {
      try {
        par.zero = parse_zero_stage(value, field);
      } catch (const invalid_spec&) {
        fail("zero = '" + detail::printable(value) + "'; expected 0, 1, 2 or 3");
      }
    } else {
      fail("'" + detail::printable(key) +
           "' is not a layout key; expected t, p, d, b, v, sp, recompute, zero");
    }
  }
  if (gpus > 0) {
    if (!has_d) {
      if (gpus % (par.tp * par.pp) != 0) {
        fail("t*p = " + std::to_string(par.tp * par.pp) +
             " does not divide N = " + std::to_string(gpus));
      }
      par.dp = gpus / (par.tp * par.pp);
    } else if (!has_p) {
      if (gpus % (par.tp * par.dp) != 0) {
        fail("t*d = " + std::to_string(par.tp * par.dp) +
             " does not divide N = " + std::to_string(gpus));
      }
      par.pp = gpus / (par.tp * par.dp);
    }
    if (par.tp * par.pp * par.dp != gpus) {
      fail("t*p*d = " + std::to_string(par.tp * par.pp * par.dp) +
           " is not N = " + std::to_string(gpus));
    }
  }
  return par;
}

/// The parts of a step's breakdown, in the order the step reports them.
struct breakdown_part {
  std::string_view key;  ///< JSON key
  seconds step_breakdown::*time;
};
inline constexpr std::array<breakdown_part, 6> breakdown_parts{{
    {"compute", &step_breakdown::compute},
    {"tp_comm", &step_breakdown::tp_comm},
    {"bubble", &step_breakdown::bubble},
    {"p2p", &step_breakdown::p2p},
    {"dp_comm", &step_breakdown::dp_comm},
    {"optimizer", &step_breakdown::optimizer},
}};

/// What separates two evaluated layouts: the layout fields that differ and each part of the
/// step, `other − base`.
struct step_comparison {
  std::vector<std::string> changes;  ///< "t 8 -> 16", one per differing field
  step_breakdown delta;              ///< other − base, part by part
  seconds step_time{};               ///< other − base
  double mfu = 0.0;                  ///< other − base
  std::size_t largest = 0;           ///< index in `breakdown_parts` of the largest |delta|
};

inline step_comparison compare_layouts(const parallel_config& base_par, const step_result& base,
                                       const parallel_config& other_par, const step_result& other) {
  step_comparison out;
  const auto change = [&](const char* name, const std::string& a, const std::string& b) {
    if (a != b) {
      out.changes.push_back(std::string(name) + " " + a + " -> " + b);
    }
  };
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  change("t", n(base_par.tp), n(other_par.tp));
  change("p", n(base_par.pp), n(other_par.pp));
  change("d", n(base_par.dp), n(other_par.dp));
  change("b", n(base_par.micro_batch), n(other_par.micro_batch));
  change("v", n(base_par.vpp), n(other_par.vpp));
  change("sp", base_par.sequence_parallel ? "on" : "off",
         other_par.sequence_parallel ? "on" : "off");
  change("recompute", std::string(to_string(base_par.recompute)),
         std::string(to_string(other_par.recompute)));
  change("zero", n(static_cast<int>(base_par.zero)), n(static_cast<int>(other_par.zero)));
  double largest = -1.0;
  for (std::size_t i = 0; i < breakdown_parts.size(); ++i) {
    const auto member = breakdown_parts[i].time;
    out.delta.*member = other.time.*member - base.time.*member;
    const double size = std::abs((out.delta.*member).value());
    if (size > largest) {
      largest = size;
      out.largest = i;
    }
  }
  out.step_time = other.step_time - base.step_time;
  out.mfu = other.mfu - base.mfu;
  return out;
}

/// A request that works where the asked one does not, and its best layout.
struct plan_alternative {
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;
  plan_candidate best;
};

/// The nearest requests that have a layout: fewer GPUs, more GPUs (same G), a larger global batch
/// (same N). Probes `probes` values one by one each way, then halves or doubles.
struct plan_alternatives {
  std::optional<plan_alternative> fewer_gpus, more_gpus, larger_batch;
};

inline plan_alternatives nearest_workable(const plan_request& req, std::int64_t probes = 256) {
  plan_alternatives out;
  auto probe = [&](std::int64_t gpus, std::int64_t batch) -> std::optional<plan_alternative> {
    auto r = req;
    r.gpus = gpus;
    r.global_batch = batch;
    r.top = 1;
    if (gpus > r.topology.gpus_per_node && !(r.topology.inter.bandwidth.value() > 0.0)) {
      return std::nullopt;
    }
    const auto found = detail::search(r);
    if (found.top.empty()) {
      return std::nullopt;
    }
    return plan_alternative{gpus, batch, found.top.front()};
  };
  // Nearby values one by one, then by halving or doubling.
  for (std::int64_t k = 1; k <= probes && !out.fewer_gpus && req.gpus - k >= 1; ++k) {
    out.fewer_gpus = probe(req.gpus - k, req.global_batch);
  }
  for (std::int64_t n = (req.gpus - probes) / 2; n >= 1 && !out.fewer_gpus; n /= 2) {
    out.fewer_gpus = probe(n, req.global_batch);
  }
  for (std::int64_t k = 1; k <= probes && !out.more_gpus && req.gpus + k <= max_parallel_degree;
       ++k) {
    out.more_gpus = probe(req.gpus + k, req.global_batch);
  }
  for (std::int64_t n = 2 * (req.gpus + probes); n <= max_parallel_degree && !out.more_gpus;
       n *= 2) {
    out.more_gpus = probe(n, req.global_batch);
  }
  for (std::int64_t k = 1;
       k <= probes && !out.larger_batch && req.global_batch + k <= max_parallel_degree; ++k) {
    out.larger_batch = probe(req.gpus, req.global_batch + k);
  }
  for (std::int64_t g = 2 * (req.global_batch + probes);
       g <= max_parallel_degree && !out.larger_batch; g *= 2) {
    out.larger_batch = probe(req.gpus, g);
  }
  return out;
}

/// One line for a search that found nothing: the rules that removed every candidate, with their
/// counts, and the nearest requests that work.
inline std::string no_layout_message(const plan_request& req, const plan_counts& counts,
                                     const plan_alternatives& help) {
  std::string out = "no layout of " + std::to_string(req.gpus) +
                    " GPUs trains this model with G = " + std::to_string(req.global_batch) +
                    ": of " + std::to_string(counts.pairs) + " (t, p) pairs";
  std::string pairs, layouts;
  for (const auto r : all_plan_reasons) {
    const auto n = counts[r];
    if (n == 0) {
      continue;
    }
    auto& list = static_cast<std::size_t>(r) < plan_pair_reason_count ? pairs : layouts;
    list += (list.empty() ? "" : ", ") + std::to_string(n) + " (" + std::string(describe(r)) + ")";
  }
  out += pairs.empty() ? ", none was rejected" : ", rejected " + pairs;
  if (counts.layouts > 0) {
    out += "; of their " + std::to_string(counts.layouts) + " layouts, rejected " +
           (layouts.empty() ? "none" : layouts);
  }
  std::string works;
  const auto add = [&](const std::optional<plan_alternative>& a, const std::string& what) {
    if (a) {
      works += (works.empty() ? "" : "; ") + what + " (best " + describe_layout(a->best.par) + ")";
    }
  };
  add(help.fewer_gpus, help.fewer_gpus ? "--gpus " + std::to_string(help.fewer_gpus->gpus) : "");
  add(help.more_gpus, help.more_gpus ? "--gpus " + std::to_string(help.more_gpus->gpus) : "");
  add(help.larger_batch,
      help.larger_batch ? "--global-batch " + std::to_string(help.larger_batch->global_batch) : "");
  out += works.empty() ? "; nothing near this N or G works either (check the constraints)"
                       : "; what would work: " + works;
  return out;
}

}  // namespace tpcost
