// The error-band validation (docs/error-band.md; `make validate`): the step model on every
// development row the project holds, each row's residual r = t_measured / t_predicted − 1
// leave-one-out where a constant was fitted on those rows (the fit rerun without the row:
// dev_fits.hpp) and plain where nothing was, grouped by generation, dense or MoE, precision and
// stack (step/error_band.hpp, band_key), with the CP/EP/PP rows counted. Per group: the
// conformal band shipped to the CLI, and its own leave-one-out check (each row judged by the
// band of the group's other rows): coverage and median width against the mean error.
//
//   tpcost_error_band                  the JSON document (data/error_band.json) on stdout
//   tpcost_error_band --write FILE     writes it
//   tpcost_error_band --check FILE     exit 1 when FILE differs from what the rows give now
//   tpcost_error_band --markdown       the per-group table (docs/error-band.md)
//   tpcost_error_band --check-markdown FILE
//                                      exit 1 when FILE does not carry that table verbatim
//
// Fitted constants and the rows they were fitted on:
//   η_mm BF16/FP8 and η_attn, Hopper: the 16 DGX Cloud Nemotron-4 15B rows and the 9 NeMo
//     long-sequence Llama-2 7B H100 rows; Blackwell: the 6 consistent NeMo Llama-3 8B B200 rows.
//   the MoE host time per pass: the 10 BF16 MoE rows.
//   per-GPU η_mm (round3_fit.cpp): GB300 FP8 on the 3 GB300 FP8/MXFP8 rows, B200 BF16 on the 4
//     dense SimuMax B200 rows (gb300_b200_torchtitan_rows.hpp).
//   torchtitan's η_mm BF16, η_mm float8 and eager element-wise traffic (round3_fit.cpp): the 6
//     torchtitan H100 rows of the same file.
// Plain (nothing fitted on them): SC21 Table 1 (the A100 η come from Korthikanti et al. 2022),
// the Megatron-LM README H100 rows, the torchtitan CP rows, the FP8/MXFP8 MoE rows, the other 3
// third-round rows, the 12 fourth-round rows (moe_cp_dev_rows.hpp).
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "dev_fits.hpp"
#include "gb300_b200_torchtitan_rows.hpp"
#include "megatron_readme_rows.hpp"
#include "moe_cp_dev_rows.hpp"
#include "sc21.hpp"
#include "tpcost/step/error_band.hpp"
#include "tpcost/version.hpp"

using namespace tpcost;
using namespace tpcost::test;

namespace {

struct dev_row {
  std::string id;
  std::string file;  ///< tests/reference/...
  band_key key;
  bool cp = false, ep = false, pp = false;
  double in_sample = 0.0;  ///< the residual with the shipped constants
  double residual = 0.0;   ///< leave-one-out where fitted, else in_sample
  bool left_one_out = false;
  std::string fitted{};  ///< what was refitted without the row
};

double rounded(double x) { return std::round(x * 1e6) / 1e6; }

std::string generation_of(const std::string& gpu) {
  return std::string(band_generation(gpu_preset_by_name(gpu, "gpu").arch));
}

std::string precision_of(const std::string& recipe) {
  // The torchtitan rows' "fp8 (torchao float8 linear, rest BF16)" is an FP8 recipe.
  const auto word = recipe.substr(0, recipe.find(' '));
  return std::string(band_precision(parse_linear_precision(word, "precision")));
}

std::int64_t int_or_one(const nlohmann::json& r, const char* key) {
  return !r.contains(key) || r.at(key).is_null() ? 1 : r.at(key).get<std::int64_t>();
}

void add_sc21(std::vector<dev_row>& out) {
  for (const auto& r : reference::evaluate_table_1(kernel_efficiency{})) {
    out.push_back({.id = "sc21-table1-" + r.name,
                   .file = "megatron_sc21_table1.json",
                   .key = {"Ampere", false, "16-bit", "megatron-2021"},
                   .pp = r.inputs.par.pp > 1,
                   .in_sample = r.error(),
                   .residual = r.error()});
  }
}

void add_readme(std::vector<dev_row>& out) {
  for (const auto& r : reference::readme_rows(reference::megatron_core_overlapped())) {
    out.push_back({.id = r.id,
                   .file = "megatron_readme_h100_rows.json",
                   .key = {"Hopper", false, "16-bit", "megatron-core"},
                   .pp = r.pp > 1,
                   .in_sample = r.error(),
                   .residual = r.error()});
  }
}

/// The rows of `rows` (cp_fp8_dev_rows.json): leave-one-out by refitting η on `fit_set` less
/// the row when `fit` is set, plain otherwise; refused rows (an inconsistent layout) are left
/// out, as the fit leaves them.
void add_cp_fp8(std::vector<dev_row>& out, const nlohmann::json& rows, bool fit, bool blackwell,
                const std::string& stack) {
  const auto in_sample = evaluate_cp_fp8_rows(rows);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!in_sample[i].refused.empty()) {
      continue;
    }
    const auto& r = rows[i];
    dev_row row{.id = in_sample[i].id,
                .file = "cp_fp8_dev_rows.json",
                .key = {generation_of(r.at("gpu").get<std::string>()), false,
                        precision_of(r.at("precision").get<std::string>()), stack},
                .cp = int_or_one(r, "cp") > 1,
                .pp = int_or_one(r, "pp") > 1,
                .in_sample = in_sample[i].error,
                .residual = in_sample[i].error};
    if (fit) {
      auto rest = rows;
      rest.erase(i);
      const auto x = fit_efficiencies(rest, blackwell);
      const auto one = nlohmann::json::array({r});
      row.residual = evaluate_cp_fp8_rows(one, nullptr, &x).front().error;
      row.left_one_out = true;
      row.fitted = blackwell ? "eta_mm FP8, eta_attn (B200)" : "eta_mm BF16, eta_mm FP8, eta_attn";
    }
    out.push_back(row);
  }
}

void add_moe(std::vector<dev_row>& out) {
  const auto runs = moe_dev_runs();
  nlohmann::json bf16 = nlohmann::json::array();
  for (const auto& run : runs) {
    if (run.value("precision", std::string("bf16")) == "bf16") {
      bf16.push_back(run);
    }
  }
  const auto in_sample = evaluate_moe_rows(runs);
  std::size_t b = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& run = runs[i];
    const auto& pl = run.at("parallel");
    dev_row row{.id = in_sample[i].id,
                .file = "moe_dev_rows.json",
                .key = {generation_of(run.at("gpu").get<std::string>()), true,
                        std::string(band_precision(
                            parse_linear_precision(in_sample[i].precision, "precision"))),
                        "megatron-core"},
                .ep = pl.at("ep").get<std::int64_t>() > 1,
                .pp = pl.at("pp").get<std::int64_t>() > 1,
                .in_sample = in_sample[i].error(),
                .residual = in_sample[i].error()};
    if (in_sample[i].precision == "bf16") {
      nlohmann::json rest = nlohmann::json::array();
      for (std::size_t j = 0; j < bf16.size(); ++j) {
        if (j != b) {
          rest.push_back(bf16[j]);
        }
      }
      const auto one = nlohmann::json::array({bf16[b]});
      row.residual = evaluate_moe_rows(one, fit_moe_host_ms(rest) * 1e-3).front().error();
      row.left_one_out = true;
      row.fitted = "MoE host time per pass";
      ++b;
    }
    out.push_back(row);
  }
}

/// The third-round rows (gb300_b200_torchtitan_rows.hpp): leave-one-out for the rows a per-GPU
/// η_mm is fitted on (round3_fit.cpp: GB300 FP8, B200 BF16) and the torchtitan rows, the fit
/// rerun without the row;
/// plain for the rest.
void add_round3(std::vector<dev_row>& out) {
  const auto all = round3_dev_rows();
  for (const auto& run : all) {
    const auto r = evaluate_round3_row(run);
    dev_row row{.id = r.id,
                .file = "gb300_b200_torchtitan_rows.json",
                .key = {generation_of(r.gpu), r.moe, precision_of(r.precision), r.stack},
                .cp = r.cp,
                .ep = r.ep,
                .pp = r.pp,
                .in_sample = r.error(),
                .residual = r.error()};
    for (const auto fit : {round3_fit::gb300_fp8, round3_fit::b200_bf16}) {
      if (!in_round3_fit(run, fit)) {
        continue;
      }
      auto rest = nlohmann::json::array();
      for (const auto& other : round3_fit_rows(all, fit)) {
        if (other.at("id") != run.at("id")) {
          rest.push_back(other);
        }
      }
      const double x = fit_round3_matmul(rest);
      row.residual = evaluate_round3_row(run, &x).error();
      row.left_one_out = true;
      row.fitted = fit == round3_fit::gb300_fp8 ? "GB300 FP8 eta_mm" : "B200 BF16 eta_mm";
    }
    if (run.at("stack").get<std::string>() == "fsdp2") {  // torchtitan's three constants
      auto rest = nlohmann::json::array();
      for (const auto& other : torchtitan_fit_rows(all)) {
        if (other.at("id") != run.at("id")) {
          rest.push_back(other);
        }
      }
      const auto x = fit_torchtitan(rest);
      row.residual = evaluate_round3_row(run, nullptr, &x).error();
      row.left_one_out = true;
      row.fitted = "torchtitan eta_mm BF16, eta_mm float8, eager element-wise traffic";
    }
    out.push_back(row);
  }
}

/// The fourth-round rows (moe_cp_dev_rows.hpp): plain, nothing fitted on them; each run by the
/// harness of the file whose format it takes.
void add_round4(std::vector<dev_row>& out) {
  const std::string file = "moe_cp_dev_rows.json";
  const auto runs = moe_cp_dev_set("moe_runs");
  const auto moe = evaluate_moe_rows(runs);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& pl = runs[i].at("parallel");
    out.push_back({.id = moe[i].id,
                   .file = file,
                   .key = {generation_of(runs[i].at("gpu").get<std::string>()), true,
                           precision_of(moe[i].precision), "megatron-core"},
                   .cp = pl.value("cp", std::int64_t{1}) > 1,
                   .ep = pl.at("ep").get<std::int64_t>() > 1,
                   .pp = pl.at("pp").get<std::int64_t>() > 1,
                   .in_sample = moe[i].error(),
                   .residual = moe[i].error()});
  }
  const auto cp_rows = moe_cp_dev_set("cp_rows");
  const auto cp = evaluate_cp_fp8_rows(cp_rows);
  for (std::size_t i = 0; i < cp_rows.size(); ++i) {
    if (!cp[i].refused.empty()) {
      throw std::runtime_error(file + ": " + cp[i].id + " refused: " + cp[i].refused);
    }
    const auto& r = cp_rows[i];
    out.push_back({.id = cp[i].id,
                   .file = file,
                   .key = {generation_of(r.at("gpu").get<std::string>()), false,
                           precision_of(r.at("precision").get<std::string>()), "megatron-core"},
                   .cp = int_or_one(r, "cp") > 1,
                   .pp = int_or_one(r, "pp") > 1,
                   .in_sample = cp[i].error,
                   .residual = cp[i].error});
  }
  for (const auto& run : moe_cp_dev_set("nemo_rows")) {
    const auto r = evaluate_round3_row(run);
    out.push_back({.id = r.id,
                   .file = file,
                   .key = {generation_of(r.gpu), r.moe, precision_of(r.precision), r.stack},
                   .cp = r.cp,
                   .ep = r.ep,
                   .pp = r.pp,
                   .in_sample = r.error(),
                   .residual = r.error()});
  }
}

std::string group_name(const band_key& k) {
  return k.generation + (k.moe ? " MoE " : " dense ") + k.precision + " " + k.stack;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n == 0 ? 0.0 : (n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0);
}

/// The groups of `rows` (all but `skip`, when given) with at least band_min_rows rows: what the
/// CLI's choose_band picks from.
std::vector<band_group> build_groups(const std::vector<dev_row>& rows, const dev_row* skip) {
  std::vector<band_key> keys;
  for (const auto& r : rows) {
    if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) {
      keys.push_back(r.key);
    }
  }
  std::vector<band_group> out;
  for (const auto& key : keys) {
    band_group g{.name = group_name(key), .key = key};
    std::vector<double> residuals;
    for (const auto& r : rows) {
      if (r.key != key || &r == skip) {
        continue;
      }
      residuals.push_back(r.residual);
      g.left_one_out += static_cast<std::size_t>(r.left_one_out);
      g.cp_rows += static_cast<std::size_t>(r.cp);
      g.ep_rows += static_cast<std::size_t>(r.ep);
      g.pp_rows += static_cast<std::size_t>(r.pp);
      g.mean_abs += std::fabs(r.residual);
      g.worst = std::max(g.worst, std::fabs(r.residual));
    }
    g.rows = residuals.size();
    if (g.rows < band_min_rows) {
      continue;
    }
    g.mean_abs /= static_cast<double>(g.rows);
    const auto band = conformal_band(residuals);
    g.centre = band.centre;
    g.half_width = band.half_width;
    out.push_back(g);
  }
  return out;
}

band_input input_of(const dev_row& r) { return {.key = r.key, .cp = r.cp, .ep = r.ep, .pp = r.pp}; }

/// Each row judged by the band the CLI would give it from the other rows.
struct row_check {
  bool held = false;
  double half_width = 0.0;
  bool comparable = false;
};

std::vector<row_check> check_rows(const std::vector<dev_row>& rows) {
  std::vector<row_check> out;
  for (const auto& r : rows) {
    const auto groups = build_groups(rows, &r);
    const auto choice = choose_band(input_of(r), groups);
    out.push_back({choice.band.holds(r.residual), choice.band.half_width, choice.comparable});
  }
  return out;
}

nlohmann::json document() {
  std::vector<dev_row> rows;
  add_sc21(rows);
  add_readme(rows);
  nlohmann::json hopper = nlohmann::json::array(), blackwell = nlohmann::json::array(),
                 titan = nlohmann::json::array();
  for (const auto& r : cp_fp8_set("fp8_rows")) {
    if (r.at("id").get<std::string>().rfind("dgxc", 0) == 0) {
      hopper.push_back(r);
    }
  }
  for (const auto& r : cp_fp8_set("cp_rows")) {
    const auto id = r.at("id").get<std::string>();
    if (id.rfind("nemo-longseq-llama2-7b-h100", 0) == 0) {
      hopper.push_back(r);
    } else if (id.rfind("nemo-longseq-llama3-8b-b200", 0) == 0) {
      blackwell.push_back(r);
    } else if (id.rfind("torchtitan", 0) == 0) {
      titan.push_back(r);
    }
  }
  add_cp_fp8(rows, hopper, true, false, "megatron-core");
  add_cp_fp8(rows, blackwell, true, true, "megatron-core");
  add_cp_fp8(rows, titan, false, false, "fsdp2");
  add_moe(rows);
  add_round3(rows);
  add_round4(rows);

  const auto shipped = build_groups(rows, nullptr);
  const auto checks = check_rows(rows);
  std::vector<band_key> keys;
  for (const auto& r : rows) {
    if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) {
      keys.push_back(r.key);
    }
  }
  nlohmann::json groups = nlohmann::json::array(), coverage = nlohmann::json::array();
  std::size_t held = 0;
  for (const auto& g : shipped) {
    groups.push_back({{"name", g.name},
                      {"generation", g.key.generation},
                      {"moe", g.key.moe},
                      {"precision", g.key.precision},
                      {"stack", g.key.stack},
                      {"rows", g.rows},
                      {"left_one_out_rows", g.left_one_out},
                      {"cp_rows", g.cp_rows},
                      {"ep_rows", g.ep_rows},
                      {"pp_rows", g.pp_rows},
                      {"centre", rounded(g.centre)},
                      {"half_width", rounded(g.half_width)},
                      {"mean_abs_error", rounded(g.mean_abs)},
                      {"worst_abs_error", rounded(g.worst)}});
  }
  for (const auto& key : keys) {
    std::size_t n = 0, in = 0, comparable = 0;
    double mean = 0.0;
    std::vector<double> widths;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].key != key) {
        continue;
      }
      ++n;
      in += static_cast<std::size_t>(checks[i].held);
      comparable += static_cast<std::size_t>(checks[i].comparable);
      mean += std::fabs(rows[i].residual);
      widths.push_back(checks[i].half_width);
    }
    mean /= static_cast<double>(n);
    held += in;
    const double w = median(widths);
    coverage.push_back({{"group", group_name(key)},
                        {"rows", n},
                        {"judged_by_own_group", comparable},
                        {"held", in},
                        {"coverage", rounded(static_cast<double>(in) / static_cast<double>(n))},
                        {"mean_abs_error", rounded(mean)},
                        {"median_half_width", rounded(w)},
                        {"half_width_over_mean_error", rounded(w / mean)}});
  }
  nlohmann::json row_list = nlohmann::json::array();
  for (const auto& r : rows) {
    row_list.push_back(
        {{"id", r.id},
         {"file", "tests/reference/" + r.file},
         {"group", group_name(r.key)},
         {"cp", r.cp},
         {"ep", r.ep},
         {"pp", r.pp},
         {"residual", rounded(r.residual)},
         {"kind", r.left_one_out ? "leave-one-out" : "plain"},
         {"refitted", r.fitted.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.fitted)},
         {"in_sample_residual", rounded(r.in_sample)}});
  }
  return {{"schema", "tpcost.error-band/1"},
          {"tpcost_version", TPCOST_VERSION},
          {"generated_by", "tests/reference/error_band_validate.cpp (make validate)"},
          {"residual", "t_measured / t_predicted - 1 (TFLOP/s rows: predicted / measured - 1)"},
          {"band",
           "split-conformal: centre = mean residual, half width = the ceil(0.85 (n + 1))-th "
           "smallest |r - centre|; groups of fewer than 4 rows are not shipped"},
          {"coverage_target", band_coverage},
          {"rows_held_leave_one_out", held},
          {"rows_total", rows.size()},
          {"groups", groups},
          {"leave_one_out_check", coverage},
          {"rows", row_list}};
}

std::string text_of(const nlohmann::json& doc) { return doc.dump(1) + "\n"; }

/// The whole of the file at `path` (empty when it cannot be read, which no check matches).
std::string read_text(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The per-group tables docs/error-band.md carries.
std::string markdown_of(const nlohmann::json& doc) {
  std::string out =
      "| group | rows | leave-one-out | CP / EP / PP rows | mean error | worst | band |\n"
      "|---|---:|---:|---|---:|---:|---|\n";
  for (const auto& g : doc.at("groups")) {
    const double c = g.at("centre"), h = g.at("half_width");
    out += fmt::format(
        "| {} | {} | {} | {} / {} / {} | {:.1f}% | {:.1f}% | {:+.1f}% to {:+.1f}% |\n",
        g.at("name").get<std::string>(), g.at("rows").get<int>(),
        g.at("left_one_out_rows").get<int>(), g.at("cp_rows").get<int>(),
        g.at("ep_rows").get<int>(), g.at("pp_rows").get<int>(),
        100.0 * g.at("mean_abs_error").get<double>(), 100.0 * g.at("worst_abs_error").get<double>(),
        100.0 * (c - h), 100.0 * (c + h));
  }
  out +=
      "\n| rows of | rows | judged by their own group | held | coverage | mean error | median "
      "half width | half width / mean error |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& c : doc.at("leave_one_out_check")) {
    out += fmt::format("| {} | {} | {} | {} | {:.0f}% | {:.1f}% | {:.1f}% | {:.2f} |\n",
                       c.at("group").get<std::string>(), c.at("rows").get<int>(),
                       c.at("judged_by_own_group").get<int>(), c.at("held").get<int>(),
                       100.0 * c.at("coverage").get<double>(),
                       100.0 * c.at("mean_abs_error").get<double>(),
                       100.0 * c.at("median_half_width").get<double>(),
                       c.at("half_width_over_mean_error").get<double>());
  }
  out += fmt::format("\nall rows: {} of {} held by the band the other rows give them\n",
                     doc.at("rows_held_leave_one_out").get<int>(), doc.at("rows_total").get<int>());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto doc = document();
  if (argc == 3 && std::strcmp(argv[1], "--write") == 0) {
    std::ofstream(argv[2]) << text_of(doc);
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "--check") == 0) {
    if (read_text(argv[2]) != text_of(doc)) {
      std::fprintf(stderr,
                   "%s is stale: the development rows give another band now; run `make validate` "
                   "and commit it\n",
                   argv[2]);
      return 1;
    }
    std::printf("%s matches the development rows (%d rows, %zu groups)\n", argv[2],
                doc.at("rows_total").get<int>(), doc.at("groups").size());
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0) {
    std::cout << markdown_of(doc);
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "--check-markdown") == 0) {
    if (read_text(argv[2]).find(markdown_of(doc)) == std::string::npos) {
      std::fprintf(stderr,
                   "%s does not carry the tables the development rows give now; paste "
                   "`tpcost_error_band --markdown` into it\n",
                   argv[2]);
      return 1;
    }
    std::printf("%s carries the tables the development rows give\n", argv[2]);
    return 0;
  }
  std::cout << text_of(doc);
  return 0;
}
