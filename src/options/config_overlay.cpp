#include "options/config_overlay.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "formats/load.hpp"
#include "options/cli_options.hpp"
#include "options/flag_options.hpp"
#include "output/emit.hpp"

namespace tpcost::cli {

namespace {

/// The option of `cmd` a config key sets, if this command has that flag.
CLI::Option* option_for(CLI::App& cmd, const config_key& key) {
  return key.flag.empty() ? nullptr : cmd.get_option_no_throw(std::string(key.flag));
}

/// Sets the option as if `text` had been given: a value for an option, "true" or "false" for a
/// flag (CLI11 reads both through its flag conversion). The option then counts as given.
void set_value(CLI::Option& opt, const std::string& text) {
  opt.clear();
  opt.add_result(text);
  opt.run_callback();
}

/// Puts the option's default back into its variable (a flag's default is false) and leaves it
/// not given (count() == 0), so a value left over from the previous document does not leak
/// into the next, and an empty default keeps meaning "not given" (a preset may fill it).
void reset_to_default(CLI::Option& opt) {
  const bool is_flag = opt.get_expected_max() == 0;
  const auto text = opt.get_default_str();
  set_value(opt, is_flag && text.empty() ? std::string("false") : text);
  opt.clear();
}

/// A whole number, or nullopt when `text` is not one that fits an int64.
std::optional<std::int64_t> whole_number(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size() && !text.empty()
             ? std::optional<std::int64_t>(value)
             : std::nullopt;
}

/// A finite number, or nullopt (NaN would be written as null).
std::optional<double> finite_number(const std::string& text) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size() && !text.empty() &&
                 std::isfinite(value)
             ? std::optional<double>(value)
             : std::nullopt;
}

/// The JSON value of a key's text, as the file format writes it (a count as an integer). Text
/// that is not a number of the key's kind stays a string, which `checked_value` then refuses
/// with the loader's own message.
nlohmann::json typed_value(const config_key& key, const std::string& text) {
  switch (key.kind) {
    case value_kind::count:
    case value_kind::count_or_auto:  // "auto" stays a string
    case value_kind::node_size:
    case value_kind::zero_stage:
      if (const auto n = whole_number(text)) {
        return *n;
      }
      return text;
    case value_kind::open_fraction:
    case value_kind::share:
    case value_kind::fraction:
    case value_kind::positive:
      if (const auto x = finite_number(text)) {
        return *x;
      }
      return text;
    case value_kind::boolean:
      return text == "true";
    case value_kind::profile_path:
    case value_kind::hf_config_path:
      // Absolute, so that the printed config reads the same profile wherever it is saved.
      return std::filesystem::absolute(text).lexically_normal().string();
    case value_kind::degrees:
      // A single degree is an integer in the file format; a list stays a string.
      if (const auto n = whole_number(text);
          n && text.find_first_not_of("0123456789") == std::string::npos) {
        return *n;
      }
      return text;
    default:
      return text;
  }
}

/// `typed_value`, checked as `--config` would check it, so that --print-config never prints
/// a config that --config then rejects ("--print-config --tp abc" did); throws invalid_spec
/// naming the key's flag.
nlohmann::json checked_value(const config_key& key, const std::string& text) {
  auto value = typed_value(key, text);
  nlohmann::json probe = nlohmann::json::object();
  probe[nlohmann::json::json_pointer(std::string(key.pointer))] = value;
  try {
    (void)parse_config(probe.dump(), "--print-config");
  } catch (const invalid_spec& e) {
    throw invalid_spec(key.flag.empty() ? std::string(key.pointer) : std::string(key.flag),
                       e.detail());
  }
  return value;
}

}  // namespace

void add_reader_flags(CLI::App& cmd, std::vector<std::string>& set, bool& strict) {
  add_flag(cmd, "--set", set);
  add_flag(cmd, "--strict", strict);
}

void add_config_flags(CLI::App& cmd, config_flags& flags) {
  add_flag(cmd, "--config", flags.path);
  add_flag(cmd, "--from", flags.from);
  add_reader_flags(cmd, flags.set, flags.strict);
  add_flag(cmd, "--print-config", flags.print);
}

config_overlay::config_overlay(CLI::App& cmd) : cmd_(cmd) {
  for (const auto& key : config_keys()) {
    if (const auto* opt = option_for(cmd_, key); opt != nullptr && opt->count() > 0) {
      from_command_line_.insert(std::string(key.flag));
    }
  }
}

void config_overlay::apply(const config_document& doc) {
  field_by_flag_.clear();
  for (const auto& key : config_keys()) {
    auto* opt = option_for(cmd_, key);
    if (opt == nullptr || from_command_line_.count(std::string(key.flag)) > 0) {
      continue;
    }
    if (const auto* entry = doc.find(key.pointer)) {
      set_value(*opt, entry->text);
      field_by_flag_[std::string(key.flag)] =
          entry->origin.empty() ? doc.source + ": " + std::string(key.pointer) : entry->origin;
    } else {
      reset_to_default(*opt);
    }
  }
  derive_global_batch(doc);
}

void config_overlay::derive_global_batch(const config_document& doc) {
  if (doc.batch_per_rank <= 0 && doc.global_per_rank <= 0) {
    return;
  }
  const auto value = [&](const char* flag) -> std::int64_t {
    const auto* opt = cmd_.get_option_no_throw(flag);
    if (opt == nullptr || opt->count() == 0 || opt->results().empty()) {
      return 0;
    }
    std::int64_t v = 0;
    const auto& s = opt->results().front();
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && v > 0 ? v : 0;
  };
  auto* global = cmd_.get_option_no_throw("--global-batch");
  if (global == nullptr || from_command_line_.count("--global-batch") > 0) {
    return;  // given on the command line: the file's batch does not count
  }
  // d = N / (t*p*cp), as the frameworks derive it; an N that t*p*cp does not divide is left
  // to the step to refuse.
  std::int64_t d = value("--dp");
  std::string dp_from = "--dp " + std::to_string(d);
  const auto model = std::max<std::int64_t>(1, value("--tp")) *
                     std::max<std::int64_t>(1, value("--pp")) *
                     std::max<std::int64_t>(1, value("--cp"));
  if (d == 0 && value("--gpus") > 0 && value("--gpus") % model == 0) {
    d = value("--gpus") / model;
    dp_from = "--gpus " + std::to_string(value("--gpus")) + " / t*p*cp " + std::to_string(model);
  }
  if (d == 0) {
    return;
  }
  if (doc.global_per_rank > 0 && global->count() > 0) {
    // The file's global batch with DP from the GPU count: the rule its reader applies where
    // the file states DP (torchtitan's trainer asserts global % (local x DP) == 0).
    const auto g = value("--global-batch");
    if (g > 0 && doc.global_per_rank <= INT32_MAX / d && g % (doc.global_per_rank * d) != 0) {
      const auto* entry = doc.find("/batch/global_batch");
      const auto where = entry != nullptr && !entry->origin.empty()
                             ? entry->origin
                             : doc.source + ": /batch/global_batch";
      throw config_error(
          where, fmt::format("G = {} is not a multiple of {} x DP = {} x {} = {} (DP = {}): "
                             "torchtitan runs whole local batches on every DP rank",
                             g, doc.global_per_rank_what, doc.global_per_rank, d,
                             doc.global_per_rank * d, dp_from));
    }
    return;
  }
  if (doc.batch_per_rank <= 0 || global->count() > 0 || doc.batch_per_rank > INT32_MAX / d) {
    return;  // none to derive, or given by the file
  }
  set_value(*global, std::to_string(doc.batch_per_rank * d));
  field_by_flag_["--global-batch"] = doc.batch_per_rank_origin + " x DP " + std::to_string(d);
}

nlohmann::json config_overlay::merged(const config_document* doc) const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& key : config_keys()) {
    const auto pointer = nlohmann::json::json_pointer(std::string(key.pointer));
    const auto* entry = doc != nullptr ? doc->find(key.pointer) : nullptr;
    auto* opt = option_for(cmd_, key);
    std::string text;
    if (opt != nullptr) {
      text = opt->count() > 0 ? opt->results().front() : opt->get_default_str();
    } else if (entry != nullptr) {
      text = entry->text;
    } else {
      continue;
    }
    if (key.kind == value_kind::boolean && opt != nullptr && opt->get_expected_max() == 0) {
      // A flag: given on the command line ("--sp") or from the file ("true"/"false").
      out[pointer] = opt->count() > 0 && opt->as<bool>();
      continue;
    }
    if (text.empty()) {
      continue;  // not given, and its default depends on a preset (e.g. /hardware/flops)
    }
    out[pointer] = checked_value(key, text);
  }
  return out;
}

nlohmann::json document_json(const config_document& doc) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& key : config_keys()) {
    if (const auto* entry = doc.find(key.pointer)) {
      out[nlohmann::json::json_pointer(std::string(key.pointer))] = typed_value(key, entry->text);
    }
  }
  return out;
}

void copy_command_line(const CLI::App& from, CLI::App& to) {
  // Option groups are nameless sub-apps, whose options the app's own list leaves out.
  for (const auto* group :
       from.get_subcommands([](const CLI::App* sub) { return sub->get_name().empty(); })) {
    copy_command_line(*group, to);
  }
  for (const auto* given : from.get_options([](const CLI::Option* o) { return o->count() > 0; })) {
    auto* target = to.get_option_no_throw(given->get_name());
    if (target == nullptr || given->get_name().empty()) {
      continue;
    }
    const bool is_flag = given->get_expected_max() == 0;
    set_value(*target, is_flag ? (given->as<bool>() ? "true" : "false") : given->results().front());
  }
}

std::optional<invalid_spec> config_overlay::attributed(const invalid_spec& e) const {
  const auto flag = flag_of(e.field());
  const auto it = field_by_flag_.find(flag);
  if (it == field_by_flag_.end()) {
    // A --gpus of the command line that the file's degrees do not fit: the error names the
    // flag and both products; this names where in the file the degrees are (issue 29).
    if (flag == "--gpus" && e.detail().find(" (the file's degrees: ") == std::string::npos) {
      std::string where;
      for (const auto* degree : {"--tp", "--pp", "--cp", "--dp"}) {
        if (const auto d = field_by_flag_.find(degree); d != field_by_flag_.end()) {
          where += (where.empty() ? "" : "; ") + d->second;
        }
      }
      if (!where.empty()) {
        return invalid_spec(e.field(), e.detail() + " (the file's degrees: " + where + ")");
      }
    }
    return std::nullopt;
  }
  return invalid_spec(it->second, e.detail());
}

void run_with_config(CLI::App& cmd, const config_flags& flags, const std::function<void()>& run) {
  std::optional<config_document> doc;
  std::vector<std::string> paths = flags.from;
  if (!flags.path.empty()) {
    paths.insert(paths.begin(), flags.path);
  }
  // No config: nothing to overlay or attribute. Building the overlay looks up every config
  // key's option by name, 3x the instructions of the sweep itself (callgrind, bench/).
  if (paths.empty() && !flags.print) {
    run();
    return;
  }
  config_overlay overlay(cmd);
  if (!paths.empty()) {
    const formats::read_options opts{formats::parse_set(flags.set), flags.strict};
    std::vector<formats::loaded_file> files;
    std::set<std::string> warned;
    for (const auto& p : paths) {
      files.push_back(formats::load_any(p, opts));
      // Held until the command gets past validation (emit.hpp): an exit 2 is one line.
      formats::print_notes(files.back(), held_notes(), false, false, &warned);
    }
    doc = formats::merge(files);
    overlay.apply(*doc);
  }
  if (flags.print) {
    release_notes();
    std::cout << overlay.merged(doc ? &*doc : nullptr)
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << '\n';
    return;
  }
  try {
    run();
  } catch (const invalid_spec& e) {
    if (auto relabelled = overlay.attributed(e)) {
      throw config_error(relabelled->field(), relabelled->detail());
    }
    throw;
  }
}

}  // namespace tpcost::cli
