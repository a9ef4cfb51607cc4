// Memory per GPU in training: weights, gradients and optimizer states (mixed-precision Adam,
// ZeRO stages), and activations (Korthikanti et al. 2022), stage by stage, against a capacity.
//
// Model states (Rajbhandari et al. 2020, "ZeRO", arXiv:1910.02054, Sec. 3.1): mixed-precision
// Adam keeps 2 bytes of 16-bit weights, 2 of 16-bit gradients and K = 12 of fp32 optimizer
// state (master weights, momentum, variance) per parameter: 16 bytes. ZeRO stage 1 divides
// the optimizer states by d, stage 2 also the gradients, stage 3 also the weights; stage 3
// then holds full 16-bit copies of the layers it has gathered: the one it computes and the one
// it prefetches (DeepSpeed's stage3_prefetch_bucket_size, FSDP2's implicit prefetch), 2 bytes
// times one layer's parameters on a TP rank each (stack_profiles.hpp: the whole stage under
// FSDP2 with pipelines, which does not reshard after the forward).
//
// Parameters per GPU are counted exactly, stage by stage, as Megatron-LM places them: the
// attention and MLP matrices and their column-parallel biases are split over t; the norms and
// the biases of the two row-parallel layers (attention output, last MLP matrix) are replicated
// on every TP rank; the word embedding is split over t (vocabulary-parallel) and sits on the
// first stage, with the learned position table (replicated); the final norm and the output
// layer sit on the last stage, which keeps its own copy of a tied embedding when p > 1
// (Megatron-LM synchronises the two copies). So params/(t·p) is only the round figure.
//
// Activations per layer (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models", arXiv:2205.05198, Sec. 4 and Table 2), 16-bit activations with 1-byte
// dropout masks, micro-batch b, with the unfused attention of Megatron-LM 2021:
//   no recomputation, no parallelism   s·b·h·(34 + 5·a·s/h)
//   tensor parallel                    s·b·h·(10 + 24/t + 5·a·s/(h·t))
//   tensor + sequence parallel         s·b·h/t·(34 + 5·a·s/h)
//   selective recomputation            drops the 5·a·s/h term: s·b·h·(10 + 24/t), or 34/t with SP
//   full recomputation                 2·s·b·h, the layer input (÷t with SP: it is stored
//                                      sequence-split; the paper's table lists 2sbh)
// generalised from the paper's derivation to GQA and any MLP (docs/memory.md): the 10·sbh never
// split without SP are the two norm inputs (4), the QKV input (2), the MLP input (2) and two
// dropout masks (2); the part split by t is Q and the output-projection input (4·sbh), K and V
// (4·s·b·kv_dim) and the MLP inside (4·s·b·f plain: GeLU input and output; 6·s·b·f gated:
// gate and up outputs and their product); 5·a·s²·b are the softmax output (2), its dropout
// mask (1) and the dropout output (2), split by t with the heads. For GPT (f = 4h, kv = h)
// the split part is 24·sbh, as in the paper.
//
// A fused attention kernel (`attention_kernel::fused`: FlashAttention, Dao et al. 2022,
// "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
// arXiv:2205.14135) never writes the s×s tensors to HBM. For the backward pass it keeps Q, K,
// V, the output O and the softmax statistics, and recomputes scores and softmax on chip (Sec.
// 3.1, "Recomputation"; App. B.3: Alg. 2 saves O, the statistics ℓ and m, and the RNG state).
// Q, K, V and O (the output-projection input) are counted above already, so the 5·a·s²·b
// become the statistics: one fp32 logsumexp per row and head, 4·b·a·s bytes, ÷t with the heads
// (with or without SP, each rank runs a/t heads over the whole sequence). One statistic, as
// FlashAttention-2 keeps (Dao 2023, arXiv:2307.08691, Sec. 3.1.1: L = m + log ℓ) and the
// flash-attn library stores (softmax_lse, fp32, b×a×s); the first paper's Alg. 2 keeps m and ℓ,
// another 4·b·a·s/t. The attention dropout mask is not kept: the kernel saves the RNG state
// and regenerates the mask in the backward pass (App. B.4, first observation); the state is a
// few bytes per layer, not counted. So, with a fused kernel:
//   no recomputation                   the selective count + 4·b·a·s/t
//   selective recomputation            the selective count: the attention core, statistics and
//                                      all, is recomputed; fused and unfused coincide
//   full recomputation                 2·s·b·h (÷t with SP), as unfused
// The fused count never exceeds the unfused one (4·b·a·s ≤ 5·a·s²·b).
//
// Which activations a stage holds: see `layers_in_flight` in pipeline_parallel.hpp (1F1B: the
// first stage holds p micro-batches of its L/p layers, i.e. L layers' worth; interleaved: times
// 1 + (p−1)/(p·v)). Added, as in Korthikanti et al. Sec. 4.3: the embedding dropout mask, sbh
// per micro-batch in flight on the first stage, and on the last stage the final norm and
// output-layer inputs, 4·sbh (÷t with SP), and the logits at the loss, 6·s·b·V/t: where
// Korthikanti et al. count the fp32 logits (4·s·b·V/t), Megatron-Core's cross entropy
// (core_v0.16.0 megatron/core/tensor_parallel/cross_entropy.py, `calculate_logits_max`) makes
// its fp32 softmax from the output layer's 16-bit logits with `.float()`, so both are live at
// the loss (2 + 4 bytes), and in the backward the 16-bit gradient it hands the output layer
// takes the 16-bit logits' place while the fp32 softmax is still held. The Megatron-LM
// functional tests' peaks (docs/memory.md) are 20% over the count without the 16-bit copy. Full
// recomputation also needs one layer's full activations while it recomputes; that working set, one
// layer without recomputation for the attention kernel in use (no s×s tensors with a fused one), is
// added to every stage.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tpcost/base/units.hpp"
#include "tpcost/model/allocator.hpp"
#include "tpcost/model/expert_layout.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/op_checkpoint.hpp"
#include "tpcost/model/parallelism.hpp"
#include "tpcost/model/pipeline_parallel.hpp"
#include "tpcost/model/recompute_recipe.hpp"

namespace tpcost {

/// Bytes per parameter of the model states.
struct state_bytes {
  double weights = 2.0;     ///< 16-bit weights
  double gradients = 2.0;   ///< 16-bit gradients
  double optimizer = 12.0;  ///< fp32 master weights, Adam momentum and variance
};

/// Mixed-precision Adam as ZeRO counts it: 2 + 2 + 12 = 16 bytes per parameter.
inline constexpr state_bytes mixed_precision_adam{};
/// Megatron-LM's default, which accumulates gradients in fp32: 2 + 4 + 12 = 18 bytes.
inline constexpr state_bytes mixed_precision_adam_fp32_grads{2.0, 4.0, 12.0};

/// Parameters of one layer's attention and norms on one TP rank: QKV (weights and bias) and
/// the output weights split over t; the output bias and the two norms replicated.
constexpr double attention_params_per_tp_rank(const transformer_spec& spec, std::int64_t tp) {
  const auto h = spec.hidden;
  if (is_mla(spec.mla)) {  // up and output projections split, down projections duplicated
    return static_cast<double>(mla_tp_split_params(spec.mla, h, spec.heads)) /
               static_cast<double>(tp) +
           static_cast<double>(mla_duplicated_params(spec.mla, h, spec.heads) +
                               2 * norm_params(spec));
  }
  const auto b = spec.linear_biases ? 1 : 0;
  const auto qkv = q_dim(spec) + 2 * kv_dim(spec);
  const auto split = h * qkv + q_dim(spec) * h + b * qkv;
  const auto replicated = b * h + 2 * norm_params(spec);
  return static_cast<double>(split) / static_cast<double>(tp) + static_cast<double>(replicated);
}

/// Parameters of one dense layer on one TP rank: the split part over t plus the replicated
/// part (the biases of the row-parallel layers and the two norms).
constexpr double layer_params_per_tp_rank(const transformer_spec& spec, std::int64_t tp) {
  const auto h = spec.hidden;
  const auto f = ffn_of(spec);
  const auto m = mlp_matrices(spec);
  const std::int64_t b = spec.linear_biases ? 1 : 0;
  if (is_mla(spec.mla)) {
    return attention_params_per_tp_rank(spec, tp) +
           static_cast<double>(m * h * f + b * (m - 1) * f) / static_cast<double>(tp) +
           static_cast<double>(b * h);
  }
  // Split over t: QKV (weights and bias), output weights, MLP weights, first-MLP biases.
  const auto qkv = q_dim(spec) + 2 * kv_dim(spec);
  const auto split = h * qkv + q_dim(spec) * h + m * h * f + b * (qkv + (m - 1) * f);
  // Replicated: the biases of the row-parallel layers and the two norms.
  const auto replicated = b * 2 * h + 2 * norm_params(spec);
  return static_cast<double>(split) / static_cast<double>(tp) + static_cast<double>(replicated);
}

/// One MoE layer's parameters on one GPU outside its routed experts: attention and norms as a
/// dense layer's, the shared experts split over t (Megatron-Core SharedExpertMLP is a
/// column/row-parallel MLP), the router replicated on every rank (TopKRouter's weight).
constexpr double moe_layer_dense_params_per_gpu(const transformer_spec& spec, std::int64_t tp) {
  const auto p = moe_params_per_layer(spec);
  return attention_params_per_tp_rank(spec, tp) +
         static_cast<double>(p.shared) / static_cast<double>(tp) + static_cast<double>(p.router);
}

/// One MoE layer's routed-expert parameters on one GPU: E/ep experts, each split over etp
/// (MoE parallel folding, Megatron-Core core_v0.16.0 moe/experts.py TEGroupedMLP).
constexpr double expert_params_per_layer_per_gpu(const transformer_spec& spec, std::int64_t ep,
                                                 std::int64_t etp) {
  return static_cast<double>(moe_params_per_layer(spec).routed) / static_cast<double>(ep) /
         static_cast<double>(etp);
}

/// The layers with experts among `layers` consecutive layers from layer `first` (0-based).
constexpr std::int64_t moe_layers_in(const transformer_spec& spec, std::int64_t first,
                                     std::int64_t layers) {
  return moe_layer_count(spec.moe, first + layers) - moe_layer_count(spec.moe, first);
}

/// The layers stage `stage` of `pp` holds: its share of the L layers, and on the last stage
/// the MTP modules, each one layer of the last layer's kind (Megatron-Core places the MTP block
/// on the last pipeline stage: multi_token_prediction.py mtp_on_this_rank, core_v0.16.0).
constexpr std::int64_t mtp_layers_on(const transformer_spec& spec, std::int64_t stage,
                                     std::int64_t pp) {
  return stage == pp - 1 ? spec.mtp_layers : 0;
}

/// Parameters on one GPU of stage `stage` holding `layers_on_stage` layers, of which
/// `moe_layers_on_stage` have experts (see file comment); on the last stage the layers count
/// its MTP modules' layers (`mtp_layers_on`), and the rest of each module is added here: the
/// two input norms and the final norm (replicated) and eh_proj 2h → h (column-parallel), and
/// with p > 1 a copy of the word embedding, which the MTP modules embed with, tied or not
/// (gpt_model.py shared_embedding_or_output_weight).
constexpr double params_per_gpu(const transformer_spec& spec, const parallel_config& par,
                                std::int64_t stage, std::int64_t layers_on_stage,
                                std::int64_t moe_layers_on_stage = 0) {
  const auto t = static_cast<double>(par.tp);
  const auto embedding = static_cast<double>(spec.vocab) * static_cast<double>(spec.hidden) / t;
  double params = static_cast<double>(layers_on_stage - moe_layers_on_stage) *
                  layer_params_per_tp_rank(spec, par.tp);
  if (moe_layers_on_stage > 0) {
    params += static_cast<double>(moe_layers_on_stage) *
              (moe_layer_dense_params_per_gpu(spec, par.tp) +
               expert_params_per_layer_per_gpu(spec, par.ep, par.etp));
  }
  if (stage == 0) {
    params += embedding;
    if (spec.positions == position_kind::learned) {
      params += static_cast<double>(spec.seq) * static_cast<double>(spec.hidden);
    }
  }
  if (stage == par.pp - 1) {
    params += static_cast<double>(norm_params(spec));
    if (!spec.tied_embeddings || par.pp > 1) {
      params += embedding;
    }
    if (spec.mtp_layers > 0) {
      const auto h = static_cast<double>(spec.hidden);
      params += static_cast<double>(spec.mtp_layers) *
                (3.0 * static_cast<double>(norm_params(spec)) + 2.0 * h * h / t);
      if (par.pp > 1 && !spec.tied_embeddings) {
        params += embedding;
      }
    }
  }
  return params;
}

/// The routed-expert parameters among `params_per_gpu`: reduced and sharded over the
/// expert-DP group, t·d/(ep·etp) ranks, instead of the DP group.
constexpr double expert_params_per_gpu(const transformer_spec& spec, const parallel_config& par,
                                       std::int64_t moe_layers_on_stage) {
  return moe_layers_on_stage > 0 ? static_cast<double>(moe_layers_on_stage) *
                                       expert_params_per_layer_per_gpu(spec, par.ep, par.etp)
                                 : 0.0;
}

/// What the attention core keeps for the backward pass per layer, on one of `tp` GPUs, beyond
/// Q, K, V and its output (counted with the layer): without recomputation, `5·a·s²·b/t` bytes
/// with an unfused kernel (softmax output, its 1-byte dropout mask, dropout output: Korthikanti
/// et al. 2022, Sec. 4.1) and `4·a·s·b/t` with a fused one (one fp32 logsumexp per row and head:
/// FlashAttention, Dao et al. 2022, Sec. 3.1 and App. B.3; see the file comment); 0 with
/// selective or full recomputation, which recompute the core. The heads are split over t with
/// or without sequence parallelism.
constexpr bytes attention_core_bytes(const transformer_spec& spec, std::int64_t micro_batch,
                                     std::int64_t seq, std::int64_t tp, recompute_mode mode,
                                     attention_kernel attention) {
  if (mode != recompute_mode::none) {
    return bytes{};
  }
  const double rows = static_cast<double>(spec.heads) * static_cast<double>(seq) *
                      static_cast<double>(micro_batch);  // a·s·b softmax rows
  const double per_row = attention == attention_kernel::fused
                             ? 4.0  // fp32 logsumexp
                             // softmax output 2 + dropout mask 1 + dropout output 2 bytes
                             // per score; the softmax output alone without dropout
                             : (spec.attention_dropout ? 5.0 : 2.0) * static_cast<double>(seq) *
                                   attention_score_fraction(spec, seq);  // s×w when windowed
  return rows * per_row / static_cast<double>(tp) * units::B;
}

/// The attention's activations of one layer beyond the 10·s·b·h its norms, input and masks
/// keep: `replicated` (÷t only with SP) and `split` over t with the heads, in bytes for `sb`
/// tokens, and of them the tensors one by one (fine-grained offloading moves them by module).
/// MHA/GQA: Q and the output-projection input 2·sb·q_dim each, K and V 2·sb·kv_dim each (the
/// file comment). MLA, from what Megatron-Core's MLASelfAttention (core_v0.16.0) saves: the
/// down projections share the layer's norm output as input (counted in the 10·sbh); the q and
/// kv latents are kept twice, as the latent norm's input and as the up projection's input
/// (4·sb·(q_lora + kv_lora)), on the layer's s/t tokens under SP and whole without it (the down
/// projections are duplicated); the attention core keeps Q and K of a·(nope + rope) and V of
/// a·v, and the output projection its input of a·v, split over t with the heads:
/// 2·sb·a·(2·(nope + rope) + 2·v). The RoPE kernels keep no input (cos/sin only).
struct attention_activations {
  double replicated = 0.0;
  double split = 0.0;
  double query = 0.0, key = 0.0, value = 0.0;  ///< of `split`: Q, K and V as the core keeps them
  double output = 0.0;                         ///< of `split`: the output projection's input
  double q_latent = 0.0, kv_latent = 0.0;      ///< of `replicated`: one copy of each MLA latent
};
constexpr attention_activations attention_activation_bytes(const transformer_spec& spec,
                                                           double sb) {
  attention_activations x;
  if (!is_mla(spec.mla)) {
    x.query = 2.0 * sb * static_cast<double>(q_dim(spec));
    x.key = x.value = 2.0 * sb * static_cast<double>(kv_dim(spec));
    x.output = 2.0 * sb * static_cast<double>(q_dim(spec));
  } else {
    const auto& mla = spec.mla;
    const double a = static_cast<double>(spec.heads);
    x.query = x.key = 2.0 * sb * a * static_cast<double>(mla_qk_head_dim(mla));
    x.value = x.output = 2.0 * sb * a * static_cast<double>(mla.v_head_dim);
    x.q_latent = 2.0 * sb * static_cast<double>(mla.q_lora_rank);
    x.kv_latent = 2.0 * sb * static_cast<double>(mla.kv_lora_rank);
  }
  x.split = x.query + x.key + x.value + x.output;
  x.replicated = 2.0 * (x.q_latent + x.kv_latent);
  return x;
}

/// The per-s·b·h bytes of a layer that are never split without SP, tensor by tensor: the layer
/// input (the input norm's input), the QKV input (its output), the MLP block's input (the
/// pre-MLP norm's input) and the MLP input (its output), 2 each, and with hidden dropout its two
/// 1-byte masks, 2. Under the Transformer Engine spec a fused norm's input and output are both
/// saved by the linear layer it is fused into (linear_qkv, linear_fc1: TELayerNormColumnParallel
/// Linear); a norm that is a module of its own (MLA's input norm, an MoE layer's pre-MLP norm)
/// saves its input itself.
struct replicated_tensors {
  double layer_input = 2.0, qkv_input = 2.0, mlp_block_input = 2.0, mlp_input = 2.0;
  double masks = 2.0;
  [[nodiscard]] constexpr double total() const {
    return layer_input + qkv_input + mlp_block_input + mlp_input + masks;
  }
};
constexpr replicated_tensors replicated_tensors_of(const transformer_spec& spec) {
  return {.masks = spec.hidden_dropout ? 2.0 : 0.0};
}

/// Their sum: 10, or 8 without hidden dropout.
constexpr double norm_input_and_mask_bytes(const transformer_spec& spec) {
  return replicated_tensors_of(spec).total();
}

/// What a routed expert keeps per token copy on one GPU, in bytes, with `expert_ffn` = f_e/etp:
/// linear_fc1's input (2·h, the permuted tokens), its output, the activation's input (4·f_e
/// gated: gate and up; 2·f_e plain), and the activation's output, linear_fc2's input (2·f_e):
/// the inside of a dense MLP, 6·f_e or 4·f_e, with the FC1 input.
struct routed_expert_tensors {
  double fc1_input = 0.0, fc1_output = 0.0, act_output = 0.0;
};
constexpr routed_expert_tensors routed_expert_tensors_of(const transformer_spec& spec,
                                                         double expert_ffn) {
  return {.fc1_input = 2.0 * static_cast<double>(spec.hidden),
          .fc1_output = (spec.gated_mlp ? 4.0 : 2.0) * expert_ffn,
          .act_output = 2.0 * expert_ffn};
}

/// What torchtitan's per-op checkpointing (op_checkpoint.hpp) keeps of one dense layer, for one
/// micro-batch on one of `tp` GPUs: the block's input (the checkpoint's own, 2·h per token,
/// sequence-split under SP), the outputs of the saved matmuls (16-bit; a column-parallel
/// output split over t, a row-parallel one whole on each rank), with SP the reduce-scatter
/// outputs of the two row-parallel layers (2·h/t each), and the attention kernel's output and
/// its fp32 log-sum-exp per row and head (4·a/t per token).
constexpr bytes per_op_activation_bytes_per_layer(const transformer_spec& spec,
                                                  std::int64_t micro_batch, std::int64_t seq,
                                                  std::int64_t tp, bool sequence_parallel) {
  const double sb = static_cast<double>(seq) * static_cast<double>(micro_batch);
  const double t = static_cast<double>(tp);
  const double h = static_cast<double>(spec.hidden);
  double per_token = 2.0 * h / (sequence_parallel ? t : 1.0);  // the block input
  for (const auto& m : per_op_matmuls(spec)) {
    if (m.saved) {
      per_token += 2.0 * (m.row_parallel ? m.out : m.out / t);
    }
  }
  per_token += 2.0 * static_cast<double>(q_dim(spec)) / t +  // the attention output
               4.0 * static_cast<double>(spec.heads) / t;    // its log-sum-exp
  if (sequence_parallel) {
    per_token += 2.0 * 2.0 * h / t;  // the reduce-scatters after wo and w2
  }
  return sb * per_token * units::B;
}

/// The mode the attention core runs under: selective recomputation reruns it only when the
/// recipe lists core_attn (transformer_block.py, checkpoint_core_attention, core_v0.16.0).
constexpr recompute_mode core_recompute_mode(recompute_mode mode, const recompute_recipe& recipe) {
  return mode == recompute_mode::selective && !recipe.has(recompute_module::core_attn)
             ? recompute_mode::none
             : mode;
}

/// What selective recomputation's output-discarding modules free in one layer, in bytes for
/// `sb` tokens, as `attention_activations` splits them (Megatron-Core core_v0.16.0; the
/// Transformer Engine layer spec, gpt_layer_specs.py get_gpt_layer_with_transformer_engine_spec):
/// * "layernorm" (transformer_layer.py, CheckpointWithoutOutput on input_layernorm and
///   pre_mlp_layernorm, only where they are modules, not IdentityOp): the norm's output is
///   discarded after its consumer's forward and recomputed in the backward. The TE spec fuses
///   the input norm into linear_qkv except under MLA (input_layernorm = TENorm: the QKV input,
///   2·h per token) and the pre-MLP norm into linear_fc1 except in an MoE layer
///   (pre_mlp_layernorm = TENorm: the MoE input, 2·h per token);
/// * "mla_up_proj" (multi_latent_attention.py, qkv_up_checkpoint): Q, K and V as the up
///   projections and RoPE make them, 2·a·(2·(nope + rope) + v) per token, split over t; the
///   latents stay, they are the checkpoint's inputs.
constexpr attention_activations selective_module_bytes(const transformer_spec& spec, double sb,
                                                       const recompute_recipe& recipe,
                                                       bool moe_layer) {
  attention_activations freed;
  const double sbh = sb * static_cast<double>(spec.hidden);
  const auto rep = replicated_tensors_of(spec);
  if (recipe.has(recompute_module::layernorm)) {
    freed.replicated +=
        (is_mla(spec.mla) ? rep.qkv_input * sbh : 0.0) + (moe_layer ? rep.mlp_input * sbh : 0.0);
  }
  if (recipe.has(recompute_module::mla_up_proj) && is_mla(spec.mla)) {
    const auto attn = attention_activation_bytes(spec, sb);
    freed.split += attn.query + attn.key + attn.value;
  }
  return freed;
}

/// Activation bytes one layer keeps for the backward pass, for one micro-batch of `micro_batch`
/// sequences of `seq` tokens, on one of `tp` GPUs, with the given recomputation and attention
/// kernel (see the file comment for the formula and its sources). Unfused: Korthikanti et al.
/// 2022, Table 2. Fused: the selective count plus `attention_core_bytes` without recomputation,
/// the selective count with it, `2·s·b·h` (÷t with SP) with full recomputation; under
/// torchtitan's per-op policy (`policy`), what `per_op_activation_bytes_per_layer` keeps.
constexpr bytes activation_bytes_per_layer(
    const transformer_spec& spec, std::int64_t micro_batch, std::int64_t seq, std::int64_t tp,
    bool sequence_parallel, recompute_mode mode, attention_kernel attention,
    selective_policy policy = selective_policy::attention_core,
    const recompute_recipe& recipe = {}) {
  const double sb = static_cast<double>(seq) * static_cast<double>(micro_batch);
  const double sbh = sb * static_cast<double>(spec.hidden);
  const double t = static_cast<double>(tp);
  if (mode == recompute_mode::full) {
    return (sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh) * units::B;
  }
  if (mode == recompute_mode::selective && policy == selective_policy::per_op &&
      !is_mla(spec.mla)) {
    return per_op_activation_bytes_per_layer(spec, micro_batch, seq, tp, sequence_parallel);
  }
  const auto attn = attention_activation_bytes(spec, sb);
  double replicated = norm_input_and_mask_bytes(spec) * sbh + attn.replicated;
  const double mlp_inside = (spec.gated_mlp ? 6.0 : 4.0) * sb * static_cast<double>(ffn_of(spec));
  double split = attn.split + mlp_inside;
  const bool selective = mode == recompute_mode::selective;
  if (selective) {
    const auto freed = selective_module_bytes(spec, sb, recipe, false);
    replicated -= freed.replicated;
    split -= freed.split;
    if (recipe.has(recompute_module::mlp)) {
      // "mlp" (transformer_layer.py, recompute_mlp: tensor_parallel.checkpoint(self.mlp, ...)):
      // the checkpoint keeps its input, which under the Transformer Engine spec is the
      // pre-MLP norm's input (the norm is fused into linear_fc1, pre_mlp_layernorm is
      // IdentityOp: gpt_layer_specs.py, core_v0.16.0), and drops linear_fc1's saved norm
      // output (the MLP input, 2·h per token) and the MLP inside.
      replicated -= replicated_tensors_of(spec).mlp_input * sbh;
      split -= mlp_inside;
    }
  }
  const bytes core = attention_core_bytes(spec, micro_batch, seq, tp,
                                          core_recompute_mode(mode, recipe), attention);
  if (sequence_parallel) {
    return (replicated + split) / t * units::B + core;
  }
  return (replicated + split / t) * units::B + core;
}

/// Activation bytes one MoE layer keeps for the backward pass on one GPU: the dense layer's
/// count with its MLP inside replaced by the shared experts' (split over t), and the routed
/// experts' on the copies this GPU processes (`tokens`, expert_layout.hpp): their FC1 input
/// (2·h per copy), the inside of each expert (6·f_e/etp gated, 4·f_e/etp plain, per copy, as
/// a dense MLP's), the expert outputs the combine weights by the router's probabilities (2·h
/// per copy sent back) and the router's fp32 logits and probabilities (8·E per routed token).
/// With one expert nothing is routed: the layer is a dense layer. Full recomputation keeps the
/// layer input only, as for a dense layer.
constexpr bytes moe_activation_bytes_per_layer(
    const transformer_spec& spec, std::int64_t micro_batch, std::int64_t seq, std::int64_t tp,
    std::int64_t etp, bool sequence_parallel, recompute_mode mode, attention_kernel attention,
    const expert_tokens& tokens, const recompute_recipe& recipe = {}) {
  const double sb = static_cast<double>(seq) * static_cast<double>(micro_batch);
  const double h = static_cast<double>(spec.hidden);
  const double sbh = sb * h;
  const double t = static_cast<double>(tp);
  if (mode == recompute_mode::full) {
    return (sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh) * units::B;
  }
  const auto& moe = spec.moe;
  const double inside = spec.gated_mlp ? 6.0 : 4.0;
  const auto attn = attention_activation_bytes(spec, sb);
  double replicated = norm_input_and_mask_bytes(spec) * sbh + attn.replicated;
  const double shared = inside * sb * static_cast<double>(moe.shared_experts * shared_ffn_of(moe));
  double split = attn.split + shared;
  const double expert_ffn = static_cast<double>(moe.expert_ffn) / static_cast<double>(etp);
  const auto expert = routed_expert_tensors_of(spec, expert_ffn);
  double routed = tokens.routed * (expert.fc1_output + expert.act_output);
  if (tokens.routes) {
    routed += tokens.routed * expert.fc1_input + tokens.copies * 2.0 * h +
              8.0 * tokens.local * static_cast<double>(moe.experts);
  }
  if (mode == recompute_mode::selective) {
    const auto freed = selective_module_bytes(spec, sb, recipe, true);
    replicated -= freed.replicated;
    split -= freed.split;
    if (recipe.has(recompute_module::moe)) {
      // "moe" (moe_layer.py, moe_layer_recompute: the whole MoELayer.forward in a checkpoint
      // whose input, the pre-MLP norm's output, it keeps): the router, the routed experts and
      // the shared experts keep nothing.
      routed = 0.0;
      split -= shared;
    } else {
      if (recipe.has(recompute_module::shared_experts)) {
        split -= shared;  // moe_layer.py, shared_experts_recompute: checkpoint of the MLP
      }
      if (recipe.has(recompute_module::moe_act)) {
        // "moe_act" (moe/experts.py, activation_recompute: CheckpointWithoutOutput on the
        // activation function): linear_fc2's input, the activation's output, f_e/etp 16-bit
        // values per routed copy, is discarded; linear_fc1's output stays.
        routed -= tokens.routed * expert.act_output;
      }
    }
  }
  const bytes core = attention_core_bytes(spec, micro_batch, seq, tp,
                                          core_recompute_mode(mode, recipe), attention);
  if (sequence_parallel) {
    return ((replicated + split) / t + routed) * units::B + core;
  }
  return (replicated + split / t + routed) * units::B + core;
}

/// What fine-grained activation offloading (recompute_recipe.hpp, `offload_modules`) moves to
/// the host per layer, for one micro-batch on one of `tp` GPUs: the tensors each listed module
/// saves for its backward inside its offload context (Megatron-Core core_v0.16.0,
/// fine_grained_activation_offload.py: the saved-tensor hooks of PipelineOffloadManager, then
/// bulk_offload_group on a side stream), each only if it has `min_offloaded_elements` elements
/// or more (tensor_need_offloading_checker). The tensors are the ones the activation count above
/// keeps, named by `replicated_tensors`, `attention_activations` and `routed_expert_tensors`:
/// * attn_norm (transformer_layer.py, input_layernorm): the layer input, where the input norm is
///   a module of its own (MLA); the TE spec's fused norm is an IdentityOp that saves nothing;
/// * qkv_linear (attention.py, get_query_key_value_tensors): linear_qkv's inputs, the QKV
///   input and, with the fused norm, the layer input; under MLA the down projections' input
///   (unless `layernorm` recomputation already discards it) and the two latents' two copies;
/// * core_attn (attention.py, core_attention, its query, key and value released): Q, K and V
///   (already freed under MLA by `mla_up_proj` recomputation; a recomputed core's checkpoint
///   keeps them as its inputs) and what the kernel keeps beyond them (`attention_core_bytes`:
///   the s×s scores unfused, the fp32 statistics fused); its output stays with linear_proj;
/// * attn_proj (attention.py, linear_proj, core_attn_out released): the output projection's
///   input;
/// * mlp_norm (transformer_layer.py, pre_mlp_layernorm): the MLP block's input, in an MoE layer
///   whose pre-MLP norm is a module (a dense layer's is fused into linear_fc1: nothing);
/// * expert_fc1 and moe_act (moe/experts.py): per routed copy, linear_fc1's input (the permuted
///   tokens) and the activation's input (fc1's output); nothing when `moe` recomputation
///   checkpoints the whole MoE layer, whose forward then saves nothing.
/// Full recomputation runs the layer inside a checkpoint that saves only its input: 0.
constexpr bytes offloaded_bytes_per_layer(const transformer_spec& spec, std::int64_t micro_batch,
                                          std::int64_t seq, std::int64_t tp, bool sequence_parallel,
                                          recompute_mode mode, attention_kernel attention,
                                          const recompute_recipe& recipe, bool moe_layer = false,
                                          const expert_tokens& tokens = {}, std::int64_t etp = 1) {
  if (recipe.offload_modules == 0U || mode == recompute_mode::full) {
    return bytes{};
  }
  const double sb = static_cast<double>(seq) * static_cast<double>(micro_batch);
  const double sbh = sb * static_cast<double>(spec.hidden);
  const double t = static_cast<double>(tp);
  const double sp = sequence_parallel ? t : 1.0;  // the replicated tensors' divisor
  const bool selective = mode == recompute_mode::selective;
  const bool mla = is_mla(spec.mla);
  // One 16-bit tensor of `bytes` on this GPU, offloaded if it has enough elements.
  const auto moved = [&](double tensor_bytes, double element_bytes = 2.0) {
    return tensor_bytes / element_bytes >= static_cast<double>(recipe.min_offloaded_elements)
               ? tensor_bytes
               : 0.0;
  };
  const auto rep = replicated_tensors_of(spec);
  const auto attn = attention_activation_bytes(spec, sb);
  double out = 0.0;
  if (recipe.offloads(offload_module::attn_norm) && mla) {
    out += moved(rep.layer_input * sbh / sp);
  }
  if (recipe.offloads(offload_module::qkv_linear)) {
    if (mla) {
      if (!(selective && recipe.has(recompute_module::layernorm))) {
        out += moved(rep.qkv_input * sbh / sp);
      }
      out += 2.0 * (moved(attn.q_latent / sp) + moved(attn.kv_latent / sp));
    } else {
      out += moved(rep.layer_input * sbh / sp) + moved(rep.qkv_input * sbh / sp);
    }
  }
  if (recipe.offloads(offload_module::core_attn)) {
    if (!(selective && mla && recipe.has(recompute_module::mla_up_proj))) {
      out += moved(attn.query / t) + moved(attn.key / t) + moved(attn.value / t);
    }
    const double core = attention_core_bytes(spec, micro_batch, seq, tp,
                                             core_recompute_mode(mode, recipe), attention)
                            .value();
    // Its tensors: one fp32 statistic (fused); the softmax output, and with dropout its 1-byte
    // mask and its 16-bit output, of as many elements each (unfused).
    const double per_element = attention == attention_kernel::fused ? 4.0
                               : spec.attention_dropout             ? 5.0
                                                                    : 2.0;
    out += moved(core, per_element);
  }
  if (recipe.offloads(offload_module::attn_proj)) {
    out += moved(attn.output / t);
  }
  if (moe_layer) {
    if (recipe.offloads(offload_module::mlp_norm)) {
      out += moved(rep.mlp_block_input * sbh / sp);
    }
    if (!(selective && recipe.has(recompute_module::moe))) {
      const auto expert = routed_expert_tensors_of(
          spec, static_cast<double>(spec.moe.expert_ffn) / static_cast<double>(etp));
      if (recipe.offloads(offload_module::expert_fc1) && tokens.routes) {
        out += moved(tokens.routed * expert.fc1_input);
      }
      if (recipe.offloads(offload_module::moe_act)) {
        out += moved(tokens.routed * expert.fc1_output);
      }
    }
  }
  return out * units::B;
}

/// Memory of one GPU of one pipeline stage.
struct stage_memory {
  std::int64_t stage = 0;
  std::int64_t layers = 0;        ///< layers on this stage
  double params = 0.0;            ///< parameters on this GPU
  double layers_in_flight = 0.0;  ///< layers' worth of one micro-batch's activations held
  double expert_params = 0.0;     ///< of `params`, routed experts (sharded by ep·etp)
  bytes weights{};
  bytes gradients{};
  bytes optimizer{};
  bytes activations{};
  bytes expert_states{};  ///< of weights + gradients + optimizer, the routed experts'
  [[nodiscard]] constexpr bytes model_states() const { return weights + gradients + optimizer; }
  [[nodiscard]] constexpr bytes total() const { return model_states() + activations; }
};

/// Memory of every stage, the fullest one, and the room left under `capacity`.
struct memory_report {
  std::vector<stage_memory> stages;
  std::size_t peak_stage = 0;  ///< index of the stage with the largest total
  bytes capacity{};
  state_bytes per_param{};
  [[nodiscard]] const stage_memory& peak() const { return stages[peak_stage]; }
  /// `capacity − peak total`; negative when the layout does not fit.
  [[nodiscard]] bytes headroom() const { return capacity - peak().total(); }
  [[nodiscard]] bool fits() const { return headroom().value() >= 0.0; }
  /// Peak reserved bytes of stage `i` (allocator.hpp): the allocated peak and the caching
  /// allocator's fragmentation.
  [[nodiscard]] bytes reserved(std::size_t i) const { return reserved_of(stages[i].total()); }
};

/// What every stage's memory shares for one layout (all but the stage's layers and
/// parameters): computed once per layout, then `stage_memory_at` per stage.
struct stage_memory_terms {
  std::int64_t stages = 1, micro_batches = 1, virtual_stages = 1;
  double dp = 1.0;         ///< the DP ranks ZeRO shards over (d, or HSDP's shard degree)
  double expert_dp = 1.0;  ///< t·d/(ep·etp) (over HSDP's replicas): those that shard experts
  int zero = 0;
  state_bytes per_param{};
  bytes per_layer{};      ///< one layer's stored activations, one micro-batch
  bytes per_moe_layer{};  ///< one MoE layer's, one micro-batch (0 for a dense model)
  bytes working{};        ///< full recomputation: one layer's activations while recomputed
  /// Full recomputation, block method: what a layer it does not checkpoint keeps (dense, MoE).
  bytes kept_layer{}, kept_moe_layer{};
  /// Full recomputation: layers per checkpointed unit (uniform; 1 = each layer alone) and, with
  /// the block method, the checkpointed layers per model chunk (-1: every layer).
  std::int64_t unit_layers = 1;
  std::int64_t block_layers = -1;
  std::int64_t offload_layers = 0;  ///< layers whose activations leave the GPU (cpu_offloading)
  /// Fine-grained offloading: what leaves the GPU per dense and per MoE layer, one micro-batch.
  bytes offloaded{}, offloaded_moe{};
  bytes embedding_mask{};  ///< first stage, per micro-batch in flight
  bytes output_layer{};    ///< last stage: final norm and output inputs, fp32 logits
  /// ZeRO-3: one layer's 16-bit weights on a TP rank, gathered for its forward or backward,
  /// and how many such layers are held at once (the one computed and the one prefetched).
  bytes gathered_layer{};
  std::int64_t gathered_layers = 0;
};

/// What one layer keeps for its backward, per micro-batch, and what recomputation and
/// offloading make of it: the part of stage_memory_terms that depends on the layer's shape on a
/// GPU only (its t, b, SP, recomputation, ep and etp), which a search reuses across the
/// layouts that share them.
struct layer_activation_terms {
  bytes per_layer{}, per_moe_layer{}, working{}, kept_layer{}, kept_moe_layer{};
  bytes offloaded{}, offloaded_moe{};
  std::int64_t unit_layers = 1, block_layers = -1, offload_layers = 0;
};

/// The layer activation terms of `par` (its t, b, SP, recomputation, ep and etp); see the file
/// comment for every term.
inline layer_activation_terms layer_activation_terms_of(
    const transformer_spec& spec, const parallel_config& par, attention_kernel attention,
    const expert_load& load = {}, selective_policy policy = selective_policy::attention_core,
    const recompute_recipe& recipe = {}) {
  layer_activation_terms x;
  x.per_layer =
      activation_bytes_per_layer(spec, par.micro_batch, spec.seq, par.tp, par.sequence_parallel,
                                 par.recompute, attention, policy, recipe);
  const bytes everything =
      activation_bytes_per_layer(spec, par.micro_batch, spec.seq, par.tp, par.sequence_parallel,
                                 recompute_mode::none, attention);
  const bool modules = par.recompute == recompute_mode::selective &&
                       policy == selective_policy::attention_core &&
                       recipe.modules != recompute_recipe{}.modules;
  // The recipe with its attention-core choice only: what the other modules free is the
  // difference, live again while a layer's backward recomputes them.
  recompute_recipe core_only = recipe;
  core_only.modules &= static_cast<unsigned>(recompute_module::core_attn);
  if (par.recompute == recompute_mode::full) {
    x.working = everything;
    x.kept_layer = everything;
    x.unit_layers = recipe.method == recompute_method::uniform ? recipe.num_layers : 1;
    x.block_layers = recipe.method == recompute_method::block ? recipe.num_layers : -1;
  } else if (par.recompute == recompute_mode::selective && policy == selective_policy::per_op) {
    // While a layer is recomputed for its backward, what per-op checkpointing dropped of it is
    // live again beside what it kept.
    x.working = max(bytes{}, everything - x.per_layer);
  } else if (modules) {
    // Likewise for the modules a recipe recomputes beyond the attention core: one layer's.
    x.working = max(bytes{}, activation_bytes_per_layer(spec, par.micro_batch, spec.seq, par.tp,
                                                        par.sequence_parallel, par.recompute,
                                                        attention, policy, core_only) -
                                 x.per_layer);
  }
  x.offload_layers = recipe.offload_layers;
  x.offloaded = offloaded_bytes_per_layer(spec, par.micro_batch, spec.seq, par.tp,
                                          par.sequence_parallel, par.recompute, attention, recipe);
  if (is_moe(spec.moe)) {
    const auto tokens =
        expert_tokens_of(spec, par.micro_batch, spec.seq, par.tp, par.ep, par.etp, load);
    x.per_moe_layer = moe_activation_bytes_per_layer(spec, par.micro_batch, spec.seq, par.tp,
                                                     par.etp, par.sequence_parallel, par.recompute,
                                                     attention, tokens, recipe);
    if (par.recompute == recompute_mode::full) {
      x.kept_moe_layer = moe_activation_bytes_per_layer(spec, par.micro_batch, spec.seq, par.tp,
                                                        par.etp, par.sequence_parallel,
                                                        recompute_mode::none, attention, tokens);
      x.working = max(x.working, x.kept_moe_layer);
    }
    x.offloaded_moe =
        offloaded_bytes_per_layer(spec, par.micro_batch, spec.seq, par.tp, par.sequence_parallel,
                                  par.recompute, attention, recipe, true, tokens, par.etp);
    if (modules) {
      x.working =
          max(x.working, moe_activation_bytes_per_layer(
                             spec, par.micro_batch, spec.seq, par.tp, par.etp,
                             par.sequence_parallel, par.recompute, attention, tokens, core_only) -
                             x.per_moe_layer);
    }
  }
  return x;
}

/// The shared terms of `par` (only its t, p, d, v, b, SP, recomputation and ZeRO stage are read)
/// with `m` micro-batches, its layers' activation terms `layer` (layer_activation_terms_of of
/// the same `par`) given; see the file comment for every term.
inline stage_memory_terms stage_memory_terms_of(const transformer_spec& spec,
                                                const parallel_config& par, std::int64_t m,
                                                state_bytes per_param, std::int64_t gathered_layers,
                                                const layer_activation_terms& layer) {
  const auto t = static_cast<double>(par.tp);
  const double sb = static_cast<double>(spec.seq) * static_cast<double>(par.micro_batch);
  const double sbh = sb * static_cast<double>(spec.hidden);
  const double sp_divisor = par.sequence_parallel ? t : 1.0;
  stage_memory_terms x;
  x.stages = par.pp;
  x.micro_batches = m;
  x.virtual_stages = par.vpp;
  x.dp = static_cast<double>(shard_degree(par));  // HSDP shards over its shard group only
  x.zero = static_cast<int>(par.zero);
  x.per_param = per_param;
  x.per_layer = layer.per_layer;
  x.per_moe_layer = layer.per_moe_layer;
  x.working = layer.working;
  x.kept_layer = layer.kept_layer;
  x.kept_moe_layer = layer.kept_moe_layer;
  x.unit_layers = layer.unit_layers;
  x.block_layers = layer.block_layers;
  x.offload_layers = layer.offload_layers;
  x.offloaded = layer.offloaded;
  x.offloaded_moe = layer.offloaded_moe;
  if (is_moe(spec.moe)) {
    x.expert_dp =
        static_cast<double>(expert_shard_degree(par, par.tp * par.dp / (par.ep * par.etp)));
  }
  if (par.zero == zero_stage::parameters) {
    x.gathered_layer = 2.0 * layer_params_per_tp_rank(spec, par.tp) * units::B;
    x.gathered_layers = gathered_layers;
  }
  x.embedding_mask =
      (spec.hidden_dropout ? sbh / sp_divisor : 0.0) * units::B;  // one byte per element
  // Each MTP module adds one more output layer and loss (its final norm and output inputs and
  // logits at the loss) and its own inputs: the two norms' inputs and eh_proj's input of 2h,
  // 8·sbh.
  const double mtp = static_cast<double>(spec.mtp_layers);
  x.output_layer =
      ((1.0 + mtp) * (4.0 * sbh / sp_divisor + 6.0 * sb * static_cast<double>(spec.vocab) / t) +
       mtp * 8.0 * sbh / sp_divisor) *
      units::B;
  return x;
}

/// The shared terms of `par` (only its t, p, d, v, b, SP, recomputation and ZeRO stage are read)
/// with `m` micro-batches; see the file comment for every term.
inline stage_memory_terms stage_memory_terms_of(
    const transformer_spec& spec, const parallel_config& par, std::int64_t m,
    attention_kernel attention, state_bytes per_param = mixed_precision_adam,
    std::int64_t gathered_layers = 2, const expert_load& load = {},
    selective_policy policy = selective_policy::attention_core,
    const recompute_recipe& recipe = {}) {
  return stage_memory_terms_of(
      spec, par, m, per_param, gathered_layers,
      layer_activation_terms_of(spec, par, attention, load, policy, recipe));
}

/// What a stage's activations take from the stage, apart from the per-layer terms: the layers
/// in flight, and what recomputation and offloading keep of each layer (stage_memory_at).
/// The same for every recompute module set of a layout, which changes the per-layer terms
/// only: plan's search of module sets computes it once per stage and layout.
struct stage_activation_factors {
  std::int64_t stage = 0, layers = 0, moe_layers = 0;
  double layers_in_flight = 0.0;
  double stored = 1.0;        ///< of a checkpointed layer's count, what each layer keeps on average
  double checkpointed = 1.0;  ///< share of the layers checkpointed
  double working_layers = 1.0;
  double on_gpu = 1.0;     ///< share of the layers not offloaded whole (cpu_offloading)
  double held = 0.0;       ///< layers whose offloaded tensors are on the GPU at the peak
  double moe_share = 0.0;  ///< of the layers in flight, the MoE layers' share
};

/// One stage's memory without its activations (zero), and the factors of its activations.
struct stage_memory_parts {
  stage_memory states;
  stage_activation_factors factors;
};

/// stage_memory_at less the activations (see there).
inline stage_memory_parts stage_states_at(const stage_memory_terms& x, std::int64_t stage,
                                          std::int64_t layers, double params,
                                          double expert_params = 0.0, std::int64_t moe_layers = 0) {
  stage_memory_parts out;
  auto& s = out.states;
  s.stage = stage;
  s.layers = layers;
  s.params = params;
  s.expert_params = expert_params;
  const double dense = params - expert_params;
  const auto sharded = [&](double per_param, int from) {
    return (dense * per_param / (x.zero >= from ? x.dp : 1.0) +
            expert_params * per_param / (x.zero >= from ? x.expert_dp : 1.0)) *
           units::B;
  };
  s.weights = sharded(x.per_param.weights, 3) +
              static_cast<double>(std::min(x.gathered_layers, layers)) * x.gathered_layer;
  s.gradients = sharded(x.per_param.gradients, 2);
  s.optimizer = sharded(x.per_param.optimizer, 1);
  s.expert_states = expert_params *
                    (x.per_param.weights / (x.zero >= 3 ? x.expert_dp : 1.0) +
                     x.per_param.gradients / (x.zero >= 2 ? x.expert_dp : 1.0) +
                     x.per_param.optimizer / (x.zero >= 1 ? x.expert_dp : 1.0)) *
                    units::B;
  s.layers_in_flight = layers_in_flight(layers, stage, x.stages, x.micro_batches, x.virtual_stages);
  auto& f = out.factors;
  f.stage = stage;
  f.layers = layers;
  f.moe_layers = moe_layers;
  f.layers_in_flight = s.layers_in_flight;
  // Full recomputation by Megatron-Core's methods (transformer_block.py _checkpointed_forward,
  // core_v0.16.0), per model chunk of `chunk` layers: uniform keeps the input of each of its
  // ceil(chunk/N) units and rebuilds a whole unit, N layers, in the backward; block checkpoints
  // min(N, chunk) layers and keeps every activation of the others.
  const double chunk = static_cast<double>(layers) / static_cast<double>(x.virtual_stages);
  if (chunk > 0.0 && x.unit_layers > 1) {
    const double n = std::min(static_cast<double>(x.unit_layers), chunk);
    f.stored = std::ceil(chunk / n) / chunk;
    f.working_layers = n;
  }
  if (chunk > 0.0 && x.block_layers >= 0) {
    f.checkpointed = std::min(static_cast<double>(x.block_layers), chunk) / chunk;
    f.working_layers = x.block_layers > 0 ? 1.0 : 0.0;
  }
  // cpu_offloading_num_layers: those layers' activations are on the host between their forward
  // and backward (transformer_block.py, get_cpu_offload_context, core_v0.16.0).
  f.on_gpu = layers > 0 ? 1.0 - static_cast<double>(std::min(x.offload_layers, layers)) /
                                    static_cast<double>(layers)
                        : 1.0;
  // Fine-grained offloading (fine_grained_activation_offload.py, core_v0.16.0): each layer in
  // flight keeps its count less what its modules offload, and one layer's offloaded tensors are
  // on the GPU at the peak: after the first iteration the manager never offloads, per module,
  // the last layer of the chunk whose backward comes first (post_warmup_callback, "so that the
  // reloading won't block the main stream"), nor, where a chunk's backward follows its forward
  // (the last stage), the last layer of that chunk (should_bulk_offload); and in the backward
  // each layer's tensors come back before its modules run (bulk_reload, one module ahead of the
  // compute). The copies in flight on the two side streams are not counted.
  f.held = std::min(1.0, s.layers_in_flight);
  if (moe_layers != 0) {
    f.moe_share = static_cast<double>(moe_layers) / static_cast<double>(layers);
  }
  return out;
}

/// A stage's activations from its factors and the layout's per-layer terms (stage_memory_at).
inline bytes stage_activations(const stage_activation_factors& f, const stage_memory_terms& x) {
  const auto kept = [&](bytes checkpointed_layer, bytes other) {
    return f.checkpointed * f.stored * checkpointed_layer + (1.0 - f.checkpointed) * other;
  };
  bytes activations{};
  if (f.moe_layers == 0) {
    activations = f.on_gpu * f.layers_in_flight * (kept(x.per_layer, x.kept_layer) - x.offloaded) +
                  f.working_layers * x.working + f.held * x.offloaded;
  } else {
    // The layers in flight hold dense and MoE layers in the stage's proportion.
    activations =
        f.on_gpu * f.layers_in_flight *
            ((1.0 - f.moe_share) * (kept(x.per_layer, x.kept_layer) - x.offloaded) +
             f.moe_share * (kept(x.per_moe_layer, x.kept_moe_layer) - x.offloaded_moe)) +
        f.working_layers * x.working +
        f.held * (f.moe_layers < f.layers ? max(x.offloaded, x.offloaded_moe) : x.offloaded_moe);
  }
  if (f.stage == 0) {
    activations += static_cast<double>(std::min(x.stages, x.micro_batches)) * x.embedding_mask;
  }
  if (f.stage == x.stages - 1) {
    activations += x.output_layer;
  }
  return activations;
}

/// Memory of one GPU of stage `stage`, holding `layers` layers (`moe_layers` of them with
/// experts) and `params` parameters, `expert_params` of them routed experts, whose gradients
/// and optimizer states ZeRO shards over the expert-DP group (Megatron-Core's distributed
/// optimizer shards expert parameters over the expert-data-parallel group).
inline stage_memory stage_memory_at(const stage_memory_terms& x, std::int64_t stage,
                                    std::int64_t layers, double params, double expert_params = 0.0,
                                    std::int64_t moe_layers = 0) {
  auto parts = stage_states_at(x, stage, layers, params, expert_params, moe_layers);
  parts.states.activations = stage_activations(parts.factors, x);
  return parts.states;
}

/// The quantized weight copies an FP8/FP4 recipe keeps beside the weights (precision.hpp,
/// weight_copy_bytes_per_param; long_context.hpp computes `per_layer`): bytes per layer on one
/// GPU, spread over `shard` GPUs (ZeRO-3 shards them with the weights). Zero for BF16.
struct weight_copies {
  double per_layer = 0.0;  ///< bytes per layer on one GPU before sharding (negative: saved)
  double shard = 1.0;
};

/// Adds the copies of its `layers` to a stage's weights: the one formula that both the step
/// (evaluate_step) and the planner's search (stages.hpp, peak_memory) use.
constexpr void add_weight_copies(stage_memory& s, const weight_copies& w) {
  s.weights += w.per_layer * static_cast<double>(s.layers) / w.shard * units::B;
}

/// Per-GPU memory of a layout, stage by stage, when its attention core runs `attention` (see
/// the file comment for every term). Throws `invalid_spec` when the layout is invalid (see
/// `validate` and `summarize_pipeline`); a layout that does not fit is reported (`fits()`
/// false), not rejected.
inline memory_report memory_per_gpu(const transformer_spec& spec, const parallel_config& par,
                                    bytes capacity, attention_kernel attention,
                                    state_bytes per_param = mixed_precision_adam,
                                    std::int64_t gathered_layers = 2, const expert_load& load = {},
                                    selective_policy policy = selective_policy::attention_core,
                                    const recompute_recipe& recipe = {}) {
  const auto pipe = summarize_pipeline(spec, par, 2, false);
  const auto terms = stage_memory_terms_of(spec, par, pipe.micro_batches, attention, per_param,
                                           gathered_layers, load, policy, recipe);
  memory_report report;
  report.capacity = capacity;
  report.per_param = per_param;
  for (std::int64_t i = 0; i < par.pp; ++i) {
    const auto mtp = mtp_layers_on(spec, i, par.pp);
    const auto layers = pipe.split.layers_on(i) + mtp;
    const auto moe = moe_layers_in(spec, pipe.split.first_layer_of(i), layers - mtp) +
                     (mtp > 0 ? mtp_moe_layers(spec) : 0);
    report.stages.push_back(stage_memory_at(terms, i, layers,
                                            params_per_gpu(spec, par, i, layers, moe),
                                            expert_params_per_gpu(spec, par, moe), moe));
  }
  for (std::size_t i = 1; i < report.stages.size(); ++i) {
    if (report.stages[i].total() > report.stages[report.peak_stage].total()) {
      report.peak_stage = i;
    }
  }
  return report;
}

}  // namespace tpcost
