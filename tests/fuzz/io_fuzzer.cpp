// libFuzzer target of the io readers: the Hugging Face config reader, the interconnect profile
// reader, and nccl-tests' text and JSON reports. The first byte picks the reader (its value
// mod 4), the rest is the file. One binary for the four, so that CI links one more target,
// not four. Every reader must reject any input with an invalid_spec, never crash, hang,
// overflow the stack or throw anything else. Built with TPCOST_FUZZ_HF_CONFIG_ONLY (the
// hf_config_fuzzer target), the whole input goes to the HF config reader.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tpcost/base/error.hpp"
#include "tpcost/comm/calibration.hpp"
#include "tpcost/io/hf_config.hpp"
#include "tpcost/io/nccl_tests_json.hpp"
#include "tpcost/io/profile_json.hpp"

namespace {

/// Inputs beyond this are a size test, not a fuzz input: the rate stays in the thousands per
/// second (the readers' own limits, 1 MiB, are tested by the CLI cases).
constexpr std::size_t max_input_bytes = 64 * 1024;

enum class reader : std::uint8_t { hf_config, profile, nccl_text, nccl_json };

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > max_input_bytes) {
    return 0;
  }
#ifdef TPCOST_FUZZ_HF_CONFIG_ONLY
  const auto which = reader::hf_config;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
#else
  const auto which = static_cast<reader>(data[0] % 4);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
#endif
  try {
    switch (which) {
      case reader::hf_config:
        (void)tpcost::io::parse_hf_config(text, "fuzz.json", "--hf-config");
        break;
      case reader::profile:
        (void)tpcost::parse_profiles(text, "fuzz.json", "--interconnect-file");
        break;
      case reader::nccl_text:
        (void)tpcost::parse_nccl_tests_text(text, "fuzz.txt");
        break;
      case reader::nccl_json:
        (void)tpcost::parse_nccl_tests_json(text, "fuzz.json");
        break;
    }
  } catch (const tpcost::invalid_spec&) {
    // The expected outcome for a malformed file.
  }
  return 0;
}
