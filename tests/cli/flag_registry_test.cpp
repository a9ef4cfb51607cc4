// The flag registry (formats/flag_registry.hpp) against the command line it builds: every
// command registered as tpcost registers it, walked through the CLI11 tree; the config keys,
// the schema, the completions and the man page made from the same tree.
#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "formats/config.hpp"
#include "formats/flag_registry.hpp"
#include "options/flag_options.hpp"
#include "render/cli_model.hpp"
#include "render/completion.hpp"
#include "render/manpage.hpp"

namespace {

using namespace tpcost::cli;

/// Every command, as main.cpp registers them for --help, the completions and the man page.
struct whole_cli {
  CLI::App app{"tpcost", "tpcost"};
  int exit_code = 0;
  command_info root;

  whole_cli() {
    add_sweep_command(app);
    add_explain_command(app);
    add_check_command(app, exit_code);
    add_schema_command(app);
    add_model_command(app);
    add_calibrate_command(app);
    add_hardware_command(app);
    add_collective_command(app);
    add_step_command(app, exit_code);
    add_plan_command(app);
    add_convert_command(app);
    add_completion_command(app);
    add_manpage_command(app);
    name_flag_values(app);
    root = describe(app);
  }
};

const whole_cli& cli() {
  static const whole_cli c;
  return c;
}

struct seen_option {
  std::string command;  ///< the top-level command: "model" for `model list`
  option_info option;
};

/// Every visible flag of every command and subcommand.
std::vector<seen_option> every_option() {
  std::vector<seen_option> out;
  const auto walk = [&](const command_info& c, const std::string& top, const auto& self) -> void {
    for (const auto& o : c.options) {
      if (o.names != std::vector<std::string>{"-h", "--help"}) {
        out.push_back({top, o});
      }
    }
    for (const auto& sub : c.subcommands) {
      self(sub, top, self);
    }
  };
  for (const auto& c : cli().root.subcommands) {
    walk(c, c.name, walk);
  }
  return out;
}

std::string long_name(const option_info& o) {
  for (const auto& n : o.names) {
    if (n.rfind("--", 0) == 0) {
      return n;
    }
  }
  return {};
}

/// A flag whose value the command names itself: --format, each command's own formats.
bool command_names_value(const flag_spec& spec) {
  return spec.kind == value_kind::choice && spec.choices.empty();
}

/// Every name and old name of the registry, and --help.
std::set<std::string> registry_names() {
  std::set<std::string> out{"--help"};
  for (const auto& spec : flag_specs()) {
    for (const auto& name : CLI::detail::split(cli_names(spec), ',')) {
      if (name.rfind("--", 0) == 0) {
        out.insert(name);
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("Every flag of every command is the registry's, with its names, type and help",
          "[registry]") {
  const auto options = every_option();
  REQUIRE(options.size() > 300);
  for (const auto& [command, o] : options) {
    const auto name = long_name(o);
    CAPTURE(command, name);
    const auto* spec = find_flag(name);
    REQUIRE(spec != nullptr);
    CHECK(spec->name == name);
    CHECK((spec->commands & command_bit(command)) != 0);
    std::string names;
    for (const auto& n : o.names) {
      names += (names.empty() ? "" : ",") + n;
    }
    CHECK(names == cli_names(*spec));
    CHECK(o.description == spec->help);
    CHECK_FALSE(o.description.empty());
    CHECK(o.takes_value == (spec->kind != value_kind::boolean));
    if (!command_names_value(*spec)) {
      CHECK(o.value_name == value_name(*spec));
    }
  }
}

TEST_CASE("A flag reads the same in every command that takes it", "[registry]") {
  std::map<std::string, std::map<std::string, std::string>> seen;  // flag -> command -> text
  for (const auto& [command, o] : every_option()) {
    const auto* spec = find_flag(long_name(o));
    REQUIRE(spec != nullptr);
    const auto type = command_names_value(*spec) ? std::string() : o.value_name;
    seen[long_name(o)][command] = o.description + " | " + type;
  }
  std::size_t shared = 0;
  for (const auto& [flag, by_command] : seen) {
    CAPTURE(flag);
    shared += by_command.size() > 1 ? 1U : 0U;
    for (const auto& [command, text] : by_command) {
      CAPTURE(command);
      CHECK(text == by_command.begin()->second);
    }
  }
  CHECK(shared > 100);  // --tp, --gpu, ...: the flags this test is about
}

TEST_CASE("The registry lists exactly the commands that take each flag", "[registry]") {
  std::map<std::string, std::uint32_t> taken;
  for (const auto& [command, o] : every_option()) {
    taken[long_name(o)] |= command_bit(command);
  }
  for (const auto& spec : flag_specs()) {
    CAPTURE(std::string(spec.name));
    CHECK(taken[std::string(spec.name)] == spec.commands);
  }
  CHECK(taken.size() == flag_specs().size());
}

TEST_CASE("No name or short letter means two flags", "[registry]") {
  std::set<std::string> names;
  std::set<char> letters;
  for (const auto& spec : flag_specs()) {
    for (const auto& name : CLI::detail::split(cli_names(spec), ',')) {
      CAPTURE(name);
      CHECK(names.insert(name).second);
    }
    if (spec.short_name != '\0') {
      CHECK(letters.insert(spec.short_name).second);
    }
  }
}

TEST_CASE("The config keys and the schema are the registry's", "[registry]") {
  std::set<std::string> registry_keys;
  for (const auto& spec : flag_specs()) {
    if (!spec.pointer.empty()) {
      registry_keys.insert(std::string(spec.pointer));
    }
  }
  std::set<std::string> keyed;
  for (const auto& key : config_keys()) {
    if (key.flag.empty()) {
      CHECK(registry_keys.count(std::string(key.pointer)) == 0);
      continue;
    }
    const auto* spec = find_flag(key.flag);
    REQUIRE(spec != nullptr);
    CHECK(spec->pointer == key.pointer);
    CHECK(spec->help == key.help);
    keyed.insert(std::string(key.pointer));
  }
  CHECK(keyed == registry_keys);
  // The schema's leaves that name a flag: one per registry key, described by its help.
  const auto schema = nlohmann::json::parse(config_schema());
  std::set<std::string> in_schema;
  for (const auto& [section, body] : schema["properties"].items()) {
    if (!body.contains("properties")) {
      continue;
    }
    for (const auto& [key, leaf] : body["properties"].items()) {
      if (leaf.at("description").get<std::string>().find("(flag --") != std::string::npos) {
        in_schema.insert("/" + section + "/" + key);
      }
    }
  }
  CHECK(in_schema == registry_keys);
}

TEST_CASE("The completions and the man page offer exactly the registry's flags", "[registry]") {
  const auto known = registry_names();
  const std::regex fish_long(R"( -l ([a-z0-9-]+))");
  const std::regex bash_flag(R"(:(--[a-z0-9-]+)\")");
  const std::regex man_flag(R"(\\fB\\-\\-([a-z0-9\\-]+)\\fR)");
  const auto collect = [](const std::string& text, const std::regex& re, bool man) {
    std::set<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
         ++it) {
      auto name = (*it)[1].str();
      if (man) {
        name = std::regex_replace(name, std::regex(R"(\\-)"), "-");
      }
      out.insert(name.rfind("--", 0) == 0 ? name : "--" + name);
    }
    return out;
  };
  const auto fish = collect(completion_script(cli().root, shell::fish), fish_long, false);
  const auto bash = collect(completion_script(cli().root, shell::bash), bash_flag, false);
  const auto man = collect(manpage(cli().root), man_flag, true);
  for (const auto* list : {&fish, &man}) {
    for (const auto& name : known) {
      CAPTURE(name);
      CHECK(list->count(name) == 1);
    }
  }
  for (const auto* list : {&fish, &bash, &man}) {
    for (const auto& name : *list) {
      CAPTURE(name);
      CHECK((known.count(name) == 1 || name == "--version"));
    }
  }
}
