// libFuzzer target: the DeepSpeed ds_config.json reader (after nlohmann's parse).
#include <nlohmann/json.hpp>

#include "readers_fuzzer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_reader(data, size, [](const std::string& text, const auto& opts) {
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded()) {
      return tpcost::cli::formats::reading{};
    }
    return tpcost::cli::formats::read_deepspeed_json(doc, text, "fuzz.json", opts);
  });
}
