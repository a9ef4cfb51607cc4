// Hardware presets as JSON: every number as {"value": SI number, "source": text}, keys
// carrying their unit. `tpcost hardware list|show --format json` prints these.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tpcost/hardware/presets.hpp"

namespace tpcost {

namespace detail::presets_json {

template <class Q>
nlohmann::json sourced_json(const sourced<Q>& s) {
  return {{"value", s.value.value()}, {"source", std::string(s.source)}};
}

inline nlohmann::json sourced_json(const sourced<std::int64_t>& s) {
  return {{"value", s.value}, {"source", std::string(s.source)}};
}

inline nlohmann::json link_json(const link_preset& l) {
  return {{"name", std::string(l.name)},
          {"bandwidth_bytes_per_s", sourced_json(l.bandwidth)},
          {"latency_s", sourced_json(l.latency)},
          {"bandwidth_convention", "per direction"}};
}

template <class Preset>
nlohmann::json aliases_json(const Preset& p) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto alias : p.aliases) {
    if (!alias.empty()) {
      list.push_back(std::string(alias));
    }
  }
  return list;
}

}  // namespace detail::presets_json

inline void to_json(nlohmann::json& j, const gpu_preset& p) {
  using namespace detail::presets_json;
  j = nlohmann::json{
      {"name", std::string(p.name)},
      {"kind", "gpu"},
      {"description", std::string(p.description)},
      {"aliases", aliases_json(p)},
      {"reference", std::string(p.reference)},
      {"peak_flops_per_s",
       {{"convention", "dense (no structured sparsity); 0 = not supported"},
        {"fp64", sourced_json(p.peak.fp64)},
        {"fp32", sourced_json(p.peak.fp32)},
        {"tf32", sourced_json(p.peak.tf32)},
        {"bf16", sourced_json(p.peak.bf16)},
        {"fp16", sourced_json(p.peak.fp16)},
        {"fp8", sourced_json(p.peak.fp8)},
        {"fp4", sourced_json(p.peak.fp4)}}},
      {"architecture", std::string(to_string(p.arch))},
      {"memory_bytes", sourced_json(p.memory)},
      {"memory_bandwidth_bytes_per_s", sourced_json(p.memory_bandwidth)},
      {"gpus_per_node", sourced_json(p.gpus_per_node)},
      {"intra_node_link", link_json(p.intra)},
  };
}

inline void to_json(nlohmann::json& j, const interconnect_preset& p) {
  using namespace detail::presets_json;
  j = nlohmann::json{
      {"name", std::string(p.name)},
      {"kind", "interconnect"},
      {"description", std::string(p.description)},
      {"aliases", aliases_json(p)},
      {"reference", std::string(p.reference)},
      {"link", link_json(p.link)},
  };
}

}  // namespace tpcost
