// The many-dimensional minimiser of the fit programs (tests/reference/*): Nelder–Mead's
// simplex search (reflection 1, expansion 2, contraction and shrink 1/2) from a start point,
// each coordinate's first step 20% of its start value, for a fixed number of iterations.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <vector>

namespace tpcost::test {

inline std::vector<double> nelder_mead_minimum(
    const std::function<double(const std::vector<double>&)>& f, const std::vector<double>& start,
    int iterations = 2000) {
  const std::size_t n = start.size();
  std::vector<std::vector<double>> p(n + 1, start);
  for (std::size_t i = 0; i < n; ++i) {
    p[i + 1][i] = start[i] != 0.0 ? 1.2 * start[i] : 0.1;
  }
  std::vector<double> v(n + 1);
  std::transform(p.begin(), p.end(), v.begin(), f);
  const auto toward = [n](const std::vector<double>& a, const std::vector<double>& b, double t) {
    std::vector<double> out(n);
    for (std::size_t j = 0; j < n; ++j) {
      out[j] = a[j] + t * (b[j] - a[j]);
    }
    return out;
  };
  std::vector<std::size_t> order(n + 1);
  for (int it = 0; it < iterations; ++it) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    const auto best = order.front(), worst = order.back(), second = order[n - 1];
    std::vector<double> c(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        c[j] += p[order[i]][j] / static_cast<double>(n);
      }
    }
    const auto r = toward(c, p[worst], -1.0);
    const double fr = f(r);
    if (fr < v[best]) {
      const auto e = toward(c, p[worst], -2.0);
      const double fe = f(e);
      p[worst] = fe < fr ? e : r;
      v[worst] = std::min(fe, fr);
    } else if (fr < v[second]) {
      p[worst] = r, v[worst] = fr;
    } else {
      const auto k = toward(c, p[worst], 0.5);
      const double fk = f(k);
      if (fk < v[worst]) {
        p[worst] = k, v[worst] = fk;
      } else {
        for (std::size_t i = 0; i <= n; ++i) {
          if (i != best) {
            p[i] = toward(p[best], p[i], 0.5);
            v[i] = f(p[i]);
          }
        }
      }
    }
  }
  return p[static_cast<std::size_t>(std::min_element(v.begin(), v.end()) - v.begin())];
}

}  // namespace tpcost::test
