#include "options/value_names.hpp"

#include <string>
#include <unordered_map>
#include <utility>

#include "formats/config.hpp"

namespace tpcost::cli {

namespace {

/// The value's name for a key of `kind` ("{a,b}" for choices, which the completions offer).
std::string value_name(const config_key& key) {
  switch (key.kind) {
    case value_kind::count:
    case value_kind::node_size:
    case value_kind::degrees:  // one degree but in sweep, whose --tp says LIST itself
      return "N";
    case value_kind::bandwidth:
      return "BANDWIDTH";
    case value_kind::flop_rate:
      return "FLOP/S";
    case value_kind::duration:
      return "TIME";
    case value_kind::byte_size:
      return "SIZE";
    case value_kind::dtype:
      return "DTYPE";
    case value_kind::open_fraction:
    case value_kind::share:
    case value_kind::fraction:
      return "FRACTION";
    case value_kind::positive:
      return "X";
    case value_kind::zero_stage:
      return "{0,1,2,3}";
    case value_kind::choice: {
      std::string out = "{";
      for (const char c : key.choices) {
        out += c == '|' ? ',' : c;
      }
      return out + "}";
    }
    case value_kind::gpu_preset:
      return "GPU";
    case value_kind::interconnect_preset:
      return "NETWORK";
    case value_kind::profile_path:
    case value_kind::hf_config_path:
      return "FILE";
    case value_kind::boolean:
    case value_kind::text:
      break;
  }
  return "TEXT";
}

void name_values(CLI::App& app, const std::unordered_map<std::string, std::string>& names) {
  for (auto* option : app.get_options()) {
    if (option->get_type_name() != "TEXT") {
      continue;
    }
    for (const auto& name : option->get_lnames()) {
      if (const auto it = names.find("--" + name); it != names.end()) {
        option->type_name(it->second);
        break;
      }
    }
  }
  for (auto* sub : app.get_subcommands({})) {
    name_values(*sub, names);
  }
}

}  // namespace

void name_option_values(CLI::App& app) {
  std::unordered_map<std::string, std::string> names;
  for (const auto& key : config_keys()) {
    if (!key.flag.empty()) {
      names.emplace(key.flag, value_name(key));
    }
  }
  // Flags of one command that no config key sets.
  static constexpr std::pair<const char*, const char*> others[] = {
      {"--size", "SIZE"},
      {"--min-size", "SIZE"},
      {"--max-size", "SIZE"},
      {"--ranks", "N"},
      {"--ranks-per-node", "N"},
      {"--nodes", "N"},
      {"--nics-per-node", "N"},
      {"--threads", "N"},
      {"--top", "N"},
      {"--max-tp", "N"},
      {"--max-cp", "N"},
      {"--max-global-batch", "N"},
      {"--segments", "N"},
      {"--out", "FILE"},
      {"--error-band", "FILE"},
      {"--config", "FILE"},
      {"--from", "FILE"},
      {"--set", "NAME=VALUE"},
      {"--rule", "NAME=VALUE"},
      {"--hierarchical-cp-sizes", "A,B"},
      {"--pp-layout", "LAYOUT"},
      {"--recompute-modules", "LIST"},
      {"--compare", "LAYOUT"},
      {"--micro-batch", "N"},
  };
  for (const auto& [flag, name] : others) {
    if (auto& known = names[flag]; known.empty() || known == "TEXT") {
      known = name;
    }
  }
  name_values(app, names);
}

}  // namespace tpcost::cli
