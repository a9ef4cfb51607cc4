// Quantities with their dimension in the type: bytes, FLOP, seconds and their rates.
//
// All values are stored in SI base units (byte, FLOP, second). A dimension is the triple of
// exponents (byte, FLOP, second), so `bytes / bytes_per_second` is `seconds` and
// `bytes + seconds` does not compile. A product or quotient whose exponents all cancel is a
// plain `double`.
//
// Prefixes: decimal prefixes (k, M, G, T, P, E = 10^3 ... 10^18) as vendors' datasheets use
// them for rates and sizes; binary prefixes (KiB, MiB, GiB, TiB = 2^10 ... 2^40) for memory.
// So 1 GB = 10^9 B and 1 GiB = 2^30 B.
#pragma once

#include <compare>

namespace tpcost {

/// The exponents of byte, FLOP and second in a quantity's unit.
template <int Byte, int Flop, int Second>
struct dim {
  static constexpr int byte = Byte;
  static constexpr int flop = Flop;
  static constexpr int second = Second;
};

/// A double in SI base units, tagged with its dimension.
template <class Dim>
class quantity {
 public:
  using dimension = Dim;

  constexpr quantity() = default;
  constexpr explicit quantity(double value_in_si) : value_(value_in_si) {}

  /// The value in SI base units (bytes, FLOP, seconds, bytes/s, FLOP/s).
  [[nodiscard]] constexpr double value() const { return value_; }

  constexpr quantity& operator+=(quantity other) {
    value_ += other.value_;
    return *this;
  }
  constexpr quantity& operator-=(quantity other) {
    value_ -= other.value_;
    return *this;
  }

  friend constexpr quantity operator+(quantity a, quantity b) {
    return quantity(a.value_ + b.value_);
  }
  friend constexpr quantity operator-(quantity a, quantity b) {
    return quantity(a.value_ - b.value_);
  }
  friend constexpr quantity operator-(quantity a) { return quantity(-a.value_); }
  friend constexpr quantity operator*(double k, quantity a) { return quantity(k * a.value_); }
  friend constexpr quantity operator*(quantity a, double k) { return quantity(a.value_ * k); }
  friend constexpr quantity operator/(quantity a, double k) { return quantity(a.value_ / k); }
  // clang-tidy 14 reads the defaulted <=>'s comparison with the literal 0 as a null pointer.
  // NOLINTNEXTLINE(modernize-use-nullptr)
  friend constexpr auto operator<=>(quantity a, quantity b) = default;

 private:
  double value_ = 0.0;
};

namespace detail {
template <class D1, class D2>
using dim_product = dim<D1::byte + D2::byte, D1::flop + D2::flop, D1::second + D2::second>;
template <class D1, class D2>
using dim_quotient = dim<D1::byte - D2::byte, D1::flop - D2::flop, D1::second - D2::second>;

template <class D>
constexpr bool is_dimensionless = D::byte == 0 && D::flop == 0 && D::second == 0;

template <class D>
constexpr auto make(double v) {
  if constexpr (is_dimensionless<D>) {
    return v;
  } else {
    return quantity<D>(v);
  }
}
}  // namespace detail

template <class D1, class D2>
constexpr auto operator*(quantity<D1> a, quantity<D2> b) {
  return detail::make<detail::dim_product<D1, D2>>(a.value() * b.value());
}

template <class D1, class D2>
constexpr auto operator/(quantity<D1> a, quantity<D2> b) {
  return detail::make<detail::dim_quotient<D1, D2>>(a.value() / b.value());
}

template <class D>
constexpr auto operator/(double k, quantity<D> a) {
  return quantity<detail::dim_quotient<dim<0, 0, 0>, D>>(k / a.value());
}

using bytes = quantity<dim<1, 0, 0>>;
using flops = quantity<dim<0, 1, 0>>;  ///< a count of floating-point operations, not a rate
using seconds = quantity<dim<0, 0, 1>>;
using bytes_per_second = quantity<dim<1, 0, -1>>;
using flops_per_second = quantity<dim<0, 1, -1>>;

template <class D>
constexpr quantity<D> max(quantity<D> a, quantity<D> b) {
  return a < b ? b : a;
}
template <class D>
constexpr quantity<D> min(quantity<D> a, quantity<D> b) {
  return b < a ? b : a;
}

/// Unit constants: build a value as number times unit, e.g. `600 * units::GB / units::s`.
namespace units {
inline constexpr bytes B{1.0};
inline constexpr bytes kB{1e3};
inline constexpr bytes MB{1e6};
inline constexpr bytes GB{1e9};
inline constexpr bytes TB{1e12};
inline constexpr bytes KiB{1024.0};
inline constexpr bytes MiB{1024.0 * 1024.0};
inline constexpr bytes GiB{1024.0 * 1024.0 * 1024.0};
inline constexpr bytes TiB{1024.0 * 1024.0 * 1024.0 * 1024.0};

inline constexpr flops FLOP{1.0};
inline constexpr flops GFLOP{1e9};
inline constexpr flops TFLOP{1e12};
inline constexpr flops PFLOP{1e15};

inline constexpr seconds s{1.0};
inline constexpr seconds ms{1e-3};
inline constexpr seconds us{1e-6};
inline constexpr seconds ns{1e-9};
}  // namespace units

}  // namespace tpcost
