// Result structs to text: table, markdown, CSV or JSON. Rendering reads the result and
// computes no formula.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "collective_band.hpp"
#include "hardware_origin.hpp"
#include "tpcost/layer/sweep.hpp"
#include "tpcost/plan/checks.hpp"

namespace tpcost::cli {

enum class output_format { table, json, csv, markdown, junit, sarif };

/// The outcome of `check` for one file: its rules, or the error that made it invalid.
struct file_check {
  std::string source;
  std::string name;
  std::int64_t tp = 0;
  std::string model;     ///< "the seed's model" or "refined model, collective auto"
  std::string hardware;  ///< the presets and profile used, e.g. "A100-SXM4-80GB + IB-HDR"
  std::string step;      ///< the step the step rules read, e.g. "GPT-3 175B, t=8 p=16 d=8, ..."
  std::vector<rule_outcome> outcomes;
  std::string error;         ///< non-empty: the file was invalid and no rule ran
  std::size_t line = 0;      ///< the line of the layout in the file, for SARIF; 0 when unknown
  std::string assumption;    ///< "assumed: --interconnect ..." when the file named no network
  std::string band{};        ///< the step's error band and its basis (error_band.hpp), if a step
  bool pessimistic = false;  ///< the step rules were judged at the band's pessimistic edge
  /// The step rules that pass at the central value only ("max_step_time: 21.09 s central,
  /// 24.01 s at the band's edge").
  std::vector<std::string> central_only{};
};

/// Reads --format; `allowed` lists the names this command accepts, e.g. "table|json".
output_format parse_output_format(std::string_view text, std::string_view allowed);

/// `quiet`: the table alone, without the title, inputs and summary lines (table format only).
/// `origin`: the presets and profile behind the hardware numbers, printed beside them.
std::string render_sweep(const sweep_result& result, output_format format, bool quiet = false,
                         const hardware_origin& origin = {});
std::string render_explain(const tp_explanation& explanation, output_format format,
                           const hardware_origin& origin = {});
std::string render_check(const std::vector<file_check>& files, output_format format);
/// GitHub Actions workflow commands (::error file=...::) for each failed rule or invalid file.
std::string render_annotations(const std::vector<file_check>& files);
/// 2 if any file was invalid, else 1 if any rule failed, else 0.
int check_exit_code(const std::vector<file_check>& files);
std::string render_sweep(const refined_sweep_result& result, output_format format,
                         bool quiet = false, const hardware_origin& origin = {});
std::string render_explain(const refined_explanation& explanation, output_format format,
                           const hardware_origin& origin = {});
std::string render_collective(const collective_comparison& comparison, output_format format,
                              const hardware_origin& origin = {}, const collective_band& band = {});
/// "H100-SXM + IB-NDR", "H100-SXM + profile.json (intra-node)"; empty without presets.
std::string hardware_summary(const hardware_origin& origin);

}  // namespace tpcost::cli
