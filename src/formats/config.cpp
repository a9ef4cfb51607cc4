#include "formats/config.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tpcost/base/degree_list.hpp"
#include "tpcost/base/parse.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/base/suggest.hpp"
#include "tpcost/comm/topology.hpp"
#include "tpcost/hardware/presets.hpp"
#include "tpcost/io/hf_config.hpp"
#include "tpcost/io/profile_json.hpp"
#include "tpcost/layer/tensor_parallel.hpp"

namespace tpcost::cli {

namespace {

using json = nlohmann::json;

// The config format: the keys of the flags (flag_registry.cpp: a key's flag has the same
// meaning on the command line, and its help is the flag's), between the keys no flag sets:
// the document's own, first, and what convert records and check's rules, last.
constexpr config_key leading_keys[] = {
    {"/$schema", "", value_kind::text, "the JSON Schema this file follows (ignored by tpcost)", ""},
    {"/name", "", value_kind::text, "a name for reports, e.g. \"GPT-3 175B on DGX A100\"", ""},
    {"/description", "", value_kind::text, "free text (ignored by tpcost)", ""},
};
constexpr config_key trailing_keys[] = {
    {"/source/format", "", value_kind::text,
     "the format tpcost convert read (megatron-lm-script, megatron-lm-log, megatron-bridge-yaml, "
     "torchtitan-toml, deepspeed-json); informational",
     ""},
    {"/source/file", "", value_kind::text, "the file tpcost convert read; informational", ""},
    {"/source/framework", "", value_kind::text,
     "the training framework the file is for (megatron-core, deepspeed, fsdp2); convert also "
     "writes it to /options/stack, which the step reads",
     ""},
    {"/checks/max_ratio", "", value_kind::positive, "rule: R(t) <= this", ""},
    {"/checks/tp_within_half_critical", "", value_kind::boolean,
     "rule: t <= t*/2 (the article's guidance for E around 70%)", ""},
    {"/checks/tp_within_node", "", value_kind::boolean,
     "rule: t <= GPUs per node (hardware.gpus_per_node, the GPU preset's, or 8)", ""},
    {"/checks/min_utilisation", "", value_kind::open_fraction,
     "rule: utilisation mu >= this (one layer)", ""},
    {"/checks/min_mfu", "", value_kind::open_fraction,
     "rule: the whole step's model FLOPs utilisation >= this (needs the step keys)", ""},
    {"/checks/min_memory_headroom", "", value_kind::byte_size,
     "rule: HBM capacity minus the fullest stage's memory >= this, e.g. \"4GiB\"; 0: the "
     "layout fits (needs the step keys)",
     ""},
    {"/checks/max_step_time", "", value_kind::duration,
     "rule: the predicted step time <= this, e.g. \"12s\" (needs the step keys)", ""},
};

/// Every key, in the order above.
const std::vector<config_key>& all_keys() {
  static const std::vector<config_key> keys = [] {
    std::vector<config_key> out(std::begin(leading_keys), std::end(leading_keys));
    for (const auto& flag : flag_specs()) {
      if (!flag.pointer.empty()) {
        out.push_back({flag.pointer, flag.name, flag.kind, flag.help, flag.choices});
      }
    }
    out.insert(out.end(), std::begin(trailing_keys), std::end(trailing_keys));
    return out;
  }();
  return keys;
}

/// The values of a choice key, e.g. {"article", "ring", ...}.
std::vector<std::string> choices_of(const config_key& key) {
  std::vector<std::string> out;
  std::string_view rest = key.choices;
  while (!rest.empty()) {
    const auto bar = rest.find('|');
    out.emplace_back(rest.substr(0, bar));
    rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
  }
  return out;
}

std::string_view expected_text(value_kind kind) {
  switch (kind) {
    case value_kind::count:
      return "a whole number in 1..2147483647";
    case value_kind::count_or_auto:
      return "a whole number in 1..2147483647, or \"auto\"";
    case value_kind::degrees:
      return "a TP degree >= 1, or a degree list string such as \"1..64\"";
    case value_kind::bandwidth:
      return "a number of bytes/s > 0, or a string such as \"600GB/s\"";
    case value_kind::flop_rate:
      return "a number of FLOP/s > 0, or a string such as \"989.4TFLOP/s\"";
    case value_kind::dtype:
      return "a dtype name (fp32, tf32, bf16, fp16, fp8, fp64) or a byte count 1..16";
    case value_kind::duration:
      return "a number of seconds >= 0, or a string such as \"3us\"";
    case value_kind::open_fraction:
      return "a number strictly between 0 and 1";
    case value_kind::share:
      return "a number in (0, 1]";
    case value_kind::byte_size:
      return "a number of bytes >= 0, or a string such as \"80GiB\"";
    case value_kind::zero_stage:
      return "a ZeRO stage: 0, 1, 2 or 3";
    case value_kind::fraction:
      return "a number in [0, 1]";
    case value_kind::positive:
      return "a number > 0";
    case value_kind::node_size:
      return "a whole number of GPUs in 1..1048576";
    case value_kind::boolean:
      return "true or false";
    case value_kind::text:
      return "a non-empty string";
    case value_kind::model_preset:
      return "a model preset name (tpcost model list)";
    case value_kind::choice:
      return "one of the listed values";
    case value_kind::gpu_preset:
      return "a GPU preset name (tpcost hardware list)";
    case value_kind::interconnect_preset:
      return "an interconnect preset name (tpcost hardware list)";
    case value_kind::profile_path:
      return "the path of a profile written by tpcost calibrate --out";
    case value_kind::hf_config_path:
      return "the path of a Hugging Face config.json";
  }
  return "?";
}

std::string_view type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

/// The value as it appears in the file, shortened for a one-line message.
/// A value as an error quotes it after its type ("found an array [1,2,3]"): a scalar or a
/// short flat list as written (cut at a UTF-8 boundary), anything bigger by its size ("found an
/// array of 20 items"), so that an error never serialises a large part of an untrusted file.
std::string shown(const json& v) {
  constexpr std::size_t max_shown_members = 16;
  const bool flat_and_short =
      !v.is_structured() ||
      (v.size() <= max_shown_members &&
       std::none_of(v.begin(), v.end(), [](const json& m) { return m.is_structured(); }));
  if (!flat_and_short) {
    return "of " + std::to_string(v.size()) + (v.is_array() ? " items" : " keys");
  }
  std::string s = v.dump();
  if (s.size() > 40) {
    s = s.substr(0, tpcost::detail::quoted_prefix(s, 37)) + "...";
  }
  return s;
}

[[noreturn]] void fail_at(const std::string& source, std::string_view pointer,
                          const std::string& detail) {
  throw config_error(fmt::format("{}: {}", source, pointer), detail);
}

[[noreturn]] void wrong_value(const std::string& source, const config_key& key, const json& v) {
  if (key.kind == value_kind::choice) {
    std::string hint;
    if (v.is_string()) {
      if (const auto best = closest_match(v.get<std::string>(), choices_of(key))) {
        hint = fmt::format("; did you mean \"{}\"?", *best);
      }
    }
    fail_at(source, key.pointer,
            fmt::format("found {} {}; expected one of {}{}", type_name(v), shown(v), key.choices,
                        hint));
  }
  fail_at(source, key.pointer,
          fmt::format("found {} {}; expected {}", type_name(v), shown(v), expected_text(key.kind)));
}

/// A relative path (a profile, a config.json) read from the config at `source` is relative to
/// the config's directory (a config from stdin: to the working directory).
std::string resolve_beside(const std::string& source, const std::string& path) {
  const std::filesystem::path p(path);
  if (source == "-" || p.is_absolute()) {
    return path;
  }
  const auto dir = std::filesystem::path(source).parent_path();
  return dir.empty() ? path : (dir / p).lexically_normal().string();
}

/// The shortest text that reads back as `v` (e.g. 600000000000.0 -> "600000000000").
std::string number_text(const json& v) {
  if (v.is_number_integer()) {
    return std::to_string(v.get<std::int64_t>());
  }
  if (v.is_number_unsigned()) {
    return std::to_string(v.get<std::uint64_t>());
  }
  return fmt::format("{}", v.get<double>());
}

/// A quantity >= 0: a number in SI units, or a string with a unit that `parse` reads (it throws
/// naming the field for a malformed one) and that must not be negative.
template <class Parse>
std::string non_negative_text(const std::string& source, const config_key& key, const json& v,
                              std::string_view expected, const Parse& parse,
                              std::string_view si_unit) {
  if (v.is_number() && v.get<double>() >= 0.0) {
    return number_text(v) + std::string(si_unit);  // a JSON number is SI
  }
  if (!v.is_string()) {
    wrong_value(source, key, v);
  }
  const auto& text = v.get<std::string>();
  if (parse(text) < 0.0) {
    fail_at(source, key.pointer, fmt::format("'{}' is negative; expected {}", text, expected));
  }
  return text;
}

/// The name a parse error gives the value at `key`: "run.json: /hardware/link_bandwidth".
std::string field_of(const std::string& source, const config_key& key) {
  return source + ": " + std::string(key.pointer);
}

/// Whether `v` is a number in the range of `kind`, one of the plain numeric kinds.
bool in_range(value_kind kind, const json& v) {
  switch (kind) {
    case value_kind::count:
      return v.is_number_integer() && v.get<std::int64_t>() >= 1 &&
             v.get<std::int64_t>() <= max_dimension;
    case value_kind::zero_stage:
      return v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= 3;
    case value_kind::node_size:
      return v.is_number_integer() && v.get<std::int64_t>() >= 1 &&
             v.get<std::int64_t>() <= max_gpus_per_node;
    case value_kind::open_fraction:
      return v.is_number() && v.get<double>() > 0.0 && v.get<double>() < 1.0;
    case value_kind::share:
      return v.is_number() && v.get<double>() > 0.0 && v.get<double>() <= 1.0;
    case value_kind::fraction:
      return v.is_number() && v.get<double>() >= 0.0 && v.get<double>() <= 1.0;
    case value_kind::positive:
      return v.is_number() && v.get<double>() > 0.0;
    default:
      return false;
  }
}

/// A TP degree, or a list of them as --tp takes it.
std::string degrees_text(const std::string& source, const config_key& key, const json& v) {
  if (v.is_number_integer() && v.get<std::int64_t>() >= 1 &&
      v.get<std::int64_t>() <= max_tp_degree) {
    return number_text(v);
  }
  if (v.is_string()) {
    (void)parse_degree_list(v.get<std::string>(), field_of(source, key));
    return v.get<std::string>();
  }
  wrong_value(source, key, v);
}

/// A bandwidth or a FLOP rate > 0. A JSON number is SI (B/s, FLOP/s); the flag's text takes it
/// with its unit.
std::string rate_text(const std::string& source, const config_key& key, const json& v) {
  if (v.is_number() && v.get<double>() > 0.0) {
    return number_text(v) + (key.kind == value_kind::bandwidth ? "B/s" : "FLOP/s");
  }
  if (v.is_string()) {
    const auto field = field_of(source, key);
    const auto& s = v.get<std::string>();
    (void)(key.kind == value_kind::bandwidth ? parse_bandwidth(s, field).value()
                                             : parse_flop_rate(s, field).value());
    return s;
  }
  wrong_value(source, key, v);
}

/// A dtype: its name, or a byte count 1..16.
std::string dtype_text(const std::string& source, const config_key& key, const json& v) {
  if (v.is_number_integer() && v.get<std::int64_t>() >= 1 && v.get<std::int64_t>() <= 16) {
    return number_text(v);
  }
  if (v.is_string()) {
    (void)parse_dtype(v.get<std::string>(), field_of(source, key));
    return v.get<std::string>();
  }
  wrong_value(source, key, v);
}

/// One of the key's choices.
std::string choice_text(const std::string& source, const config_key& key, const json& v) {
  if (v.is_string()) {
    const auto choices = choices_of(key);
    if (std::find(choices.begin(), choices.end(), v.get<std::string>()) != choices.end()) {
      return v.get<std::string>();
    }
  }
  wrong_value(source, key, v);
}

/// A GPU or interconnect preset's name; one of the other kind gets a hint, the keys being
/// easy to swap.
std::string preset_text(const std::string& source, const config_key& key, const json& v) {
  if (!v.is_string() || v.get<std::string>().empty()) {
    wrong_value(source, key, v);
  }
  const auto field = field_of(source, key);
  const auto& name = v.get<std::string>();
  try {
    if (key.kind == value_kind::gpu_preset) {
      (void)gpu_preset_by_name(name, field);
    } else {
      (void)interconnect_preset_by_name(name, field);
    }
  } catch (const invalid_spec& e) {
    std::string hint;
    if (key.kind == value_kind::gpu_preset && find_interconnect_preset(name) != nullptr) {
      hint = "; did you mean /hardware/interconnect?";
    } else if (key.kind == value_kind::interconnect_preset && find_gpu_preset(name) != nullptr) {
      hint = "; did you mean /hardware/gpu?";
    }
    throw config_error(e.field(), e.detail() + hint);
  }
  return name;
}

/// A profile or a config.json, beside the config; read now, so that a missing or malformed
/// file is an error of the config that names it.
std::string file_text(const std::string& source, const config_key& key, const json& v) {
  if (!v.is_string() || v.get<std::string>().empty()) {
    wrong_value(source, key, v);
  }
  const auto field = field_of(source, key);
  auto path = resolve_beside(source, v.get<std::string>());
  try {
    if (key.kind == value_kind::profile_path) {
      (void)primary_profile(read_profile_file(path, field), field);
    } else {
      (void)io::load_hf_config(path, field);
    }
  } catch (const invalid_spec& e) {
    throw config_error(e.field(), e.detail());
  }
  return path;
}

/// Checks `v` against `key` and returns the text its flag takes.
std::string to_flag_text(const std::string& source, const config_key& key, const json& v) {
  const std::string field = field_of(source, key);
  switch (key.kind) {
    case value_kind::count:
    case value_kind::zero_stage:
    case value_kind::node_size:
    case value_kind::open_fraction:
    case value_kind::share:
    case value_kind::fraction:
    case value_kind::positive:
      if (!in_range(key.kind, v)) {
        wrong_value(source, key, v);
      }
      return number_text(v);
    case value_kind::count_or_auto:
      if (v.is_string() && v.get<std::string>() == "auto") {
        return "auto";
      }
      if (!in_range(value_kind::count, v)) {
        wrong_value(source, key, v);
      }
      return number_text(v);
    case value_kind::degrees:
      return degrees_text(source, key, v);
    case value_kind::bandwidth:
    case value_kind::flop_rate:
      return rate_text(source, key, v);
    case value_kind::dtype:
      return dtype_text(source, key, v);
    case value_kind::duration:
      return non_negative_text(
          source, key, v, "a duration >= 0, e.g. 3us",
          [&](const std::string& t) { return parse_duration(t, field).value(); }, "s");
    case value_kind::byte_size:
      return non_negative_text(
          source, key, v, "a size >= 0, e.g. 4GiB",
          [&](const std::string& t) { return parse_bytes(t, field).value(); }, "B");
    case value_kind::choice:
      return choice_text(source, key, v);
    case value_kind::gpu_preset:
    case value_kind::interconnect_preset:
      return preset_text(source, key, v);
    case value_kind::profile_path:
    case value_kind::hf_config_path:
      return file_text(source, key, v);
    case value_kind::boolean: {
      if (!v.is_boolean()) {
        wrong_value(source, key, v);
      }
      return v.get<bool>() ? "true" : "false";
    }
    case value_kind::text:
    case value_kind::model_preset: {
      if (!v.is_string() || v.get<std::string>().empty()) {
        wrong_value(source, key, v);
      }
      return v.get<std::string>();
    }
  }
  wrong_value(source, key, v);
}

/// Every pointer a config may contain: the keys and the sections that hold them.
std::vector<std::string> known_pointers() {
  std::vector<std::string> out;
  for (const auto& key : all_keys()) {
    for (auto slash = key.pointer.find('/', 1); slash != std::string_view::npos;
         slash = key.pointer.find('/', slash + 1)) {
      std::string section(key.pointer.substr(0, slash));
      if (std::find(out.begin(), out.end(), section) == out.end()) {
        out.push_back(std::move(section));
      }
    }
    out.emplace_back(key.pointer);
  }
  return out;
}

/// "Did you mean ...?" for an unknown key: the same key name in another section, else the
/// closest name in the same section, else the closest name anywhere.
std::string suggestion_for(std::string_view pointer) {
  const auto parent = [](std::string_view p) { return p.substr(0, p.rfind('/') + 1); };
  const auto leaf = [](std::string_view p) { return p.substr(p.rfind('/') + 1); };
  const auto all = known_pointers();
  for (const auto& p : all) {
    if (leaf(p) == leaf(pointer)) {
      return fmt::format("; did you mean {}?", p);
    }
  }
  std::vector<std::string> siblings;  // leaf names of the same section
  for (const auto& p : all) {
    if (parent(p) == parent(pointer)) {
      siblings.emplace_back(leaf(p));
    }
  }
  if (const auto best = closest_match(leaf(pointer), siblings)) {
    return fmt::format("; did you mean {}{}?", parent(pointer), *best);
  }
  std::vector<std::string> leaves;
  leaves.reserve(all.size());
  for (const auto& p : all) {
    leaves.emplace_back(leaf(p));
  }
  if (const auto best = closest_match(leaf(pointer), leaves)) {
    for (const auto& p : all) {
      if (leaf(p) == *best) {
        return fmt::format("; did you mean {}?", p);
      }
    }
  }
  return {};
}

bool is_section(std::string_view pointer) {
  for (const auto& key : all_keys()) {
    if (key.pointer.size() > pointer.size() && key.pointer.substr(0, pointer.size()) == pointer &&
        key.pointer[pointer.size()] == '/') {
      return true;
    }
  }
  return false;
}

const config_key* find_key(std::string_view pointer) {
  for (const auto& key : all_keys()) {
    if (key.pointer == pointer) {
      return &key;
    }
  }
  return nullptr;
}

/// Escapes a member name for a JSON pointer (RFC 6901).
std::string pointer_token(const std::string& name) {
  std::string out;
  for (const char c : name) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

void walk(const std::string& source, const json& node, const std::string& pointer,
          config_document& doc) {
  for (const auto& [name, value] : node.items()) {
    const std::string child = pointer + "/" + pointer_token(name);
    if (const auto* key = find_key(child)) {
      std::string text = to_flag_text(source, *key, value);
      if (key->pointer == "/name") {
        doc.name = text;
      }
      doc.entries.push_back({key, std::move(text)});
    } else if (is_section(child)) {
      if (!value.is_object()) {
        fail_at(source, child,
                fmt::format("found {} {}; expected an object", type_name(value), shown(value)));
      }
      walk(source, value, child, doc);
    } else {
      fail_at(source, child, "unknown key" + suggestion_for(child));
    }
  }
}

/// 1-based line and column of byte `offset` in `text`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

/// Parses JSON, rejecting duplicate keys and deep nesting while parsing (nlohmann keeps the
/// last duplicate silently, which would hide a reviewer's mistake).
json parse_strict(std::string_view text, const std::string& source) {
  std::vector<std::set<std::string>> seen;
  std::vector<std::string> path;
  const auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > max_config_depth) {
      throw config_error(source, fmt::format("nesting deeper than {} levels; the format is two "
                                             "levels deep",
                                             max_config_depth));
    }
    switch (event) {
      case json::parse_event_t::object_start:
        seen.emplace_back();
        path.emplace_back();
        break;
      case json::parse_event_t::object_end:
        seen.pop_back();
        path.pop_back();
        break;
      case json::parse_event_t::key: {
        const auto name = parsed.get<std::string>();
        if (!seen.empty() && !seen.back().insert(name).second) {
          std::string pointer;
          for (std::size_t i = 0; i + 1 < path.size(); ++i) {
            pointer += '/';
            pointer += pointer_token(path[i]);
          }
          throw config_error(fmt::format("{}: {}/{}", source, pointer, pointer_token(name)),
                             "duplicate key; each key may appear once");
        }
        if (!path.empty()) {
          path.back() = name;
        }
        break;
      }
      default:
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), callback);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    const auto colon = what.find(": ", what.find("column"));
    const std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    std::string ascii;  // nlohmann quotes the bytes it read, which may not be UTF-8
    for (const char c : reason.substr(0, 160)) {
      const auto u = static_cast<unsigned char>(c);
      ascii += (u < 0x20 || u >= 0x7f) ? fmt::format("\\x{:02x}", u) : std::string(1, c);
    }
    throw config_error(fmt::format("{}:{}:{}", source, line, column), "malformed JSON: " + ascii);
  } catch (const json::out_of_range& e) {  // e.g. a number too large for a double
    throw config_error(source,
                       fmt::format("malformed JSON: {}", std::string(e.what()).substr(0, 160)));
  }
}

// --- JSON Schema generation --------------------------------------------------------------

std::string number_pattern() { return R"([+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?)"; }

/// A regex fragment matching `text` literally, in any ASCII case if `any_case` is set.
std::string regex_literal(std::string_view text, bool any_case) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (any_case && std::isalpha(u) != 0) {
      out += fmt::format("[{}{}]", static_cast<char>(std::tolower(u)),
                         static_cast<char>(std::toupper(u)));
    } else if (std::isalnum(u) == 0) {
      out += fmt::format("[{}]", c);  // '/', '.' and the like, taken literally
    } else {
      out += c;
    }
  }
  return out;
}

/// The strings parse.hpp accepts for a quantity with these unit stems and prefixes.
template <class Stems, class Prefixes = decltype(detail::magnitude_prefixes)>
std::string quantity_pattern(const Stems& stems,
                             const Prefixes& prefix_list = detail::magnitude_prefixes) {
  std::string prefixes;
  for (const auto& p : prefix_list) {
    if (!p.text.empty()) {
      prefixes += prefixes.empty() ? "" : "|";
      prefixes += p.text;
    }
  }
  std::string units;
  for (const auto& stem : stems) {
    if (!stem.text.empty()) {
      units += units.empty() ? "" : "|";
      units += regex_literal(stem.text, stem.case_insensitive);
    }
  }
  return fmt::format(R"(^\s*{}\s*({})?({})?\s*$)", number_pattern(), prefixes, units);
}

/// The names presets.hpp accepts for these presets: every name and alias, any case, with
/// '-', '_', ' ' and '.' anywhere (detail::normalise_preset_name).
template <class Presets>
json preset_schema(const Presets& presets) {
  std::string alternatives;
  std::string names;
  const auto add = [&](std::string_view name) {
    if (name.empty()) {
      return;
    }
    std::string pattern;
    for (const char c : detail::normalise_preset_name(name)) {
      pattern += regex_literal(std::string_view(&c, 1), true) + "[-_ .]*";
    }
    alternatives += fmt::format("{}{}", alternatives.empty() ? "" : "|", pattern);
  };
  for (const auto& p : presets) {
    add(p.name);
    for (const auto alias : p.aliases) {
      add(alias);
    }
    names += fmt::format("{}{}", names.empty() ? "" : ", ", p.name);
  }
  return {{"type", "string"},
          {"pattern", fmt::format("^[-_ .]*({})$", alternatives)},
          {"examples", json::array({std::string(presets.front().name)})},
          {"$comment", "case, '-', '_', ' ' and '.' are ignored; presets: " + names}};
}

json schema_for(const config_key& key) {
  json s;
  switch (key.kind) {
    case value_kind::count:
      s = {{"type", "integer"}, {"minimum", 1}, {"maximum", max_dimension}};
      break;
    case value_kind::count_or_auto:
      s = {{"oneOf",
            {{{"type", "integer"}, {"minimum", 1}, {"maximum", max_dimension}},
             {{"const", "auto"}}}}};
      break;
    case value_kind::degrees:
      s = {
          {"oneOf",
           {{{"type", "integer"}, {"minimum", 1}, {"maximum", max_tp_degree}},
            {{"type", "string"},
             {"pattern",
              R"(^\s*[0-9]+(\s*[.][.]\s*[0-9]+(:[+x][0-9]+)?)?(\s*,\s*[0-9]+(\s*[.][.]\s*[0-9]+(:[+x][0-9]+)?)?)*\s*$)"}}}}};
      break;
    case value_kind::bandwidth:
      s = {{"oneOf",
            {{{"type", "number"}, {"exclusiveMinimum", 0}},
             {{"type", "string"}, {"pattern", quantity_pattern(detail::bandwidth_stems)}}}}};
      break;
    case value_kind::flop_rate:
      s = {{"oneOf",
            {{{"type", "number"}, {"exclusiveMinimum", 0}},
             {{"type", "string"}, {"pattern", quantity_pattern(detail::flop_rate_stems)}}}}};
      break;
    case value_kind::dtype: {
      std::string names;
      for (const auto& n : dtype_names) {
        names += names.empty() ? "" : "|";
        names += regex_literal(n.name, true);
      }
      s = {{"oneOf",
            {{{"type", "integer"}, {"minimum", 1}, {"maximum", 16}},
             {{"type", "string"},
              {"pattern", fmt::format(R"(^\s*({}|[1-9]|1[0-6])\s*$)", names)}}}}};
      break;
    }
    case value_kind::duration:
      s = {{"oneOf",
            {{{"type", "number"}, {"minimum", 0}},
             {{"type", "string"},
              {"pattern", quantity_pattern(detail::duration_stems, detail::time_prefixes)}}}}};
      break;
    case value_kind::byte_size:
      s = {{"oneOf",
            {{{"type", "number"}, {"minimum", 0}},
             {{"type", "string"}, {"pattern", quantity_pattern(detail::byte_stems)}}}}};
      break;
    case value_kind::open_fraction:
      s = {{"type", "number"}, {"exclusiveMinimum", 0}, {"exclusiveMaximum", 1}};
      break;
    case value_kind::share:
      s = {{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 1}};
      break;
    case value_kind::zero_stage:
      s = {{"type", "integer"}, {"minimum", 0}, {"maximum", 3}};
      break;
    case value_kind::fraction:
      s = {{"type", "number"}, {"minimum", 0}, {"maximum", 1}};
      break;
    case value_kind::node_size:
      s = {{"type", "integer"}, {"minimum", 1}, {"maximum", max_gpus_per_node}};
      break;
    case value_kind::choice:
      s = {{"type", "string"}, {"enum", choices_of(key)}};
      break;
    case value_kind::gpu_preset:
      s = preset_schema(gpu_presets);
      break;
    case value_kind::interconnect_preset:
      s = preset_schema(interconnect_presets);
      break;
    case value_kind::profile_path:
    case value_kind::hf_config_path:
      s = {{"type", "string"}, {"minLength", 1}};
      break;
    case value_kind::positive:
      s = {{"type", "number"}, {"exclusiveMinimum", 0}};
      break;
    case value_kind::boolean:
      s = {{"type", "boolean"}};
      break;
    case value_kind::text:
    case value_kind::model_preset:
      s = {{"type", "string"}, {"minLength", 1}};
      break;
  }
  s["description"] =
      fmt::format("{}{}", key.help, key.flag.empty() ? "" : fmt::format(" (flag {})", key.flag));
  return s;
}

}  // namespace

std::span<const config_key> config_keys() { return all_keys(); }

const config_entry* config_document::find(std::string_view pointer) const {
  for (const auto& e : entries) {
    if (e.key->pointer == pointer) {
      return &e;
    }
  }
  return nullptr;
}

config_document parse_config(std::string_view text, const std::string& source) {
  if (text.size() > max_config_bytes) {
    throw config_error(source, fmt::format("file is {} bytes; a config is at most {} bytes",
                                           text.size(), max_config_bytes));
  }
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    const auto [line, column] = line_column(text, nul);
    throw config_error(fmt::format("{}:{}:{}", source, line, column),
                       "malformed JSON: a NUL byte; a config is UTF-8 text");
  }
  if (detail::trim(text).empty()) {
    throw config_error(source,
                       "file is empty; expected a JSON object such as "
                       "{\"parallel\": {\"tp\": 8}}");
  }
  const json root = parse_strict(text, source);
  if (!root.is_object()) {
    throw config_error(source + ": /", fmt::format("found {} {}; expected a JSON object",
                                                   type_name(root), shown(root)));
  }
  config_document doc;
  doc.source = source;
  walk(source, root, "", doc);
  return doc;
}

namespace {
/// At most `limit` + 1 bytes of `in`: a device (/dev/zero) or an endless pipe is cut short
/// instead of filling memory, while a pipe or process substitution (<(...)) still works.
std::string read_at_most(std::istream& in, std::size_t limit) {
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}
}  // namespace

std::string read_config_text(const std::string& path) {
  std::string text;
  if (path == "-") {
    text = read_at_most(std::cin, max_config_bytes);
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      throw config_error(path_for_message(path), "cannot read the file (is it a directory?)");
    }
    if (const auto size = std::filesystem::file_size(path, ec); !ec && size > max_config_bytes) {
      throw config_error(
          path_for_message(path),
          fmt::format("file is {} bytes; a config is at most {} bytes", size, max_config_bytes));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      throw config_error(path_for_message(path), "cannot open the file");
    }
    text = read_at_most(in, max_config_bytes);
    if (in.bad()) {
      throw config_error(path_for_message(path), "cannot read the file");
    }
  }
  if (text.size() > max_config_bytes) {
    throw config_error(path_for_message(path),
                       fmt::format("more than {} bytes; a config is at most {} bytes",
                                   max_config_bytes, max_config_bytes));
  }
  return text;
}

config_document load_config(const std::string& path) {
  return parse_config(read_config_text(path), path);
}

std::string config_key_table() {
  // Markdown: a '|' in a cell would end it.
  const auto cell = [](std::string_view text) {
    std::string out;
    for (const char c : text) {
      out += c == '|' ? std::string("\\|") : std::string(1, c);
    }
    return out;
  };
  std::string out = "| key | flag | value | meaning |\n|---|---|---|---|\n";
  for (const auto& key : all_keys()) {
    std::string value;
    if (key.kind == value_kind::choice) {
      for (const auto& choice : choices_of(key)) {
        value += (value.empty() ? "one of `" : ", `") + choice + "`";
      }
    } else {
      value = expected_text(key.kind);
    }
    if (key.kind == value_kind::profile_path || key.kind == value_kind::hf_config_path) {
      value += ", relative to the config file's directory";
    }
    out += fmt::format("| `{}` | {} | {} | {} |\n", key.pointer,
                       key.flag.empty() ? std::string() : fmt::format("`{}`", key.flag),
                       cell(value), cell(key.help));
  }
  return out;
}

std::string config_schema() {
  json schema = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", "https://github.com/tpcost/tpcost/schema/tpcost-config.schema.json"},
      {"title", "tpcost config"},
      {"description",
       "A training config for tpcost. Every key has the meaning of the flag it names; flags on "
       "the command line override the file. Generated by `tpcost schema`."},
      {"type", "object"},
      {"additionalProperties", false},
      {"properties", json::object()},
  };
  for (const auto& key : all_keys()) {
    json* node = &schema;
    std::string_view rest = key.pointer.substr(1);
    while (true) {
      const auto slash = rest.find('/');
      const std::string name(rest.substr(0, slash));
      json& props = (*node)["properties"];
      if (slash == std::string_view::npos) {
        props[name] = schema_for(key);
        break;
      }
      if (!props.contains(name)) {
        props[name] = {
            {"type", "object"}, {"additionalProperties", false}, {"properties", json::object()}};
      }
      node = &props[name];
      rest = rest.substr(slash + 1);
    }
  }
  return schema.dump(2) + "\n";
}

}  // namespace tpcost::cli
