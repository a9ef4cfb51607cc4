// Result structs to text: table, markdown, CSV or JSON. Rendering reads the result and
// computes no formula.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "options/hardware_origin.hpp"
#include "output/output_format.hpp"
#include "render/collective_band.hpp"
#include "report/file_check.hpp"
#include "tpcost/layer/sweep.hpp"
#include "tpcost/plan/checks.hpp"

namespace tpcost::cli {

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
