#include "app/flag_guards.hpp"

#include <array>
#include <string>
#include <string_view>

#include "tpcost/base/error.hpp"

namespace tpcost::cli {

namespace {

constexpr std::array<std::string_view, 7> path_flags{
    "--output", "--out",        "--config", "--hf-config", "--interconnect-file",
    "--plot",   "--plot-script"};

/// Throws when a path flag of `app` (or of its option groups) was given as ''. Runs on what the
/// user typed only: a config overlay later resets options to their empty defaults.
void check_given_paths(const CLI::App& app) {
  for (const auto* option : app.get_options()) {
    for (const auto name : path_flags) {
      if (option->check_name(std::string(name)) && option->count() > 0 &&
          option->results().front().empty()) {
        throw invalid_spec(std::string(name), "is an empty path; give a file name");
      }
    }
  }
  for (const auto* group :
       app.get_subcommands([](const CLI::App* sub) { return sub->get_name().empty(); })) {
    check_given_paths(*group);
  }
}

}  // namespace

void guard_path_flags(CLI::App& app) {
  for (auto* sub : app.get_subcommands([](CLI::App* s) { return !s->get_name().empty(); })) {
    sub->parse_complete_callback([sub] { check_given_paths(*sub); });
    guard_path_flags(*sub);
  }
}

}  // namespace tpcost::cli
