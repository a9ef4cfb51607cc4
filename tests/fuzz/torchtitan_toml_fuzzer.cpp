// libFuzzer target: the torchtitan TOML job-config reader (toml++).
#include "readers_fuzzer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_reader(data, size, [](const std::string& text, const auto& opts) {
    return tpcost::cli::formats::read_torchtitan_toml(text, "fuzz.toml", opts);
  });
}
