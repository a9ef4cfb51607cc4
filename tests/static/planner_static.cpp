// The planner's order and counting helpers are constexpr: this file compiling is the test.
#include "tpcost/plan/planner.hpp"

namespace {
using namespace tpcost;

// 5,128 = 2^3 x 641 has 8 divisors; 1,024 = 2^10 has 11; 36 = 2^2 x 3^2 has 9.
static_assert(detail::divisor_count(5128) == 8);
static_assert(detail::divisor_count(1024) == 11);
static_assert(detail::divisor_count(36) == 9);
static_assert(detail::divisor_count(1) == 1);

constexpr plan_candidate candidate(double time, std::int64_t tp, bool spans) {
  plan_candidate c;
  c.step_time = seconds(time);
  c.par.tp = tp;
  c.tp_spans_nodes = spans;
  return c;
}
// Time first; at equal time a TP group inside a node, then the smaller t.
static_assert(ranks_before(candidate(1.0, 16, true), candidate(2.0, 1, false)));
static_assert(ranks_before(candidate(1.0, 16, false), candidate(1.0, 1, true)));
static_assert(ranks_before(candidate(1.0, 4, false), candidate(1.0, 8, false)));
static_assert(!ranks_before(candidate(1.0, 4, false), candidate(1.0, 4, false)));
static_assert(key_of(plan_reason::memory) == "memory");
static_assert(all_plan_reasons.size() == plan_reason_count);
}  // namespace
