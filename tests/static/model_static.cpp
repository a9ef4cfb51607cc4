// The model's counts are constexpr: this file compiling is the test.
#include "tpcost/model/flops.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/model_presets.hpp"
#include "tpcost/model/pipeline_parallel.hpp"

namespace {
using namespace tpcost;

// The tiny GPT of tests/unit/model/model_test.cpp: L=2, h=8, a=2, V=10, s=4 -> 1872 parameters.
constexpr transformer_spec tiny = with_architecture(
    {.layers = 2, .hidden = 8, .heads = 2, .vocab = 10, .seq = 4}, architecture::gpt);
static_assert(count_params(tiny).total == 1872);
static_assert(architecture_of(tiny) == architecture::gpt);
static_assert(forward_flops_per_token(tiny, 4).total().value() == 3488.0);
static_assert(model_flops_per_token(tiny, 4).value() == 3 * 3488.0);
// Every preset is a constant expression, counted at compile time.
static_assert(count_params(model_presets[0].spec).total == 174'604'259'328);  // GPT-3 175B
static_assert(bubble_fraction(8, 64) == 7.0 / 64.0);
static_assert(tp_collectives_per_layer(recompute_mode::full, false).all_reduce == 6);
}  // namespace
