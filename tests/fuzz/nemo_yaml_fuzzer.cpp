// libFuzzer target: the Megatron-Bridge/NeMo ConfigContainer YAML reader (yaml-cpp).
#include "readers_fuzzer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_reader(data, size, [](const std::string& text, const auto& opts) {
    return tpcost::cli::formats::read_nemo_yaml(text, "fuzz.yaml", opts);
  });
}
