// The environment variables the output depends on (the locale's character set, NO_COLOR):
// read through a lookup that tests can replace.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tpcost::cli {

/// Reads an environment variable; empty optional when unset. Injected so tests can vary it.
using env_lookup = std::function<std::optional<std::string>(std::string_view)>;
std::optional<std::string> process_env(std::string_view name);

/// True when the locale's character set is UTF-8: the first set and non-empty of LC_ALL,
/// LC_CTYPE, LANG names it ("C.UTF-8", "en_US.utf8"); unset means the C locale, ASCII.
bool locale_is_utf8(const env_lookup& env);

}  // namespace tpcost::cli
