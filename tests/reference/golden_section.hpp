// The one-dimensional minimiser of the fit programs (tests/reference/*_fit.cpp): golden-section
// search of a unimodal f on [lo, hi], to a bracket of 1e-4, and the coordinate-descent step
// that runs it on one field of a trial.
#pragma once

#include <cmath>
#include <functional>

namespace tpcost::test {

inline double golden_section_minimum(const std::function<double(double)>& f, double lo, double hi) {
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  while (b - a > 1e-4) {
    if (fc < fd) {
      b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
    }
  }
  return (a + b) / 2.0;
}

/// One step of coordinate descent: sets `x.*field` to the golden-section minimum on [lo, hi]
/// of `loss` over trials that differ from `x` in that field only.
template <typename Trial, typename Loss>
void coordinate_step(Trial& x, double Trial::*field, double lo, double hi, const Loss& loss) {
  x.*field = golden_section_minimum(
      [&](double v) {
        Trial y = x;
        y.*field = v;
        return loss(y);
      },
      lo, hi);
}

}  // namespace tpcost::test
