// The error band of step, plan and check (docs/error-band.md): the groups the validation shipped
// (data/error_band.json, compiled in), the band a report's inputs take, and its text and JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "options/step_options.hpp"
#include "tpcost/step/error_band.hpp"

namespace tpcost::cli {

struct step_report;

/// The JSON text of data/error_band.json as this binary was built with it.
std::string_view shipped_error_band_json();

/// The groups of a band document; throws invalid_spec naming `origin` when the document is not
/// one this binary reads (another schema, another tpcost version, a field missing).
std::vector<band_group> read_band_groups(std::string_view text, const std::string& origin);
/// The shipped groups, read once.
const std::vector<band_group>& shipped_band_groups();
/// The groups step, plan and check take their band from: those of --error-band FILE when the
/// command named one (use_error_band_file), else the shipped ones.
const std::vector<band_group>& active_band_groups();

/// Registers --error-band FILE (step, plan, check).
void add_error_band_flag(CLI::App& cmd, std::string& path);
/// Makes the band document at `path` (tpcost_error_band --write, `make validate`) the one
/// active_band_groups() returns; "" restores the shipped data. Throws invalid_spec
/// ("--error-band: FILE", ...) for a file that cannot be read or is not a band document of
/// this binary: another schema or version, malformed JSON, a field missing or of the wrong
/// type, a negative width or count, a non-finite number, no group.
void use_error_band_file(const std::string& path);

/// What the inputs of a step resemble.
band_input band_input_of(const chosen_hardware& hw, const step_inputs& in, linear_precision p,
                         std::int64_t cp, std::string_view stack);
band_choice band_of(const step_report& report);

/// "likely 30.9-35.1 s: 17 Hopper dense FP8 megatron-core runs, leave-one-out mean 2.7%, worst
/// 5.7%" (no parentheses), or with "no comparable measured runs" and the rule.
std::string band_basis_text(const band_choice& b);
/// [low, high] of a step time, and of a rate (tokens/s, MFU: inversely proportional to it).
std::pair<double, double> time_band(const band_choice& b, double t);
std::pair<double, double> rate_band(const band_choice& b, double rate);
/// The "band" object: group, rows, leave-one-out rows, mean and worst error, rule.
nlohmann::json band_basis_json(const band_choice& b);

}  // namespace tpcost::cli
