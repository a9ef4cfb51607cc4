// DeepSpeed: ds_config.json (deepspeed/runtime/config.py at deepspeedai/DeepSpeed master:
// train_batch_size = train_micro_batch_size_per_gpu x gradient_accumulation_steps x DP;
// zero_optimization.stage; bf16.enabled / fp16.enabled; tensor_parallel.autotp_size). The model
// comes from an HF config.json given beside it.
#include <fmt/format.h>

#include "formats/reading.hpp"
#include "tpcost/base/checked.hpp"
#include "tpcost/io/json_brief.hpp"

namespace tpcost::cli::formats {

namespace {

/// The line of the first `"key"` in the text: nlohmann keeps no positions.
place at(const std::string& text, const std::string& file, const std::string& key) {
  const auto leaf = key.substr(key.rfind('.') + 1);
  const auto pos = text.find("\"" + leaf + "\"");
  return {file, pos == std::string::npos ? 0 : line_of(text, pos), 0, key};
}

}  // namespace

reading read_deepspeed_json(const nlohmann::json& doc, const std::string& text,
                            const std::string& file, const read_options& opts) {
  reading r;
  r.format = source_format::deepspeed_json;
  r.framework = "deepspeed";
  const auto number = [&](const nlohmann::json& parent, const char* key,
                          const std::string& path) -> std::optional<std::int64_t> {
    if (!parent.is_object() || !parent.contains(key)) {
      return std::nullopt;
    }
    const auto& v = parent[key];
    if (v.is_string() && v.get<std::string>() == "auto") {
      r.warn(opts, at(text, file, path),
             "\"auto\" is filled in by the Hugging Face Trainer at run time; give the value "
             "with the command (--micro-batch, --global-batch)");
      return std::nullopt;
    }
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1) {
      fail(at(text, file, path),
           fmt::format("found {}; expected a whole number >= 1", json_brief(v)));
    }
    return v.get<std::int64_t>();
  };
  const auto train = number(doc, "train_batch_size", "train_batch_size");
  const auto micro =
      number(doc, "train_micro_batch_size_per_gpu", "train_micro_batch_size_per_gpu");
  const auto gas = number(doc, "gradient_accumulation_steps", "gradient_accumulation_steps");
  std::int64_t tp = 1;
  if (doc.contains("tensor_parallel")) {
    tp = number(doc["tensor_parallel"], "autotp_size", "tensor_parallel.autotp_size").value_or(1);
  }
  r.put("/parallel/tp", tp, at(text, file, "tensor_parallel.autotp_size"));
  if (micro) {
    r.put("/batch/micro_batch", *micro, at(text, file, "train_micro_batch_size_per_gpu"));
  }
  if (train) {
    r.put("/batch/global_batch", *train, at(text, file, "train_batch_size"));
  }
  if (train && micro && gas) {
    // DeepSpeed asserts train = micro x gas x DP (runtime/config.py _batch_assertion). The
    // product is checked before it is formed: 2^32 x 2^32 wrapped to 0 and was divided by.
    std::int64_t per_replica = 0;
    if (!multiply_fits(*micro, *gas, per_replica)) {
      fail(at(text, file, "gradient_accumulation_steps"),
           fmt::format("train_micro_batch_size_per_gpu x gradient_accumulation_steps = {} x {} "
                       "overflows a 64-bit integer; the inputs are far beyond any real run",
                       *micro, *gas));
    }
    if (*train % per_replica != 0) {
      fail(at(text, file, "train_batch_size"),
           fmt::format("{} is not a multiple of train_micro_batch_size_per_gpu x "
                       "gradient_accumulation_steps = {} x {}",
                       *train, *micro, *gas));
    }
    const auto dp = *train / per_replica;
    r.put("/parallel/dp", dp, at(text, file, "gradient_accumulation_steps"));
    r.put("/parallel/gpus", dp * tp, at(text, file, "train_batch_size"));
  }
  if (doc.contains("zero_optimization") && doc["zero_optimization"].is_object()) {
    const auto& z = doc["zero_optimization"];
    if (z.contains("stage")) {
      if (!z["stage"].is_number_integer() || z["stage"].get<std::int64_t>() < 0 ||
          z["stage"].get<std::int64_t>() > 3) {
        fail(at(text, file, "zero_optimization.stage"),
             fmt::format("found {}; expected a ZeRO stage 0..3", json_brief(z["stage"])));
      }
      r.put("/options/zero", z["stage"].get<std::int64_t>(),
            at(text, file, "zero_optimization.stage"));
    }
    for (const char* offload : {"offload_optimizer", "offload_param"}) {
      if (!z.contains(offload) || !z[offload].is_object() || !z[offload].contains("device")) {
        continue;
      }
      const auto key = std::string("zero_optimization.") + offload + ".device";
      const auto& device = z[offload]["device"];
      if (!device.is_string() && !device.is_null()) {  // typed here, never by nlohmann's value()
        fail(at(text, file, key),
             fmt::format("found {}; expected \"none\", \"cpu\" or \"nvme\"", json_brief(device)));
      }
      if (device.is_string() && device.get<std::string>() != "none") {
        // The GPU memory it frees is costed (stack_flags.cpp); its time is not.
        r.put(std::string("/options/") + offload, true, at(text, file, key));
        r.warn(opts, at(text, file, std::string("zero_optimization.") + offload),
               "offloaded to the " + device.get<std::string>() +
                   ": the GPU memory it frees is costed, the host step and the PCIe copies "
                   "are not");
      }
    }
  }
  const auto enabled = [&](const char* key) {
    if (!doc.contains(key) || !doc[key].is_object() || !doc[key].contains("enabled")) {
      return false;
    }
    const auto& v = doc[key]["enabled"];
    if (v.is_string() && v.get<std::string>() == "auto") {
      r.warn(opts, at(text, file, std::string(key) + ".enabled"),
             "\"auto\" is filled in by the Hugging Face Trainer at run time; give --dtype");
      return false;
    }
    if (!v.is_boolean()) {
      fail(at(text, file, std::string(key) + ".enabled"),
           fmt::format("found {}; expected true or false", json_brief(v)));
    }
    return v.get<bool>();
  };
  if (enabled("bf16")) {
    r.put("/hardware/dtype", "bf16", at(text, file, "bf16.enabled"));
  } else if (enabled("fp16")) {
    r.put("/hardware/dtype", "fp16", at(text, file, "fp16.enabled"));
  } else {
    r.put("/hardware/dtype", "fp32", place{file, 0, 0, "(no bf16/fp16 enabled: fp32)"});
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "train_batch_size" && key != "train_micro_batch_size_per_gpu" &&
        key != "gradient_accumulation_steps" && key != "zero_optimization" && key != "bf16" &&
        key != "fp16" && key != "tensor_parallel") {
      r.ignore(at(text, file, key));
    }
  }
  return r;
}

}  // namespace tpcost::cli::formats
