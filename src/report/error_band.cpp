#include "report/error_band.hpp"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "options/flag_options.hpp"
#include "report/step_report.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/version.hpp"

namespace tpcost::cli {

std::vector<band_group> read_band_groups(std::string_view text, const std::string& origin) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw invalid_spec(origin, "not a JSON document");
  }
  if (doc.value("schema", std::string()) != "tpcost.error-band/1") {
    throw invalid_spec(origin, "not a tpcost.error-band/1 document");
  }
  const auto version = doc.value("tpcost_version", std::string());
  if (version != TPCOST_VERSION) {
    throw invalid_spec(origin, "made by tpcost " + version + ", not by this binary (" +
                                   TPCOST_VERSION + "); regenerate it with `make validate`");
  }
  const auto fraction = [&](const nlohmann::json& g, const char* key, bool signed_value) {
    const auto& v = g.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>())) {
      throw invalid_spec(origin, fmt::format("group '{}': {} is {}, not a finite number",
                                             g.value("name", std::string("?")), key, v.dump()));
    }
    if (!signed_value && v.get<double>() < 0.0) {
      throw invalid_spec(origin, fmt::format("group '{}': {} is {}, below zero",
                                             g.value("name", std::string("?")), key, v.dump()));
    }
    return v.get<double>();
  };
  const auto count = [&](const nlohmann::json& g, const char* key) {
    const auto& v = g.at(key);
    if (!v.is_number_unsigned()) {
      throw invalid_spec(origin, fmt::format("group '{}': {} is {}, not a whole number >= 0",
                                             g.value("name", std::string("?")), key, v.dump()));
    }
    return v.get<std::size_t>();
  };
  std::vector<band_group> out;
  try {
    if (!doc.at("groups").is_array() || doc.at("groups").empty()) {
      throw invalid_spec(origin, "\"groups\" is not a list of groups, or is empty");
    }
    for (const auto& g : doc.at("groups")) {
      out.push_back({.name = g.at("name"),
                     .key = {g.at("generation"), g.at("moe"), g.at("precision"), g.at("stack")},
                     .rows = count(g, "rows"),
                     .left_one_out = count(g, "left_one_out_rows"),
                     .cp_rows = count(g, "cp_rows"),
                     .ep_rows = count(g, "ep_rows"),
                     .pp_rows = count(g, "pp_rows"),
                     .centre = fraction(g, "centre", true),
                     .half_width = fraction(g, "half_width", false),
                     .mean_abs = fraction(g, "mean_abs_error", false),
                     .worst = fraction(g, "worst_abs_error", false)});
    }
    // The rows the groups came from: each residual a finite number above -1 (a time ratio).
    for (const auto& r : doc.at("rows")) {
      const auto& v = r.at("residual");
      if (!v.is_number() || !std::isfinite(v.get<double>()) || !(v.get<double>() > -1.0)) {
        throw invalid_spec(origin, fmt::format("row '{}': residual is {}, not a finite number > -1",
                                               r.value("id", std::string("?")), v.dump()));
      }
    }
  } catch (const nlohmann::json::exception&) {
    throw invalid_spec(origin, "a group or row lacks a field or has one of the wrong type");
  }
  return out;
}

const std::vector<band_group>& shipped_band_groups() {
  static const auto groups = read_band_groups(shipped_error_band_json(), "data/error_band.json");
  return groups;
}

namespace {
std::optional<std::vector<band_group>>& band_file_groups() {
  static std::optional<std::vector<band_group>> groups;
  return groups;
}
}  // namespace

const std::vector<band_group>& active_band_groups() {
  const auto& file = band_file_groups();
  return file ? *file : shipped_band_groups();
}

void add_error_band_flag(CLI::App& cmd, std::string& path) { add_flag(cmd, "--error-band", path); }

void use_error_band_file(const std::string& path) {
  if (path.empty()) {
    band_file_groups().reset();
    return;
  }
  const auto origin = "--error-band: " + path;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw invalid_spec(origin, "cannot open the file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > (std::size_t{16} << 20)) {
    throw invalid_spec(origin, "over 16 MiB; not a band document");
  }
  band_file_groups() = read_band_groups(text.str(), origin);
}

band_input band_input_of(const chosen_hardware& hw, const step_inputs& in, linear_precision p,
                         std::int64_t cp, std::string_view stack) {
  band_input out;
  out.key.generation = hw.gpu != nullptr ? std::string(band_generation(hw.gpu->arch)) : "";
  out.key.moe = is_moe(in.model.moe);
  out.key.precision = std::string(band_precision(p));
  // The Megatron-Core development rows are NeMo / Megatron-Bridge recipe runs with their flags
  // typed (tp_overlap, dp_overlap): the megatron-bridge profile is what they ran.
  out.key.stack = stack == "megatron-bridge" ? std::string("megatron-core") : std::string(stack);
  out.cp = cp > 1;
  out.ep = in.par.ep > 1;
  out.pp = in.par.pp > 1;
  // Whether the η of the recipe's own rate (the linear GEMMs) is an assumption on this GPU.
  const auto source = hw.gpu == nullptr
                          ? std::string_view()
                          : (p == linear_precision::bf16
                                 ? hw.efficiency_source
                                 : default_efficiency(hw.gpu->name, hw.gpu->arch,
                                                      linear_rate({.linear = p}), hw.kernels)
                                       .source);
  out.assumed_efficiency = hw.gpu == nullptr || source.find("assumption") != std::string_view::npos;
  return out;
}

band_choice band_of(const step_report& r) {
  return choose_band(
      band_input_of(r.hardware, r.inputs, r.inputs.precision.options.linear, r.inputs.par.cp,
                    r.stack.profile != nullptr ? r.stack.profile->name : std::string_view()),
      active_band_groups());
}

std::pair<double, double> time_band(const band_choice& b, double t) {
  return {t * b.band.low(), t * b.band.high()};
}

std::pair<double, double> rate_band(const band_choice& b, double rate) {
  return {rate / b.band.high(), rate / b.band.low()};
}

std::string band_basis_text(const band_choice& b) {
  if (b.group == nullptr) {
    return b.rule;
  }
  const auto& g = *b.group;
  const auto basis = fmt::format("{} {} runs, {} mean {:.1f}%, worst {:.1f}%", g.rows, g.name,
                                 g.left_one_out == g.rows ? "leave-one-out"
                                 : g.left_one_out == 0    ? "plain"
                                                          : "leave-one-out/plain",
                                 100.0 * g.mean_abs, 100.0 * g.worst);
  return b.rule.empty() ? basis : fmt::format("{}; {}", b.rule, basis);
}

nlohmann::json band_basis_json(const band_choice& b) {
  return {{"group", b.group != nullptr ? nlohmann::json(b.group->name) : nlohmann::json(nullptr)},
          {"rows", b.group != nullptr ? b.group->rows : 0},
          {"left_one_out_rows", b.group != nullptr ? b.group->left_one_out : 0},
          {"mean_abs_error", b.group != nullptr ? b.group->mean_abs : 0.0},
          {"worst_abs_error", b.group != nullptr ? b.group->worst : 0.0},
          {"comparable", b.comparable},
          {"relative", {b.band.low(), b.band.high()}},
          {"rule", b.rule.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.rule)}};
}

}  // namespace tpcost::cli
