// Compute time of one transformer layer on one GPU of a TP group, kernel by kernel.
//
// Each matmul is a roofline with achievable ceilings: its time is the larger of
// 2·M·N·K / (η_mm·P) and its operand bytes / (η_bw·HBM bandwidth), so small or skinny matmuls
// (the attention batched matmuls with a head dimension of 64–160) are memory-bound while the
// big projections run at η_mm·P. The element-wise kernels (norms, bias + dropout + residual,
// bias + activation, softmax, dropout) are memory-bound: their bytes are counted from the
// Megatron-LM kernels and run at η_bw·HBM bandwidth. This is what makes the effective compute
// efficiency grow with the hidden size, as measured (Narayanan et al. 2021, Table 1: 44% of
// peak at h = 2304 to 52% at h = 25600). docs/step.md derives the byte counts.
//
// η_mm and η_bw are software-level efficiencies: what a given framework reaches, not what the
// silicon can. The A100 defaults (gpu presets) are η_mm = 0.75, calibrated on the 27.2 ms
// measured for a 22B layer by Korthikanti et al. 2022 (arXiv:2205.05198, Table 4), and
// η_bw = 0.66, the one constant fitted to Narayanan et al. 2021 Table 1 (the evidence-only
// value from the same calibration is 0.79); see README "Validation".
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/op_checkpoint.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/model/recompute_recipe.hpp"

namespace tpcost {

/// Achievable fractions of a GPU's datasheet peaks for a given software stack.
struct kernel_efficiency {
  double matmul = 0.75;  ///< η_mm: of the dense tensor-core peak, for large matmuls
  double memory = 0.66;  ///< η_bw: of the HBM bandwidth, for memory-bound kernels
  /// η_attn: of the attention core's dense peak, reached by a fused (flash) attention kernel on
  /// the FLOPs it runs (the causal half of the s×s scores), forward and backward alike;
  /// fused_attention_forward_time is its one use. Per generation in hardware/efficiency.hpp.
  double attention = 0.50;
  /// HBM bytes the layers' element-wise kernels move, relative to the fused kernels counted in
  /// layer_compute_time (Megatron-LM's and Transformer Engine's, and what torch.compile's
  /// inductor fuses the same ops into): 1, or PyTorch eager's unfused ops (efficiency.hpp,
  /// kernel_stack). Not applied to the logits' cross-entropy or the optimizer.
  double elementwise_traffic = 1.0;
};

/// The compute side of one GPU as the step model needs it.
struct compute_device {
  flops_per_second peak{};              ///< dense peak for the compute dtype
  bytes_per_second memory_bandwidth{};  ///< HBM bandwidth
  kernel_efficiency efficiency{};
  /// The dense peak the attention core runs at when it differs from `peak` (FP8 attention
  /// beside BF16 GEMMs, or BF16 attention beside FP8 GEMMs); 0 = `peak`.
  flops_per_second attention_peak{};
  /// Bytes per element of the linear layers' GEMM operands in their roofline: 2 in BF16, the
  /// quantized operand's with FP8 GEMMs (precision.hpp linear_operand_bytes). The attention
  /// matmuls and the logits stay 16-bit.
  double matmul_operand_bytes = 2.0;
};

/// One matmul C[M×N] = A[M×K]·B[K×N], `batch` times, with `element` bytes per value.
constexpr seconds matmul_time(double m, double n, double k, double batch, double element,
                              const compute_device& gpu) {
  const flops work = 2.0 * m * n * k * batch * units::FLOP;
  const bytes traffic = element * (m * k + k * n + m * n) * batch * units::B;
  return max(work / (gpu.efficiency.matmul * gpu.peak),
             traffic / (gpu.efficiency.memory * gpu.memory_bandwidth));
}

/// Time of a memory-bound kernel that moves `traffic` bytes.
constexpr seconds memory_bound_time(bytes traffic, const compute_device& gpu) {
  return traffic / (gpu.efficiency.memory * gpu.memory_bandwidth);
}

/// A fused (FlashAttention) kernel under a causal mask skips the blocks above the diagonal:
/// half the score and score × V FLOPs of a decoder (Dao 2023, FlashAttention-2,
/// arXiv:2307.08691, Sec. 3.1.1 and Sec. 4.1, whose causal FLOP counts are half the full ones).
/// An unfused kernel (Megatron-LM 2021) computes the whole s×s scores and masks them: no saving.
inline constexpr double fused_attention_causal_share = 0.5;
/// FlashAttention's backward pass costs 2.5× its forward: five matmuls (it recomputes QKᵀ and
/// the softmax) against the forward's two (Dao 2023, Sec. 4.1).
inline constexpr double fused_attention_backward_factor = 2.5;

/// The attention kernel's cost, the one formula for it: one forward pass of a fused causal
/// kernel over `full_flops`, the FLOPs of QKᵀ and scores × V on the whole s×s (as model FLOPs
/// count them), at η_attn of the attention peak. FlashAttention is FLOP-bound at the head
/// dimensions of LLMs (64-256): its HBM traffic is Q, K, V and O, not the scores (Dao et al.
/// 2022, arXiv:2205.14135, Theorem 2). The backward is fused_attention_backward_factor times
/// this, at the same η (the development rows cannot tell the two passes' η apart).
/// evaluate_step (cp = 1, through layer_compute_time) and the context-parallel stage
/// (long_context.hpp, which runs the same kernel on s/cp queries against all s keys) both call
/// it, so one kernel has one cost.
constexpr seconds fused_attention_forward_time(flops full_flops, const compute_device& gpu) {
  const flops_per_second peak = gpu.attention_peak.value() > 0.0 ? gpu.attention_peak : gpu.peak;
  return fused_attention_causal_share * full_flops / (gpu.efficiency.attention * peak);
}

/// Forward, backward and (per mode) recomputed forward passes of the fused attention core, in
/// units of its forward pass: 1 + 2.5, +1 recomputed under full recomputation, or under
/// selective recomputation when `modules` (Megatron-Core's recompute_modules,
/// recompute_recipe.hpp) hold core_attn; not under torchtitan's per-op policy, which saves the
/// attention kernel's output.
constexpr double fused_attention_passes(
    recompute_mode mode, selective_policy policy = selective_policy::attention_core,
    unsigned modules = static_cast<unsigned>(recompute_module::core_attn)) {
  const bool core_attn = (modules & static_cast<unsigned>(recompute_module::core_attn)) != 0U;
  const bool rerun =
      mode == recompute_mode::full ||
      (mode == recompute_mode::selective && policy != selective_policy::per_op && core_attn);
  return 1.0 + fused_attention_backward_factor + (rerun ? 1.0 : 0.0);
}

/// Per-GPU compute time of one layer for one micro-batch, by kernel class.
struct layer_compute {
  seconds attention_core_forward{};  ///< QKᵀ, PV, softmax, dropout: what selective recompute redoes
  seconds other_forward{};           ///< projections, MLP, norms, residuals
  seconds backward{};                ///< data and weight gradients, element-wise backward
  seconds grad_accumulation{};       ///< adding this micro-batch's weight gradients to the buffer
  /// What torchtitan's per-op checkpointing runs again (op_checkpoint.hpp): the matmuls it does
  /// not save and every element-wise forward kernel; the attention core stays saved. An MoE or
  /// MLA layer, whose per-op list tpcost has not derived, takes the attention core instead.
  seconds per_op_recompute{};
  /// Of the forward, what Megatron-Core's recompute_modules (recompute_recipe.hpp) run again
  /// beyond the attention core: the TP-split MLP (a dense MLP, or an MoE layer's shared
  /// experts) with its activation, the routed experts with the router and the permutation, the
  /// routed experts' activation alone, MLA's up projections. Their collectives (the MLP's, the
  /// MoE dispatch) are combine_step's (stages.hpp).
  seconds mlp_forward{};
  seconds experts_forward{};
  seconds experts_activation{};
  seconds mla_up_forward{};
  /// The forward of the layer's norms that are modules of their own (element-wise, 4 bytes per
  /// element): what the layernorm module reruns (Megatron-Core core_v0.16.0
  /// transformer_layer.py, recompute_input_layernorm and recompute_pre_mlp_layernorm:
  /// CheckpointWithoutOutput runs the norm's forward again in the backward). The TE spec fuses
  /// the others into linear_qkv and linear_fc1, where nothing is rerun nor freed (memory.hpp,
  /// selective_module_bytes).
  seconds norms_forward{};
  /// Of the backward, the weight-gradient GEMMs of the two column-parallel linears whose input
  /// gradient is a TP collective: QKV's (0 under MLA, whose attention input has collectives of
  /// its own) and FC1's with its gate (an MoE layer: the shared experts', 0 without). What
  /// that collective, started before them, can hide behind (stages.hpp, input_grad_overlap).
  seconds qkv_wgrad{}, fc1_wgrad{};
  /// Their input-gradient GEMMs: what SP's all-gather of their saved input, started before
  /// them, can hide behind (stages.hpp, tp_layer_comm::async_hidden).
  seconds qkv_dgrad{}, fc1_dgrad{};
  bool moe = false;  ///< an MoE layer: "mlp" does not apply, "moe" and "shared_experts" do

  [[nodiscard]] constexpr seconds forward() const { return attention_core_forward + other_forward; }
  /// Both parts' kernels: a layer and a part costed on its own (MLA's down projections).
  [[nodiscard]] constexpr layer_compute plus(const layer_compute& o) const {
    return {attention_core_forward + o.attention_core_forward,
            other_forward + o.other_forward,
            backward + o.backward,
            grad_accumulation + o.grad_accumulation,
            per_op_recompute + o.per_op_recompute,
            mlp_forward + o.mlp_forward,
            experts_forward + o.experts_forward,
            experts_activation + o.experts_activation,
            mla_up_forward + o.mla_up_forward,
            norms_forward + o.norms_forward,
            qkv_wgrad + o.qkv_wgrad,
            fc1_wgrad + o.fc1_wgrad,
            qkv_dgrad + o.qkv_dgrad,
            fc1_dgrad + o.fc1_dgrad,
            moe || o.moe};
  }
  /// What selective recomputation of `modules` (recompute_recipe.hpp bits) runs again, as
  /// Megatron-Core core_v0.16.0 checkpoints them: core_attn the attention core; mlp a dense
  /// layer's MLP; shared_experts an MoE layer's shared experts; moe the whole MoE block (shared
  /// and routed experts, router, permutation); moe_act the routed experts' activation;
  /// mla_up_proj MLA's up projections; layernorm the layer's two norms.
  [[nodiscard]] constexpr seconds selective_recompute(unsigned modules) const {
    const auto has = [&](recompute_module m) { return (modules & static_cast<unsigned>(m)) != 0U; };
    seconds t = has(recompute_module::layernorm) ? norms_forward : seconds{};
    if (has(recompute_module::core_attn)) {
      t += attention_core_forward;
    }
    if (has(recompute_module::mla_up_proj)) {
      t += mla_up_forward;
    }
    if (!moe) {
      return t + (has(recompute_module::mlp) ? mlp_forward : seconds{});
    }
    if (has(recompute_module::moe)) {
      return t + mlp_forward + experts_forward;
    }
    t += has(recompute_module::shared_experts) ? mlp_forward : seconds{};
    return t + (has(recompute_module::moe_act) ? experts_activation : seconds{});
  }
  /// Forward, recomputed forward (per mode and, for selective, the stack's policy) and backward.
  /// `modules`: what Megatron-Core's selective recomputation reruns (default core_attn).
  [[nodiscard]] constexpr seconds total(
      recompute_mode mode, selective_policy policy = selective_policy::attention_core,
      unsigned modules = static_cast<unsigned>(recompute_module::core_attn)) const {
    seconds t = forward() + backward;
    if (mode == recompute_mode::full) {
      t += forward();
    } else if (mode == recompute_mode::selective) {
      t += policy == selective_policy::per_op ? per_op_recompute : selective_recompute(modules);
    }
    return t;
  }
};

/// The MLP part of a layer as the kernels see it on one GPU. A dense layer has only the
/// TP-split MLP; an MoE layer (step/moe_layer.hpp fills it) has the shared experts as that
/// TP-split MLP, the router, and the routed experts as grouped GEMMs on the tokens this GPU
/// receives. Zero fields add nothing, so a dense layer costs what it did before experts.
struct mlp_block {
  double ffn = 0.0;              ///< inner size of the TP-split MLP (dense MLP or shared experts)
  double routed_tokens = 0.0;    ///< token copies this GPU's routed experts process, all together
  double local_experts = 0.0;    ///< E/ep experts on this GPU (the grouped GEMM's batch)
  double expert_ffn = 0.0;       ///< one routed expert's inner size on this GPU, f_e/etp
  double router_tokens = 0.0;    ///< tokens this GPU routes (b·s/t under SP)
  double router_width = 0.0;     ///< E scores per token; 0: no router (one expert, top-1)
  double permuted_copies = 0.0;  ///< (token, expert) copies permuted and unpermuted; 0 for E = 1
  /// Copies sorted once more by local expert after the all-to-all and back before the combine
  /// (the alltoall dispatcher with E/ep > 1; DeepEP's dispatch sends them in place): 0 otherwise.
  double sorted_copies = 0.0;
  double params_here = 0.0;  ///< the MLP's parameters on this GPU (gradient accumulation)
};

/// The dense MLP of `model` on one of `tp` GPUs.
constexpr mlp_block dense_mlp_block(const transformer_spec& model, std::int64_t tp) {
  return {
      .ffn = static_cast<double>(ffn_of(model)),
      .params_here = static_cast<double>(mlp_params_per_layer(model)) / static_cast<double>(tp)};
}

namespace detail {

/// The widths and counts of one layer on one of `tp` GPUs that its kernels share.
struct layer_shape {
  double t = 0.0, s = 0.0, h = 0.0;
  double tokens = 0.0;  ///< T = b·s
  bool latent = false;  ///< MLA
  double a = 0.0;       ///< heads
  double head = 0.0, head_v = 0.0;
  double q = 0.0;           ///< the attention output's width
  double qkv_width = 0.0;   ///< the q, k, v entering the attention core on this GPU
  double ffn = 0.0;         ///< the MLP's width
  double up_width = 0.0;    ///< FC1 (+gate) on this GPU
  double heads_here = 0.0;  ///< b·a/t
  /// The activation elements the norms, bias-dropout-adds and residual adds touch on this GPU:
  /// b·s·h, or b·s·h/t under sequence parallelism, which keeps the residual stream split over the
  /// sequence outside the TP regions (Korthikanti et al. 2022 §4.2.2; Megatron-Core
  /// core_v0.16.0 passes [s/t, b, h] between the layers, and Transformer Engine's
  /// LayerNormLinear normalizes its own shard before the all-gather of ln_out).
  double x_local = 0.0;
  double score_share = 0.0;  ///< the share of the s×s scores a layer computes
  double pair_share = 0.0;   ///< the share of the causal pairs a fused kernel runs
  double scores = 0.0;       ///< attention-score elements on this GPU
};

/// The shape of one layer of `model` on one of `tp` GPUs for `micro_batch` sequences, with
/// sequence parallelism or without.
constexpr layer_shape layer_shape_of(const transformer_spec& model, std::int64_t micro_batch,
                                     std::int64_t tp, const mlp_block& mlp,
                                     bool sequence_parallel) {
  layer_shape l;
  l.t = static_cast<double>(tp);
  l.s = static_cast<double>(model.seq);
  l.h = static_cast<double>(model.hidden);
  l.tokens = static_cast<double>(micro_batch) * l.s;
  const auto& mla = model.mla;
  l.latent = is_mla(mla);
  l.a = static_cast<double>(model.heads);
  // With MLA (mla_down_projection_time below for the duplicated down projections): the queries and
  // keys have nope + rope per head, the values v_head_dim; q is the attention output's width.
  l.head =
      l.latent ? static_cast<double>(mla_qk_head_dim(mla)) : static_cast<double>(head_dim(model));
  l.head_v = l.latent ? static_cast<double>(mla.v_head_dim) : l.head;
  l.q = l.latent ? l.a * l.head_v : static_cast<double>(q_dim(model));
  // The q, k, v that enter the attention core on this GPU (and their bias or RoPE kernels).
  l.qkv_width = l.latent ? l.a * (2.0 * l.head + l.head_v) / l.t
                         : (l.q + 2.0 * static_cast<double>(kv_dim(model))) / l.t;
  l.ffn = mlp.ffn;
  l.up_width = l.ffn * static_cast<double>(mlp_matrices(model) - 1) / l.t;
  l.heads_here = static_cast<double>(micro_batch * model.heads) / l.t;
  l.x_local = sequence_parallel ? l.tokens * l.h / l.t : l.tokens * l.h;
  // Attention-score elements on this GPU (a windowed layer's band or chunks: model.hpp,
  // averaged over the layers), and the share of the causal pairs a fused kernel runs.
  l.score_share = attention_score_fraction(model, model.seq);
  l.pair_share = attention_pair_fraction(model, model.seq);
  l.scores = l.heads_here * l.s * l.s * l.score_share;
  return l;
}

/// A matmul's shape: M, N, K and how many of them.
struct matmul_shape {
  double m, n, k, batch;
};

/// The matmul times of one layer, forward and backward, and the forward parts that the
/// recompute modules rerun.
struct layer_matmul_times {
  seconds proj_fwd{};
  seconds attn_fwd{};
  seconds bwd{};
  seconds up_fwd{}, mlp_fwd{}, experts_fwd{};  // parts the recompute modules rerun
  seconds qkv_wgrad{}, fc1_wgrad{};            // QKV's and FC1's weight gradients (in bwd too)
  seconds qkv_dgrad{}, fc1_dgrad{};            // and their input gradients (in bwd too)
};

/// Adds the projections' matmuls, as Megatron's column/row-parallel layers split them; the
/// routed experts as one grouped GEMM of E/ep matmuls of the tokens each expert gets
/// (Megatron-Core TEGroupedMLP), each at the roofline of its own shape.
constexpr void add_projection_matmuls(layer_matmul_times& mt, const transformer_spec& model,
                                      const layer_shape& l, const compute_device& gpu,
                                      const mlp_block& mlp) {
  const auto& mla = model.mla;
  const double per_expert = mlp.local_experts > 0.0 ? mlp.routed_tokens / mlp.local_experts : 0.0;
  const double expert_up = mlp.expert_ffn * static_cast<double>(mlp_matrices(model) - 1);
  // MLA's TP-split up projections (column-parallel linear_q_up_proj or linear_q_proj, and
  // linear_kv_up_proj) replace the QKV projection; its down projections are duplicated over TP
  // and costed by mla_down_projection_time.
  const double q_in = mla.q_lora_rank > 0 ? static_cast<double>(mla.q_lora_rank) : l.h;
  const double kv_up_width = l.a * static_cast<double>(mla.qk_nope_head_dim + mla.v_head_dim) / l.t;
  const matmul_shape projections[] = {
      {l.tokens, l.latent ? 0.0 : l.qkv_width, l.h, 1.0},          // QKV (column-parallel)
      {l.tokens, l.latent ? l.a * l.head / l.t : 0.0, q_in, 1.0},  // MLA q_up / q_proj (column)
      {l.tokens, kv_up_width, static_cast<double>(mla.kv_lora_rank), 1.0},  // MLA kv_up (column)
      {l.tokens, l.h, l.q / l.t, 1.0},                       // attention output (row-parallel)
      {l.tokens, l.up_width, l.h, 1.0},                      // FC1 and gate (column-parallel)
      {l.tokens, l.h, l.ffn / l.t, 1.0},                     // FC2 (row-parallel)
      {per_expert, expert_up, l.h, mlp.local_experts},       // experts' FC1 and gate
      {per_expert, l.h, mlp.expert_ffn, mlp.local_experts},  // experts' FC2
      {mlp.router_tokens, mlp.router_width, l.h, 1.0},       // router
  };
  for (std::size_t i = 0; i < std::size(projections); ++i) {
    const auto& g = projections[i];
    if (g.m * g.n * g.k * g.batch == 0.0) {
      continue;  // a part the layer does not have
    }
    const double w = gpu.matmul_operand_bytes;
    const seconds fwd = matmul_time(g.m, g.n, g.k, g.batch, w, gpu);
    mt.proj_fwd += fwd;
    if (i == 1 || i == 2) {  // MLA's up projections
      mt.up_fwd += fwd;
    } else if (i == 4 || i == 5) {  // the TP-split MLP
      mt.mlp_fwd += fwd;
    } else if (i >= 6) {  // the routed experts and the router
      mt.experts_fwd += fwd;
    }
    // Y = X·W: the input gradient dY·Wᵀ (m × k over n) and the weight gradient Xᵀ·dY (k × n
    // over m).
    const seconds wgrad = matmul_time(g.k, g.n, g.m, g.batch, w, gpu);
    const seconds dgrad = matmul_time(g.m, g.k, g.n, g.batch, w, gpu);
    mt.bwd += dgrad + wgrad;
    if (i == 0) {
      mt.qkv_wgrad = wgrad;
      mt.qkv_dgrad = dgrad;
    } else if (i == 4) {
      mt.fc1_wgrad = wgrad;
      mt.fc1_dgrad = dgrad;
    }
  }
}

/// Adds the attention core's two batched matmuls (after the projections: the backward sums
/// in that order), fused or as 16-bit matmuls.
constexpr void add_attention_matmuls(layer_matmul_times& mt, const layer_shape& l,
                                     const compute_device& gpu, bool fused) {
  constexpr double e = 2.0;  // bytes per 16-bit element
  const matmul_shape attention[] = {
      {l.s, l.s * l.score_share, l.head, l.heads_here},    // QKᵀ (the keys a query's band holds)
      {l.s, l.head_v, l.s * l.score_share, l.heads_here},  // scores × V
  };
  for (const auto& g : attention) {
    if (fused) {  // FLOP-bound, causal blocks skipped; the backward recomputes QKᵀ
      // The full count of a full layer (g.m·g.n·g.k over s×s), cut to the window's pairs.
      const double full_shape = g.m * g.n * g.k / l.score_share;
      const seconds fwd = fused_attention_forward_time(
          2.0 * full_shape * l.pair_share * g.batch * units::FLOP, gpu);
      mt.attn_fwd += fwd;
      mt.bwd += fused_attention_backward_factor * fwd;
    } else {
      mt.attn_fwd += matmul_time(g.m, g.n, g.k, g.batch, e, gpu);
      mt.bwd +=
          matmul_time(g.m, g.k, g.n, g.batch, e, gpu) + matmul_time(g.k, g.n, g.m, g.batch, e, gpu);
    }
  }
}

/// The element-wise kernels' traffic of one layer and the widths it is counted from.
struct layer_elementwise {
  double act_width = 0.0;   ///< the activation's width on this GPU
  double routed_act = 0.0;  ///< the routed experts' activation elements
  double permute = 0.0;     ///< the MoE permutation and router bytes
  double k = 0.0;           ///< the fused-kernel traffic factor
  bytes fwd_other{}, fwd_attention{}, bwd{};
};

/// Element-wise kernels, bytes read + written (Megatron-LM fused kernels, 16-bit):
/// forward: 2 norms 8X, 2 bias-dropout-add 14X (X = the x_local elements: replicated over TP
/// without sequence parallelism, split by t with it), QKV bias 4·T·qkv,
/// context permute 4·T·q/t, bias + activation 4·T·(MLP width)/t; softmax 4A + dropout 5A.
/// Routed experts (Megatron-Core core_v0.16.0, megatron/core/transformer/moe/): bias +
/// activation on the copies they get; the permutation (moe_utils.py permute before the
/// dispatch, unpermute after the combine: each copy read and written once each way, 8·h per
/// copy) and, in the alltoall dispatcher with E/ep > 1, the sort by local expert after the
/// all-to-all and back (token_dispatcher.py, sort_chunks_by_idxs: another 8·h per copy); the
/// router's score function and top-k on the T·E fp32 logits (router.py, TopKRouter: logits
/// read, scores and probs written, the aux-loss scores read and written: 5 × 4 B per logit).
/// As much again backward.
constexpr layer_elementwise elementwise_traffic(const transformer_spec& model, const layer_shape& l,
                                                const compute_device& gpu, const mlp_block& mlp,
                                                bool fused) {
  const double x = l.x_local;
  const double tokens = l.tokens;
  const double t = l.t;
  layer_elementwise w;
  const double gated = model.gated_mlp ? 1.5 : 1.0;
  w.act_width = l.ffn / t * gated;
  w.routed_act = mlp.routed_tokens * (mlp.expert_ffn * gated);
  w.permute = 8.0 * l.h * (mlp.permuted_copies + mlp.sorted_copies) +
              20.0 * mlp.router_tokens * mlp.router_width;
  w.k = gpu.efficiency.elementwise_traffic;  // 1: the fused kernels counted here
  w.fwd_other = w.k *
                (2 * 4 * x + 2 * 7 * x + 4 * tokens * l.qkv_width + 4 * tokens * l.q / t +
                 4 * tokens * w.act_width + 4 * w.routed_act + w.permute) *
                units::B;
  w.fwd_attention = w.k * (fused ? 0.0 : 4 + 5) * l.scores * units::B;
  // backward: dropout/bias-grad/residual 26X, norm backward 20X, activation backward + bias grad
  // 8·T·width/t, permute + QKV bias grad 4·T·q/t + 2·T·qkv; softmax 6A + dropout 5A.
  w.bwd = w.k *
          (2 * 13 * x + 2 * 10 * x + 8 * tokens * w.act_width + 8 * w.routed_act + w.permute +
           4 * tokens * l.q / t + 2 * tokens * l.qkv_width + (fused ? 0.0 : 6 + 5) * l.scores) *
          units::B;
  return w;
}

/// Per-op checkpointing of a dense layer: the matmuls it does not save, each at the roofline
/// of its TP-split shape, and the element-wise forward kernels. Otherwise the attention core.
constexpr seconds per_op_recompute_time(const transformer_spec& model, const layer_shape& l,
                                        const compute_device& gpu, const mlp_block& mlp,
                                        bytes fwd_other, seconds attention_core) {
  seconds per_op = attention_core;
  if (!l.latent && mlp.local_experts == 0.0) {
    per_op = memory_bound_time(fwd_other, gpu);
    for (const auto& m : per_op_matmuls(model)) {
      if (!m.saved && m.in * m.out > 0.0) {
        per_op +=
            m.row_parallel
                ? matmul_time(l.tokens, m.out, m.in / l.t, 1.0, gpu.matmul_operand_bytes, gpu)
                : matmul_time(l.tokens, m.out / l.t, m.in, 1.0, gpu.matmul_operand_bytes, gpu);
      }
    }
  }
  return per_op;
}

}  // namespace detail

/// Kernel times of one layer on one of `tp` GPUs for a micro-batch of `micro_batch` sequences
/// of `model.seq` tokens with the MLP part `mlp`; 16-bit activations and weights. Under
/// `sequence_parallel` the norms and residual kernels run on s/t tokens (layer_shape::x_local).
constexpr layer_compute layer_compute_time(const transformer_spec& model, std::int64_t micro_batch,
                                           std::int64_t tp, const compute_device& gpu,
                                           attention_kernel attention_kind, const mlp_block& mlp,
                                           bool sequence_parallel = false) {
  const detail::layer_shape l =
      detail::layer_shape_of(model, micro_batch, tp, mlp, sequence_parallel);
  const bool fused = attention_kind == attention_kernel::fused;
  detail::layer_matmul_times mt;
  detail::add_projection_matmuls(mt, model, l, gpu, mlp);
  detail::add_attention_matmuls(mt, l, gpu, fused);
  const detail::layer_elementwise w = detail::elementwise_traffic(model, l, gpu, mlp, fused);
  // fp16 gradient accumulation into the main-grad buffer: read 2 + read 2 + write 2 B/param.
  const double attention_split =
      l.latent ? static_cast<double>(mla_tp_split_params(model.mla, model.hidden, model.heads))
               : static_cast<double>(attention_params_per_layer(model));
  const double layer_params_here = attention_split / l.t + mlp.params_here;
  const seconds attention_core = mt.attn_fwd + memory_bound_time(w.fwd_attention, gpu);
  return layer_compute{
      .attention_core_forward = attention_core,
      .other_forward = mt.proj_fwd + memory_bound_time(w.fwd_other, gpu),
      .backward = mt.bwd + memory_bound_time(w.bwd, gpu),
      .grad_accumulation = memory_bound_time(6.0 * layer_params_here * units::B, gpu),
      .per_op_recompute =
          detail::per_op_recompute_time(model, l, gpu, mlp, w.fwd_other, attention_core),
      .mlp_forward = mt.mlp_fwd + memory_bound_time(4 * l.tokens * w.act_width * units::B, gpu),
      .experts_forward =
          mt.experts_fwd + memory_bound_time((4 * w.routed_act + w.permute) * units::B, gpu),
      .experts_activation = memory_bound_time(4 * w.routed_act * units::B, gpu),
      .mla_up_forward = mt.up_fwd,
      // The input norm under MLA, the pre-MLP norm of an MoE layer (as memory.hpp frees them).
      .norms_forward = memory_bound_time(
          w.k * 4 * ((l.latent ? 1.0 : 0.0) + (mlp.local_experts > 0.0 ? 1.0 : 0.0)) * l.x_local *
              units::B,
          gpu),
      .qkv_wgrad = mt.qkv_wgrad,
      .fc1_wgrad = mt.fc1_wgrad,
      .qkv_dgrad = mt.qkv_dgrad,
      .fc1_dgrad = mt.fc1_dgrad,
      .moe = mlp.local_experts > 0.0,
  };
}

/// An MLA layer's down projections on one GPU, for a micro-batch of `micro_batch` sequences:
/// linear_q_down_proj (h → q_lora) and linear_kv_down_proj (h → kv_lora + rope) with their
/// latent norms. Megatron-Core's TE spec builds them as TELinear with parallel_mode
/// "duplicated" (core_v0.16.0 gpt_layer_specs.py, backend.linear()) on the layer's input as
/// it arrives: [s/t, b, h] under sequence parallelism, so each rank projects its own s/t
/// tokens, and [s, b, h] without it, so every rank projects them all (multi_latent_attention.py,
/// get_query_key_value_tensors). `tokens_per_rank_divisor` is t with SP and 1 without; their
/// weights are whole on every rank (gradient accumulation of all of them). Zero for non-MLA.
constexpr layer_compute mla_down_projection_time(const transformer_spec& model,
                                                 std::int64_t micro_batch,
                                                 double tokens_per_rank_divisor,
                                                 const compute_device& gpu) {
  const auto& mla = model.mla;
  if (!is_mla(mla)) {
    return {};
  }
  const double h = static_cast<double>(model.hidden);
  const double tokens =
      static_cast<double>(micro_batch) * static_cast<double>(model.seq) / tokens_per_rank_divisor;
  const double ql = static_cast<double>(mla.q_lora_rank);
  const double kv = static_cast<double>(mla.kv_lora_rank + mla.qk_rope_head_dim);
  constexpr double e = 2.0;
  seconds fwd{}, bwd{};
  for (const double n : {ql, kv}) {
    if (n == 0.0) {
      continue;  // no q_lora: the queries come from h directly (TP-split q_proj)
    }
    fwd += matmul_time(tokens, n, h, 1.0, e, gpu);
    bwd += matmul_time(tokens, h, n, 1.0, e, gpu) + matmul_time(h, n, tokens, 1.0, e, gpu);
  }
  // The latent RMSNorms (q_layernorm, kv_layernorm): 4 bytes per element forward, 10 backward,
  // as the layer's own norms are counted in layer_compute_time.
  const double latents = tokens * (ql + static_cast<double>(mla.kv_lora_rank));
  const double params = static_cast<double>(mla_duplicated_params(mla, model.hidden, model.heads));
  return layer_compute{
      .attention_core_forward = {},
      .other_forward = fwd + memory_bound_time(4.0 * latents * units::B, gpu),
      // per_op_recompute: none; an MLA layer takes the attention core's under per-op (above)
      .backward = bwd + memory_bound_time(10.0 * latents * units::B, gpu),
      .grad_accumulation = memory_bound_time(6.0 * params * units::B, gpu),
  };
}

/// Kernel times of one dense layer on one of `tp` GPUs for a micro-batch of `micro_batch`
/// sequences of `model.seq` tokens; 16-bit activations and weights, without sequence
/// parallelism unless `sequence_parallel`. Call validate(model, par) first.
constexpr layer_compute layer_compute_time(
    const transformer_spec& model, std::int64_t micro_batch, std::int64_t tp,
    const compute_device& gpu, attention_kernel attention_kind = attention_kernel::unfused,
    bool sequence_parallel = false) {
  return layer_compute_time(model, micro_batch, tp, gpu, attention_kind, dense_mlp_block(model, tp),
                            sequence_parallel);
}

/// The output layer's weight-gradient GEMM per micro-batch (h × V/t over the tokens): what the
/// input gradient's collective, started before it, hides behind (stages.hpp).
constexpr seconds logits_wgrad_time(const transformer_spec& model, std::int64_t micro_batch,
                                    std::int64_t tp, const compute_device& gpu) {
  const double tokens = static_cast<double>(micro_batch * model.seq);
  const double v = static_cast<double>(model.vocab) / static_cast<double>(tp);
  return matmul_time(static_cast<double>(model.hidden), v, tokens, 1, 2, gpu);
}

/// The output layer's input-gradient GEMM per micro-batch (the tokens × h over V/t): what SP's
/// all-gather of its saved input, started before it, hides behind (stages.hpp).
constexpr seconds logits_dgrad_time(const transformer_spec& model, std::int64_t micro_batch,
                                    std::int64_t tp, const compute_device& gpu) {
  const double tokens = static_cast<double>(micro_batch * model.seq);
  const double v = static_cast<double>(model.vocab) / static_cast<double>(tp);
  return matmul_time(tokens, static_cast<double>(model.hidden), v, 1, 2, gpu);
}

/// The vocabulary-parallel cross entropy's kernels (Megatron-Core core_v0.16.0
/// model_parallel_config.py: cross_entropy_loss_fusion, default False, and
/// cross_entropy_fusion_impl, default 'native').
enum class cross_entropy_kernel : int {
  unfused,  ///< tensor_parallel/cross_entropy.py: one PyTorch op at a time
  native,   ///< fusions/fused_cross_entropy.py: the same ops, jit-fused into four kernels
  te,       ///< Transformer Engine's parallel_cross_entropy: two Triton passes (online softmax)
};

inline constexpr std::array<enum_name<cross_entropy_kernel>, 3> cross_entropy_kernel_names{{
    {"unfused", cross_entropy_kernel::unfused},
    {"native", cross_entropy_kernel::native},
    {"te", cross_entropy_kernel::te},
}};

/// HBM bytes per logit the cross entropy moves, forward and backward, from 16-bit logits.
/// unfused, about 60: .float() (read 2, write 4), the max (read 4), the in-place subtraction,
/// exp and division (read and write 4 each), the sum (read 4), and backward the in-place scale
/// (read and write 4) and the cast back to 16-bit (read 4, write 2): 52, and the target gather
/// and mask kernels (kept as counted since compute_model.hpp began). native merges the max into
/// the cast, the subtraction, exp and sum into one pass, and the backward's scale and cast
/// into one: 24 fewer, 36. te reads the logits twice (online softmax, then loss and gradient),
/// writes an fp32 gradient, scales it in place by the per-token loss gradient and autograd casts
/// it back to 16-bit (transformer_engine/pytorch/cross_entropy.py, TE 2.x): 2 + 2 + 4 + 8 + 6 =
/// 22.
constexpr double cross_entropy_bytes_per_logit(cross_entropy_kernel kernel) {
  switch (kernel) {
    case cross_entropy_kernel::native:
      return 36.0;
    case cross_entropy_kernel::te:
      return 22.0;
    case cross_entropy_kernel::unfused:
      break;
  }
  return 60.0;
}

/// The output layer on the last pipeline stage, per micro-batch: the logit matmul forward and
/// its two gradients (never recomputed), the vocab-parallel cross entropy as `cross_entropy`
/// runs it (cross_entropy_bytes_per_logit) and the final norm.
constexpr seconds logits_compute_time(
    const transformer_spec& model, std::int64_t micro_batch, std::int64_t tp,
    const compute_device& gpu, cross_entropy_kernel cross_entropy = cross_entropy_kernel::unfused) {
  const double t = static_cast<double>(tp);
  const double tokens = static_cast<double>(micro_batch * model.seq);
  const double h = static_cast<double>(model.hidden);
  const double v = static_cast<double>(model.vocab) / t;
  const double loss_bytes = cross_entropy_bytes_per_logit(cross_entropy) * tokens * v;
  return matmul_time(tokens, v, h, 1, 2, gpu) + logits_dgrad_time(model, micro_batch, tp, gpu) +
         logits_wgrad_time(model, micro_batch, tp, gpu) +
         memory_bound_time((loss_bytes + 18.0 * tokens * h) * units::B, gpu);
}

/// Bytes of HBM traffic per parameter for one optimizer step: Megatron-LM's fp16 optimizer
/// with fused Adam (fp16 grad → fp32 6, unscale + inf check 8, grad norm 4, Adam 28,
/// fp32 → fp16 copy 6, zero the grad buffer 2).
inline constexpr double optimizer_bytes_per_param = 54.0;

/// The optimizer step for `params` parameters held by this GPU: memory-bound.
constexpr seconds optimizer_time(double params, const compute_device& gpu) {
  return memory_bound_time(optimizer_bytes_per_param * params * units::B, gpu);
}

}  // namespace tpcost
