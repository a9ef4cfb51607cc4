// The interconnect profile file that `tpcost calibrate --out` writes and
// `--interconnect-file` reads: JSON, keys carrying their unit, versioned by "schema".
//
//   {"schema": "tpcost.interconnect-profile/1", "tool": {...},
//    "profiles": [{"collective": "all_reduce", "ranks": 8, "nodes": 1,
//                  "model": "...", "alpha_s": 1.3e-06, "beta_bytes_per_s": 4.2e+11,
//                  "bandwidth_convention": "per-direction link bandwidth (nccl-tests busbw at
//                  large M)", "fit": {...}, "residuals": {..., "leave_one_size_out":
//                  [{"size_bytes", "residual"}, ...]}, "segments": [...],
//                  "sources": [...]}]}
//
// Required in a profile: collective, ranks, alpha_s, beta_bytes_per_s and
// bandwidth_convention (which must be the text above: the loader will not guess whether a
// hand-written β is a per-direction or a bidirectional figure). Everything else is optional,
// checked when present. Unknown keys are errors (a typo such as "alpha_us" must not pass
// silently). Errors name the JSON pointer: "/profiles/0/alpha_s: ...".
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "tpcost/io/json_brief.hpp"

#include "tpcost/base/error.hpp"
#include "tpcost/comm/calibration.hpp"
#include "tpcost/version.hpp"

namespace tpcost {

/// The "schema" of the profile file.
inline constexpr std::string_view profile_schema = "tpcost.interconnect-profile/1";

/// The model text stored beside α and β, for a reader of the file.
inline std::string profile_model_text(collective_op kind) {
  return kind == collective_op::all_reduce
             ? "ring all_reduce: t(M) = 2(n-1)*alpha_s + 2(n-1)/n * M/beta_bytes_per_s"
             : "ring " + std::string(nccl_tests_name(kind)) +
                   ": t(M) = (n-1)*alpha_s + (n-1)/n * M/beta_bytes_per_s";
}

namespace detail::profile_json {

using json = nlohmann::json;

inline json stats_json(const residual_stats& s) {
  return {{"median_abs_rel_busbw_error", s.median},
          {"worst_abs_rel_busbw_error", s.worst},
          {"worst_at_size_bytes", s.worst_at.value()}};
}

}  // namespace detail::profile_json

/// One profile as the file stores it.
inline nlohmann::json profile_to_json(const interconnect_profile& p) {
  using detail::profile_json::stats_json;
  nlohmann::json segments = nlohmann::json::array();
  for (const auto& s : p.segments) {
    segments.push_back({{"min_size_bytes", s.min_size.value()},
                        {"max_size_bytes", s.max_size.value()},
                        {"alpha_s", s.link.latency.value()},
                        {"beta_bytes_per_s", s.link.bandwidth.value()},
                        {"points", s.points},
                        {"residuals", stats_json(s.error)}});
  }
  nlohmann::json j = {
      {"collective", nccl_tests_name(p.collective)},
      {"ranks", p.ranks},
      {"nodes", nullptr},
      {"model", profile_model_text(p.collective)},
      {"alpha_s", p.link.latency.value()},
      {"beta_bytes_per_s", p.link.bandwidth.value()},
      {"bandwidth_convention", bandwidth_convention},
      {"fit",
       {{"min_size_bytes", p.min_size.value()},
        {"max_size_bytes", p.max_size.value()},
        {"points", p.points},
        {"placement", to_string(p.placements)},
        {"weighting", "least squares of relative time residuals (t_model - t)/t"}}},
      {"residuals", stats_json(p.error)},
      {"segments", segments},
      {"sources", p.sources},
  };
  if (p.nodes) {
    j["nodes"] = *p.nodes;
  }
  j["measured_link"] = measured_link_text(p);
  if (!p.segments.empty()) {
    j["residuals"]["piecewise"] = stats_json(p.piecewise_error);
  }
  nlohmann::json points = nlohmann::json::array();
  for (const auto& r : p.residuals) {
    points.push_back({{"size_bytes", r.size.value()}, {"residual", r.residual}});
  }
  j["residuals"]["leave_one_size_out"] = points;
  return j;
}

/// The whole profile file.
inline nlohmann::json profiles_document(std::span<const interconnect_profile> profiles) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& p : profiles) {
    list.push_back(profile_to_json(p));
  }
  return {{"schema", profile_schema},
          {"tool", {{"name", "tpcost"}, {"version", TPCOST_VERSION}}},
          {"profiles", list}};
}

namespace detail::profile_json {

[[noreturn]] inline void fail(const std::string& pointer, const std::string& detail) {
  throw invalid_spec(pointer, detail);
}

inline void only_keys(const json& object, const std::string& pointer,
                      std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const auto a : allowed) {
      known = known || key == a;
    }
    if (!known) {
      std::string list;
      for (const auto a : allowed) {
        if (!list.empty()) {
          list += ", ";
        }
        list += std::string(a);
      }
      fail(pointer + "/" + key, "unknown key; expected one of " + list);
    }
  }
}

inline const json& object_at(const json& j, const std::string& pointer) {
  if (!j.is_object()) {
    fail(pointer.empty() ? "/" : pointer, "is " + json_brief(j) + ", expected an object");
  }
  return j;
}

inline const json& required(const json& object, const char* key, const std::string& pointer) {
  const auto it = object.find(key);
  if (it == object.end()) {
    fail(pointer.empty() ? "/" : pointer, std::string("has no \"") + key + "\" (required)");
  }
  return *it;
}

/// A finite number >= `min` (strictly greater when `strict`).
inline double number(const json& j, const std::string& pointer, double min, bool strict,
                     std::string_view what) {
  if (!j.is_number() || !std::isfinite(j.get<double>())) {
    fail(pointer, "is " + json_brief(j) + ", expected " + std::string(what));
  }
  const double v = j.get<double>();
  if (strict ? !(v > min) : !(v >= min)) {
    fail(pointer, "is " + json_brief(j) + ", expected " + std::string(what));
  }
  return v;
}

inline std::int64_t whole(const json& j, const std::string& pointer, std::int64_t min,
                          std::string_view what) {
  if (!j.is_number_integer() || j.get<std::int64_t>() < min) {
    fail(pointer, "is " + json_brief(j) + ", expected " + std::string(what));
  }
  return j.get<std::int64_t>();
}

inline residual_stats read_stats(const json& j, const std::string& pointer, bool allow_piecewise) {
  object_at(j, pointer);
  if (allow_piecewise) {
    only_keys(j, pointer,
              {"median_abs_rel_busbw_error", "worst_abs_rel_busbw_error", "worst_at_size_bytes",
               "piecewise", "leave_one_size_out"});
  } else {
    only_keys(j, pointer,
              {"median_abs_rel_busbw_error", "worst_abs_rel_busbw_error", "worst_at_size_bytes"});
  }
  residual_stats s;
  if (j.contains("median_abs_rel_busbw_error")) {
    s.median = number(j["median_abs_rel_busbw_error"], pointer + "/median_abs_rel_busbw_error", 0.0,
                      false, "a fraction >= 0");
  }
  if (j.contains("worst_abs_rel_busbw_error")) {
    s.worst = number(j["worst_abs_rel_busbw_error"], pointer + "/worst_abs_rel_busbw_error", 0.0,
                     false, "a fraction >= 0");
  }
  if (j.contains("worst_at_size_bytes")) {
    s.worst_at = bytes(number(j["worst_at_size_bytes"], pointer + "/worst_at_size_bytes", 0.0,
                              false, "a size in bytes >= 0"));
  }
  return s;
}

inline link_spec read_link(const json& j, const std::string& pointer) {
  const double alpha = number(required(j, "alpha_s", pointer), pointer + "/alpha_s", 0.0, false,
                              "a latency in seconds >= 0 (e.g. 3.4e-06)");
  const double beta =
      number(required(j, "beta_bytes_per_s", pointer), pointer + "/beta_bytes_per_s", 0.0, true,
             "a bandwidth in bytes/s > 0 (e.g. 4.5e+11)");
  return {bytes_per_second(beta), seconds(alpha)};
}

inline interconnect_profile read_profile(const json& j, const std::string& pointer) {
  object_at(j, pointer);
  only_keys(
      j, pointer,
      {"collective", "ranks", "nodes", "measured_link", "model", "alpha_s", "beta_bytes_per_s",
       "bandwidth_convention", "fit", "residuals", "segments", "sources"});
  interconnect_profile p;
  const auto& collective = required(j, "collective", pointer);
  const auto kind =
      collective.is_string() ? collective_from_name(collective.get<std::string>()) : std::nullopt;
  if (!kind) {
    fail(pointer + "/collective", "is " + json_brief(collective) +
                                      ", expected \"all_reduce\", \"all_gather\" or "
                                      "\"reduce_scatter\"");
  }
  p.collective = *kind;
  p.ranks = whole(required(j, "ranks", pointer), pointer + "/ranks", 2, "a whole number >= 2");
  if (const auto nodes = j.find("nodes"); nodes != j.end() && !nodes->is_null()) {
    p.nodes = whole(*nodes, pointer + "/nodes", 1, "a whole number >= 1 or null");
    p.nodes_from = "the profile's nodes";
  }
  if (const auto m = j.find("measured_link"); m != j.end() && !m->is_string()) {
    fail(pointer + "/measured_link", "is " + m->dump() + ", expected a text");
  }
  if (const auto model = j.find("model"); model != j.end() && !model->is_string()) {
    fail(pointer + "/model", "is " + json_brief(*model) + ", expected a text");
  }
  const auto& convention = required(j, "bandwidth_convention", pointer);
  if (!convention.is_string() || convention.get<std::string>() != bandwidth_convention) {
    fail(pointer + "/bandwidth_convention",
         "is " + json_brief(convention) + ", expected \"" + std::string(bandwidth_convention) +
             "\" (tpcost reads beta only as a per-direction bandwidth)");
  }
  p.link = read_link(j, pointer);
  if (const auto fit = j.find("fit"); fit != j.end()) {
    const auto fp = pointer + "/fit";
    object_at(*fit, fp);
    only_keys(*fit, fp, {"min_size_bytes", "max_size_bytes", "points", "placement", "weighting"});
    if (fit->contains("min_size_bytes")) {
      p.min_size = bytes(number((*fit)["min_size_bytes"], fp + "/min_size_bytes", 0.0, false,
                                "a size in bytes >= 0"));
    }
    if (fit->contains("max_size_bytes")) {
      p.max_size = bytes(number((*fit)["max_size_bytes"], fp + "/max_size_bytes", 0.0, false,
                                "a size in bytes >= 0"));
    }
    if (p.max_size < p.min_size) {
      fail(fp + "/max_size_bytes", "is smaller than min_size_bytes");
    }
    if (fit->contains("points")) {
      p.points = static_cast<std::size_t>(
          whole((*fit)["points"], fp + "/points", 0, "a whole number >= 0"));
    }
    if (fit->contains("placement")) {
      const auto& where = (*fit)["placement"];
      const auto text = where.is_string() ? where.get<std::string>() : std::string();
      if (const auto filter = value_named(placement_filter_names, text)) {
        p.placements = *filter;
      } else {
        fail(fp + "/placement",
             "is " + json_brief(where) + ", expected \"both\", \"in-place\" or \"out-of-place\"");
      }
    }
    if (const auto w = fit->find("weighting"); w != fit->end() && !w->is_string()) {
      fail(fp + "/weighting", "is " + json_brief(*w) + ", expected a text");
    }
  }
  if (const auto residuals = j.find("residuals"); residuals != j.end()) {
    p.error = read_stats(*residuals, pointer + "/residuals", true);
    if (residuals->contains("piecewise")) {
      p.piecewise_error =
          read_stats((*residuals)["piecewise"], pointer + "/residuals/piecewise", false);
    }
    if (const auto loo = residuals->find("leave_one_size_out"); loo != residuals->end()) {
      const auto lp = pointer + "/residuals/leave_one_size_out";
      if (!loo->is_array()) {
        fail(lp, "is " + json_brief(*loo) + ", expected an array of {size_bytes, residual}");
      }
      for (std::size_t i = 0; i < loo->size(); ++i) {
        const auto ip = lp + "/" + std::to_string(i);
        const auto& r = (*loo)[i];
        object_at(r, ip);
        only_keys(r, ip, {"size_bytes", "residual"});
        const double size = number(required(r, "size_bytes", ip), ip + "/size_bytes", 0.0, true,
                                   "a size in bytes > 0");
        // A residual t/t_line - 1 is above -1 (a time is positive).
        const double residual = number(required(r, "residual", ip), ip + "/residual", -1.0, true,
                                       "a finite residual > -1 (measured / fitted - 1)");
        p.residuals.push_back({bytes(size), residual});
      }
    }
  }
  if (const auto segments = j.find("segments"); segments != j.end()) {
    if (!segments->is_array()) {
      fail(pointer + "/segments", "is " + json_brief(*segments) + ", expected an array");
    }
    for (std::size_t i = 0; i < segments->size(); ++i) {
      const auto sp = pointer + "/segments/" + std::to_string(i);
      const auto& s = (*segments)[i];
      object_at(s, sp);
      only_keys(s, sp,
                {"min_size_bytes", "max_size_bytes", "alpha_s", "beta_bytes_per_s", "points",
                 "residuals"});
      fit_segment seg;
      seg.min_size = bytes(number(required(s, "min_size_bytes", sp), sp + "/min_size_bytes", 0.0,
                                  false, "a size in bytes >= 0"));
      seg.max_size = bytes(number(required(s, "max_size_bytes", sp), sp + "/max_size_bytes", 0.0,
                                  false, "a size in bytes >= 0"));
      if (seg.max_size < seg.min_size) {
        fail(sp + "/max_size_bytes", "is smaller than min_size_bytes");
      }
      if (i > 0 && !(p.segments.back().max_size < seg.min_size)) {
        fail(sp + "/min_size_bytes", "overlaps the previous segment; segments go up in size");
      }
      seg.link = read_link(s, sp);
      if (s.contains("points")) {
        seg.points =
            static_cast<std::size_t>(whole(s["points"], sp + "/points", 0, "a whole number >= 0"));
      }
      if (s.contains("residuals")) {
        seg.error = read_stats(s["residuals"], sp + "/residuals", false);
      }
      p.segments.push_back(seg);
    }
  }
  if (const auto sources = j.find("sources"); sources != j.end()) {
    if (!sources->is_array()) {
      fail(pointer + "/sources",
           "is " + json_brief(*sources) + ", expected an array of file names");
    }
    for (std::size_t i = 0; i < sources->size(); ++i) {
      if (!(*sources)[i].is_string()) {
        fail(pointer + "/sources/" + std::to_string(i),
             "is " + json_brief((*sources)[i]) + ", expected a file name");
      }
      p.sources.push_back((*sources)[i].get<std::string>());
    }
  }
  return p;
}

}  // namespace detail::profile_json

/// Reads a profile document. Throws invalid_spec(JSON pointer, detail), e.g.
/// ("/profiles/0/beta_bytes_per_s", "is -1, expected a bandwidth in bytes/s > 0 ...").
inline std::vector<interconnect_profile> profiles_from_json(const nlohmann::json& doc) {
  using namespace detail::profile_json;
  object_at(doc, "");
  only_keys(doc, "", {"schema", "tool", "profiles"});
  const auto& schema = required(doc, "schema", "");
  if (!schema.is_string() || schema.get<std::string>() != profile_schema) {
    fail("/schema",
         "is " + json_brief(schema) + ", expected \"" + std::string(profile_schema) + "\"");
  }
  const auto& list = required(doc, "profiles", "");
  if (!list.is_array() || list.empty()) {
    fail("/profiles", "is " + json_brief(list) + ", expected a non-empty array of profiles");
  }
  std::vector<interconnect_profile> profiles;
  for (std::size_t i = 0; i < list.size(); ++i) {
    profiles.push_back(read_profile(list[i], "/profiles/" + std::to_string(i)));
  }
  return profiles;
}

/// The largest profile file read; real ones are a few kilobytes.
inline constexpr std::uintmax_t max_profile_bytes = std::uintmax_t{1} << 20;

/// Reads the text of a profile file; `path` names it in errors, as `read_profile_file` says.
inline std::vector<interconnect_profile> parse_profiles(std::string_view text,
                                                        const std::string& path,
                                                        const std::string& field) {
  const auto doc = parse_untrusted_json(text, field, path + ": ");
  try {
    return profiles_from_json(doc);
  } catch (const invalid_spec& e) {
    throw invalid_spec(field, path + ": " + e.field() + ": " + e.detail());
  }
}

/// Reads a profile file. Every error is invalid_spec(field, "PATH: /pointer: detail") or
/// (field, "PATH: ...") for a file that cannot be read or is not JSON; `field` is the flag
/// that named the file, e.g. "--interconnect-file".
inline std::vector<interconnect_profile> read_profile_file(const std::string& path,
                                                           const std::string& field) {
  // A profile is a few kilobytes; refuse a device or a directory (reading /dev/zero would never
  // end) and anything implausibly large before reading it.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw invalid_spec(field, path + ": not a regular file");
  }
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > max_profile_bytes) {
    throw invalid_spec(field, path + ": " + std::to_string(size) + " bytes; a profile is at most " +
                                  std::to_string(max_profile_bytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw invalid_spec(field, path + ": cannot open the file");
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_profiles(text.str(), path, field);
}

}  // namespace tpcost
