// Checks that apply to a flag wherever it is registered, attached once after every command is
// added, so that no command can forget them.
#pragma once

#include <CLI/CLI.hpp>

namespace tpcost::cli {

/// The flags that name a file: --output, --out, --config, --hf-config, --interconnect-file,
/// --plot, --plot-script. An empty value ('') is an error (exit 2), never "not given".
void guard_path_flags(CLI::App& app);

}  // namespace tpcost::cli
