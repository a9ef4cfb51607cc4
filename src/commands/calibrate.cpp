// `tpcost calibrate FILE...`: fits the ring α–β model to nccl-tests output and writes an
// interconnect profile.
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "commands/commands.hpp"
#include "options/cli_options.hpp"
#include "output/output_file.hpp"
#include "render/render.hpp"
#include "render/render_calibration.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/hardware/calibration.hpp"
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
constexpr std::uintmax_t max_input_bytes = 256u * 1024u * 1024u;

std::string read_input(const std::string& path) {
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
    throw invalid_spec(path_for_message(path),
                       "is larger than 256 MiB; is this nccl-tests output?");
  }
  // Read once into one buffer of the file's size (issue 30): a stringstream held the file
  // twice (its buffer and str()'s copy), 208 MB peak for a 100 MB file.
  std::ifstream in(path, std::ios::binary);
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  std::array<char, 1 << 16> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_input_bytes) {  // grown since file_size (a log still written)
      throw invalid_spec(path_for_message(path),
                         "is larger than 256 MiB; is this nccl-tests output?");
    }
  }
  if (in.bad()) {
    throw invalid_spec(path_for_message(path), "cannot read the file");
  }
  return text;
}

nccl_run parse_input(const std::string& path) {
  const auto text = read_input(path);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    return parse_nccl_tests_json(text, path);
  }
  return parse_nccl_tests_text(text, path);
}

run_overrides to_overrides(const calibrate_options& opts) {
  run_overrides given;
  if (!opts.collective.empty()) {
    given.collective = collective_from_name(opts.collective);
    if (!given.collective) {
      throw invalid_spec("--collective", "'" + opts.collective +
                                             "' is not all-reduce, all-gather or reduce-scatter");
    }
  }
  if (!opts.ranks.empty()) {
    const auto n = parse_count(opts.ranks, "--ranks");
    if (n < 2 || n > 1'000'000) {
      throw invalid_spec("--ranks", std::to_string(n) +
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
  if (opts.placement == "both") {
    o.placements = placement_filter::both;
  } else if (opts.placement == "in-place") {
    o.placements = placement_filter::in_place;
  } else if (opts.placement == "out-of-place") {
    o.placements = placement_filter::out_of_place;
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
  std::vector<std::pair<collective_kind, std::int64_t>> order;
  std::map<std::pair<collective_kind, std::int64_t>, std::vector<nccl_run>> groups;
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
  cmd->add_option("--collective", opts->collective,
                  "all-reduce, all-gather or reduce-scatter (default: from the file's '# "
                  "Collective test starting' line or its name)");
  cmd->add_option("--ranks", opts->ranks,
                  "ranks of the run (default: the '#  Rank' lines, else busbw/algbw, else "
                  "nThread x nGpus)");
  cmd->add_option("--nodes", opts->nodes,
                  "nodes of the run, when its output has no '#  Rank ... on HOST' lines");
  cmd->add_option("--ranks-per-node", opts->ranks_per_node,
                  "ranks on each node of the run (nodes = ranks / this), when the output has "
                  "no host lines");
  cmd->add_option("--placement", opts->placement, "timings to fit: both, in-place, out-of-place")
      ->capture_default_str();
  cmd->add_option("--min-size", opts->min_size, "fit only sizes >= this, e.g. 1KiB");
  cmd->add_option("--max-size", opts->max_size, "fit only sizes <= this, e.g. 16GiB");
  cmd->add_option("--segments", opts->segments,
                  "lines of the piecewise fit shown beside the single line (1 = none), 1..8")
      ->capture_default_str();
  cmd->add_option("--out", opts->out,
                  "write the interconnect profile (JSON) here, for --interconnect-file");
  cmd->add_option("-f,--format", opts->format, "output format: table|json")->capture_default_str();
  cmd->footer(R"(Examples:
  all_reduce_perf -b 1K -e 16G -f 2 -g 8 > ar.txt        # on your cluster
  tpcost calibrate ar.txt --out nvlink.json
  tpcost calibrate ar.txt --min-size 64MiB --segments 1   # the large-message line only
  tpcost calibrate ar.txt ag.txt rs.txt --format json
)");
  cmd->callback([opts] { run_calibrate(*opts); });
}

}  // namespace tpcost::cli
