// Pipeline parallelism: how layers are split over p stages, the 1F1B and interleaved bubbles,
// and the point-to-point activation traffic between stages (Narayanan et al. 2021, SC21,
// arXiv:2104.04473, Sec. 2.2 and 4.1).
//
// Uneven stages (`pipeline_split`): the first and last stage may hold fewer layers than the
// middle ones, which share the rest evenly, as Megatron-Core splits them; when p does not
// divide L the default is the balanced split with shorter ends, where the embedding and the
// output layer already add work and memory. The slowest stage sets the pace.
//
// Interleaving (v > 1) needs v to divide every stage's layers (whole model chunks) and
// m >= p: Megatron-Core runs micro-batches in groups of microbatch_group_size_per_vp_stage,
// which may be any value in [p, m] (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving, core_r0.12.0); m need not be a multiple of p.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/model/model.hpp"
#include "tpcost/model/parallelism.hpp"

namespace tpcost {

/// Pipeline bubble as a fraction of the ideal (bubble-free) step time: `(p−1)/m` for 1F1B and
/// GPipe, `(p−1)/(v·m)` for the interleaved schedule with v model chunks per GPU
/// (Narayanan et al. 2021, Sec. 2.2.1 and 2.2.2).
constexpr double bubble_fraction(std::int64_t stages, std::int64_t micro_batches,
                                 std::int64_t virtual_stages = 1) {
  return static_cast<double>(stages - 1) /
         (static_cast<double>(virtual_stages) * static_cast<double>(micro_batches));
}

/// The pipeline's fill and drain in micro-batch times of one stage: `(p−1)/v` (the step runs
/// m + (p−1)/v of them; bubble_fraction is this over m).
constexpr double bubble_stages(std::int64_t stages, std::int64_t virtual_stages = 1) {
  return static_cast<double>(stages - 1) / static_cast<double>(virtual_stages);
}

/// Bubble time `t_pb = (p−1)/(v·m) · t_ideal`, where `ideal` is the time of the m micro-batches
/// on one stage without any bubble.
constexpr seconds bubble_time(seconds ideal, std::int64_t stages, std::int64_t micro_batches,
                              std::int64_t virtual_stages = 1) {
  return ideal * bubble_fraction(stages, micro_batches, virtual_stages);
}

/// Bytes one GPU sends across one stage boundary for one micro-batch in one direction: the
/// activation (forward) or its gradient (backward), `b·s·h·d`. Divided by t when the t ranks
/// of a stage each send a 1/t slice: with sequence parallelism the activation is already split,
/// and Megatron-LM's scatter/gather optimisation (Narayanan et al. 2021 Sec. 4.1) splits it
/// and all-gathers it over NVLink at the receiver.
constexpr bytes p2p_message_bytes(std::int64_t micro_batch, std::int64_t seq, std::int64_t hidden,
                                  int element_bytes, std::int64_t tp, bool split_over_tp) {
  const double full = static_cast<double>(micro_batch) * static_cast<double>(seq) *
                      static_cast<double>(hidden) * static_cast<double>(element_bytes);
  return (split_over_tp ? full / static_cast<double>(tp) : full) * units::B;
}

/// Point-to-point transfers of one step in one pipeline.
struct p2p_transfer_count {
  std::int64_t boundaries = 0;  ///< p·v − 1 chunk boundaries a micro-batch crosses each way
  std::int64_t per_step = 0;    ///< 2·m·(p·v − 1): activations forward plus gradients backward
  std::int64_t max_sends_per_gpu = 0;  ///< the busiest stage's sends (2·m·v for p >= 3)
};

/// Transfers per step: every micro-batch crosses the p·v − 1 chunk boundaries forward with its
/// activation and backward with its gradient. Stage i sends m·v activations (m·(v−1) on the
/// last stage) and m·v gradients (m·(v−1) on the first).
constexpr p2p_transfer_count p2p_transfers_per_step(std::int64_t stages, std::int64_t micro_batches,
                                                    std::int64_t virtual_stages = 1) {
  const auto p = stages;
  const auto m = micro_batches;
  const auto v = virtual_stages;
  // A middle stage sends 2·m·v; with p = 2 both stages are ends, m·v + m·(v−1); with p = 1
  // there is no boundary.
  const std::int64_t max_sends = p >= 3 ? 2 * m * v : (p == 2 ? m * (2 * v - 1) : 0);
  return p2p_transfer_count{
      .boundaries = p * v - 1,
      .per_step = 2 * m * (p * v - 1),
      .max_sends_per_gpu = max_sends,
  };
}

/// How the L transformer layers lie on the p stages: `first` on stage 0, `last` on stage p−1,
/// `middle` on each of the p−2 others, as Megatron-Core splits them with
/// --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers
/// (megatron/core/transformer/transformer_block.py, get_num_layers_to_build, core_r0.12.0:
/// the middle stages share the rest evenly). With p = 1, first = last = L; with p = 2 there is
/// no middle stage.
struct pipeline_split {
  std::int64_t stages = 1;
  std::int64_t first = 1;
  std::int64_t middle = 0;  ///< on each of stages 1 .. p−2 (unused for p <= 2)
  std::int64_t last = 1;
  [[nodiscard]] constexpr std::int64_t layers_on(std::int64_t stage) const {
    return stage == 0 ? first : (stage == stages - 1 ? last : middle);
  }
  /// The index of stage `stage`'s first layer, stages holding consecutive layers (with v > 1
  /// a stage's chunks are spread out; their MoE layers are counted as if consecutive).
  [[nodiscard]] constexpr std::int64_t first_layer_of(std::int64_t stage) const {
    return stage == 0 ? 0 : first + (stage - 1) * middle;
  }
  [[nodiscard]] constexpr std::int64_t max_layers() const {
    return std::max({first, last, stages > 2 ? middle : std::int64_t{0}});
  }
  [[nodiscard]] constexpr bool even() const {
    return first == last && (stages <= 2 || middle == first);
  }
  constexpr bool operator==(const pipeline_split&) const = default;
};

/// The split with `first` and `last` layers on the end stages: the middle stages share the
/// rest evenly. Empty when the rest does not divide evenly, or a stage would get no layer.
constexpr std::optional<pipeline_split> split_with_ends(std::int64_t layers, std::int64_t stages,
                                                        std::int64_t first, std::int64_t last) {
  if (stages == 1) {
    return first == layers && last == layers
               ? std::optional{pipeline_split{
                     .stages = 1, .first = layers, .middle = 0, .last = layers}}
               : std::nullopt;
  }
  if (first < 1 || last < 1 || first + last > layers) {
    return std::nullopt;
  }
  const auto rest = layers - first - last;
  if (stages == 2) {
    return rest == 0 ? std::optional{pipeline_split{
                           .stages = 2, .first = first, .middle = 0, .last = last}}
                     : std::nullopt;
  }
  if (rest % (stages - 2) != 0 || rest / (stages - 2) < 1) {
    return std::nullopt;
  }
  return pipeline_split{
      .stages = stages, .first = first, .middle = rest / (stages - 2), .last = last};
}

/// The split when none is given: even when p divides L; otherwise the balanced split with
/// shorter end stages (they already hold the embedding and the output layer) where one exists,
/// every stage ⌊L/p⌋ or ⌈L/p⌉ layers with the middle ones equal. Llama 3 405B's
/// 126 layers on 16 stages come out as Meta ran them: 7 on the first and last stage, 8 on the
/// others (arXiv:2407.21783, Sec. 3.3.2). Empty when no such split exists (e.g. 16 layers on
/// 10 stages): then give the ends (--pp-layout).
constexpr std::optional<pipeline_split> default_split(std::int64_t layers, std::int64_t stages) {
  if (stages < 1 || layers < stages) {
    return std::nullopt;
  }
  if (stages == 1 || layers % stages == 0) {
    const auto each = layers / stages;
    return pipeline_split{
        .stages = stages, .first = each, .middle = stages > 2 ? each : 0, .last = each};
  }
  const auto low = layers / stages;
  for (const auto middle : {low + 1, low}) {  // shorter ends first
    const auto rest = stages == 2 ? layers : layers - (stages - 2) * middle;
    const auto first = rest / 2;
    const auto last = rest - first;
    const auto lo = std::min({first, last, stages == 2 ? last : middle});
    const auto hi = std::max({first, last, stages == 2 ? first : middle});
    if (first >= 1 && hi - lo <= 1) {
      return pipeline_split{
          .stages = stages, .first = first, .middle = stages > 2 ? middle : 0, .last = last};
    }
  }
  return std::nullopt;
}

/// The split of a layout: its given end stages (`first_stage_layers`, `last_stage_layers`, one
/// of them 0 meaning "as the other") or the default. Throws `invalid_spec("pp-layout", ...)`
/// when no split fits. Call `validate(model, par)` first.
inline pipeline_split split_of(const transformer_spec& model, const parallel_config& par) {
  const auto L = model.layers;
  const auto p = par.pp;
  const auto given_first = par.first_stage_layers;
  const auto given_last = par.last_stage_layers;
  const bool accounted = par.embedding_in_split || par.loss_in_split;
  if (accounted && (given_first > 0 || given_last > 0)) {
    // Megatron-Core asserts the same (transformer_block.py, get_num_layers_to_build).
    throw invalid_spec("pp-layout",
                       "give either the end stages or the embedding/loss "
                       "accounting, not both (Megatron-Core refuses the mix)");
  }
  if (accounted) {
    // The embedding and the loss take one layer's slot on their stage (core_v0.14.0,
    // transformer_block.py, get_num_layers_to_build): L + 1 or L + 2 slots split evenly.
    const auto slots = L + (par.embedding_in_split ? 1 : 0) + (par.loss_in_split ? 1 : 0);
    const auto each = slots / p;
    const auto first = each - (par.embedding_in_split ? 1 : 0);
    const auto last = each - (par.loss_in_split ? 1 : 0);
    if (slots % p != 0 || (p > 1 && (first < 1 || last < 1))) {
      throw invalid_spec("pp-layout", std::to_string(L) +
                                          " layers with the embedding/loss "
                                          "accounted are " +
                                          std::to_string(slots) +
                                          " slots, which p = " + std::to_string(p) +
                                          " does not divide (or leaves an end stage empty)");
    }
    if (p == 1) {
      return pipeline_split{.stages = 1, .first = L, .middle = 0, .last = L};
    }
    return pipeline_split{.stages = p, .first = first, .middle = p > 2 ? each : 0, .last = last};
  }
  if (given_first == 0 && given_last == 0) {
    if (const auto split = default_split(L, p)) {
      return *split;
    }
    throw invalid_spec("pp-layout", "p = " + std::to_string(p) + " stages cannot split the " +
                                        std::to_string(L) +
                                        " layers evenly or nearly so; give the end stages, e.g. "
                                        "--pp-layout first=N,last=N");
  }
  if (p == 1) {
    throw invalid_spec("pp-layout", "uneven stages need pipeline parallelism (p >= 2)");
  }
  // One end given: the other p − 1 stages share the rest evenly, as Megatron-Core does with
  // only --decoder-first-pipeline-num-layers (or only the last).
  std::optional<pipeline_split> split;
  if (given_first > 0 && given_last > 0) {
    split = split_with_ends(L, p, given_first, given_last);
  } else if (const auto rest = L - given_first - given_last; rest > 0 && rest % (p - 1) == 0) {
    const auto each = rest / (p - 1);
    split = split_with_ends(L, p, given_first > 0 ? given_first : each,
                            given_last > 0 ? given_last : each);
  }
  if (!split) {
    throw invalid_spec("pp-layout", "first = " + std::to_string(given_first) +
                                        ", last = " + std::to_string(given_last) + " leave " +
                                        std::to_string(L - given_first - given_last) + " of the " +
                                        std::to_string(L) +
                                        " layers, which the middle stages cannot share evenly");
  }
  return *split;
}

/// The end stages a Megatron-Core --pipeline-model-parallel-layout string gives.
struct pipeline_layout_string {
  std::int64_t first = 0;  ///< decoder layers on pipeline rank 0 (all its chunks)
  std::int64_t last = 0;   ///< on rank p−1
  std::int64_t virtual_stages = 1;
};

/// Reads Megatron-Core's --pipeline-model-parallel-layout (core_v0.14.0,
/// megatron/core/transformer/pipeline_parallel_layer_layout.py): stages split by '|', `E` the
/// embedding, `t` a decoder layer, `m` an MTP module, `L` the loss, `X*N` or `(...)*N` repeats,
/// commas ignored; p·v stages, rank r holding stages r, r + p, ... For example
/// "Et*7|(t*8|)*14t*7L" puts 7, 8 × 14, 7 layers on 16 stages. tpcost models the middle stages
/// as equal, so their layer counts must agree; `L` must be the last layer and `E` the first, as
/// Megatron-Core asserts. The `m`s must number the model's `mtp_layers` and follow every `t`, in
/// one virtual stage that is the last of its rank (validate_layer_layout, core_v0.16.0); tpcost
/// places the MTP modules on the last stage (memory.hpp, mtp_layers_on), so they must be in the
/// last virtual stage of the last rank (Megatron's "standalone" MTP elsewhere is refused).
/// Throws `invalid_spec(field, ...)` quoting the text.
inline pipeline_layout_string parse_pipeline_layout(std::string_view text, std::int64_t stages,
                                                    std::int64_t layers, std::string_view field,
                                                    std::int64_t mtp_layers = 0) {
  const auto fail = [&](const std::string& why) -> void {
    throw invalid_spec(std::string(field), quote_value(text) + ": " + why);
  };
  std::size_t at = 0;
  constexpr std::size_t max_expanded = std::size_t{1} << 20;
  // Each '(' is a stack frame of the parser: 30,000 of them overflowed the stack. Megatron-Core's
  // layouts nest one level ("(t*8|)*14"); 16 is far beyond any real one (docs/fuzzing.md).
  constexpr int max_nesting = 16;
  int depth = 0;
  // sequence := item*; item := (char | '(' sequence ')') ['*' count]
  const auto expand = [&](const auto& self, bool nested) -> std::string {
    std::string out;
    while (at < text.size()) {
      const char c = text[at];
      if (c == ')') {
        if (!nested) {
          fail("unbalanced ')'");
        }
        ++at;
        return out;
      }
      std::string atom;
      if (c == '(') {
        ++at;
        if (++depth > max_nesting) {
          fail("nests more than " + std::to_string(max_nesting) + " parentheses deep");
        }
        atom = self(self, true);
        --depth;
      } else if (c == ',' || c == ' ') {
        ++at;
        continue;
      } else if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|') {
        atom = std::string(1, c);
        ++at;
      } else {
        fail(std::string("'") + c + "' is not a layer; expected E, t, m, L, |, (...)*N");
      }
      std::int64_t repeat = 1;
      if (at < text.size() && text[at] == '*') {
        ++at;
        std::int64_t n = 0;
        const auto start = at;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9' && n < (1 << 20)) {
          n = 10 * n + (text[at] - '0');
          ++at;
        }
        if (at == start || n < 1) {
          fail("'*' needs a whole number >= 1 after it");
        }
        repeat = n;
      }
      for (std::int64_t k = 0; k < repeat; ++k) {
        if (out.size() + atom.size() > max_expanded) {
          fail("expands to more than a million symbols");
        }
        out += atom;
      }
    }
    if (nested) {
      fail("unbalanced '('");
    }
    return out;
  };
  const auto flat = expand(expand, false);
  std::vector<std::int64_t> decoders(1, 0);
  std::int64_t embeddings = 0, losses = 0, mtps = 0;
  std::size_t mtp_chunk = 0;  // the virtual stage of the MTP modules
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const char c = flat[i];
    if (c == '|') {
      decoders.push_back(0);
    } else if (c == 't') {
      if (mtps > 0) {
        fail("decoder layers must be placed before the MTP modules m");
      }
      ++decoders.back();
    } else if (c == 'm') {
      if (mtps > 0 && mtp_chunk != decoders.size() - 1) {
        fail("all the MTP modules m must be in one virtual stage");
      }
      mtp_chunk = decoders.size() - 1;
      ++mtps;
    } else if (c == 'E') {
      ++embeddings;
      if (decoders.size() != 1 || decoders[0] != 0) {
        fail("the embedding E must come first");
      }
    } else {
      ++losses;
      if (flat.find_first_not_of('|', i + 1) != std::string::npos) {
        fail("the loss L must come last");
      }
    }
  }
  if (embeddings != 1 || losses != 1) {
    fail("needs exactly one E (embedding) and one L (loss)");
  }
  if (mtps != mtp_layers) {
    fail(std::to_string(mtps) + " MTP modules m, the model has " + std::to_string(mtp_layers));
  }
  const auto chunks = static_cast<std::int64_t>(decoders.size());
  if (chunks % stages != 0) {
    fail(std::to_string(chunks) + " stages are not a multiple of p = " + std::to_string(stages));
  }
  if (mtps > 0 && static_cast<std::int64_t>(mtp_chunk) != chunks - 1) {
    fail(
        "the MTP modules m must be in the last virtual stage of the last rank, where tpcost "
        "places them (Megatron's standalone MTP stage on another rank is not modelled)");
  }
  std::vector<std::int64_t> per_rank(static_cast<std::size_t>(stages), 0);
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < chunks; ++i) {
    per_rank[static_cast<std::size_t>(i % stages)] += decoders[static_cast<std::size_t>(i)];
    total += decoders[static_cast<std::size_t>(i)];
  }
  if (total != layers) {
    fail(std::to_string(total) + " decoder layers, the model has " + std::to_string(layers));
  }
  for (std::int64_t r = 2; r + 1 < stages; ++r) {
    if (per_rank[static_cast<std::size_t>(r)] != per_rank[1]) {
      fail("the middle stages hold different layer counts (" + std::to_string(per_rank[1]) +
           " and " + std::to_string(per_rank[static_cast<std::size_t>(r)]) +
           "); tpcost models them as equal");
    }
  }
  if (per_rank.front() < 1 || per_rank.back() < 1 || (stages > 2 && per_rank[1] < 1)) {
    fail("every pipeline rank needs at least one decoder layer here");
  }
  return {.first = per_rank.front(), .last = per_rank.back(), .virtual_stages = chunks / stages};
}

/// Layers on each of the p stages of the default split (see `default_split`); empty when
/// there is none.
inline std::vector<std::int64_t> layers_per_stage(std::int64_t layers, std::int64_t stages) {
  const auto split = default_split(layers, stages);
  if (!split) {
    return {};
  }
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < stages; ++i) {
    out.push_back(split->layers_on(i));
  }
  return out;
}

/// Micro-batches whose activations stage `stage` holds at its peak, counted in layers' worth of
/// one micro-batch's activations. 1F1B (v = 1): stage i holds min(p − i, m) micro-batches of its
/// layers. Interleaved (v > 1): Megatron-LM's schedule warms up (p − i − 1)·2 + (v − 1)·p chunks
/// and holds one more, each chunk being L/(p·v) layers; on the first stage that is
/// L·(1 + (p−1)/(p·v)) layers' worth, the factor of Korthikanti et al. 2022 Sec. 4.2.3.
inline double layers_in_flight(std::int64_t layers_on_stage, std::int64_t stage,
                               std::int64_t stages, std::int64_t micro_batches,
                               std::int64_t virtual_stages) {
  const auto p = stages;
  const auto m = micro_batches;
  const auto v = virtual_stages;
  if (v == 1) {
    return static_cast<double>(layers_on_stage) * static_cast<double>(std::min(p - stage, m));
  }
  const auto chunks = std::min((p - stage - 1) * 2 + (v - 1) * p + 1, m * v);
  return static_cast<double>(chunks) * static_cast<double>(layers_on_stage) /
         static_cast<double>(v);
}

/// The pipeline of one layout: stage sizes, bubble, p2p traffic, and what deserves a warning.
struct pipeline_summary {
  std::int64_t stages = 1;
  std::int64_t virtual_stages = 1;
  std::int64_t micro_batches = 1;
  pipeline_split split;
  std::vector<std::int64_t> layers;  ///< per stage
  std::int64_t max_layers = 0;       ///< the slowest stage's layers
  double bubble_fraction = 0.0;      ///< of the ideal step time
  bytes p2p_message{};               ///< per boundary, micro-batch and direction, per GPU
  p2p_transfer_count transfers{};
  std::vector<std::string> warnings;  ///< valid but inefficient choices
};

/// Checks the pipeline part of a layout and summarises it. Throws `invalid_spec` for "vpp"
/// when v > 1 with p = 1, or when v does not divide every stage's layers (Megatron-Core builds
/// whole model chunks; a layout string's chunks, `chunks_from_layout`, may differ, with a
/// warning), and for "pp-layout" when the stages cannot be split (`split_of`).
/// Warns, without failing, when the stages are uneven, when m < p (with v = 1 the bubble then
/// lasts at least as long as the ideal step). Throws for "vpp" also when v > 1 with m < p,
/// which Megatron-Core refuses (microbatch_group_size_per_vp_stage must lie in [p, m]).
/// `element_bytes` is the activation dtype's size; `scatter_gather` is Megatron-LM's p2p
/// optimisation (see `p2p_message_bytes`).
inline pipeline_summary summarize_pipeline(const transformer_spec& model,
                                           const parallel_config& par, int element_bytes,
                                           bool scatter_gather) {
  validate(model, par);
  const auto p = par.pp;
  const auto v = par.vpp;
  const auto m = micro_batches(par);
  const auto L = model.layers;
  if (v > 1 && p == 1) {
    throw invalid_spec("vpp", "v = " + std::to_string(v) +
                                  " virtual stages need pipeline parallelism (p >= 2); use v = 1");
  }
  if (v > 1 && m < p) {
    throw invalid_spec("vpp", "v = " + std::to_string(v) + " with m = " + std::to_string(m) +
                                  " micro-batches for p = " + std::to_string(p) +
                                  " stages: Megatron-Core's interleaved schedule needs m >= p");
  }
  const auto split = split_of(model, par);
  // Megatron-Core splits each stage's layer slots (the accounted embedding or loss included)
  // into v equal chunks.
  const auto first_slots = split.first + (par.embedding_in_split ? 1 : 0);
  const auto last_slots = split.last + (par.loss_in_split ? 1 : 0);
  const bool unequal =
      v > 1 && (first_slots % v != 0 || last_slots % v != 0 || (p > 2 && split.middle % v != 0));
  if (unequal && !par.chunks_from_layout) {
    throw invalid_spec("vpp", "v = " + std::to_string(v) +
                                  " does not divide the layers of every "
                                  "stage (" +
                                  std::to_string(split.first) + " first, " +
                                  std::to_string(split.middle) + " middle, " +
                                  std::to_string(split.last) +
                                  " last); the interleaved schedule needs whole model chunks");
  }
  pipeline_summary out;
  out.stages = p;
  out.virtual_stages = v;
  out.micro_batches = m;
  out.split = split;
  for (std::int64_t i = 0; i < p; ++i) {
    out.layers.push_back(split.layers_on(i));
  }
  out.max_layers = split.max_layers();
  out.bubble_fraction = bubble_fraction(p, m, v);
  out.p2p_message = p2p_message_bytes(par.micro_batch, model.seq, model.hidden, element_bytes,
                                      par.tp, par.sequence_parallel || scatter_gather);
  out.transfers = p2p_transfers_per_step(p, m, v);
  if (!split.even()) {
    out.warnings.push_back("uneven stages for L = " + std::to_string(L) + ": " +
                           std::to_string(split.first) + " layers on the first stage, " +
                           (p > 2 ? std::to_string(split.middle) + " on each middle one, " : "") +
                           std::to_string(split.last) +
                           " on the last; the slowest stage sets the pace");
  }
  if (unequal) {
    out.warnings.push_back("the layout's model chunks differ in size within a stage (" +
                           std::to_string(split.first) + " layers first, " +
                           std::to_string(split.last) + " last, in " + std::to_string(v) +
                           " chunks each): costed as chunks of the stage's mean size");
  }
  if (p > 1 && m < p) {
    out.warnings.push_back("m = " + std::to_string(m) + " micro-batches for p = " +
                           std::to_string(p) + " stages: the bubble (p-1)/(v*m) is " +
                           std::to_string(std::lround(out.bubble_fraction * 100.0)) +
                           "% of the ideal time; m >= p (better m >> p) is recommended");
  }
  return out;
}

}  // namespace tpcost
