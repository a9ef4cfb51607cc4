// What each option's value is, named in --help, the man page and the completions ("N", "SIZE",
// "BANDWIDTH", "{alltoall,flex}") instead of CLI11's "TEXT": tpcost's flags take their numbers
// as text, to read units, so CLI11 cannot tell a count from a bandwidth.
#pragma once

#include <CLI/CLI.hpp>

namespace tpcost::cli {

/// Names the value of every option of `app` and its subcommands still called "TEXT", from the
/// config format's kind of the key the same flag sets (formats/config.hpp); an option without
/// a key keeps its name. Run before help or a generated document, not on every run (start-up).
void name_option_values(CLI::App& app);

}  // namespace tpcost::cli
