// One table per enum: each value's names, its canonical spelling first, then the aliases a
// reader accepts. An enum's to_string and its parse function are both derived from its table,
// so a name is written once and what is printed is always read back.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace tpcost {

/// One spelling of an enum value.
template <class E>
struct enum_name {
  std::string_view name;
  E value;
};

/// The first name `names` gives `value` (its canonical spelling); `fallback` when none does.
template <class E, std::size_t N>
constexpr std::string_view name_of(const std::array<enum_name<E>, N>& names, E value,
                                   std::string_view fallback = "?") {
  for (const auto& n : names) {
    if (n.value == value) {
      return n.name;
    }
  }
  return fallback;
}

/// The value spelled exactly `text` in `names`; nullopt when none is.
template <class E, std::size_t N>
constexpr std::optional<E> value_named(const std::array<enum_name<E>, N>& names,
                                       std::string_view text) {
  for (const auto& n : names) {
    if (n.name == text) {
      return n.value;
    }
  }
  return std::nullopt;
}

/// The value whose name has the same `key` as `text` (a reader that ignores case, say, passes
/// a key that folds it); nullopt when none has.
template <class E, std::size_t N, class Key>
std::optional<E> value_named(const std::array<enum_name<E>, N>& names, std::string_view text,
                             const Key& key) {
  const auto wanted = key(text);
  for (const auto& n : names) {
    if (key(n.name) == wanted) {
      return n.value;
    }
  }
  return std::nullopt;
}

}  // namespace tpcost
