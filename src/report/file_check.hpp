// What `check` found for one file, as its renderers (text, JSON, JUnit, SARIF, annotations)
// receive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tpcost/plan/checks.hpp"

namespace tpcost::cli {

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

}  // namespace tpcost::cli
