// libFuzzer target: the config loader must reject any input with a config_error, never crash,
// hang or throw anything else.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "formats/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)tpcost::cli::parse_config(text, "fuzz.json");
  } catch (const tpcost::invalid_spec&) {
    // The expected outcome for a malformed config.
  }
  return 0;
}
