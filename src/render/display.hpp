// How `sweep` shows its result beyond the table: terminal charts (--chart, --ascii, --color),
// image files drawn by gnuplot (--plot, --plot-script) and --quiet. Also the environment
// variables that decide the defaults, documented once here for --help and the man page.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "charts/chart.hpp"
#include "options/cli_options.hpp"
#include "output/environment.hpp"
#include "render/render.hpp"

namespace tpcost::cli {

struct display_flags {
  bool chart = false;
  bool ascii = false;
  std::string color = "auto";
  std::string plot;         ///< FILE.svg or FILE.png; empty: none
  std::string plot_script;  ///< FILE.gp; empty: none
  bool quiet = false;
};

void add_display_flags(CLI::App& cmd, display_flags& flags);

/// The most samples a chart or plot draws (one bar and one column per TP degree): far wider
/// than a terminal already; 10^6 degrees took a minute and 3.7 GB to draw.
inline constexpr std::size_t max_figure_points = 1024;

/// Whether any figure (--chart, --plot, --plot-script) is asked for.
[[nodiscard]] inline bool wants_figure(const display_flags& flags) {
  return flags.chart || !flags.plot.empty() || !flags.plot_script.empty();
}

/// Checks the flags before any work: --chart only below a table, --plot's extension, --color's
/// value. Throws invalid_spec naming the flag.
void validate(const display_flags& flags, output_format format);

/// --color: `always` and `never` say it; `auto` colours only a terminal, and not when NO_COLOR
/// is set to a non-empty value (no-color.org) or TERM is "dumb".
bool use_color(std::string_view mode, bool output_is_terminal, const env_lookup& env);

/// The text style of the charts from the flags, the environment and where the output goes.
chart::text_style text_style_for(const display_flags& flags, bool output_is_terminal,
                                 const env_lookup& env = process_env);

/// True when the command's text goes to a terminal (stdout is a TTY and no --output file).
bool writes_to_terminal(const output_flags& output);

/// Writes the --plot image and the --plot-script file, then returns the chart text to append
/// below the table (empty without --chart). Throws io_error or tool_error; writes nothing to
/// stdout, so a failure leaves stdout empty.
std::string show_figure(const display_flags& flags, const output_flags& output,
                        const chart::figure& fig);

struct env_doc {
  std::string_view name;
  std::string_view meaning;
};

/// The environment variables tpcost reads, for the man page.
inline constexpr std::array<env_doc, 6> environment_docs{{
    {"NO_COLOR", "when set and not empty, --color auto draws no colour (https://no-color.org)"},
    {"TERM", "\"dumb\" turns colour off under --color auto"},
    {"LC_ALL",
     "the first of LC_ALL, LC_CTYPE, LANG that is set decides the character set of "
     "charts: UTF-8 draws Unicode blocks, anything else pure ASCII"},
    {"LC_CTYPE", "see LC_ALL"},
    {"LANG", "see LC_ALL"},
    {"TPCOST_GNUPLOT", "the gnuplot program --plot runs (default: gnuplot, found on PATH)"},
}};

}  // namespace tpcost::cli
