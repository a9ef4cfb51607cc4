#include "app/usage.hpp"

#include <algorithm>

#include "tpcost/base/suggest.hpp"

namespace tpcost::cli {

namespace {

/// Every flag name of `cmd` as typed ("--batch", "-b"), its option groups' included.
void collect_flags(const CLI::App& cmd, std::vector<std::string>& out) {
  for (const auto* opt : cmd.get_options()) {
    if (!opt->nonpositional()) {
      continue;
    }
    for (const auto& l : opt->get_lnames()) {
      out.push_back("--" + l);
    }
    for (const auto& s : opt->get_snames()) {
      out.push_back("-" + s);
    }
  }
  for (const auto* sub : cmd.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name().empty()) {  // an option group
      collect_flags(*sub, out);
    }
  }
}

std::vector<std::string> command_names(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const auto* sub : cmd.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_name().empty()) {
      out.push_back(sub->get_name());
    }
  }
  return out;
}

/// "tpcost model show": the command's path from the root.
std::string path_of(const CLI::App& cmd) {
  std::string out = cmd.get_name();
  for (const auto* p = cmd.get_parent(); p != nullptr; p = p->get_parent()) {
    out = p->get_name() + " " + out;
  }
  return out;
}

bool looks_like_number(std::string_view word) {
  if (!word.empty() && (word.front() == '-' || word.front() == '+')) {
    word.remove_prefix(1);
  }
  return !word.empty() && ((word.front() >= '0' && word.front() <= '9') || word.front() == '.');
}

}  // namespace

std::string unknown_command_message(std::string_view word,
                                    const std::vector<std::string_view>& commands) {
  std::string out = "unknown command '" + std::string(word) + "'";
  if (const auto near = closest_match(word, commands)) {
    out += "; did you mean '" + *near + "'?";
  }
  return out + " ('tpcost help' lists the commands)";
}

std::string unexpected_arguments_message(const CLI::App& app, const std::vector<std::string>& argv,
                                         const std::vector<std::string>& unexpected) {
  // The command being parsed: the deepest parsed subcommand.
  const CLI::App* cmd = &app;
  for (auto subs = cmd->get_subcommands(); !subs.empty(); subs = cmd->get_subcommands()) {
    cmd = subs.front();
  }
  const auto path = path_of(*cmd);
  // The first unexpected word in the order it was typed (CLI11 lists them in reverse).
  std::string first;
  for (const auto& word : argv) {
    const auto name = word.substr(0, word.find('='));
    if (std::find(unexpected.begin(), unexpected.end(), word) != unexpected.end() ||
        std::find(unexpected.begin(), unexpected.end(), name) != unexpected.end()) {
      if (name.size() > 1 && name.front() == '-' && !looks_like_number(name)) {
        first = name;
        break;  // a flag explains the words after it better than they explain it
      }
      if (first.empty()) {
        first = word;
      }
    }
  }
  if (first.empty() && !unexpected.empty()) {
    first = unexpected.back();
  }
  const std::string help = " (see " + path + " --help)";
  if (first.size() > 1 && first.front() == '-' && !looks_like_number(first)) {
    std::vector<std::string> flags;
    for (const auto* c = cmd; c != nullptr; c = c->get_parent()) {
      collect_flags(*c, flags);
    }
    std::string out = path + ": unknown flag '" + first + "'";
    // A short flag is one letter: any other letter is as close, so suggest long names only.
    if (first.rfind("--", 0) == 0) {
      flags.erase(std::remove_if(flags.begin(), flags.end(),
                                 [](const std::string& f) { return f.rfind("--", 0) != 0; }),
                  flags.end());
      if (const auto near = closest_match(first, flags)) {
        out += "; did you mean '" + *near + "'?";
      }
    }
    return out + help;
  }
  const auto subcommands = command_names(*cmd);
  std::string out = path + ": unexpected argument '" + first + "'";
  if (!subcommands.empty()) {
    out = path + ": unknown command '" + first + "'";
    if (const auto near = closest_match(first, subcommands)) {
      out += "; did you mean '" + *near + "'?";
    }
  }
  return out + help;
}

const CLI::App* find_command(const CLI::App& app, const std::vector<std::string>& path,
                             std::string& unknown) {
  const CLI::App* cmd = &app;
  for (const auto& name : path) {
    const CLI::App* next = nullptr;
    for (const auto* sub : cmd->get_subcommands([](const CLI::App*) { return true; })) {
      if (!sub->get_name().empty() && sub->get_name() == name) {
        next = sub;
      }
    }
    if (next == nullptr) {
      unknown = name;
      return nullptr;
    }
    cmd = next;
  }
  return cmd;
}

std::string short_usage(const CLI::App& app) {
  std::string out = "usage: tpcost <command> [flags]    (tpcost help <command> for its flags)\n\n";
  out += "Commands:\n";
  std::size_t width = 0;
  const auto subs = app.get_subcommands(
      [](const CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); });
  for (const auto* sub : subs) {
    width = std::max(width, sub->get_name().size());
  }
  for (const auto* sub : subs) {
    out += "  " + sub->get_name() + std::string(width + 2 - sub->get_name().size(), ' ') +
           sub->get_description() + "\n";
  }
  return out;
}

}  // namespace tpcost::cli
