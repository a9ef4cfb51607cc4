// Calibration of the ring α–β model from nccl-tests measurements of the user's own cluster.
//
// nccl-tests (github.com/NVIDIA/nccl-tests) times a collective over a sweep of message sizes
// M and prints, per size, the time t, the algorithm bandwidth algbw = M/t and the bus
// bandwidth busbw = algbw·F(n), with F = 2(n−1)/n for all-reduce and (n−1)/n for
// reduce-scatter and all-gather (doc/PERFORMANCE.md). M is the whole buffer: for
// reduce-scatter and all-gather, n times the per-rank count.
//
// The model fitted here is the ring's:
//   all-reduce:                 t(M) = 2(n−1)·α + 2(n−1)/n · M/β
//   reduce-scatter, all-gather: t(M) =  (n−1)·α +  (n−1)/n · M/β
// where α is the latency of one ring step and β the per-direction bandwidth of each GPU's
// link. At large M the model's busbw F·M/t tends to β, so β is "nccl-tests' busbw at large
// M", the convention of hardware.hpp and of the profile file (bandwidth_convention).
//
// Weighting. The sweep spans 1 KiB to 16 GiB: times from ~10 µs to ~60 ms. Ordinary least
// squares on t would fit the largest messages and leave the small ones hundreds of percent
// off. The fit minimises the sum of squared RELATIVE time residuals, Σ((t_model − t)/t)²,
// i.e. weights 1/t²: every size counts alike, timing noise is roughly proportional to t,
// and a relative error is what a cost model is judged by. The problem stays linear in
// (α, 1/β) and is solved exactly (QR of the 2-column weighted design), with α ≥ 0 and
// β > 0 enforced. The reported error is that of the bus bandwidth, busbw_model/busbw − 1
// = t/t_model − 1 (positive: the model is too optimistic).
//
// Piecewise fit. NCCL changes protocol with the size (LL, LL128, Simple) and fills its
// pipeline only for large messages, so one α–β line misses the middle of the sweep by tens
// of percent. calibrate() therefore also fits K separate lines (default 3) over contiguous
// size ranges, choosing the breakpoints that minimise the same sum of squares; each segment
// spans at least 3 distinct sizes. The breakpoints are found by least squares, not read
// from NCCL.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "tpcost/base/conformal.hpp"
#include "tpcost/base/enum_names.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/units.hpp"
#include "tpcost/comm/collectives.hpp"
#include "tpcost/hardware/hardware.hpp"

namespace tpcost {

/// nccl-tests' name of a collective, without "_perf": "all_reduce", "all_gather",
/// "reduce_scatter" (the profile file and the calibration's messages use it).
inline constexpr std::array<enum_name<collective_op>, 3> nccl_tests_collective_names{{
    {"all_reduce", collective_op::all_reduce},
    {"all_gather", collective_op::all_gather},
    {"reduce_scatter", collective_op::reduce_scatter},
}};

constexpr std::string_view nccl_tests_name(collective_op op) {
  return name_of(nccl_tests_collective_names, op);
}

namespace detail {
inline std::string squash(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != '-' && c != '_' && c != ' ') {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
  }
  return out;
}
}  // namespace detail

/// Reads "all_reduce", "all-reduce", "AllReduce", "all_reduce_perf" (any case, '-'/'_'
/// ignored); nullopt for anything else.
inline std::optional<collective_op> collective_from_name(std::string_view name) {
  auto s = detail::squash(name);
  if (s.size() > 4 && s.ends_with("perf")) {
    s.resize(s.size() - 4);
  }
  if (s == "allreduce") {
    return collective_op::all_reduce;
  }
  if (s == "allgather") {
    return collective_op::all_gather;
  }
  if (s == "reducescatter") {
    return collective_op::reduce_scatter;
  }
  return std::nullopt;
}

/// The ring model's time for M bytes: steps·α + F·M/β, collectives.hpp's ring (see the header
/// comment).
constexpr seconds ring_time(collective_op op, std::int64_t ranks, bytes size,
                            const link_spec& link) {
  return ring_cost(op, ranks, size, link).time;
}

/// Out-of-place or in-place, the two timings nccl-tests prints per size.
enum class placement { out_of_place, in_place };

inline constexpr std::array<enum_name<placement>, 2> placement_names{{
    {"out-of-place", placement::out_of_place},
    {"in-place", placement::in_place},
}};

constexpr std::string_view to_string(placement where) { return name_of(placement_names, where); }

/// One timing read from nccl-tests output.
struct nccl_sample {
  bytes size{};  ///< nccl-tests' "size" column: the whole buffer, in bytes
  seconds time{};
  placement where = placement::out_of_place;
  std::size_t line = 0;  ///< line of the text file, or index of the JSON result
  /// algbw and busbw as printed (GB/s), and half a unit of their last printed digit; NaN
  /// when the output has none. Used only to check the rank count.
  double printed_algbw = std::numeric_limits<double>::quiet_NaN();
  double printed_busbw = std::numeric_limits<double>::quiet_NaN();
  double printed_half_unit = std::numeric_limits<double>::quiet_NaN();
};

/// What one nccl-tests output says about its run.
struct nccl_run {
  std::string source;  ///< the file name, for messages and the profile
  std::optional<collective_op> collective;
  std::string collective_from;  ///< how it was found ("'# Collective test starting' line")
  std::optional<std::int64_t> ranks;
  std::string ranks_from;
  std::optional<std::int64_t> ranks_per_process;  ///< nThread × nGpus of the header
  std::optional<std::int64_t> nodes;              ///< distinct hosts of the '#  Rank' lines
  std::string nodes_from;  ///< how `nodes` was found ("'#  Rank ... on HOST' lines", "--nodes")
  std::vector<nccl_sample> samples;
  bool from_json = false;  ///< samples[i].line is then the index in "results"
};

/// Where a sample came from, for messages: "FILE:LINE" or "FILE: /results/I".
inline std::string sample_location(const nccl_run& run, const nccl_sample& sample) {
  return run.from_json ? run.source + ": /results/" + std::to_string(sample.line)
                       : run.source + ":" + std::to_string(sample.line);
}

namespace detail::nccl {

inline std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
      ++i;
    }
    if (i > start) {
      words.push_back(line.substr(start, i - start));
    }
  }
  return words;
}

/// The most ranks a nccl-tests header may describe (the planner's limit on GPUs).
inline constexpr std::int64_t max_ranks = std::int64_t{1} << 24;

/// The product of a header's counts (threads, GPUs, processes), each and all within
/// 0..max_ranks; throws invalid_spec(field, prefix + ...) beyond, so that no product is formed
/// that could wrap (signed overflow is undefined behaviour).
inline std::int64_t rank_count(const std::string& field, const std::string& prefix,
                               std::initializer_list<std::int64_t> factors,
                               const std::string& what) {
  std::int64_t product = 1;
  for (const auto f : factors) {
    if (f < 0 || f > max_ranks || (f > 0 && product > max_ranks / f)) {
      throw invalid_spec(field, prefix + what + " is beyond " + std::to_string(max_ranks) +
                                    " ranks; is this a nccl-tests report?");
    }
    product *= f;
  }
  return product;
}

/// A whole number of a header line (its digits checked by is_digits), or, beyond an int64,
/// max_ranks + 1, which rank_count then refuses.
inline std::int64_t header_count(std::string_view digits) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc{} && end == digits.data() + digits.size() ? value : max_ranks + 1;
}

inline bool is_digits(std::string_view word) {
  return !word.empty() &&
         std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

inline bool is_integer(std::string_view word) {
  return is_digits(word.starts_with('-') ? word.substr(1) : word);
}

inline std::optional<std::uint64_t> to_uint(std::string_view word) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc{} || end != word.data() + word.size()) {
    return std::nullopt;
  }
  return value;
}

inline std::optional<double> to_double(std::string_view word) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc{} || end != word.data() + word.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

/// Half a unit of the last printed digit of a fixed-point number ("274.23" -> 0.005); NaN
/// for exponent notation.
inline double half_unit(std::string_view word) {
  if (word.find_first_of("eE") != std::string_view::npos) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const auto dot = word.find('.');
  const auto decimals = dot == std::string_view::npos ? 0 : word.size() - dot - 1;
  return 0.5 * std::pow(10.0, -static_cast<double>(decimals));
}

/// The column layout announced by the '#  size  count  type ...' header line.
struct layout {
  std::size_t preamble = 0;  ///< size, count, type[, redop[, root]]
  std::size_t group = 4;     ///< time algbw busbw #wrong [+ per-iteration columns]
  std::size_t trailing = 0;  ///< a timestamp column: 2 words
};

inline std::optional<layout> header_layout(const std::vector<std::string_view>& words) {
  if (words.size() < 4 || words[0] != "size" || words[1] != "count") {
    return std::nullopt;
  }
  std::vector<std::size_t> times;
  bool timestamp = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "time" || words[i] == "cputime") {
      times.push_back(i);
    }
    timestamp = timestamp || words[i] == "timestamp";
  }
  if (times.size() != 2 || times[1] <= times[0] + 3) {
    return std::nullopt;
  }
  return layout{times[0], times[1] - times[0], timestamp ? std::size_t{2} : std::size_t{0}};
}

/// nccl-tests times in µs that a real run can print: 1 ns to ~11.6 days.
constexpr bool plausible_time_us(double t) { return t >= 1e-3 && t <= 1e12; }

/// The largest size accepted, 2^60 bytes (1 EiB): far above any GPU buffer.
inline constexpr std::uint64_t max_size_bytes = std::uint64_t{1} << 60;
/// nccl-tests prints rows of about 120 bytes; a longer line is not its output, and a bound
/// keeps a streamed file's carried-over line small.
inline constexpr std::size_t max_line_bytes = std::size_t{1} << 20;
/// At most 10,000 data rows (20,000 timings) per file: `-b 8 -e 16G -f 2` prints 32 rows and a
/// 1 MiB linear step to 8 GiB 8,192; what follows the samples (the fits, the leave-one-out
/// band, the table) holds about 1 KB per timing, 5 KB as JSON, so the bound keeps a file under
/// the 256 MiB input cap from taking gigabytes (820,000 timings: 0.8 GB, 4.1 GB as JSON).
inline constexpr std::size_t max_samples = 20'000;

[[noreturn]] inline void fail_at(const std::string& source, std::size_t line,
                                 const std::string& detail) {
  throw invalid_spec(source + ":" + std::to_string(line), detail);
}

inline constexpr std::string_view row_shape =
    "nccl-tests rows are: size count type [redop [root]], then time algbw busbw #wrong for "
    "out-of-place and for in-place";

/// Reads one timing group (time algbw busbw #wrong) starting at words[at].
inline nccl_sample read_group(const std::vector<std::string_view>& words, std::size_t at,
                              bytes size, placement where, const std::string& source,
                              std::size_t line) {
  const auto what = std::string(to_string(where));
  const auto time = to_double(words[at]);
  if (!time || *time <= 0.0) {
    fail_at(source, line,
            "the " + what + " time " + quote_value(words[at]) +
                " is not a positive number of microseconds");
  }
  if (!plausible_time_us(*time)) {
    fail_at(source, line,
            "the " + what + " time " + quote_value(words[at]) +
                " us is outside 0.001 us .. 1e12 us; is this column a time?");
  }
  const auto algbw = to_double(words[at + 1]);
  const auto busbw = to_double(words[at + 2]);
  if (!algbw || !busbw || *algbw < 0.0 || *busbw < 0.0) {
    fail_at(source, line,
            "the " + what + " bandwidths " + quote_value(words[at + 1]) + " and " +
                quote_value(words[at + 2]) + " are not non-negative numbers of GB/s");
  }
  const auto wrong = words[at + 3];
  if (wrong != "N/A") {
    const auto count = to_double(wrong);
    if (!count) {
      fail_at(
          source, line,
          "the " + what + " #wrong column '" + std::string(wrong) + "' is neither a count nor N/A");
    }
    if (*count > 0.0) {
      fail_at(source, line,
              "nccl-tests found " + std::string(wrong) + " wrong elements in the " + what +
                  " result: the run failed its check, calibrating from it is refused");
    }
  }
  return nccl_sample{
      .size = size,
      .time = *time * units::us,
      .where = where,
      .line = line,
      .printed_algbw = *algbw,
      .printed_busbw = *busbw,
      .printed_half_unit = std::max(half_unit(words[at + 1]), half_unit(words[at + 2])),
  };
}

}  // namespace detail::nccl

/// Reads the text nccl-tests' *_perf programs print (`all_reduce_perf -b 8 -e 16G -f 2`).
///
/// Data rows: `size count type [redop [root]] time algbw busbw #wrong time algbw busbw
/// #wrong` (out-of-place, then in-place); all_gather and reduce_scatter lack redop/root in
/// older versions, and a row may carry only the in-place group. The '#  size count ...'
/// header, when present, fixes the columns (per-iteration and timestamp columns included).
/// '#' lines also give: '#  Rank N ... on HOST ...' (ranks = largest N + 1, nodes = distinct
/// hosts), '# nThread T nGpus G' (ranks per process), '# Collective test starting: NAME'.
/// Other lines (NCCL INFO, MPI noise) are skipped. Times are in µs.
/// Throws invalid_spec("FILE:LINE", ...) for a malformed data row, a failed check (#wrong >
/// 0) or a file without data rows.
///
/// The reader takes one line at a time (nccl_text_reader), so that `calibrate` streams a file
/// instead of holding it; parse_nccl_tests_text feeds it a whole text.
class nccl_text_reader {
 public:
  explicit nccl_text_reader(std::string source) { run_.source = std::move(source); }

  /// One line, without its '\n' (a trailing '\r' is dropped).
  void line(std::string_view line) {
    using namespace detail::nccl;
    const std::string& source = run_.source;
    const auto line_no = ++line_no_;
    if (line.size() > max_line_bytes) {
      fail_at(run_.source, line_no, "a line longer than 1 MiB; is this nccl-tests output?");
    }
    if (line.ends_with('\r')) {
      line.remove_suffix(1);
    }
    auto words = split_words(line);
    if (words.empty()) {
      return;
    }
    if (words[0].starts_with('#')) {
      if (words[0] == "#") {
        words.erase(words.begin());
      } else {
        words[0].remove_prefix(1);
      }
      if (words.size() >= 2 && words[0] == "Rank" && is_digits(words[1])) {
        const auto rank = header_count(words[1]);
        (void)rank_count(source + ":" + std::to_string(line_no), "", {rank},
                         "'# Rank " + bounded(words[1], 24) + "'");
        max_rank_ = std::max<std::int64_t>(max_rank_, rank);
        const auto on = std::find(words.begin(), words.end(), "on");
        if (on != words.end() && on + 1 != words.end()) {
          ++hosts_[std::string(*(on + 1))];
        }
      } else if (words.size() >= 4 && words[0] == "nThread" && words[2] == "nGpus" &&
                 is_digits(words[1]) && is_digits(words[3])) {
        run_.ranks_per_process = rank_count(
            source + ":" + std::to_string(line_no), "",
            {header_count(words[1]), header_count(words[3])},
            "'# nThread " + bounded(words[1], 24) + " nGpus " + bounded(words[3], 24) + "'");
      } else if (words.size() >= 4 && words[0] == "Collective" && words[1] == "test" &&
                 words[2] == "starting:") {
        if (const auto kind = collective_from_name(words[3])) {
          run_.collective = kind;
          run_.collective_from = "'# Collective test starting' line";
        }
      } else if (auto header = header_layout(words)) {
        columns_ = header;
      }
      return;
    }
    if (!is_digits(words[0])) {  // NCCL INFO lines, MPI messages, anything else
      return;
    }
    // A data row.
    const auto size = to_uint(words[0]);
    if (!size || words.size() < 3 || !is_digits(words[1])) {
      fail_at(source, line_no, quote_value(line) + " is not a data row; " + std::string(row_shape));
    }
    if (is_integer(words[2]) || to_double(words[2])) {
      fail_at(source, line_no,
              "the third field " + quote_value(words[2]) +
                  " should be the element type (float, half, ...); " + std::string(row_shape));
    }
    std::size_t at = 0;
    std::size_t group = 4;
    std::size_t groups = 0;
    if (columns_) {
      group = columns_->group;
      at = columns_->preamble;
      const std::size_t body = words.size() - std::min(words.size(), at);
      if (body == 2 * group + columns_->trailing || body == 2 * group) {
        groups = 2;
      } else if (body == group + columns_->trailing || body == group) {
        groups = 1;
      }
    } else {
      at = 3;
      if (words.size() > 3 && !is_integer(words[3]) && !to_double(words[3]) && words[3] != "N/A") {
        at = 4;  // redop
      }
      if ((words.size() - at) % 2 == 1) {
        ++at;  // root
      }
      const std::size_t body = words.size() - std::min(words.size(), at);
      groups = body == 8 ? 2 : body == 4 ? 1 : 0;
    }
    if (groups == 0) {
      fail_at(source, line_no,
              "a data row with " + std::to_string(words.size()) + " fields, which is not " +
                  (columns_ ? "what the '#  size count' header announces" : "a known layout") +
                  " (truncated?); " + std::string(row_shape));
    }
    if (*size > max_size_bytes) {
      fail_at(source, line_no,
              "the size " + bounded(words[0]) + " B is above 2^60 B; is this column a size?");
    }
    if (run_.samples.size() + groups > max_samples) {
      fail_at(source, line_no,
              "more than 10000 data rows; calibrate takes one nccl-tests sweep per file");
    }
    const bytes bytes_m{static_cast<double>(*size)};
    if (groups == 2) {
      run_.samples.push_back(
          read_group(words, at, bytes_m, placement::out_of_place, source, line_no));
      at += group;
    }
    run_.samples.push_back(read_group(words, at, bytes_m, placement::in_place, source, line_no));
  }
  /// The run, once every line has been given; throws as parse_nccl_tests_text does.
  nccl_run finish() && {
    const std::string& source = run_.source;
    const auto line_no = line_no_;
    if (run_.samples.empty()) {
      throw invalid_spec(source, "no nccl-tests data rows in " + std::to_string(line_no) +
                                     " lines (expected rows such as '1048576  262144  float  sum"
                                     "  -1  27.37  38.31  67.04  0 ...'); is this nccl-tests "
                                     "output?");
    }
    if (max_rank_ >= 0) {
      run_.ranks = max_rank_ + 1;
      run_.ranks_from = "'#  Rank' lines";
    }
    // Rank lines without "on HOST" (an edited or truncated file) say nothing of the nodes; the
    // min/max over no hosts_ read past the end of the map (found by io_fuzzer).
    if (max_rank_ >= 0 && !hosts_.empty()) {
      run_.nodes = static_cast<std::int64_t>(hosts_.size());
      run_.nodes_from = "'#  Rank ... on HOST' lines";
      // One placement per profile: a node with fewer ranks than another would be a second
      // placement (its NICs carry a different share), so such a file is not one measurement.
      const auto [fewest, most] =
          std::minmax_element(hosts_.begin(), hosts_.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
      if (fewest->second != most->second) {
        throw invalid_spec(source, "mixed node sizes: host '" + detail::printable(fewest->first) +
                                       "' runs " + std::to_string(fewest->second) +
                                       " ranks and host '" + detail::printable(most->first) + "' " +
                                       std::to_string(most->second) +
                                       "; calibrate from a run with the same ranks on every node");
      }
    }
    return std::move(run_);
  }

 private:
  nccl_run run_;
  std::optional<detail::nccl::layout> columns_;
  std::int64_t max_rank_ = -1;
  std::map<std::string, std::int64_t, std::less<>> hosts_;  // ranks on each host
  std::size_t line_no_ = 0;
};

/// A whole nccl-tests text (see nccl_text_reader).
inline nccl_run parse_nccl_tests_text(std::string_view text, const std::string& source) {
  nccl_text_reader reader(source);
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    reader.line(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return std::move(reader).finish();
}

/// What the user says on the command line; it overrides what the file says.
struct run_overrides {
  std::optional<collective_op> collective;
  std::optional<std::int64_t> ranks;
  std::optional<std::int64_t> nodes;           ///< --nodes: for output without host lines
  std::optional<std::int64_t> ranks_per_node;  ///< --ranks-per-node: nodes = ranks / this
};

namespace detail::nccl {

/// The range of rank counts n whose factor F(n) matches every printed busbw/algbw pair,
/// allowing for the rounding of the printed digits. Empty optional: no usable pair.
inline std::optional<std::pair<double, double>> ranks_from_bandwidths(
    const nccl_run& run, collective_op kind, std::size_t& tightest_sample) {
  std::optional<std::pair<double, double>> range;
  double tightest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < run.samples.size(); ++i) {
    const auto& s = run.samples[i];
    const double h = s.printed_half_unit;
    if (!std::isfinite(h) || !(s.printed_algbw >= 100.0 * h)) {
      continue;  // too few digits to say anything
    }
    const double r_lo = (s.printed_busbw - h) / (s.printed_algbw + h);
    const double r_hi = (s.printed_busbw + h) / (s.printed_algbw - h);
    // F(n) = c·(n−1)/n with c = 2 or 1 is increasing in n: n = c/(c − F).
    const auto c = static_cast<double>(ring_passes(kind));
    const double n_lo = r_lo >= c ? std::numeric_limits<double>::infinity() : c / (c - r_lo);
    const double n_hi = r_hi >= c ? std::numeric_limits<double>::infinity() : c / (c - r_hi);
    const double width = std::isfinite(n_lo) && std::isfinite(n_hi) ? n_hi - n_lo : 1e300;
    if (!range || width < tightest) {
      tightest = width;
      tightest_sample = i;
    }
    range = range ? std::pair{std::max(range->first, n_lo), std::min(range->second, n_hi)}
                  : std::pair{n_lo, n_hi};
  }
  return range;
}

/// A number with up to `digits` significant digits, as printf's %g writes it.
inline std::string short_number(double value, int digits = 6) {
  std::array<char, 32> buffer{};
  const int n = std::snprintf(buffer.data(), buffer.size(), "%.*g", digits, value);
  return std::string(buffer.data(), static_cast<std::size_t>(std::max(n, 0)));
}

}  // namespace detail::nccl

/// Settles the collective and the rank count of a parsed run, then checks them against the
/// printed bandwidths: nccl-tests computed busbw/algbw = F(n) with the real n, so a wrong
/// --gpus or --op shows. Order of precedence: the overrides, then the file ('#
/// Collective test starting', '#  Rank' lines), then the file name (collective) or the
/// bandwidth ratio (ranks), then nThread × nGpus (a single process). Throws invalid_spec
/// naming the file when something cannot be settled or does not agree.
inline nccl_run resolve_run(nccl_run run, const run_overrides& given) {
  using namespace detail::nccl;
  if (given.collective) {
    run.collective = given.collective;
    run.collective_from = "--op";
  }
  if (!run.collective) {
    const auto slash = run.source.find_last_of('/');
    const auto base =
        detail::squash(slash == std::string::npos ? run.source : run.source.substr(slash + 1));
    for (const auto kind :
         {collective_op::all_reduce, collective_op::all_gather, collective_op::reduce_scatter}) {
      if (base.find(detail::squash(nccl_tests_name(kind))) != std::string::npos) {
        run.collective = kind;
        run.collective_from = "the file name";
      }
    }
  }
  if (!run.collective) {
    throw invalid_spec(run.source,
                       "cannot tell which collective this is (no '# Collective test starting' "
                       "line, no all_reduce/all_gather/reduce_scatter in the file name); pass "
                       "--op");
  }
  const auto kind = *run.collective;
  std::size_t ratio_sample = 0;
  const auto range = ranks_from_bandwidths(run, kind, ratio_sample);
  if (range && !(range->first <= range->second && range->first < 1e9)) {
    const auto& s = run.samples[ratio_sample];
    const double r = s.printed_busbw / s.printed_algbw;
    std::string hint;
    if (kind != collective_op::all_reduce && r > 1.0 && r < 2.0) {
      hint =
          " (as all_reduce it would be " + short_number(std::round(2.0 / (2.0 - r)), 6) + " ranks)";
    }
    throw invalid_spec(sample_location(run, s),
                       "busbw/algbw = " + short_number(s.printed_busbw) + "/" +
                           short_number(s.printed_algbw) + " = " + short_number(r, 5) + " fits " +
                           std::string(nccl_tests_name(kind)) + " for no number of ranks" + hint +
                           "; check --op (collective "
                           "from " +
                           run.collective_from + ")");
  }
  std::optional<std::int64_t> from_ratio;
  if (range && range->first <= range->second && range->first < 1e9) {
    const auto lo = static_cast<std::int64_t>(std::ceil(range->first - 1e-9));
    const auto hi = range->second < 1e9
                        ? static_cast<std::int64_t>(std::floor(range->second + 1e-9))
                        : std::numeric_limits<std::int64_t>::max();
    if (lo == hi && lo >= 2) {
      from_ratio = lo;
    }
  }
  if (given.ranks) {
    run.ranks = given.ranks;
    run.ranks_from = "--gpus";
  } else if (!run.ranks && from_ratio) {
    run.ranks = from_ratio;
    run.ranks_from = "busbw/algbw";
  } else if (!run.ranks && run.ranks_per_process) {
    run.ranks = run.ranks_per_process;
    run.ranks_from = "nThread x nGpus (assuming a single process)";
  }
  if (!run.ranks) {
    throw invalid_spec(run.source,
                       "cannot tell the number of ranks (no '#  Rank' lines, no bandwidths "
                       "precise enough to infer it); pass --gpus");
  }
  const auto n = *run.ranks;
  if (n < 2) {
    throw invalid_spec(run.source, std::to_string(n) + " rank(s) (from " + run.ranks_from +
                                       "): a collective over one rank moves no data, there is "
                                       "nothing to calibrate");
  }
  if (given.nodes || given.ranks_per_node) {
    const auto nodes = given.nodes ? *given.nodes : n / *given.ranks_per_node;
    const char* flag = given.nodes ? "--nodes" : "--ranks-per-node";
    if (given.ranks_per_node && n % *given.ranks_per_node != 0) {
      throw invalid_spec("--ranks-per-node", std::to_string(n) + " ranks (from " + run.ranks_from +
                                                 ") are not a multiple of " +
                                                 std::to_string(*given.ranks_per_node) +
                                                 " ranks per node");
    }
    if (given.nodes && (nodes > n || n % nodes != 0)) {
      throw invalid_spec("--nodes", std::to_string(n) + " ranks (from " + run.ranks_from +
                                        ") do not split evenly over " + std::to_string(nodes) +
                                        " nodes");
    }
    if (given.nodes && given.ranks_per_node && nodes * *given.ranks_per_node != n) {
      throw invalid_spec("--ranks-per-node", std::to_string(nodes) + " nodes x " +
                                                 std::to_string(*given.ranks_per_node) +
                                                 " ranks per node is not the " + std::to_string(n) +
                                                 " ranks of the run (from " + run.ranks_from + ")");
    }
    if (run.nodes && *run.nodes != nodes) {
      throw invalid_spec(flag, "the run's " + run.nodes_from + " give " +
                                   std::to_string(*run.nodes) + " nodes, not " +
                                   std::to_string(nodes));
    }
    run.nodes = nodes;
    run.nodes_from = flag;
  }
  if (range) {
    const double f = bus_factor(kind, n);
    const double nd = static_cast<double>(n);
    if (range->first > range->second || nd < range->first - 1e-9 || nd > range->second + 1e-9) {
      const auto& s = run.samples[ratio_sample];
      throw invalid_spec(
          sample_location(run, s),
          "busbw/algbw = " + short_number(s.printed_busbw) + "/" + short_number(s.printed_algbw) +
              " = " + short_number(s.printed_busbw / s.printed_algbw, 5) + ", but " +
              std::string(nccl_tests_name(kind)) + " over " + std::to_string(n) + " ranks (from " +
              run.ranks_from + ", collective from " + run.collective_from + ") has " +
              short_number(f, 5) + "; check --gpus and --op");
    }
  }
  return run;
}

/// Which of nccl-tests' two timings per size to fit.
enum class placement_filter { both, in_place, out_of_place };

/// "both", "in-place", "out-of-place": calibrate's --placement and a profile's fit/placement.
inline constexpr std::array<enum_name<placement_filter>, 3> placement_filter_names{{
    {"both", placement_filter::both},
    {"in-place", placement_filter::in_place},
    {"out-of-place", placement_filter::out_of_place},
}};

constexpr std::string_view to_string(placement_filter filter) {
  return name_of(placement_filter_names, filter);
}

/// Options of calibrate().
struct calibration_options {
  std::optional<bytes> min_size;  ///< fit only sizes >= this
  std::optional<bytes> max_size;  ///< fit only sizes <= this
  placement_filter placements = placement_filter::both;
  int segments = 3;  ///< lines of the piecewise fit; 1 = no piecewise fit
};

/// One (size, time) measurement as the fit sees it.
struct timed_size {
  bytes size{};
  seconds time{};
};

/// α and β of one line.
struct alpha_beta_fit {
  link_spec link;
  bool alpha_clamped = false;  ///< the unconstrained α was negative; α = 0 was fitted
};

namespace detail::fit {

inline constexpr double infeasible = std::numeric_limits<double>::infinity();

/// The weighted design of the relative-residual fit: rows (steps/t, F·M/t), target 1.
struct row {
  double u = 0.0;
  double v = 0.0;
};

inline row make_row(collective_op kind, std::int64_t n, const timed_size& p) {
  const double t = p.time.value();
  return {static_cast<double>(ring_steps(kind, n)) / t, bus_factor(kind, n) * p.size.value() / t};
}

/// Least squares of Σ(u·x1 + v·x2 − 1)² with x1 = α ≥ 0 and x2 = 1/β > 0, by modified
/// Gram–Schmidt on the column-normalised design. nullopt when β is not positive and finite.
inline std::optional<std::pair<double, double>> solve(std::span<const row> rows, bool& clamped) {
  double uu = 0.0;
  double vv = 0.0;
  for (const auto& r : rows) {
    uu += r.u * r.u;
    vv += r.v * r.v;
  }
  const double su = std::sqrt(uu);
  const double sv = std::sqrt(vv);
  if (!(su > 0.0) || !(sv > 0.0)) {
    return std::nullopt;
  }
  double r12 = 0.0;  // q1 = u/su; r12 = q1·(v/sv)
  double z1 = 0.0;   // q1·1
  for (const auto& r : rows) {
    r12 += (r.u / su) * (r.v / sv);
    z1 += r.u / su;
  }
  double r22sq = 0.0;
  double z2 = 0.0;
  for (const auto& r : rows) {
    const double w = r.v / sv - r12 * (r.u / su);
    r22sq += w * w;
    z2 += w;
  }
  const double r22 = std::sqrt(r22sq);
  clamped = false;
  double x1 = 0.0;
  double x2 = 0.0;
  if (r22 > 1e-12) {
    const double y2 = (z2 / r22) / r22;
    const double y1 = z1 - r12 * y2;
    x1 = y1 / su;
    x2 = y2 / sv;
  } else {
    x1 = -1.0;  // one size only: no separate α; fit β alone below
  }
  if (x1 < 0.0) {
    clamped = true;
    x1 = 0.0;
    double sv1 = 0.0;
    for (const auto& r : rows) {
      sv1 += r.v;
    }
    x2 = sv1 / vv;
  }
  if (!(x2 > 0.0) || !std::isfinite(x1) || !std::isfinite(1.0 / x2)) {
    return std::nullopt;
  }
  return std::pair{x1, x2};
}

inline double sum_of_squares(std::span<const row> rows, double x1, double x2) {
  double sum = 0.0;
  for (const auto& r : rows) {
    const double e = r.u * x1 + r.v * x2 - 1.0;
    sum += e * e;
  }
  return sum;
}

inline std::size_t distinct_sizes(std::span<const timed_size> points) {
  std::set<double> sizes;
  for (const auto& p : points) {
    sizes.insert(p.size.value());
  }
  return sizes.size();
}

}  // namespace detail::fit

/// Fits the ring model t(M) = steps(n)·α + F(n)·M/β to `points` by least squares on the
/// relative time residuals (see the header comment), with α ≥ 0 and β > 0. Exact: times
/// generated by the model give back α and β to rounding. Throws invalid_spec(`what`, ...)
/// with fewer than 2 distinct sizes or times that do not grow with the size.
inline alpha_beta_fit fit_ring_alpha_beta(collective_op kind, std::int64_t ranks,
                                          std::span<const timed_size> points,
                                          const std::string& what = "fit") {
  if (ranks < 2) {
    throw invalid_spec(what, "the ring model needs at least 2 ranks");
  }
  if (detail::fit::distinct_sizes(points) < 2) {
    throw invalid_spec(what,
                       "fitting alpha and beta needs at least 2 distinct message sizes, "
                       "got " +
                           std::to_string(detail::fit::distinct_sizes(points)));
  }
  std::vector<detail::fit::row> rows;
  rows.reserve(points.size());
  for (const auto& p : points) {
    if (!(p.time.value() > 0.0) || !(p.size.value() >= 0.0) || !std::isfinite(p.time.value())) {
      throw invalid_spec(what, "times must be positive and sizes non-negative");
    }
    rows.push_back(detail::fit::make_row(kind, ranks, p));
  }
  for (const auto& r : rows) {
    if (!std::isfinite(r.u * r.u) || !std::isfinite(r.v * r.v)) {
      throw invalid_spec(what,
                         "a time or size is out of the range the fit can handle (times "
                         "from 1 ns, sizes up to 2^60 B)");
    }
  }
  bool clamped = false;
  const auto x = detail::fit::solve(rows, clamped);
  if (!x) {
    throw invalid_spec(what,
                       "the times do not grow with the message size over this range, so "
                       "no bandwidth can be fitted; widen the size range");
  }
  return {{bytes_per_second(1.0 / x->second), seconds(x->first)}, clamped};
}

/// |relative error| statistics of busbw over the fitted points.
struct residual_stats {
  double median = 0.0;  ///< median of |busbw_model/busbw − 1|
  double worst = 0.0;   ///< largest |busbw_model/busbw − 1|
  bytes worst_at{};     ///< the size where the worst error is
};

/// One line of the piecewise fit, over sizes [min_size, max_size].
struct fit_segment {
  bytes min_size{};
  bytes max_size{};
  link_spec link;
  std::size_t points = 0;
  residual_stats error;
};

/// One fitted point's residual as the profile keeps it: the single line's leave-one-size-out
/// residual t / t_line − 1, t_line from the line refitted without every point of that size.
struct profile_residual {
  bytes size{};
  double residual = 0.0;
};

/// The calibrated interconnect: what the profile file holds and `--interconnect-file` reads.
struct interconnect_profile {
  collective_op collective = collective_op::all_reduce;
  std::int64_t ranks = 0;
  std::optional<std::int64_t> nodes;
  std::string nodes_from;  ///< how `nodes` was found (host lines, --nodes, --ranks-per-node)
  link_spec link;          ///< α and β of the single-line fit: per-step latency, per-direction β
  bytes min_size{};
  bytes max_size{};
  std::size_t points = 0;
  placement_filter placements = placement_filter::both;
  residual_stats error;               ///< of the single line
  std::vector<fit_segment> segments;  ///< the piecewise fit (empty when not asked for)
  residual_stats piecewise_error;
  std::vector<std::string> sources;
  /// Every fitted point's leave-one-size-out residual (the band's evidence, profile_band);
  /// empty in a profile written before tpcost kept them.
  std::vector<profile_residual> residuals;
};

/// The profile field that states the bandwidth convention; the loader requires this text.
inline constexpr std::string_view bandwidth_convention =
    "per-direction link bandwidth (nccl-tests busbw at large M)";

/// One measured point with both models' predictions.
struct fitted_point {
  bytes size{};
  placement where = placement::out_of_place;
  seconds time{};
  bytes_per_second busbw{};       ///< measured: F·M/t
  bytes_per_second line_busbw{};  ///< the single line's
  double line_error = 0.0;        ///< line_busbw/busbw − 1
  bytes_per_second piecewise_busbw{};
  double piecewise_error = 0.0;
  /// t / t_line − 1 with the line refitted without every point of this size (leave-one-size-
  /// out: the in-place and out-of-place timings of a size go together); line_error where the
  /// fit without them is impossible (fewer than 3 distinct sizes).
  double loo_error = 0.0;
  std::size_t segment = 0;  ///< index into profile.segments
  std::string source;
  std::size_t line = 0;
};

/// A calibration: the profile and the per-point residuals behind it.
struct calibration_result {
  interconnect_profile profile;
  std::vector<fitted_point> points;  ///< sorted by size, out-of-place before in-place
};

namespace detail::fit {

inline residual_stats stats_of(std::vector<std::pair<double, double>> errors_at) {
  residual_stats s;
  if (errors_at.empty()) {
    return s;
  }
  std::vector<double> abs_errors;
  for (const auto& [e, size] : errors_at) {
    abs_errors.push_back(std::fabs(e));
    if (std::fabs(e) >= s.worst) {
      s.worst = std::fabs(e);
      s.worst_at = bytes(size);
    }
  }
  std::sort(abs_errors.begin(), abs_errors.end());
  const auto m = abs_errors.size();
  s.median = m % 2 == 1 ? abs_errors[m / 2] : 0.5 * (abs_errors[m / 2 - 1] + abs_errors[m / 2]);
  return s;
}

/// Running sums of the normal equations of the relative-residual fit, for the breakpoint
/// search (the final fits use solve()).
struct sums {
  double uu = 0.0, uv = 0.0, vv = 0.0, u = 0.0, v = 0.0, count = 0.0;
  void add(const row& r) {
    uu += r.u * r.u;
    uv += r.u * r.v;
    vv += r.v * r.v;
    u += r.u;
    v += r.v;
    count += 1.0;
  }
  /// The least sum of squares with α >= 0, β > 0; infinity when β is not positive.
  [[nodiscard]] double least_squares() const {
    if (!(uu > 0.0) || !(vv > 0.0)) {
      return infeasible;
    }
    const double su = std::sqrt(uu);
    const double sv = std::sqrt(vv);
    const double c = uv / (su * sv);
    const double det = 1.0 - c * c;
    double x1 = -1.0;
    double x2 = 0.0;
    if (det > 1e-12) {
      const double g1 = u / su;
      const double g2 = v / sv;
      x1 = (g1 - c * g2) / det / su;
      x2 = (g2 - c * g1) / det / sv;
    }
    if (x1 < 0.0) {
      x1 = 0.0;
      x2 = v / vv;
    }
    if (!(x2 > 0.0)) {
      return infeasible;
    }
    const double sse =
        x1 * x1 * uu + 2.0 * x1 * x2 * uv + x2 * x2 * vv - 2.0 * x1 * u - 2.0 * x2 * v + count;
    return std::max(sse, 0.0);
  }
};

/// Breakpoints (indices into the distinct sizes) of the best piecewise fit with `segments`
/// lines, each over >= min_sizes distinct sizes; empty when no such split is feasible.
inline std::vector<std::size_t> best_split(collective_op kind, std::int64_t n,
                                           const std::vector<std::vector<timed_size>>& by_size,
                                           std::size_t segments, std::size_t min_sizes) {
  const std::size_t k = by_size.size();
  // cost[i][j]: least sum of squares of one line over distinct sizes [i, j).
  std::vector<std::vector<double>> cost(k + 1, std::vector<double>(k + 1, infeasible));
  for (std::size_t i = 0; i < k; ++i) {
    sums acc;
    for (std::size_t j = i + 1; j <= k; ++j) {
      for (const auto& p : by_size[j - 1]) {
        acc.add(make_row(kind, n, p));
      }
      if (j - i >= min_sizes) {
        cost[i][j] = acc.least_squares();
      }
    }
  }
  // best[s][j]: the least cost of s lines over sizes [0, j); from[s][j]: the last breakpoint.
  std::vector<std::vector<double>> best(segments + 1, std::vector<double>(k + 1, infeasible));
  std::vector<std::vector<std::size_t>> from(segments + 1, std::vector<std::size_t>(k + 1, 0));
  best[0][0] = 0.0;
  for (std::size_t s = 1; s <= segments; ++s) {
    for (std::size_t j = 1; j <= k; ++j) {
      for (std::size_t i = 0; i < j; ++i) {
        const double c = best[s - 1][i] + cost[i][j];
        if (c < best[s][j]) {
          best[s][j] = c;
          from[s][j] = i;
        }
      }
    }
  }
  if (!std::isfinite(best[segments][k])) {
    return {};
  }
  std::vector<std::size_t> starts(segments);
  std::size_t j = k;
  for (std::size_t s = segments; s >= 1; --s) {
    starts[s - 1] = from[s][j];
    j = from[s][j];
  }
  return starts;
}

}  // namespace detail::fit

/// Calibrates the ring model from the samples of runs that share one collective and one rank
/// count (resolve_run() them first): filters by size and placement, fits one α–β line and,
/// when options.segments > 1, the piecewise fit; returns the profile and every point's
/// residuals. Throws invalid_spec(`group`, ...) when too few points are left.
inline calibration_result calibrate(std::span<const nccl_run> runs,
                                    const calibration_options& options) {
  if (runs.empty()) {
    throw invalid_spec("calibrate", "no runs to calibrate from");
  }
  const auto kind = *runs.front().collective;
  const auto n = *runs.front().ranks;
  const std::string group =
      std::string(nccl_tests_name(kind)) + " over " + std::to_string(n) + " ranks";
  if (options.segments < 1 || options.segments > 8) {
    throw invalid_spec("--segments",
                       std::to_string(options.segments) + " is out of range; expected 1..8");
  }
  calibration_result result;
  auto& profile = result.profile;
  profile.collective = kind;
  profile.ranks = n;
  profile.placements = options.placements;
  for (const auto& run : runs) {
    profile.sources.push_back(run.source);
    if (run.nodes && *run.nodes > profile.nodes.value_or(0)) {
      profile.nodes = *run.nodes;
      profile.nodes_from = run.nodes_from;
    }
    for (const auto& s : run.samples) {
      const bool placement_ok =
          options.placements == placement_filter::both ||
          (options.placements == placement_filter::in_place) == (s.where == placement::in_place);
      const bool size_ok = s.size.value() > 0.0 &&
                           (!options.min_size || !(s.size < *options.min_size)) &&
                           (!options.max_size || !(*options.max_size < s.size));
      if (placement_ok && size_ok) {
        fitted_point p;
        p.size = s.size;
        p.where = s.where;
        p.time = s.time;
        p.busbw = bus_factor(kind, n) * s.size / s.time;
        p.source = run.source;
        p.line = s.line;
        result.points.push_back(std::move(p));
      }
    }
  }
  std::stable_sort(result.points.begin(), result.points.end(),
                   [](const fitted_point& a, const fitted_point& b) {
                     return a.size.value() < b.size.value() ||
                            (a.size.value() == b.size.value() && a.where < b.where);
                   });
  if (result.points.empty()) {
    throw invalid_spec(group,
                       "no measurement is left after the size range and placement "
                       "filters; widen --min-size/--max-size or --placement");
  }
  std::vector<timed_size> timed;
  for (const auto& p : result.points) {
    timed.push_back({p.size, p.time});
  }
  const auto line = fit_ring_alpha_beta(kind, n, timed, group);
  profile.link = line.link;
  profile.min_size = result.points.front().size;
  profile.max_size = result.points.back().size;
  profile.points = result.points.size();
  std::vector<std::pair<double, double>> line_errors;
  for (auto& p : result.points) {
    const auto t_model = ring_time(kind, n, p.size, profile.link);
    p.line_busbw = bus_factor(kind, n) * p.size / t_model;
    p.line_error = p.time / t_model - 1.0;
    p.piecewise_busbw = p.line_busbw;
    p.piecewise_error = p.line_error;
    line_errors.emplace_back(p.line_error, p.size.value());
  }
  profile.error = detail::fit::stats_of(line_errors);
  profile.piecewise_error = profile.error;
  // Leave-one-size-out: each distinct size's points judged by the line fitted without them.
  for (std::size_t i = 0; i < result.points.size();) {
    std::size_t end = i;
    while (end < result.points.size() &&
           result.points[end].size.value() == result.points[i].size.value()) {
      ++end;
    }
    std::vector<timed_size> rest;
    for (std::size_t j = 0; j < timed.size(); ++j) {
      if (j < i || j >= end) {
        rest.push_back(timed[j]);
      }
    }
    std::optional<link_spec> without;
    if (detail::fit::distinct_sizes(rest) >= 2) {
      try {
        without = fit_ring_alpha_beta(kind, n, rest, group).link;
      } catch (const invalid_spec&) {  // the rest does not grow with the size: keep in-sample
      }
    }
    for (std::size_t j = i; j < end; ++j) {
      auto& p = result.points[j];
      p.loo_error = without ? p.time / ring_time(kind, n, p.size, *without) - 1.0 : p.line_error;
      profile.residuals.push_back({p.size, p.loo_error});
    }
    i = end;
  }

  // Piecewise: group the points by distinct size, split into contiguous ranges.
  std::vector<std::vector<timed_size>> by_size;
  std::vector<std::size_t> first_point;  // index of the first point of each distinct size
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    if (i == 0 || result.points[i].size.value() != result.points[i - 1].size.value()) {
      by_size.emplace_back();
      first_point.push_back(i);
    }
    by_size.back().push_back(timed[i]);
  }
  constexpr std::size_t min_sizes = 3;
  constexpr std::size_t max_distinct = 1024;
  auto segments = std::min(static_cast<std::size_t>(options.segments), by_size.size() / min_sizes);
  if (options.segments > 1 && by_size.size() > max_distinct) {
    throw invalid_spec("--segments", "the piecewise search handles at most " +
                                         std::to_string(max_distinct) +
                                         " distinct sizes; use --segments 1 or fewer sizes");
  }
  std::vector<std::size_t> starts;
  while (options.segments > 1 && segments > 1) {
    starts = detail::fit::best_split(kind, n, by_size, segments, min_sizes);
    if (!starts.empty()) {
      break;
    }
    --segments;
  }
  if (starts.size() > 1) {
    first_point.push_back(result.points.size());
    std::vector<std::pair<double, double>> all_errors;
    for (std::size_t s = 0; s < starts.size(); ++s) {
      const std::size_t begin = first_point[starts[s]];
      const std::size_t end =
          s + 1 < starts.size() ? first_point[starts[s + 1]] : result.points.size();
      const auto seg_points = std::span<const timed_size>(timed).subspan(begin, end - begin);
      fit_segment seg;
      seg.link = fit_ring_alpha_beta(kind, n, seg_points, group).link;
      seg.min_size = result.points[begin].size;
      seg.max_size = result.points[end - 1].size;
      seg.points = end - begin;
      std::vector<std::pair<double, double>> seg_errors;
      for (std::size_t i = begin; i < end; ++i) {
        auto& p = result.points[i];
        const auto t_model = ring_time(kind, n, p.size, seg.link);
        p.piecewise_busbw = bus_factor(kind, n) * p.size / t_model;
        p.piecewise_error = p.time / t_model - 1.0;
        p.segment = s;
        seg_errors.emplace_back(p.piecewise_error, p.size.value());
        all_errors.emplace_back(p.piecewise_error, p.size.value());
      }
      seg.error = detail::fit::stats_of(seg_errors);
      profile.segments.push_back(seg);
    }
    profile.piecewise_error = detail::fit::stats_of(all_errors);
  }
  return result;
}

/// The band of a time the profile's line predicts, from its residuals (conformal_band, the
/// step's formula): over the points within a factor 4 of `size` (two sizes either side in
/// nccl-tests' doubling sweep: the error of the one line changes with the size, as NCCL
/// changes protocol), or over every point when no size is given (calibrate's summary). With
/// fewer than band_min_rows points near the size (outside the sweep), every point's band
/// widened ×band_widening, `near` false. nullopt when the profile holds no residuals.
struct measured_band {
  relative_band band;
  std::size_t points = 0;
  bool near = true;  ///< from the points near the size
  double mean_abs = 0.0, worst = 0.0;
  bytes min_size{}, max_size{};  ///< of the points used
};

inline std::optional<measured_band> profile_band(const interconnect_profile& profile,
                                                 std::optional<bytes> size = std::nullopt) {
  if (profile.residuals.empty()) {
    return std::nullopt;
  }
  const auto pick = [&](bool all) {
    measured_band out;
    std::vector<double> r;
    for (const auto& p : profile.residuals) {
      if (all || (4.0 * p.size.value() >= size->value() && p.size.value() <= 4.0 * size->value())) {
        if (r.empty() || p.size.value() < out.min_size.value()) {
          out.min_size = p.size;
        }
        out.max_size = r.empty() ? p.size : std::max(out.max_size, p.size);
        r.push_back(p.residual);
        out.mean_abs += std::fabs(p.residual);
        out.worst = std::max(out.worst, std::fabs(p.residual));
      }
    }
    out.points = r.size();
    out.mean_abs /= std::max<double>(1.0, static_cast<double>(r.size()));
    out.band = conformal_band(r);
    return out;
  };
  if (!size) {
    return pick(true);
  }
  auto near = pick(false);
  if (near.points >= band_min_rows) {
    return near;
  }
  auto all = pick(true);
  all.near = false;
  all.band.half_width *= band_widening;
  return all;
}

/// The profile to use when a file holds several: the all-reduce one with the most ranks,
/// else the first. Throws invalid_spec(field, ...) for an empty list.
inline const interconnect_profile& primary_profile(std::span<const interconnect_profile> profiles,
                                                   const std::string& field) {
  if (profiles.empty()) {
    throw invalid_spec(field, "the profile file holds no profile");
  }
  const interconnect_profile* best = nullptr;
  for (const auto& p : profiles) {
    if (p.collective == collective_op::all_reduce && (!best || p.ranks > best->ranks)) {
      best = &p;
    }
  }
  return best ? *best : profiles.front();
}

/// Which link of a cluster a calibrated profile measured.
enum class profile_scope { intra_node, inter_node };

inline constexpr std::array<enum_name<profile_scope>, 2> profile_scope_names{{
    {"intra-node", profile_scope::intra_node},
    {"inter-node", profile_scope::inter_node},
}};

/// "intra-node", "inter-node".
constexpr std::string_view to_string(profile_scope scope) {
  return name_of(profile_scope_names, scope);
}

/// The link a profile measured: the inter-node link when its run spanned nodes (`nodes` > 1,
/// read from nccl-tests' "#  Rank N ... on HOST" lines) or, when the file does not say
/// (`nodes` null), when it had more ranks than a node holds (`gpus_per_node`); otherwise the
/// intra-node link. The fitted β is the ring's bus bandwidth of that run: across nodes NCCL
/// runs its rings over every NIC of the node, so it is the NICs' sum the run's ranks reached
/// (with_profile divides it per NIC); inside a node it is the NVLink bus bandwidth.
inline profile_scope scope_of(const interconnect_profile& profile, std::int64_t gpus_per_node) {
  if (profile.nodes) {
    return *profile.nodes > 1 ? profile_scope::inter_node : profile_scope::intra_node;
  }
  return profile.ranks > gpus_per_node ? profile_scope::inter_node : profile_scope::intra_node;
}

/// Which link a profile measured and how that is known, in one sentence for the output and
/// the profile file ("inter-node: 2 nodes x 8 ranks ('#  Rank ... on HOST' lines); ...").
/// Without a node count the link is decided when the profile is used (scope_of).
inline std::string measured_link_text(const interconnect_profile& profile) {
  if (!profile.nodes) {
    return "unknown nodes (no '#  Rank ... on HOST' lines, --nodes or --ranks-per-node): "
           "inter-node where " +
           std::to_string(profile.ranks) + " ranks exceed --gpus-per-node, else intra-node";
  }
  const auto nodes = *profile.nodes;
  const auto per_node = profile.ranks / nodes;
  const std::string where = std::to_string(nodes) + (nodes == 1 ? " node x " : " nodes x ") +
                            std::to_string(per_node) + " ranks (" + profile.nodes_from + ")";
  if (nodes > 1) {
    return "inter-node: " + where +
           "; beta is the ring's bus bandwidth over a node's NICs, divided per NIC when used";
  }
  return "intra-node: " + where + "; beta is the NVLink bus bandwidth";
}

/// `topology` with the link the profile measured (scope_of) replaced by its fitted α and β,
/// marked as measured (NCCL's topology search is not re-applied to it; comm/nccl_tuner.hpp).
///  - inter-node: β is the bus bandwidth of a ring over the NICs the run's ranks per node
///    reached, min(NICs per node, max(1, ranks per node · NICs per GPU)) of them
///    (comm/topology.hpp, nccl_view_of); one NIC is β over that count, so a collective on the
///    same placement replays the file's bus bandwidth.
///  - intra-node: β is the measured NVLink bus bandwidth, whatever algorithm NCCL used for it
///    (an NVLS run included), so NVLS is not added on top of it: replayed as a ring.
inline cluster_topology with_profile(cluster_topology topology,
                                     const interconnect_profile& profile) {
  const bool inter = scope_of(profile, topology.gpus_per_node) == profile_scope::inter_node;
  if (!inter) {
    topology.intra = profile.link;
    topology.intra_measured = true;
    topology.nvls = false;
    return topology;
  }
  const std::int64_t nodes = profile.nodes.value_or(
      std::max<std::int64_t>(1, profile.ranks / std::max<std::int64_t>(1, topology.gpus_per_node)));
  const double per_node = static_cast<double>(profile.ranks) / static_cast<double>(nodes);
  const double nics = static_cast<double>(topology.nics_per_node > 0 ? topology.nics_per_node
                                                                     : topology.gpus_per_node);
  const double used =
      std::min(nics, std::max(1.0, per_node * nics / static_cast<double>(topology.gpus_per_node)));
  topology.inter = profile.link;
  topology.inter.bandwidth = profile.link.bandwidth / used;
  topology.inter_measured = true;
  return topology;
}

}  // namespace tpcost
