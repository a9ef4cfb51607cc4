// Guards for numbers that enter or leave the model: products of whole numbers checked before
// they are formed, and results checked finite before anyone prints them.
//
// The rule (docs/fuzzing.md, "Numbers"): every number is finite, in its documented range and
// representable in the type the model uses; a product that would not fit an int64 is an
// invalid input naming the field, never a wrapped value (signed overflow is undefined
// behaviour) and never a division by zero.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "tpcost/base/error.hpp"

namespace tpcost {

/// Sets `out` to a·b and returns true, or returns false when a·b does not fit an int64 (the
/// product is never formed in a wrapping or undefined way).
[[nodiscard]] constexpr bool multiply_fits(std::int64_t a, std::int64_t b, std::int64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}

/// The product of `factors`; throws invalid_spec(field, "<what> overflows ...") when it does
/// not fit an int64.
inline std::int64_t checked_product(const std::string& field,
                                    std::initializer_list<std::int64_t> factors,
                                    const std::string& what) {
  std::int64_t product = 1;
  for (const auto f : factors) {
    if (!multiply_fits(product, f, product)) {
      throw invalid_spec(field, what +
                                    " overflows a 64-bit integer; the inputs are far beyond "
                                    "any real run");
    }
  }
  return product;
}

/// `value` when it is finite; else throws invalid_spec(field, ...) saying which result came out
/// non-finite, so that inf or NaN never reaches a table cell or a JSON null.
inline double require_finite_result(const std::string& field, double value,
                                    const std::string& what) {
  if (!std::isfinite(value)) {
    throw invalid_spec(field, std::string("makes the ") + what + " " +
                                  (std::isnan(value) ? "NaN" : "infinite") +
                                  "; the value is too small or too large for the model (check "
                                  "its unit)");
  }
  return value;
}

}  // namespace tpcost
