// What context parallelism and a linear-layer precision add to a step, composed from the
// one-evaluator step model (stages.hpp) without a second copy of its arithmetic; evaluate_step
// (step.hpp) adds them, and the planner's search (planner.hpp) adds the same terms.
//
// A CP rank runs every layer on b·s/cp tokens; towards the rest of the step it looks like a DP
// replica of sequences s/cp long: its TP collectives carry b·(s/cp)·h, its pipeline sends
// b·(s/cp)·h/t, its activations are those of s/cp tokens, and its gradients and optimizer
// shards are reduced over the d·cp ranks that hold the same weights (Megatron-Core reduces
// and shards over the data-parallel-with-CP group; its rank order tp-cp-ep-dp-pp makes that
// group the ranks t apart, as the DP group of a d·cp layout). So the step is the step of the
// view, the layout (t, p, d·cp) with s/cp-token sequences and G·cp of them (view_layout), plus
// what that view leaves out:
//   - attention against all s keys: the s/cp queries of a rank see s keys, cp times the
//     (s/cp)² of the view (FLOP-bound with a fused kernel: exactly (cp−1) more attention core
//     forward, twice that backward, once more when recomputed);
//   - the CP exchange of context_parallel.hpp, exposed where attention does not hide it;
//   - the linear layers at their precision's rate (precision.hpp), attention and logits BF16.
// The added time per layer and micro-batch joins the pipeline as compute does: m times on the
// slowest stage plus the bubble's (p−1)/v share of a stage. Model FLOPs and MFU use the real
// sequence length.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "tpcost/base/error.hpp"
#include "tpcost/hardware/efficiency.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/model/flops.hpp"
#include "tpcost/model/pipeline_parallel.hpp"
#include "tpcost/model/precision.hpp"
#include "tpcost/step/context_parallel.hpp"
#include "tpcost/step/moe_layer.hpp"
#include "tpcost/step/stages.hpp"

namespace tpcost {

/// The BF16 side of a GPU preset with the default η (efficiency.hpp) of its model or
/// generation, for the kernels a stack runs (`kernels`, stack_profiles.hpp).
inline compute_device bf16_device_for(const gpu_preset& gpu,
                                      kernel_stack kernels = kernel_stack::megatron_fused) {
  const auto e = default_efficiency(gpu.name, gpu.arch, tensor_rate::bf16, kernels);
  return {.peak = gpu.peak.bf16.value,
          .memory_bandwidth = gpu.memory_bandwidth.value,
          .efficiency = {.matmul = e.matmul,
                         .memory = e.memory,
                         .attention = e.attention,
                         .elementwise_traffic = e.elementwise_traffic}};
}

/// The recipe on a GPU preset: refuses one the GPU cannot run (invalid_spec(field, ...) naming
/// the GPU: FP4 on Hopper, FP8 on Ampere, MXFP8 before Blackwell), else its rate's peak and the
/// generation's default η for the linear GEMMs and for attention, for the stack's `kernels`.
inline precision_device precision_device_for(const gpu_preset& gpu, const precision_options& opts,
                                             std::string_view field,
                                             kernel_stack kernels = kernel_stack::megatron_fused) {
  check_support(opts, support_of(gpu.arch), gpu.name, field);
  const auto rate = linear_rate(opts);
  return {.options = opts,
          .linear_peak = rate_peak(gpu, rate, field).value,
          .linear_efficiency = default_efficiency(gpu.name, gpu.arch, rate, kernels).matmul,
          .attention_efficiency =
              default_efficiency(gpu.name, gpu.arch, attention_rate(opts), kernels).attention,
          .attention_peak = rate_peak(gpu, attention_rate(opts), field).value,
          .support = support_of(gpu.arch)};
}

/// The view's layout: (t, p, d·cp) with G·cp sequences. HSDP's replicas split the
/// DP-with-CP group (Megatron-Core's intra-partial DP group with CP, torchtitan's dp_shard_cp
/// mesh): the view keeps their count.
constexpr parallel_config view_layout(const parallel_config& par) {
  parallel_config view = par;
  view.dp = par.dp * par.cp;
  view.global_batch = par.global_batch * par.cp;
  view.cp = 1;
  return view;
}

/// The view's options: the recipe's wire bytes (precision.hpp), quantized SP all-gathers and
/// FP8 parameter gathers.
inline step_options view_options(step_options options, const precision_options& precision) {
  if (precision.linear != linear_precision::bf16) {
    options.tp_all_gather_bytes = tp_all_gather_bytes(precision);
  }
  options.linear_param_gather_bytes = param_gather_bytes(precision);
  return options;
}

/// What the view (t, p, d·cp) on s/cp-token sequences leaves out, for one layer and one
/// micro-batch on one GPU: the stage that `evaluate_step` and the planner's search
/// (planner.hpp) both add, one formula in one place.
struct long_context_layer_terms {
  /// One forward pass of the attention core against all s keys, less the view's core.
  seconds attention_core_delta{};
  seconds attention_core{};         ///< one forward pass of the full attention core of a rank
  seconds linear_saving_forward{};  ///< linear GEMMs at the precision rate vs BF16, forward
  seconds linear_saving_backward{};
  cp_layer_comm cp;  ///< the CP exchange, its exposed part behind attention
  /// The attention passes (forward, backward, recomputed) beyond the view, for `mode` and the
  /// selective `modules` (recompute_recipe.hpp; the core is rerun only with core_attn).
  [[nodiscard]] constexpr seconds attention_extra(
      recompute_mode mode, selective_policy policy = selective_policy::attention_core,
      unsigned modules = static_cast<unsigned>(recompute_module::core_attn)) const {
    return fused_attention_passes(mode, policy, modules) * attention_core_delta;
  }
  /// The linear GEMMs' saving: forward (twice with full recomputation) and backward.
  [[nodiscard]] constexpr seconds linear_saving(recompute_mode mode) const {
    const double refwd = mode == recompute_mode::full ? 1.0 : 0.0;
    return (1.0 + refwd) * linear_saving_forward + linear_saving_backward;
  }
  /// The time the layer and micro-batch add to the view's: attention, less the saving, plus
  /// the exposed exchange.
  [[nodiscard]] constexpr seconds added(
      recompute_mode mode, selective_policy policy = selective_policy::attention_core,
      unsigned modules = static_cast<unsigned>(recompute_module::core_attn)) const {
    return attention_extra(mode, policy, modules) - linear_saving(mode) + cp.exposed();
  }
};

/// How many times a per-layer, per-micro-batch term enters the step: m micro-batches on the
/// slowest stage (L/p layers) plus the bubble's (p−1)/v of a stage.
constexpr double long_context_pipeline_factor(std::int64_t layers, std::int64_t pp,
                                              std::int64_t vpp, std::int64_t micro_batches) {
  return static_cast<double>(layers) / static_cast<double>(pp) *
         (static_cast<double>(micro_batches) + bubble_stages(pp, vpp));
}

/// The long-context stage for a micro-batch of `micro_batch` sequences of the real model on a
/// TP group of `tp`, the CP layout `c` and the precision: the view's environment `view` holds
/// the s/cp-token model, the BF16 GPU, the topology and the attention kernel. Call validate
/// first; throws invalid_spec("inter-bandwidth") when the CP group spans nodes without an
/// inter-node link.
inline long_context_layer_terms long_context_layer_stage(
    const step_environment& view, const transformer_spec& model, std::int64_t micro_batch,
    std::int64_t tp, const context_parallel& c, const precision_device& precision,
    std::int64_t ep = 1, std::int64_t etp = 1) {
  const auto b = micro_batch;
  const auto t = tp;
  const auto& gpu = view.gpu;
  const auto& topo = view.topology;
  const auto attention = view.options.attention;
  long_context_layer_terms out;
  const auto kernels = layer_compute_time(view.model, b, t, gpu, attention);
  // Linear GEMMs at the precision's rate: the difference of the layer at the two rates, less
  // its attention core (which stays BF16 unless FP8 attention is asked for).
  if (precision.options.linear != linear_precision::bf16) {
    compute_device fast = gpu;
    fast.attention_peak = gpu.attention_peak.value() > 0.0 ? gpu.attention_peak : gpu.peak;
    fast.peak = precision.linear_peak.value() > 0.0 ? precision.linear_peak : gpu.peak;
    if (precision.linear_efficiency > 0.0) {
      fast.efficiency.matmul = precision.linear_efficiency;
    }
    fast.matmul_operand_bytes = linear_operand_bytes(precision.options);
    // The saving of one layer with the MLP part `mlp`, forward and backward.
    const auto saving = [&](const mlp_block& mlp) {
      const auto slow = layer_compute_time(view.model, b, t, gpu, attention, mlp);
      const auto k = layer_compute_time(view.model, b, t, fast, attention, mlp);
      // Zero with a fused kernel (fast keeps the attention peak); an unfused kernel's score
      // matmuls ran at the fast peak: take them back, forward and their two gradients.
      const seconds attn_delta = k.attention_core_forward - slow.attention_core_forward;
      return std::pair{slow.other_forward - k.other_forward,
                       (slow.backward - k.backward) + 2.0 * attn_delta};
    };
    auto [forward, backward] = saving(dense_mlp_block(view.model, t));
    if (is_moe(view.model.moe)) {
      // MoE layers (moe_layer.hpp): the routed experts' grouped GEMMs, the shared experts and
      // the router at the recipe's rate too (TE's GroupedLinear runs the FP8 recipe); the
      // dispatch and combine stay BF16 (Megatron-Core core_v0.16.0: the alltoall dispatcher
      // sends the BF16 hidden states, and fused_a2a.py's HybridEP "do[es] not support fp8
      // dispatch"). The step's layers mix dense and MoE ones: the saving per layer is their
      // mean, as the long-context terms enter the step per layer.
      const auto tokens =
          expert_tokens_of(view.model, b, view.model.seq, t, ep, etp, view.options.experts.load);
      const auto [mf, mb] =
          saving(moe_mlp_block(view.model, t, ep, etp, tokens, view.options.experts.dispatcher));
      const double moe_share =
          static_cast<double>(moe_layers(view.model)) / static_cast<double>(view.model.layers);
      forward = (1.0 - moe_share) * forward + moe_share * mf;
      backward = (1.0 - moe_share) * backward + moe_share * mb;
    }
    out.linear_saving_forward = forward;
    out.linear_saving_backward = backward;
  }
  // The attention core against all s keys, by the one kernel cost the view's core has too
  // (compute_model.hpp, fused_attention_forward_time): cp times the view's (s/cp)² core, in
  // place of it. At cp = 1 with BF16 attention the two are the same and the delta is zero.
  compute_device attention_gpu = gpu;
  if (precision.attention_efficiency > 0.0) {
    attention_gpu.efficiency.attention = precision.attention_efficiency;
  }
  if (precision.options.fp8_attention && precision.attention_peak.value() > 0.0) {
    attention_gpu.attention_peak = precision.attention_peak;  // FP8 attention at the FP8 rate
  }
  out.attention_core =
      static_cast<double>(c.cp) *
      layer_compute_time(view.model, b, t, attention_gpu, attention).attention_core_forward;
  out.attention_core_delta = out.attention_core - kernels.attention_core_forward;

  // The CP exchange, each ring step behind its attention block (the full attention of a rank).
  const double qkv_bytes = precision.options.fp8_attention ? 1.0 : 2.0;
  const auto exchanges = cp_exchanges(model, b, t, c, qkv_bytes, topo.gpus_per_node);
  const auto outer = place_strided(c.cp, t, topo.gpus_per_node);
  const auto inner =
      place_strided(a2a_group_size(model, t, c, topo.gpus_per_node), t, topo.gpus_per_node);
  if (outer.spans_nodes() && !(topo.inter.bandwidth.value() > 0.0)) {
    throw invalid_spec("inter-bandwidth", "the CP group of " + std::to_string(c.cp) +
                                              " ranks spans nodes; give the inter-node link");
  }
  out.cp = sum_cp_comm(exchanges, out.attention_core, 2.0 * out.attention_core, outer, inner, topo);
  return out;
}

/// The quantized weight copies TE keeps between micro-batches (precision.hpp) on one GPU: per
/// linear weight, split over t (and over `data_ranks` = d·cp with ZeRO-3, which shards the
/// weights; HSDP: over its shard group). Per layer: a dense layer's linear weights over t; an MoE
/// layer's attention and shared experts over t and its routed experts over ep·etp (TE's
/// GroupedLinear keeps the same copies), in the model's mean of the two kinds. Zero for BF16.
inline weight_copies weight_copies_of(const transformer_spec& model,
                                      const precision_device& precision, std::int64_t tp,
                                      std::int64_t ep, std::int64_t etp, zero_stage zero,
                                      std::int64_t data_ranks) {
  const double copy_bytes = weight_copy_bytes_per_param(precision.options, precision.support);
  if (copy_bytes == 0.0) {
    return {};
  }
  double per_layer =
      static_cast<double>(quantized_params_per_layer(model)) / static_cast<double>(tp);
  if (is_moe(model.moe)) {
    const double attention =
        static_cast<double>(is_mla(model.mla) ? mla_params(model.mla, model.hidden, model.heads)
                                              : attention_weights_per_layer(model));
    const auto moe = moe_params_per_layer(model);
    const double moe_layer =
        (attention + static_cast<double>(moe.shared)) / static_cast<double>(tp) +
        static_cast<double>(moe.routed) / static_cast<double>(ep * etp);
    const double share = static_cast<double>(moe_layers(model)) / static_cast<double>(model.layers);
    per_layer = (1.0 - share) * per_layer + share * moe_layer;
  }
  return {.per_layer = copy_bytes * per_layer,
          .shard = zero == zero_stage::parameters ? static_cast<double>(data_ranks) : 1.0};
}

}  // namespace tpcost
