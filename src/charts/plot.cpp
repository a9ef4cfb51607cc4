#include "charts/plot.hpp"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "tpcost/version.hpp"

extern char** environ;  // NOLINT: POSIX

namespace tpcost::cli {

namespace {

/// A gnuplot double-quoted string.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out + "\"";
}

/// A gnuplot single-quoted string: no escapes, a quote is doubled.
std::string single_quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    out += c;
    if (c == '\'') {
      out += '\'';
    }
  }
  return out + "'";
}

/// A tic label: gnuplot reads it as a format, so '%' is doubled.
std::string tic_label(std::string_view text) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '%') {
      out += '%';
    }
  }
  return quoted(out);
}

std::string rgb(chart::hue h) {
  switch (h) {
    case chart::hue::red:
      return "#c0392b";
    case chart::hue::green:
      return "#2e8b57";
    case chart::hue::yellow:
      return "#d4a017";
    case chart::hue::blue:
      return "#2471a3";
    case chart::hue::magenta:
      return "#8e44ad";
    case chart::hue::cyan:
      return "#138d90";
    case chart::hue::none:
      break;
  }
  return "#404040";
}

std::string number(double v) { return fmt::format("{:.9g}", v); }

/// One curve panel: linespoints, value labels, marker lines with legend entries.
std::string curve_plot(const chart::curve_chart& c, std::size_t index) {
  const std::string data = fmt::format("$curve{}", index);
  std::string s;
  s += data + " << EOD\n# x y label\n";
  for (const auto& p : c.points) {
    s += fmt::format("{} {} {}\n", number(p.x), number(p.y), quoted(p.label));
  }
  s += "EOD\n";
  s += "reset\n";
  s += fmt::format("set title {}\n", quoted(c.title));
  s += fmt::format("set xlabel {}\nset ylabel {}\n", quoted(c.x_title), quoted(c.y_title));
  double lo = 0.0;
  double hi = 1.0;
  if (!c.points.empty()) {
    const auto [mn, mx] =
        std::minmax_element(c.points.begin(), c.points.end(),
                            [](const chart::point& a, const chart::point& b) { return a.x < b.x; });
    lo = mn->x;
    hi = mx->x;
  }
  const bool log = c.x_scale == chart::axis_scale::log2 && lo > 0.0;
  double x0 = 0.0;
  double x1 = 0.0;
  if (log) {
    s += "set logscale x 2\n";
    x0 = lo / std::pow(2.0, 0.35);
    x1 = hi * std::pow(2.0, 0.35);
  } else {
    const double pad = hi > lo ? (hi - lo) * 0.05 : 0.5;
    x0 = lo - pad;
    x1 = hi + pad;
  }
  s += fmt::format("set xrange [{}:{}]\n", number(x0), number(x1));
  // 6% headroom above y_max for the value labels; the ticks still stop at y_max.
  s += fmt::format("set yrange [{}:{}]\n", number(c.y_min),
                   number(c.y_max + 0.06 * (c.y_max - c.y_min)));
  if (!c.x_tick_labels.empty()) {
    s += "set xtics (";
    for (std::size_t i = 0; i < c.points.size() && i < c.x_tick_labels.size(); ++i) {
      s += fmt::format("{}{} {}", i == 0 ? "" : ", ", tic_label(c.x_tick_labels[i]),
                       number(c.points[i].x));
    }
    s += ")\n";
  }
  if (!c.y_ticks.empty()) {
    s += "set ytics (";
    for (std::size_t i = 0; i < c.y_ticks.size(); ++i) {
      s += fmt::format("{}{} {}", i == 0 ? "" : ", ", tic_label(c.y_ticks[i].label),
                       number(c.y_ticks[i].value));
    }
    s += ")\n";
  }
  s += "set grid ytics lc rgb '#e0e0e0'\nset key below\n";
  std::string legends;
  int arrow = 1;
  for (const auto& m : c.x_markers) {
    const bool inside = m.x >= x0 && m.x <= x1;
    if (inside) {
      s += fmt::format(
          "set arrow {} from {}, graph 0 to {}, graph 1 nohead lc rgb '{}' dt 2 lw 1.5\n", arrow,
          number(m.x), number(m.x), rgb(m.colour));
      s += fmt::format("set label {} {} at {}, graph 0.06 offset 0.5,0 tc rgb '{}'\n", arrow,
                       quoted(m.label), number(m.x), rgb(m.colour));
    } else {
      const bool right = m.x > x1;
      s +=
          fmt::format("set label {} {} at graph {}, graph 0.06 {} tc rgb '{}'\n", arrow,
                      quoted(right ? fmt::format("{} ->", m.label) : fmt::format("<- {}", m.label)),
                      right ? "0.99" : "0.01", right ? "right" : "left", rgb(m.colour));
    }
    legends += fmt::format(", NaN with lines lc rgb '{}' dt 2 lw 1.5 title {}", rgb(m.colour),
                           quoted(m.legend));
    ++arrow;
  }
  for (const auto& m : c.y_markers) {
    s += fmt::format(
        "set arrow {} from graph 0, first {} to graph 1, first {} nohead lc rgb '{}' dt 3\n",
        arrow++, number(m.y), number(m.y), rgb(m.colour));
    legends +=
        fmt::format(", NaN with lines lc rgb '{}' dt 3 title {}", rgb(m.colour), quoted(m.legend));
  }
  s += fmt::format(
      "plot {} using 1:2 with linespoints pt 7 ps 0.8 lw 2 lc rgb '{}' title 'E', \\\n"
      "     {} using 1:2:3 with labels offset 0,0.9 notitle{}\n",
      data, rgb(c.colour), data, legends);
  return s;
}

/// One bar panel: a row-stacked histogram, one column per bar.
std::string bar_plot(const chart::bar_chart& b, std::size_t index) {
  const std::string data = fmt::format("$bars{}", index);
  std::string s;
  s += data + " << EOD\n# label";
  for (const auto& seg : b.segments) {
    s += ' ';
    s += quoted(seg.name);
  }
  s += "\n";
  for (const auto& bar : b.bars) {
    s += quoted(bar.label);
    for (std::size_t k = 0; k < b.segments.size(); ++k) {
      s += ' ';
      s += number(k < bar.values.size() ? bar.values[k] : 0.0);
    }
    s += "\n";
  }
  s += "EOD\n";
  s += "reset\n";
  s += fmt::format("set title {}\n", quoted(b.title));
  s += fmt::format("set xlabel {}\nset ylabel {}\n", quoted(b.label_title), quoted(b.value_title));
  s += "set style data histograms\nset style histogram rowstacked\n";
  s += "set style fill solid 0.85 border lc rgb '#303030'\nset boxwidth 0.7\n";
  s += "set yrange [0:*]\nset grid ytics lc rgb '#e0e0e0'\nset key below\n";
  s += "plot ";
  for (std::size_t k = 0; k < b.segments.size(); ++k) {
    s += fmt::format("{}{} using {}{} title {} lc rgb '{}'", k == 0 ? "" : ", \\\n     ",
                     k == 0 ? data : "''", k + 2, k == 0 ? ":xtic(1)" : "",
                     quoted(b.segments[k].name), rgb(b.segments[k].colour));
  }
  s += "\n";
  return s;
}

std::string read_all(std::FILE* f) {
  std::string out;
  std::rewind(f);
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
    out.append(buffer, n);
  }
  return out;
}

/// `name` if it contains a slash, else the first executable `name` on PATH; empty if none.
std::string find_program(const std::string& name) {
  const auto executable = [](const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    return executable(name) ? name : "";
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const auto colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (executable(candidate)) {
      return candidate;
    }
    if (colon == std::string_view::npos) {
      return "";
    }
    dirs.remove_prefix(colon + 1);
  }
}

struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

}  // namespace

image_format image_format_of(const std::string& path) {
  const auto dot = path.find_last_of('.');
  std::string extension = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == "svg") {
    return image_format::svg;
  }
  if (extension == "png") {
    return image_format::png;
  }
  throw invalid_spec("--plot", "'" + path + "' must end in .svg or .png");
}

std::string gnuplot_script(const chart::figure& fig, image_format format,
                           const std::string& output) {
  const auto panels = fig.panels.size();
  const int height = 80 + 420 * static_cast<int>(std::max<std::size_t>(panels, 1));
  std::string s;
  s += fmt::format("# Drawn by tpcost {}; restyle freely and run: gnuplot THIS_FILE\n",
                   TPCOST_VERSION);
  s += "# The data is inline ($curveN, $barsN data blocks); the numbers are tpcost's own.\n";
  if (format == image_format::svg) {
    s += fmt::format(
        "set terminal svg size 860,{} dynamic noenhanced font 'sans,12' background rgb 'white'\n",
        height);
  } else {
    s += fmt::format(
        "set terminal pngcairo size 1100,{} noenhanced font 'sans,11' background rgb 'white'\n",
        height * 5 / 4);
  }
  s += "set encoding utf8\n";
  if (!output.empty()) {
    s += fmt::format("set output {}\n", single_quoted(output));
  }
  s += fmt::format("set multiplot layout {},1{}\n", std::max<std::size_t>(panels, 1),
                   fig.title.empty() ? "" : " title " + quoted(fig.title));
  for (std::size_t i = 0; i < panels; ++i) {
    s += fmt::format("\n# Panel {}\n", i + 1);
    s += std::visit(
        [&](const auto& p) -> std::string {
          if constexpr (std::is_same_v<std::decay_t<decltype(p)>, chart::curve_chart>) {
            return curve_plot(p, i + 1);
          } else {
            return bar_plot(p, i + 1);
          }
        },
        fig.panels[i]);
  }
  s += "\nunset multiplot\n";
  return s;
}

std::string run_gnuplot(const std::string& script) {
  const char* configured = std::getenv("TPCOST_GNUPLOT");
  const std::string name = configured != nullptr && *configured != '\0' ? configured : "gnuplot";
  const auto program = find_program(name);
  if (program.empty()) {
    throw tool_error(fmt::format(
        "--plot: gnuplot not found ('{}'{}); install the Debian package {} (apt-get install {}), "
        "or write the script with --plot-script FILE.gp",
        name, configured != nullptr ? " from TPCOST_GNUPLOT" : " on PATH", gnuplot_package,
        gnuplot_package));
  }
  const file_ptr in(std::tmpfile());
  const file_ptr out(std::tmpfile());
  const file_ptr err(std::tmpfile());
  if (!in || !out || !err) {
    throw tool_error("--plot: cannot create temporary files for gnuplot");
  }
  if (std::fwrite(script.data(), 1, script.size(), in.get()) != script.size() ||
      std::fflush(in.get()) != 0) {
    throw tool_error("--plot: cannot write the gnuplot script to a temporary file");
  }
  std::rewind(in.get());
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fileno(in.get()), STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fileno(out.get()), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fileno(err.get()), STDERR_FILENO);
  std::string program_arg = program;
  std::array<char*, 2> argv{program_arg.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    throw tool_error(fmt::format("--plot: cannot run '{}': {}", program, std::strerror(spawned)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      throw tool_error(fmt::format("--plot: lost track of '{}'", program));
    }
  }
  auto image = read_all(out.get());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || image.empty()) {
    auto message = read_all(err.get());
    // gnuplot echoes the failing line, then "line N: reason": keep the last non-empty line.
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
      message.pop_back();
    }
    const auto last = message.find_last_of('\n');
    message = last == std::string::npos ? message : message.substr(last + 1);
    throw tool_error(fmt::format("--plot: '{}' failed{}{}", program, message.empty() ? "" : ": ",
                                 message.empty() ? std::string("") : message));
  }
  return image;
}

}  // namespace tpcost::cli
