// The man page tpcost(1), in roff, made from the command line's own definition
// (cli_model.hpp), the exit codes (exit_codes.hpp) and the environment (display.hpp).
#pragma once

#include <string>

#include "render/cli_model.hpp"

namespace tpcost::cli {

std::string manpage(const command_info& root);

}  // namespace tpcost::cli
