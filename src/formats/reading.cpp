#include "formats/reading.hpp"

#include <fmt/format.h>

#include "formats/config.hpp"

namespace tpcost::cli::formats {

std::string place::text() const {
  std::string out = file;
  if (line > 0) {
    out += fmt::format(":{}", line);
    if (column > 0) {
      out += fmt::format(":{}", column);
    }
  }
  if (!key.empty()) {
    out += ": " + key;
  }
  return out;
}

const char* format_name(source_format f) {
  switch (f) {
    case source_format::tpcost_json:
      return "tpcost config";
    case source_format::hf_config:
      return "Hugging Face config.json";
    case source_format::megatron_script:
      return "Megatron-LM launch script";
    case source_format::megatron_log:
      return "Megatron-LM training log";
    case source_format::nemo_yaml:
      return "Megatron-Bridge/NeMo ConfigContainer YAML";
    case source_format::torchtitan_toml:
      return "torchtitan job config";
    case source_format::deepspeed_json:
      return "DeepSpeed config";
  }
  return "?";
}

const char* format_id(source_format f) {
  switch (f) {
    case source_format::tpcost_json:
      return "tpcost";
    case source_format::hf_config:
      return "hf-config";
    case source_format::megatron_script:
      return "megatron-lm-script";
    case source_format::megatron_log:
      return "megatron-lm-log";
    case source_format::nemo_yaml:
      return "megatron-bridge-yaml";
    case source_format::torchtitan_toml:
      return "torchtitan-toml";
    case source_format::deepspeed_json:
      return "deepspeed-json";
  }
  return "?";
}

void reading::put(const std::string& pointer, nlohmann::json value, place from) {
  config[nlohmann::json::json_pointer(pointer)] = std::move(value);
  at[pointer] = std::move(from);
}

void reading::ignore(place where, std::string why) {
  notes.push_back({reader_note::kind::ignored, std::move(where), std::move(why)});
}

void reading::warn(const read_options& opts, place where, std::string text) {
  if (opts.strict) {
    fail(where, text + " (an error with --strict)");
  }
  notes.push_back({reader_note::kind::warning, std::move(where), std::move(text)});
}

void reading::lack(place where, std::string text) {
  notes.push_back({reader_note::kind::missing, std::move(where), std::move(text)});
}

void fail(const place& where, const std::string& detail) {
  throw config_error(where.text(), detail);
}

std::size_t line_of(const std::string& text, std::size_t offset) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    line += text[i] == '\n' ? 1U : 0U;
  }
  return line;
}

}  // namespace tpcost::cli::formats
