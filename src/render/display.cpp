#include "render/display.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "charts/plot.hpp"
#include "options/flag_options.hpp"
#include "output/output_file.hpp"
#include "tpcost/base/error.hpp"

namespace tpcost::cli {

namespace {

/// The script's own output name: the --plot file, or the script's name with .svg.
std::string image_name_for_script(const display_flags& flags) {
  if (!flags.plot.empty()) {
    return flags.plot;
  }
  const auto& s = flags.plot_script;
  const auto dot = s.find_last_of('.');
  const auto slash = s.find_last_of('/');
  const bool has_extension =
      dot != std::string::npos && (slash == std::string::npos || dot > slash);
  auto name = (has_extension ? s.substr(0, dot) : s) + ".svg";
  return name == s ? s + ".svg" : name;  // never the script itself
}

}  // namespace

void add_display_flags(CLI::App& cmd, display_flags& flags) {
  auto* group = cmd.add_option_group("Charts and output");
  add_flag(*group, "--chart", flags.chart);
  add_flag(*group, "--ascii", flags.ascii);
  add_flag(*group, "--color", flags.color)->capture_default_str();
  add_flag(*group, "--plot", flags.plot);
  add_flag(*group, "--plot-script", flags.plot_script);
  add_flag(*group, "--quiet", flags.quiet);
}

void validate(const display_flags& flags, output_format format) {
  if (flags.color != "auto" && flags.color != "always" && flags.color != "never") {
    throw invalid_spec("--color", "'" + flags.color + "' is not one of auto|always|never");
  }
  if (flags.chart && format != output_format::table) {
    throw invalid_spec("--chart",
                       "charts are drawn below a table; use --format table, or --plot "
                       "FILE.svg with another format");
  }
  if (!flags.plot.empty()) {
    (void)image_format_of(flags.plot);  // throws on an unknown extension
  }
  if (!flags.plot_script.empty() && flags.plot_script == flags.plot) {
    throw invalid_spec("--plot-script", "is the same file as --plot");
  }
}

bool use_color(std::string_view mode, bool output_is_terminal, const env_lookup& env) {
  if (mode == "always") {
    return true;
  }
  if (mode == "never" || !output_is_terminal) {
    return false;
  }
  if (const auto no_color = env("NO_COLOR"); no_color && !no_color->empty()) {
    return false;
  }
  const auto term = env("TERM");
  return !(term && *term == "dumb");
}

chart::text_style text_style_for(const display_flags& flags, bool output_is_terminal,
                                 const env_lookup& env) {
  return chart::text_style{
      .unicode = !flags.ascii && locale_is_utf8(env),
      .color = use_color(flags.color, output_is_terminal, env),
      .width = 80,
  };
}

bool writes_to_terminal(const output_flags& output) {
  return (output.output.empty() || output.output == "-") && isatty(STDOUT_FILENO) == 1;
}

std::string show_figure(const display_flags& flags, const output_flags& output,
                        const chart::figure& fig) {
  if (!flags.plot_script.empty()) {
    const auto name = image_name_for_script(flags);
    write_output_file("--plot-script", flags.plot_script,
                      gnuplot_script(fig, image_format_of(name), name));
  }
  if (!flags.plot.empty()) {
    const auto image = run_gnuplot(gnuplot_script(fig, image_format_of(flags.plot), ""));
    write_output_file("--plot", flags.plot, image);
  }
  if (!flags.chart) {
    return "";
  }
  return chart::draw(fig, text_style_for(flags, writes_to_terminal(output)));
}

}  // namespace tpcost::cli
