#include "options/cli_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "options/flag_options.hpp"
#include "options/model_options.hpp"
#include "output/ascii_text.hpp"
#include "output/output_file.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/io/hf_config.hpp"
#include "tpcost/io/profile_json.hpp"
#include "tpcost/model/model_presets.hpp"

namespace tpcost::cli {

namespace {

void add_preset_flags(CLI::App& cmd, refined_flags& flags) {
  auto* hw = cmd.add_option_group(
      "Hardware presets ('tpcost hardware list'; explicit flags override any value they give)");
  add_flag(*hw, "--gpu", flags.gpu);
  add_flag(*hw, "--interconnect", flags.interconnect);
  add_flag(*hw, "--interconnect-file", flags.interconnect_file);
}

void add_topology_flags(CLI::App& cmd, refined_flags& flags, const std::string& title) {
  auto* topo = cmd.add_option_group(title);
  add_flag(*topo, "--gpus-per-node", flags.gpus_per_node);
  add_flag(*topo, "--intra-bandwidth", flags.intra_bandwidth);
  add_flag(*topo, "--intra-latency", flags.intra_latency);
  add_flag(*topo, "--inter-bandwidth", flags.inter_bandwidth);
  add_flag(*topo, "--inter-latency", flags.inter_latency);
}

}  // namespace

std::string model_choices() { return value_name(*find_flag("--model")); }
std::string hardware_choices() {
  // The GPU presets' braces and the interconnect presets', as one list.
  const auto gpus = value_name(*find_flag("--gpu"));
  return gpus.substr(0, gpus.size() - 1) + "," + value_name(*find_flag("--interconnect")).substr(1);
}

void add_layer_flags(CLI::App& cmd, layer_flags& flags) {
  auto* group = cmd.add_option_group("Layer and hardware (the article's symbols)");
  add_flag(*group, "--model", flags.model);
  add_flag(*group, "--hf-config", flags.hf_config);
  // --batch: the old name, still read. The default is the article's demo (b=2); step and plan,
  // which cost a whole step, default to 1.
  add_flag(*group, "--micro-batch", flags.batch)->capture_default_str();
  add_flag(*group, "--seq", flags.seq);
  add_flag(*group, "--hidden", flags.hidden);
  add_flag(*group, "--dtype", flags.dtype);
  add_flag(*group, "--flops", flags.flops);
  add_flag(*group, "--bandwidth", flags.bandwidth);
  add_flag(*group, "--min-efficiency", flags.min_efficiency)->capture_default_str();
}

void add_refined_flags(CLI::App& cmd, refined_flags& flags) {
  add_preset_flags(cmd, flags);
  auto* model = cmd.add_option_group(
      "Refined model (default: the article's, or auto with a preset; docs/formulas.md has every "
      "formula)");
  add_flag(*model, "--collective", flags.collective);  // 'seed', its old value, is still read
  add_flag(*model, "--bandwidth-kind", flags.bandwidth_kind);
  add_flag(*model, "--sp", flags.sp);
  add_flag(*model, "--recompute", flags.recompute)->capture_default_str();
  add_flag(*model, "--overlap", flags.overlap)->capture_default_str();
  add_flag(*model, "--comm-dtype", flags.comm_dtype);
  add_flag(*model, "--heads", flags.heads);
  add_topology_flags(cmd, flags,
                     "Topology (with --collective ring|tree|hierarchical|auto; --bandwidth is the "
                     "intra-node link unless --intra-bandwidth is given)");
}

void add_hardware_flags(CLI::App& cmd, refined_flags& flags) {
  add_preset_flags(cmd, flags);
  add_topology_flags(cmd, flags, "Topology");
}

void add_output_flags(CLI::App& cmd, output_flags& flags, const std::string& formats) {
  std::string choices = "{" + formats + "}";  // the help's and completions' list of values
  std::replace(choices.begin(), choices.end(), '|', ',');
  add_flag(cmd, "--format", flags.format)->type_name(choices)->capture_default_str();
  add_flag(cmd, "--output", flags.output);
  if (formats.find("csv") != std::string::npos) {
    add_flag(cmd, "--no-header", flags.no_header);
  }
}

double to_efficiency_target(const layer_flags& flags) {
  const double e = parse_fraction(flags.min_efficiency, "--min-efficiency");
  if (!(e > 0.0 && e < 1.0)) {
    throw invalid_spec("--min-efficiency", "'" + flags.min_efficiency +
                                               "' is not a fraction strictly between 0 and 1 "
                                               "(0.7 or 70%)");
  }
  return e;
}

double fraction_flag(const std::string& text, const char* flag) {
  const double f = parse_fraction(text, flag, "a fraction such as 0.5 or 50%");
  if (!(f >= 0.0 && f <= 1.0)) {
    throw invalid_spec(flag, "'" + text + "' is not a fraction in [0, 1] (0.5 or 50%)");
  }
  return f;
}

namespace {

/// The seed demo's B and P: the defaults without a preset.
constexpr bytes_per_second article_bandwidth = 600 * units::GB / units::s;
constexpr flops_per_second article_peak = 1 * units::PFLOP / units::s;

/// The refined options. The collective defaults to auto when `hardware` (a preset or a
/// profile) describes a topology; flags the chosen model would ignore are rejected.
tp_options to_tp_options(const refined_flags& flags, bool hardware) {
  tp_options o;
  o.collective = flags.collective.empty()
                     ? (hardware ? collective_choice::automatic : collective_choice::article)
                     : parse_collective_choice(flags.collective, "--collective");
  o.article_bandwidth = flags.bandwidth_kind.empty()
                            ? bandwidth_kind::algbw
                            : parse_bandwidth_kind(flags.bandwidth_kind, "--bandwidth-kind");
  o.sequence_parallel = flags.sp;
  o.recompute = parse_recompute(flags.recompute, "--recompute");
  o.overlap = fraction_flag(flags.overlap, "--overlap");
  if (!flags.comm_dtype.empty()) {
    o.comm_dtype = parse_dtype(flags.comm_dtype, "--comm-dtype");
  }
  if (!flags.heads.empty()) {
    o.heads = parse_count(flags.heads, "--heads");
  }
  if (o.collective == collective_choice::article) {
    const std::pair<const std::string*, const char*> topology[] = {
        {&flags.gpus_per_node, "--gpus-per-node"}, {&flags.intra_bandwidth, "--intra-bandwidth"},
        {&flags.intra_latency, "--intra-latency"}, {&flags.inter_bandwidth, "--inter-bandwidth"},
        {&flags.inter_latency, "--inter-latency"},
    };
    for (const auto& [text, flag] : topology) {
      if (!text->empty() &&
          !(flags.rules_read_gpus_per_node && std::string_view(flag) == "--gpus-per-node")) {
        throw invalid_spec(flag,
                           "the article's model has one bandwidth (--bandwidth) and no topology; "
                           "add --collective ring|tree|hierarchical|auto");
      }
    }
  } else if (!flags.bandwidth_kind.empty()) {
    throw invalid_spec(
        "--bandwidth-kind",
        "applies to --collective article only; ring, tree and hierarchical take link "
        "bandwidths per direction, which nccl-tests' busbw approaches");
  }
  return o;
}

}  // namespace

cluster_topology to_topology(const refined_flags& flags, const std::string& bandwidth,
                             hardware_origin& origin) {
  // 1. The presets, else the seed's defaults: 8 GPUs per node, 600 GB/s inside, no latency,
  //    no inter-node link.
  cluster_topology t{
      .gpus_per_node = 8, .intra = {.bandwidth = article_bandwidth, .latency = {}}, .inter = {}};
  if (!flags.gpu.empty()) {
    origin.gpu = &gpu_preset_by_name(flags.gpu, "--gpu");
    t.gpus_per_node = origin.gpu->gpus_per_node.value;
    t.intra = origin.gpu->intra.link();
    apply_scale_up(t, *origin.gpu);
  }
  if (!flags.interconnect.empty()) {
    origin.interconnect = &interconnect_preset_by_name(flags.interconnect, "--interconnect");
    t.inter = origin.interconnect->link.link();
  } else if (origin.gpu != nullptr &&
             !(!flags.inter_bandwidth.empty() && !flags.inter_latency.empty())) {
    // No network named: the GPU's reference system's NIC (presets.hpp), said on the first
    // line. Unless the flags give the whole inter-node link, which leaves the preset nothing.
    origin.interconnect = &reference_interconnect(*origin.gpu);
    origin.interconnect_assumed = true;
    t.inter = origin.interconnect->link.link();
  }
  // 2. GPUs per node before the profile: a profile without a node count is placed by it.
  origin.gpus_per_node_given = !flags.gpus_per_node.empty();
  if (origin.gpus_per_node_given) {
    t.gpus_per_node = parse_count(flags.gpus_per_node, "--gpus-per-node");
  }
  // 3. The calibrated profile replaces the link it measured.
  if (!flags.interconnect_file.empty()) {
    const auto profiles = read_profile_file(flags.interconnect_file, "--interconnect-file");
    origin.profile = primary_profile(profiles, "--interconnect-file");
    origin.profile_file = flags.interconnect_file;
    origin.profile_link = scope_of(*origin.profile, t.gpus_per_node);
    t = with_profile(t, *origin.profile);
    if (origin.interconnect_assumed && origin.profile_link == profile_scope::inter_node) {
      origin.interconnect = nullptr;  // the measured link replaced the assumed one
      origin.interconnect_assumed = false;
    }
  }
  // 4. Explicit flags win; --intra-bandwidth over --bandwidth.
  origin.bandwidth_given = !bandwidth.empty();
  origin.intra_bandwidth_given = !flags.intra_bandwidth.empty();
  if (origin.intra_bandwidth_given) {
    t.intra.bandwidth = parse_bandwidth(flags.intra_bandwidth, "--intra-bandwidth");
  } else if (origin.bandwidth_given) {
    t.intra.bandwidth = parse_bandwidth(bandwidth, "--bandwidth");
  }
  origin.intra_latency_given = !flags.intra_latency.empty();
  if (origin.intra_latency_given) {
    t.intra.latency = parse_duration(flags.intra_latency, "--intra-latency");
  }
  origin.inter_bandwidth_given = !flags.inter_bandwidth.empty();
  if (origin.inter_bandwidth_given) {
    t.inter.bandwidth = parse_bandwidth(flags.inter_bandwidth, "--inter-bandwidth");
    if (t.inter.bandwidth.value() <= 0.0) {
      throw invalid_spec("--inter-bandwidth", "must be a positive finite number of bytes/s");
    }
  }
  origin.inter_latency_given = !flags.inter_latency.empty();
  if (origin.inter_latency_given) {
    t.inter.latency = parse_duration(flags.inter_latency, "--inter-latency");
  }
  return t;
}

layer_inputs to_layer_inputs(const layer_flags& layer, const refined_flags& refined) {
  layer_inputs in;
  auto& origin = in.origin;
  in.topology = to_topology(refined, layer.bandwidth, origin);
  const std::string dtype_text = !layer.dtype.empty()    ? layer.dtype
                                 : origin.gpu != nullptr ? std::string("bf16")
                                                         : std::string("fp32");
  if (!layer.model.empty() && !layer.hf_config.empty()) {
    throw invalid_spec("--hf-config", "give --model NAME or --hf-config FILE, not both");
  }
  std::optional<transformer_spec> model;
  if (!layer.model.empty()) {
    model = model_preset_named(layer.model, "--model").spec;
  } else if (!layer.hf_config.empty()) {
    model = io::load_hf_config(layer.hf_config, "--hf-config");
  }
  if (model) {
    const char* flag = layer.model.empty() ? "--hf-config" : "--model";
    require_dense_mha(*model, flag);
    // The model's layer is its own: an h of another size would be another model.
    if (!layer.hidden.empty()) {
      throw invalid_spec("--hidden", std::string("the ") + flag +
                                         " fixes h = " + std::to_string(model->hidden) +
                                         "; drop --hidden, or give --hidden without " + flag +
                                         " for the article's GPT layer at that h");
    }
    // The training sequence is not the context window a config.json gives (as in `step`).
    if (!layer.hf_config.empty() && layer.seq.empty()) {
      throw invalid_spec("--seq", hf_seq_message(model->seq));
    }
  }
  const auto dimension = [&](const std::string& text, const char* flag, std::int64_t preset,
                             std::int64_t article_default) {
    return !text.empty() ? parse_count(text, flag) : model ? preset : article_default;
  };
  in.layer = layer_spec{
      .batch = parse_count(layer.batch, "--micro-batch"),
      .seq = dimension(layer.seq, "--seq", model ? model->seq : 0, 2048),
      .hidden = dimension(layer.hidden, "--hidden", model ? model->hidden : 0, 8192),
      .element = parse_dtype(dtype_text, "--dtype"),
  };
  origin.flops_given = !layer.flops.empty();
  if (origin.flops_given) {
    in.device.peak = parse_flop_rate(layer.flops, "--flops");
  } else if (origin.gpu != nullptr) {
    try {
      origin.peak = &dense_peak(*origin.gpu, in.layer.element);
    } catch (const invalid_spec& e) {
      throw invalid_spec("--dtype", e.detail());
    }
    origin.peak_rate = std::string(*peak_rate_name(in.layer.element));
    in.device.peak = origin.peak->value;
  } else {
    in.device.peak = article_peak;
  }
  // B: --bandwidth, else the intra-node link of the profile or the GPU preset, else the seed's
  // 600 GB/s. Not --intra-bandwidth: that flag sets the alpha-beta model's link only.
  if (origin.bandwidth_given) {
    in.device.bandwidth = parse_bandwidth(layer.bandwidth, "--bandwidth");
  } else if (origin.profile && origin.profile_link == profile_scope::intra_node) {
    in.device.bandwidth = origin.profile->link.bandwidth;
  } else if (origin.gpu != nullptr) {
    in.device.bandwidth = origin.gpu->intra.bandwidth.value;
  } else {
    in.device.bandwidth = article_bandwidth;
  }
  in.options = to_tp_options(refined, origin.any());
  if (model) {
    // The model's own layer (tp_layer_options.hpp): its FLOPs, GQA and MLP, its TP rules.
    in.options.model = *model;
    if (!in.options.heads) {
      in.options.heads = model->heads;
    }
  }
  return in;
}

std::string flag_of(const std::string& field) {
  const bool bare_name =
      !field.empty() && field.front() != '-' && std::all_of(field.begin(), field.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_';
      });
  if (!bare_name) {
    return field;
  }
  if (field == "batch") {
    return "--micro-batch";  // the layer's b: its flag's name in every command
  }
  std::string flag = "--" + field;  // core fields use '_' where flags use '-'
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string error_message(const invalid_spec& e) { return flag_of(e.field()) + ": " + e.detail(); }

void require_experts_for(const transformer_spec& model, bool given, const std::string& flag) {
  if (given && !is_moe(model.moe)) {
    throw invalid_spec(flag, "applies to mixture-of-experts models; this one is dense");
  }
}

}  // namespace tpcost::cli
