// libFuzzer target: the Megatron-LM launch-script reader (shell words, variables, arithmetic,
// if/elif chains, sourced files). A sourced file's text is the input itself, never the disk's:
// `source a.sh` then `source b.sh` exercise the depth bound and the cycle check.
#include "readers_fuzzer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_reader(data, size, [](const std::string& text, const auto& opts) {
    auto with_sources = opts;
    with_sources.read_source = [&text](const std::string&) { return text; };
    return tpcost::cli::formats::read_megatron_script(text, "fuzz.sh", with_sources);
  });
}
