// The CLI model read from a CLI::App tree, and the documents made from it, on a synthetic app
// with what tpcost does not have yet: nested subcommands, a CLI11 IsMember check, a positional.
#include <catch2/catch.hpp>
#include <string>

#include <CLI/CLI.hpp>

#include "render/cli_model.hpp"
#include "render/completion.hpp"
#include "render/manpage.hpp"

namespace {

struct synthetic {
  CLI::App app{"prog: a test program", "prog"};
  std::string mode, file, target;
  bool flag = false;

  synthetic() {
    auto* outer = app.add_subcommand("outer", "the outer command");
    auto* inner = outer->add_subcommand("inner", "the inner command");
    inner->add_option("--mode", mode, "a mode")->check(CLI::IsMember({"fast", "slow"}));
    auto* group = inner->add_option_group("Files");
    group->add_option("-i,--input", file, "read FILE")->type_name("FILE");
    inner->add_flag("--flag", flag, "a flag");
    inner->add_option("target", target, "what to act on")->type_name("{alpha,beta}");
    app.add_subcommand("secret", "hidden")->group("");
  }
};

}  // namespace

TEST_CASE("the model reads nested subcommands, option groups, choices and hidden commands",
          "[completion]") {
  synthetic s;
  const auto root = tpcost::cli::describe(s.app);
  CHECK(root.name == "prog");
  REQUIRE(root.subcommands.size() == 2);
  CHECK(root.subcommands[1].hidden);
  REQUIRE(tpcost::cli::visible_subcommands(root).size() == 1);
  const auto& outer = root.subcommands[0];
  REQUIRE(outer.subcommands.size() == 1);
  const auto& inner = outer.subcommands[0];
  REQUIRE(inner.options.size() == 4);  // -h/--help once, --mode, --flag, -i/--input
  const auto find = [&](const std::string& name) -> const tpcost::cli::option_info& {
    for (const auto& o : inner.options) {
      for (const auto& n : o.names) {
        if (n == name) {
          return o;
        }
      }
    }
    FAIL("no option " << name);
    return inner.options.front();
  };
  CHECK(find("--mode").choices == std::vector<std::string>{"fast", "slow"});
  CHECK(find("--input").is_file);
  CHECK(find("-i").group == "Files");
  CHECK_FALSE(find("--flag").takes_value);
  REQUIRE(inner.positionals.size() == 1);
  CHECK(inner.positionals[0].choices == std::vector<std::string>{"alpha", "beta"});
}

TEST_CASE("completion scripts follow the nesting and offer choices and files", "[completion]") {
  synthetic s;
  const auto root = tpcost::cli::describe(s.app);
  const auto bash = tpcost::cli::completion_script(root, tpcost::cli::shell::bash);
  CHECK(bash.find("\"prog outer:inner\") node=\"prog outer inner\"") != std::string::npos);
  CHECK(bash.find("\"prog outer inner:--mode\") COMPREPLY=($(compgen -W \"fast slow\"") !=
        std::string::npos);
  CHECK(bash.find("\"prog outer inner:-i\"|\"prog outer inner:--input\") compopt -o filenames") !=
        std::string::npos);
  CHECK(bash.find("alpha beta") != std::string::npos);
  CHECK(bash.find("secret") == std::string::npos);

  const auto zsh = tpcost::cli::completion_script(root, tpcost::cli::shell::zsh);
  CHECK(zsh.find("_prog_outer_inner() {") != std::string::npos);
  CHECK(zsh.find("inner) _prog_outer_inner ;;") != std::string::npos);
  CHECK(zsh.find("'--mode[a mode]:mode:(fast slow)'") != std::string::npos);
  CHECK(zsh.find("'(-i --input)'{-i,--input}'[read FILE]:input:_files'") != std::string::npos);

  const auto fish = tpcost::cli::completion_script(root, tpcost::cli::shell::fish);
  CHECK(fish.find("complete -c prog -n '__fish_seen_subcommand_from outer; and "
                  "__fish_seen_subcommand_from inner' -l mode -x -a 'fast slow'") !=
        std::string::npos);
  CHECK(fish.find("-n '__fish_seen_subcommand_from outer; and not __fish_seen_subcommand_from "
                  "inner' -a 'inner'") != std::string::npos);
}

TEST_CASE("the man page documents nested commands and lists hidden ones apart", "[completion]") {
  synthetic s;
  const auto page = tpcost::cli::manpage(tpcost::cli::describe(s.app));
  CHECK(page.rfind(".TH TPCOST 1", 0) == 0);
  CHECK(page.find(".SS \"prog outer [options]\"") != std::string::npos);
  CHECK(page.find(".SS \"prog outer inner [options]\"") != std::string::npos);
  CHECK(page.find("\\fB\\-\\-flag\\fR") != std::string::npos);  // '-' escaped for roff
  CHECK(page.find("\\fBprog secret\\fR") != std::string::npos);
  CHECK(tpcost::cli::parse_shell("zsh", "shell") == tpcost::cli::shell::zsh);
  CHECK_THROWS_WITH(tpcost::cli::parse_shell("tcsh", "shell"),
                    "shell: 'tcsh' is not one of bash|zsh|fish");
}
