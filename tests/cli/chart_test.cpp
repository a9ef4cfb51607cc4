// Charts as text: bar lengths, marker columns, width, ASCII and colour; the display flags'
// reading of the environment; the gnuplot script. Screenshots are impossible in CI, so the
// tests read the characters.
#include <fmt/format.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "charts/chart.hpp"
#include "charts/plot.hpp"
#include "charts/sweep_chart.hpp"
#include "render/display.hpp"
#include "tpcost/layer/sweep.hpp"

namespace {

using namespace tpcost;
using namespace tpcost::cli;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return out;
}

/// The code points of a line without colour sequences, one string per column.
std::vector<std::string> columns_of(const std::string& line) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == '\x1b') {
      while (i < line.size() && line[i] != 'm') {
        ++i;
      }
      ++i;
      continue;
    }
    const auto lead = static_cast<unsigned char>(line[i]);
    const std::size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    out.push_back(line.substr(i, n));
    i += n;
  }
  return out;
}

struct coloured_cell {
  std::string glyph;
  int fg = 0;  ///< SGR foreground code (31 red, 32 green), 0 for the default
  int bg = 0;  ///< SGR background code (41 red), 0 for the default
};

/// The cells of a line with the SGR colours in force at each.
std::vector<coloured_cell> coloured_cells_of(const std::string& line) {
  std::vector<coloured_cell> out;
  int fg = 0;
  int bg = 0;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == '\x1b') {
      const auto end = line.find('m', i);
      std::string params = line.substr(i + 2, end - i - 2);
      std::size_t p = 0;
      while (p <= params.size()) {
        const auto semi = std::min(params.find(';', p), params.size());
        const int code = std::stoi(params.substr(p, semi - p));
        if (code == 0) {
          fg = bg = 0;
        } else if (code >= 30 && code < 40) {
          fg = code;
        } else if (code >= 40 && code < 50) {
          bg = code;
        }
        p = semi + 1;
      }
      i = end + 1;
      continue;
    }
    const auto lead = static_cast<unsigned char>(line[i]);
    const std::size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    out.push_back({line.substr(i, n), fg, bg});
    i += n;
  }
  return out;
}

/// Eighths of a cell filled by a left-block glyph: "▏" = 1 ... "█" = 8; 0 otherwise.
int left_eighths(const std::string& glyph) {
  static const std::map<std::string, int> table{{"▏", 1}, {"▎", 2}, {"▍", 3}, {"▌", 4},
                                                {"▋", 5}, {"▊", 6}, {"▉", 7}, {"█", 8}};
  const auto it = table.find(glyph);
  return it == table.end() ? 0 : it->second;
}

sweep_result article_sweep(const std::vector<std::int64_t>& degrees) {
  return sweep_tp(layer_spec{}, device_spec{}, degrees);
}

chart::bar_chart two_segment_bars(const std::vector<std::pair<double, double>>& values) {
  chart::bar_chart bars;
  bars.segments = {{"compute", chart::hue::green}, {"comm", chart::hue::red}};
  for (std::size_t i = 0; i < values.size(); ++i) {
    bars.bars.push_back(
        {std::to_string(i), {values[i].first, values[i].second}, std::to_string(i) + " ms"});
  }
  return bars;
}

/// The bar lines of a drawn bar chart: those with the axis glyph after the label.
std::vector<std::vector<std::string>> bar_rows(const std::string& text, const std::string& axis) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : lines_of(text)) {
    auto cols = columns_of(line);
    const auto it = std::find(cols.begin(), cols.end(), axis);
    if (it != cols.end() && it - cols.begin() < 4) {
      rows.emplace_back(it + 1, cols.end());
    }
  }
  return rows;
}

const std::vector<std::pair<double, double>> sample_bars{
    {19.791, 0.895}, {9.896, 0.895}, {4.948, 0.895}, {2.474, 0.895},
    {1.237, 0.895},  {0.618, 0.895}, {3.0, 7.5},     {0.0, 2.0}};

}  // namespace

TEST_CASE("bar segments are proportional to their values within one cell", "[chart]") {
  const auto bars = two_segment_bars(sample_bars);
  double max_total = 0.0;
  for (const auto& [a, b] : sample_bars) {
    max_total = std::max(max_total, a + b);
  }
  SECTION("Unicode without colour: compute to an eighth, the total within a cell") {
    const auto rows = bar_rows(chart::draw(bars, {.unicode = true, .color = false}), "│");
    REQUIRE(rows.size() == sample_bars.size());
    // The longest bar fills the area: its cell count is the scale.
    const auto count_cells = [](const std::vector<std::string>& r) {
      return static_cast<double>(std::count_if(r.begin(), r.end(), [](const std::string& g) {
        return left_eighths(g) > 0 || g == "▒";
      }));
    };
    const double area = count_cells(rows.front());
    REQUIRE(area > 40.0);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      double compute_eighths = 0.0;
      double comm_cells = 0.0;
      for (const auto& g : rows[i]) {
        compute_eighths += left_eighths(g);
        comm_cells += g == "▒" ? 1.0 : 0.0;
      }
      const double per_unit = area / max_total;
      INFO("bar " << i);
      CHECK(std::fabs(compute_eighths / 8.0 - sample_bars[i].first * per_unit) <= 1.0 / 8.0);
      const double total_cells = std::ceil(compute_eighths / 8.0) + comm_cells;
      CHECK(std::fabs(total_cells - (sample_bars[i].first + sample_bars[i].second) * per_unit) <=
            1.0);
    }
  }
  SECTION("ASCII: each boundary within a cell") {
    const auto rows = bar_rows(chart::draw(bars, {.unicode = false, .color = false}), "|");
    REQUIRE(rows.size() == sample_bars.size());
    const auto first = std::count(rows.front().begin(), rows.front().end(), "#") +
                       std::count(rows.front().begin(), rows.front().end(), "=");
    const double per_unit = static_cast<double>(first) / max_total;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto hashes = static_cast<double>(std::count(rows[i].begin(), rows[i].end(), "#"));
      const auto equals = static_cast<double>(std::count(rows[i].begin(), rows[i].end(), "="));
      INFO("bar " << i);
      CHECK(std::fabs(hashes - sample_bars[i].first * per_unit) <= 1.0);
      CHECK(std::fabs(hashes + equals -
                      (sample_bars[i].first + sample_bars[i].second) * per_unit) <= 1.0);
    }
  }
  SECTION("colour: both segments to an eighth, the second as the background of the cut cell") {
    const auto text = chart::draw(bars, {.unicode = true, .color = true});
    CHECK(text.find("\x1b[32;41m") != std::string::npos);  // green on red: a shared cell
    std::vector<std::pair<double, double>> measured;       // eighths of compute and comm
    for (const auto& line : lines_of(text)) {
      if (line.find("│") == std::string::npos) {
        continue;
      }
      double green = 0.0;
      double red = 0.0;
      for (const auto& c : coloured_cells_of(line)) {
        const int n = left_eighths(c.glyph);
        (c.fg == 32 ? green : red) += c.fg == 32 || c.fg == 31 ? n : 0;
        red += c.bg == 41 ? 8 - n : 0;
      }
      measured.emplace_back(green, red);
    }
    REQUIRE(measured.size() == sample_bars.size());
    const double eighths_per_unit = (measured[0].first + measured[0].second) / max_total;
    for (std::size_t i = 0; i < measured.size(); ++i) {
      INFO("bar " << i);
      CHECK(std::fabs(measured[i].first - sample_bars[i].first * eighths_per_unit) <= 1.0);
      CHECK(std::fabs(measured[i].second - sample_bars[i].second * eighths_per_unit) <= 8.0);
      CHECK(std::fabs(measured[i].first + measured[i].second -
                      (sample_bars[i].first + sample_bars[i].second) * eighths_per_unit) <= 8.0);
    }
  }
}

TEST_CASE("a bar whose values are all zero draws no cells", "[chart]") {
  auto bars = two_segment_bars({{10.0, 1.0}, {0.0, 0.0}});
  const auto rows = bar_rows(chart::draw(bars, {.unicode = true}), "│");
  REQUIRE(rows.size() == 2);
  CHECK(std::none_of(rows[1].begin(), rows[1].end(),
                     [](const std::string& g) { return left_eighths(g) > 0 || g == "▒"; }));
}

TEST_CASE("the t* marker is drawn in t*'s column of the log2 axis", "[chart]") {
  const auto result = article_sweep({1, 2, 4, 8, 16, 32});
  REQUIRE_THAT(result.critical_tp, Catch::Matchers::WithinRel(22.1184, 1e-4));
  const auto fig = sweep_figure(result, 8);
  const auto& curve = std::get<chart::curve_chart>(fig.panels.front());
  for (const bool unicode : {true, false}) {
    INFO((unicode ? "Unicode" : "ASCII"));
    const auto text = chart::draw(curve, {.unicode = unicode});
    const auto lines = lines_of(text);
    const std::string tick = unicode ? "┬" : "+";
    const std::string t_star = unicode ? "┊" : ":";
    const std::string node = unicode ? "┆" : "|";
    // The x axis: the line with the most tick glyphs; its ticks are the swept degrees in order.
    std::vector<int> ticks;
    std::size_t axis_index = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const auto cols = columns_of(lines[i]);
      std::vector<int> found;
      for (std::size_t c = 0; c < cols.size(); ++c) {
        if (cols[c] == tick && c > 5) {
          found.push_back(static_cast<int>(c));
        }
      }
      if (found.size() > ticks.size()) {
        ticks = found;
        axis_index = i;
      }
    }
    REQUIRE(ticks.size() == 6);
    // Columns of the marker glyph in the rows just above the axis.
    const auto marker_column = [&](const std::string& glyph) {
      std::optional<int> column;
      const auto cols = columns_of(lines[axis_index - 1]);
      for (std::size_t c = 6; c < cols.size(); ++c) {
        if (cols[c] == glyph) {
          column = static_cast<int>(c);
        }
      }
      return column;
    };
    // ticks[4] is t=16 and ticks[5] is t=32: interpolate log2(22.12) between them.
    const double expected_t_star =
        ticks[4] + (std::log2(result.critical_tp) - 4.0) * (ticks[5] - ticks[4]);
    const auto t_star_col = marker_column(t_star);
    REQUIRE(t_star_col.has_value());
    CHECK(std::fabs(*t_star_col - expected_t_star) <= 0.5 + 1e-9);
    CHECK(*t_star_col > ticks[4]);
    CHECK(*t_star_col < ticks[5]);
    // The node boundary at 8 sits on the tick of t=8; a stem may cover the lowest rows, so
    // look for it in any plot row.
    bool node_at_8 = false;
    for (std::size_t i = 0; i < axis_index; ++i) {
      const auto cols = columns_of(lines[i]);
      node_at_8 = node_at_8 || (static_cast<std::size_t>(ticks[3]) < cols.size() &&
                                cols[static_cast<std::size_t>(ticks[3])] == node);
    }
    CHECK(node_at_8);
    // The label names it above the plot.
    CHECK(text.find("t*=22.1") != std::string::npos);
  }
}

TEST_CASE("stems reach their value within one cell (an eighth in Unicode)", "[chart]") {
  chart::curve_chart curve;
  curve.rows = 8;
  curve.y_min = 0.0;
  curve.y_max = 1.0;
  const std::vector<double> ys{0.957, 0.5, 0.125, 0.73, 1.0};
  for (std::size_t i = 0; i < ys.size(); ++i) {
    curve.points.push_back({static_cast<double>(i + 1), ys[i], ""});
  }
  const std::map<std::string, int> lower{{"▁", 1}, {"▂", 2}, {"▃", 3}, {"▄", 4},
                                         {"▅", 5}, {"▆", 6}, {"▇", 7}, {"█", 8}};
  const auto lines = lines_of(chart::draw(curve, {.unicode = true}));
  // Rows of the plot: lines containing the y axis "│" or "┤" at column 2, above the "└" line.
  std::vector<std::vector<std::string>> plot;
  for (const auto& line : lines) {
    const auto cols = columns_of(line);
    if (cols.size() > 2 && (cols[2] == "│" || cols[2] == "┤")) {
      plot.push_back(cols);
    }
  }
  REQUIRE(plot.size() == 8);
  // Each stem's height in eighths: sum over rows of the glyph at its column.
  std::map<std::size_t, int> heights;
  for (const auto& row : plot) {
    for (std::size_t c = 3; c < row.size(); ++c) {
      if (const auto it = lower.find(row[c]); it != lower.end()) {
        heights[c] += it->second;
      }
    }
  }
  // Stems are 1 or 3 columns wide; group adjacent columns of equal height.
  std::vector<int> stems;
  std::size_t previous = 0;
  for (const auto& [c, h] : heights) {
    if (stems.empty() || c != previous + 1) {
      stems.push_back(h);
    }
    previous = c;
  }
  REQUIRE(stems.size() == ys.size());
  for (std::size_t i = 0; i < ys.size(); ++i) {
    CHECK(std::abs(stems[i] - ys[i] * 64.0) <= 0.5);
  }
}

TEST_CASE("every chart line fits in 80 columns", "[chart]") {
  const std::vector<std::vector<std::int64_t>> sweeps{
      {1, 2, 4, 8, 16, 32}, {1}, {8, 16}, {}, {1, 1000000}};
  std::vector<std::int64_t> every(300);
  for (std::size_t i = 0; i < every.size(); ++i) {
    every[i] = static_cast<std::int64_t>(i) + 1;
  }
  for (auto degrees : sweeps) {
    if (degrees.empty()) {
      degrees = every;
    }
    const auto fig = sweep_figure(article_sweep(degrees), 8);
    for (const bool unicode : {true, false}) {
      for (const bool color : {true, false}) {
        const auto text = chart::draw(fig, {.unicode = unicode, .color = color, .width = 80});
        for (const auto& line : lines_of(text)) {
          INFO(line);
          CHECK(chart::display_width(line) <= 80);
          CHECK(columns_of(line).size() <= 80);
        }
      }
    }
  }
}

TEST_CASE("ASCII charts are pure 7-bit ASCII and colourless charts have no escape", "[chart]") {
  const auto fig = sweep_figure(article_sweep({1, 2, 4, 8, 16, 32, 64}), 8);
  const auto ascii = chart::draw(fig, {.unicode = false, .color = false});
  CHECK(std::all_of(ascii.begin(), ascii.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
  CHECK(ascii.find('\x1b') == std::string::npos);
  const auto mono = chart::draw(fig, {.unicode = true, .color = false});
  CHECK(mono.find('\x1b') == std::string::npos);
  const auto colour = chart::draw(fig, {.unicode = true, .color = true});
  CHECK(colour.find('\x1b') != std::string::npos);
}

TEST_CASE("a marker beyond the swept range points off the edge", "[chart]") {
  // t* = 22.1 is right of a sweep that stops at 16.
  const auto fig = sweep_figure(article_sweep({1, 2, 4, 8, 16}), 8);
  const auto text = chart::draw(std::get<chart::curve_chart>(fig.panels.front()), {});
  CHECK(text.find("t*=22.1 →") != std::string::npos);
  CHECK(text.find("┊\n") == std::string::npos);  // no marker line drawn in the plot
}

TEST_CASE("the locale decides Unicode: LC_ALL, then LC_CTYPE, then LANG", "[display]") {
  const auto env_of = [](std::map<std::string, std::string> vars) {
    return [vars](std::string_view name) -> std::optional<std::string> {
      const auto it = vars.find(std::string(name));
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  CHECK(locale_is_utf8(env_of({{"LANG", "en_US.UTF-8"}})));
  CHECK(locale_is_utf8(env_of({{"LANG", "C.utf8"}})));
  CHECK_FALSE(locale_is_utf8(env_of({})));
  CHECK_FALSE(locale_is_utf8(env_of({{"LANG", "C"}})));
  CHECK_FALSE(locale_is_utf8(env_of({{"LC_ALL", "POSIX"}, {"LANG", "en_US.UTF-8"}})));
  CHECK(locale_is_utf8(env_of({{"LC_ALL", ""}, {"LC_CTYPE", "de_DE.UTF-8"}, {"LANG", "C"}})));
  CHECK_FALSE(locale_is_utf8(env_of({{"LC_CTYPE", "en_US.ISO-8859-1"}, {"LANG", "C.UTF-8"}})));

  display_flags flags;
  flags.ascii = true;
  CHECK_FALSE(text_style_for(flags, true, env_of({{"LANG", "C.UTF-8"}})).unicode);
}

TEST_CASE("colour: only on a terminal by default, never with NO_COLOR, always when asked",
          "[display]") {
  const auto env_of = [](std::map<std::string, std::string> vars) {
    return [vars](std::string_view name) -> std::optional<std::string> {
      const auto it = vars.find(std::string(name));
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  const auto plain = env_of({{"TERM", "xterm-256color"}});
  CHECK(use_color("auto", true, plain));
  CHECK_FALSE(use_color("auto", false, plain));
  CHECK_FALSE(use_color("auto", true, env_of({{"NO_COLOR", "1"}})));
  CHECK(use_color("auto", true, env_of({{"NO_COLOR", ""}})));  // no-color.org: empty = unset
  CHECK_FALSE(use_color("auto", true, env_of({{"TERM", "dumb"}})));
  CHECK_FALSE(use_color("never", true, plain));
  CHECK(use_color("always", false, env_of({{"NO_COLOR", "1"}})));  // the flag wins
}

TEST_CASE("the display flags are checked before any work", "[display]") {
  display_flags flags;
  flags.color = "sometimes";
  CHECK_THROWS_WITH(validate(flags, output_format::table),
                    "--color: 'sometimes' is not one of auto|always|never");
  flags = {};
  flags.chart = true;
  CHECK_THROWS_AS(validate(flags, output_format::json), invalid_spec);
  CHECK_NOTHROW(validate(flags, output_format::table));
  flags = {};
  flags.plot = "out.pdf";
  CHECK_THROWS_WITH(validate(flags, output_format::table),
                    "--plot: 'out.pdf' must end in .svg or .png");
  flags.plot = "OUT.SVG";
  CHECK_NOTHROW(validate(flags, output_format::csv));
}

TEST_CASE("the gnuplot script holds the data, the markers and escaped tic labels", "[plot]") {
  const auto result = article_sweep({1, 2, 4, 8, 16, 32});
  const auto script = gnuplot_script(sweep_figure(result, 8), image_format::svg, "it's.svg");
  CHECK(script.find("set terminal svg") != std::string::npos);
  CHECK(script.find("set output 'it''s.svg'") != std::string::npos);
  CHECK(script.find("set logscale x 2") != std::string::npos);
  CHECK(script.find("\"50%%\" 0.5") != std::string::npos);  // a tic label is a format
  CHECK(script.find("set arrow 1 from 22.1184") != std::string::npos);
  CHECK(script.find("set multiplot layout 2,1") != std::string::npos);
  for (const auto& row : result.rows) {
    CHECK(script.find(fmt::format("\n{} {:.9g} ", row.tp, row.efficiency)) != std::string::npos);
  }
  const auto png = gnuplot_script(sweep_figure(result, 8), image_format::png, "");
  CHECK(png.find("set terminal pngcairo") != std::string::npos);
  CHECK(png.find("set output") == std::string::npos);  // to stdout, read back by tpcost
}
