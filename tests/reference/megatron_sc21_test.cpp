// The step model against Narayanan et al. 2021 (SC21) Table 1; see sc21.hpp for the setup.
#include <catch2/catch.hpp>

#include "sc21.hpp"

using namespace tpcost;
using namespace tpcost::reference;

namespace {
void check_rows(const std::vector<sc21_row>& rows) {
  REQUIRE(rows.size() == 10);
  for (const auto& r : rows) {
    CAPTURE(r.name, r.predicted_tflops, r.measured_tflops);
    // The model's general FLOP count is the paper's eq. (3) for these GPT models.
    CHECK_THAT(r.result.flops.hardware.value(),
               Catch::Matchers::WithinRel(r.paper_flops.value(), 1e-12));
    CHECK(r.result.memory.fits());  // every published run fitted in 80 GB
  }
}
}  // namespace

TEST_CASE(
    "SC21 Table 1: the default A100 model predicts all ten rows, mean error <= 5%, worst "
    "<= 12%",
    "[reference][step]") {
  const auto rows = evaluate_table_1(kernel_efficiency{});
  check_rows(rows);
  CHECK(mean_abs_error(rows) <= 0.05);
  CHECK(worst_error(rows) <= 0.12);
  // What the README reports (mean 1.45%, worst 3.86%): keep it from drifting unnoticed.
  CHECK(mean_abs_error(rows) <= 0.02);
  CHECK(worst_error(rows) <= 0.045);
}

TEST_CASE(
    "SC21 Table 1: with no constant taken from the table (evidence-only efficiencies) the "
    "bar is still met",
    "[reference][step]") {
  // eta_mm = 0.754 and eta_bw = 0.790: the A100's best measured matmul (0.86 of peak) and HBM
  // (0.90) ceilings, slowed by one factor calibrated on the 27.2 ms measured for a 22B layer by
  // Korthikanti et al. 2022 (arXiv:2205.05198, Table 4), not on Table 1.
  const auto rows = evaluate_table_1(kernel_efficiency{.matmul = 0.754, .memory = 0.790});
  check_rows(rows);
  CHECK(mean_abs_error(rows) <= 0.05);
  CHECK(worst_error(rows) <= 0.12);
}
