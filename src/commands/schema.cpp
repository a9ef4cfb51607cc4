// `tpcost schema`: prints the JSON Schema of the config format (committed as
// schema/tpcost-config.schema.json; a test keeps the two equal), or its keys as the Markdown
// table of docs/config.md.
#include <iostream>
#include <memory>

#include "commands/commands.hpp"
#include "formats/config.hpp"
#include "options/flag_options.hpp"
#include "tpcost/base/error.hpp"

namespace tpcost::cli {

void add_schema_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("schema", "Print the JSON Schema of the config format");
  auto format = std::make_shared<std::string>("json");
  add_flag(*cmd, "--format", *format)->type_name("{json,markdown}")->capture_default_str();
  cmd->footer(R"(Examples:
  tpcost schema > tpcost-config.schema.json
  tpcost schema --format markdown     # the keys, their flags and values, as docs/config.md shows them
)");
  cmd->callback([format] {
    if (*format != "json" && *format != "markdown") {
      throw invalid_spec("--format",
                         "'" + *format + "' is not a format of schema; expected json or markdown");
    }
    std::cout << (*format == "json" ? config_schema() : config_key_table());
  });
}

}  // namespace tpcost::cli
