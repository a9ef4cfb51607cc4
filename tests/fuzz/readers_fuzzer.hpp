// One body for the readers' libFuzzer targets: a reader must reject any input with an
// invalid_spec (one line naming file:line), never crash, hang or throw anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/reading.hpp"
#include "tpcost/base/error.hpp"

template <class Read>
int fuzz_reader(const std::uint8_t* data, std::size_t size, const Read& read) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)read(text, tpcost::cli::formats::read_options{{{"NUM_NODES", "2"}}, false});
  } catch (const tpcost::invalid_spec&) {
    // The expected outcome for a malformed config.
  }
  return 0;
}
