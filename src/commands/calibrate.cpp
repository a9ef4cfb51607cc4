// `tpcost calibrate FILE...`: fits the ring α–β model to nccl-tests output and writes an
// interconnect profile.
#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "commands/commands.hpp"
#include "options/cli_options.hpp"
#include "options/flag_options.hpp"
#include "output/output_file.hpp"
#include "render/render.hpp"
#include "render/render_calibration.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/comm/calibration.hpp"
#include "tpcost/io/nccl_tests_json.hpp"
#include "tpcost/io/profile_json.hpp"

namespace tpcost::cli {

namespace {

struct calibrate_options {
  std::vector<std::string> files;
  std::string collective;
  std::string ranks;
  std::string nodes;
  std::string ranks_per_node;
  std::string placement = "both";
  std::string min_size;
  std::string max_size;
  std::string segments = "3";
  std::string out;
  std::string format = "table";
};

/// Input files are bounded so that a wrong path (a disk image, /dev/zero) fails fast.
constexpr std::uintmax_t max_input_bytes = std::uintmax_t{256} * 1024 * 1024;

/// A JSON report is parsed whole into a document about ten times its size, so it is bounded
/// lower than text, which streams.
constexpr std::size_t max_json_bytes = std::size_t{16} * 1024 * 1024;

[[noreturn]] void too_large(const std::string& path) {
  throw invalid_spec(path_for_message(path), "is larger than 256 MiB; is this nccl-tests output?");
}

/// Reads nccl-tests output as it streams by (issue 30): text is handed to the reader a line at
/// a time, so memory holds one 64 KiB chunk and the line it cuts, not the file (a 100 MB
/// file peaked at 208 MB when read into a string stream, 106 MB read into one string). JSON
/// (`-J`) is one document and is read whole.
nccl_run parse_input(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw invalid_spec(path_for_message(path), "cannot open the file");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw invalid_spec(path_for_message(path), "is not a regular file");
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > max_input_bytes) {
    too_large(path);
  }
  std::ifstream in(path, std::ios::binary);
  std::array<char, 1 << 16> chunk{};
  nccl_text_reader reader(path);
  enum class kind { undecided, text, json } is = kind::undecided;
  std::size_t blank_lines = 0;  // before the first byte that decides
  std::string json;
  std::string carry;  // the line the last chunk cut
  std::uintmax_t read = 0;
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    std::string_view got(chunk.data(), static_cast<std::size_t>(in.gcount()));
    read += got.size();
    if (read > max_input_bytes) {  // grown since file_size (a log still written)
      too_large(path);
    }
    if (is == kind::undecided) {
      const auto first = got.find_first_not_of(" \t\r\n");
      if (first == std::string_view::npos) {
        blank_lines += static_cast<std::size_t>(std::count(got.begin(), got.end(), '\n'));
        continue;
      }
      is = got[first] == '{' ? kind::json : kind::text;
      if (is == kind::json) {
        json.assign(blank_lines, '\n');  // so that the JSON reader's line numbers hold
      }
      for (; blank_lines > 0; --blank_lines) {
        reader.line("");
      }
    }
    if (is == kind::json) {
      json.append(got);
      if (json.size() > max_json_bytes) {
        throw invalid_spec(path_for_message(path),
                           "is a JSON report larger than 16 MiB; nccl-tests' -J report of a "
                           "sweep is a few KB");
      }
      continue;
    }
    for (auto end = got.find('\n'); end != std::string_view::npos; end = got.find('\n')) {
      if (carry.empty()) {
        reader.line(got.substr(0, end));
      } else {
        carry.append(got.substr(0, end));
        reader.line(carry);
        carry.clear();
      }
      got.remove_prefix(end + 1);
    }
    carry.append(got.substr(0, std::min(got.size(), detail::nccl::max_line_bytes + 1)));
    if (carry.size() > detail::nccl::max_line_bytes) {
      reader.line(carry);  // refused with the line's number
    }
  }
  if (in.bad()) {
    throw invalid_spec(path_for_message(path), "cannot read the file");
  }
  if (is == kind::json) {
    return parse_nccl_tests_json(json, path);
  }
  for (; blank_lines > 0; --blank_lines) {  // a blank file: the reader's "no data rows" error
    reader.line("");
  }
  if (!carry.empty()) {
    reader.line(carry);
  }
  return std::move(reader).finish();
}

run_overrides to_overrides(const calibrate_options& opts) {
  run_overrides given;
  if (!opts.collective.empty()) {
    given.collective = collective_from_name(opts.collective);
    if (!given.collective) {
      throw invalid_spec(
          "--op", "'" + opts.collective + "' is not all-reduce, all-gather or reduce-scatter");
    }
  }
  if (!opts.ranks.empty()) {
    const auto n = parse_count(opts.ranks, "--gpus");
    if (n < 2 || n > 1'000'000) {
      throw invalid_spec("--gpus", std::to_string(n) +
                                       " is out of range; expected a whole number in "
                                       "2..1000000 (one rank does not communicate)");
    }
    given.ranks = n;
  }
  for (const auto& [flag, text, field] :
       {std::tuple{"--nodes", &opts.nodes, &given.nodes},
        std::tuple{"--ranks-per-node", &opts.ranks_per_node, &given.ranks_per_node}}) {
    if (!text->empty()) {
      const auto k = parse_count(*text, flag);
      if (k < 1 || k > 1'000'000) {
        throw invalid_spec(
            flag, std::to_string(k) + " is out of range; expected a whole number in 1..1000000");
      }
      *field = k;
    }
  }
  return given;
}

calibration_options to_calibration_options(const calibrate_options& opts) {
  calibration_options o;
  if (const auto filter = value_named(placement_filter_names, opts.placement)) {
    o.placements = *filter;
  } else {
    throw invalid_spec("--placement",
                       "'" + opts.placement + "' is not one of both|in-place|out-of-place");
  }
  if (!opts.min_size.empty()) {
    o.min_size = parse_bytes(opts.min_size, "--min-size");
  }
  if (!opts.max_size.empty()) {
    o.max_size = parse_bytes(opts.max_size, "--max-size");
  }
  if (o.min_size && o.max_size && *o.max_size < *o.min_size) {
    throw invalid_spec("--max-size", "'" + opts.max_size + "' is below --min-size '" +
                                         opts.min_size + "': the range is empty");
  }
  const auto segments = parse_count(opts.segments, "--segments");
  if (segments < 1 || segments > 8) {
    throw invalid_spec("--segments", std::to_string(segments) + " is out of range; expected 1..8");
  }
  o.segments = static_cast<int>(segments);
  return o;
}

void run_calibrate(const calibrate_options& opts) {
  const auto format = parse_output_format(opts.format, "table|json");
  const auto given = to_overrides(opts);
  const auto options = to_calibration_options(opts);
  calibration_report report;
  for (const auto& path : opts.files) {
    report.runs.push_back(resolve_run(parse_input(path), given));
  }
  // One calibration per (collective, ranks), in the order the files came.
  std::vector<std::pair<collective_op, std::int64_t>> order;
  std::map<std::pair<collective_op, std::int64_t>, std::vector<nccl_run>> groups;
  for (const auto& run : report.runs) {
    const auto key = std::pair{*run.collective, *run.ranks};
    if (!groups.contains(key)) {
      order.push_back(key);
    }
    groups[key].push_back(run);
  }
  std::vector<interconnect_profile> profiles;
  for (const auto& key : order) {
    report.results.push_back(calibrate(groups[key], options));
    profiles.push_back(report.results.back().profile);
  }
  if (!opts.out.empty()) {
    write_output_file("--out", opts.out, profiles_document(profiles).dump(2) + "\n");
    report.profile_path = opts.out;
  }
  emit(output_flags{.format = opts.format, .output = ""}, render_calibration(report, format));
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto opts = std::make_shared<calibrate_options>();
  auto* cmd = app.add_subcommand(
      "calibrate", "Fit latency and bandwidth (alpha, beta) to nccl-tests output of your cluster");
  cmd->add_option("files", opts->files,
                  "nccl-tests output: the text all_reduce_perf, all_gather_perf or "
                  "reduce_scatter_perf print, or their -J JSON report")
      ->required();
  // --op and --gpus as collective names them; --ranks is --gpus's old name, and --collective,
  // which means the algorithm elsewhere, is still read here, unlisted.
  add_flag(*cmd, "--op", opts->collective);
  cmd->add_option("--collective", opts->collective)->group("");
  add_flag(*cmd, "--gpus", opts->ranks);
  add_flag(*cmd, "--nodes", opts->nodes);
  add_flag(*cmd, "--ranks-per-node", opts->ranks_per_node);
  add_flag(*cmd, "--placement", opts->placement)->capture_default_str();
  add_flag(*cmd, "--min-size", opts->min_size);
  add_flag(*cmd, "--max-size", opts->max_size);
  add_flag(*cmd, "--segments", opts->segments)->capture_default_str();
  add_flag(*cmd, "--out", opts->out);
  add_flag(*cmd, "--format", opts->format)->type_name("{table,json}")->capture_default_str();
  cmd->footer(R"(Examples:
  all_reduce_perf -b 1K -e 16G -f 2 -g 8 > ar.txt        # on your cluster
  tpcost calibrate ar.txt --out nvlink.json
  tpcost calibrate ar.txt --min-size 64MiB --segments 1   # the large-message line only
  tpcost calibrate ar.txt ag.txt rs.txt --format json
)");
  cmd->callback([opts] { run_calibrate(*opts); });
}

}  // namespace tpcost::cli
