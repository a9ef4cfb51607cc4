// `tpcost schema`: prints the JSON Schema of the config format (committed as
// schema/tpcost-config.schema.json; a test keeps the two equal).
#include <iostream>

#include "commands/commands.hpp"
#include "formats/config.hpp"

namespace tpcost::cli {

void add_schema_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("schema", "Print the JSON Schema of the config format");
  cmd->footer(R"(Examples:
  tpcost schema > tpcost-config.schema.json
)");
  cmd->callback([] { std::cout << config_schema(); });
}

}  // namespace tpcost::cli
