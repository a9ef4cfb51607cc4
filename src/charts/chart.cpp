#include "charts/chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tpcost::cli::chart {

namespace {

// ---------------------------------------------------------------------------------------
// A line of cells; each cell holds one code point and its colours.

struct cell {
  std::string glyph = " ";
  hue fg = hue::none;
  hue bg = hue::none;
  [[nodiscard]] bool blank() const { return glyph == " " && bg == hue::none; }
};

using line = std::vector<cell>;

/// The code points of a UTF-8 string, one string each.
std::vector<std::string> code_points(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t n = 1;
    if (lead >= 0xF0) {
      n = 4;
    } else if (lead >= 0xE0) {
      n = 3;
    } else if (lead >= 0xC0) {
      n = 2;
    }
    n = std::min(n, text.size() - i);
    out.emplace_back(text.substr(i, n));
    i += n;
  }
  return out;
}

int width_of(std::string_view text) { return static_cast<int>(code_points(text).size()); }

/// Writes `text` into `l` from column `col`; columns outside the line are dropped.
void put(line& l, int col, std::string_view text, hue fg = hue::none) {
  for (auto& cp : code_points(text)) {
    if (col >= 0 && col < static_cast<int>(l.size())) {
      l[static_cast<std::size_t>(col)] = cell{std::move(cp), fg, hue::none};
    }
    ++col;
  }
}

void put_cell(line& l, int col, std::string glyph, hue fg = hue::none, hue bg = hue::none) {
  if (col >= 0 && col < static_cast<int>(l.size())) {
    l[static_cast<std::size_t>(col)] = cell{std::move(glyph), fg, bg};
  }
}

int sgr_foreground(hue h) { return 30 + static_cast<int>(h); }  // red = 31 ... cyan = 36
int sgr_background(hue h) { return 40 + static_cast<int>(h); }

/// The line as text: trailing blanks dropped, colours as ANSI SGR runs when `color`.
std::string render(const line& l, bool color) {
  std::size_t end = l.size();
  while (end > 0 && l[end - 1].blank()) {
    --end;
  }
  std::string out;
  hue fg = hue::none;
  hue bg = hue::none;
  for (std::size_t i = 0; i < end; ++i) {
    const auto& c = l[i];
    if (color && (c.fg != fg || c.bg != bg)) {
      if (fg != hue::none || bg != hue::none) {
        out += "\x1b[0m";
      }
      if (c.fg != hue::none && c.bg != hue::none) {
        out += "\x1b[" + std::to_string(sgr_foreground(c.fg)) + ";" +
               std::to_string(sgr_background(c.bg)) + "m";
      } else if (c.fg != hue::none) {
        out += "\x1b[" + std::to_string(sgr_foreground(c.fg)) + "m";
      } else if (c.bg != hue::none) {
        out += "\x1b[" + std::to_string(sgr_background(c.bg)) + "m";
      }
      fg = c.fg;
      bg = c.bg;
    }
    out += c.glyph;
  }
  if (color && (fg != hue::none || bg != hue::none)) {
    out += "\x1b[0m";
  }
  return out + "\n";
}

/// `text` cut to `width` columns.
std::string fit(std::string_view text, int width) {
  auto cps = code_points(text);
  if (static_cast<int>(cps.size()) <= width) {
    return std::string(text);
  }
  std::string out;
  for (int i = 0; i < width; ++i) {
    out += cps[static_cast<std::size_t>(i)];
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Glyphs.

struct glyph_set {
  std::string_view axis_v, axis_tick_y, axis_h, axis_tick_x, corner;
  std::array<std::string_view, 3> marker_lines;  ///< one per x marker, cycling
  std::string_view guide;                        ///< a horizontal guide at a row's top edge
  std::string_view arrow_right, arrow_left;
};

constexpr glyph_set unicode_glyphs{"│", "┤", "─", "┬", "└", {"┊", "┆", "╎"}, "▔", " →", "← "};
constexpr glyph_set ascii_glyphs{"|", "+", "-", "+", "+", {":", "|", "!"}, "-", " ->", "<- "};

/// Lower blocks: index n is n eighths of a cell filled from the bottom (0 is a blank).
constexpr std::array<std::string_view, 9> lower_eighths{" ", "▁", "▂", "▃", "▄",
                                                        "▅", "▆", "▇", "█"};
/// Left blocks: index n is n eighths of a cell filled from the left.
constexpr std::array<std::string_view, 9> left_eighths{" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"};
/// Fill of stacked segments without colour: one pattern per segment kind, cycling.
constexpr std::array<std::string_view, 4> unicode_fills{"█", "▒", "░", "▓"};
constexpr std::array<std::string_view, 4> ascii_fills{"#", "=", "+", "-"};

int clamp_width(const text_style& style) { return std::max(style.width, 40); }

/// Appends the legend items as lines of at most `width` columns, items 3 spaces apart.
void append_legend(std::vector<line>& out, const std::vector<line>& items, int width) {
  line current;
  for (const auto& item : items) {
    const int used = static_cast<int>(current.size());
    const int need = static_cast<int>(item.size()) + (used == 0 ? 0 : 3);
    if (used > 0 && used + need > width) {
      out.push_back(current);
      current.clear();
    }
    if (!current.empty()) {
      current.insert(current.end(), 3, cell{});
    }
    current.insert(current.end(), item.begin(), item.end());
  }
  if (!current.empty()) {
    current.resize(std::min(current.size(), static_cast<std::size_t>(width)));
    out.push_back(current);
  }
}

line text_line(std::string_view text, hue fg = hue::none) {
  line l(static_cast<std::size_t>(width_of(text)));
  put(l, 0, text, fg);
  return l;
}

/// An interval [first, last] of columns, for placing labels without overlap.
struct span {
  int first;
  int last;
  [[nodiscard]] bool clear_of(const span& o) const {
    return last + 1 < o.first || o.last + 1 < first;
  }
};

// ---------------------------------------------------------------------------------------
// Curve chart.

struct x_mapping {
  axis_scale scale;
  double lo = 0.0;
  double hi = 0.0;
  int first_col = 0;
  int last_col = 0;

  [[nodiscard]] std::optional<double> axis_value(double x) const {
    if (scale == axis_scale::log2) {
      if (!(x > 0.0)) {
        return std::nullopt;
      }
      return std::log2(x);
    }
    return x;
  }
  /// -1: left of the range, 0: inside, +1: right of it.
  [[nodiscard]] int side(double x) const {
    const auto v = axis_value(x);
    if (!v) {
      return -1;
    }
    const double tolerance = 1e-9 * std::max(1.0, std::fabs(hi - lo));
    if (*v < lo - tolerance) {
      return -1;
    }
    return *v > hi + tolerance ? 1 : 0;
  }
  [[nodiscard]] int column(double x) const {
    const auto v = axis_value(x);
    if (!v || !(hi > lo)) {
      return (first_col + last_col) / 2;
    }
    const double u = (*v - lo) / (hi - lo);
    return first_col + static_cast<int>(std::lround(u * (last_col - first_col)));
  }
};

/// Where the curve chart's parts sit, shared by the steps that draw it: the points sorted by
/// x with their tick labels, the column of each, and the columns of the axis and the plot.
struct curve_layout {
  int width = 0;
  int rows = 0;  ///< plot height; the grid has a headroom row above it
  bool unicode = true;
  std::vector<point> points;
  std::vector<std::string> x_labels;  ///< one per point, sorted with them
  int axis_col = 0;
  int plot0 = 0;   ///< the first plot column
  int plot_w = 0;  ///< plot columns
  x_mapping map{};
  std::vector<int> cols;  ///< the column of each point
  int stem_half = 0;      ///< stems are 1 + 2 * stem_half columns wide

  [[nodiscard]] const glyph_set& glyphs() const { return unicode ? unicode_glyphs : ascii_glyphs; }
};

/// The plot rows 0 (bottom) .. rows-1, plus a headroom row `rows` for labels above the stems.
struct plot_grid {
  std::vector<line> lines;
  line& row(int r) { return lines[static_cast<std::size_t>(r)]; }
};

/// The stem height of `y` in eighths of a row, 0 .. rows * 8.
int eighths_of(const curve_chart& chart, int rows, double y) {
  const double y_span = chart.y_max - chart.y_min;
  if (!(y_span > 0.0) || !std::isfinite(y)) {
    return 0;
  }
  const double e = (y - chart.y_min) / y_span * rows * 8.0;
  return static_cast<int>(std::lround(std::clamp(e, 0.0, rows * 8.0)));
}

/// The row boundary nearest `y`: 0 is the x axis, `rows` the top of the plot.
int boundary_of(const curve_chart& chart, int rows, double y) {
  const double y_span = chart.y_max - chart.y_min;
  if (!(y_span > 0.0)) {
    return 0;
  }
  return static_cast<int>(std::lround(std::clamp((y - chart.y_min) / y_span, 0.0, 1.0) * rows));
}

/// Sorts the points by x, keeping each tick label with its point (stable: equal x keep order).
void sort_by_x(curve_layout& lay) {
  std::vector<std::size_t> order(lay.points.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return lay.points[a].x < lay.points[b].x; });
  std::vector<point> sorted_points;
  std::vector<std::string> sorted_labels;
  for (const auto i : order) {
    sorted_points.push_back(lay.points[i]);
    sorted_labels.push_back(lay.x_labels[i]);
  }
  lay.points = std::move(sorted_points);
  lay.x_labels = std::move(sorted_labels);
}

/// Horizontal layout: y tick labels, the axis, the plot, room for centred labels; then the
/// x mapping over the points' range and the column of each point.
curve_layout layout_of(const curve_chart& chart, const text_style& style) {
  curve_layout lay;
  lay.width = clamp_width(style);
  lay.rows = std::max(chart.rows, 2);
  lay.unicode = style.unicode;
  lay.points = chart.points;
  lay.x_labels = chart.x_tick_labels;
  lay.x_labels.resize(lay.points.size());
  sort_by_x(lay);

  int label_w = 1;
  for (const auto& t : chart.y_ticks) {
    label_w = std::max(label_w, width_of(t.label));
  }
  lay.axis_col = label_w + 1;
  lay.plot0 = lay.axis_col + 1;
  int half_label = 0;
  for (std::size_t i = 0; i < lay.points.size(); ++i) {
    half_label =
        std::max({half_label, width_of(lay.x_labels[i]) / 2, width_of(lay.points[i].label) / 2});
  }
  lay.plot_w = std::max(lay.width - lay.plot0 - half_label, 8);
  const int inset = 1;  // room for a 3-column stem at either end
  lay.map =
      x_mapping{chart.x_scale, 0.0, 0.0, lay.plot0 + inset, lay.plot0 + lay.plot_w - 1 - inset};
  std::vector<double> axis_values;
  for (const auto& p : lay.points) {
    if (const auto v = lay.map.axis_value(p.x)) {
      axis_values.push_back(*v);
    }
  }
  if (!axis_values.empty()) {
    lay.map.lo = *std::min_element(axis_values.begin(), axis_values.end());
    lay.map.hi = *std::max_element(axis_values.begin(), axis_values.end());
  }
  for (const auto& p : lay.points) {
    lay.cols.push_back(lay.map.column(p.x));
  }
  int min_gap = lay.width;
  for (std::size_t i = 1; i < lay.cols.size(); ++i) {
    if (lay.cols[i] != lay.cols[i - 1]) {
      min_gap = std::min(min_gap, lay.cols[i] - lay.cols[i - 1]);
    }
  }
  lay.stem_half = min_gap >= 5 ? 1 : 0;  // 3-column stems only where a gap stays between them
  return lay;
}

/// Horizontal guides and the vertical markers inside the range; drawn first, so that stems
/// draw over them.
void draw_guides(plot_grid& grid, const curve_chart& chart, const curve_layout& lay) {
  const auto& g = lay.glyphs();
  for (const auto& m : chart.y_markers) {
    const int k = boundary_of(chart, lay.rows, m.y);
    // Unicode: "▔" on the top edge of row k-1, exactly at y. ASCII: "-" across row k-1, the
    // row whose tick label reads y, within half a row.
    const int r = k - 1;
    if (r < 0 || r >= lay.rows) {
      continue;
    }
    for (int c = lay.plot0; c < lay.plot0 + lay.plot_w; ++c) {
      put_cell(grid.row(r), c, std::string(g.guide), m.colour);
    }
  }
  for (std::size_t i = 0; i < chart.x_markers.size(); ++i) {
    const auto& m = chart.x_markers[i];
    if (lay.map.side(m.x) != 0) {
      continue;
    }
    const int c = lay.map.column(m.x);
    for (int r = 0; r < lay.rows; ++r) {
      put_cell(grid.row(r), c, std::string(g.marker_lines[i % g.marker_lines.size()]), m.colour);
    }
  }
}

/// Stems: full cells, then the top cell in eighths (Unicode) or rounded to a cell (ASCII).
/// Points that share a column draw the tallest of them once. Returns the first row above
/// each point's stem.
std::vector<int> draw_stems(plot_grid& grid, const curve_chart& chart, const curve_layout& lay) {
  const int width = lay.width;
  std::vector<int> column_eighths(static_cast<std::size_t>(width), -1);
  for (std::size_t i = 0; i < lay.points.size(); ++i) {
    const int e = eighths_of(chart, lay.rows, lay.points[i].y);
    for (int c = lay.cols[i] - lay.stem_half; c <= lay.cols[i] + lay.stem_half; ++c) {
      if (c >= 0 && c < width) {
        auto& m = column_eighths[static_cast<std::size_t>(c)];
        m = std::max(m, e);
      }
    }
  }
  for (int c = 0; c < width; ++c) {
    const int e = column_eighths[static_cast<std::size_t>(c)];
    if (e <= 0) {
      continue;
    }
    const int full = lay.unicode ? e / 8 : (e + 4) / 8;
    const int part = lay.unicode ? e % 8 : 0;
    for (int r = 0; r < full; ++r) {
      put_cell(grid.row(r), c, std::string(lay.unicode ? "█" : "#"), chart.colour);
    }
    if (part > 0) {
      put_cell(grid.row(full), c, std::string(lower_eighths[static_cast<std::size_t>(part)]),
               chart.colour);
    }
  }
  std::vector<int> tops(lay.points.size(), 0);
  for (std::size_t i = 0; i < lay.points.size(); ++i) {
    const int e = column_eighths[static_cast<std::size_t>(std::clamp(lay.cols[i], 0, width - 1))];
    tops[i] = lay.unicode ? (e + 7) / 8 : (e + 4) / 8;
  }
  return tops;
}

/// Point labels above the stems (`tops`), only if every one fits clear of its neighbours.
void draw_point_labels(plot_grid& grid, const curve_layout& lay, const std::vector<int>& tops) {
  std::vector<span> spans;
  for (std::size_t i = 0; i < lay.points.size(); ++i) {
    const int w = width_of(lay.points[i].label);
    if (w == 0) {
      continue;
    }
    const int first =
        std::clamp(lay.cols[i] - (w - 1) / 2, lay.plot0, std::max(lay.plot0, lay.width - w));
    const span s{first, first + w - 1};
    if (s.last >= lay.width || tops[i] > lay.rows) {
      return;
    }
    // Points are sorted by x, so the previous label is the only one that can touch this
    // one; labels on different rows must be clear too, to read as a row of numbers.
    if (!spans.empty() && !s.clear_of(spans.back())) {
      return;
    }
    spans.push_back(s);
  }
  std::size_t k = 0;
  for (std::size_t i = 0; i < lay.points.size(); ++i) {
    if (lay.points[i].label.empty()) {
      continue;
    }
    put(grid.row(tops[i]), spans[k++].first, lay.points[i].label);
  }
}

/// The y axis with its ticks and their labels in the grid; returns the x axis line, with a
/// tick at each point and the labels of y ticks that fall on it.
line draw_axes(plot_grid& grid, const curve_chart& chart, const curve_layout& lay) {
  const auto& g = lay.glyphs();
  for (int r = 0; r < lay.rows; ++r) {
    put_cell(grid.row(r), lay.axis_col, std::string(g.axis_v));
  }
  line axis_line(static_cast<std::size_t>(lay.width));
  put_cell(axis_line, lay.axis_col, std::string(g.corner));
  for (int c = lay.plot0; c < lay.plot0 + lay.plot_w; ++c) {
    put_cell(axis_line, c, std::string(g.axis_h));
  }
  for (const auto c : lay.cols) {
    put_cell(axis_line, c, std::string(g.axis_tick_x));
  }
  for (const auto& t : chart.y_ticks) {
    const int tick_row = boundary_of(chart, lay.rows, t.value) - 1;  // -1: the x axis line
    line& l = tick_row < 0 ? axis_line : grid.row(tick_row);
    put(l, lay.axis_col - 1 - width_of(t.label), t.label);
    if (tick_row >= 0) {
      put_cell(l, lay.axis_col, std::string(g.axis_tick_y));
    }
  }
  return axis_line;
}

/// The x tick labels: greedy from the left, then room made for the last one.
line x_label_line(const curve_layout& lay) {
  const int width = lay.width;
  std::vector<std::pair<span, std::size_t>> placed;
  const auto span_of = [&](std::size_t i) {
    const int w = width_of(lay.x_labels[i]);
    const int first = std::clamp(lay.cols[i] - (w - 1) / 2, 0, std::max(0, width - w));
    return span{first, first + w - 1};
  };
  for (std::size_t i = 0; i < lay.points.size(); ++i) {
    if (lay.x_labels[i].empty()) {
      continue;
    }
    const auto s = span_of(i);
    if (placed.empty() || s.clear_of(placed.back().first)) {
      placed.emplace_back(s, i);
    } else if (i + 1 == lay.points.size()) {
      while (!placed.empty() && !s.clear_of(placed.back().first)) {
        placed.pop_back();
      }
      placed.emplace_back(s, i);
    }
  }
  line out(static_cast<std::size_t>(width));
  for (const auto& [s, i] : placed) {
    put(out, s.first, lay.x_labels[i]);
  }
  return out;
}

/// Marker labels above the plot, stacked when they would collide, lowest level first;
/// out-of-range markers point off the edge.
std::vector<line> marker_label_lines(const curve_chart& chart, const curve_layout& lay) {
  const auto& g = lay.glyphs();
  const int width = lay.width;
  std::vector<line> label_lines;
  std::vector<std::vector<span>> taken;
  for (const auto& m : chart.x_markers) {
    const int side = lay.map.side(m.x);
    std::string text = m.label;
    int first = 0;
    if (side == 0) {
      first = lay.map.column(m.x);
    } else if (side > 0) {
      text += g.arrow_right;
      first = width - width_of(text);
    } else {
      text = std::string(g.arrow_left) + text;
      first = lay.plot0;
    }
    const int w = width_of(text);
    first = std::clamp(first, 0, std::max(0, width - w));
    const span s{first, first + w - 1};
    std::size_t level = 0;
    while (level < taken.size() && !std::all_of(taken[level].begin(), taken[level].end(),
                                                [&](const span& o) { return s.clear_of(o); })) {
      ++level;
    }
    if (level == taken.size()) {
      taken.emplace_back();
      label_lines.emplace_back(static_cast<std::size_t>(width));
    }
    taken[level].push_back(s);
    put(label_lines[level], s.first, text, m.colour);
  }
  return label_lines;
}

/// One legend item: the marker's line sample, a space, its legend text.
line legend_item(std::string_view sample, hue colour, std::string_view legend) {
  line item = text_line(sample, colour);
  item.push_back(cell{});
  const auto rest = text_line(legend);
  item.insert(item.end(), rest.begin(), rest.end());
  return item;
}

/// The legend items: x markers first, then y markers.
std::vector<line> curve_legend(const curve_chart& chart, const curve_layout& lay) {
  const auto& g = lay.glyphs();
  std::vector<line> legend;
  for (std::size_t i = 0; i < chart.x_markers.size(); ++i) {
    const auto& m = chart.x_markers[i];
    legend.push_back(legend_item(g.marker_lines[i % g.marker_lines.size()], m.colour, m.legend));
  }
  for (const auto& m : chart.y_markers) {
    legend.push_back(legend_item(lay.unicode ? "▔▔" : "--", m.colour, m.legend));
  }
  return legend;
}

/// The lines as text, each rendered with or without colour.
std::string render_lines(const std::vector<line>& lines, bool color) {
  std::string text;
  for (const auto& l : lines) {
    text += render(l, color);
  }
  return text;
}

}  // namespace

std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {  // CSI ... final byte in 0x40..0x7e
      ++i;
      if (i < text.size() && text[i] == '[') {
        ++i;
        while (i < text.size() && !(text[i] >= 0x40 && text[i] <= 0x7e)) {
          ++i;
        }
      }
      continue;
    }
    if ((c & 0xC0) != 0x80) {
      ++width;
    }
  }
  return width;
}

std::string draw(const curve_chart& chart, const text_style& style) {
  const int width = clamp_width(style);
  std::vector<line> out;
  if (!chart.title.empty()) {
    out.push_back(text_line(fit(chart.title, width)));
  }
  if (chart.points.empty()) {
    out.push_back(text_line("(no points)"));
    return render_lines(out, style.color);
  }
  const curve_layout lay = layout_of(chart, style);
  plot_grid grid{std::vector<line>(static_cast<std::size_t>(lay.rows + 1),
                                   line(static_cast<std::size_t>(width)))};
  // The order matters where parts overlap: later steps draw over earlier ones.
  draw_guides(grid, chart, lay);
  const auto tops = draw_stems(grid, chart, lay);
  draw_point_labels(grid, lay, tops);
  const line axis_line = draw_axes(grid, chart, lay);
  const line x_labels = x_label_line(lay);
  const auto label_lines = marker_label_lines(chart, lay);

  if (!chart.y_title.empty()) {
    out.push_back(text_line(fit(chart.y_title, width)));
  }
  for (auto it = label_lines.rbegin(); it != label_lines.rend(); ++it) {
    out.push_back(*it);
  }
  const line& headroom = grid.row(lay.rows);
  if (!std::all_of(headroom.begin(), headroom.end(), [](const cell& c) { return c.blank(); })) {
    out.push_back(headroom);
  }
  for (int r = lay.rows - 1; r >= 0; --r) {
    out.push_back(grid.row(r));
  }
  out.push_back(axis_line);
  out.push_back(x_labels);
  if (!chart.x_title.empty()) {
    line title_line(static_cast<std::size_t>(width));
    const int w = width_of(chart.x_title);
    put(title_line, std::clamp(lay.plot0 + (lay.plot_w - w) / 2, 0, std::max(0, width - w)),
        fit(chart.x_title, width));
    out.push_back(title_line);
  }
  append_legend(out, curve_legend(chart, lay), width);
  return render_lines(out, style.color);
}

std::string draw(const bar_chart& chart, const text_style& style) {
  const int width = clamp_width(style);
  const auto& g = style.unicode ? unicode_glyphs : ascii_glyphs;
  const auto& fills = style.unicode ? unicode_fills : ascii_fills;
  std::vector<line> out;
  if (!chart.title.empty()) {
    out.push_back(text_line(fit(chart.title, width)));
  }
  // Legend: one swatch per segment kind.
  {
    std::vector<line> items;
    for (std::size_t k = 0; k < chart.segments.size(); ++k) {
      const auto& s = chart.segments[k];
      line item =
          text_line(style.color ? (style.unicode ? "█" : "#") : fills[k % fills.size()], s.colour);
      item.push_back(cell{});
      const auto name = text_line(s.name);
      item.insert(item.end(), name.begin(), name.end());
      items.push_back(item);
    }
    append_legend(out, items, width);
  }
  int label_w = width_of(chart.label_title);
  int note_w = width_of(chart.note_title);
  for (const auto& b : chart.bars) {
    label_w = std::max(label_w, width_of(b.label));
    note_w = std::max(note_w, width_of(b.note));
  }
  const int bar0 = label_w + 2;  // "label │"
  int area = width - bar0 - (note_w > 0 ? note_w + 1 : 0);
  if (area < 10) {  // notes do not fit: drop them rather than the bars
    note_w = 0;
    area = width - bar0;
  }
  const int note0 = bar0 + area + 1;

  double max_total = 0.0;
  for (const auto& b : chart.bars) {
    double total = 0.0;
    for (const auto v : b.values) {
      total += std::isfinite(v) && v > 0.0 ? v : 0.0;
    }
    max_total = std::max(max_total, total);
  }
  const double eighths_per_unit = max_total > 0.0 ? area * 8.0 / max_total : 0.0;

  if (!chart.label_title.empty() || (!chart.note_title.empty() && note_w > 0)) {
    line header(static_cast<std::size_t>(width));
    put(header, label_w - width_of(chart.label_title), chart.label_title);
    if (note_w > 0) {
      put(header, note0 + note_w - width_of(chart.note_title), chart.note_title);
    }
    out.push_back(header);
  }
  for (const auto& b : chart.bars) {
    line l(static_cast<std::size_t>(width));
    put(l, label_w - width_of(b.label), b.label);
    put_cell(l, label_w + 1, std::string(g.axis_v));
    // Segment boundaries in eighths of a cell, rounded cumulatively so the total is exact.
    std::vector<std::int64_t> ends;
    double cumulative = 0.0;
    for (const auto v : b.values) {
      cumulative += std::isfinite(v) && v > 0.0 ? v : 0.0;
      ends.push_back(std::min<std::int64_t>(std::llround(cumulative * eighths_per_unit),
                                            static_cast<std::int64_t>(area) * 8));
    }
    const std::int64_t total = ends.empty() ? 0 : ends.back();
    /// The segment holding eighth `e`, or none past the end.
    const auto segment_at = [&](std::int64_t e) -> std::optional<std::size_t> {
      for (std::size_t k = 0; k < ends.size(); ++k) {
        if (e < ends[k]) {
          return k;
        }
      }
      return std::nullopt;
    };
    const auto colour_of = [&](std::size_t k) {
      return k < chart.segments.size() ? chart.segments[k].colour : hue::none;
    };
    for (int i = 0; i < area; ++i) {
      const std::int64_t s = std::int64_t{i} * 8;
      if (s >= total) {
        break;
      }
      const auto first = segment_at(s);
      const auto cut = std::min(ends[*first], s + 8);  // where the first segment stops here
      const int col = bar0 + i;
      if (style.color && style.unicode) {
        // Exact to an eighth: the first segment as a left block in its colour, whatever follows
        // in the cell as the background.
        const auto next = segment_at(cut);
        const auto n = static_cast<std::size_t>(cut - s);
        put_cell(l, col, std::string(left_eighths[n]), colour_of(*first),
                 n < 8 && next ? colour_of(*next) : hue::none);
      } else if (style.unicode && *first == 0 && cut < s + 8) {
        // The solid first segment ends inside the cell: keep its eighths.
        put_cell(l, col, std::string(left_eighths[static_cast<std::size_t>(cut - s)]),
                 colour_of(0));
      } else if (const auto centre = segment_at(s + 4)) {
        // Patterns cannot be cut: the segment at the cell's centre takes the cell.
        put_cell(l, col,
                 style.color ? std::string("#") : std::string(fills[*centre % fills.size()]),
                 colour_of(*centre));
      }
    }
    if (note_w > 0) {
      put(l, note0 + note_w - width_of(b.note), b.note);
    }
    out.push_back(l);
  }
  std::string text;
  for (const auto& l : out) {
    text += render(l, style.color);
  }
  return text;
}

std::string draw(const figure& fig, const text_style& style) {
  std::string text;
  if (!fig.title.empty()) {
    text += fit(fig.title, clamp_width(style)) + "\n\n";
  }
  for (std::size_t i = 0; i < fig.panels.size(); ++i) {
    if (i > 0) {
      text += "\n";
    }
    text += std::visit([&](const auto& p) { return draw(p, style); }, fig.panels[i]);
  }
  return text;
}

}  // namespace tpcost::cli::chart
