// The fastest parallel layout for a model on a cluster, found by exhaustive search.
//
// The search space, for N GPUs and a global batch of G sequences:
//   t   the TP degree: a divisor of N that divides the attention heads, the KV heads and the MLP
//       size (Megatron-LM splits each over t), at most --max-tp; a TP group either tiles a node
//       (t divides the GPUs per node) or fills whole nodes;
//   p   the pipeline stages: a divisor of N/t, at most L; the layers split over them as
//       Megatron-Core's --decoder-first/last-pipeline-num-layers allow (`candidate_splits`:
//       even, or shorter end stages), so 126 layers can go on 16 stages;
//   cp  the context-parallel degree: a divisor of N/(t·p) at most max_cp (or fixed_cp), with s
//       a multiple of 2·cp (causal load balancing) and a fused attention kernel; the library
//       default max_cp = 1 searches no CP, the CLI's --max-cp defaults to 32 (twice Llama 3's
//       CP = 16 at 128k tokens, arXiv:2407.21783 Sec. 3.3.2);
//   d   = N/(t·p·cp) data-parallel replicas; d must divide G;
//   b   the micro-batch: every divisor of G/d; m = G/(d·b) micro-batches per step;
//   v   interleaved model chunks per GPU: 1, or (with p > 1) every v > 1 with p·v dividing L;
//       Megatron-Core's interleaved schedule needs m >= p;
//   SP  sequence parallelism off, or on (t > 1 only);
//   recomputation none, selective or full;
//   ZeRO stage 0, or (with d > 1) 1, 2 or 3; ZeRO-2 and 3 only without pipeline parallelism
//       (DeepSpeed's pipeline engine refuses them; Megatron-LM's distributed optimizer is
//       stage 1).
// Every candidate that breaks a rule is counted under its first broken rule (plan_reason, in
// the order of the enum); every other one is evaluated: its peak memory per GPU against the
// capacity, then its step time. Those that fit are ranked by step time; equal times are
// ordered by `ranks_before`: less peak memory first, then TP inside a node, smaller t, smaller p,
// larger b, smaller v, recomputation none < selective < full, SP off before on, lower ZeRO stage.
//
// A TP group larger than a node pays the inter-node link on every layer (topology.hpp prices
// it); it is ranked by that cost like any other layout, so no rule hides a layout the model
// rates faster. --max-tp (constraints.max_tp) is there for users who want TP kept in a node.
//
// A cp > 1 layout is costed as evaluate_step costs it (step/long_context.hpp): the stages of
// the view (t, p, d·cp) on sequences of s/cp tokens, G·cp of them, plus
// `long_context_layer_stage` (attention against all s keys, the exposed CP exchange) times
// `long_context_pipeline_factor`.
//
// Speed: the search calls the step model's own stages (step/stages.hpp), each hoisted out of
// the loops that do not change it: per (t, p) `group_stage` (parameters, DP collectives, the
// embedding all-reduce, the optimizer), per (t, p, b) `batch_stage` (the layer's kernel times,
// the TP collectives, the p2p transfer), per layout `peak_memory` and `combine_step`, which
// only add and multiply and do not allocate. `evaluate_step` is the same stages plus the
// validation and the report, so the two cannot disagree. The (t, p, cp, ep, etp) pairs are
// shared among threads, those with the same t, cp, ep and etp by one thread; each keeps its own
// best k, merged in the total order above, so the ranking does not depend on the number of
// threads. The top k are then evaluated in full.
//
// Recompute module sets (`plan_module_sets`, plan --recompute-modules auto): a set changes only
// a selective layout's rerun compute and collectives and three of its memory terms, so every
// set's selective layouts are searched in the pass of the other layouts, the stages shared,
// each set's best kept. A set's layout is skipped, exactly, when a floor of its step time (m
// slowest stages' compute and least exposed all-to-alls, the bubble's average stages, the
// transfers, the optimizer) already loses to that set's best so far, and a layout's
// open sets all at once when even the least of their activation terms does not fit. A set's
// terms that do not depend on p or d are kept across a worker's pairs of one (t, cp, ep, etp).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "tpcost/base/checked.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/comm/expert_parallel.hpp"
#include "tpcost/comm/price_memo.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/memory.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/model/pipeline_parallel.hpp"
#include "tpcost/model/recompute_recipe.hpp"
#include "tpcost/step/compute_model.hpp"
#include "tpcost/step/context_parallel.hpp"
#include "tpcost/step/long_context.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost {

/// Why a candidate was not proposed; each candidate is counted under its first broken rule,
/// in this order. The first ten judge a (t, p, cp, ep, etp) group layout, the others one layout.
enum class plan_reason : int {
  tp_limit,          ///< t above --max-tp, or not --tp (--fixed-tp)
  tp_heads,          ///< t does not divide the attention heads
  tp_kv_heads,       ///< t does not divide the KV heads
  tp_ffn,            ///< t does not divide the MLP size
  tp_straddles,      ///< t neither divides the node size nor fills whole nodes
  pp_limit,          ///< p is not --pp (--fixed-pp)
  pp_layers,         ///< p > L: a stage would hold no layer
  cp_sequence,       ///< cp > 1 that s (2·cp chunks), the heads (a2a), the kernel, MLA or G·cp
                     ///< above 2^24 (the view's batch) refuse
  dp_batch,          ///< d = N/(t·p·cp) does not divide G
  ep_fold,           ///< EP·ETP does not divide the t·cp·d ranks the expert groups fold over
  interleave_batch,  ///< v > 1 with m < p (Megatron-Core's interleaved schedule needs m >= p)
  zero_with_pp,      ///< ZeRO-2/3 with p > 1 (DeepSpeed's pipeline engine refuses it)
  /// --recompute-num-layers auto: full recomputation of a layout that fits without (block 0)
  recompute_unneeded,
  memory,  ///< the fullest stage does not fit the GPU's memory
};

inline constexpr std::size_t plan_reason_count = 14;
/// tp_limit .. ep_fold judge a (t, p, cp, ep, etp) group layout
inline constexpr std::size_t plan_pair_reason_count = 10;

inline constexpr std::array<plan_reason, plan_reason_count> all_plan_reasons{
    plan_reason::tp_limit,           plan_reason::tp_heads,
    plan_reason::tp_kv_heads,        plan_reason::tp_ffn,
    plan_reason::tp_straddles,       plan_reason::pp_limit,
    plan_reason::pp_layers,          plan_reason::cp_sequence,
    plan_reason::dp_batch,           plan_reason::ep_fold,
    plan_reason::interleave_batch,   plan_reason::zero_with_pp,
    plan_reason::recompute_unneeded, plan_reason::memory};

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
    case plan_reason::cp_sequence:
      return "cp_sequence";
    case plan_reason::dp_batch:
      return "dp_batch";
    case plan_reason::ep_fold:
      return "ep_fold";
    case plan_reason::interleave_batch:
      return "interleave_batch";
    case plan_reason::zero_with_pp:
      return "zero_with_pp";
    case plan_reason::recompute_unneeded:
      return "recompute_unneeded";
    case plan_reason::memory:
      break;
  }
  return "memory";
}

/// One line for people: what the rule is.
constexpr std::string_view describe(plan_reason reason) {
  switch (reason) {
    case plan_reason::tp_limit:
      return "t outside --max-tp / --tp";
    case plan_reason::tp_heads:
      return "t does not divide the attention heads";
    case plan_reason::tp_kv_heads:
      return "t does not divide the KV heads";
    case plan_reason::tp_ffn:
      return "t does not divide the MLP size";
    case plan_reason::tp_straddles:
      return "TP group straddles nodes (t neither divides the node nor fills whole nodes)";
    case plan_reason::pp_limit:
      return "p is not --pp";
    case plan_reason::pp_layers:
      return "more stages than layers";
    case plan_reason::cp_sequence:
      return "cp does not split the sequence into 2*cp chunks (or the heads, for a2a; or G*cp > "
             "2^24)";
    case plan_reason::dp_batch:
      return "d = N/(t*p*cp) does not divide the global batch";
    case plan_reason::ep_fold:
      return "ep*etp does not divide the t*cp*d ranks the expert groups fold over";
    case plan_reason::interleave_batch:
      return "interleaving with fewer micro-batches than stages (m < p)";
    case plan_reason::zero_with_pp:
      return "ZeRO-2/3 with pipeline parallelism";
    case plan_reason::recompute_unneeded:
      return "full recomputation of a layout that fits without it (listed as recompute none)";
    case plan_reason::memory:
      break;
  }
  return "does not fit in GPU memory less the reserve";
}

/// Limits the user puts on the search; 0 means none.
struct plan_constraints {
  std::int64_t max_tp = 0;    ///< t <= max_tp
  std::int64_t fixed_tp = 0;  ///< t = fixed_tp
  std::int64_t fixed_pp = 0;  ///< p = fixed_pp
  std::int64_t max_cp = 1;    ///< cp <= max_cp (1: no context parallelism)
  std::int64_t fixed_cp = 0;  ///< cp = fixed_cp (0: any cp up to max_cp)
  std::int64_t fixed_ep = 0;  ///< ep = fixed_ep (0: every ep dividing the experts; MoE only)
  /// etp = fixed_etp (0: every etp dividing the expert FFN size; MoE only)
  std::int64_t fixed_etp = 0;
  std::int64_t fixed_micro_batch = 0;  ///< b = fixed_micro_batch (0: every b dividing G/d)
  std::int64_t fixed_vpp = 0;          ///< v = fixed_vpp (0: every v the pipeline split allows)
  /// ZeRO stage = fixed_zero, 0..3 (-1: every stage the stack allows; stages above 0 need
  /// d > 1)
  int fixed_zero = -1;
  /// The recompute modes searched, bit `1 << mode` each (default: none, selective and full). A
  /// search of other selective modules than an earlier search's needs selective alone: the
  /// layouts without it are the earlier search's.
  unsigned recompute_modes = 0b111U;
  /// --recompute-num-layers auto: a layout with full recomputation checkpoints, by Megatron-Core's
  /// block method, the fewest layers of each model chunk with which it fits (its time the
  /// blend of full recomputation and none, block_recompute_share), instead of the options'
  /// recipe; where no block fits, every layer as the recipe's uniform 1 does.
  bool least_block_layers = false;
};

/// A search: the model, the hardware, how the software runs, N and G, and the limits.
struct plan_request {
  transformer_spec model;
  compute_device gpu;
  bytes memory_capacity{};
  /// Kept free of allocated bytes on every GPU (allocator.hpp: the caching allocator's
  /// fragmentation, the CUDA context, NCCL's buffers): a layout is proposed only when its
  /// fullest stage's peak stays under memory_capacity - memory_reserve.
  bytes memory_reserve{};
  cluster_topology topology;
  step_options options;
  std::int64_t gpus = 0;          ///< N
  std::int64_t global_batch = 0;  ///< G, sequences per step
  /// G is a maximum (--max-global-batch): each layout runs d·⌊G/d⌋ sequences, the largest
  /// multiple of its d (and so of d·b for every micro-batch b searched) up to G, and layouts
  /// are ranked by throughput (samples per second), as Calculon rounds the batch per DP degree.
  bool batch_is_maximum = false;
  plan_constraints constraints;
  /// The recipe every layout runs (precision_device_for: its peak and η, the GPU's support),
  /// and the attention kernel's η and peak for cp > 1. With a recipe that changes the step
  /// (changes_step), every layout is costed as evaluate_step costs it: the linear
  /// GEMMs at the recipe's rate, its wire bytes and its weight copies in memory.
  precision_device precision{};
  std::size_t top = 5;   ///< layouts to return, best first (at least 1)
  unsigned threads = 0;  ///< at most this many threads; 0: every hardware thread
  /// One thread per this many layouts (estimated), so that a small space, done in well under a
  /// millisecond, does not pay for starting threads.
  std::int64_t layouts_per_thread = std::int64_t{1} << 16;
};

/// One layout as the search ranks it.
struct plan_candidate {
  parallel_config par;  ///< par.dp = d, the replicas of the whole model; par.cp: N = t·p·cp·d
  seconds step_time{};
  bytes peak_memory{};  ///< of the fullest stage, per GPU
  bool tp_spans_nodes = false;
  /// Full recomputation as the layout runs it, where it is not the request's recipe as given
  /// (full_layers -1): Megatron's recompute_method and recompute_num_layers, the layers at most
  /// the layout's chunk_layers_bound, or the fewest block layers that fit (least_block_layers).
  recompute_method full_method = recompute_method::uniform;
  std::int64_t full_layers = -1;
  /// Seconds per sequence: what the search ranks by (the step time over the same G unless the
  /// batch is a maximum, so with a fixed G the order is the step time's).
  [[nodiscard]] constexpr seconds time_per_sample() const {
    return step_time / static_cast<double>(par.global_batch);
  }
};

/// The tie order, after the step time: TP inside a node, smaller t, smaller p, smaller cp,
/// smaller ep, smaller etp, larger b, smaller v, recompute none < selective < full (the recipe
/// as given before a method and layers the search chose), SP off < on, lower ZeRO stage, even
/// stages before uneven ones (then fewer layers on the first and last stage). Every field of a
/// layout appears, so two different layouts never tie: the order is total.
constexpr auto tie_key(const plan_candidate& c) {
  const auto& p = c.par;
  return std::tuple{c.tp_spans_nodes,
                    p.tp,
                    p.pp,
                    p.cp,
                    p.ep,
                    p.etp,
                    -p.micro_batch,
                    p.vpp,
                    static_cast<int>(p.recompute),
                    c.full_layers,
                    static_cast<int>(c.full_method),
                    p.sequence_parallel,
                    static_cast<int>(p.zero),
                    p.first_stage_layers,
                    p.last_stage_layers};
}

/// Whether `a` ranks before `b`: a higher throughput (a shorter step over the same batch), or
/// the same and less peak memory per GPU (more headroom for the same speed), or both the same
/// and an earlier `tie_key`.
constexpr bool ranks_before(const plan_candidate& a, const plan_candidate& b) {
  const seconds ta = a.time_per_sample();
  const seconds tb = b.time_per_sample();
  if (ta != tb) {
    return ta < tb;
  }
  if (a.peak_memory != b.peak_memory) {
    return a.peak_memory < b.peak_memory;
  }
  return tie_key(a) < tie_key(b);
}

/// How many candidates were looked at and why the others were dropped.
struct plan_counts {
  std::int64_t pairs = 0;           ///< (t, p) with t·p dividing N
  std::int64_t pairs_searched = 0;  ///< pairs that passed the pair rules
  std::int64_t layouts = 0;         ///< layouts of the searched pairs
  std::int64_t evaluated = 0;       ///< layouts that passed the layout rules: memory checked
  std::int64_t feasible = 0;        ///< fit in memory: ranked
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
  step_result result;  ///< evaluate_step, as `tpcost step` evaluates it
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
  unsigned threads = 1;  ///< threads the search ran on
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
  /// Whether a candidate of this time per sample could still enter.
  [[nodiscard]] bool could_enter(seconds per_sample) const {
    return items_.size() < k_ || !(items_.back().time_per_sample() < per_sample);
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
  std::int64_t cp = 1;
  std::int64_t dp = 1;   ///< N/(t·p·cp)
  std::int64_t ep = 1;   ///< expert parallelism, folded over the t·cp·d ranks of a stage
  std::int64_t etp = 1;  ///< expert tensor parallelism, folded with ep (ep·etp | t·cp·d)
  bool spans_nodes = false;
};

/// The environment of a request (all but the layout): step.hpp's, for both.
using tpcost::environment_of;

/// The pipeline splits searched for L layers on p stages: the default one (even when p divides
/// L), and every split with equal middle stages of ⌈L/p⌉ to ⌈L/p⌉ + 2 layers and end stages
/// no longer than a middle one and at most 3 shorter (the ends also hold the embedding and the
/// output layer; Llama 3 405B ran 7, 8 × 14, 7); with p = 2, the first stage within 3 layers
/// of L/2. At most 13 splits, the default first.
inline std::vector<pipeline_split> candidate_splits(std::int64_t layers, std::int64_t stages) {
  std::vector<pipeline_split> out;
  const auto add = [&](const std::optional<pipeline_split>& split) {
    if (split && std::find(out.begin(), out.end(), *split) == out.end()) {
      out.push_back(*split);
    }
  };
  add(default_split(layers, stages));
  if (stages == 1) {
    return out;
  }
  if (stages == 2) {
    for (std::int64_t first = layers / 2 - 3; first <= (layers + 1) / 2 + 3; ++first) {
      add(split_with_ends(layers, 2, first, layers - first));
    }
    return out;
  }
  const auto high = (layers + stages - 1) / stages;
  for (std::int64_t middle = high; middle <= high + 2; ++middle) {
    for (std::int64_t first = std::max<std::int64_t>(1, middle - 3); first <= middle; ++first) {
      const auto last = layers - (stages - 2) * middle - first;
      if (last >= std::max<std::int64_t>(1, middle - 3) && last <= middle) {
        add(split_with_ends(layers, stages, first, last));
      }
    }
  }
  return out;
}

/// The interleaving degrees a split allows: v divides every stage's layers (1 without PP).
inline std::vector<std::int64_t> chunk_counts(const pipeline_split& split) {
  if (split.stages == 1) {
    return {1};
  }
  auto g = std::gcd(split.first, split.last);
  if (split.stages > 2) {
    g = std::gcd(g, split.middle);
  }
  return divisors(g);
}

/// The global batch a layout of d replicas runs: G, or with G a maximum d·⌊G/d⌋.
constexpr std::int64_t batch_of(const plan_request& req, std::int64_t dp) {
  return req.batch_is_maximum ? req.global_batch / dp * dp : req.global_batch;
}

/// What one worker found. On a cache line of its own: the workers' partials sit side by side
/// in a vector and each bumps its counts per layout, which made the line of its neighbour's
/// best k bounce between cores (the DeepSeek-V3 module-set search gained 20% on 2 threads).
struct alignas(64) plan_partial {
  explicit plan_partial(std::size_t k) : best(k) {}
  best_k best;
  plan_counts counts;
  nccl_price_memo prices;  ///< the worker's collectives, priced once (the search's topology)
};

/// A micro-batch's kernels of a dense and an MoE layer with MLA's down projections, as
/// combine_step adds them (dense_layer_and_ends), with SP or without.
struct layer_kernels {
  layer_compute dense{}, moe{};
};

inline layer_kernels layer_kernels_of(const batch_terms& y, bool sequence_parallel) {
  const std::size_t sp = sequence_parallel ? 1 : 0;
  return {y.kernels[sp].plus(y.mla_down[sp]), y.moe_kernels[sp].plus(y.mla_down[sp])};
}

/// A dense and an MoE layer's compute per micro-batch (layer_times' dense_compute and
/// moe_compute, zero without experts) when selective recomputation reruns `modules`, at its
/// lowest over the ZeRO stages (a floor: the gradient accumulation of whichever stage, fused or
/// not, costs less).
struct layer_compute_pair {
  seconds dense{}, moe{};
};

inline layer_compute_pair layer_compute_of(const step_environment& env, const layer_kernels& k,
                                           recompute_mode mode, unsigned modules) {
  const auto policy = env.options.selective;
  const auto accumulation = [&](const layer_compute& c) {
    return min(accumulation_time(env.options, zero_stage::none, c),
               accumulation_time(env.options, zero_stage::parameters, c));
  };
  layer_compute_pair out;
  out.dense = k.dense.total(mode, policy, modules) + accumulation(k.dense);
  if (is_moe(env.model.moe)) {
    out.moe = k.moe.total(mode, policy, modules) + accumulation(k.moe);
  }
  return out;
}

/// What a module set changes of a layout's memory terms (stage_memory_terms_of): the
/// activations a dense and an MoE layer keep, the working memory of their recomputation, and
/// what fine-grained offloading moves off a dense and an MoE layer.
/// They depend on the pair, b and SP, and not on the split, v or ZeRO stage, which the other
/// terms depend on and the set does not: a layout's terms for one set, with these of another,
/// are that set's terms (a unit test holds them to stage_memory_terms_of).
struct set_memory_terms {
  bytes per_layer{}, per_moe_layer{}, working{};
  bytes offloaded{}, offloaded_moe{};  ///< fine-grained offloading's, which the modules change
  std::uint64_t group = 0;             ///< the worker's group these are of (0: none)
};

template <class Terms>  // stage_memory_terms or layer_activation_terms: the fields they share
inline set_memory_terms set_memory_terms_of(const Terms& t, std::uint64_t group = 0) {
  return {.per_layer = t.per_layer,
          .per_moe_layer = t.per_moe_layer,
          .working = t.working,
          .offloaded = t.offloaded,
          .offloaded_moe = t.offloaded_moe,
          .group = group};
}

inline void use_set_memory_terms(stage_memory_terms& t, const set_memory_terms& s) {
  t.per_layer = s.per_layer;
  t.per_moe_layer = s.per_moe_layer;
  t.working = s.working;
  t.offloaded = s.offloaded;
  t.offloaded_moe = s.offloaded_moe;
}

/// A floor under slowest_stage_of's time: the largest of the first, a middle and the last
/// stage's (with the output layer and MTP modules) compute and MoE layers' least exposed EP
/// all-to-alls. The slowest stage's time is the largest of those stages' compute plus exposed
/// TP and EP (each at least 0 with overlaps in [0, 1]) plus their ends, so at least this. An MoE
/// layer runs at least 4 all-to-alls (moe_layer_times: 2 forward, 2 backward; 6 when the
/// forward is rerun), exposed but for what Megatron's EP overlap hides behind the layer's
/// compute; that exposure grows with the all-to-alls' time, so 4's is a floor. With it a
/// layer's floor, k + max(c − k, 0) or k + c, still grows with its compute k, which
/// list_open_sets needs. The planner's search of many module sets skips a set's layout with it
/// (search_pair). The loads are a split's, the output and all-to-all a micro-batch's.
struct stage_compute_floor {
  stage_load first, middle, last;
  stage_load average;  ///< the model's layers over p: average_stage_time's loads
  double stages = 1.0;
  seconds output{};
  seconds all_to_alls{};  ///< an MoE layer's 4 dispatches and combines, before overlap
  bool ep_overlap = false;

  stage_compute_floor(const step_environment& env, const group_terms& x, const batch_terms& y)
      : first(stage_load_of(x.first_layers, x.moe_first)),
        middle(x.sizes.pp > 2 ? stage_load_of(x.split.middle, x.moe_middle) : stage_load{}),
        last(stage_load_of(x.last_layers, x.moe_last)),
        stages(static_cast<double>(x.sizes.pp)),
        output((1.0 + static_cast<double>(env.model.mtp_layers)) * y.logits +
               static_cast<double>(env.model.mtp_layers) * y.mtp_projection),
        all_to_alls(is_moe(env.model.moe) ? 4.0 * y.dispatch.cost.time : seconds{}),
        ep_overlap(env.options.experts.overlap_comm) {
    average = average_stage_load(env.model, x.sizes.pp);
  }

  /// An MoE layer's compute `k` and its least exposed all-to-alls.
  [[nodiscard]] seconds moe_layer(seconds k) const {
    return k + (ep_overlap ? exposed_after_overlap(all_to_alls, 1.0, k) : all_to_alls);
  }

  [[nodiscard]] seconds operator()(const layer_compute_pair& k) const {
    const seconds moe = moe_layer(k.moe);
    return max(max(first.compute(k.dense, moe), middle.compute(k.dense, moe)),
               last.compute(k.dense, moe) + output);
  }

  /// A floor under average_stage_time (the bubble's unit), from the same parts.
  [[nodiscard]] seconds average_stage(const layer_compute_pair& k) const {
    return average.compute(k.dense, moe_layer(k.moe)) + output / stages;
  }
};

/// What a layout's step adds to its m slowest stages and its bubble's (p−1)/v average stages
/// (combine_step), at its least and the same for every module set: the bubble's p2p transfers,
/// the m transfers that overlap leaves exposed (at most `p2p_overlap` of them hidden), the
/// embedding's and MLA's all-reduces (the DP sync's exposure is at least 0) and the optimizer.
inline seconds layout_floor_parts(const step_environment& env, const group_terms& x,
                                  const batch_terms& y, const layout_choice& c) {
  const seconds p2p = pipeline_p2p_time(x, y, c);
  const seconds p2p_exposed = c.vpp > 1 ? p2p - env.options.p2p_overlap * p2p : p2p;
  return bubble_stages(x.sizes.pp, c.vpp) * p2p +
         static_cast<double>(y.micro_batches) * p2p_exposed + x.embedding +
         (c.sequence_parallel ? x.mla_tp_grad_sync : seconds{}) +
         (c.zero == zero_stage::none ? x.optimizer_full : x.optimizer_sharded);
}

/// The selective layouts of several recompute module sets (plan --recompute-modules auto),
/// searched in the pass of the request's own modes: each set's best, found by one worker (on
/// a cache line of its own, as plan_partial).
struct alignas(64) module_set_partial {
  std::vector<std::optional<plan_candidate>> best;  ///< per set, in the order given
  /// Per set: its best's time per sample (infinite without a best), and the sets slowest first.
  std::vector<seconds> best_time;
  std::vector<std::size_t> slowest_first;
  void resize(std::size_t sets) {
    best.resize(sets);
    best_time.assign(sets, seconds(std::numeric_limits<double>::infinity()));
    slowest_first.resize(sets);
    std::iota(slowest_first.begin(), slowest_first.end(), std::size_t{0});
  }
  /// Set `j`'s new best: moved towards the end of slowest_first, past the sets slower than it.
  void keep(std::size_t j, const plan_candidate& c) {
    best[j] = c;
    best_time[j] = c.time_per_sample();
    auto at = std::find(slowest_first.begin(), slowest_first.end(), j);
    for (auto next = at + 1; next != slowest_first.end() && best_time[*next] > best_time[j];
         ++next, ++at) {
      std::iter_swap(at, next);
    }
  }
  /// The number of `pair`'s group, new when its t, cp, ep or etp differ from the last pair's.
  std::uint64_t group_of(const plan_pair& pair) {
    const std::array<std::int64_t, 4> key{pair.tp, pair.cp, pair.ep, pair.etp};
    if (group == 0 || key != group_key) {
      ++group;
      group_key = key;
      batches.clear();
    }
    return group;
  }
  /// Micro-batch b's slot in the group's terms, and whether it is new (its compute, least and
  /// long-context terms to be filled; its memory terms are filled per set as they are needed).
  std::pair<std::size_t, bool> batch_slot(std::int64_t b) {
    const auto at = std::find(batches.begin(), batches.end(), b);
    if (at != batches.end()) {
      return {static_cast<std::size_t>(at - batches.begin()), false};
    }
    batches.push_back(b);
    const auto slots = batches.size();
    const auto ns = best.size();
    compute.resize(std::max(compute.size(), slots * 2 * ns));
    least.resize(std::max(least.size(), slots * 2));
    lc.resize(std::max(lc.size(), slots * ns));
    lc_low.resize(std::max(lc_low.size(), slots));
    lc_added.resize(std::max(lc_added.size(), slots));
    batch_y.resize(std::max(batch_y.size(), slots));
    batch_placements.resize(std::max(batch_placements.size(), slots));
    memory.resize(std::max(memory.size(), slots * 2 * ns));
    return {slots - 1, true};
  }
  // Room the worker's pairs reuse. The terms of the pairs with the same t, cp, ep and etp (the
  // group numbered `group`), which depend on b, SP and the set but not on p or d
  // (batch_stage's kernels, activation_terms_of, long_context_layer_stage), per b's slot
  // (`batches`, in the order the group met them): per SP and set the layer compute and memory
  // terms, per SP the least compute, per set and per recomputation the long-context terms
  // (long_context_layer_stage reads b, t, cp, ep and etp only). Then per SP and set the
  // floors of one split and b, and the sets left.
  std::uint64_t group = 0;
  std::array<std::int64_t, 4> group_key{};  ///< t, cp, ep, etp
  std::vector<std::int64_t> batches;
  std::vector<layer_compute_pair> compute;
  std::vector<layer_compute_pair> least;  ///< each part's least over the sets
  std::vector<seconds> lc;                ///< the selective long-context terms (zero without)
  std::vector<seconds> lc_low;            ///< the least of them and 0, per b
  /// The request's own modules' long-context terms per recomputation (per_micro_batch's).
  std::vector<std::array<seconds, 3>> lc_added;
  /// batch_stage's terms, and the TP, EP and ETP placements they were priced on.
  std::vector<batch_terms> batch_y;
  std::vector<std::array<group_placement, 3>> batch_placements;
  std::vector<set_memory_terms> memory;
  std::vector<seconds> floors;
  std::vector<seconds> average_floors;  ///< per SP and set: stage_compute_floor::average_stage
  std::array<std::vector<std::size_t>, 2> listed;
  std::vector<std::size_t> open;
};

/// Whether a layout's exact step time can be kept above a floor of its slowest stage's time
/// times its micro-batches (stage_compute_floor) with its bubble and the other parts
/// (layout_floor_parts): every part of combine_step left out is then at least 0, which needs
/// the overlaps it applies to be fractions (validate_request checks the TP and DP ones; the p2p
/// one is a profile's).
inline bool compute_floor_holds(const step_options& o) {
  const auto fraction = [](double f) { return f >= 0.0 && f <= 1.0; };
  return fraction(o.tp_overlap) && fraction(o.dp_overlap) && fraction(o.dp_overlap_zero3) &&
         fraction(o.p2p_overlap);
}

/// How far below a layout's computed time its floor is taken. The floor's stage computes,
/// all-to-alls, transfers and other parts are the very values combine_step sums (the same
/// functions of the same inputs); the step adds their exposed TP and EP and ends, all at least
/// 0, in another order, so it is at least the floor within a few dozen roundings of sums of
/// non-negative terms (about 1e-14 relative). A floor lowered by 1e-9 is below the computed
/// step time.
inline constexpr double compute_floor_margin = 1.0 - 1e-9;

/// For one split and b of a pair, per SP: each set's floor (m times its slowest stage's compute,
/// lowered by the margin), and the sets whose floor with their lowest long-context terms
/// (`factor_max` times their `lc`, when negative) could beat their best so far
/// (all of them without pruning). A set without a best gets no floor (minus infinity) until
/// the next split or b. `compute`: the b's layer compute per SP and set; `lc`: per set its
/// long-context terms, `lc_low` the least of them and 0 (factor_max >= 0 times it is the least of
/// 0 and the products: rounding keeps the order).
/// `least`: per SP, the least dense and MoE compute of any set. stage_floor multiplies each by
/// loads of at least 0 and adds, and rounding keeps that order, so the floor of `least`, with
/// the lowest long-context terms of any set, is at most every set's: the sets whose best is
/// faster than it (the end of slowest_first) are not listed, without a floor of their own.
inline void list_open_sets(module_set_partial& sets, const stage_compute_floor& stage_floor,
                           const layer_compute_pair* compute, const layer_compute_pair* least,
                           std::int64_t sp_options, std::int64_t micro_batches, double factor_max,
                           const seconds* lc, seconds lc_low, std::int64_t global_batch,
                           bool prune) {
  const auto ns = sets.best.size();
  const auto m = static_cast<double>(micro_batches);
  const auto g = static_cast<double>(global_batch);
  const seconds lc_least = factor_max * lc_low;
  for (std::int64_t sp_i = 0; sp_i < sp_options; ++sp_i) {
    auto& listed = sets.listed[static_cast<std::size_t>(sp_i)];
    listed.clear();
    const seconds shared =
        (m * stage_floor(least[static_cast<std::size_t>(sp_i)]) * compute_floor_margin + lc_least) /
        g;
    for (const auto j : sets.slowest_first) {
      const auto i = static_cast<std::size_t>(sp_i) * ns + j;
      auto& floor = sets.floors[i];
      if (!prune || !sets.best[j]) {
        floor = seconds(-std::numeric_limits<double>::infinity());
        listed.push_back(j);
        continue;
      }
      if (shared > sets.best_time[j]) {
        break;  // and every set after it, faster still
      }
      floor = m * stage_floor(compute[i]) * compute_floor_margin;
      sets.average_floors[i] = stage_floor.average_stage(compute[i]);
      const seconds lc_set = min(seconds{}, factor_max * lc[j]);
      if (!((floor + lc_set) / g > sets.best_time[j])) {
        listed.push_back(j);
      }
    }
  }
}

/// How a layout with full recomputation runs it where the request's recipe does not decide that
/// alone: the method and layers per model chunk (-1: the recipe as given), the share of the
/// layers whose forward is rerun, and the layout's peak memory.
struct full_recompute_run {
  recompute_method method = recompute_method::uniform;
  std::int64_t layers = -1;
  double share = 1.0;
  bytes peak{};
};

/// The recipe's method with its layers at most the chunk_layers_bound of p `stages` and v
/// `chunks` (step refuses more), or under least_block_layers the fewest block layers that fit
/// (0 when the layout fits without recomputation).
/// `peak_of(method, layers)` is the layout's peak with those settings, `fits(peak)` whether a
/// peak fits. A layer more checkpointed never needs more memory (it keeps its input where the
/// others keep every activation; stage_memory_at), so bisection finds the fewest; when even the
/// recipe's uniform 1 does not fit, the caller rejects the layout.
template <class PeakOf, class Fits>
full_recompute_run full_recompute_for(const plan_request& req, std::int64_t stages,
                                      std::int64_t chunks, const PeakOf& peak_of,
                                      const Fits& fits) {
  const auto& recipe = req.options.recompute;
  const auto bound = chunk_layers_bound(req.model, stages, chunks);
  full_recompute_run r;
  if (!req.constraints.least_block_layers) {
    r.method = recipe.method;
    r.layers = std::min(recipe.num_layers, bound);
    r.peak = peak_of(r.method, r.layers);
    if (r.method == recompute_method::block) {
      r.share = block_recompute_share(req.model, stages, chunks, r.layers);
    }
    return r;
  }
  r.layers = 1;  // every layer alone, unless fewer block layers fit
  r.peak = peak_of(r.method, r.layers);
  if (!fits(r.peak)) {
    return r;
  }
  // Block 0, no layer rerun, is the layout without recomputation, which the caller drops:
  // tried first, it settles in one evaluation every layout that fits without recomputation.
  if (fits(peak_of(recompute_method::block, 0))) {
    return {.method = recompute_method::block, .layers = 0, .share = 0.0, .peak = r.peak};
  }
  std::int64_t lo = 1;
  std::int64_t hi = bound + 1;  // bound + 1: no block of at most `bound` layers fits
  while (lo < hi) {
    const auto mid = lo + (hi - lo) / 2;
    if (fits(peak_of(recompute_method::block, mid))) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  const double share = lo <= bound ? block_recompute_share(req.model, stages, chunks, lo) : 1.0;
  if (share < 1.0) {  // else every layer is rerun: the recipe's uniform 1, with less memory
    r.method = recompute_method::block;
    r.layers = lo;
    r.share = share;
    r.peak = peak_of(r.method, r.layers);
  }
  return r;
}

/// Every layout of one pair through the stages (stages.hpp), each hoisted out of the loops
/// that do not change it: counts, the best k, the pair's best. With `sets` (and `set_best`
/// of their size), the selective layouts are searched once per module set instead, each set's
/// best kept in `set_best` (neither counted nor ranked with the others): what a search of
/// that set's selective layouts alone would find first. A set's layout whose time cannot
/// beat that set's best so far (its compute floor is slower) is skipped.
inline void search_pair(const plan_request& req, const step_environment& env, const plan_pair& pair,
                        plan_partial& out, degree_choice& pair_best,
                        const std::vector<unsigned>& sets = {},
                        module_set_partial* set_best = nullptr) {
  const auto& model = req.model;
  auto& bucket = out.best;
  auto& counts = out.counts;
  const auto reject = [&](plan_reason r, std::int64_t n) {
    counts.rejected[static_cast<std::size_t>(r)] += n;
  };
  const auto fits = [&](bytes peak) {
    return (req.memory_capacity - req.memory_reserve - peak).value() >= 0.0;
  };
  const auto& limits = req.constraints;
  const unsigned modes = limits.recompute_modes & 0b111U;
  // Full recomputation other than every layer alone: a method and layers per layout.
  const bool by_layers = limits.least_block_layers || !req.options.recompute.full_is_default();
  std::int64_t zero_min = 0;
  std::int64_t zero_max =
      pair.dp > 1 ? static_cast<std::int64_t>(profile_of(env.options.stack).max_zero.value) : 0;
  if (limits.fixed_zero >= 0) {  // --zero: that stage only, where the stack and d allow it
    zero_min = limits.fixed_zero;
    zero_max = std::min<std::int64_t>(zero_max, limits.fixed_zero);
  }
  // Megatron-LM asserts SP for MoE with t > 1 ("When using MoE and tensor parallelism, sequence
  // parallelism must be used"): such pairs search SP on only, like validate_experts.
  const bool sp_required = is_moe(model.moe) && pair.tp > 1;
  const std::int64_t sp_options = pair.tp > 1 && !sp_required ? 2 : 1;
  // b divides G/d; v divides every stage's layers (v > 1 only with p > 1). A few small vectors
  // per pair; the layouts below allocate nothing.
  const auto global_batch = batch_of(req, pair.dp);
  auto batches = divisors(global_batch / pair.dp);
  if (limits.fixed_micro_batch > 0) {  // --micro-batch: that b only, where it divides G/d
    std::erase_if(batches, [&](std::int64_t b) { return b != limits.fixed_micro_batch; });
  }
  // With cp > 1 or a recipe other than BF16, the view of long_context.hpp: (t, p, d·cp) on s/cp
  // tokens, G·cp sequences, the recipe's wire bytes, plus the terms the view leaves out.
  const bool long_context = pair.cp > 1 || changes_step(req.precision.options);
  step_environment view_env = env;
  view_env.model.seq = model.seq / pair.cp;
  if (long_context) {  // as evaluate_step sets its view's options
    view_env.options = view_options(env.options, req.precision.options);
  }
  const auto view_batch = global_batch * pair.cp;
  // Module sets: the view with each set's modules in turn, and each (SP, set)'s compute floor
  // per split and b.
  const bool by_set = set_best != nullptr && !sets.empty();
  const std::size_t ns = by_set ? sets.size() : 0;
  step_environment set_env = by_set ? view_env : step_environment{};
  const bool prune = by_set && compute_floor_holds(view_env.options);
  const std::uint64_t terms_group = by_set ? set_best->group_of(pair) : 0;
  if (by_set) {
    set_best->floors.resize(2 * ns);
    set_best->average_floors.resize(2 * ns);
    set_best->open.reserve(ns);
  }
  const context_parallel cp{.cp = pair.cp, .comm = req.options.cp.comm};
  // The recipe's weight copies per layer (zero for BF16), sharded with the weights by ZeRO-3.
  const auto copies = weight_copies_of(model, req.precision, pair.tp, pair.ep, pair.etp,
                                       zero_stage::none, pair.dp * pair.cp);
  const weight_copies sharded_copies{.per_layer = copies.per_layer,
                                     .shard = static_cast<double>(pair.dp * pair.cp)};
  // The micro-batch stage and the CP layer terms read the pair's groups and b, never the split
  // (batch_stage's comment): computed once per b, they serve every split. Most of their time is
  // NCCL's tuner pricing the TP, MLA, MTP and EP collectives; the worker's memo prices each TP
  // and ETP collective once for every pair with the same t (or etp) and b.
  struct per_micro_batch {
    batch_terms y;
    std::array<seconds, 3> lc_added{};  // per layer and micro-batch, by recomputation
    std::size_t set_slot = 0;           // module sets: the b's slot in the worker's group
  };
  std::vector<per_micro_batch> per_b;
  // Per b, recomputation and SP: the layers' activation terms (activation_terms_of), which the
  // splits, v and ZeRO stages of the pair share.
  std::vector<std::optional<layer_activation_terms>> activations;
  const group_sizes sizes{
      .tp = pair.tp, .pp = pair.pp, .dp = pair.dp * pair.cp, .ep = pair.ep, .etp = pair.etp};
  for (const auto& split : candidate_splits(model.layers, pair.pp)) {
    const auto x = group_stage(view_env, sizes, split, &out.prices);
    auto chunks = chunk_counts(split);
    if (limits.fixed_vpp > 0) {  // --vpp: that v only, where the split allows it
      std::erase_if(chunks, [&](std::int64_t v) { return v != limits.fixed_vpp; });
    }
    if (per_b.empty()) {
      per_b.reserve(batches.size());
      activations.assign(batches.size() * 3 * 2, std::nullopt);
      for (const auto b : batches) {
        // Module sets: a b new to the group gets its slot's compute and long-context terms.
        per_micro_batch terms;
        bool fresh = false;
        if (by_set) {
          std::tie(terms.set_slot, fresh) = set_best->batch_slot(b);
        }
        // batch_stage reads of the pair its t, ep, etp, their groups' placements, d (for m) and
        // p and the hop (the p2p terms): in a group, the slot's terms where the placements are
        // the same (they should be for every p and d; compared so as not to rest on that), with
        // this pair's m and p2p terms.
        const std::array placements{x.tp_group, x.ep_group, x.etp_group};
        if (by_set && !fresh && set_best->batch_placements[terms.set_slot] == placements) {
          terms.y = set_best->batch_y[terms.set_slot];
          terms.y.micro_batches = micro_batches_of(x, b, view_batch);
          add_p2p_terms(terms.y, view_env, x);
        } else {
          terms.y = batch_stage(view_env, x, b, view_batch, &out.prices);
          if (by_set) {
            set_best->batch_y[terms.set_slot] = terms.y;
            set_best->batch_placements[terms.set_slot] = placements;
          }
        }
        if (long_context && by_set && !fresh) {  // the group's, as its first pair had them
          terms.lc_added = set_best->lc_added[terms.set_slot];
        } else if (long_context) {
          const auto lc = long_context_layer_stage(view_env, model, b, pair.tp, cp, req.precision,
                                                   pair.ep, pair.etp);
          for (const auto mode :
               {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
            terms.lc_added[static_cast<std::size_t>(mode)] =
                lc.added(mode, req.options.selective, req.options.recompute.modules);
          }
          seconds low{};
          for (std::size_t j = 0; fresh && j < ns; ++j) {  // the core reruns with core_attn
            const auto added = lc.added(recompute_mode::selective, req.options.selective, sets[j]);
            set_best->lc[terms.set_slot * ns + j] = added;
            low = min(low, added);
          }
          if (fresh) {
            set_best->lc_added[terms.set_slot] = terms.lc_added;
            set_best->lc_low[terms.set_slot] = low;
          }
        } else if (fresh) {  // a slot an earlier group (with cp > 1) may have filled
          std::fill_n(set_best->lc.begin() + static_cast<std::ptrdiff_t>(terms.set_slot * ns), ns,
                      seconds{});
          set_best->lc_low[terms.set_slot] = seconds{};
        }
        per_b.push_back(terms);
        for (std::int64_t sp_i = 0; fresh && sp_i < sp_options; ++sp_i) {
          const auto kernels = layer_kernels_of(terms.y, sp_i == 1 || sp_required);
          const auto at = (terms.set_slot * 2 + static_cast<std::size_t>(sp_i)) * ns;
          layer_compute_pair least;
          for (std::size_t j = 0; j < ns; ++j) {
            const auto k = layer_compute_of(view_env, kernels, recompute_mode::selective, sets[j]);
            least =
                j == 0 ? k : layer_compute_pair{min(least.dense, k.dense), min(least.moe, k.moe)};
            set_best->compute[at + j] = k;
          }
          set_best->least[terms.set_slot * 2 + static_cast<std::size_t>(sp_i)] = least;
        }
      }
    }
    std::size_t bi = 0;
    for (const auto& b_terms : per_b) {
      const auto& y = b_terms.y;  // named, not bound: the lambda below captures them
      const auto& lc_added = b_terms.lc_added;
      // The module sets' floors for this split and b, per SP and set: m times the slowest
      // stage's compute, at most the step time; and the sets whose floor could beat their
      // best so far.
      if (by_set) {
        // The long-context factor at its largest over v: each set's terms, times it, at
        // their lowest when negative (the product falls as the factor grows).
        double factor_max = 0.0;
        for (const auto v : long_context ? chunks : std::vector<std::int64_t>{}) {
          factor_max = std::max(
              factor_max, long_context_pipeline_factor(model.layers, pair.pp, v, y.micro_batches));
        }
        const auto slot = b_terms.set_slot;
        list_open_sets(*set_best, stage_compute_floor(view_env, x, y),
                       &set_best->compute[slot * 2 * ns], &set_best->least[slot * 2], sp_options,
                       y.micro_batches, factor_max, &set_best->lc[slot * ns],
                       set_best->lc_low[slot], global_batch, prune);
      }
      const std::size_t memory_at = b_terms.set_slot * 2 * ns;
      const std::size_t lc_at = b_terms.set_slot * ns;
      ++bi;
      for (const auto v : chunks) {
        const std::int64_t per_v = static_cast<std::int64_t>(std::popcount(modes)) * sp_options *
                                   std::max<std::int64_t>(0, zero_max - zero_min + 1);
        counts.layouts += per_v;
        if (v > 1 && y.micro_batches < pair.pp) {
          reject(plan_reason::interleave_batch, per_v);
          continue;
        }
        // The layout's time and memory as `e` runs it (its options' recompute modules).
        // `added`: the long-context terms of the layout and its modules.
        const double lc_factor =
            long_context ? long_context_pipeline_factor(model.layers, pair.pp, v, y.micro_batches)
                         : 0.0;
        // The layout's stages apart from the per-layer terms (layout_stages) per ZeRO stage:
        // they read no term that SP, no or selective recomputation or a module set changes
        // (stage_states_at), so they are built once per v and ZeRO stage, again only where
        // full recomputation's units or block change them.
        struct known_stages {
          std::int64_t unit_layers, block_layers, offload_layers;
          layout_stages stages;
        };
        std::array<std::optional<known_stages>, 4> stages_by_zero;
        const auto stages_for = [&](const stage_memory_terms& terms,
                                    const weight_copies& with) -> const layout_stages& {
          auto& known = stages_by_zero[static_cast<std::size_t>(terms.zero)];
          if (!known || known->unit_layers != terms.unit_layers ||
              known->block_layers != terms.block_layers ||
              known->offload_layers != terms.offload_layers) {
            known.emplace(known_stages{terms.unit_layers, terms.block_layers, terms.offload_layers,
                                       layout_stages(x, terms, with)});
          }
          return known->stages;
        };
        // The layer activation terms of this b, recomputation and SP, computed once per pair.
        const auto activation_terms =
            [&](recompute_mode mode, std::int64_t sp_i,
                const layout_choice& choice) -> const layer_activation_terms& {
          auto& known = activations[((bi - 1) * 3 + static_cast<std::size_t>(mode)) * 2 +
                                    static_cast<std::size_t>(sp_i)];
          if (!known) {
            known = activation_terms_of(view_env, x, y, choice, view_batch);
          }
          return *known;
        };
        // `share` < 1: the block method, full recomputation for that share of the layers and
        // none for the rest (blend, as evaluate_step costs it).
        const auto candidate = [&](const step_environment& e, const layout_choice& choice,
                                   bytes peak, seconds added, double share = 1.0) {
          seconds time = combine_step(e, x, y, choice).step_time;
          if (share < 1.0) {
            layout_choice none = choice;
            none.recompute = recompute_mode::none;
            time = block_mix(time, combine_step(e, x, y, none).step_time, share);
          }
          if (long_context) {
            time += added;
          }
          plan_candidate c;
          c.par = layout_of(x, y, choice, view_batch);
          c.par.dp = pair.dp;
          c.par.global_batch = global_batch;
          c.par.cp = pair.cp;
          c.step_time = time;
          c.peak_memory = peak;
          c.tp_spans_nodes = pair.spans_nodes;
          return c;
        };
        for (const auto mode :
             {recompute_mode::none, recompute_mode::selective, recompute_mode::full}) {
          const bool per_set = by_set && mode == recompute_mode::selective;
          if (!per_set && (modes & (1U << static_cast<unsigned>(mode))) == 0U) {
            continue;
          }
          for (std::int64_t sp_i = 0; sp_i < sp_options; ++sp_i) {
            for (std::int64_t z_i = zero_min; z_i <= zero_max; ++z_i) {
              const layout_choice choice{.vpp = v,
                                         .sequence_parallel = sp_i == 1 || sp_required,
                                         .recompute = mode,
                                         .zero = static_cast<zero_stage>(z_i)};
              if (!sharding_allowed(env.options, choice.zero, pair.pp)) {
                if (!per_set) {
                  reject(plan_reason::zero_with_pp, 1);
                }
                continue;
              }
              const auto& layout_copies =
                  choice.zero == zero_stage::parameters ? sharded_copies : copies;
              if (per_set) {
                // The sets whose floor, with their long-context terms, could still beat their
                // best so far: the m slowest stages (floors), the bubble's average stages and
                // the rest of the step at its least (layout_floor_parts), lowered by the margin.
                const double bubble = bubble_stages(pair.pp, v);
                const seconds parts = layout_floor_parts(view_env, x, y, choice);
                const auto sp_at = static_cast<std::size_t>(sp_i) * ns;
                auto& open = set_best->open;
                open.clear();
                for (const auto j : set_best->listed[static_cast<std::size_t>(sp_i)]) {
                  const seconds lc = lc_factor * set_best->lc[lc_at + j];
                  if (set_best->best[j] && prune &&
                      (set_best->floors[sp_at + j] +
                       (bubble * set_best->average_floors[sp_at + j] + parts) *
                           compute_floor_margin +
                       min(lc, seconds{})) /
                              static_cast<double>(global_batch) >
                          set_best->best_time[j]) {
                    continue;
                  }
                  open.push_back(j);
                }
                if (open.empty()) {
                  continue;
                }
                // The layout's memory terms, then each open set's own activation terms in them
                // (set_memory_terms). The activation terms a set does not change are the same
                // for every set under selective recomputation (no layer kept whole, the
                // recipe's offload count): those of the request's own modules, once per pair.
                auto terms = memory_terms_of(view_env, x, y, choice, view_batch,
                                             activation_terms(mode, sp_i, choice));
                set_memory_terms low;
                bool same_offload = true;  // the least of the three bounds the peak only then
                for (const auto j : open) {
                  auto& known = set_best->memory[memory_at + sp_at + j];
                  if (known.group != terms_group) {
                    set_env.options.recompute.modules = sets[j];
                    known = set_memory_terms_of(
                        activation_terms_of(set_env, x, y, choice, view_batch), terms_group);
                  }
                  same_offload = same_offload &&
                                 (j == open.front() || (known.offloaded == low.offloaded &&
                                                        known.offloaded_moe == low.offloaded_moe));
                  low = j == open.front()
                            ? known
                            : set_memory_terms{
                                  .per_layer = min(low.per_layer, known.per_layer),
                                  .per_moe_layer = min(low.per_moe_layer, known.per_moe_layer),
                                  .working = min(low.working, known.working),
                                  .offloaded = low.offloaded,
                                  .offloaded_moe = low.offloaded_moe};
                }
                // With the same offloaded terms, the peak grows with each of the three
                // (stage_memory_at multiplies them by factors of at least 0 and adds): with the
                // least of each, a floor of every open set's peak. When even that does not
                // fit, none does.
                // The layout's stages apart from the per-layer terms, which the sets change.
                const auto& stages = stages_for(terms, layout_copies);
                if (open.size() > 1 && same_offload) {
                  auto floor_terms = terms;
                  use_set_memory_terms(floor_terms, low);
                  const bytes least = stages.peak(floor_terms);
                  if (!fits(least)) {
                    continue;
                  }
                }
                for (const auto j : open) {
                  use_set_memory_terms(terms, set_best->memory[memory_at + sp_at + j]);
                  const bytes peak = stages.peak(terms);
                  if (!fits(peak)) {
                    continue;
                  }
                  set_env.options.recompute.modules = sets[j];
                  const auto c =
                      candidate(set_env, choice, peak, lc_factor * set_best->lc[lc_at + j]);
                  const auto& best = set_best->best[j];
                  if (!best || ranks_before(c, *best)) {
                    set_best->keep(j, c);
                  }
                }
                continue;
              }
              ++counts.evaluated;
              const auto& layer_terms = activation_terms(mode, sp_i, choice);
              const auto peak_with = [&](const layer_activation_terms& terms) {
                const auto all = memory_terms_of(view_env, x, y, choice, view_batch, terms);
                return stages_for(all, layout_copies).peak(all);
              };
              full_recompute_run full;
              if (mode == recompute_mode::full && by_layers) {
                auto terms = layer_terms;
                const auto peak_of = [&](recompute_method method, std::int64_t layers) {
                  terms.unit_layers = method == recompute_method::uniform ? layers : 1;
                  terms.block_layers = method == recompute_method::block ? layers : -1;
                  return peak_with(terms);
                };
                full = full_recompute_for(req, pair.pp, v, peak_of, fits);
              } else {
                full.peak = peak_with(layer_terms);
              }
              if (!fits(full.peak)) {
                reject(plan_reason::memory, 1);
                continue;
              }
              if (full.method == recompute_method::block && full.layers == 0 &&
                  limits.least_block_layers) {
                reject(plan_reason::recompute_unneeded, 1);
                continue;
              }
              const auto at = static_cast<std::size_t>(mode);
              const auto none_at = static_cast<std::size_t>(recompute_mode::none);
              auto c = candidate(view_env, choice, full.peak,
                                 lc_factor * block_mix(lc_added[at], lc_added[none_at], full.share),
                                 full.share);
              c.full_method = full.method;
              c.full_layers = full.layers;
              ++pair_best.feasible;
              if (pair_best.feasible == 1 || ranks_before(c, pair_best.best)) {
                pair_best.best = c;
              }
              if (bucket.could_enter(c.time_per_sample())) {
                bucket.offer(c);
              }
            }
          }
        }
      }
    }
  }
}

/// The first pair rule that (t, p, cp) breaks, if any.
inline std::optional<plan_reason> pair_rule(const plan_request& req, std::int64_t t, std::int64_t p,
                                            std::int64_t cp = 1, std::int64_t folded = 1) {
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
  if (ffn_of(model) % t != 0 || (model.moe.shared_experts > 0 &&
                                 shared_ffn_of(model.moe) * model.moe.shared_experts % t != 0)) {
    return plan_reason::tp_ffn;
  }
  if (t <= g ? g % t != 0 : t % g != 0) {
    return plan_reason::tp_straddles;
  }
  if (c.fixed_pp > 0 && p != c.fixed_pp) {
    return plan_reason::pp_limit;
  }
  if (p > model.layers) {
    return plan_reason::pp_layers;
  }
  if (cp > 1) {
    // validate(context_parallel) without the exception: 2·cp chunks, a2a's head split.
    const context_parallel layout{.cp = cp, .comm = req.options.cp.comm};
    const auto group = a2a_group_size(model, t, layout, g);
    const auto heads = model.heads / t;
    const auto kv = kv_heads_of(model) / t;
    // The long-context step runs its view on G·cp sequences, which evaluate_step (and so
    // `tpcost step --cp`) accepts up to 2^24: beyond it, no layout step could evaluate.
    const bool view_batch_fits = batch_of(req, req.gpus / (t * p * cp)) * cp <= max_parallel_degree;
    if (req.options.attention != attention_kernel::fused || model.seq % (2 * cp) != 0 ||
        !view_batch_fits || (group > 1 && (heads % group != 0 || kv < group || kv % group != 0))) {
      return plan_reason::cp_sequence;
    }
  }
  const auto d = req.gpus / (t * p * cp);
  if (req.batch_is_maximum ? req.global_batch < d : req.global_batch % d != 0) {
    return plan_reason::dp_batch;
  }
  // validate_experts: the expert groups, `folded` = ep·etp ranks, fold over the t·cp·d ranks
  // of a stage.
  if ((t * cp * d) % folded != 0) {
    return plan_reason::ep_fold;
  }
  return std::nullopt;
}

inline void validate_request(const plan_request& req) {
  validate(req.model);
  validate_step_environment(req.gpu, req.topology, req.options);
  detail::require_degree("gpus", req.gpus, "the number of GPUs");
  detail::require_degree("global_batch", req.global_batch, "the global batch size");
  if (!(req.memory_capacity.value() > 0.0)) {
    throw invalid_spec("memory", "must be a positive number of bytes per GPU");
  }
  validate_memory_reserve(req.memory_reserve, req.memory_capacity);
  if (req.top < 1) {
    throw invalid_spec("top", "must be at least 1");
  }
  if (req.options.activation_bytes < 1) {
    throw invalid_spec("activation_bytes", "must be at least 1");
  }
  const auto& c = req.constraints;
  for (const auto& [field, value] : {std::pair{"max-tp", c.max_tp}, std::pair{"tp", c.fixed_tp},
                                     std::pair{"pp", c.fixed_pp}, std::pair{"cp", c.fixed_cp}}) {
    if (value < 0 || value > max_parallel_degree) {
      throw invalid_spec(field, std::to_string(value) + " is out of range; expected 1.." +
                                    std::to_string(max_parallel_degree));
    }
  }
  // A fixed t or p that no layout of N can have: said here, in one line, rather than as a
  // search that rejects every candidate.
  if (c.fixed_tp > 0 && req.gpus % c.fixed_tp != 0) {
    throw invalid_spec("tp", "t = " + std::to_string(c.fixed_tp) +
                                 " does not divide N = " + std::to_string(req.gpus) + " GPUs");
  }
  if (c.fixed_pp > 0 && c.fixed_pp > req.model.layers) {
    throw invalid_spec("pp", "p = " + std::to_string(c.fixed_pp) + " is more stages than the " +
                                 std::to_string(req.model.layers) + " layers");
  }
  if (c.fixed_pp > 0 && req.gpus % c.fixed_pp != 0) {
    throw invalid_spec("pp", "p = " + std::to_string(c.fixed_pp) +
                                 " does not divide N = " + std::to_string(req.gpus) + " GPUs");
  }
  if (c.fixed_tp > 0 && c.fixed_pp > 0 && req.gpus % (c.fixed_tp * c.fixed_pp) != 0) {
    throw invalid_spec("pp", "t*p = " + std::to_string(c.fixed_tp) + "*" +
                                 std::to_string(c.fixed_pp) +
                                 " does not divide N = " + std::to_string(req.gpus) + " GPUs");
  }
  if (c.fixed_ep < 0 || c.fixed_ep > max_parallel_degree) {
    throw invalid_spec("ep", std::to_string(c.fixed_ep) + " is out of range; expected 1.." +
                                 std::to_string(max_parallel_degree));
  }
  if (c.fixed_ep > 1 && !is_moe(req.model.moe)) {
    throw invalid_spec("ep",
                       "expert parallelism needs a mixture-of-experts model; this one is dense");
  }
  if (c.fixed_ep > 0 && is_moe(req.model.moe) && req.model.moe.experts % c.fixed_ep != 0) {
    throw invalid_spec("ep", "EP = " + std::to_string(c.fixed_ep) + " does not divide the " +
                                 std::to_string(req.model.moe.experts) +
                                 " experts; each GPU of the group holds E/EP whole experts");
  }
  if (c.fixed_etp < 0 || c.fixed_etp > max_parallel_degree) {
    throw invalid_spec("etp", std::to_string(c.fixed_etp) + " is out of range; expected 1.." +
                                  std::to_string(max_parallel_degree));
  }
  if (c.fixed_etp > 1 && !is_moe(req.model.moe)) {
    throw invalid_spec("etp",
                       "expert parallelism needs a mixture-of-experts model; this one is dense");
  }
  if (c.fixed_etp > 0 && is_moe(req.model.moe) && req.model.moe.expert_ffn % c.fixed_etp != 0) {
    throw invalid_spec("etp", "ETP = " + std::to_string(c.fixed_etp) +
                                  " does not divide the expert FFN size " +
                                  std::to_string(req.model.moe.expert_ffn));
  }
  if (c.max_cp < 1 || c.max_cp > max_parallel_degree) {
    throw invalid_spec("max-cp", std::to_string(c.max_cp) + " is out of range; expected 1.." +
                                     std::to_string(max_parallel_degree));
  }
  if (c.fixed_cp > 0) {
    if (req.gpus % c.fixed_cp != 0) {
      throw invalid_spec("cp", std::to_string(c.fixed_cp) +
                                   " does not divide N = " + std::to_string(req.gpus) + " GPUs");
    }
    // The sequence split (2·cp chunks) and a2a's head split, named as step names them.
    validate(context_parallel{.cp = c.fixed_cp, .comm = req.options.cp.comm}, req.model, 1,
             req.topology.gpus_per_node, "cp");
  }
  if (req.precision.options.fp8_param_gather &&
      req.precision.options.linear == linear_precision::bf16) {
    throw invalid_spec(
        "precision", "--fp8-param-gather needs an FP8 precision (Megatron requires --fp8-format)");
  }
  if (c.fixed_micro_batch < 0 || c.fixed_micro_batch > max_parallel_degree) {
    throw invalid_spec("micro-batch", std::to_string(c.fixed_micro_batch) +
                                          " is out of range; expected 1.." +
                                          std::to_string(max_parallel_degree));
  }
  if (c.fixed_micro_batch > 0 && !req.batch_is_maximum &&
      req.global_batch % c.fixed_micro_batch != 0) {
    throw invalid_spec("micro-batch",
                       "b = " + std::to_string(c.fixed_micro_batch) + " does not divide G = " +
                           std::to_string(req.global_batch) + " sequences (b must divide G/d)");
  }
  if (c.fixed_vpp < 0 || c.fixed_vpp > req.model.layers) {
    throw invalid_spec("vpp", std::to_string(c.fixed_vpp) + " is out of range; expected 1.." +
                                  std::to_string(req.model.layers) +
                                  " (v model chunks per GPU, each at least one layer)");
  }
  if (c.fixed_vpp > 1 && c.fixed_pp == 1) {
    throw invalid_spec("vpp", "v = " + std::to_string(c.fixed_vpp) +
                                  " interleaves pipeline stages; p = 1 has none");
  }
  if (c.fixed_zero < -1 || c.fixed_zero > 3) {
    throw invalid_spec("zero", std::to_string(c.fixed_zero) + " is not a ZeRO stage 0..3");
  }
  if (c.fixed_zero > static_cast<int>(profile_of(req.options.stack).max_zero.value)) {
    throw invalid_spec(
        "zero", "ZeRO-" + std::to_string(c.fixed_zero) + " is beyond the " +
                    std::string(profile_of(req.options.stack).name) + " stack's stages 0.." +
                    std::to_string(static_cast<int>(profile_of(req.options.stack).max_zero.value)));
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
  unsigned threads = 1;
  /// With module sets: each set's best selective layout, if one fits (search_pair).
  std::vector<std::optional<plan_candidate>> set_best;
};

/// The search of `req`; with `sets`, the selective layouts of each module set too
/// (search_pair), whatever `req`'s modes.
inline plan_search search(const plan_request& req, const std::vector<unsigned>& sets = {}) {
  validate_request(req);
  plan_search out;
  const auto n = req.gpus;
  // The pair rules, in the calling thread: at most a few thousand pairs.
  std::vector<plan_pair> pairs;
  const auto& limits = req.constraints;
  // ep over the divisors of the experts and etp over those of the expert FFN size
  // (validate_experts), or --ep / --etp; a dense model has ep = etp = 1. Every (ep, etp) counts
  // as a pair; those with ep·etp not dividing t·cp·d are rejected (ep_fold).
  std::vector<std::int64_t> eps{1};
  std::vector<std::int64_t> etps{1};
  if (is_moe(req.model.moe)) {
    eps = limits.fixed_ep > 0 ? std::vector<std::int64_t>{limits.fixed_ep}
                              : divisors(req.model.moe.experts);
    etps = limits.fixed_etp > 0 ? std::vector<std::int64_t>{limits.fixed_etp}
                                : divisors(req.model.moe.expert_ffn);
  }
  const auto ep_count = static_cast<std::int64_t>(eps.size() * etps.size());
  for (const auto t : divisors(n)) {
    for (const auto p : divisors(n / t)) {
      // cp over the divisors of N/(t·p) up to max_cp (or fixed_cp): the others are no layout.
      for (const auto cp : divisors(n / (t * p))) {
        if (limits.fixed_cp > 0 ? cp != limits.fixed_cp : cp > limits.max_cp) {
          continue;
        }
        out.counts.pairs += ep_count;
        if (const auto broken = pair_rule(req, t, p, cp)) {
          out.counts.rejected[static_cast<std::size_t>(*broken)] += ep_count;
          continue;
        }
        for (const auto ep : eps) {
          for (const auto etp : etps) {
            if (const auto broken = pair_rule(req, t, p, cp, ep * etp)) {
              ++out.counts.rejected[static_cast<std::size_t>(*broken)];
              continue;
            }
            pairs.push_back({.tp = t,
                             .pp = p,
                             .cp = cp,
                             .dp = n / (t * p * cp),
                             .ep = ep,
                             .etp = etp,
                             .spans_nodes = t > req.topology.gpus_per_node});
          }
        }
      }
    }
  }
  out.counts.pairs_searched = static_cast<std::int64_t>(pairs.size());
  std::int64_t estimate = 0;  // layouts to enumerate, for the number of threads
  for (const auto& pair : pairs) {
    estimate += divisor_count(batch_of(req, pair.dp) / pair.dp) *
                (pair.pp > 1 ? 13 * divisor_count((req.model.layers + pair.pp - 1) / pair.pp) : 1) *
                3 * (pair.tp > 1 ? 2 : 1) * (pair.dp > 1 ? 4 : 1);
  }

  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const unsigned wanted = req.threads == 0 ? hardware : req.threads;
  const auto by_work =
      static_cast<std::size_t>(estimate / std::max<std::int64_t>(1, req.layouts_per_thread)) + 1;
  const unsigned threads = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min({std::size_t{wanted}, pairs.size(), by_work})));
  out.threads = threads;
  const std::size_t k = std::max<std::size_t>(req.top, 2);  // the runner-up is always kept
  const auto env = environment_of(req);
  std::vector<plan_partial> partials;
  partials.reserve(threads);
  for (unsigned w = 0; w < threads; ++w) {
    partials.emplace_back(k);
  }
  std::vector<module_set_partial> set_partials(threads);
  for (auto& part : set_partials) {
    part.resize(sets.size());
  }
  std::vector<degree_choice> pair_best(pairs.size());
  // The search order: the pairs of one (t, cp, ep, etp) one after the other, p ascending, and
  // with module sets each such group searched by one worker, which reuses the sets' terms
  // across its pairs (module_set_partial::group_of); without, a worker takes one pair at a time
  // (whole groups would leave a thread idle behind a large one). The order changes no result:
  // every pair's layouts are searched, and the merge below is in the total order.
  const auto group_key = [&](std::size_t i) {
    const auto& q = pairs[i];
    return std::tuple{q.tp, q.cp, q.ep, q.etp};
  };
  std::vector<std::size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return group_key(a) < group_key(b); });
  std::vector<std::size_t> group_starts;  // into `order`, then its size
  for (std::size_t at = 0; at < order.size(); ++at) {
    if (at == 0 || sets.empty() || group_key(order[at]) != group_key(order[at - 1])) {
      group_starts.push_back(at);
    }
  }
  group_starts.push_back(order.size());
  const std::size_t groups = group_starts.size() - 1;
  std::atomic<std::size_t> next{0};
  // A worker's failure and where in the search order it failed. The one rethrown (in the
  // calling thread) is the failure of the first pair in search order, as one thread would meet
  // it: a worker that fails stops the others taking new groups, but every group before its own
  // was taken already (the counter only grows) and is searched to its end, so the message does
  // not depend on timing.
  struct failure {
    std::size_t at = 0;
    std::exception_ptr error;
  };
  std::vector<failure> failures(threads);
  const auto work = [&](unsigned w) {
    std::size_t at = 0;
    try {
      for (std::size_t g = next.fetch_add(1); g < groups; g = next.fetch_add(1)) {
        for (at = group_starts[g]; at < group_starts[g + 1]; ++at) {
          // The pair's best in a local first: neighbouring entries of pair_best are other
          // workers' pairs, and one cache line would bounce between them on every layout.
          degree_choice local;
          search_pair(req, env, pairs[order[at]], partials[w], local, sets, &set_partials[w]);
          pair_best[order[at]] = local;
        }
      }
    } catch (...) {
      failures[w] = {.at = at, .error = std::current_exception()};
      next = groups;
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
  const failure* first = nullptr;
  for (const auto& f : failures) {
    if (f.error && (first == nullptr || f.at < first->at)) {
      first = &f;
    }
  }
  if (first != nullptr) {
    std::rethrow_exception(first->error);
  }

  // Deterministic merge: the union of every worker's best k, in the total order.
  std::vector<plan_candidate> ranked;
  for (const auto& part : partials) {
    out.counts += part.counts;
    ranked.insert(ranked.end(), part.best.items().begin(), part.best.items().end());
  }
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    out.counts.feasible += pair_best[i].feasible;
    if (pair_best[i].feasible > 0) {
      const auto& best = pair_best[i].best;
      pair_best[i].mfu = model_flops_utilisation(
          flops_per_step(req.model, best.par.global_batch, req.model.seq, best.par.recompute,
                         flops_convention::full, req.options.selective)
              .model,
          best.step_time, n, req.gpu.peak);
      out.per_degrees.push_back(pair_best[i]);
    }
  }
  std::sort(
      out.per_degrees.begin(), out.per_degrees.end(),
      [](const degree_choice& a, const degree_choice& b) { return ranks_before(a.best, b.best); });
  std::sort(ranked.begin(), ranked.end(), ranks_before);
  // Each set's best over the workers, in the same total order: the same whichever worker
  // searched which pair.
  out.set_best.resize(sets.size());
  for (const auto& part : set_partials) {
    for (std::size_t j = 0; j < sets.size(); ++j) {
      const auto& c = part.best[j];
      if (c && (!out.set_best[j] || ranks_before(*c, *out.set_best[j]))) {
        out.set_best[j] = c;
      }
    }
  }
  out.top.assign(ranked.begin(),
                 ranked.begin() + static_cast<std::ptrdiff_t>(std::min(k, ranked.size())));
  return out;
}

}  // namespace detail

/// The step inputs of a request with one layout (its cp in par.cp): the request's recipe and
/// CP exchange with it.
inline step_inputs inputs_for(const plan_request& req, const parallel_config& par) {
  step_inputs in{.model = req.model,
                 .par = par,
                 .gpu = req.gpu,
                 .precision = req.precision,
                 .memory_capacity = req.memory_capacity,
                 .topology = req.topology,
                 .options = req.options};
  return in;
}

/// The recompute recipe layout `c` of `req` runs: the request's, with the method and layers the
/// search ran full recomputation with.
inline recompute_recipe recompute_recipe_of(const plan_request& req, const plan_candidate& c) {
  auto recipe = req.options.recompute;
  if (c.full_layers >= 0) {
    recipe.method = c.full_method;
    recipe.num_layers = c.full_layers;
  }
  return recipe;
}

/// The full evaluation of a layout of `req`: evaluate_step, as `tpcost step` evaluates it, so
/// that plan's numbers are step's.
inline planned_layout evaluate_planned(const plan_request& req, const plan_candidate& c) {
  auto in = inputs_for(req, c.par);
  in.options.recompute = recompute_recipe_of(req, c);
  return {c, evaluate_step(in)};
}

namespace detail {

/// The result of a search: its counts and pairs, and the best `req.top` evaluated in full.
inline plan_result planned_of(const plan_request& req, plan_search found) {
  plan_result out;
  out.counts = found.counts;
  out.per_degrees = std::move(found.per_degrees);
  out.threads = found.threads;
  for (std::size_t i = 0; i < found.top.size(); ++i) {
    auto l = evaluate_planned(req, found.top[i]);
    if (i == 1) {
      out.runner_up = l;
    }
    if (i < req.top) {
      out.top.push_back(std::move(l));
    }
  }
  return out;
}

}  // namespace detail

/// Searches every layout of `req` (see the file comment) and evaluates the best `req.top` in
/// full. Throws `invalid_spec` for invalid inputs; an empty `top` means nothing fits (see
/// `no_layout_message`).
inline plan_result plan(const plan_request& req) {
  return detail::planned_of(req, detail::search(req));
}

/// `plan(req)` (with `req`'s own recompute modes: none and full for `plan --recompute-modules
/// auto`) and, in the same pass over the layouts, each module set's best selective layout,
/// evaluated in full with that set's modules: `best[j]` is the first layout of
/// `plan(req_j).top`, req_j being `req` with the modules `sets[j]` and the selective mode alone
/// (a unit test holds the two to each other), or nothing when no such layout fits.
struct module_sets_plan {
  plan_result own;
  std::vector<std::optional<planned_layout>> best;  ///< per set, in the order of `sets`
};

inline module_sets_plan plan_module_sets(const plan_request& req,
                                         const std::vector<unsigned>& sets) {
  auto found = detail::search(req, sets);
  module_sets_plan out;
  out.best.resize(sets.size());
  for (std::size_t j = 0; j < sets.size(); ++j) {
    if (found.set_best[j]) {
      auto set_req = req;
      set_req.options.recompute.modules = sets[j];
      set_req.constraints.recompute_modes = 1U << static_cast<unsigned>(recompute_mode::selective);
      out.best[j] = evaluate_planned(set_req, *found.set_best[j]);
    }
  }
  out.own = detail::planned_of(req, std::move(found));
  return out;
}

/// The first search rule a valid layout breaks, if any (memory aside): what keeps `plan` from
/// proposing it. Call `validate(model, par)` first (evaluate_step does).
inline std::optional<plan_reason> broken_plan_rule(const plan_request& req,
                                                   const parallel_config& par,
                                                   std::int64_t cp = 1) {
  auto r = req;
  r.gpus = par.tp * par.pp * par.dp * cp;
  r.global_batch = par.global_batch;
  if (const auto broken = detail::pair_rule(r, par.tp, par.pp, cp, par.ep * par.etp)) {
    return broken;
  }
  if (par.vpp > 1 && micro_batches(par) < par.pp) {
    return plan_reason::interleave_batch;
  }
  if (!sharding_allowed(req.options, par.zero, par.pp)) {
    return plan_reason::zero_with_pp;
  }
  return std::nullopt;
}

/// What a layout string may carry beyond the degrees: the CP exchange and the MoE token
/// dispatcher, written when the search chose them (plan --cp-comm-type auto,
/// --moe-token-dispatcher auto) so that `--compare` costs the layout as the search did.
struct layout_choices {
  std::optional<cp_comm_type> cp_comm;
  std::optional<token_dispatcher> dispatcher;
  /// What selective recomputation reruns (recompute_recipe.hpp's bits; plan
  /// --recompute-modules auto).
  std::optional<unsigned> recompute_modules;
  /// Full recomputation's method and layers per model chunk (Megatron's recompute_method and
  /// recompute_num_layers), where not every layer alone: what the search chose under
  /// --recompute-num-layers auto, or the recipe's layers bounded by the layout's chunk.
  std::optional<recompute_method> full_method;
  std::int64_t full_layers = 1;
};

/// `recipe` with the full recomputation `choices` name, if they name one.
inline recompute_recipe full_recompute_of(recompute_recipe recipe, const layout_choices& choices) {
  if (choices.full_method) {
    recipe.method = *choices.full_method;
    recipe.num_layers = choices.full_layers;
  }
  return recipe;
}

/// The recompute column of a layout: none, selective, full, or with a method and layers other
/// than every layer alone, "block:2" or "uniform:2".
inline std::string recompute_label(recompute_mode mode, const layout_choices& choices) {
  if (mode == recompute_mode::full && choices.full_method) {
    return std::string(to_string(*choices.full_method)) + ":" + std::to_string(choices.full_layers);
  }
  return std::string(to_string(mode));
}

/// `choices` with the full recomputation `c` runs, where it is not every layer alone.
inline layout_choices with_full_recompute(layout_choices choices, const plan_candidate& c) {
  if (c.par.recompute == recompute_mode::full && c.full_layers >= 0 &&
      !(c.full_method == recompute_method::uniform && c.full_layers == 1)) {
    choices.full_method = c.full_method;
    choices.full_layers = c.full_layers;
  }
  return choices;
}

/// A layout in the syntax `parse_plan_layout` reads: "t=8,p=16,d=8,b=1,v=1,sp=off,
/// recompute=full,zero=0" (",cp=4" after p when cp > 1, then ",ep=8" when ep > 1; the
/// `choices` given last, as ",cp_comm=a2a" (cp > 1 only), ",dispatcher=deep-ep" (ep > 1 only),
/// ",modules=core_attn+mlp" (selective only) and ",block=2" or ",uniform=2" (full only)).
inline std::string describe_layout(const parallel_config& par, std::int64_t cp = 1,
                                   const layout_choices& choices = {}) {
  return "t=" + std::to_string(par.tp) + ",p=" + std::to_string(par.pp) +
         (cp > 1 ? ",cp=" + std::to_string(cp) : std::string()) +
         (par.ep > 1 ? ",ep=" + std::to_string(par.ep) : std::string()) +
         (par.etp > 1 ? ",etp=" + std::to_string(par.etp) : std::string()) +
         ",d=" + std::to_string(par.dp) + ",b=" + std::to_string(par.micro_batch) +
         ",v=" + std::to_string(par.vpp) + ",sp=" + (par.sequence_parallel ? "on" : "off") +
         ",recompute=" + std::string(to_string(par.recompute)) +
         ",zero=" + std::to_string(static_cast<int>(par.zero)) +
         (par.first_stage_layers > 0 ? ",first=" + std::to_string(par.first_stage_layers) : "") +
         (par.last_stage_layers > 0 ? ",last=" + std::to_string(par.last_stage_layers) : "") +
         (choices.cp_comm && cp > 1 ? ",cp_comm=" + std::string(to_string(*choices.cp_comm))
                                    : std::string()) +
         (choices.dispatcher && par.ep > 1
              ? ",dispatcher=" + std::string(to_string(*choices.dispatcher))
              : std::string()) +
         (choices.recompute_modules && par.recompute == recompute_mode::selective
              ? ",modules=" + recompute_modules_to_string(*choices.recompute_modules, '+')
              : std::string()) +
         (choices.full_method && par.recompute == recompute_mode::full
              ? "," + std::string(to_string(*choices.full_method)) + "=" +
                    std::to_string(choices.full_layers)
              : std::string());
}

/// The recompute module sets `plan --recompute-modules auto` searches: every non-empty set of
/// the modules the model has (core_attn and layernorm always; mlp with dense MLP layers; moe_act
/// and moe with experts; shared_experts with shared experts; mla_up_proj with MLA), less the sets
/// holding moe with moe_act or shared_experts, which the whole MoE layer's recomputation already
/// reruns (Megatron-Core core_v0.16.0, moe_layer.py). Megatron's default, core_attn, comes first.
inline std::vector<unsigned> recompute_module_sets(const transformer_spec& model) {
  using m = recompute_module;
  const auto bit = [](recompute_module x) { return static_cast<unsigned>(x); };
  std::vector<unsigned> present{bit(m::core_attn), bit(m::layernorm)};
  const bool experts = is_moe(model.moe);
  if (!experts || model.moe.dense_layers > 0 || model.moe.layer_freq > 1) {
    present.push_back(bit(m::mlp));
  }
  if (experts) {
    present.push_back(bit(m::moe_act));
    present.push_back(bit(m::moe));
  }
  if (experts && model.moe.shared_experts > 0) {
    present.push_back(bit(m::shared_experts));
  }
  if (is_mla(model.mla)) {
    present.push_back(bit(m::mla_up_proj));
  }
  std::vector<unsigned> out{bit(m::core_attn)};
  const unsigned inside_moe = bit(m::moe_act) | bit(m::shared_experts);
  for (unsigned subset = 1; subset < (1U << present.size()); ++subset) {
    unsigned modules = 0;
    for (std::size_t i = 0; i < present.size(); ++i) {
      if ((subset & (1U << i)) != 0U) {
        modules |= present[i];
      }
    }
    if (modules == bit(m::core_attn) ||
        ((modules & bit(m::moe)) != 0U && (modules & inside_moe) != 0U)) {
      continue;
    }
    out.push_back(modules);
  }
  return out;
}

/// `req` with the choices a layout names in place of the request's own.
inline plan_request request_for(const plan_request& req, const layout_choices& choices) {
  auto out = req;
  if (choices.recompute_modules) {
    out.options.recompute.modules = *choices.recompute_modules;
  }
  if (choices.cp_comm) {
    out.options.cp.comm = *choices.cp_comm;
  }
  if (choices.dispatcher) {
    out.options.experts.dispatcher = *choices.dispatcher;
  }
  out.options.recompute = full_recompute_of(out.options.recompute, choices);
  return out;
}

/// A layout with its context-parallel degree (N = t·p·cp·d) and the choices it names.
struct plan_layout {
  parallel_config par;  ///< with its cp: N = t·p·cp·d
  layout_choices choices;
};

/// Reads a layout written as comma-separated key=value pairs, e.g. "t=16,p=4,d=8,b=1,
/// recompute=full": t|tp, p|pp, cp, ep, etp (expert TP), d|dp, b|mb (micro-batch), v|vpp, sp
/// (on|off), recompute|rc (none|selective|full), zero (0..3), first and last (layers on the end
/// stages), cp_comm (p2p|all_gather|a2a|a2a+p2p), dispatcher (all-to-all|deep-ep|all-gather,
/// or Megatron's alltoall|flex|allgather), modules (what selective recomputation reruns,
/// joined by '+') and block or uniform (full recomputation's method, its value the layers per
/// model chunk), which override the request's when given.
/// Missing t, cp, b and v are 1, SP off, recompute none, ZeRO 0; a missing d is N/(t·p·cp)
/// and a missing p is N/(t·cp·d) (p = 1 when both are missing). With `gpus` > 0, t·p·cp·d must
/// equal it. Throws `invalid_spec(field, ...)` quoting the text.
inline plan_layout parse_plan_layout(std::string_view text, std::string_view field,
                                     std::int64_t gpus, std::int64_t global_batch) {
  const std::string quoted = quote_value(text) + ": ";
  const auto fail = [&](const std::string& detail) -> void {
    throw invalid_spec(std::string(field), quoted + detail);
  };
  parallel_config par;
  par.global_batch = global_batch;
  std::int64_t cp = 1;
  layout_choices choices;
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
        fail(std::string(key) + " = " + quote_value(value) + " is not a whole number");
      }
      if (n < 1 || n > max_parallel_degree) {
        fail(std::string(key) + " = " + std::to_string(n) + " is out of range 1.." +
             std::to_string(max_parallel_degree));
      }
      return n;
    };
    // A value the core's parser reads, its own message replaced by the layout's: "key = 'x';
    // expected ...".
    const auto parsed = [&](auto parse, const char* expected) {
      try {
        return parse(value, field);
      } catch (const invalid_spec&) {
        fail(std::string(key) + " = " + quote_value(value) + "; " + expected);
        throw;  // unreachable: fail throws
      }
    };
    if (key == "t" || key == "tp") {
      par.tp = count();
    } else if (key == "p" || key == "pp") {
      par.pp = count();
      has_p = true;
    } else if (key == "cp") {
      cp = count();
    } else if (key == "ep") {
      par.ep = count();
    } else if (key == "etp") {
      par.etp = count();
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
        fail("sp = " + quote_value(value) + "; expected on or off");
      }
    } else if (key == "recompute" || key == "rc") {
      par.recompute = parsed(parse_recompute, "expected none, selective or full");
    } else if (key == "zero") {
      par.zero = parsed(parse_zero_stage, "expected 0, 1, 2 or 3");
    } else if (key == "first") {
      par.first_stage_layers = count();
    } else if (key == "last") {
      par.last_stage_layers = count();
    } else if (key == "cp_comm") {
      choices.cp_comm = parsed(parse_cp_comm_type, "expected p2p, all_gather, a2a or a2a+p2p");
    } else if (key == "modules") {
      choices.recompute_modules = parsed(
          parse_recompute_modules, "expected recompute modules joined by +, e.g. core_attn+mlp");
    } else if (key == "dispatcher") {
      choices.dispatcher =
          parsed(parse_token_dispatcher, "expected all-to-all, deep-ep or all-gather");
    } else if (key == "block" || key == "uniform") {
      // Full recomputation's method and its layers per model chunk.
      choices.full_method = key == "block" ? recompute_method::block : recompute_method::uniform;
      choices.full_layers = count();
    } else {
      fail("'" + detail::printable(key) +
           "' is not a layout key; expected t, p, cp, ep, etp, d, b, v, sp, recompute, zero, "
           "first, last, cp_comm, dispatcher, modules, block, uniform");
    }
  }
  if (choices.full_method && par.recompute != recompute_mode::full) {
    fail(std::string(to_string(*choices.full_method)) +
         " = N sets full recomputation's layers; it needs recompute=full");
  }
  if (gpus > 0) {
    // Each degree is at most 2^24, so t*p and t*cp fit; a product of three may not.
    std::int64_t tpc = 0, tcd = 0;
    if (!has_d) {
      if (!multiply_fits(par.tp * par.pp, cp, tpc) || gpus % tpc != 0) {
        fail((cp > 1 ? "t*p*cp = " + std::to_string(par.tp) + "*" + std::to_string(par.pp) + "*" +
                           std::to_string(cp)
                     : "t*p = " + std::to_string(par.tp * par.pp)) +
             " does not divide N = " + std::to_string(gpus));
      }
      par.dp = gpus / tpc;
    } else if (!has_p) {
      if (!multiply_fits(par.tp * cp, par.dp, tcd) || gpus % tcd != 0) {
        fail((cp > 1 ? "t*cp*d = " + std::to_string(par.tp) + "*" + std::to_string(cp) + "*" +
                           std::to_string(par.dp)
                     : "t*d = " + std::to_string(par.tp * par.dp)) +
             " does not divide N = " + std::to_string(gpus));
      }
      par.pp = gpus / tcd;
    }
    std::int64_t tpd = 0, all = 0;
    if (!multiply_fits(par.tp * par.pp, par.dp, tpd) || !multiply_fits(tpd, cp, all) ||
        all != gpus) {
      fail((cp > 1 ? "t*p*cp*d = " : "t*p*d = ") + std::to_string(par.tp) + "*" +
           std::to_string(par.pp) + "*" + (cp > 1 ? std::to_string(cp) + "*" : std::string()) +
           std::to_string(par.dp) + " is not N = " + std::to_string(gpus));
    }
  }
  par.cp = cp;
  return {par, choices};
}

/// parse_plan_layout for a layout without context parallelism (cp = 1 only).
inline parallel_config parse_layout(std::string_view text, std::string_view field,
                                    std::int64_t gpus, std::int64_t global_batch) {
  const auto l = parse_plan_layout(text, field, gpus, global_batch);
  if (l.par.cp != 1) {
    throw invalid_spec(std::string(field), quote_value(text) + ": cp = " +
                                               std::to_string(l.par.cp) + " is not accepted here");
  }
  return l.par;
}

/// The CP terms of a layout's step, zero at cp = 1 (long_context.hpp): the exposed exchange,
/// which the step time holds beside the parts of step_breakdown, and the attention against
/// all s keys beyond the s/cp view, which `compute` holds.
struct cp_step_terms {
  std::int64_t cp = 1;
  seconds exposed{};
  seconds hidden{};
  seconds attention_extra{};
};

inline cp_step_terms cp_terms_of(const planned_layout& l) {
  const auto& lc = l.result.long_context;
  if (!lc.added) {
    return {};
  }
  return {.cp = l.candidate.par.cp,
          .exposed = lc.cp_exposed,
          .hidden = lc.cp_hidden,
          .attention_extra = lc.attention_extra};
}

/// `largest` when the exposed CP exchange is the largest difference.
inline constexpr std::size_t cp_exchange_part = breakdown_parts.size();

/// What separates two evaluated layouts: the layout fields that differ and each part of the
/// step, `other − base`.
struct step_comparison {
  std::vector<std::string> changes;  ///< "t 8 -> 16", one per differing field
  step_breakdown delta;              ///< other − base, part by part
  seconds step_time{};               ///< other − base
  double mfu = 0.0;                  ///< other − base
  std::size_t largest = 0;           ///< index in `breakdown_parts` of the largest |delta|, or
                                     ///< cp_exchange_part
  cp_step_terms base_cp, other_cp;
  seconds cp_exposed{};       ///< other − base: the exposed CP exchange
  seconds attention_extra{};  ///< other − base: attention beyond the view (inside compute)
};

inline step_comparison compare_layouts(const parallel_config& base_par, const step_result& base,
                                       const parallel_config& other_par, const step_result& other,
                                       const cp_step_terms& base_cp = {},
                                       const cp_step_terms& other_cp = {},
                                       const layout_choices& base_choices = {},
                                       const layout_choices& other_choices = {}) {
  step_comparison out;
  const auto change = [&](const char* name, const std::string& a, const std::string& b) {
    if (a != b) {
      out.changes.push_back(std::string(name) + " " + a + " -> " + b);
    }
  };
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  change("t", n(base_par.tp), n(other_par.tp));
  change("p", n(base_par.pp), n(other_par.pp));
  change("cp", n(base_cp.cp), n(other_cp.cp));
  change("ep", n(base_par.ep), n(other_par.ep));
  change("etp", n(base_par.etp), n(other_par.etp));
  change("d", n(base_par.dp), n(other_par.dp));
  change("b", n(base_par.micro_batch), n(other_par.micro_batch));
  change("v", n(base_par.vpp), n(other_par.vpp));
  change("sp", base_par.sequence_parallel ? "on" : "off",
         other_par.sequence_parallel ? "on" : "off");
  change("recompute", recompute_label(base_par.recompute, base_choices),
         recompute_label(other_par.recompute, other_choices));
  change("zero", n(static_cast<int>(base_par.zero)), n(static_cast<int>(other_par.zero)));
  const auto ends = [&](const parallel_config& par) {
    return par.first_stage_layers == 0 && par.last_stage_layers == 0
               ? std::string("default")
               : n(par.first_stage_layers) + "/" + n(par.last_stage_layers);
  };
  change("first/last stage layers", ends(base_par), ends(other_par));
  if (base_choices.cp_comm && other_choices.cp_comm) {
    change("cp_comm", std::string(to_string(*base_choices.cp_comm)),
           std::string(to_string(*other_choices.cp_comm)));
  }
  if (base_choices.recompute_modules && other_choices.recompute_modules) {
    change("modules", recompute_modules_to_string(*base_choices.recompute_modules),
           recompute_modules_to_string(*other_choices.recompute_modules));
  }
  if (base_choices.dispatcher && other_choices.dispatcher) {
    change("dispatcher", std::string(to_string(*base_choices.dispatcher)),
           std::string(to_string(*other_choices.dispatcher)));
  }
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
  out.base_cp = base_cp;
  out.other_cp = other_cp;
  out.cp_exposed = other_cp.exposed - base_cp.exposed;
  out.attention_extra = other_cp.attention_extra - base_cp.attention_extra;
  if (std::abs(out.cp_exposed.value()) > largest) {
    out.largest = cp_exchange_part;
  }
  out.step_time = other.step_time - base.step_time;
  out.mfu = other.mfu - base.mfu;
  return out;
}

/// compare_layouts of two planned layouts, their CP terms included.
inline step_comparison compare_planned(const planned_layout& base, const planned_layout& other) {
  return compare_layouts(base.candidate.par, base.result, other.candidate.par, other.result,
                         cp_terms_of(base), cp_terms_of(other),
                         with_full_recompute({}, base.candidate),
                         with_full_recompute({}, other.candidate));
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
    std::optional<detail::plan_search> found;
    try {
      found = detail::search(r);
    } catch (const invalid_spec&) {  // a fixed degree that does not divide this N
      return std::nullopt;
    }
    if (found->top.empty()) {
      return std::nullopt;
    }
    return plan_alternative{gpus, batch, found->top.front()};
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
                    ": of " + std::to_string(counts.pairs) + " (t, p, cp)";
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
  const auto& c = req.constraints;
  if (c.fixed_micro_batch > 0 || c.fixed_vpp > 0 || c.fixed_zero >= 0) {
    std::string fixed;
    const auto add_fixed = [&](const char* flag, std::int64_t v) {
      fixed += std::string(fixed.empty() ? "" : ", ") + flag + " " + std::to_string(v);
    };
    if (c.fixed_micro_batch > 0) {
      add_fixed("--micro-batch", c.fixed_micro_batch);
    }
    if (c.fixed_vpp > 0) {
      add_fixed("--vpp", c.fixed_vpp);
    }
    if (c.fixed_zero >= 0) {
      add_fixed("--zero", c.fixed_zero);
    }
    out += "; only layouts with " + fixed + " were searched (b must divide G/d, v the stages' " +
           "layers; ZeRO above 0 needs d > 1)";
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
