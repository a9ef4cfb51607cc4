// Megatron-Bridge / NeMo 2: the ConfigContainer YAML a recipe dumps and users override. Its
// model: section holds Megatron-Core's TransformerConfig / GPTModelProvider fields, whose names
// are Megatron's argument names, so they go through the same mapping as a launch script.
// Source: NVIDIA/Megatron-Bridge, src/megatron/bridge/training/config.py (ConfigContainer,
// TrainingConfig, MixedPrecisionConfig) and megatron/core/transformer/transformer_config.py.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include "formats/reading.hpp"
#include "tpcost/base/quote.hpp"

namespace tpcost::cli::formats {

namespace {

/// A scalar as Megatron's mapping reads it: booleans and null in Python's spelling.
std::string scalar_text(const YAML::Node& n) {
  if (n.IsNull()) {
    return "None";
  }
  const auto& s = n.Scalar();
  if (s == "true" || s == "True" || s == "TRUE") {
    return "True";
  }
  if (s == "false" || s == "False" || s == "FALSE") {
    return "False";
  }
  if (s == "null" || s == "~") {
    return "None";
  }
  return s;
}

place at(const std::string& file, const YAML::Node& n, const std::string& key) {
  const auto m = n.Mark();
  return {file, m.line >= 0 ? static_cast<std::size_t>(m.line) + 1 : 0,
          m.column >= 0 ? static_cast<std::size_t>(m.column) + 1 : 0, key};
}

/// A map key as text. YAML allows a sequence or a map as a key (`? [a, b]: 1`); a
/// ConfigContainer never has one, and yaml-cpp's as<std::string>() would throw on it.
std::string key_text(const std::string& file, const YAML::Node& key, const std::string& within) {
  if (!key.IsScalar()) {
    fail(at(file, key, within), "a map key must be a plain name, not a sequence or a map");
  }
  return key.Scalar();
}

/// The Megatron dest of a ConfigContainer key, and whether the boolean is inverted.
std::pair<std::string, bool> dest_of(const std::string& section, const std::string& name) {
  if (section == "model") {
    if (name == "num_moe_experts") {
      return {"num_experts", false};
    }
    if (name == "num_layers_in_first_pipeline_stage") {
      return {"decoder_first_pipeline_num_layers", false};  // TransformerConfig's name for it
    }
    if (name == "num_layers_in_last_pipeline_stage") {
      return {"decoder_last_pipeline_num_layers", false};
    }
    if (name == "gated_linear_unit") {
      return {"swiglu", false};
    }
    if (name == "share_embeddings_and_output_weights") {
      return {"untie_embeddings_and_output_weights", true};
    }
    return {name, false};
  }
  if (section == "train" &&
      (name == "micro_batch_size" || name == "global_batch_size" || name == "rampup_batch_size")) {
    return {name, false};
  }
  if ((section == "dataset" && (name == "seq_length" || name == "sequence_length")) ||
      (section == "tokenizer" && name == "vocab_size")) {
    return {name == "sequence_length" ? "seq_length" : name, false};
  }
  if ((section == "optimizer" || section == "ddp") && name == "use_distributed_optimizer") {
    return {name, false};
  }
  if (section == "optimizer" &&
      (name == "use_precision_aware_optimizer" || name == "main_grads_dtype" ||
       name == "main_params_dtype" || name == "exp_avg_dtype" || name == "exp_avg_sq_dtype")) {
    return {name, false};
  }
  if (section == "ddp" &&
      (name == "overlap_grad_reduce" || name == "overlap_param_gather" ||
       name == "use_megatron_fsdp" || name == "data_parallel_sharding_strategy" ||
       name == "num_distributed_optimizer_instances")) {
    return {name, false};
  }
  if (section == "ddp" && name == "grad_reduce_in_fp32") {  // False: --grad-reduce-in-bf16
    return {"grad_reduce_in_bf16", true};
  }
  if (section == "comm_overlap" && name == "tp_comm_overlap") {
    return {name, false};
  }
  if (section == "mixed_precision" &&
      (name == "bf16" || name == "fp16" || name == "fp8" || name == "fp8_recipe" ||
       name == "fp8_param_gather" || name == "fp4" || name == "fp4_recipe")) {
    return {name, false};
  }
  return {{}, false};
}

}  // namespace

reading read_nemo_yaml(const std::string& text, const std::string& file, const read_options& opts) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard (depthguard.h: 2000 parser levels, about 500 nested collections)
    // says only "bad file"; a Megatron-Bridge config nests 3 or 4 levels (issue 30).
    fail(place{file,
               static_cast<std::size_t>(e.mark.line + 1),
               static_cast<std::size_t>(e.mark.column + 1),
               {}},
         "malformed YAML: nesting deeper than yaml-cpp's limit of 2000 parser levels (about 500 "
         "nested collections); a Megatron-Bridge config nests 4");
  } catch (const YAML::Exception& e) {
    fail(place{file,
               static_cast<std::size_t>(e.mark.line + 1),
               static_cast<std::size_t>(e.mark.column + 1),
               {}},
         "malformed YAML: " + e.msg);
  }
  if (!root.IsMap() || !root["model"] || !root["model"].IsMap()) {
    fail(place{file, 1, 0, {}},
         "not a Megatron-Bridge/NeMo ConfigContainer: expected a YAML map with a model: section "
         "(and train:, optimizer:, ddp:, mixed_precision: ...)");
  }
  reading r;
  r.format = source_format::nemo_yaml;
  std::vector<megatron_arg> args;
  std::vector<megatron_arg> precision;
  std::size_t ignored = 0;
  const bool mixed = root["mixed_precision"].IsDefined() && !root["mixed_precision"].IsNull();
  for (const auto& section : root) {
    const auto sname = key_text(file, section.first, {});
    const auto& node = section.second;
    if (sname == "mixed_precision" && node.IsScalar()) {
      // A recipe name: "bf16_mixed", "fp16_mixed", "bf16_with_fp8_delayed_scaling_mixed" ...
      const auto recipe = node.Scalar();
      const auto where = at(file, node, "mixed_precision");
      const bool bf16 = recipe.find("bf16") != std::string::npos;
      const bool fp16 = recipe.find("fp16") != std::string::npos;
      if (bf16 || fp16) {
        precision.push_back({bf16 ? "bf16" : "fp16", "True", recipe, where});
      }
      // Megatron-Bridge's recipes (megatron/bridge/training/mixed_precision.py):
      // bf16_with_fp8_{delayed,current,subchannel}_scaling_mixed, bf16_with_mxfp8_mixed,
      // bf16_with_nvfp4_mixed; each sets Megatron's fp8 / fp8_recipe (or fp4 / fp4_recipe).
      if (recipe.find("nvfp4") != std::string::npos && recipe.find("fp8") == std::string::npos) {
        precision.push_back({"fp4", "e2m1", recipe, where});
        precision.push_back({"fp4_recipe", "nvfp4", recipe, where});
      } else if (recipe.find("fp8") != std::string::npos) {
        const char* scaling = recipe.find("current_scaling") != std::string::npos ? "tensorwise"
                              : recipe.find("subchannel") != std::string::npos    ? "blockwise"
                              : recipe.find("mxfp8") != std::string::npos         ? "mxfp8"
                                                                                  : "delayed";
        precision.push_back({"fp8", "hybrid", recipe, where});
        precision.push_back({"fp8_recipe", scaling, recipe, where});
        // The delayed-scaling and MXFP8 recipes also keep the parameters in FP8
        // (fp8_param_gather = True in mixed_precision.py at v0.6.0, 51885cf).
        if (std::string_view(scaling) == "delayed" || std::string_view(scaling) == "mxfp8") {
          precision.push_back({"fp8_param_gather", "True", recipe, where});
        }
      }
      if (!bf16 && !fp16) {
        r.warn(
            opts, where,
            fmt::format("mixed-precision recipe {} is not one tpcost knows", quote_value(recipe)));
      }
      continue;
    }
    if (!node.IsMap()) {
      ++ignored;
      continue;
    }
    for (const auto& kv : node) {
      const auto name = key_text(file, kv.first, sname);
      const auto key = sname + "." + name;
      auto [dest, inverted] = dest_of(sname, name);
      if ((dest == "recompute_modules" || dest == "cuda_graph_scope" ||
           dest == "cuda_graph_modules" || dest == "offload_modules") &&
          kv.second.IsSequence()) {
        // TransformerConfig.recompute_modules, offload_modules, cuda_graph_scope (core_v0.18.0:
        // cuda_graph_modules): names, as a script lists them
        std::string list;
        for (const auto& e : kv.second) {
          list += (list.empty() ? "" : " ") + (e.IsScalar() ? e.Scalar() : std::string("?"));
        }
        args.push_back({dest, list, key + ": " + list.substr(0, 80), at(file, kv.second, key)});
        continue;
      }
      if (dest == "window_size" && kv.second.IsSequence()) {
        // TransformerConfig.window_size, a (left, right) tuple: "L,R" as tuple_type reads a
        // script's --window-size (megatron/training/arguments.py, core_v0.16.0).
        std::string pair;
        for (const auto& e : kv.second) {
          pair += (pair.empty() ? "" : ",") + (e.IsScalar() ? e.Scalar() : std::string("?"));
        }
        args.push_back(
            {dest, pair, key + ": [" + pair.substr(0, 80) + "]", at(file, kv.second, key)});
        continue;
      }
      if ((dest == "moe_layer_freq" || dest == "window_attn_skip_freq") && kv.second.IsSequence()) {
        // TransformerConfig.moe_layer_freq (window_attn_skip_freq) as a list: Megatron's list
        // expression, one 0/1 entry per layer, read by the same mapping as a script's flag.
        std::string list = "[";
        for (const auto& e : kv.second) {
          list += (list.size() > 1 ? "," : "") + (e.IsScalar() ? e.Scalar() : std::string("?"));
        }
        list += "]";
        args.push_back({dest, list, key + ": " + list.substr(0, 80), at(file, kv.second, key)});
        continue;
      }
      if (dest.empty() || !kv.second.IsScalar()) {
        if (name != "_target_") {
          ++ignored;
        }
        continue;
      }
      if (mixed && sname == "model" &&
          (dest == "bf16" || dest == "fp16" || dest == "fp8" || dest == "params_dtype")) {
        continue;  // mixed_precision: overrides the model's precision fields
      }
      auto value = scalar_text(kv.second);
      if (inverted && (value == "True" || value == "False")) {
        value = value == "True" ? "False" : "True";
      }
      if (dest == "normalization" || dest == "attention_backend") {
        if (const auto dot = value.rfind('.'); dot != std::string::npos) {
          value = value.substr(dot + 1);  // AttnBackend.flash
        }
      }
      auto& into = sname == "mixed_precision" ? precision : args;
      into.push_back({dest, value, key + ": " + kv.second.Scalar(), at(file, kv.second, key)});
    }
  }
  args.insert(args.end(), precision.begin(), precision.end());
  map_megatron(std::move(args), r, opts, file, megatron_style::config);
  if (ignored > 0) {
    r.ignore(
        place{file, 0, 0, {}},
        fmt::format("{} other keys (optimizer, scheduler, data, logging, checkpointing)", ignored));
  }
  return r;
}

}  // namespace tpcost::cli::formats
