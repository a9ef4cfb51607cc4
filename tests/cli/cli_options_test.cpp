// From flags to the models' inputs: the seed's defaults without a preset; a GPU preset's
// dense peak, link and node size; an interconnect preset; a calibrated profile in the link it
// measured; explicit flags over all of them; and the errors.
#include "options/cli_options.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "tpcost/hardware/presets.hpp"

using namespace tpcost;
using namespace tpcost::cli;
using Catch::Matchers::WithinRel;

namespace {

const std::string profiles = std::string(TPCOST_CONFIG_DIR) + "/profiles";

/// The field of the invalid_spec that `f` throws, and its message, as "field: detail".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const invalid_spec& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("Without a preset the inputs are the seed demo's", "[cli_options]") {
  const auto in = to_layer_inputs(layer_flags{}, refined_flags{});
  CHECK(in.article_model());
  CHECK(in.layer.element.name == "fp32");
  CHECK(in.device.peak.value() == 1e15);
  CHECK(in.device.bandwidth.value() == 600e9);
  CHECK(in.options.collective == collective_choice::article);
  CHECK(in.topology.gpus_per_node == 8);
  CHECK(in.topology.intra.bandwidth.value() == 600e9);
  CHECK(in.topology.intra.latency.value() == 0.0);
  CHECK(in.topology.inter.bandwidth.value() == 0.0);
  CHECK_FALSE(in.origin.any());
}

TEST_CASE("A GPU preset gives bf16, its dense peak, its link and node size, and auto",
          "[cli_options]") {
  refined_flags r;
  r.gpu = "H100 SXM5";
  r.interconnect = "ndr";
  const auto in = to_layer_inputs(layer_flags{}, r);
  const auto& h100 = *find_gpu_preset("h100-sxm");
  CHECK_FALSE(in.article_model());
  CHECK(in.options.collective == collective_choice::automatic);
  CHECK(in.layer.element.name == "bf16");
  CHECK(in.device.peak.value() == h100.peak.bf16.value.value());
  CHECK(in.origin.peak == &h100.peak.bf16);
  CHECK(in.origin.peak_rate == "bf16");
  CHECK(in.topology.gpus_per_node == 8);
  CHECK(in.topology.intra.bandwidth.value() == 450e9);
  CHECK_THAT(in.topology.intra.latency.value(), WithinRel(3.4e-6, 1e-12));
  CHECK(in.topology.inter.bandwidth.value() == 50e9);
  CHECK_THAT(in.topology.inter.latency.value(), WithinRel(14e-6, 1e-12));
  CHECK(in.device.bandwidth.value() == 450e9);  // B, for the seed comparison

  layer_flags fp8;
  fp8.dtype = "fp8";
  CHECK(to_layer_inputs(fp8, r).device.peak.value() == h100.peak.fp8.value.value());
  layer_flags fp32;
  fp32.dtype = "fp32";
  CHECK(to_layer_inputs(fp32, r).device.peak.value() == h100.peak.fp32.value.value());

  refined_flags nvl72;
  nvl72.gpu = "gb200";
  CHECK(to_layer_inputs(layer_flags{}, nvl72).topology.gpus_per_node == 72);
  refined_flags net_only;
  net_only.interconnect = "roce";
  const auto roce = to_layer_inputs(layer_flags{}, net_only);
  CHECK(roce.options.collective == collective_choice::automatic);
  CHECK(roce.layer.element.name == "fp32");  // no GPU: the seed's dtype and P
  CHECK(roce.device.peak.value() == 1e15);
  CHECK(roce.topology.inter.bandwidth.value() == 50e9);
}

TEST_CASE("Explicit flags win over the presets", "[cli_options]") {
  layer_flags l;
  l.flops = "1PFLOP/s";
  l.bandwidth = "300GB/s";
  refined_flags r;
  r.gpu = "a100";
  r.interconnect = "hdr";
  r.gpus_per_node = "4";
  r.intra_latency = "1us";
  r.inter_bandwidth = "12.5GB/s";
  r.inter_latency = "0";
  r.collective = "ring";
  auto in = to_layer_inputs(l, r);
  CHECK(in.device.peak.value() == 1e15);
  CHECK(in.origin.peak == nullptr);
  CHECK(in.origin.flops_given);
  CHECK(in.topology.gpus_per_node == 4);
  CHECK(in.topology.intra.bandwidth.value() == 300e9);  // --bandwidth is the intra-node link
  CHECK_THAT(in.topology.intra.latency.value(), WithinRel(1e-6, 1e-12));
  CHECK(in.topology.inter.bandwidth.value() == 12.5e9);
  CHECK(in.topology.inter.latency.value() == 0.0);
  CHECK(in.options.collective == collective_choice::ring);
  // --intra-bandwidth sets the link over --bandwidth, which stays the seed comparison's B.
  r.intra_bandwidth = "200GB/s";
  in = to_layer_inputs(l, r);
  CHECK(in.topology.intra.bandwidth.value() == 200e9);
  CHECK(in.device.bandwidth.value() == 300e9);
  // The seed's collective with a preset: its P and B, no topology.
  refined_flags seed;
  seed.gpu = "a100";
  seed.collective = "seed";
  in = to_layer_inputs(layer_flags{}, seed);
  CHECK(in.article_model());  // the seed's formulas, with the A100's P and NVLink 3 as B
  CHECK(in.options.collective == collective_choice::article);
  CHECK(in.device.peak.value() == 312e12);
  CHECK(in.device.bandwidth.value() == 300e9);
}

TEST_CASE("A calibrated profile replaces the link it measured", "[cli_options]") {
  refined_flags r;
  r.gpu = "h100";
  r.interconnect = "ndr";
  r.interconnect_file = profiles + "/dgx-h100-nvlink.json";  // 8 ranks: the NVLink domain
  auto in = to_layer_inputs(layer_flags{}, r);
  REQUIRE(in.origin.profile.has_value());
  CHECK(in.origin.profile_link == profile_scope::intra_node);
  CHECK(in.topology.intra.bandwidth.value() == in.origin.profile->link.bandwidth.value());
  CHECK(in.topology.intra.latency.value() == in.origin.profile->link.latency.value());
  CHECK_THAT(in.topology.intra.bandwidth.value(), WithinRel(440e9, 0.01));  // fitted, not 450
  CHECK(in.topology.inter.bandwidth.value() == 50e9);
  CHECK(in.device.bandwidth.value() == in.topology.intra.bandwidth.value());

  r.interconnect_file = profiles + "/two-node-synthetic.json";  // 2 nodes: the network
  in = to_layer_inputs(layer_flags{}, r);
  CHECK(in.origin.profile_link == profile_scope::inter_node);
  // Stored per NIC (issue 11): the profile's ring crossed the 8 NICs of each node.
  CHECK_THAT(in.topology.inter.bandwidth.value(), WithinRel(45e9 / 8, 1e-12));
  CHECK(in.topology.inter.latency.value() == 2e-5);
  CHECK(in.topology.intra.bandwidth.value() == 450e9);
  r.inter_latency = "5us";  // a flag still wins over the profile
  CHECK_THAT(to_layer_inputs(layer_flags{}, r).topology.inter.latency.value(),
             WithinRel(5e-6, 1e-12));

  refined_flags alone;  // a profile alone selects the alpha-beta model too
  alone.interconnect_file = profiles + "/dgx-h100-nvlink.json";
  CHECK(to_layer_inputs(layer_flags{}, alone).options.collective == collective_choice::automatic);
}

TEST_CASE("Bad presets, dtypes and ignored flags name the flag", "[cli_options]") {
  refined_flags r;
  r.gpu = "h10";
  CHECK(error_of([&] { (void)to_layer_inputs(layer_flags{}, r); }) ==
        "--gpu: 'h10' is not a GPU preset; did you mean 'H100-SXM'?");
  r.gpu = "a100";
  layer_flags fp8;
  fp8.dtype = "fp8";
  CHECK(error_of([&] {
          (void)to_layer_inputs(fp8, r);
        }).starts_with("--dtype: A100-SXM4-80GB has no dense fp8 rate"));
  fp8.flops = "624T";  // with --flops the preset's rate is not needed
  CHECK(error_of([&] { (void)to_layer_inputs(fp8, r); }).empty());
  refined_flags missing;
  missing.interconnect_file = profiles + "/none.json";
  CHECK(error_of([&] { (void)to_layer_inputs(layer_flags{}, missing); }) ==
        "--interconnect-file: " + profiles + "/none.json: cannot open the file");
  refined_flags seed;
  seed.gpus_per_node = "72";
  CHECK(error_of([&] {
          (void)to_layer_inputs(layer_flags{}, seed);
        }).starts_with("--gpus-per-node: the article's model has one bandwidth"));
  seed.rules_read_gpus_per_node = true;  // check: the tp_within_node rule reads it
  CHECK(to_layer_inputs(layer_flags{}, seed).topology.gpus_per_node == 72);
  refined_flags kind;
  kind.gpu = "h100";
  kind.bandwidth_kind = "busbw";
  CHECK(error_of([&] {
          (void)to_layer_inputs(layer_flags{}, kind);
        }).starts_with("--bandwidth-kind: applies to --collective article only"));
}
