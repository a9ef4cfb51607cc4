// What a Megatron-Core recipe recomputes beyond the --recompute mode (parallelism.hpp): the
// modules of selective recomputation, the layers of full recomputation and how they are grouped,
// and the layers whose activations are offloaded to the host. memory.hpp reads it for the
// activations, step.hpp for the share of layers whose forward pass runs again.
//
// Megatron-LM core_v0.16.0, megatron/core/transformer/transformer_config.py:
// * recompute_modules (default ["core_attn"]): under recompute_granularity "selective", the
//   submodules to recompute: "core_attn", "mlp" (dense MLPs only: transformer_layer.py,
//   recompute_mlp is not set on an MoE layer), "moe" (the whole MoE layer: moe_layer.py,
//   moe_layer_recompute), "moe_act" (the routed experts' activation function: moe/experts.py,
//   activation_recompute), "layernorm" (input_layernorm and pre_mlp_layernorm where they are
//   modules of their own: transformer_layer.py, recompute_input_layernorm), "mla_up_proj" (MLA's
//   up projections and RoPE: multi_latent_attention.py, recompute_up_proj) and
//   "shared_experts" (moe_layer.py, shared_experts_recompute).
// * recompute_method and recompute_num_layers, under "full" (transformer_block.py,
//   _checkpointed_forward): uniform checkpoints the input of every unit of N consecutive layers
//   of a model chunk and reruns the unit's forward in its backward; block checkpoints the first N
//   layers of each chunk, one layer per unit, and keeps every activation of the others.
// * cpu_offloading_num_layers (with cpu_offloading; transformer_block.py,
//   get_cpu_offload_context): the activations of that many layers are copied to the host after
//   their forward and back before their backward. Megatron refuses it with p > 1 and with
//   recomputation (TransformerConfig.__post_init__).
// * fine_grained_activation_offloading with offload_modules (and min_offloaded_tensor_size,
//   default 1024*1024 elements): the tensors that the listed modules save for their backward
//   are copied to pinned host memory on a side stream after the module's forward and back
//   ahead of its backward (megatron/core/pipeline_parallel/fine_grained_activation_offload.py;
//   the modules: transformer_layer.py attn_norm and mlp_norm, attention.py qkv_linear,
//   core_attn and attn_proj, moe/experts.py expert_fc1 and moe_act). __post_init__ refuses it
//   with cpu_offloading, with an empty list, with a name it does not know, and attn_proj
//   without core_attn (core_attn's backward needs attn_proj's input, its own output).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/word_list.hpp"

namespace tpcost {

/// One of Megatron-Core's recompute_modules, as a bit of `recompute_recipe::modules`.
enum class recompute_module : unsigned {
  core_attn = 1U << 0U,
  mlp = 1U << 1U,
  moe = 1U << 2U,
  moe_act = 1U << 3U,
  layernorm = 1U << 4U,
  mla_up_proj = 1U << 5U,
  shared_experts = 1U << 6U,
};

/// Megatron-Core's recompute_method: which layers full recomputation checkpoints.
enum class recompute_method { uniform, block };

/// The modules in Megatron's order of its documentation, with their names.
struct recompute_module_name {
  recompute_module module;
  std::string_view name;
};
inline constexpr recompute_module_name recompute_module_names[] = {
    {recompute_module::core_attn, "core_attn"},
    {recompute_module::moe_act, "moe_act"},
    {recompute_module::layernorm, "layernorm"},
    {recompute_module::mla_up_proj, "mla_up_proj"},
    {recompute_module::mlp, "mlp"},
    {recompute_module::moe, "moe"},
    {recompute_module::shared_experts, "shared_experts"},
};

/// One of Megatron-Core's offload_modules, as a bit of `recompute_recipe::offload_modules`.
enum class offload_module : unsigned {
  attn_norm = 1U << 0U,
  qkv_linear = 1U << 1U,
  core_attn = 1U << 2U,
  attn_proj = 1U << 3U,
  mlp_norm = 1U << 4U,
  expert_fc1 = 1U << 5U,
  moe_act = 1U << 6U,
};

/// The offload modules in the order of Megatron's documentation (transformer_config.py), with
/// their names.
struct offload_module_name {
  offload_module module;
  std::string_view name;
};
inline constexpr offload_module_name offload_module_names[] = {
    {offload_module::attn_norm, "attn_norm"}, {offload_module::qkv_linear, "qkv_linear"},
    {offload_module::core_attn, "core_attn"}, {offload_module::attn_proj, "attn_proj"},
    {offload_module::mlp_norm, "mlp_norm"},   {offload_module::expert_fc1, "expert_fc1"},
    {offload_module::moe_act, "moe_act"},
};

/// Megatron-Core's min_offloaded_tensor_size (TransformerConfig, core_v0.16.0): a saved tensor
/// of fewer elements stays on the GPU (ChunkOffloadHandler.tensor_need_offloading_checker).
inline constexpr std::int64_t default_min_offloaded_elements = std::int64_t{1024} * 1024;

/// What a recipe recomputes and offloads beyond the recompute mode; the defaults are what the
/// step costed before these options: selective recomputes the attention core, full recomputes
/// every layer on its own, nothing is offloaded.
struct recompute_recipe {
  unsigned modules = static_cast<unsigned>(recompute_module::core_attn);
  recompute_method method = recompute_method::uniform;
  /// Full recomputation: layers per checkpointed unit (uniform) or checkpointed layers per model
  /// chunk (block). 1 with uniform is every layer alone.
  std::int64_t num_layers = 1;
  std::int64_t offload_layers = 0;  ///< layers whose activations are offloaded to the host
  /// Fine-grained activation offloading: the offload_modules (0: off).
  unsigned offload_modules = 0;
  /// Saved tensors of fewer elements stay on the GPU (min_offloaded_tensor_size).
  std::int64_t min_offloaded_elements = default_min_offloaded_elements;

  [[nodiscard]] constexpr bool has(recompute_module m) const {
    return (modules & static_cast<unsigned>(m)) != 0U;
  }
  [[nodiscard]] constexpr bool offloads(offload_module m) const {
    return (offload_modules & static_cast<unsigned>(m)) != 0U;
  }
  [[nodiscard]] constexpr bool full_is_default() const {
    return method == recompute_method::uniform && num_layers == 1;
  }
};

inline constexpr std::array<enum_name<recompute_method>, 2> recompute_method_names{{
    {"uniform", recompute_method::uniform},
    {"block", recompute_method::block},
}};

/// "uniform" or "block".
constexpr std::string_view to_string(recompute_method m) {
  return name_of(recompute_method_names, m);
}

/// Reads "uniform" or "block"; throws `invalid_spec(field, ...)` otherwise.
inline recompute_method parse_recompute_method(std::string_view text, std::string_view field) {
  if (const auto m = value_named(recompute_method_names, text)) {
    return *m;
  }
  throw invalid_spec(std::string(field),
                     quote_value(text) + " is not a recompute method; expected uniform or block");
}

/// The modules as a list in Megatron's order ("core_attn,mlp"; a plan layout string joins them
/// with '+'); "none" for an empty set.
inline std::string recompute_modules_to_string(unsigned modules, char separator = ',') {
  return listed_names(recompute_module_names, modules, separator);
}

/// Reads a list of module names separated by commas, spaces, '+' or brackets (a script's
/// `--recompute-modules core_attn mlp`, a YAML list written as `[core_attn, mlp]`, a plan
/// layout's `modules=core_attn+mlp`); an empty list recomputes nothing. Throws `invalid_spec(field,
/// ...)` for a name Megatron does not know.
inline unsigned parse_recompute_modules(std::string_view text, std::string_view field) {
  return listed_flags(text, true, recompute_module_names, [&](std::string_view word) {
    return invalid_spec(std::string(field), quote_value(word) +
                                                " is not a recompute module; expected core_attn, "
                                                "moe_act, layernorm, mla_up_proj, mlp, moe or "
                                                "shared_experts");
  });
}

/// The offload modules as a comma list in Megatron's order; "none" for an empty set.
inline std::string offload_modules_to_string(unsigned modules) {
  return listed_names(offload_module_names, modules);
}

/// Reads --offload-modules as Megatron-Core's TransformerConfig.__post_init__ checks it
/// (core_v0.16.0): names separated by commas, spaces or brackets, at least one, each one of
/// its seven, and attn_proj only with core_attn. Throws `invalid_spec(field, ...)`.
inline unsigned parse_offload_modules(std::string_view text, std::string_view field) {
  const unsigned modules =
      listed_flags(text, false, offload_module_names, [&](std::string_view word) {
        return invalid_spec(std::string(field),
                            quote_value(word) +
                                " is not an offload module; expected attn_norm, qkv_linear, "
                                "core_attn, attn_proj, mlp_norm, expert_fc1 or moe_act");
      });
  if (modules == 0) {
    throw invalid_spec(std::string(field),
                       "is empty; fine-grained activation offloading needs at least one module "
                       "(Megatron asserts a non-empty offload_modules)");
  }
  if ((modules & static_cast<unsigned>(offload_module::attn_proj)) != 0U &&
      (modules & static_cast<unsigned>(offload_module::core_attn)) == 0U) {
    throw invalid_spec(std::string(field),
                       "attn_proj needs core_attn too (Megatron refuses it: attn_proj's input is "
                       "core_attn's output, which core_attn's backward needs)");
  }
  return modules;
}

}  // namespace tpcost
