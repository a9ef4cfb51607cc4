#include "output/environment.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace tpcost::cli {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::optional<std::string> process_env(std::string_view name) {
  const std::string key(name);
  if (const char* value = std::getenv(key.c_str())) {
    return std::string(value);
  }
  return std::nullopt;
}

bool locale_is_utf8(const env_lookup& env) {
  for (const auto* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    if (const auto value = env(name); value && !value->empty()) {
      const auto v = lower(*value);
      return v.find("utf-8") != std::string::npos || v.find("utf8") != std::string::npos;
    }
  }
  return false;
}

}  // namespace tpcost::cli
