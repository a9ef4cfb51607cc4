// Rules a training config must pass before it reaches the cluster (`tpcost check`).
// Each rule compares one metric the core computes with a limit; the outcome says both. The
// per-layer rules read the seed's or the refined per-layer model at the config's TP degree; the
// step rules read the whole step (step.hpp) of the same config.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tpcost/layer/sweep.hpp"
#include "tpcost/step/step.hpp"

namespace tpcost {

enum class rule_kind {
  min_efficiency,           ///< E(t) >= limit
  max_ratio,                ///< R(t) <= limit
  tp_within_half_critical,  ///< t <= t*/2, the seed's guidance for E around 70%
  tp_within_node,           ///< t <= GPUs per node: TP stays on the fast intra-node link
  min_utilisation,          ///< μ >= limit
  // Whole-step rules: they read evaluate_step (step.hpp) on the config's full layout.
  min_mfu,              ///< the step's model FLOPs utilisation >= limit
  min_memory_headroom,  ///< capacity − the fullest stage's memory >= limit (bytes)
  max_step_time,        ///< the step time <= limit (seconds)
  /// The fullest stage's memory <= the GPU's capacity (bytes). Not a key of "checks": `check`
  /// judges it on every file that describes a whole step, whatever rules the file names, since a
  /// layout that does not fit cannot pass any other rule.
  fits_memory,
};

/// True for the rules that need the whole step (a model, N GPUs, a global batch), not one layer.
constexpr bool reads_step(rule_kind kind) {
  return kind == rule_kind::min_mfu || kind == rule_kind::min_memory_headroom ||
         kind == rule_kind::max_step_time || kind == rule_kind::fits_memory;
}

/// One rule with its limit (boolean rules ignore `limit`).
struct rule {
  rule_kind kind;
  double limit = 0.0;
};

/// What a rule measured, against what, and whether it passed.
struct rule_outcome {
  rule_kind kind;
  double measured = 0.0;
  double limit = 0.0;
  bool passed = false;
  std::int64_t stage = -1;  ///< the memory rules: the fullest pipeline stage; -1 otherwise
};

/// The rule's name as written in a config's "checks" section.
constexpr std::string_view rule_name(rule_kind kind) {
  switch (kind) {
    case rule_kind::min_efficiency:
      return "min_efficiency";
    case rule_kind::max_ratio:
      return "max_ratio";
    case rule_kind::tp_within_half_critical:
      return "tp_within_half_critical";
    case rule_kind::tp_within_node:
      return "tp_within_node";
    case rule_kind::min_utilisation:
      return "min_utilisation";
    case rule_kind::min_mfu:
      return "min_mfu";
    case rule_kind::min_memory_headroom:
      return "min_memory_headroom";
    case rule_kind::max_step_time:
      return "max_step_time";
    case rule_kind::fits_memory:
      return "fits_memory";
  }
  return "?";
}

/// True for rules whose pass condition is `measured <= limit`, false for `>=`.
constexpr bool is_upper_bound(rule_kind kind) {
  return kind == rule_kind::max_ratio || kind == rule_kind::tp_within_half_critical ||
         kind == rule_kind::tp_within_node || kind == rule_kind::max_step_time ||
         kind == rule_kind::fits_memory;
}

/// The whole-step metrics the step rules read, in SI units.
struct step_metrics {
  double mfu = 0.0;
  bytes memory_headroom{};  ///< negative when the layout does not fit
  seconds step_time{};
  bytes peak_memory{};          ///< the fullest stage's memory per GPU
  bytes memory_capacity{};      ///< the GPU's HBM
  std::int64_t peak_stage = 0;  ///< the fullest pipeline stage
};

/// The step rules' metrics of an evaluated step.
inline step_metrics step_metrics_of(const step_result& step) {
  return {.mfu = step.mfu,
          .memory_headroom = step.memory.headroom(),
          .step_time = step.step_time,
          .peak_memory = step.memory.peak().total(),
          .memory_capacity = step.memory.capacity,
          .peak_stage = step.memory.peak().stage};
}

/// The metrics the rules read, at the config's TP degree, from either model.
struct rule_metrics {
  std::int64_t tp = 1;
  double efficiency = 0.0;   ///< E: 1/(1+R) (seed), T_calc/T (refined)
  double ratio = 0.0;        ///< R = T_comm/T_calc
  double critical_tp = 0.0;  ///< t* = A/C; +inf when the degree communicates nothing
  double utilisation = 0.0;  ///< μ of this one layer
  std::int64_t gpus_per_node = 8;
  std::optional<step_metrics> step;  ///< set when the config describes a whole step
};

/// The seed's metrics from a one-degree sweep: t* = A/C, μ = 1/(1+R).
inline rule_metrics metrics_at(const sweep_result& at_tp, std::int64_t gpus_per_node) {
  if (at_tp.rows.size() != 1) {
    throw invalid_spec(
        "tp", "a check needs exactly one TP degree, got " + std::to_string(at_tp.rows.size()));
  }
  const auto& row = at_tp.rows.front();
  const std::array<time_split, 1> parts{{{row.compute, row.comm}}};
  return {.tp = row.tp,
          .efficiency = row.efficiency,
          .ratio = row.ratio,
          .critical_tp = at_tp.critical_tp,
          .utilisation = utilisation(parts),
          .gpus_per_node = gpus_per_node,
          .step = std::nullopt};
}

/// The refined model's metrics from a one-degree sweep. T_comm now depends on t (ring factors,
/// latency, the node boundary), so t* is the seed's A/C with C = T_comm at this degree:
/// t* = A/T_comm(t) = t/R(t), and the rule t <= t*/2 reads R(t) <= 1/2 as under the seed. E and
/// μ are T_calc/T with the overlap; GPUs per node are the topology's.
inline rule_metrics metrics_at(const refined_sweep_result& at_tp) {
  if (at_tp.rows.size() != 1) {
    throw invalid_spec(
        "tp", "a check needs exactly one TP degree, got " + std::to_string(at_tp.rows.size()));
  }
  const auto& row = at_tp.rows.front().row;
  return {.tp = row.tp,
          .efficiency = row.efficiency,
          .ratio = row.ratio,
          .critical_tp = row.comm.value() > 0.0 ? at_tp.single_gpu_compute / row.comm
                                                : std::numeric_limits<double>::infinity(),
          .utilisation = row.efficiency,
          .gpus_per_node = at_tp.topology.gpus_per_node,
          .step = std::nullopt};
}

namespace detail {
inline const step_metrics& step_of(const rule_metrics& m, rule_kind kind) {
  if (!m.step) {
    throw invalid_spec(std::string(rule_name(kind)), "needs the whole step (model, GPUs, batch)");
  }
  return *m.step;
}
}  // namespace detail

/// Evaluates `rules` on the metrics at the config's TP degree. A step rule without step metrics
/// throws `invalid_spec`: the caller evaluates the step whenever a step rule is enabled.
inline std::vector<rule_outcome> evaluate_rules(const rule_metrics& m,
                                                std::span<const rule> rules) {
  const auto t = static_cast<double>(m.tp);
  std::vector<rule_outcome> out;
  out.reserve(rules.size());
  for (const auto& r : rules) {
    rule_outcome o{.kind = r.kind, .measured = 0.0, .limit = r.limit, .passed = false};
    switch (r.kind) {
      case rule_kind::min_efficiency:
        o.measured = m.efficiency;
        break;
      case rule_kind::max_ratio:
        o.measured = m.ratio;
        break;
      case rule_kind::tp_within_half_critical:
        o.measured = t;
        o.limit = m.critical_tp / 2.0;
        break;
      case rule_kind::tp_within_node:
        o.measured = t;
        o.limit = static_cast<double>(m.gpus_per_node);
        break;
      case rule_kind::min_utilisation:
        o.measured = m.utilisation;
        break;
      case rule_kind::min_mfu:
        o.measured = detail::step_of(m, r.kind).mfu;
        break;
      case rule_kind::min_memory_headroom:
        o.measured = detail::step_of(m, r.kind).memory_headroom.value();
        o.stage = detail::step_of(m, r.kind).peak_stage;
        break;
      case rule_kind::fits_memory:
        o.measured = detail::step_of(m, r.kind).peak_memory.value();
        o.limit = detail::step_of(m, r.kind).memory_capacity.value();
        o.stage = detail::step_of(m, r.kind).peak_stage;
        break;
      case rule_kind::max_step_time:
        o.measured = detail::step_of(m, r.kind).step_time.value();
        break;
    }
    o.passed = is_upper_bound(r.kind) ? o.measured <= o.limit : o.measured >= o.limit;
    out.push_back(o);
  }
  return out;
}

/// Evaluates `rules` on a one-degree seed sweep with `gpus_per_node` GPUs a node.
inline std::vector<rule_outcome> evaluate_rules(const sweep_result& at_tp,
                                                std::span<const rule> rules,
                                                std::int64_t gpus_per_node) {
  return evaluate_rules(metrics_at(at_tp, gpus_per_node), rules);
}

}  // namespace tpcost
