// The mean and worst |relative error| of a set of development rows, as every fit and table of
// tests/reference reports them.
#pragma once

#include <cmath>

namespace tpcost::test {

struct error_summary {
  double sum = 0.0;    ///< Σ |error|
  double worst = 0.0;  ///< max |error|
  int n = 0;           ///< rows added
  void add(double error) {
    sum += std::fabs(error);
    worst = std::fmax(worst, std::fabs(error));
    ++n;
  }
  [[nodiscard]] double mean() const { return n > 0 ? sum / n : 0.0; }
};

}  // namespace tpcost::test
