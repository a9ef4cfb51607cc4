// The step model as stages, written once and used by `evaluate_step` (step.hpp) and by the
// planner's search (planner.hpp), which hoists each stage out of its loops:
//
//   group_stage    terms that depend on the group sizes (t, p, d; later cp, ep) and the
//                  pipeline split only: where each group lies, the parameters per stage, the
//                  DP collectives, the embedding all-reduce, the p2p link, the optimizer;
//   batch_stage    terms that also depend on the micro-batch b: the layer's kernel times, the
//                  output layer, the TP collectives, the p2p transfer;
//   combine_step   the per-layout combination (v, SP, recomputation, ZeRO): only adds,
//                  multiplies and minima, no allocation;
//   peak_memory    the fullest stage's memory per GPU, through the same `stage_memory_at` that
//                  `memory_per_gpu` uses.
//
// Every group (TP, each stage's DP group, the p2p hop at each stage boundary, the embedding
// group of the end stages) is placed where Megatron-Core puts its ranks (comm/placement.hpp,
// order tp-cp-ep-dp-pp), and every collective is costed as NCCL's tuner costs it on that
// placement (comm/topology.hpp `nccl_cheapest_collective`, comm/nccl_tuner.hpp): one cost
// model for `collective`, `step` and `plan`. step.hpp's file comment gives the step formula.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tpcost/base/checked.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/comm/collectives.hpp"
#include "tpcost/comm/placement.hpp"
#include "tpcost/comm/price_memo.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/hardware/efficiency.hpp"
#include "tpcost/hardware/hardware.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/memory.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/model/pipeline_parallel.hpp"
#include "tpcost/model/precision.hpp"
#include "tpcost/model/recompute_recipe.hpp"
#include "tpcost/step/compute_model.hpp"
#include "tpcost/step/context_parallel.hpp"
#include "tpcost/step/moe_layer.hpp"
#include "tpcost/step/stack_profiles.hpp"

namespace tpcost {

/// How the software runs the step (what a framework overlaps and how it talks).
struct step_options {
  double tp_overlap = 0.0;     ///< share of TP collectives hidden behind compute, in [0, 1]
  double dp_overlap = 0.0;     ///< share of the DP sync hidden behind the last backward, [0, 1]
  bool scatter_gather = true;  ///< Megatron's p2p split over the TP ranks (Narayanan Sec. 4.1)
  int activation_bytes = 2;    ///< 16-bit activations and gradients on the wire
  /// Bytes per element of the sequence-parallel TP all-gathers (0 = activation_bytes): TE 2.x
  /// gathers the quantized GEMM input with an FP8/FP4 recipe (precision.hpp,
  /// tp_all_gather_bytes); the reduce-scatters and all-reduces stay activation_bytes.
  double tp_all_gather_bytes = 0.0;
  /// Bytes per linear-layer weight in the distributed optimizer's (and ZeRO-3's) parameter
  /// all-gather: 2, or the FP8 data with --fp8-param-gather (precision.hpp,
  /// param_gather_bytes). Embeddings, norms and biases are gathered in 16 bits.
  double linear_param_gather_bytes = 2.0;
  /// The attention kernel: its time (compute_model.hpp) and what it keeps for the backward
  /// pass (memory.hpp). The CLI defaults to fused.
  attention_kernel attention = attention_kernel::unfused;
  // The software stack (stack_profiles.hpp): its rules on sharding, and the choices below,
  // which the CLI fills from the --stack profile (options_of). The library's defaults are
  // Megatron-Core's rules with 16-bit gradients, as the step model had before profiles.
  software_stack stack = software_stack::megatron_core;
  double dp_overlap_zero3 = 0.0;  ///< share of ZeRO-3's per-micro-batch collectives hidden
  /// Share of the steady-state pipeline sends/receives hidden behind the micro-batch's compute
  /// under the interleaved schedule (v > 1; Megatron's overlap_p2p_comm); warm-up and flush,
  /// in the bubble, stay exposed. Without interleaving Megatron does not overlap them.
  double p2p_overlap = 0.0;
  /// TP overlap by Transformer Engine's userbuffers, which run only under sequence parallelism
  /// (Megatron-LM arguments.py asserts --tp-comm-overlap needs --sequence-parallel; Megatron-
  /// Bridge's comm_overlap.py turns it off without) and within one NVLink domain: none of
  /// tp_overlap applies with SP off or a TP group across domains.
  bool tp_overlap_needs_sp = false;
  /// The share of each second of TP collective that tp_overlap hides behind compute that the
  /// compute still loses to it (efficiency.hpp, hidden_tp_contention): the SMs, copies and HBM
  /// bandwidth the hidden collective takes from the GEMMs it overlaps.
  double tp_contention = hidden_tp_contention;
  /// Which input-gradient collectives of the column-parallel linears run behind their
  /// weight-gradient GEMMs (stack_profiles.hpp): hidden up to those GEMMs' time, whatever
  /// tp_overlap is.
  async_input_grad input_grad_overlap = async_input_grad::none;
  /// Whether the column-parallel linears under SP all-gather their saved s/t input again in the
  /// backward, behind their input-gradient GEMMs (stack_profiles.hpp, sp_input_regather).
  bool sp_input_regather = true;
  /// The cross entropy's kernels (compute_model.hpp): its bytes per logit and its collectives.
  cross_entropy_kernel cross_entropy = cross_entropy_kernel::unfused;
  /// Whether the weight-gradient GEMMs add into the main-grad buffer themselves
  /// (stack_profiles.hpp); where they do not, each micro-batch pays a pass over its gradients.
  fused_accumulation grad_accumulation_fusion = fused_accumulation::never;
  /// Whether the stack accumulates gradients in a main_grad buffer of its own, of
  /// state.gradients bytes a parameter (Megatron's DDP grad buffer), rather than in the .grad
  /// that autograd writes (DeepSpeed, FSDP2): accumulation_time. True as `stack`'s default.
  bool main_grad_buffer = true;
  /// Megatron's --overlap-grad-reduce without --overlap-param-gather: the gradient reduction
  /// (DDP's all-reduce, the reduce-scatters) hides behind the backward by dp_overlap, the
  /// weight all-gathers do not. Their share of the sync is what their bytes make it: two
  /// thirds with fp32 gradients and 16-bit weights, one half with bf16 gradients.
  bool overlap_grad_reduce_only = false;
  int grad_wire_bytes = 2;                   ///< bytes per gradient element in the DP reduction
  state_bytes state = mixed_precision_adam;  ///< weights, gradients, optimizer per parameter
  /// How MFU counts model FLOPs (flops.hpp); the time does not depend on it.
  flops_convention mfu_flops = flops_convention::full;
  expert_options experts{};  ///< the token dispatcher, its overlap, the routing load (MoE)
  /// What --recompute selective recomputes: the attention core (Megatron-Core) or torchtitan's
  /// per-op policy (parallelism.hpp).
  selective_policy selective = selective_policy::attention_core;
  /// Megatron-Core's recompute_modules, recompute_method and recompute_num_layers, and the
  /// layers offloaded to the host (recompute_recipe.hpp): their memory, and for the block
  /// method the share of layers whose forward runs again.
  recompute_recipe recompute{};
  /// How the CP ranks exchange keys and values (context_parallel.hpp); the degree is the
  /// layout's, parallel_config::cp.
  cp_options cp{};
};

/// Everything a step needs but the layout: the model, the GPU, the cluster, the software.
struct step_environment {
  transformer_spec model;
  compute_device gpu;
  bytes memory_capacity{};
  cluster_topology topology;
  step_options options;
};

/// The sizes of the communicating groups of a layout: N = tp·pp·dp GPUs. Further group sizes
/// (context and expert parallelism) join as members that default to 1.
struct group_sizes {
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  std::int64_t dp = 1;
  std::int64_t ep = 1;  ///< folded over the t·d ranks of a stage (moe_layer.hpp)
  std::int64_t etp = 1;
  std::int64_t dp_replicas = 1;  ///< HSDP: groups holding the same ZeRO shards (parallelism.hpp)
  [[nodiscard]] constexpr std::int64_t gpus() const { return tp * pp * dp; }
  /// The DP ranks ZeRO shards over: d, or d over HSDP's replicas.
  [[nodiscard]] constexpr std::int64_t shard() const {
    return dp_replicas > 1 ? dp / dp_replicas : dp;
  }
};

/// The layout's ranks in Megatron-Core's order tp-cp-ep-dp-pp (comm/placement.hpp).
constexpr rank_layout rank_layout_of(const group_sizes& g) {
  return {.tp = g.tp, .cp = 1, .ep = 1, .dp = g.dp, .pp = g.pp};
}

namespace detail {

/// The inter-node link a group or a stage boundary needs, or a one-line error naming it.
inline void require_inter_for(const cluster_topology& topology, const char* what) {
  if (!(topology.inter.bandwidth.value() > 0.0)) {
    throw invalid_spec("inter-bandwidth", std::string(what) +
                                              " spans nodes; give the inter-node link (e.g. "
                                              "--interconnect ib-ndr)");
  }
}

/// NCCL's pick and cost for `op` on `group` (topology.hpp, nccl_cheapest_collective; with a
/// `memo`, remembered), kept when it is slower than `worst`: the step waits for the slowest of
/// its concurrent groups.
inline void keep_slowest(algorithm_cost& worst, const cluster_topology& topology,
                         const group_placement& group, collective_op op, bytes message,
                         nccl_price_memo* memo) {
  auto c = remembering_group_pricer(topology, group, memo).cheapest(op, message);
  if (c.cost.time > worst.cost.time) {
    worst = c;
  }
}

}  // namespace detail

/// Terms that depend on the group sizes and the pipeline split only.
struct group_terms {
  group_sizes sizes;
  pipeline_split split;
  group_placement tp_group;  ///< every TP group lies alike (TP is the fastest dimension)
  link_spec hop_link;        ///< one GPU's link at the slowest stage boundary (p2p_link)
  double params_first = 0.0, params_middle = 0.0, params_last = 0.0;
  double params_max = 0.0;  ///< the GPU with the most parameters: it syncs and updates longest
  bytes dp_bytes{};         ///< gradients of params_max, grad_wire_bytes each
  /// MoE: layers with experts on the first, the fullest middle and the last stage, and the
  /// routed-expert parameters among each stage's; 0 for a dense model.
  std::int64_t moe_first = 0, moe_middle = 0, moe_last = 0;
  double experts_first = 0.0, experts_middle = 0.0, experts_last = 0.0;
  group_placement ep_group, etp_group, expert_dp_group;  ///< folded expert groups, stage 0
  /// The expert gradients' collectives on the expert-DP group (the slowest stage's), beside
  /// the DP collectives of the rest; zero for a dense model.
  algorithm_cost edp_all_reduce{}, edp_reduce_scatter{}, edp_all_gather{};
  /// The slowest stage's DP collectives (its parameters, its DP group where its rank offset
  /// puts it), as NCCL's tuner picks them.
  algorithm_cost dp_all_reduce{}, dp_reduce_scatter{}, dp_all_gather{};
  /// HSDP (zero otherwise): after each reduce-scatter over the shard group, the all-reduce of
  /// the gradient shard over the d/shard replicas (FSDP2's HSDP reduction; Megatron-Core's
  /// inter-instance all-reduce), dense and expert.
  algorithm_cost dp_replica_all_reduce{}, edp_replica_all_reduce{};
  seconds embedding{};  ///< the tied embedding's gradient all-reduce between the end stages
  /// Layers on the last stage, its `split.last` plus the model's MTP modules, each one layer of
  /// the last layer's kind (Megatron-Core puts the MTP block on the last pipeline stage without
  /// a custom layout: multi_token_prediction.py mtp_on_this_rank, core_v0.16.0).
  std::int64_t last_layers = 0;
  std::int64_t first_layers = 0;  ///< `split.first`, or `last_layers` when p = 1
  /// MLA under SP: the TP all-reduce of the duplicated down projections' gradients (each rank
  /// saw its own s/t tokens), once per step: finalize_model_grads.py
  /// _allreduce_non_tensor_model_parallel_grads, for the params TELinear "duplicated" marks
  /// `sequence_parallel` (extensions/transformer_engine.py). Zero without MLA or with t = 1.
  seconds mla_tp_grad_sync{};
  seconds optimizer_full{}, optimizer_sharded{};
};

namespace detail {

/// Each stage's layers and parameters on one GPU: the first, the fullest middle and the last
/// stage, with the routed experts' share of each (zero for a dense model).
inline void count_stage_params(group_terms& x, const transformer_spec& model) {
  const auto& g = x.sizes;
  const auto& split = x.split;
  parallel_config par;
  par.tp = g.tp;
  par.pp = g.pp;
  par.ep = g.ep;
  par.etp = g.etp;
  x.moe_first = moe_layers_in(model, 0, split.first);
  x.moe_last =
      moe_layers_in(model, split.first_layer_of(g.pp - 1), split.last) + mtp_moe_layers(model);
  x.last_layers = split.last + model.mtp_layers;
  if (g.pp == 1) {  // one stage is first and last: it holds the MTP modules too
    x.moe_first = x.moe_last;
  }
  x.first_layers = g.pp == 1 ? x.last_layers : split.first;
  for (std::int64_t s = 1; s + 1 < g.pp; ++s) {
    x.moe_middle =
        std::max(x.moe_middle, moe_layers_in(model, split.first_layer_of(s), split.middle));
  }
  x.params_first = params_per_gpu(model, par, 0, x.first_layers, x.moe_first);
  x.params_middle = g.pp > 2 ? params_per_gpu(model, par, 1, split.middle, x.moe_middle) : 0.0;
  x.params_last = params_per_gpu(model, par, g.pp - 1, x.last_layers, x.moe_last);
  x.experts_first = expert_params_per_gpu(model, par, x.moe_first);
  x.experts_middle = g.pp > 2 ? expert_params_per_gpu(model, par, x.moe_middle) : 0.0;
  x.experts_last = expert_params_per_gpu(model, par, x.moe_last);
  x.params_max = std::max({x.params_first, x.params_middle, x.params_last});
}

/// The folded expert groups (EP, ETP, expert-DP) of stage 0; an EP or ETP group across nodes
/// needs the inter-node link.
inline void place_expert_groups(group_terms& x, const cluster_topology& topo,
                                const rank_layout& expert_layout) {
  x.ep_group = place_dimension(topo, expert_layout, parallel_dim::ep);
  x.etp_group = place_dimension(topo, expert_layout, parallel_dim::tp);
  x.expert_dp_group = place_dimension(topo, expert_layout, parallel_dim::dp);
  if (x.ep_group.spans_nodes() || x.etp_group.spans_nodes()) {
    detail::require_inter_for(topo,
                              ("the EP group of " + std::to_string(x.sizes.ep) + " ranks").c_str());
  }
}

/// Stage `s`'s DP collectives at its rank offset, kept where slower than the stages before.
inline void add_dp_stage_collectives(group_terms& x, const step_environment& env,
                                     const rank_layout& layout, std::int64_t s, bool own_expert_dp,
                                     nccl_price_memo* memo) {
  const auto& topo = env.topology;
  const auto& g = x.sizes;
  const auto group = place_dimension(topo, layout, parallel_dim::dp, s);
  if (group.spans_nodes()) {
    detail::require_inter_for(topo,
                              ("the DP group of " + std::to_string(g.dp) + " replicas").c_str());
  }
  // HSDP shards over `shard` consecutive DP ranks; the rest replicate those shards.
  const bool hsdp = g.shard() < g.dp;
  const auto shard_group =
      hsdp ? place_dimension_part(topo, layout, parallel_dim::dp, s, g.shard(), false) : group;
  const double kept = own_expert_dp ? 1.0 : 0.0;  // the experts' share left to expert-DP
  const double params = s == 0          ? x.params_first - kept * x.experts_first
                        : s + 1 == g.pp ? x.params_last - kept * x.experts_last
                                        : x.params_middle - kept * x.experts_middle;
  // Gradients travel in the stack's reduction dtype; weights are gathered in 16 bits, the
  // linear layers' in linear_param_gather_bytes (FP8 with --fp8-param-gather; MoE models
  // stay BF16, so the experts' share never enters it).
  const bytes gradients = static_cast<double>(env.options.grad_wire_bytes) * params * units::B;
  const double layers = static_cast<double>(s == 0          ? x.first_layers
                                            : s + 1 == g.pp ? x.last_layers
                                                            : x.split.middle);
  const double linear = static_cast<double>(quantized_params_per_layer(env.model)) * layers /
                        static_cast<double>(g.tp);
  const bytes weights =
      (2.0 * params - (2.0 - env.options.linear_param_gather_bytes) * linear) * units::B;
  detail::keep_slowest(x.dp_all_reduce, topo, group, collective_op::all_reduce, gradients, memo);
  detail::keep_slowest(x.dp_reduce_scatter, topo, shard_group, collective_op::reduce_scatter,
                       gradients, memo);
  detail::keep_slowest(x.dp_all_gather, topo, shard_group, collective_op::all_gather, weights,
                       memo);
  if (hsdp) {
    detail::keep_slowest(x.dp_replica_all_reduce, topo,
                         place_dimension_part(topo, layout, parallel_dim::dp, s, g.shard(), true),
                         collective_op::all_reduce, gradients / static_cast<double>(g.shard()),
                         memo);
  }
}

/// The slowest stage's DP collectives. Each stage's DP group sits at its own rank offset.
/// Stages whose first rank has the same offset in its NVLink domain lie alike, so each
/// middle-stage offset is placed once.
inline void add_dp_collectives(group_terms& x, const step_environment& env,
                               const rank_layout& layout, bool own_expert_dp,
                               nccl_price_memo* memo) {
  const auto& g = x.sizes;
  const std::int64_t domain = domain_of(env.topology);
  const std::int64_t stride = layout.stride(parallel_dim::pp);
  std::vector<std::int64_t> seen;
  for (std::int64_t s = 0; s < g.pp; ++s) {
    const bool end = s == 0 || s + 1 == g.pp;
    const std::int64_t offset = (s * stride) % domain;
    if (!end) {
      if (std::find(seen.begin(), seen.end(), offset) != seen.end()) {
        continue;
      }
      seen.push_back(offset);
    }
    add_dp_stage_collectives(x, env, layout, s, own_expert_dp, memo);
  }
}

/// The routed experts' gradients reduce over the expert-DP group (Megatron-Core's expert DDP
/// buckets), after the dense ones on the same links: each stage's, the slowest kept.
inline void add_expert_dp_collectives(group_terms& x, const step_environment& env,
                                      const rank_layout& expert_layout, std::int64_t expert_dp,
                                      std::int64_t expert_shard, nccl_price_memo* memo) {
  const auto& topo = env.topology;
  if (x.expert_dp_group.spans_nodes()) {
    detail::require_inter_for(
        topo, ("the expert-DP group of " + std::to_string(expert_dp) + " ranks").c_str());
  }
  const bool hsdp = expert_shard < expert_dp;
  const auto shard_group =
      hsdp ? place_dimension_part(topo, expert_layout, parallel_dim::dp, 0, expert_shard, false)
           : x.expert_dp_group;
  for (const double params : {x.experts_first, x.experts_middle, x.experts_last}) {
    const bytes gradients = static_cast<double>(env.options.grad_wire_bytes) * params * units::B;
    const bytes weights = 2.0 * params * units::B;
    detail::keep_slowest(x.edp_all_reduce, topo, x.expert_dp_group, collective_op::all_reduce,
                         gradients, memo);
    detail::keep_slowest(x.edp_reduce_scatter, topo, shard_group, collective_op::reduce_scatter,
                         gradients, memo);
    detail::keep_slowest(x.edp_all_gather, topo, shard_group, collective_op::all_gather, weights,
                         memo);
    if (hsdp) {
      detail::keep_slowest(
          x.edp_replica_all_reduce, topo,
          place_dimension_part(topo, expert_layout, parallel_dim::dp, 0, expert_shard, true),
          collective_op::all_reduce, gradients / static_cast<double>(expert_shard), memo);
    }
  }
}

/// First and last stage both hold the word embedding: all-reduce its gradient (Megatron's
/// embedding group), over the link their ranks (p-1)·t·d apart share. The MTP modules on the
/// last stage embed their shifted tokens with a copy of it, tied or not (gpt_model.py
/// shared_embedding_or_output_weight: "MTP need both embedding layer and output layer").
inline seconds embedding_sync_time(const step_environment& env, const group_sizes& g,
                                   const rank_layout& layout) {
  const auto& model = env.model;
  const auto& topo = env.topology;
  const bytes embedding_bytes = static_cast<double>(env.options.grad_wire_bytes) *
                                static_cast<double>(model.vocab * model.hidden) /
                                static_cast<double>(g.tp) * units::B;
  const auto group = embedding_group(topo, layout);
  if (group.spans_nodes()) {
    detail::require_inter_for(topo, "the embedding group of the first and last stage");
  }
  return nccl_cheapest_collective(topo, group, collective_op::all_reduce, embedding_bytes)
      .cost.time;
}

/// MLA under SP: the TP all-reduce of the duplicated down projections' gradients of the
/// stage with the most layers (group_terms::mla_tp_grad_sync).
inline seconds mla_grad_sync_time(const step_environment& env, const group_terms& x) {
  const auto& model = env.model;
  const auto& split = x.split;
  const double layers = static_cast<double>(
      std::max({split.first, x.sizes.pp > 2 ? split.middle : std::int64_t{0}, x.last_layers}));
  const bytes grads =
      static_cast<double>(env.options.grad_wire_bytes) * layers *
      static_cast<double>(mla_duplicated_params(model.mla, model.hidden, model.heads)) * units::B;
  return nccl_cheapest_collective(env.topology, x.tp_group, collective_op::all_reduce, grads)
      .cost.time;
}

}  // namespace detail

/// The group-size stage. Call for a validated environment and layout. Every group is placed
/// where Megatron-Core puts its ranks (comm/placement.hpp) and every collective costed as
/// NCCL's tuner costs it (nccl_cheapest_collective); nothing here is a second cost model. With
/// a `memo` (one per topology) each DP and expert-DP collective is priced once for every pair
/// and split that shares it (the dense DP's across ep and etp, the expert DP's across t).
inline group_terms group_stage(const step_environment& env, const group_sizes& g,
                               const pipeline_split& split, nccl_price_memo* memo = nullptr) {
  const auto& model = env.model;
  const auto& topo = env.topology;
  const auto layout = rank_layout_of(g);
  group_terms x;
  x.sizes = g;
  x.split = split;
  // place_group rejects a TP group that straddles nodes without filling them.
  x.tp_group = place_group(topo, g.tp, "tp");
  if (any_p2p_across_domains(topo, layout)) {
    detail::require_inter_for(topo, "a pipeline stage boundary");
  }
  x.hop_link = slowest_p2p_link(topo, layout);
  detail::count_stage_params(x, model);
  const bool experts = is_moe(model.moe);
  const auto expert_layout = expert_rank_layout(g.tp, g.dp, g.pp, g.ep, g.etp);
  // With ep·etp = t the expert-DP group is the DP group (the same ranks, t apart): the expert
  // gradients join the dense ones in the same reduction. Otherwise they reduce on their own.
  const bool own_expert_dp = experts && g.ep * g.etp != g.tp;
  if (experts) {
    detail::place_expert_groups(x, topo, expert_layout);
  }
  x.dp_bytes = static_cast<double>(env.options.grad_wire_bytes) * x.params_max * units::B;
  if (g.dp > 1) {
    detail::add_dp_collectives(x, env, layout, own_expert_dp, memo);
  }
  const auto expert_dp = experts ? expert_layout.dp : g.dp;
  // HSDP's d/shard replicas split the expert-DP group the same way (validate_experts).
  const auto expert_shard = g.dp_replicas > 1 ? expert_dp / g.dp_replicas : expert_dp;
  if (own_expert_dp && expert_dp > 1) {
    detail::add_expert_dp_collectives(x, env, expert_layout, expert_dp, expert_shard, memo);
  }
  if (g.pp > 1 && (model.tied_embeddings || model.mtp_layers > 0)) {
    x.embedding = detail::embedding_sync_time(env, g, layout);
  }
  if (is_mla(model.mla) && g.tp > 1) {
    x.mla_tp_grad_sync = detail::mla_grad_sync_time(env, x);
  }
  x.optimizer_full = optimizer_time(x.params_max, env.gpu);
  // The distributed optimizer shards the dense parameters over d (HSDP: its shard group) and
  // the experts over the expert-DP group (likewise); the stage with the most parameters holds
  // the most experts as well.
  const double experts_max = std::max({x.experts_first, x.experts_middle, x.experts_last});
  x.optimizer_sharded =
      optimizer_time((x.params_max - experts_max) / static_cast<double>(g.shard()) +
                         experts_max / static_cast<double>(expert_shard),
                     env.gpu);
  return x;
}

/// Terms that also depend on the micro-batch.
struct batch_terms {
  std::int64_t micro_batch = 1;
  std::int64_t micro_batches = 1;  ///< m = G/(d·b)
  /// One layer, one micro-batch, one GPU, [SP off, SP on] (the norms and residual kernels on
  /// s or s/t tokens: compute_model.hpp, layer_shape::x_local).
  std::array<layer_compute, 2> kernels{};
  seconds logits{};        ///< the output layer and its loss
  seconds logits_wgrad{};  ///< of which the output layer's weight-gradient GEMM
  seconds logits_dgrad{};  ///< and its input-gradient GEMM
  bytes tp_message{};      ///< b·s·h·(activation bytes) per TP collective
  algorithm_cost tp_all_reduce{}, tp_reduce_scatter{}, tp_all_gather{};
  algorithm_cost tp_sp_all_gather{};   ///< SP's all-gather of a GEMM input, at its wire bytes
  std::array<bytes, 2> p2p_message{};  ///< one send per GPU, [SP off, SP on]
  std::array<seconds, 2> p2p_one{};    ///< one transfer's time, [SP off, SP on]
  // MoE layers (all zero for a dense model):
  expert_tokens tokens;                        ///< what one GPU routes and processes
  std::array<layer_compute, 2> moe_kernels{};  ///< one MoE layer, as `kernels`
  ep_exchange dispatch;                        ///< one dispatch (a combine costs the same)
  bytes etp_message{};                         ///< the copies an ETP group gathers, h·2 bytes each
  algorithm_cost etp_reduce_scatter{}, etp_all_gather{};
  // MLA (zero otherwise): the duplicated down projections, [SP off, SP on] (compute_model.hpp
  // mla_down_projection_time), and the TP collectives on the attention's input side, which
  // replace a dense layer's all-reduce (no SP) or all-gather + reduce-scatter (SP) of b·s·h.
  std::array<layer_compute, 2> mla_down{};
  seconds mla_in_all_reduce{}, mla_in_all_gather{}, mla_in_reduce_scatter{};
  double mla_in_collectives[2] = {0.0, 0.0};  ///< per pass: [no SP: all-reduces, SP: gathers]
  // MTP (zero otherwise), per module and micro-batch: the projection 2h → h and the norms
  // around it, [SP off, SP on] its TP collectives.
  seconds mtp_projection{};
  std::array<seconds, 2> mtp_projection_tp{};
  // The model's ends, per micro-batch (zero at t = 1), [SP off, SP on] where SP changes them
  // (Megatron-Core core_v0.16.0, tensor_parallel/mappings.py for each collective's backward):
  //  - embedding_tp, the first stage's vocabulary-parallel embedding (tensor_parallel/layers.py
  //    VocabParallelEmbedding.forward): without SP the all-reduce of its b·s·h output
  //    (reduce_from_tensor_model_parallel_region; nothing backward); under SP with rotary
  //    positions a reduce-scatter forward and the all-gather of its gradient backward
  //    (reduce_scatter_embeddings: language_model_embedding.py), with learned positions the
  //    all-reduce forward, then scatter_to_sequence_parallel_region, whose backward all-gathers;
  //  - output_tp, the last stage's output layer (ColumnParallelLinear): without SP the all-reduce
  //    of its input gradient (copy_to_tensor_model_parallel_region); under SP the all-gather of
  //    its input forward and the reduce-scatter of that gradient backward, 16-bit (the output
  //    layer is not in the FP8 recipe), and where the stack re-gathers (sp_input_regather) the
  //    all-gather of its saved input again backward, output_regather, behind logits_dgrad;
  //  - cross_entropy_tp, the cross entropy's collectives (cross_entropy_tp_time), forward only;
  //    latency-bound.
  std::array<seconds, 2> embedding_tp{};
  std::array<seconds, 2> output_tp{};
  seconds output_regather{};
  seconds cross_entropy_tp{};
};

/// The vocab-parallel cross entropy's TP collectives for `tokens` tokens on a TP group of `t`
/// priced by `group`, forward only: unfused, three all-reduces of one fp32 value per token
/// (the logits' max, the predicted logit, the sum of exponentials: Megatron-Core core_v0.16.0
/// tensor_parallel/cross_entropy.py); native, two (the max, then the predicted logits and the
/// sums in one tensor: fusions/fused_cross_entropy.py); te, one all-gather of three fp32 values
/// per token from every rank (m, d and the target's logit: Transformer Engine's
/// pytorch/cross_entropy.py, all_gather_into_tensor).
template <typename GroupPricer>
seconds cross_entropy_tp_time(const GroupPricer& group, cross_entropy_kernel kernel, double tokens,
                              double t) {
  const bytes fp32_per_token = 4.0 * tokens * units::B;
  switch (kernel) {
    case cross_entropy_kernel::native:
      return group.cheapest(collective_op::all_reduce, fp32_per_token).cost.time +
             group.cheapest(collective_op::all_reduce, 2.0 * fp32_per_token).cost.time;
    case cross_entropy_kernel::te:
      return group.cheapest(collective_op::all_gather, 3.0 * t * fp32_per_token).cost.time;
    case cross_entropy_kernel::unfused:
      break;
  }
  return 3.0 * group.cheapest(collective_op::all_reduce, fp32_per_token).cost.time;
}

/// m, the micro-batches of `micro_batch` sequences in a global batch of `global_batch`.
constexpr std::int64_t micro_batches_of(const group_terms& x, std::int64_t micro_batch,
                                        std::int64_t global_batch) {
  return global_batch / (x.sizes.dp * micro_batch);
}

/// batch_stage's p2p terms, the only ones that read p and the hop link: a stage's send per
/// micro-batch with SP off and on, and its time (zero with one stage).
inline void add_p2p_terms(batch_terms& y, const step_environment& env, const group_terms& x) {
  const auto& opt = env.options;
  const auto t = x.sizes.tp;
  for (const bool sp : {false, true}) {
    const std::size_t i = sp ? 1 : 0;
    y.p2p_message[i] = p2p_message_bytes(y.micro_batch, env.model.seq, env.model.hidden,
                                         opt.activation_bytes, t, sp || opt.scatter_gather);
    y.p2p_one[i] = seconds{};
    if (x.sizes.pp > 1) {
      seconds one = x.hop_link.latency + y.p2p_message[i] / x.hop_link.bandwidth;
      if (opt.scatter_gather && !sp && t > 1) {
        // The receiver all-gathers the t slices within its TP group: the TP all-gather.
        one += y.tp_all_gather.cost.time;
      }
      y.p2p_one[i] = one;
    }
  }
}

/// A layer's kernels {without, with} sequence parallelism, as `kernels_with(sp)` computes them:
/// at t = 1 SP splits nothing, and one computation serves both.
template <class Kernels>
std::array<layer_compute, 2> without_and_with_sp(std::int64_t t, Kernels kernels_with) {
  const layer_compute off = kernels_with(false);
  return {off, t == 1 ? off : kernels_with(true)};
}

/// The micro-batch stage, for `micro_batch` sequences and a global batch of `global_batch`.
/// Of `x` it reads the group sizes, the TP, EP and ETP groups and the p2p hop, never the split:
/// the planner computes it once per (groups, micro-batch) for every split, and with a `memo`
/// (one per topology) prices each TP and ETP collective once for every pair that shares it.
inline batch_terms batch_stage(const step_environment& env, const group_terms& x,
                               std::int64_t micro_batch, std::int64_t global_batch,
                               nccl_price_memo* memo = nullptr) {
  const auto& model = env.model;
  const auto& topo = env.topology;
  const auto& opt = env.options;
  const auto t = x.sizes.tp;
  // The TP group prices a dozen collectives per micro-batch: its view once.
  const remembering_group_pricer tp_group(topo, x.tp_group, memo);
  batch_terms y;
  y.micro_batch = micro_batch;
  y.micro_batches = micro_batches_of(x, micro_batch, global_batch);
  y.kernels = without_and_with_sp(t, [&](bool sp) {
    return layer_compute_time(model, micro_batch, t, env.gpu, opt.attention, sp);
  });
  if (is_moe(model.moe)) {
    y.tokens = expert_tokens_of(model, micro_batch, model.seq, t, x.sizes.ep, x.sizes.etp,
                                opt.experts.load);
    y.moe_kernels = without_and_with_sp(t, [&](bool sp) {
      return moe_layer_compute(model, micro_batch, t, x.sizes.ep, x.sizes.etp, y.tokens, env.gpu,
                               opt.attention, opt.experts, sp);
    });
    y.dispatch =
        ep_exchange_of(topo, x.ep_group, model, y.tokens, opt.activation_bytes, opt.experts);
    if (x.sizes.etp > 1) {
      y.etp_message = y.tokens.routed * static_cast<double>(model.hidden) *
                      static_cast<double>(opt.activation_bytes) * units::B;
      const remembering_group_pricer etp_group(topo, x.etp_group, memo);
      y.etp_reduce_scatter = etp_group.cheapest(collective_op::reduce_scatter, y.etp_message);
      y.etp_all_gather = etp_group.cheapest(collective_op::all_gather, y.etp_message);
    }
  }
  y.logits = logits_compute_time(model, micro_batch, t, env.gpu, opt.cross_entropy);
  y.logits_wgrad = logits_wgrad_time(model, micro_batch, t, env.gpu);
  y.logits_dgrad = logits_dgrad_time(model, micro_batch, t, env.gpu);
  y.mla_down = {mla_down_projection_time(model, micro_batch, 1.0, env.gpu),
                mla_down_projection_time(model, micro_batch, static_cast<double>(t), env.gpu)};
  // In double, as p2p_message_bytes does: b·s·h·d of inputs that pass validation can exceed
  // an int64 (2^24 sequences of 2^31 tokens), and a wrapped product printed a negative size.
  y.tp_message = static_cast<double>(micro_batch) * static_cast<double>(model.seq) *
                 static_cast<double>(model.hidden) * static_cast<double>(opt.activation_bytes) *
                 units::B;
  if (t > 1) {
    y.tp_all_reduce = tp_group.cheapest(collective_op::all_reduce, y.tp_message);
    y.tp_reduce_scatter = tp_group.cheapest(collective_op::reduce_scatter, y.tp_message);
    y.tp_all_gather = tp_group.cheapest(collective_op::all_gather, y.tp_message);
    y.tp_sp_all_gather = y.tp_all_gather;
    if (opt.tp_all_gather_bytes > 0.0) {  // the quantized GEMM input (FP8/FP4 recipes)
      y.tp_sp_all_gather = tp_group.cheapest(
          collective_op::all_gather,
          opt.tp_all_gather_bytes / static_cast<double>(opt.activation_bytes) * y.tp_message);
    }
  }
  if (is_mla(model.mla)) {
    // Megatron-Core's MLA (multi_latent_attention.py, get_query_key_value_tensors, core_v0.16.0)
    // under SP: the column-parallel up projections all-gather their inputs, the q and kv
    // latents (q_lora, kv_lora; h for linear_q_proj without q_lora), and the rope key is
    // gathered from the sequence-parallel region: 3 all-gathers forward, 3 reduce-scatters of
    // their gradients backward. Without SP the up projections' input gradients are all-reduced
    // (2), the rope key needs none. The output projection keeps the b·s·h collectives.
    const auto& mla = model.mla;
    const double sp_widths[] = {
        static_cast<double>(mla.q_lora_rank > 0 ? mla.q_lora_rank : model.hidden),
        static_cast<double>(mla.kv_lora_rank), static_cast<double>(mla.qk_rope_head_dim)};
    const double per_width = static_cast<double>(micro_batch) * static_cast<double>(model.seq) *
                             static_cast<double>(opt.activation_bytes);
    for (std::size_t i = 0; i < 3; ++i) {
      const double w = sp_widths[i];
      if (w == 0.0) {
        continue;
      }
      y.mla_in_collectives[1] += 1.0;
      y.mla_in_collectives[0] += i < 2 ? 1.0 : 0.0;
      if (t > 1) {
        const bytes message = per_width * w * units::B;
        const auto cost = [&](collective_op op) {
          return tp_group.cheapest(op, message).cost.time;
        };
        y.mla_in_all_gather += cost(collective_op::all_gather);
        y.mla_in_reduce_scatter += cost(collective_op::reduce_scatter);
        if (i < 2) {
          y.mla_in_all_reduce += cost(collective_op::all_reduce);
        }
      }
    }
  }
  if (model.mtp_layers > 0) {
    // Each MTP module (multi_token_prediction.py, MultiTokenPredictionLayer._concat_embeddings):
    // enorm and hnorm on h each, eh_proj a column-parallel 2h → h/t, then
    // gather_from_tensor_model_parallel_region rebuilds h (an all-gather of b·s·h forward) and,
    // under SP, scatter_to_sequence_parallel_region splits the sequence (an all-gather of its
    // gradient backward). eh_proj's own input: SP's all-gather of b·s·2h forward and its
    // reduce-scatter backward; without SP the all-reduce of its input gradient.
    const double tokens = static_cast<double>(micro_batch) * static_cast<double>(model.seq);
    const double h = static_cast<double>(model.hidden);
    y.mtp_projection = matmul_time(tokens, h / static_cast<double>(t), 2.0 * h, 1, 2, env.gpu) +
                       matmul_time(tokens, 2.0 * h, h / static_cast<double>(t), 1, 2, env.gpu) +
                       matmul_time(2.0 * h, h / static_cast<double>(t), tokens, 1, 2, env.gpu) +
                       memory_bound_time(2.0 * (4.0 + 10.0) * tokens * h * units::B, env.gpu);
    if (t > 1) {
      const bytes x1 = y.tp_message;
      const auto cost = [&](collective_op op, double scale) {
        return tp_group.cheapest(op, scale * x1).cost.time;
      };
      const seconds gather_h = cost(collective_op::all_gather, 1.0);
      y.mtp_projection_tp[0] = cost(collective_op::all_reduce, 2.0) + gather_h;
      y.mtp_projection_tp[1] = cost(collective_op::all_gather, 2.0) +
                               cost(collective_op::reduce_scatter, 2.0) + 2.0 * gather_h;
    }
  }
  if (t > 1) {
    const seconds ar = y.tp_all_reduce.cost.time;
    const seconds rs = y.tp_reduce_scatter.cost.time;
    const seconds ag = y.tp_all_gather.cost.time;
    const bool rotary = model.positions == position_kind::rotary;
    y.embedding_tp = {ar, (rotary ? rs : ar) + ag};
    y.output_regather = opt.sp_input_regather ? ag : seconds{};
    y.output_tp = {ar, ag + rs + y.output_regather};
    y.cross_entropy_tp = cross_entropy_tp_time(
        tp_group, opt.cross_entropy,
        static_cast<double>(micro_batch) * static_cast<double>(model.seq), static_cast<double>(t));
  }
  add_p2p_terms(y, env, x);
  return y;
}

/// The choices of a layout beyond its group sizes and micro-batch.
struct layout_choice {
  std::int64_t vpp = 1;
  bool sequence_parallel = false;
  recompute_mode recompute = recompute_mode::none;
  zero_stage zero = zero_stage::none;
};

/// The time of a step and where it goes, before the report's other figures.
struct step_timing {
  seconds compute{};  ///< on the critical GPU, m micro-batches
  seconds tp_comm{};  ///< exposed
  seconds ep_comm{};  ///< exposed MoE dispatch and combine all-to-alls
  seconds bubble{};
  seconds p2p{};
  seconds dp_comm{};  ///< exposed, embedding all-reduce included
  seconds optimizer{};
  seconds step_time{};
  seconds tp_comm_per_layer{};  ///< one layer, one micro-batch, before overlap
  double tp_collectives_per_layer = 0.0;
  collective_algorithm tp_algorithm = collective_algorithm::ring;
  seconds dp_sync{};  ///< all DP traffic of a step, before overlap
  collective_algorithm dp_algorithm = collective_algorithm::ring;
  seconds moe_tp_comm_per_layer{};  ///< one MoE layer's TP and ETP collectives, before overlap
  double ep_all_to_alls_per_layer = 0.0;  ///< dispatches and combines per MoE layer (4 or 6)
  seconds ep_comm_per_layer{};            ///< their time, one MoE layer, before overlap
};

/// What the block method of full recomputation makes of a quantity summed over the layers:
/// full recomputation's for the `share` of the layers it reruns, none's for the rest.
template <class T>
constexpr T block_mix(const T& full, const T& none, double share) {
  return share * full + (1.0 - share) * none;
}

/// `share` of step `full` and the rest of step `none`, field by field (the block method of full
/// recomputation: step.hpp).
constexpr step_timing blend(const step_timing& full, const step_timing& none, double share) {
  const auto mix = [&](auto a, auto b) { return block_mix(a, b, share); };
  step_timing r = full;
  r.compute = mix(full.compute, none.compute);
  r.tp_comm = mix(full.tp_comm, none.tp_comm);
  r.ep_comm = mix(full.ep_comm, none.ep_comm);
  r.bubble = mix(full.bubble, none.bubble);
  r.p2p = mix(full.p2p, none.p2p);
  r.dp_comm = mix(full.dp_comm, none.dp_comm);
  r.optimizer = mix(full.optimizer, none.optimizer);
  r.step_time = mix(full.step_time, none.step_time);
  r.tp_comm_per_layer = mix(full.tp_comm_per_layer, none.tp_comm_per_layer);
  r.tp_collectives_per_layer = mix(full.tp_collectives_per_layer, none.tp_collectives_per_layer);
  r.dp_sync = mix(full.dp_sync, none.dp_sync);
  r.moe_tp_comm_per_layer = mix(full.moe_tp_comm_per_layer, none.moe_tp_comm_per_layer);
  r.ep_all_to_alls_per_layer = mix(full.ep_all_to_alls_per_layer, none.ep_all_to_alls_per_layer);
  r.ep_comm_per_layer = mix(full.ep_comm_per_layer, none.ep_comm_per_layer);
  return r;
}

/// The share of the layers whose forward the block method of full recomputation reruns with N
/// `block_layers`: min(N, c)/c of a model chunk's c = L/(p·v) layers (the even split;
/// transformer_block.py _checkpointed_forward, core_v0.16.0).
constexpr double block_recompute_share(const transformer_spec& model, std::int64_t stages,
                                       std::int64_t chunks, std::int64_t block_layers) {
  const double chunk = static_cast<double>(model.layers) / static_cast<double>(stages * chunks);
  return chunk > 0.0 ? std::min(static_cast<double>(block_layers), chunk) / chunk : 1.0;
}

/// The share of `par`'s layers that `recipe` reruns: 1 but under the block method.
constexpr double block_recompute_share(const transformer_spec& model, const parallel_config& par,
                                       const recompute_recipe& recipe) {
  if (par.recompute != recompute_mode::full || recipe.method != recompute_method::block) {
    return 1.0;
  }
  return block_recompute_share(model, par.pp, par.vpp, recipe.num_layers);
}

/// The most layers a model chunk of p stages and v chunks per stage holds under the even split,
/// ⌈L/(p·v)⌉: the bound on full recomputation's layers (recompute_num_layers) that step checks.
constexpr std::int64_t chunk_layers_bound(const transformer_spec& model, std::int64_t stages,
                                          std::int64_t chunks) {
  const auto n = stages * chunks;
  return n > 0 ? (model.layers + n - 1) / n : model.layers;
}

/// A layer's TP collectives left exposed: userbuffers hide `overlap` of all of them, the input
/// gradients' collectives started before their weight-gradient GEMMs hide `async_hidden`
/// (already capped by those GEMMs), and nothing hides more than the compute. The compute loses
/// `contention` of what `overlap` hides (step_options::tp_contention, fitted on userbuffers
/// rows); the async NCCL collectives hide free, as Korthikanti et al.'s Table 4 calibrates
/// A100's η_mm with them.
constexpr seconds exposed_tp(seconds comm, double overlap, seconds async_hidden, seconds compute,
                             double contention = 0.0) {
  const seconds hidden = min(max(overlap * comm, async_hidden), compute);
  return comm - hidden + contention * min(overlap * comm, hidden);
}

/// What stays exposed of `comm` when a share `overlap` of it runs behind `compute`: the hidden
/// part is at most the compute it hides behind (the rule `sweep` applies per layer), and costs
/// that compute `contention` of itself.
constexpr seconds exposed_after_overlap(seconds comm, double overlap, seconds compute,
                                        double contention = 0.0) {
  return exposed_tp(comm, overlap, seconds{}, compute, contention);
}

/// The one rule on sharding with pipelines, shared by `step` and `plan`, as the stack of
/// `options` runs it (stack_profiles.hpp): ZeRO-2 and 3 need p = 1 (DeepSpeed's PipelineEngine
/// asserts ZeRO stage < 2, deepspeed/runtime/pipe/engine.py; Megatron-Core pipelines only its
/// distributed optimizer, stage 1), except under FSDP2, which torchtitan runs with PP.
constexpr bool sharding_allowed(const step_options& options, zero_stage zero, std::int64_t pp) {
  return sharding_allowed(profile_of(options.stack), zero, pp);
}

/// The step options a stack runs without the flags that change them (stack_profiles.hpp).
constexpr step_options options_of(const stack_profile& stack) {
  step_options o;
  o.stack = stack.stack;
  o.tp_overlap = stack.tp_overlap.value;
  o.dp_overlap = stack.dp_overlap.value;
  o.dp_overlap_zero3 = stack.dp_overlap_zero3.value;
  o.p2p_overlap = stack.p2p_overlap.value;
  // Its TP overlap is Transformer Engine's userbuffers (comm_overlap.py): SP or nothing.
  o.tp_overlap_needs_sp = stack.stack == software_stack::megatron_bridge;
  o.input_grad_overlap = stack.input_grad_overlap.value;
  o.grad_accumulation_fusion = stack.grad_accumulation_fusion.value;
  o.sp_input_regather = stack.sp_input_regather.value;
  o.cross_entropy = stack.cross_entropy.value;
  // Megatron-LM's DDP keeps main_grad in a contiguous buffer (core:
  // distributed/param_and_grad_buffer.py; v2.5: model/distributed.py _grad_buffers).
  o.main_grad_buffer = stack.stack == software_stack::megatron_core ||
                       stack.stack == software_stack::megatron_2021 ||
                       stack.stack == software_stack::megatron_bridge;
  o.grad_wire_bytes = stack.grad_wire_bytes.value;
  o.state = stack.state.value;
  o.attention = stack.attention.value;
  o.selective = stack.selective.value;
  return o;
}

/// The step options a stack runs for a training dtype, without the flags that change them:
/// options_of(stack), but Megatron-LM forces fp32 gradient accumulation and reduction only
/// under bf16 (megatron/training/arguments.py at core_v0.16.0: `if args.bf16:` sets
/// accumulate_allreduce_grads_in_fp32 unless --grad-reduce-in-bf16; under --fp16 it stays
/// False, store_true, and DDP's grad_reduce_in_fp32 follows it), so an fp16 run keeps its
/// main_grad buffer in fp16 and reduces 2-byte gradients: megatron-core's 4-byte wire and
/// gradients become 2 (2 + 2 + 12 bytes a parameter). The other stacks already reduce in the
/// training dtype (megatron-2021, deepspeed, megatron-bridge) or in fp32 whatever it is
/// (torchtitan's mixed_precision_reduce). `fp16`: the run trains in fp16 (--dtype fp16).
constexpr step_options options_of(const stack_profile& stack, bool fp16) {
  step_options o = options_of(stack);
  if (fp16 && stack.stack == software_stack::megatron_core) {
    o.grad_wire_bytes = 2;
    o.state.gradients = 2.0;
  }
  return o;
}

/// Whether the weight-gradient GEMMs add into the main-grad buffer themselves in a layout of
/// ZeRO stage `zero` (grad_accumulation_fusion, stack_profiles.hpp).
constexpr bool accumulation_fused(const step_options& o, zero_stage zero) {
  switch (o.grad_accumulation_fusion) {
    case fused_accumulation::always:
      return true;
    case fused_accumulation::except_zero3:
      return zero != zero_stage::parameters;
    case fused_accumulation::never:
      break;
  }
  return false;
}

/// Bytes per parameter that adding a micro-batch's weight gradients into Megatron's main_grad
/// buffer (`main_grad` bytes each) moves beyond what the weight-gradient GEMM writes anyway.
/// Unfused, a pass reads the 16-bit gradient the GEMM wrote and reads and writes main_grad:
/// 2 + 2g (6 with Megatron-LM v2.5's fp16 buffer, 10 with fp32). Fused, the GEMM's epilogue
/// reads and writes main_grad in place of writing the 16-bit gradient: 2g - 2 (6 with fp32, 2
/// with a bf16 buffer). Both are priced as memory-bound traffic after the GEMM, not hidden under
/// its mainloop: an assumption, which the development rows favour (counted as free, the fits'
/// leave-one-out error grows on the FP8 and short-sequence rows; docs/stacks.md).
constexpr double accumulation_bytes_per_param(bool fused, double main_grad) {
  return fused ? 2.0 * main_grad - 2.0 : 2.0 + 2.0 * main_grad;
}

/// A layer's gradient accumulation per micro-batch: with a main_grad buffer (Megatron's
/// stacks) the traffic above, fused or not (grad_accumulation_fusion); without one the pass
/// at 6 bytes a parameter that layer_compute_time prices (read 2 + 2, write 2).
constexpr seconds accumulation_time(const step_options& o, zero_stage zero,
                                    const layer_compute& kernels) {
  if (!o.main_grad_buffer) {
    return kernels.grad_accumulation;
  }
  constexpr double priced = 6.0;  // the bytes per parameter of kernels.grad_accumulation
  return accumulation_bytes_per_param(accumulation_fused(o, zero), o.state.gradients) / priced *
         kernels.grad_accumulation;
}

namespace detail {

/// The flag of the link that `group` communicates over, for an error naming the input.
inline std::string link_field(const group_placement& group) {
  return group.spans_nodes() ? "inter-bandwidth" : "intra-bandwidth";
}

/// Throws `invalid_spec` naming the input behind the first part of `r` that is infinite or NaN.
/// Validation accepts any positive finite rate, but a message over 1e-320 B/s takes forever
/// and forever minus the overlap is NaN; step and plan must say so, not print "-nan ns".
[[noreturn]] inline void fail_non_finite(const step_environment& env, const group_terms& x,
                                         const step_timing& r) {
  // Where the groups lie, as group_stage placed them (comm/placement.hpp).
  const auto layout = rank_layout_of(x.sizes);
  const std::string hop_link =
      any_p2p_across_domains(env.topology, layout) ? "inter-bandwidth" : "intra-bandwidth";
  const auto dp_group = widest_stage_group(env.topology, layout, parallel_dim::dp);
  const auto embedding = embedding_group(env.topology, layout);
  const std::string dp_link =
      dp_group.spans_nodes() || (x.embedding.value() > 0.0 && embedding.spans_nodes())
          ? "inter-bandwidth"
          : "intra-bandwidth";
  struct part {
    std::string field;
    seconds time;
    const char* what;
  };
  // The compute is matmuls (FLOP/s) and element-wise kernels (HBM bytes/s); of the two rates,
  // the one below the other is the absurd one (a real GPU's peak is ~300x its HBM bandwidth).
  const std::string compute_field =
      env.gpu.peak.value() < env.gpu.memory_bandwidth.value() ? "flops" : "memory-bandwidth";
  const std::string ep_link = link_field(x.ep_group);
  const std::array<part, 8> parts{{
      {compute_field, r.compute, "compute time"},
      {ep_link, r.ep_comm, "EP all-to-all time"},
      {link_field(x.tp_group), r.tp_comm_per_layer, "TP comm time"},
      {hop_link, r.p2p, "pipeline p2p time"},
      {dp_link, r.dp_sync, "DP gradient sync time"},
      {dp_link, r.dp_comm, "DP gradient sync time"},
      {"memory-bandwidth", r.optimizer, "optimizer time"},
      {compute_field, r.bubble, "pipeline bubble"},
  }};
  const part* largest = &parts[0];
  for (const auto& p : parts) {
    (void)require_finite_result(p.field, p.time.value(), p.what);
    largest = p.time > largest->time ? &p : largest;
  }
  // Every part finite, their sum not: the largest part is the input to look at.
  (void)require_finite_result(largest->field, r.step_time.value(), "step time");
  throw invalid_spec(largest->field, "makes the step time non-finite");  // not reached
}

}  // namespace detail

namespace detail {

/// A layer's TP collectives per micro-batch (batch_stage's messages, the recompute mode's
/// counts), and what the MoE layer's share reuses of them.
struct tp_layer_comm {
  tp_collective_count counts{};
  seconds mla_change{};  ///< MLA's attention input collectives in place of the dense ones
  bool rerun_moe = false;
  seconds time{};  ///< the dense layer's TP collectives, before overlap
  /// One input-gradient collective of a column-parallel linear (QKV's, FC1's), when the stack
  /// starts it before that linear's weight-gradient GEMM (input_grad_overlap); 0 otherwise.
  seconds input_grad{};
  /// Under SP, one all-gather of QKV's or FC1's saved s/t input again in the backward, when the
  /// stack re-gathers it (sp_input_regather); 0 otherwise. A dense layer has two (in `time`),
  /// an MoE layer QKV's and its shared experts'.
  seconds input_regather{};
  /// Whether those re-gathers start before their linear's input-gradient GEMM, as the stack's
  /// input-gradient collectives do (input_grad_overlap not none); a --tp-overlap share given is
  /// all that hides otherwise.
  bool regather_async = false;
  /// What those asynchronous collectives hide of a layer with `kernels`: each up to its own
  /// GEMM (a linear the layer lacks has a zero GEMM and hides nothing).
  [[nodiscard]] constexpr seconds async_hidden(const layer_compute& kernels) const {
    const seconds regather = regather_async ? input_regather : seconds{};
    return min(input_grad, kernels.qkv_wgrad) + min(input_grad, kernels.fc1_wgrad) +
           min(regather, kernels.qkv_dgrad) + min(regather, kernels.fc1_dgrad);
  }
};

/// The dense layer's TP collectives on a TP group of `t`; sets r's count, algorithm and time
/// per layer.
inline tp_layer_comm tp_comm_of_layer(const step_environment& env, const batch_terms& y,
                                      const layout_choice& c, std::int64_t t, step_timing& r) {
  const auto& opt = env.options;
  const std::size_t sp = c.sequence_parallel ? 1 : 0;
  tp_layer_comm l;
  l.counts = tp_collectives_per_layer(c.recompute, c.sequence_parallel);
  const auto& counts = l.counts;
  r.tp_collectives_per_layer = counts.all_reduce + counts.reduce_scatter + counts.all_gather;
  // MLA's attention input side (batch_stage): its collectives replace the dense layer's one
  // all-reduce of b·s·h backward (no SP), or its all-gather per forward pass (2 with full
  // recomputation) and reduce-scatter backward (SP). The same change in an MoE layer.
  const double forward_passes = c.recompute == recompute_mode::full ? 2.0 : 1.0;
  if (is_mla(env.model.mla)) {
    const double n = y.mla_in_collectives[sp];
    r.tp_collectives_per_layer += sp == 1 ? (forward_passes + 1.0) * (n - 1.0) : n - 1.0;
    if (t > 1) {
      l.mla_change = sp == 1
                         ? forward_passes * (y.mla_in_all_gather - y.tp_sp_all_gather.cost.time) +
                               (y.mla_in_reduce_scatter - y.tp_reduce_scatter.cost.time)
                         : y.mla_in_all_reduce - y.tp_all_reduce.cost.time;
    }
  }
  // Selective recomputation's modules rerun their forward with its collectives (Megatron-Core
  // core_v0.16.0 checkpoints the whole module): mlp the dense MLP's (its all-reduce, or under
  // SP its all-gather and reduce-scatter, are fc1's and fc2's own), moe the MoE layer's
  // dispatch and combine and its ETP gathers (moe_layer_times).
  const bool modules_rerun =
      c.recompute == recompute_mode::selective && opt.selective == selective_policy::attention_core;
  const bool rerun_mlp = modules_rerun && opt.recompute.has(recompute_module::mlp);
  l.rerun_moe = modules_rerun && opt.recompute.has(recompute_module::moe);
  if (rerun_mlp) {
    r.tp_collectives_per_layer += sp == 1 ? 2.0 : 1.0;
  }
  if (t > 1) {
    l.time = counts.all_reduce * y.tp_all_reduce.cost.time +
             counts.reduce_scatter * y.tp_reduce_scatter.cost.time +
             counts.all_gather * y.tp_sp_all_gather.cost.time + l.mla_change;
    if (rerun_mlp) {
      l.time += sp == 1 ? y.tp_sp_all_gather.cost.time + y.tp_reduce_scatter.cost.time
                        : y.tp_all_reduce.cost.time;
    }
    r.tp_algorithm =
        counts.all_reduce > 0 ? y.tp_all_reduce.algorithm : y.tp_reduce_scatter.algorithm;
  }
  // SP's re-gather of QKV's and FC1's saved input for their weight gradients, once per
  // backward whatever the recompute mode, at the forward all-gather's wire bytes (Transformer
  // Engine gathers the quantized input under FP8). Not under MLA, whose attention input is
  // gathered by collectives of its own (batch_stage), not counted again.
  if (sp == 1 && opt.sp_input_regather) {
    const double regathers = is_mla(env.model.mla) ? 1.0 : 2.0;
    r.tp_collectives_per_layer += regathers;
    if (t > 1) {
      l.input_regather = y.tp_sp_all_gather.cost.time;
      l.time += regathers * l.input_regather;
    }
  }
  r.tp_comm_per_layer = l.time;
  // Each backward pass has one input-gradient collective per column-parallel linear: the
  // all-reduce, or under SP the reduce-scatter, of QKV's and FC1's input gradient.
  const auto async = opt.input_grad_overlap;
  l.regather_async = async != async_input_grad::none;
  if (t > 1 &&
      (async == async_input_grad::all || (async == async_input_grad::reduce_scatter && sp == 1))) {
    l.input_grad = sp == 1 ? y.tp_reduce_scatter.cost.time : y.tp_all_reduce.cost.time;
  }
  return l;
}

/// One micro-batch's times per layer and at the model's ends, which the stages sum.
struct layer_times {
  double tp_overlap = 0.0;  ///< the share of the TP collectives hidden behind compute
  layer_compute dense_kernels{}, moe_kernels{};
  seconds dense_compute{}, tp_exposed{};  ///< a dense layer's kernels and exposed TP
  seconds embedding_tp{};                 ///< the embedding's TP collectives (first stage)
  seconds output_compute{}, output_tp{};  ///< the output layer and MTP modules (last stage)
  seconds moe_compute{}, moe_tp_exposed{}, ep_exposed{};  ///< an MoE layer's; 0 when dense
  seconds per_layer{}, moe_per_layer{};                   ///< a dense and an MoE layer in all
};

/// A dense layer's compute and exposed TP collectives, and the model's ends: the output layer
/// with its loss and the MTP modules on the last stage, the embedding on the first.
inline void dense_layer_and_ends(layer_times& l, const step_environment& env, const group_terms& x,
                                 const batch_terms& y, const layout_choice& c,
                                 const tp_layer_comm& tp) {
  const auto& opt = env.options;
  const std::size_t sp = c.sequence_parallel ? 1 : 0;
  // Userbuffers also exchange over NVLink only (Transformer Engine's initialize_ub maps the TP
  // group's buffers by CUDA IPC within the NVLink domain): a TP group across domains is not
  // overlapped.
  l.tp_overlap = opt.tp_overlap_needs_sp && (!c.sequence_parallel || x.tp_group.spans_nodes())
                     ? 0.0
                     : opt.tp_overlap;
  // A layer's kernels with MLA's duplicated down projections, which SP puts on s/t tokens.
  l.dense_kernels = y.kernels[sp].plus(y.mla_down[sp]);
  l.moe_kernels = y.moe_kernels[sp].plus(y.mla_down[sp]);
  l.dense_compute = l.dense_kernels.total(c.recompute, opt.selective, opt.recompute.modules) +
                    accumulation_time(opt, c.zero, l.dense_kernels);
  // Overlap hides a share of the TP collectives, but at most the compute they overlap with:
  // exposed = comm − hidden, hidden <= compute; the input gradients' collectives hide behind
  // the weight-gradient GEMMs they were started before (Megatron-Core layers.py); what
  // userbuffers hide still costs the compute tp_contention of itself.
  l.tp_exposed = exposed_tp(tp.time, l.tp_overlap, tp.async_hidden(l.dense_kernels),
                            l.dense_compute, opt.tp_contention);
  // The output layer on the last stage: logits, loss, the TP collectives of its input (hidden
  // behind its GEMMs by tp_overlap as the layers' are; it is a ColumnParallelLinear, whose
  // input-gradient collective also starts before its weight-gradient GEMM, as QKV's and FC1's:
  // layers.py core_v0.16.0) and the cross-entropy's all-reduces (batch_stage), which wait on the
  // loss's own kernels: exposed.
  const seconds logits_tp =
      exposed_tp(
          y.output_tp[sp], l.tp_overlap,
          min(tp.input_grad, y.logits_wgrad) +
              (sp == 1 && tp.regather_async ? min(y.output_regather, y.logits_dgrad) : seconds{}),
          y.logits, opt.tp_contention) +
      y.cross_entropy_tp;
  // The embedding's TP collectives on the first stage (batch_stage): no GEMM to hide behind.
  l.embedding_tp = y.embedding_tp[sp];
  // The MTP modules on the last stage (their layers are among x.last_layers): per module the
  // projection 2h → h with its norms and TP collectives, and one more output layer and loss
  // (gpt_model.py _postprocess: output_layer and compute_language_model_loss per module).
  const double mtp = static_cast<double>(env.model.mtp_layers);
  const seconds mtp_tp = exposed_after_overlap(y.mtp_projection_tp[sp], l.tp_overlap,
                                               y.mtp_projection, opt.tp_contention);
  l.output_compute = (1.0 + mtp) * y.logits + mtp * y.mtp_projection;
  // Each MTP module embeds its shifted tokens with the shared embedding (multi_token_prediction.py
  // MultiTokenPredictionLayer: the LanguageModelEmbedding, its TP collectives included).
  l.output_tp = (1.0 + mtp) * logits_tp + mtp * (mtp_tp + l.embedding_tp);
}

/// An MoE layer (moe_layer.hpp): the attention's half of the TP collectives, the shared
/// experts' half when there are any, the ETP gather and reduce-scatter of the routed copies,
/// and 2 all-to-alls forward, 2 backward (and 2 more when full recomputation reruns the
/// forward). Sets r's MoE and EP times per layer. Call for an MoE model only.
inline void moe_layer_times(layer_times& l, const step_environment& env, const batch_terms& y,
                            const layout_choice& c, std::int64_t t, const tp_layer_comm& tp,
                            step_timing& r) {
  const auto& opt = env.options;
  l.moe_compute = l.moe_kernels.total(c.recompute, opt.selective, opt.recompute.modules) +
                  accumulation_time(opt, c.zero, l.moe_kernels);
  const double half_ar = 0.5 * tp.counts.all_reduce;
  const double half_rs = 0.5 * tp.counts.reduce_scatter;
  const double half_ag = 0.5 * tp.counts.all_gather;
  const double shared = env.model.moe.shared_experts > 0 ? 1.0 : 0.0;
  // AG+RS pairs and dispatch+combine pairs: forward, backward, and a rerun forward.
  const double passes = c.recompute == recompute_mode::full || tp.rerun_moe ? 3.0 : 2.0;
  seconds moe_tp{};
  if (t > 1) {
    moe_tp = (half_ar * y.tp_all_reduce.cost.time + shared * half_ar * y.tp_all_reduce.cost.time) +
             (half_rs * y.tp_reduce_scatter.cost.time +
              shared * half_rs * y.tp_reduce_scatter.cost.time) +
             (half_ag * y.tp_all_gather.cost.time + shared * half_ag * y.tp_all_gather.cost.time) +
             tp.mla_change;
  }
  moe_tp += passes * y.etp_reduce_scatter.cost.time + passes * y.etp_all_gather.cost.time;
  // SP's re-gathers (tp_comm_of_layer): QKV's (not under MLA) and the shared experts' FC1's.
  moe_tp += ((is_mla(env.model.mla) ? 0.0 : 1.0) + shared) * tp.input_regather;
  l.moe_tp_exposed = exposed_tp(moe_tp, l.tp_overlap, tp.async_hidden(l.moe_kernels), l.moe_compute,
                                opt.tp_contention);
  r.moe_tp_comm_per_layer = moe_tp;
  r.ep_all_to_alls_per_layer = 2.0 * passes;
  r.ep_comm_per_layer = r.ep_all_to_alls_per_layer * y.dispatch.cost.time;
  // Megatron's --overlap-moe-expert-parallel-comm runs one micro-batch's all-to-alls behind
  // another's compute (combined 1F1B): hidden up to the layer's compute.
  l.ep_exposed = opt.experts.overlap_comm
                     ? exposed_after_overlap(r.ep_comm_per_layer, 1.0, l.moe_compute)
                     : r.ep_comm_per_layer;
}

/// A stage's layers without and with experts.
struct stage_load {
  double dense = 0.0, moe = 0.0;
  [[nodiscard]] constexpr seconds compute(seconds dense_layer, seconds moe_layer) const {
    return dense * dense_layer + moe * moe_layer;
  }
};

constexpr stage_load stage_load_of(std::int64_t layers, std::int64_t moe) {
  return stage_load{static_cast<double>(layers - moe), static_cast<double>(moe)};
}

/// The stage that paces the m micro-batches, and its per-micro-batch parts.
struct slowest_stage {
  stage_load first, last;  ///< the first and last stage's loads (the DP sync's windows)
  seconds compute{}, tp{}, ep{};
  seconds time{};  ///< compute + tp + ep
};

/// The slowest stage without the output layer: the first holds the embedding too (with p = 1
/// the one stage is first and last, and holds both ends); then the last, with the output layer.
inline slowest_stage slowest_stage_of(const group_terms& x, const layer_times& l) {
  const auto p = x.sizes.pp;
  slowest_stage st;
  st.first = stage_load_of(x.first_layers, x.moe_first);
  const stage_load middle = p > 2 ? stage_load_of(x.split.middle, x.moe_middle) : stage_load{};
  st.last = stage_load_of(x.last_layers, x.moe_last);
  const seconds first_end = p > 1 ? l.embedding_tp : seconds{};
  const seconds last_end = l.output_tp + (p > 1 ? seconds{} : l.embedding_tp);
  const bool middle_is_slower = middle.compute(l.per_layer, l.moe_per_layer) >
                                st.first.compute(l.per_layer, l.moe_per_layer) + first_end;
  const stage_load& inner = middle_is_slower ? middle : st.first;
  const seconds inner_end = middle_is_slower ? seconds{} : first_end;
  const bool last_is_slowest =
      st.last.compute(l.per_layer, l.moe_per_layer) + l.output_compute + last_end >=
      inner.compute(l.per_layer, l.moe_per_layer) + inner_end;
  const stage_load& slow = last_is_slowest ? st.last : inner;
  st.compute = slow.compute(l.dense_compute, l.moe_compute) +
               (last_is_slowest ? l.output_compute : seconds{});
  st.tp = slow.compute(l.tp_exposed, l.moe_tp_exposed) + (last_is_slowest ? last_end : inner_end);
  st.ep = slow.moe * l.ep_exposed;
  st.time = st.compute + st.tp + st.ep;
  return st;
}

/// The average stage's load: the model's layers (MTP modules included) over p stages.
inline stage_load average_stage_load(const transformer_spec& model, std::int64_t p) {
  const double fp = static_cast<double>(p);
  const auto moe_total = moe_layers(model) + mtp_moe_layers(model);
  const auto layers_total = model.layers + model.mtp_layers;
  return {static_cast<double>(layers_total - moe_total) / fp, static_cast<double>(moe_total) / fp};
}

/// The average stage: the model's layers and both ends over p stages (the bubble's unit).
inline seconds average_stage_time(const step_environment& env, const layer_times& l,
                                  std::int64_t p) {
  return average_stage_load(env.model, p).compute(l.per_layer, l.moe_per_layer) +
         (l.output_compute + l.output_tp + l.embedding_tp) / static_cast<double>(p);
}

/// A micro-batch's pipeline sends and receives on one stage: forward and backward, once per
/// model chunk (v of them), none with one stage.
inline seconds pipeline_p2p_time(const group_terms& x, const batch_terms& y,
                                 const layout_choice& c) {
  const std::size_t sp = c.sequence_parallel ? 1 : 0;
  return x.sizes.pp > 1 ? 2.0 * static_cast<double>(c.vpp) * y.p2p_one[sp] : seconds{};
}

/// The windows the DP sync can hide in, on the stage that finishes last: the first one (with
/// p = 1 the only one). In 1F1B every stage ends with the backward of the last micro-batch,
/// and stage 0 runs it after all the others (Megatron-Core core_v0.16.0,
/// pipeline_parallel/schedules.py, the cooldown backward passes), so the other stages'
/// syncs end before its own. The gradient reduction hides behind that last backward (the
/// buckets' reduce-scatters or all-reduces launch as the backward fills them); the
/// parameter all-gather of --overlap-param-gather behind the next step's first forward
/// (distrib_optimizer.py step_with_ready_grads: "asynchronous all-gathers that get
/// overlapped with the next forward pass", waited on bucket by bucket in
/// distributed_data_parallel.py's forward pre-hook). Each pass's share of the TP
/// collectives is taken as a third (2 of the 6 with full recomputation; an approximation
/// for the other modes). ZeRO-3 hides behind the last stage's compute.
struct dp_windows {
  seconds backward{}, forward{}, last_stage{};
};

inline dp_windows dp_windows_of(const layer_times& l, const slowest_stage& st) {
  return {
      .backward = st.first.compute(l.dense_kernels.backward + l.tp_exposed / 3.0,
                                   l.moe_kernels.backward + l.moe_tp_exposed / 3.0),
      .forward = st.first.compute(l.dense_kernels.forward() + l.tp_exposed / 3.0,
                                  l.moe_kernels.forward() + l.moe_tp_exposed / 3.0),
      .last_stage = st.last.compute(l.dense_compute, l.moe_compute),
  };
}

/// Data parallelism: one gradient sync per step (gradient accumulation), gradients of this
/// GPU's parameters in the stack's dtype; ZeRO-1/distributed optimizer: reduce-scatter of the
/// gradients + all-gather of the 16-bit weights. Sets r's DP sync, algorithm and exposed time
/// for the `fm` micro-batches of a step.
inline void data_parallel_comm(step_timing& r, const step_options& opt, const group_terms& x,
                               const layout_choice& c, double fm, const dp_windows& w) {
  const double f = opt.dp_overlap;
  // The gradient reduction of a sharded step: reduce-scatters, and under HSDP the replicas'
  // all-reduce of each shard after them.
  const seconds reduce = x.dp_reduce_scatter.cost.time + x.edp_reduce_scatter.cost.time +
                         x.dp_replica_all_reduce.cost.time + x.edp_replica_all_reduce.cost.time;
  if (c.zero == zero_stage::none) {
    r.dp_sync = x.dp_all_reduce.cost.time + x.edp_all_reduce.cost.time;
    r.dp_algorithm = x.dp_all_reduce.algorithm;
    r.dp_comm = r.dp_sync - f * min(r.dp_sync, w.backward);
  } else if (c.zero == zero_stage::optimizer) {
    // The distributed optimizer reduce-scatters the gradients (the stack's dtype) and
    // all-gathers the updated 16-bit weights, once per step.
    // The reduce-scatters hide behind the last backward, the all-gather (unless only
    // --overlap-grad-reduce is on) behind the next forward.
    const seconds rs = reduce;
    const seconds ag = x.dp_all_gather.cost.time + x.edp_all_gather.cost.time;
    r.dp_sync = rs + ag;
    r.dp_algorithm = x.dp_reduce_scatter.algorithm;
    const double f_ag = opt.overlap_grad_reduce_only ? 0.0 : f;
    r.dp_comm = (rs - f * min(rs, w.backward)) + (ag - f_ag * min(ag, w.forward));
  } else if (c.zero == zero_stage::gradients) {
    // ZeRO-2 keeps only this rank's shard of the gradients, so every micro-batch's gradients
    // are reduce-scattered as its backward produces them (m times a step, each hidden behind
    // that backward by `dp_overlap`), and the updated weights are all-gathered once.
    const seconds rs = reduce;
    const seconds ag = x.dp_all_gather.cost.time + x.edp_all_gather.cost.time;
    r.dp_algorithm = x.dp_reduce_scatter.algorithm;
    r.dp_sync = fm * rs + ag;
    r.dp_comm = fm * (rs - f * min(rs, w.backward)) + ag;
  } else {
    // ZeRO-3 also shards the weights: every micro-batch all-gathers them before its forward
    // and again before its backward (recomputation, when on, reuses the second gather), and
    // reduce-scatters the gradients: 3 half-all-reduces per micro-batch, hidden behind that
    // micro-batch's compute by `dp_overlap_zero3` (Rajbhandari et al. 2020, Sec. 7.2.2: 1.5x
    // the all-reduce traffic per gradient sync). FSDP2 with PP keeps the weights gathered
    // from forward to backward: one gather (zero3_gathers_per_micro_batch).
    const double gathers = zero3_gathers_per_micro_batch(profile_of(opt.stack), x.sizes.pp);
    const seconds per_micro_batch =
        gathers * (x.dp_all_gather.cost.time + x.edp_all_gather.cost.time) + reduce;
    r.dp_algorithm = x.dp_reduce_scatter.algorithm;
    r.dp_sync = fm * per_micro_batch;
    const seconds hideable = opt.overlap_grad_reduce_only ? reduce : per_micro_batch;
    r.dp_comm = fm * (per_micro_batch - opt.dp_overlap_zero3 * min(hideable, w.last_stage));
  }
}

}  // namespace detail

/// The per-layout combination (see step.hpp's file comment for the formula). Throws
/// `invalid_spec` naming the input when a time comes out infinite or NaN.
inline step_timing combine_step(const step_environment& env, const group_terms& x,
                                const batch_terms& y, const layout_choice& c) {
  const auto& opt = env.options;
  const auto t = x.sizes.tp;
  const auto p = x.sizes.pp;
  const auto d = x.sizes.dp;
  step_timing r;
  const detail::tp_layer_comm tp = detail::tp_comm_of_layer(env, y, c, t, r);
  detail::layer_times l;
  detail::dense_layer_and_ends(l, env, x, y, c, tp);
  if (is_moe(env.model.moe)) {  // all zero for a dense model
    detail::moe_layer_times(l, env, y, c, t, tp, r);
  }
  l.moe_per_layer = l.moe_compute + l.moe_tp_exposed + l.ep_exposed;
  // The slowest stage paces the m micro-batches; the bubble costs (p−1)/v of an average stage.
  l.per_layer = l.dense_compute + l.tp_exposed;
  const detail::slowest_stage st = detail::slowest_stage_of(x, l);
  const seconds average = detail::average_stage_time(env, l, p);
  const seconds p2p = detail::pipeline_p2p_time(x, y, c);
  const double fm = static_cast<double>(y.micro_batches);
  r.bubble = bubble_stages(p, c.vpp) * (average + p2p);
  if (d > 1 || x.expert_dp_group.ranks > 1) {
    detail::data_parallel_comm(r, opt, x, c, fm, detail::dp_windows_of(l, st));
  }
  r.dp_comm += x.embedding;
  if (c.sequence_parallel) {
    r.dp_comm += x.mla_tp_grad_sync;
  }
  // Optimizer: memory-bound over this GPU's (ZeRO-partitioned) parameters.
  r.optimizer = c.zero == zero_stage::none ? x.optimizer_full : x.optimizer_sharded;
  r.compute = fm * st.compute;
  r.tp_comm = fm * st.tp;
  r.ep_comm = fm * st.ep;
  // Interleaved: the steady state's sends and receives run beside the micro-batch's compute
  // (capped by it); the bubble's warm-up and flush keep theirs.
  const seconds p2p_exposed =
      c.vpp > 1 ? exposed_after_overlap(p2p, opt.p2p_overlap, st.time) : p2p;
  r.p2p = fm * p2p_exposed;
  r.step_time = fm * (st.time + p2p_exposed) + r.bubble + r.dp_comm + r.optimizer;
  // A non-finite part makes the step time non-finite (every part enters it with a factor >= 1);
  // the two figures before overlap are checked on their own.
  if (!std::isfinite(r.step_time.value()) || !std::isfinite(r.tp_comm_per_layer.value()) ||
      !std::isfinite(r.dp_sync.value())) {
    detail::fail_non_finite(env, x, r);
  }
  return r;
}

/// The parallel_config a stage's inputs and a choice describe (for the memory terms).
constexpr parallel_config layout_of(const group_terms& x, const batch_terms& y,
                                    const layout_choice& c, std::int64_t global_batch) {
  parallel_config par;
  par.tp = x.sizes.tp;
  par.pp = x.sizes.pp;
  par.dp = x.sizes.dp;
  par.ep = x.sizes.ep;
  par.etp = x.sizes.etp;
  par.vpp = c.vpp;
  par.micro_batch = y.micro_batch;
  par.global_batch = global_batch;
  par.sequence_parallel = c.sequence_parallel;
  par.recompute = c.recompute;
  par.zero = c.zero;
  if (!x.split.even()) {  // an even split is the default: left implicit
    par.first_stage_layers = x.split.first;
    par.last_stage_layers = x.split.last;
  }
  return par;
}

namespace detail {
/// The memory terms of a layout as the environment's options run it (stage_memory_terms_of).
inline stage_memory_terms memory_terms_of(const step_environment& env, const group_terms& x,
                                          const batch_terms& y, const layout_choice& c,
                                          std::int64_t global_batch) {
  return stage_memory_terms_of(
      env.model, layout_of(x, y, c, global_batch), y.micro_batches, env.options.attention,
      env.options.state,
      zero3_gathered_layers(profile_of(env.options.stack), x.sizes.pp, env.model.layers),
      env.options.experts.load, env.options.selective, env.options.recompute);
}

/// The layer activation terms of a layout (layer_activation_terms_of): within a (t, ep, etp)
/// group they depend on its b, SP and recomputation only, so a search computes them once for
/// every split, v and ZeRO stage.
inline layer_activation_terms activation_terms_of(const step_environment& env, const group_terms& x,
                                                  const batch_terms& y, const layout_choice& c,
                                                  std::int64_t global_batch) {
  return layer_activation_terms_of(env.model, layout_of(x, y, c, global_batch),
                                   env.options.attention, env.options.experts.load,
                                   env.options.selective, env.options.recompute);
}

/// memory_terms_of with the layout's activation terms `layer` already computed.
inline stage_memory_terms memory_terms_of(const step_environment& env, const group_terms& x,
                                          const batch_terms& y, const layout_choice& c,
                                          std::int64_t global_batch,
                                          const layer_activation_terms& layer) {
  return stage_memory_terms_of(
      env.model, layout_of(x, y, c, global_batch), y.micro_batches, env.options.state,
      zero3_gathered_layers(profile_of(env.options.stack), x.sizes.pp, env.model.layers), layer);
}

/// A layout's first, middle and last stage apart from their activations' per-layer terms
/// (stage_states_at): each stage's model states, with the recipe's weight copies where it has
/// any (none for BF16), and its activation factors. `peak(terms)` is the fullest stage's total
/// with those terms. plan's search of module sets, whose sets change only the per-layer terms,
/// builds it once per layout and asks for each set's peak.
class layout_stages {
 public:
  layout_stages(const group_terms& x, const stage_memory_terms& terms,
                const weight_copies& copies = {}) {
    const auto p = x.sizes.pp;
    const auto add = [&](stage_memory_parts parts) {
      if (copies.per_layer != 0.0) {
        add_weight_copies(parts.states, copies);
      }
      model_states_[count_] = parts.states.model_states();
      factors_[count_] = parts.factors;
      ++count_;
    };
    add(stage_states_at(terms, 0, x.first_layers, x.params_first, x.experts_first, x.moe_first));
    if (p > 2) {
      add(stage_states_at(terms, 1, x.split.middle, x.params_middle, x.experts_middle,
                          x.moe_middle));
    }
    if (p > 1) {
      add(stage_states_at(terms, p - 1, x.last_layers, x.params_last, x.experts_last, x.moe_last));
    }
  }

  /// The fullest stage's total (stage_memory::total: model states, then activations).
  [[nodiscard]] bytes peak(const stage_memory_terms& terms) const {
    bytes out = model_states_[0] + stage_activations(factors_[0], terms);
    for (std::size_t i = 1; i < count_; ++i) {
      out = max(out, model_states_[i] + stage_activations(factors_[i], terms));
    }
    return out;
  }

 private:
  std::array<bytes, 3> model_states_{};
  std::array<stage_activation_factors, 3> factors_{};
  std::size_t count_ = 0;
};
}  // namespace detail

/// peak_memory from the layout's terms (detail::memory_terms_of), which a search can reuse.
inline bytes peak_memory_from_terms(const group_terms& x, const stage_memory_terms& terms,
                                    const weight_copies& copies = {}) {
  return detail::layout_stages(x, terms, copies).peak(terms);
}

/// Peak memory per GPU of the layout: the fullest of the first, second and last stage (the
/// middle stages hold the same layers and parameters, and fewer micro-batches than the
/// second), each as `memory_per_gpu` counts it, plus the quantized weight copies `copies` of
/// an FP8/FP4 recipe (add_weight_copies, as evaluate_step adds them).
inline bytes peak_memory(const step_environment& env, const group_terms& x, const batch_terms& y,
                         const layout_choice& c, std::int64_t global_batch,
                         const weight_copies& copies = {}) {
  return peak_memory_from_terms(x, detail::memory_terms_of(env, x, y, c, global_batch), copies);
}

}  // namespace tpcost
