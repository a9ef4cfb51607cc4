#include "options/flag_options.hpp"

#include <stdexcept>

namespace tpcost::cli {

namespace {

/// The command `app` belongs to: the named app below the root above its option groups and
/// subcommands (`model list` is `model`'s), or the unparented named app it is in.
const CLI::App& command_of(const CLI::App& app) {
  const CLI::App* a = &app;
  while (a->get_parent() != nullptr &&
         (a->get_name().empty() || a->get_parent()->get_parent() != nullptr)) {
    a = a->get_parent();
  }
  return *a;
}

}  // namespace

const flag_spec& registered_flag(const CLI::App& app, std::string_view name) {
  const auto* spec = find_flag(name);
  const auto& command = command_of(app).get_name();
  if (spec == nullptr || spec->name != name) {
    throw std::logic_error("flag " + std::string(name) + " of '" + command +
                           "' is not in the flag registry (flag_registry.cpp)");
  }
  if ((spec->commands & command_bit(command)) == 0) {
    throw std::logic_error("flag " + std::string(name) + " is not registered for '" + command +
                           "' (flag_registry.cpp)");
  }
  return *spec;
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, std::string& target) {
  const auto& spec = registered_flag(app, name);
  return app.add_option(cli_names(spec), target, std::string(spec.help));
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, std::vector<std::string>& target) {
  const auto& spec = registered_flag(app, name);
  return app.add_option(cli_names(spec), target, std::string(spec.help));
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, bool& target) {
  const auto& spec = registered_flag(app, name);
  return app.add_flag(cli_names(spec), target, std::string(spec.help));
}

void name_flag_values(CLI::App& app) {
  for (auto* option : app.get_options()) {
    if (option->get_type_name() != "TEXT" || option->get_lnames().empty()) {
      continue;  // a switch, a positional, or a value the command named (--format's choices)
    }
    if (const auto* spec = find_flag("--" + option->get_lnames().front()); spec != nullptr) {
      option->type_name(value_name(*spec));
    }
  }
  for (auto* sub : app.get_subcommands({})) {
    name_flag_values(*sub);
  }
}

}  // namespace tpcost::cli
