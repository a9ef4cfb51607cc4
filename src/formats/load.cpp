#include "formats/load.hpp"

#include <filesystem>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/scan.hpp"
#include "output/output_safe.hpp"
#include "tpcost/io/json_brief.hpp"

namespace tpcost::cli::formats {

namespace {

using json = nlohmann::json;

/// A JSON document that is not tpcost's: DeepSpeed by its batch or ZeRO keys, an HF config by
/// its architecture keys.
source_format classify_json(const json& doc) {
  if (!doc.is_object()) {
    return source_format::tpcost_json;
  }
  for (const char* k : {"train_batch_size", "train_micro_batch_size_per_gpu",
                        "gradient_accumulation_steps", "zero_optimization"}) {
    if (doc.contains(k)) {
      return source_format::deepspeed_json;
    }
  }
  for (const char* k : {"architectures", "model_type", "num_hidden_layers"}) {
    if (doc.contains(k)) {
      return source_format::hf_config;
    }
  }
  return source_format::tpcost_json;
}

std::string absolute(const std::string& path) {
  return path == "-" ? path : std::filesystem::absolute(path).lexically_normal().string();
}

/// Turns a reading into a validated document whose entries and errors name the user's file.
config_document to_document(reading& r, const std::string& path) {
  r.config["source"]["format"] = format_id(r.format);
  r.config["source"]["file"] = path;
  if (!r.framework.empty()) {
    r.config["source"]["framework"] = r.framework;
    // The framework the file is for is the stack its step runs on (docs/stacks.md).
    if (!r.config.contains("options") || !r.config["options"].contains("stack")) {
      r.put("/options/stack", r.framework,
            place{path, 0, 0,
                  std::string("(a ") + format_name(r.format) + ": stack " + r.framework + ")"});
    }
  }
  const auto origin = [&](const std::string& pointer) {
    const auto it = r.at.find(pointer);
    return it == r.at.end() ? std::string() : it->second.text();
  };
  config_document doc;
  try {
    doc = parse_config(r.config.dump(-1, ' ', false, json::error_handler_t::replace), path);
  } catch (const config_error& e) {
    const std::string prefix = path + ": ";
    if (e.field().rfind(prefix, 0) == 0) {
      if (const auto o = origin(e.field().substr(prefix.size())); !o.empty()) {
        throw config_error(o, e.detail());
      }
    }
    throw;
  }
  for (auto& entry : doc.entries) {
    entry.origin = origin(std::string(entry.key->pointer));
  }
  doc.batch_per_rank = r.batch_per_rank;
  doc.batch_per_rank_origin = r.batch_per_rank > 0 ? r.batch_per_rank_at.text() : std::string();
  doc.global_per_rank = r.global_per_rank;
  doc.global_per_rank_what = r.global_per_rank_what;
  return doc;
}

}  // namespace

source_format detect_format(const std::string& text, const std::string& path) {
  const auto first = text.find_first_not_of(" \t\r\n");
  const auto ext = std::filesystem::path(path).extension().string();
  // A .json file is JSON whatever it holds, so that an empty or damaged one gets the JSON
  // reader's message rather than "no Megatron-LM arguments".
  if (ext == ".json" &&
      (first == std::string::npos || (text[first] != '{' && text[first] != '['))) {
    return source_format::tpcost_json;
  }
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[') && ext != ".toml") {
    try {
      return classify_json(parse_untrusted_json(text, path_for_message(path)));
    } catch (const invalid_spec&) {
      return source_format::tpcost_json;  // its own reader reports the syntax error or depth
    }
  }
  // Hand-written scanners, not std::regex: libstdc++'s matcher recurses once per character
  // and a 50 KB line overflowed the stack (formats/scan.hpp).
  if (scan::has_arguments_banner(text)) {
    return source_format::megatron_log;
  }
  if (ext == ".toml" || scan::any_line(text, scan::is_toml_section)) {
    return source_format::torchtitan_toml;
  }
  if (ext == ".yaml" || ext == ".yml" || scan::any_line(text, scan::is_yaml_section)) {
    return source_format::nemo_yaml;
  }
  return source_format::megatron_script;
}

loaded_file load_any(const std::string& path, const read_options& opts) {
  const std::string text = read_config_text(path);
  const auto format = detect_format(text, path);
  loaded_file out;
  switch (format) {
    case source_format::tpcost_json:
      out.doc = parse_config(text, path);
      out.read.format = format;
      return out;
    case source_format::hf_config: {
      out.read.format = format;
      out.read.config["model"]["hf_config"] = absolute(path);
      out.read.at["/model/hf_config"] = place{path, 0, 0, {}};
      out.doc =
          parse_config(out.read.config.dump(-1, ' ', false, json::error_handler_t::replace), path);
      return out;
    }
    case source_format::deepspeed_json:
      out.read =
          read_deepspeed_json(parse_untrusted_json(text, path_for_message(path)), text, path, opts);
      break;
    case source_format::megatron_log:
      out.read = read_megatron_log(text, path, opts);
      break;
    case source_format::megatron_script:
      out.read = read_megatron_script(text, path, opts);
      break;
    case source_format::nemo_yaml:
      out.read = read_nemo_yaml(text, path, opts);
      break;
    case source_format::torchtitan_toml:
      out.read = read_torchtitan_toml(text, path, opts);
      break;
  }
  if (!out.read.blockers.empty()) {
    const auto& b = out.read.blockers.front();
    fail(b.where, b.text);
  }
  out.doc = to_document(out.read, path);
  return out;
}

config_document merge(const std::vector<loaded_file>& files) {
  config_document out;
  for (const auto& f : files) {
    if (out.source.empty() || f.read.format != source_format::hf_config) {
      if (out.source.empty() || out.source == files.front().doc.source) {
        out.source = out.source.empty() ? f.doc.source : out.source;
      }
    }
    if (out.name.empty()) {
      out.name = f.doc.name;
    }
    if (out.batch_per_rank == 0) {
      out.batch_per_rank = f.doc.batch_per_rank;
      out.batch_per_rank_origin = f.doc.batch_per_rank_origin;
    }
    if (out.global_per_rank == 0) {
      out.global_per_rank = f.doc.global_per_rank;
      out.global_per_rank_what = f.doc.global_per_rank_what;
    }
    for (const auto& e : f.doc.entries) {
      auto it = std::find_if(out.entries.begin(), out.entries.end(),
                             [&](const config_entry& x) { return x.key == e.key; });
      if (it == out.entries.end()) {
        out.entries.push_back(e);
      } else if (it->text != e.text && e.key->pointer.substr(0, 8) != "/source/") {
        const auto where = [&](const config_entry& x, const config_document& d) {
          return x.origin.empty() ? d.source + ": " + std::string(x.key->pointer) : x.origin;
        };
        throw config_error(where(e, f.doc),
                           fmt::format("'{}' here, but '{}' in {}; give each value once", e.text,
                                       it->text, where(*it, out)));
      }
    }
  }
  return out;
}

void print_notes(const loaded_file& file, std::ostream& out, bool ignored, bool missing,
                 std::set<std::string>* seen) {
  // Issue 30: a script can repeat a flag 20,000 times or pass 20,000 unknown ones. Identical
  // warnings print once, at most max_warning_lines print, and the note names at most
  // max_ignored_named keys; each cut says how many it left out.
  std::set<std::string> local;
  if (seen == nullptr) {
    seen = &local;
  }
  std::size_t printed = 0;
  std::size_t suppressed = 0;
  std::string skipped;
  std::size_t named = 0;
  std::size_t unnamed = 0;
  const auto warn = [&](const reader_note& n) {
    const auto line = "tpcost: warning: " + output_safe(n.where.text() + ": " + n.text);
    if (!seen->insert(line).second) {
      return;
    }
    if (printed == max_warning_lines) {
      ++suppressed;
      return;
    }
    ++printed;
    out << line << '\n';
  };
  for (const auto& n : file.read.notes) {
    if (n.severity == reader_note::kind::missing) {
      if (missing) {
        warn(n);
      }
    } else if (n.severity == reader_note::kind::warning) {
      warn(n);
    } else if (ignored) {
      if (named == max_ignored_named) {
        ++unnamed;
        continue;
      }
      ++named;
      const auto what =
          n.where.key.empty() ? n.text : n.where.key + (n.text.empty() ? "" : " (" + n.text + ")");
      skipped += (skipped.empty() ? "" : ", ") + bounded(what);
    }
  }
  if (suppressed > 0) {
    out << "tpcost: warning: " << output_safe(file.doc.source) << ": ... and " << suppressed
        << " more warning" << (suppressed == 1 ? "" : "s") << " suppressed\n";
  }
  if (!skipped.empty()) {
    if (unnamed > 0) {
      skipped += ", ... and " + std::to_string(unnamed) + " more";
    }
    out << "tpcost: note: "
        << output_safe(file.doc.source + ": ignored (no effect on what tpcost models): " + skipped)
        << '\n';
  }
}

std::map<std::string, std::string> parse_set(const std::vector<std::string>& assignments) {
  std::map<std::string, std::string> out;
  for (const auto& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw invalid_spec("--set", "'" + a + "': expected VAR=VALUE, e.g. --set NUM_NODES=16");
    }
    out[a.substr(0, eq)] = a.substr(eq + 1);
  }
  return out;
}

}  // namespace tpcost::cli::formats
