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
  };
}

inline void to_json(nlohmann::json& j, const param_breakdown& p) {
  j = nlohmann::json{
      {"embedding", p.embedding}, {"positions", p.positions},
      {"attention", p.attention}, {"mlp", p.mlp},
      {"norms", p.norms},         {"output", p.output},
      {"per_layer", p.per_layer}, {"total", p.total},
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
      {"relative_to_published", relative_to_published(preset)},
      {"source", preset.source},
      {"params_source", preset.params_source},
  };
}

}  // namespace tpcost
