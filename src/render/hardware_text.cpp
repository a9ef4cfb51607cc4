#include "render/hardware_text.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "tpcost/io/format.hpp"
#include "tpcost/io/json.hpp"

namespace tpcost::cli {

namespace {

/// The flags given explicitly (on the command line or in a config), in a fixed order.
std::vector<std::string_view> given_flags(const hardware_origin& h) {
  const std::pair<bool, std::string_view> flags[] = {
      {h.flops_given, "--flops"},
      {h.bandwidth_given, "--bandwidth"},
      {h.gpus_per_node_given, "--gpus-per-node"},
      {h.intra_bandwidth_given, "--intra-bandwidth"},
      {h.intra_latency_given, "--intra-latency"},
      {h.inter_bandwidth_given, "--inter-bandwidth"},
      {h.inter_latency_given, "--inter-latency"},
  };
  std::vector<std::string_view> out;
  for (const auto& [given, flag] : flags) {
    if (given) {
      out.push_back(flag);
    }
  }
  return out;
}

/// "my.json (all_reduce over 8 ranks on 1 node)".
std::string profile_text(const hardware_origin& h) {
  const auto& p = *h.profile;
  return fmt::format(
      "{} ({} over {} ranks{})", h.profile_file, to_string(p.collective), p.ranks,
      p.nodes ? fmt::format(" on {} node{}", *p.nodes, *p.nodes == 1 ? "" : "s") : std::string());
}

/// A value's origin ("--flops", "H100-SXM dense bf16 peak") and the document behind it.
struct value_source {
  std::string origin;
  std::string_view source;
};

value_source peak_source(const hardware_origin& h) {
  if (h.flops_given) {
    return {"--flops", {}};
  }
  if (h.peak != nullptr) {
    return {fmt::format("{}, dense {} peak", h.gpu->name, h.peak_rate), h.peak->source};
  }
  return {"the article's default", {}};
}

/// A link value's source, in the order to_topology applies them: the flag, else the profile's
/// fitted `fit` ("alpha", "beta") when the profile measured this `link`, else the preset's
/// link (when there is one), else `fallback`.
value_source link_source(const hardware_origin& h, bool flag_given, const char* flag,
                         profile_scope link, const char* fit, std::optional<value_source> preset,
                         const char* fallback) {
  if (flag_given) {
    return {flag, {}};
  }
  if (h.profile && h.profile_link == link) {
    return {fmt::format("fitted {} of {}", fit, profile_text(h)), {}};
  }
  if (preset) {
    return *preset;
  }
  return {fallback, {}};
}

/// The GPU preset's intra-node link as a source, citing its bandwidth or its latency.
std::optional<value_source> intra_preset(const hardware_origin& h, bool bandwidth) {
  if (h.gpu == nullptr) {
    return std::nullopt;
  }
  const auto& link = h.gpu->intra;
  return value_source{fmt::format("{}, {}", h.gpu->name, link.name),
                      bandwidth ? link.bandwidth.source : link.latency.source};
}

/// The interconnect preset's link as a source, citing its bandwidth or its latency.
std::optional<value_source> inter_preset(const hardware_origin& h, bool bandwidth) {
  if (h.interconnect == nullptr) {
    return std::nullopt;
  }
  const auto& link = h.interconnect->link;
  return value_source{fmt::format("{}, {}", h.interconnect->name, link.name),
                      bandwidth ? link.bandwidth.source : link.latency.source};
}

value_source intra_bandwidth_source(const hardware_origin& h) {
  if (!h.intra_bandwidth_given && h.bandwidth_given) {
    return {"--bandwidth", {}};  // --bandwidth is the intra-node link unless overridden
  }
  return link_source(h, h.intra_bandwidth_given, "--intra-bandwidth", profile_scope::intra_node,
                     "beta", intra_preset(h, true), "the article's default B");
}

value_source intra_latency_source(const hardware_origin& h) {
  return link_source(h, h.intra_latency_given, "--intra-latency", profile_scope::intra_node,
                     "alpha", intra_preset(h, false), "default: no latency");
}

value_source gpus_per_node_source(const hardware_origin& h) {
  if (h.gpus_per_node_given) {
    return {"--gpus-per-node", {}};
  }
  if (h.gpu != nullptr) {
    return {std::string(h.gpu->name), h.gpu->gpus_per_node.source};
  }
  return {"default: an 8-GPU node", {}};
}

value_source inter_bandwidth_source(const hardware_origin& h) {
  return link_source(h, h.inter_bandwidth_given, "--inter-bandwidth", profile_scope::inter_node,
                     "beta", inter_preset(h, true), "not given");
}

value_source inter_latency_source(const hardware_origin& h) {
  return link_source(h, h.inter_latency_given, "--inter-latency", profile_scope::inter_node,
                     "alpha", inter_preset(h, false), "default: no latency");
}

/// Code points in UTF-8 text: the columns it takes in a terminal ("β_i" is 3).
std::size_t columns(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
  }));
}

/// One line per value: "   P   = 989.4 TFLOP/s  H100-SXM, dense bf16 peak", then the
/// document behind it, indented, when it has one.
std::string sourced_lines(
    const std::vector<std::tuple<std::string, std::string, value_source>>& lines) {
  std::size_t symbol_width = 0;
  std::size_t value_width = 0;
  for (const auto& [symbol, value, from] : lines) {
    symbol_width = std::max(symbol_width, columns(symbol));
    value_width = std::max(value_width, columns(value));
  }
  std::string out;
  for (const auto& [symbol, value, from] : lines) {
    out += fmt::format("   {}{} = {}{}  {}\n", symbol,
                       std::string(symbol_width - columns(symbol), ' '), value,
                       std::string(value_width - columns(value), ' '), from.origin);
    if (!from.source.empty()) {
      out +=
          fmt::format("   {}     {}\n", std::string(symbol_width + value_width, ' '), from.source);
    }
  }
  return out;
}

/// The presets and profile as JSON, under inputs.hardware (only when one was used).
nlohmann::json hardware_json(const hardware_origin& h) {
  nlohmann::json given = nlohmann::json::array();
  for (const auto flag : given_flags(h)) {
    given.push_back(flag);
  }
  return {
      {"gpu", h.gpu != nullptr ? nlohmann::json(h.gpu->name) : nlohmann::json(nullptr)},
      {"interconnect",
       h.interconnect != nullptr ? nlohmann::json(h.interconnect->name) : nlohmann::json(nullptr)},
      {"peak_rate", h.peak != nullptr ? nlohmann::json(h.peak_rate) : nlohmann::json(nullptr)},
      {"interconnect_assumed",
       h.interconnect_assumed ? nlohmann::json(h.assumption()) : nlohmann::json(nullptr)},
      {"interconnect_file", h.profile ? nlohmann::json(h.profile_file) : nlohmann::json(nullptr)},
      {"interconnect_file_link",
       h.profile ? nlohmann::json(to_string(h.profile_link)) : nlohmann::json(nullptr)},
      {"given", given},
  };
}

}  // namespace

/// The line under a sweep's title: the presets, the profile, and the flags given explicitly.
std::string hardware_line(const hardware_origin& h) {
  std::string out;
  if (h.gpu != nullptr) {
    out += fmt::format(
        "{} ({}, {} GPUs per node{})", h.gpu->name, h.gpu->intra.name, h.gpu->gpus_per_node.value,
        h.peak != nullptr ? fmt::format("; P = its dense {} peak", h.peak_rate) : std::string());
  }
  if (h.interconnect != nullptr) {
    out += fmt::format("{}{} ({})", out.empty() ? "" : " + ", h.interconnect->name,
                       h.interconnect->link.name);
  }
  if (h.profile) {
    out += fmt::format("{}{}, calibrated: the {} link", out.empty() ? "" : " + ", profile_text(h),
                       to_string(h.profile_link));
  }
  const auto given = given_flags(h);
  if (!given.empty()) {
    out += fmt::format("; given explicitly: {}", fmt::join(given, ", "));
  }
  if (h.gpu != nullptr || h.interconnect != nullptr) {
    out += "; sources: 'tpcost hardware show NAME'";
  }
  return out;
}

/// The hardware section of `explain`: each value the model read, where it came from and the
/// document behind it. `topology` adds the links and the node size (the refined model).
std::string hardware_section(const hardware_origin& h, const device_spec& device,
                             const cluster_topology* topology) {
  if (!h.any()) {
    return {};
  }
  std::vector<std::tuple<std::string, std::string, value_source>> lines;
  lines.emplace_back("P", io::to_string(device.peak), peak_source(h));
  if (topology == nullptr) {
    lines.emplace_back(
        "B", io::to_string(device.bandwidth),
        h.bandwidth_given ? value_source{"--bandwidth", {}} : intra_bandwidth_source(h));
  } else {
    lines.emplace_back("β_i", io::to_string(topology->intra.bandwidth), intra_bandwidth_source(h));
    lines.emplace_back("α_i", duration(topology->intra.latency), intra_latency_source(h));
    lines.emplace_back("g", fmt::format("{} GPUs per node", topology->gpus_per_node),
                       gpus_per_node_source(h));
    lines.emplace_back("β_e",
                       topology->inter.bandwidth.value() > 0.0
                           ? io::to_string(topology->inter.bandwidth) + " per GPU"
                           : std::string("-"),
                       inter_bandwidth_source(h));
    lines.emplace_back("α_e", duration(topology->inter.latency), inter_latency_source(h));
  }
  return fmt::format("Hardware: {}\n{}", hardware_line(h), sourced_lines(lines));
}

/// A result's JSON with the presets and profile behind it under inputs.hardware (when any).
nlohmann::json with_hardware(nlohmann::json j, const hardware_origin& origin) {
  if (origin.any()) {
    j["inputs"]["hardware"] = hardware_json(origin);
  }
  return j;
}

/// The report's first line when the network was assumed (hardware_origin.hpp), else "".
std::string assumption_line(const hardware_origin& h) {
  return h.interconnect_assumed ? h.assumption() + "\n" : std::string();
}

std::string hardware_summary(const hardware_origin& origin) {
  std::string out;
  if (origin.gpu != nullptr) {
    out += std::string(origin.gpu->name);
  }
  if (origin.interconnect != nullptr) {
    out += fmt::format("{}{}", out.empty() ? "" : " + ", origin.interconnect->name);
  }
  if (origin.profile) {
    out += fmt::format("{}{} ({})", out.empty() ? "" : " + ", origin.profile_file,
                       to_string(origin.profile_link));
  }
  return out;
}

std::string duration(seconds v) { return v.value() == 0.0 ? "0" : io::to_string(v); }

std::string link_text(const link_spec& link) {
  return fmt::format("{}, α = {}", io::to_string(link.bandwidth), duration(link.latency));
}

std::string inter_link_text(const cluster_topology& t) {
  if (!(t.inter.bandwidth.value() > 0.0)) {
    return "not given";
  }
  return t.nics_per_node > 0
             ? fmt::format("{} per NIC, {} NICs per node", link_text(t.inter), t.nics_per_node)
             : link_text(t.inter) + " per NIC, one NIC per GPU";
}

}  // namespace tpcost::cli
