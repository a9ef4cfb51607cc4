// libFuzzer target: the reader of a Megatron-LM training log's arguments block.
#include "readers_fuzzer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_reader(data, size, [](const std::string& text, const auto& opts) {
    return tpcost::cli::formats::read_megatron_log(text, "fuzz.log", opts);
  });
}
