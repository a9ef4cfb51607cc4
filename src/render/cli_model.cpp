#include "render/cli_model.hpp"

#include <algorithm>

namespace tpcost::cli {

namespace {

/// "{a,b,c}" (set with type_name) or "TEXT:{a,b,c}" (CLI11's IsMember check) as
/// {"a", "b", "c"}; anything else as none.
std::vector<std::string> choices_of(const std::string& type) {
  const auto open = type.rfind('{');
  if (open == std::string::npos || type.size() < open + 3 || type.back() != '}' ||
      (open > 0 && type[open - 1] != ':')) {
    return {};
  }
  std::vector<std::string> out;
  std::string current;
  for (std::size_t i = open + 1; i + 1 < type.size(); ++i) {
    if (type[i] == ',') {
      out.push_back(current);
      current.clear();
    } else {
      current += type[i];
    }
  }
  out.push_back(current);
  return out;
}

option_info describe(const CLI::Option& opt) {
  option_info o;
  for (const auto& s : opt.get_snames()) {
    o.names.push_back("-" + s);
  }
  for (const auto& l : opt.get_lnames()) {
    o.names.push_back("--" + l);
  }
  o.positional = !opt.nonpositional();
  o.positional_name = opt.get_name(true, false);
  o.takes_value = opt.get_items_expected_max() > 0;
  o.value_name = opt.get_type_name();
  o.choices = choices_of(o.value_name);
  o.is_file = o.value_name == "FILE";
  o.description = opt.get_description();
  o.default_value = opt.get_default_str();
  return o;
}

void collect_options(const CLI::App& app, command_info& into, const std::string& group) {
  for (const auto* opt : app.get_options()) {
    if (opt->get_group().empty()) {
      continue;  // hidden
    }
    auto o = describe(*opt);
    o.group = group.empty() ? opt->get_group() : group;
    // An option group inherits its parent's -h,--help: keep one.
    const auto known = [&](const option_info& k) { return k.names == o.names; };
    if (std::any_of(into.options.begin(), into.options.end(), known)) {
      continue;
    }
    (o.positional ? into.positionals : into.options).push_back(std::move(o));
  }
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name().empty()) {  // an option group
      collect_options(*sub, into, sub->get_group());
    }
  }
}

}  // namespace

command_info describe(const CLI::App& app) {
  command_info cmd;
  cmd.name = app.get_name();
  cmd.description = app.get_description();
  cmd.footer = app.get_footer();
  cmd.hidden = app.get_group().empty();
  collect_options(app, cmd, "");
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_name().empty()) {
      cmd.subcommands.push_back(describe(*sub));
    }
  }
  return cmd;
}

std::vector<const command_info*> visible_subcommands(const command_info& cmd) {
  std::vector<const command_info*> out;
  for (const auto& sub : cmd.subcommands) {
    if (!sub.hidden) {
      out.push_back(&sub);
    }
  }
  return out;
}

}  // namespace tpcost::cli
