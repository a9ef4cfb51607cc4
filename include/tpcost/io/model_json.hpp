// JSON for the model description, its parameter counts and its FLOPs per token, through
// nlohmann_json. Counts are integers; FLOPs are SI numbers under keys that say so.
#pragma once

#include <nlohmann/json.hpp>

#include "tpcost/model/flops.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/model_presets.hpp"

namespace tpcost {

inline void to_json(nlohmann::json& j, const transformer_spec& spec) {
  j = nlohmann::json{
      {"layers", spec.layers},
      {"hidden", spec.hidden},
      {"heads", spec.heads},
      {"kv_heads", kv_heads_of(spec)},
      {"head_dim", head_dim(spec)},
      {"ffn", ffn_of(spec)},
      {"vocab", spec.vocab},
      {"seq", spec.seq},
      {"architecture", to_string(architecture_of(spec))},
      {"gated_mlp", spec.gated_mlp},
      {"linear_biases", spec.linear_biases},
      {"norm", spec.norm == norm_kind::layer_norm ? "layer_norm" : "rms_norm"},
      {"positions", spec.positions == position_kind::learned ? "learned" : "rotary"},
      {"tied_embeddings", spec.tied_embeddings},
      {"mla", nullptr},
      {"moe", nullptr},
      {"mtp_layers", spec.mtp_layers},
      // Attention windows (model.hpp): 0 where the model has none; windowed_layers counts the
      // layers that are not full attention.
      {"sliding_window", spec.attention_window},
      {"attention_chunk", spec.attention_chunk},
      {"window_full_every", spec.window_full_every},
      {"windowed_layers", windowed_layers(spec)},
  };
  if (is_mla(spec.mla)) {
    const auto& a = spec.mla;
    j["mla"] = {{"q_lora_rank", a.q_lora_rank},
                {"kv_lora_rank", a.kv_lora_rank},
                {"qk_nope_head_dim", a.qk_nope_head_dim},
                {"qk_rope_head_dim", a.qk_rope_head_dim},
                {"v_head_dim", a.v_head_dim}};
  }
  if (is_moe(spec.moe)) {
    const auto& e = spec.moe;
    j["moe"] = {{"experts", e.experts},
                {"top_k", e.top_k},
                {"expert_ffn", e.expert_ffn},
                {"shared_experts", e.shared_experts},
                {"shared_ffn", shared_ffn_of(e)},
                {"shared_gate", e.shared_gate},
                {"dense_layers", e.dense_layers},
                {"layer_freq", e.layer_freq},
                {"layer_offset", e.layer_offset},
                {"moe_layers", moe_layers(spec)},
                {"router_groups", e.routing.groups},
                {"router_group_topk", e.routing.groups_per_token}};
  }
}

inline void to_json(nlohmann::json& j, const param_breakdown& p) {
  j = nlohmann::json{
      {"embedding", p.embedding}, {"positions", p.positions},
      {"attention", p.attention}, {"mlp", p.mlp},
      {"norms", p.norms},         {"output", p.output},
      {"experts", p.experts},     {"shared_experts", p.shared},
      {"routers", p.routers},     {"mtp", p.mtp},
      {"per_layer", p.per_layer}, {"total", p.total},
      {"active", p.active},
  };
}

inline void to_json(nlohmann::json& j, const flops_summary& f) {
  j = nlohmann::json{
      {"seq", f.seq},
      {"forward_flops",
       {{"projections", f.forward.projections.value()},
        {"attention", f.forward.attention.value()},
        {"mlp", f.forward.mlp.value()},
        {"logits", f.forward.logits.value()},
        {"total", f.forward.total().value()}}},
      {"model_flops", f.model.value()},
      {"hardware_flops",
       {{"none", f.hardware[0].value()},
        {"selective", f.hardware[1].value()},
        {"full", f.hardware[2].value()}}},
      {"six_n_flops", f.six_n.value()},
  };
}

/// A preset as `tpcost model list --format json` prints it.
inline void to_json(nlohmann::json& j, const model_preset& preset) {
  j = nlohmann::json{
      {"name", preset.name},
      {"title", preset.title},
      {"dimensions", preset.spec},
      {"params", count_params(preset.spec).total},
      {"published_params", preset.published_params},
      {"published_active_params",
       preset.published_active > 0 ? nlohmann::json(preset.published_active) : nlohmann::json()},
      {"relative_to_published", relative_to_published(preset)},
      {"source", preset.source},
      {"params_source", preset.params_source},
  };
}

}  // namespace tpcost
