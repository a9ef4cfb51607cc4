// The config loader and overlay in-process: the keys of the refined model and the presets,
// relative profile paths, flags (booleans) set from a file, and defaults restored between
// documents.
#include "formats/config.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "commands/step_flags.hpp"
#include "options/cli_options.hpp"
#include "options/config_overlay.hpp"
#include "options/stack_flags.hpp"
#include "options/step_options.hpp"
#include "tpcost/layer/tp_layer_options.hpp"
#include "tpcost/model/optimizer_states.hpp"
#include "tpcost/model/recompute_recipe.hpp"
#include "tpcost/step/cuda_graphs.hpp"

using namespace tpcost;
using namespace tpcost::cli;

namespace {

const std::string profiles = std::string(TPCOST_CONFIG_DIR) + "/profiles";

/// The loader's error for `text`, or "" when it loads.
std::string load_error(const std::string& text, const std::string& source = "run.json") {
  try {
    (void)parse_config(text, source);
  } catch (const config_error& e) {
    return e.what();
  }
  return {};
}

/// The refined flags of sweep/explain on a bare app, as the commands register them.
struct flag_app {
  CLI::App app{"", "sweep"};
  layer_flags layer;
  refined_flags refined;
  flag_app() {
    add_layer_flags(app, layer);
    add_refined_flags(app, refined);
  }
};

}  // namespace

TEST_CASE("Every value of a choice key is one the core's parser accepts", "[config]") {
  std::size_t choices = 0;
  for (const auto& key : config_keys()) {
    if (key.kind != value_kind::choice) {
      continue;
    }
    std::string_view rest = key.choices;
    while (!rest.empty()) {
      const auto bar = rest.find('|');
      const auto value = rest.substr(0, bar);
      rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
      CAPTURE(std::string(key.pointer), std::string(value));
      ++choices;
      if (value == "auto" && key.flag != "--collective") {
        // plan's search over the other values (flag_registry.cpp); step refuses it by name.
        CHECK((key.flag == "--cp-comm-type" || key.flag == "--moe-token-dispatcher" ||
               key.flag == "--precision"));
      } else if (key.flag == "--collective") {
        CHECK_NOTHROW(parse_collective_choice(value, key.flag));
      } else if (key.flag == "--bandwidth-kind") {
        CHECK_NOTHROW(parse_bandwidth_kind(value, key.flag));
      } else if (key.flag == "--recompute") {
        CHECK_NOTHROW(parse_recompute(value, key.flag));
      } else if (key.flag == "--recompute-method") {
        CHECK_NOTHROW(parse_recompute_method(value, key.flag));
      } else if (key.flag == "--arch") {
        CHECK_NOTHROW(parse_architecture(value, key.flag));
      } else if (key.flag == "--cp-comm-type") {
        CHECK_NOTHROW(parse_cp_comm_type(value, key.flag));
      } else if (key.flag == "--moe-token-dispatcher") {
        CHECK_NOTHROW(parse_token_dispatcher(value, key.flag));
      } else if (key.flag == "--precision") {
        CHECK_NOTHROW(parse_linear_precision(value, key.flag));
      } else if (key.flag == "--attention") {
        software_flags software;
        software.attention = value;
        CHECK_NOTHROW(to_step_options(software));
      } else if (key.flag == "--mfu-flops") {
        software_flags software;
        software.mfu_flops = value;
        CHECK_NOTHROW(to_step_options(software));
      } else if (key.flag == "--stack") {
        CHECK_NOTHROW(stack_profile_by_name(value, key.flag));
      } else if (key.flag == "--cross-entropy-fusion-impl") {
        stack_flags stack;
        stack.stack = "megatron-core";
        stack.cross_entropy_loss_fusion = true;
        stack.cross_entropy_fusion_impl = value;
        CHECK_NOTHROW(resolve_stack(stack, "", "", ""));
      } else if (key.flag == "--cuda-graph-impl") {
        CHECK_NOTHROW(parse_cuda_graph_impl(value, key.flag));
      } else if (key.flag == "--main-grads-dtype" || key.flag == "--main-params-dtype" ||
                 key.flag == "--exp-avg-dtype" || key.flag == "--exp-avg-sq-dtype") {
        CHECK_NOTHROW(parse_optimizer_dtype(value, key.flag));
      } else {
        FAIL("a choice key without a parser check");
      }
    }
  }
  // article|ring|tree|hierarchical|auto, algbw|busbw, none|selective|full, fused|unfused,
  // p2p|all_gather|a2a|a2a+p2p, bf16|fp8|fp8-current|fp8-blockwise|mxfp8|nvfp4,
  // megatron-core|megatron-2021|deepspeed|fsdp2|megatron-bridge, full|megatron,
  // alltoall|flex|allgather, fp32|bf16, fp32|fp16, fp32|fp16|bf16|fp8 twice, uniform|block,
  // none|local|transformer_engine|full_iteration, native|te
  CHECK(choices == 57);
}

TEST_CASE("Every flag of the refined model and the presets has a config key", "[config]") {
  flag_app f;
  for (const char* flag : {"--gpu",
                           "--interconnect",
                           "--interconnect-file",
                           "--gpus-per-node",
                           "--intra-bandwidth",
                           "--intra-latency",
                           "--inter-bandwidth",
                           "--inter-latency",
                           "--collective",
                           "--bandwidth-kind",
                           "--sp",
                           "--recompute",
                           "--overlap",
                           "--comm-dtype",
                           "--heads",
                           "--micro-batch",
                           "--seq",
                           "--hidden",
                           "--dtype",
                           "--flops",
                           "--bandwidth",
                           "--min-efficiency"}) {
    CAPTURE(flag);
    REQUIRE(f.app.get_option_no_throw(flag) != nullptr);
    bool keyed = false;
    for (const auto& key : config_keys()) {
      keyed = keyed || key.flag == flag;
    }
    CHECK(keyed);
  }
}

TEST_CASE("Every flag of step but the model's fine structure has a config key", "[config]") {
  CLI::App app{"", "step"};
  step_flags flags;
  add_step_flags(app, flags);
  // The dimensions a preset or a config.json gives (and --arch) stay on the command line.
  const std::set<std::string> unkeyed{"--arch", "--kv-heads", "--ffn", "--vocab"};
  std::size_t keyed = 0;
  const CLI::App& view = app;
  std::vector<const CLI::Option*> options = view.get_options();
  for (const auto* group :
       view.get_subcommands([](const CLI::App* sub) { return sub->get_name().empty(); })) {
    const auto more = group->get_options();
    options.insert(options.end(), more.begin(), more.end());
  }
  for (const auto* option : options) {
    const auto flag = option->get_name();
    if (flag == "--help" || unkeyed.count(flag) > 0) {
      continue;
    }
    CAPTURE(flag);
    bool found = false;
    for (const auto& key : config_keys()) {
      found = found || option->check_name(std::string(key.flag));
    }
    CHECK(found);
    keyed += found ? 1U : 0U;
  }
  CHECK(keyed >= 30);
}

TEST_CASE("A relative interconnect_file is read beside the config", "[config]") {
  const auto doc = parse_config(R"({"hardware": {"interconnect_file": "dgx-h100-nvlink.json"}})",
                                profiles + "/run.json");
  REQUIRE(doc.find("/hardware/interconnect_file") != nullptr);
  CHECK(doc.find("/hardware/interconnect_file")->text == profiles + "/dgx-h100-nvlink.json");
  // An absolute path is kept; from stdin a relative path is the working directory's.
  const auto absolute = profiles + "/two-node-synthetic.json";
  CHECK(parse_config(R"({"hardware": {"interconnect_file": ")" + absolute + "\"}}", "other/x.json")
            .find("/hardware/interconnect_file")
            ->text == absolute);
  CHECK(load_error(R"({"hardware": {"interconnect_file": "dgx-h100-nvlink.json"}})", "-") ==
        "-: /hardware/interconnect_file: dgx-h100-nvlink.json: cannot open the file");
  // --print-config prints it absolute, so the printed config works wherever it is saved.
  flag_app f;
  f.app.parse(std::vector<std::string>{});
  config_overlay overlay(f.app);
  overlay.apply(doc);
  CHECK(overlay.merged(&doc)["hardware"]["interconnect_file"] ==
        std::filesystem::absolute(profiles + "/dgx-h100-nvlink.json").lexically_normal().string());
  CHECK(load_error(R"({"hardware": {"interconnect_file": "nothing.json"}})",
                   profiles + "/run.json") ==
        profiles + "/run.json: /hardware/interconnect_file: " + profiles +
            "/nothing.json: cannot open the file");
}

TEST_CASE("Preset names, durations, fractions and choices are checked when the file loads",
          "[config]") {
  CHECK(load_error(R"({"hardware": {"gpu": "H100_SXM5", "interconnect": "NDR"}})").empty());
  CHECK(load_error(R"({"hardware": {"gpu": "h10"}})") ==
        "run.json: /hardware/gpu: 'h10' is not a GPU preset; did you mean 'H100-SXM'?");
  CHECK(load_error(R"({"hardware": {"intra_latency": "3us", "inter_latency": 1.4e-05}})").empty());
  CHECK(load_error(R"({"hardware": {"intra_latency": 0}})").empty());
  CHECK(load_error(R"({"hardware": {"intra_latency": "-1ms"}})") ==
        "run.json: /hardware/intra_latency: '-1ms' is negative; expected a duration >= 0, e.g. "
        "3us");
  CHECK(load_error(R"({"options": {"overlap": 0}})").empty());
  CHECK(load_error(R"({"options": {"overlap": 1}})").empty());
  CHECK_FALSE(load_error(R"({"options": {"overlap": 1.01}})").empty());
  CHECK(load_error(R"({"options": {"collective": "heirarchical"}})") ==
        "run.json: /options/collective: found a string \"heirarchical\"; expected one of "
        "article|ring|tree|hierarchical|auto; did you mean \"hierarchical\"?");
  CHECK(load_error(R"({"hardware": {"gpus_per_node": 72}})").empty());
  CHECK_FALSE(load_error(R"({"hardware": {"gpus_per_node": 8.5}})").empty());
}

TEST_CASE("A boolean flag is set from a file both ways, and the command line wins", "[config]") {
  flag_app f;
  f.app.parse(std::vector<std::string>{});
  config_overlay overlay(f.app);
  overlay.apply(parse_config(R"({"options": {"sp": true}})", "on.json"));
  CHECK(f.refined.sp);
  CHECK(overlay.merged(nullptr)["options"]["sp"] == true);
  overlay.apply(parse_config(R"({"options": {"sp": false}})", "off.json"));
  CHECK_FALSE(f.refined.sp);
  overlay.apply(parse_config(R"({"options": {"sp": true}})", "on.json"));
  overlay.apply(parse_config(R"({"parallel": {"tp": 8}})", "absent.json"));
  CHECK_FALSE(f.refined.sp);  // the previous file's value does not leak
  CHECK(f.app.get_option("--sp")->count() == 0);

  flag_app given;
  given.app.parse(std::vector<std::string>{"--sp"});
  config_overlay over_cli(given.app);
  over_cli.apply(parse_config(R"({"options": {"sp": false}})", "off.json"));
  CHECK(given.refined.sp);
}

TEST_CASE("A value left unset stays unset, so a preset can fill it", "[config]") {
  flag_app f;
  f.app.parse(std::vector<std::string>{});
  config_overlay overlay(f.app);
  overlay.apply(parse_config(
      R"({"hardware": {"gpu": "h100", "gpus_per_node": 4, "flops": "1PFLOP/s"}})", "a.json"));
  CHECK(f.refined.gpus_per_node == "4");
  CHECK(f.layer.flops == "1PFLOP/s");
  overlay.apply(parse_config(R"({"hardware": {"gpu": "h100"}})", "b.json"));
  CHECK(f.refined.gpus_per_node.empty());
  CHECK(f.layer.flops.empty());
  CHECK(f.layer.dtype.empty());
  const auto in = to_layer_inputs(f.layer, f.refined);
  CHECK(in.topology.gpus_per_node == 8);  // the H100 preset's, not a.json's 4
  CHECK_THAT(in.device.peak.value(), Catch::Matchers::WithinRel(989.4e12, 1e-12));
  // --print-config leaves out what a preset fills, so that the printed config reads back the
  // same; a default that no preset changes is printed.
  const auto merged = overlay.merged(nullptr);
  CHECK(merged["hardware"]["gpu"] == "h100");
  CHECK_FALSE(merged["hardware"].contains("flops"));
  CHECK_FALSE(merged["hardware"].contains("gpus_per_node"));
  CHECK(merged["options"]["recompute"] == "none");
  CHECK(merged["batch"]["micro_batch"] == 2);
  // h and s default to a --model preset's, so they are left out too.
  CHECK_FALSE(merged.contains("model"));
}
