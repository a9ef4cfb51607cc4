// How a training step is laid out over GPUs: tensor (t), pipeline (p, with v virtual stages
// per GPU) and data (d) parallelism, micro-batches, sequence parallelism, activation
// recomputation and the ZeRO stage; the attention kernel; and the checks that a layout fits a
// model.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tpcost/base/checked.hpp"
#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/model/model.hpp"

namespace tpcost {

/// Activation recomputation (Korthikanti et al. 2022, "Reducing Activation Recomputation in
/// Large Transformer Models", arXiv:2205.05198):
/// * none: every activation the backward pass needs is stored;
/// * selective: the attention core (QKᵀ, softmax, its dropout, attention over V) is dropped
///   and recomputed in the backward pass (Sec. 5); a fused attention kernel (below) keeps no
///   s×s tensor either, so with it `none` stores what `selective` does plus the softmax
///   statistics (memory.hpp);
/// * full: only each layer's input is stored; the whole forward pass is run again.
enum class recompute_mode { none, selective, full };

/// What `selective` recomputes, as the stack runs it (stack_profiles.hpp):
/// * attention_core: Megatron-Core's --recompute-granularity selective (recompute_modules
///   ["core_attn"], the default): the attention core only, as above;
/// * per_op: torchtitan's selective_ac_option = "op" (its op policy saves the outputs of the
///   matmuls but every second one, of the attention kernel and of the reduce-scatters, and
///   recomputes everything else: "saves output of all compute ops, except every second mm").
///   In a Llama layer's order wq, wk, wv, wo, w1, w3, w2 the saved ones are wq, wv, w1 and
///   w2; wk, wo and w3 and every element-wise op (norms, RoPE, SiLU, residuals) run again.
///   The attention kernel is saved, not recomputed. (memory.hpp, compute_model.hpp, flops.hpp;
///   MoE and MLA layers keep the attention_core count: tpcost has not derived theirs.)
enum class selective_policy { attention_core, per_op };

/// How the attention core (scores, softmax, dropout, scores × V) runs. It sets the kernels'
/// time (compute_model.hpp) and what a layer stores for the backward pass (memory.hpp).
enum class attention_kernel {
  unfused,  ///< separate matmuls and softmax/dropout kernels that write the s×s scores to HBM
            ///< and keep the softmax output, its dropout mask and the dropout output for the
            ///< backward (Megatron-LM 2021; the SC21 validation)
  fused,    ///< one kernel that keeps the scores on chip (FlashAttention, Dao et al. 2022):
            ///< its matmuls run at η_mm, the s×s memory traffic disappears, and the backward
            ///< needs, beyond Q, K, V, only the output and one fp32 softmax statistic per row
            ///< and head
};

inline constexpr std::array<enum_name<attention_kernel>, 2> attention_kernel_names{{
    {"unfused", attention_kernel::unfused},
    {"fused", attention_kernel::fused},
}};

/// "fused" or "unfused", as the CLI's --attention reads it.
constexpr std::string_view to_string(attention_kernel kernel) {
  return name_of(attention_kernel_names, kernel);
}

/// ZeRO stage (Rajbhandari et al. 2020, arXiv:1910.02054): what is partitioned over the d
/// data-parallel ranks. 1: optimizer states; 2: also gradients; 3: also the parameters.
enum class zero_stage : int { none = 0, optimizer = 1, gradients = 2, parameters = 3 };

inline constexpr std::array<enum_name<recompute_mode>, 3> recompute_mode_names{{
    {"none", recompute_mode::none},
    {"selective", recompute_mode::selective},
    {"full", recompute_mode::full},
}};

constexpr std::string_view to_string(recompute_mode mode) {
  return name_of(recompute_mode_names, mode);
}

/// Reads "none", "selective" or "full"; throws `invalid_spec(field, ...)` otherwise.
inline recompute_mode parse_recompute(std::string_view text, std::string_view field) {
  if (const auto mode = value_named(recompute_mode_names, text)) {
    return *mode;
  }
  throw invalid_spec(std::string(field), quote_value(text) +
                                             " is not a recompute mode; expected none, "
                                             "selective or full");
}

/// Reads a ZeRO stage "0".."3"; throws `invalid_spec(field, ...)` otherwise.
inline constexpr std::array<enum_name<zero_stage>, 4> zero_stage_names{{
    {"0", zero_stage::none},
    {"1", zero_stage::optimizer},
    {"2", zero_stage::gradients},
    {"3", zero_stage::parameters},
}};

inline zero_stage parse_zero_stage(std::string_view text, std::string_view field) {
  if (const auto stage = value_named(zero_stage_names, text)) {
    return *stage;
  }
  throw invalid_spec(std::string(field),
                     quote_value(text) + " is not a ZeRO stage; expected 0, 1, 2 or 3");
}

/// One training layout. N = tp·pp·cp·dp GPUs; m = global_batch / (dp·micro_batch)
/// micro-batches per step and per pipeline.
struct parallel_config {
  std::int64_t tp = 1;  ///< t, tensor-parallel degree
  std::int64_t pp = 1;  ///< p, pipeline stages
  std::int64_t dp = 1;  ///< d, data-parallel replicas of the whole model
  /// Context parallelism: each sequence split over cp ranks (context_parallel.hpp), which
  /// hold the same weights; the step costs it as a DP group of d·cp on s/cp tokens plus what
  /// that view leaves out (long_context.hpp). 1: none.
  std::int64_t cp = 1;
  /// Expert parallelism, folded over the t·d ranks of a stage (Megatron-Core MoE parallel
  /// folding): experts split over ep ranks, each expert's FFN over etp ranks; the expert-DP
  /// group is t·d/(ep·etp). Both 1 for a dense model.
  std::int64_t ep = 1;
  std::int64_t etp = 1;
  std::int64_t vpp = 1;           ///< v, virtual stages (model chunks) per GPU; 1 = plain 1F1B
  std::int64_t micro_batch = 1;   ///< b, sequences per micro-batch
  std::int64_t global_batch = 1;  ///< G, sequences per step
  bool sequence_parallel = false;
  recompute_mode recompute = recompute_mode::none;
  zero_stage zero = zero_stage::none;
  /// HSDP: ZeRO shards over d/dp_replicas consecutive DP ranks, and the dp_replicas groups
  /// hold the same shards (torchtitan's data_parallel_replicate_degree beside
  /// data_parallel_shard_degree; Megatron-Core's --num-distributed-optimizer-instances). 1: ZeRO
  /// over all d.
  std::int64_t dp_replicas = 1;
  /// Uneven pipeline stages, as Megatron-Core's --decoder-first/last-pipeline-num-layers: the
  /// transformer layers on the first and the last stage; the middle stages share the rest
  /// evenly. 0: the default split (pipeline_parallel.hpp, `split_of`).
  std::int64_t first_stage_layers = 0;
  std::int64_t last_stage_layers = 0;
  /// Megatron-Core's --account-for-embedding-in-pipeline-split and
  /// --account-for-loss-in-pipeline-split: the embedding (the loss) counts as one layer of the
  /// first (last) stage when the layers are split evenly.
  bool embedding_in_split = false;
  bool loss_in_split = false;
  /// A --pipeline-model-parallel-layout string gave the model chunks, which may differ in size
  /// within a stage (Megatron-Core does not split such a stage into equal chunks): each stage's
  /// chunks are costed at their mean size, layers/v.
  bool chunks_from_layout = false;
};

/// Tensor-parallel collectives of one layer in one training step of one micro-batch, forward
/// and backward. Without sequence parallelism each is an all-reduce of the full activation
/// (b·s·h elements); with it, each all-reduce becomes a reduce-scatter plus an all-gather of the
/// same total traffic (Korthikanti et al. 2022, Sec. 4.2.2).
struct tp_collective_count {
  int all_reduce = 0;
  int all_gather = 0;
  int reduce_scatter = 0;
  /// All-reduce equivalents: an all-gather and a reduce-scatter move half an all-reduce each.
  [[nodiscard]] constexpr double all_reduce_equivalents() const {
    return all_reduce + 0.5 * (all_gather + reduce_scatter);
  }
};

/// Per-layer TP collectives (Megatron-LM, Shoeybi et al. 2019 Sec. 3; Korthikanti et al. 2022):
/// 2 forward (after attention, after the MLP) and 2 backward: 4. Full recomputation runs the
/// forward pass again, with its 2 collectives: 6. Selective recomputation recomputes only the
/// attention core, which each rank holds whole for its own heads, so it adds none: 4. With
/// sequence parallelism every all-reduce becomes a reduce-scatter and an all-gather. Not
/// counted here, as the seed's model does not: the all-gather that Megatron-LM's SP repeats in
/// the backward pass to rebuild the input of a weight gradient; the step model adds it where
/// the stack runs it (stages.hpp, tp_comm_of_layer).
constexpr tp_collective_count tp_collectives_per_layer(recompute_mode mode,
                                                       bool sequence_parallel) {
  const int n = mode == recompute_mode::full ? 6 : 4;
  if (sequence_parallel) {
    return tp_collective_count{.all_reduce = 0, .all_gather = n, .reduce_scatter = n};
  }
  return tp_collective_count{.all_reduce = n, .all_gather = 0, .reduce_scatter = 0};
}

/// The data-parallel ranks ZeRO shards over: the d·cp ranks that hold the same weights, or
/// those over HSDP's replicas (validate checks the division).
constexpr std::int64_t shard_degree(const parallel_config& par) {
  const auto ranks = par.dp * par.cp;
  return par.dp_replicas > 1 ? ranks / par.dp_replicas : ranks;
}

/// The ranks of the expert-DP group of `expert_dp` ranks that ZeRO shards the experts over:
/// HSDP's replicas split it too (Megatron-Core's intra-partial expert-DP group;
/// validate_experts checks the division).
constexpr std::int64_t expert_shard_degree(const parallel_config& par, std::int64_t expert_dp) {
  return par.dp_replicas > 1 ? expert_dp / par.dp_replicas : expert_dp;
}

/// `m = G / (d·b)`: micro-batches per step in each pipeline. Call `validate` first.
constexpr std::int64_t micro_batches(const parallel_config& par) {
  return par.global_batch / (par.dp * par.micro_batch);
}

/// The largest degree or batch accepted; far beyond any cluster, small enough to stay exact.
inline constexpr std::int64_t max_parallel_degree = std::int64_t{1} << 24;

namespace detail {
inline void require_degree(const char* field, std::int64_t value, const char* what) {
  if (value < 1 || value > max_parallel_degree) {
    throw invalid_spec(field, std::to_string(value) + " is out of range; " + what +
                                  " must be a whole number in 1.." +
                                  std::to_string(max_parallel_degree));
  }
}
}  // namespace detail

/// Throws `invalid_spec` naming the field ("ep", "etp", "sequence_parallel") when the expert
/// layout cannot run the model: EP and ETP on a dense model, EP not dividing the experts, ETP
/// not dividing an expert's FFN, ep·etp not dividing the t·d ranks of a stage that MoE parallel
/// folding lays them over (t·cp·d with CP: the CP view passes d·cp), or MoE with t > 1 without
/// sequence parallelism (Megatron-LM megatron/training/arguments.py asserts it).
inline void validate_experts(const transformer_spec& model, const parallel_config& par) {
  if (!is_moe(model.moe)) {
    if (par.ep != 1 || par.etp != 1) {
      throw invalid_spec(par.ep != 1 ? "ep" : "etp",
                         "expert parallelism needs a mixture-of-experts model; this one is dense");
    }
    return;
  }
  const auto& moe = model.moe;
  if (moe.experts % par.ep != 0) {
    throw invalid_spec("ep", "EP = " + std::to_string(par.ep) + " does not divide the " +
                                 std::to_string(moe.experts) +
                                 " experts; each GPU of the group holds E/EP whole experts");
  }
  if (moe.expert_ffn % par.etp != 0) {
    throw invalid_spec("etp", "ETP = " + std::to_string(par.etp) +
                                  " does not divide the expert FFN size " +
                                  std::to_string(moe.expert_ffn));
  }
  const auto folded = par.ep * par.etp;         // each at most 2^24: no overflow
  const auto ranks = par.tp * par.cp * par.dp;  // at most N: validate checked it first
  if (ranks % folded != 0) {
    throw invalid_spec("ep", "EP*ETP = " + std::to_string(par.ep) + "*" + std::to_string(par.etp) +
                                 " does not divide the t*cp*d = " + std::to_string(ranks) +
                                 " ranks of a stage that the expert groups fold over");
  }
  if (par.dp_replicas > 1 && (ranks / folded) % par.dp_replicas != 0) {
    throw invalid_spec("dp_replicas", std::to_string(par.dp_replicas) +
                                          " HSDP replicas do not divide the expert-DP group of " +
                                          std::to_string(ranks / folded) + " ranks");
  }
  if (moe.shared_experts > 0 && shared_ffn_of(moe) * moe.shared_experts % par.tp != 0) {
    throw invalid_spec("tp", "t = " + std::to_string(par.tp) +
                                 " does not divide the shared experts' FFN size " +
                                 std::to_string(shared_ffn_of(moe) * moe.shared_experts));
  }
  if (par.tp > 1 && !par.sequence_parallel) {
    throw invalid_spec("sequence_parallel",
                       "an MoE model with t > 1 needs sequence parallelism (--sp): Megatron-LM "
                       "asserts it ('When using MoE and tensor parallelism, sequence parallelism "
                       "must be used')");
  }
}

/// Throws `invalid_spec` naming the field ("tp", "pp", "dp", "vpp", "micro_batch",
/// "global_batch") when the layout cannot run the model: t must divide the heads, the KV heads
/// and the MLP size (Megatron-LM splits each over t); G must be a multiple of d·b; p may not
/// exceed L. Interleaving and uneven stages are checked in pipeline_parallel.hpp.
inline void validate(const transformer_spec& model, const parallel_config& par) {
  validate(model);
  detail::require_degree("tp", par.tp, "the TP degree");
  detail::require_degree("pp", par.pp, "the number of pipeline stages");
  detail::require_degree("dp", par.dp, "the DP degree");
  detail::require_degree("cp", par.cp, "the CP degree");
  detail::require_degree("ep", par.ep, "the EP degree");
  detail::require_degree("etp", par.etp, "the expert TP degree");
  detail::require_degree("vpp", par.vpp, "the number of virtual stages per GPU");
  detail::require_degree("micro_batch", par.micro_batch, "the micro-batch size");
  detail::require_degree("global_batch", par.global_batch, "the global batch size");
  std::int64_t gpus = 0;  // t*p fits an int64 (each is at most 2^24); t*p*cp*d may not
  std::int64_t replicas = 0;
  if (!multiply_fits(par.cp, par.dp, replicas) || !multiply_fits(par.tp * par.pp, replicas, gpus) ||
      gpus > max_parallel_degree) {
    throw invalid_spec("gpus", (par.cp > 1 ? "N = t*p*cp*d = " : "N = t*p*d = ") +
                                   std::to_string(par.tp) + "*" + std::to_string(par.pp) + "*" +
                                   (par.cp > 1 ? std::to_string(par.cp) + "*" : std::string()) +
                                   std::to_string(par.dp) + " is more than the " +
                                   std::to_string(max_parallel_degree) + " GPUs accepted");
  }
  detail::require_degree("dp_replicas", par.dp_replicas, "the HSDP replica count");
  // HSDP's replicas split the DP-with-CP group of d·cp ranks (long_context.hpp).
  if (par.dp * par.cp % par.dp_replicas != 0) {
    throw invalid_spec("dp_replicas", std::to_string(par.dp_replicas) +
                                          " HSDP replicas do not divide the d = " +
                                          std::to_string(par.dp * par.cp) +
                                          " data-parallel ranks (d*cp with CP) into shard groups");
  }
  validate_experts(model, par);
  const auto t = std::to_string(par.tp);
  if (model.heads % par.tp != 0) {
    throw invalid_spec("tp", "t = " + t + " does not divide the " + std::to_string(model.heads) +
                                 " attention heads; use a divisor of the head count");
  }
  if (kv_heads_of(model) % par.tp != 0) {
    throw invalid_spec("tp", "t = " + t + " does not divide the " +
                                 std::to_string(kv_heads_of(model)) +
                                 " KV heads; with GQA, t may be at most the KV head count");
  }
  if (ffn_of(model) % par.tp != 0) {
    throw invalid_spec(
        "tp", "t = " + t + " does not divide the MLP size " + std::to_string(ffn_of(model)));
  }
  if (par.pp > model.layers) {
    throw invalid_spec("pp", "p = " + std::to_string(par.pp) + " stages for " +
                                 std::to_string(model.layers) +
                                 " layers: every stage needs at least one layer");
  }
  const auto per_step = par.dp * par.micro_batch;
  if (par.global_batch % per_step != 0) {
    throw invalid_spec("global_batch",
                       "G = " + std::to_string(par.global_batch) + " is not a multiple of d*b = " +
                           std::to_string(par.dp) + "*" + std::to_string(par.micro_batch) + " = " +
                           std::to_string(per_step) + "; use a multiple, e.g. " +
                           std::to_string((par.global_batch / per_step + 1) * per_step));
  }
}

}  // namespace tpcost
