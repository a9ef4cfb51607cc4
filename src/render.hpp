// Result structs to text: table, markdown, CSV or JSON. Rendering reads the result and
// computes no formula.
#pragma once

#include <string>
#include <string_view>

#include "tpcost/sweep.hpp"

namespace tpcost::cli {

enum class output_format { table, json, csv, markdown };

/// Reads --format; `allowed` lists the names this command accepts, e.g. "table|json".
output_format parse_output_format(std::string_view text, std::string_view allowed);

/// `quiet`: the table alone, without the title, inputs and summary lines (table format only).
std::string render_sweep(const sweep_result& result, output_format format, bool quiet = false);
std::string render_explain(const tp_explanation& explanation, output_format format);

}  // namespace tpcost::cli
