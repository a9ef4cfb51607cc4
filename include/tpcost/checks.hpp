// Rules a training config must pass before it reaches the cluster (`tpcost check`).
// Each rule compares one metric the core computes with a limit; the outcome says both.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tpcost/sweep.hpp"

namespace tpcost {

enum class rule_kind {
  min_efficiency,           ///< E(t) >= limit
  max_ratio,                ///< R(t) <= limit
  tp_within_half_critical,  ///< t <= t*/2, the seed's guidance for E around 70%
  tp_within_node,           ///< t <= GPUs per node: TP stays on the fast intra-node link
  min_utilisation,          ///< μ >= limit
};

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
  }
  return "?";
}

/// True for rules whose pass condition is `measured <= limit`, false for `>=`.
constexpr bool is_upper_bound(rule_kind kind) {
  return kind == rule_kind::max_ratio || kind == rule_kind::tp_within_half_critical ||
         kind == rule_kind::tp_within_node;
}

/// Evaluates `rules` on a one-degree sweep (the config's TP) with `gpus_per_node` GPUs a node.
inline std::vector<rule_outcome> evaluate_rules(const sweep_result& at_tp,
                                                std::span<const rule> rules,
                                                std::int64_t gpus_per_node) {
  if (at_tp.rows.size() != 1) {
    throw invalid_spec(
        "tp", "a check needs exactly one TP degree, got " + std::to_string(at_tp.rows.size()));
  }
  const auto& row = at_tp.rows.front();
  const auto t = static_cast<double>(row.tp);
  std::vector<rule_outcome> out;
  out.reserve(rules.size());
  for (const auto& r : rules) {
    rule_outcome o{.kind = r.kind, .measured = 0.0, .limit = r.limit, .passed = false};
    switch (r.kind) {
      case rule_kind::min_efficiency:
        o.measured = row.efficiency;
        break;
      case rule_kind::max_ratio:
        o.measured = row.ratio;
        break;
      case rule_kind::tp_within_half_critical:
        o.measured = t;
        o.limit = at_tp.critical_tp / 2.0;
        break;
      case rule_kind::tp_within_node:
        o.measured = t;
        o.limit = static_cast<double>(gpus_per_node);
        break;
      case rule_kind::min_utilisation: {
        const std::array<time_split, 1> parts{{{row.compute, row.comm}}};
        o.measured = utilisation(parts);
        break;
      }
    }
    o.passed = is_upper_bound(r.kind) ? o.measured <= o.limit : o.measured >= o.limit;
    out.push_back(o);
  }
  return out;
}

}  // namespace tpcost
