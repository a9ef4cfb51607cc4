// `tpcost plan --emit megatron|bridge|torchtitan`: a layout written as another framework's
// launch config, in the form tpcost's own reader of that format (src/formats/) reads back, so
// that `tpcost step --from FILE` costs it as plan did.
#pragma once

#include <string>
#include <vector>

#include "options/step_options.hpp"
#include "tpcost/plan/planner.hpp"

namespace tpcost::cli {

enum class emit_format { megatron, bridge, torchtitan };

/// --emit's value: megatron, bridge or torchtitan; otherwise throws invalid_spec("--emit", ...).
emit_format parse_emit_format(const std::string& text);

/// What plan priced a layout with besides the request: the --dtype text and the software flags
/// (stack, overlaps, kernels), which the file must say too or refuse.
struct emit_context {
  std::string dtype;
  software_flags software;
};

/// The layout `c` of `req` as a file of `format`: a torchrun pretrain_gpt.py launch (megatron),
/// a Megatron-Bridge ConfigContainer YAML override (bridge) or a torchtitan v0.2.2 job config
/// TOML (torchtitan). Comment lines at the top say what the file does not set. Throws
/// invalid_spec("--emit", "<format>: ...") naming what the format, as tpcost reads it, cannot
/// express; nothing is written then.
std::string emit_plan(emit_format format, const plan_request& req, const plan_candidate& c,
                      const emit_context& context);

/// Whether `format` writes the recipe `p` (over `dtype`) as plan priced it: what
/// `plan --precision auto --emit FORMAT` searches.
bool emit_writes(emit_format format, const precision_options& p, const std::string& dtype);

/// emit_plan of the search's winner, `top.front()`. When the format cannot express it, the
/// error also names the best layout of `top` that it can, as --compare takes it, if any.
std::string emit_winner(emit_format format, const plan_request& req,
                        const std::vector<planned_layout>& top, const emit_context& context);

}  // namespace tpcost::cli
