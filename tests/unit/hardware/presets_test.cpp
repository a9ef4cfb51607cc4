// Hardware presets: every number present, positive, sourced and plausible; lookup by name and
// alias; did-you-mean for a typo.
#include "tpcost/hardware/presets.hpp"

#include <catch2/catch.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "support/matchers.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {

void check_sourced_rate(const sourced<flops_per_second>& r, const std::string& what) {
  CAPTURE(what);
  CHECK(r.value.value() > 0.0);
  CHECK(!r.source.empty());
}

}  // namespace

TEST_CASE("Every GPU preset has positive numbers and a source for each", "[presets]") {
  for (const auto& g : gpu_presets) {
    CAPTURE(std::string(g.name));
    CHECK(!g.description.empty());
    CHECK(!g.reference.empty());
    check_sourced_rate(g.peak.fp64, "fp64");
    check_sourced_rate(g.peak.fp32, "fp32");
    if (g.peak.tf32.value.value() > 0.0) {
      check_sourced_rate(g.peak.tf32, "tf32");
    } else {  // CDNA 4 has no TF32 matrix mode
      CHECK(std::string(g.peak.tf32.source).find("no TF32") != std::string::npos);
    }
    check_sourced_rate(g.peak.bf16, "bf16");
    check_sourced_rate(g.peak.fp16, "fp16");
    CHECK(!g.peak.fp8.source.empty());
    CHECK(g.peak.fp8.value.value() >= 0.0);
    CHECK(g.memory.value.value() > 0.0);
    CHECK(!g.memory.source.empty());
    CHECK(g.memory_bandwidth.value.value() > 0.0);
    CHECK(!g.memory_bandwidth.source.empty());
    CHECK(g.gpus_per_node.value >= 1);
    CHECK(!g.gpus_per_node.source.empty());
    CHECK(!g.intra.name.empty());
    CHECK(g.intra.bandwidth.value.value() > 0.0);
    CHECK(!g.intra.bandwidth.source.empty());
    CHECK(g.intra.latency.value.value() > 0.0);
    CHECK(!g.intra.latency.source.empty());
  }
}

TEST_CASE("Peak rates rise from fp64 to fp8 as on every datasheet", "[presets]") {
  for (const auto& g : gpu_presets) {
    CAPTURE(std::string(g.name));
    CHECK(g.peak.fp32.value >= g.peak.fp64.value);
    CHECK((g.peak.tf32.value > g.peak.fp32.value || g.peak.tf32.value.value() == 0.0));
    CHECK(g.peak.bf16.value >= g.peak.tf32.value);
    CHECK(g.peak.fp16.value >= g.peak.bf16.value);
    if (g.peak.fp8.value.value() > 0.0) {
      CHECK(g.peak.fp8.value >= g.peak.bf16.value);
    } else {
      CHECK(std::string(g.peak.fp8.source).find("no FP8") != std::string::npos);
    }
  }
}

TEST_CASE("Preset magnitudes are those of current data-centre parts", "[presets]") {
  for (const auto& g : gpu_presets) {
    CAPTURE(std::string(g.name));
    CHECK(g.memory.value >= 40 * units::GiB);
    CHECK(g.memory.value <= 1024 * units::GiB);
    CHECK(g.memory_bandwidth.value >= 1 * units::TB / units::s);
    CHECK(g.memory_bandwidth.value <= 20 * units::TB / units::s);
    CHECK(g.peak.bf16.value >= 100 * units::TFLOP / units::s);
    CHECK(g.peak.bf16.value <= 10 * units::PFLOP / units::s);
    // A GPU-to-GPU link is slower than the GPU's own memory.
    CHECK(g.intra.bandwidth.value < g.memory_bandwidth.value);
    CHECK(g.intra.latency.value < 100 * units::us);
  }
  for (const auto& n : interconnect_presets) {
    CAPTURE(std::string(n.name));
    CHECK(!n.link.bandwidth.source.empty());
    CHECK(!n.link.latency.source.empty());
    CHECK(n.link.bandwidth.value >= 10 * units::GB / units::s);
    CHECK(n.link.bandwidth.value <= 200 * units::GB / units::s);
    CHECK(n.link.latency.value > 0 * units::us);
  }
}

TEST_CASE("Datasheet anchors: A100 312 TFLOP/s and 300 GB/s, H100 989.4 and 450", "[presets]") {
  const auto& a100 = gpu_preset_by_name("A100-SXM4-80GB", "--gpu");
  CHECK(a100.peak.bf16.value.value() == 312e12);
  CHECK(a100.peak.fp8.value.value() == 0.0);
  CHECK(a100.intra.bandwidth.value.value() == 300e9);  // 600 GB/s both directions
  CHECK(a100.memory.value.value() == 80.0 * 1073741824.0);
  const auto& h100 = gpu_preset_by_name("H100-SXM", "--gpu");
  CHECK_THAT(h100.peak.bf16.value.value(), near(989.4e12));
  CHECK(h100.intra.bandwidth.value.value() == 450e9);  // 900 GB/s both directions
  CHECK_THAT(h100.memory_bandwidth.value.value(), near(3.35e12));
  CHECK(gpu_preset_by_name("GB200-NVL72", "--gpu").gpus_per_node.value == 72);
  CHECK(interconnect_preset_by_name("NDR", "--interconnect").link.bandwidth.value.value() ==
        50e9);  // 400 Gb/s
  CHECK(interconnect_preset_by_name("hdr", "--interconnect").link.bandwidth.value.value() ==
        25e9);  // 200 Gb/s
}

TEST_CASE("Names and aliases are unique across all presets", "[presets]") {
  std::set<std::string> seen;
  const auto add = [&](std::string_view name) {
    if (name.empty()) {
      return;
    }
    const auto key = detail::normalise_preset_name(name);
    CAPTURE(std::string(name));
    CHECK(seen.insert(key).second);
  };
  for (const auto& g : gpu_presets) {
    add(g.name);
    for (const auto a : g.aliases) {
      add(a);
    }
  }
  for (const auto& n : interconnect_presets) {
    add(n.name);
    for (const auto a : n.aliases) {
      add(a);
    }
  }
  CHECK(seen.size() > gpu_presets.size() + interconnect_presets.size());
}

TEST_CASE("Lookup ignores case and separators and accepts aliases", "[presets]") {
  for (const char* name : {"h100", "H100", "h100-sxm", "H100-SXM5-80GB", "h100_sxm5", "h100 sxm"}) {
    CAPTURE(name);
    REQUIRE(find_gpu_preset(name) != nullptr);
    CHECK(find_gpu_preset(name)->name == "H100-SXM");
  }
  CHECK(find_gpu_preset("mi300")->name == "MI300X");
  CHECK(find_gpu_preset("nvl72")->name == "GB200-NVL72");
  CHECK(find_gpu_preset("a100")->name == "A100-SXM4-80GB");
  CHECK(find_gpu_preset("A100-PCIe")->name == "A100-PCIe-80GB");
  CHECK(find_interconnect_preset("ib-ndr")->name == "IB-NDR");
  CHECK(find_interconnect_preset("RoCE")->name == "RoCE-400G");
  CHECK(find_gpu_preset("ndr") == nullptr);  // an interconnect is not a GPU
  CHECK(find_gpu_preset("") == nullptr);
}

TEST_CASE("An unknown name fails with the field and the nearest preset", "[presets]") {
  try {
    (void)gpu_preset_by_name("h10", "--gpu");
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK(e.field() == "--gpu");
    CHECK(std::string(e.what()) == "--gpu: 'h10' is not a GPU preset; did you mean 'H100-SXM'?");
  }
  try {
    (void)gpu_preset_by_name("mi30x", "--gpu");
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK(std::string(e.detail()).find("did you mean 'MI300X'?") != std::string::npos);
  }
  try {
    (void)interconnect_preset_by_name("nrd", "--interconnect");
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK(std::string(e.detail()).find("did you mean 'IB-NDR'?") != std::string::npos);
  }
  try {
    (void)gpu_preset_by_name("quantum-computer", "--gpu");
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK(std::string(e.detail()).find("known presets: A100-SXM4-80GB") != std::string::npos);
  }
  CHECK(preset_suggestion("hdr2") == "did you mean 'IB-HDR'?");
}

TEST_CASE("Edit distance counts single-character edits", "[presets]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("h100", "h100") == 0);
  CHECK(edit_distance("h10", "h100") == 1);
}

TEST_CASE("A preset is a plain aggregate a config can override", "[presets]") {
  auto h100 = gpu_preset_by_name("h100", "--gpu");  // a copy
  h100.intra.bandwidth = {400 * units::GB / units::s, "measured on our cluster"};
  h100.peak.bf16.value = 800 * units::TFLOP / units::s;
  CHECK(h100.intra.link().bandwidth.value() == 400e9);
  CHECK(gpu_preset_by_name("h100", "--gpu").intra.bandwidth.value.value() == 450e9);
  const auto topo = make_topology(h100, interconnect_preset_by_name("ndr", "x"));
  CHECK(topo.gpus_per_node == 8);
  CHECK(topo.intra.bandwidth.value() == 400e9);
  CHECK(topo.inter.bandwidth.value() == 50e9);
  CHECK(topo.inter.latency.value() == 14e-6);
}

TEST_CASE("A compute dtype picks the preset's dense rate of the same name", "[presets]") {
  const auto& h100 = *find_gpu_preset("h100-sxm");
  CHECK_THAT(dense_peak(h100, {"bf16", 2}).value.value(), near(989.4e12));
  CHECK_THAT(dense_peak(h100, {"bfloat16", 2}).value.value(), near(989.4e12));
  CHECK_THAT(dense_peak(h100, {"half", 2}).value.value(), near(989.4e12));
  CHECK_THAT(dense_peak(h100, {"fp8", 1}).value.value(), near(1978.9e12));
  CHECK_THAT(dense_peak(h100, {"e5m2", 1}).value.value(), near(1978.9e12));
  CHECK_THAT(dense_peak(h100, {"tf32", 4}).value.value(), near(494.7e12));
  CHECK_THAT(dense_peak(h100, {"fp64", 8}).value.value(), near(66.9e12));
  // fp32 is the vector rate (no tensor cores); TF32 tensor cores are asked for by name.
  CHECK_THAT(dense_peak(h100, {"fp32", 4}).value.value(), near(66.9e12));
  CHECK_THAT(dense_peak(h100, {"float", 4}).value.value(), near(66.9e12));
  CHECK(dense_peak(h100, {"bf16", 2}).source == h100.peak.bf16.source);
  for (const auto& gpu : gpu_presets) {
    CAPTURE(std::string(gpu.name));
    CHECK(&dense_peak(gpu, {"bf16", 2}) == &gpu.peak.bf16);
    CHECK(&dense_peak(gpu, {"fp16", 2}) == &gpu.peak.fp16);
    if (gpu.peak.tf32.value.value() > 0.0) {
      CHECK(&dense_peak(gpu, {"tf32", 4}) == &gpu.peak.tf32);
    }
  }
  CHECK(peak_rate_name({"float16", 2}) == std::optional<std::string_view>("fp16"));
  CHECK_FALSE(peak_rate_name({"2 B", 2}).has_value());
}

TEST_CASE("A dtype the part has no rate for fails, naming the dtype and --flops", "[presets]") {
  const auto& a100 = *find_gpu_preset("a100");
  try {
    (void)dense_peak(a100, {"fp8", 1});
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK(e.field() == "dtype");
    CHECK(e.detail() ==
          "A100-SXM4-80GB has no dense fp8 rate (Ampere has no FP8 tensor cores); give --flops or "
          "another --dtype");
  }
  try {
    (void)dense_peak(a100, {"2 B", 2});
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK(std::string(e.detail()).find("byte count (2 B) names no peak rate") != std::string::npos);
  }
}

TEST_CASE("A preset of the other kind is named as such", "[presets]") {
  try {
    (void)gpu_preset_by_name("ndr", "--gpu");
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK(e.detail() == "'ndr' is an interconnect preset (IB-NDR), not a GPU preset");
  }
  try {
    (void)interconnect_preset_by_name("h100", "--interconnect");
    FAIL("accepted");
  } catch (const invalid_spec& e) {
    CHECK(e.detail() == "'h100' is a GPU preset (H100-SXM), not an interconnect preset");
  }
}

TEST_CASE("FP4 peaks exist only on Blackwell and CDNA 4, each with its source", "[presets]") {
  for (const auto& g : gpu_presets) {
    CAPTURE(g.name);
    CHECK(!g.peak.fp4.source.empty());
    const bool has = g.peak.fp4.value.value() > 0.0;
    CHECK(has == support_of(g.arch).fp4);
    if (has) {
      CHECK(g.peak.fp4.value >= g.peak.fp8.value);
    }
    CHECK(support_of(g.arch).fp8 == (g.peak.fp8.value.value() > 0.0));
  }
}

TEST_CASE("The 2025-26 presets: B300, GB300, MI325X, MI355X and the export-limited H800",
          "[presets]") {
  const auto& h800 = gpu_preset_by_name("h800", "--gpu");
  CHECK(h800.intra.bandwidth.value.value() == 200e9);  // 400 GB/s both directions
  CHECK(std::string(h800.intra.bandwidth.source).find("160 GB/s") != std::string::npos);
  CHECK(h800.peak.bf16.value == gpu_preset_by_name("h100", "--gpu").peak.bf16.value);
  CHECK(gpu_preset_by_name("b300", "--gpu").arch == gpu_architecture::blackwell_ultra);
  CHECK(gpu_preset_by_name("gb300", "--gpu").gpus_per_node.value == 72);
  CHECK(gpu_preset_by_name("mi325x", "--gpu").memory.value.value() == 256.0 * (1 << 30));
  CHECK(gpu_preset_by_name("mi355x", "--gpu").arch == gpu_architecture::cdna4);
  CHECK_FALSE(support_of(gpu_architecture::cdna4).nvfp4);  // MXFP4, not NVIDIA's NVFP4
}

TEST_CASE("rate_peak picks the BF16, FP8 or FP4 peak and names a GPU without it", "[presets]") {
  const auto& b200 = gpu_preset_by_name("b200", "--gpu");
  CHECK(rate_peak(b200, tensor_rate::fp4, "--precision").value.value() == 9000e12);
  CHECK(rate_peak(b200, tensor_rate::fp8, "--precision").value.value() == 4500e12);
  const auto& h100 = gpu_preset_by_name("h100", "--gpu");
  CHECK_THROWS_WITH(rate_peak(h100, tensor_rate::fp4, "--precision"),
                    Catch::Contains("--precision") && Catch::Contains("H100-SXM has no dense fp4"));
  CHECK_THROWS_WITH(rate_peak(gpu_preset_by_name("a100", "--gpu"), tensor_rate::fp8, "--precision"),
                    Catch::Contains("no dense fp8"));
}

TEST_CASE("Each GPU is paired with its reference system's NIC, with a source", "[presets]") {
  for (const auto& g : gpu_presets) {
    CAPTURE(std::string(g.name));
    CHECK(!g.scale_out.source.empty());
    CHECK(find_interconnect_preset(g.scale_out.value) != nullptr);
  }
  // DGX A100: HDR; DGX H100 and B200: 400 Gb/s ConnectX-7 (NDR); DGX B300: 800 Gb/s (XDR).
  CHECK(reference_interconnect(gpu_preset_by_name("a100", "--gpu")).name == "IB-HDR");
  CHECK(reference_interconnect(gpu_preset_by_name("h100", "--gpu")).name == "IB-NDR");
  CHECK(reference_interconnect(gpu_preset_by_name("b200", "--gpu")).name == "IB-NDR");
  CHECK(reference_interconnect(gpu_preset_by_name("gb200", "--gpu")).name == "IB-NDR");
  CHECK(reference_interconnect(gpu_preset_by_name("b300", "--gpu")).name == "IB-XDR");
  CHECK(reference_interconnect(gpu_preset_by_name("gb300", "--gpu")).name == "IB-XDR");
}
