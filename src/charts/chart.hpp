// Charts drawn with text, and the same charts as data for a plotting tool (plot.hpp).
//
// Two kinds of panel, generic over what they show; callers fill them from a result
// (sweep_chart.cpp does it for `sweep`), this file only lays out glyphs and computes no model:
//   * curve_chart: points (x, y) drawn as columns from the x axis, with vertical markers
//     (t*, a node boundary) and horizontal guides (E = 50%);
//   * bar_chart: one horizontal bar per label, stacked from segments (compute, exposed comm;
//     later bubble, DP sync).
// Unicode output uses block elements with eighth-cell steps; ASCII output rounds to cells.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace tpcost::cli::chart {

/// A colour of the 8-colour ANSI palette; `none` is the terminal's default colour.
enum class hue { none, red, green, yellow, blue, magenta, cyan };

/// How a chart is drawn in text.
struct text_style {
  bool unicode = true;  ///< block and box-drawing characters; false: 7-bit ASCII only
  bool color = false;   ///< ANSI SGR colour sequences
  int width = 80;       ///< the widest line, in columns (minimum 40)
};

/// A value on an axis and the text written there.
struct tick {
  double value = 0.0;
  std::string label;
};

/// A vertical line across a curve chart at `x` (t*, a node boundary).
struct x_marker {
  double x = 0.0;
  std::string label;   ///< short, written above the line: "t*=22.1"
  std::string legend;  ///< longer, in the legend: "t* = 22.12: T_comm = T_calc, E = 50%"
  hue colour = hue::none;
};

/// A horizontal guide across a curve chart at `y` (E = 50%).
struct y_marker {
  double y = 0.0;
  std::string legend;
  hue colour = hue::none;
};

/// One sample of a curve; `label` (optional) is written above its column when all fit.
struct point {
  double x = 0.0;
  double y = 0.0;
  std::string label;
};

enum class axis_scale { linear, log2 };

/// A curve over x, sampled at `points` (sorted by x, x > 0 on a log2 axis).
struct curve_chart {
  std::string title;
  std::string x_title;
  std::string y_title;
  axis_scale x_scale = axis_scale::linear;
  double y_min = 0.0;
  double y_max = 1.0;
  std::vector<tick> y_ticks;  ///< drawn at the nearest row boundary
  int rows = 8;               ///< plot height in text rows
  std::vector<point> points;  ///< the x ticks are the points' x, labelled by `x_tick_labels`
  std::vector<std::string> x_tick_labels;  ///< one per point; empty: none
  hue colour = hue::none;
  std::vector<x_marker> x_markers;
  std::vector<y_marker> y_markers;
};

/// One kind of stacked segment, for the legend and colours: "compute", "comm (exposed)".
struct segment_kind {
  std::string name;
  hue colour = hue::none;
};

/// One bar: a label, one value per segment kind (>= 0, same unit for all bars) and a note
/// written after the bar ("3.369 ms").
struct bar {
  std::string label;
  std::vector<double> values;
  std::string note;
};

/// Horizontal stacked bars on a common linear scale; the longest fills the width.
struct bar_chart {
  std::string title;
  std::string label_title;  ///< written above the labels: "TP"
  std::string note_title;   ///< written above the notes: "total"
  std::string value_title;  ///< the values' axis in a plot: "time per layer (ms)"
  std::vector<segment_kind> segments;
  std::vector<bar> bars;
};

using panel = std::variant<curve_chart, bar_chart>;

/// A figure: panels drawn one below the other.
struct figure {
  std::string title;
  std::vector<panel> panels;
};

std::string draw(const curve_chart& chart, const text_style& style);
std::string draw(const bar_chart& chart, const text_style& style);
/// The panels in order, separated by a blank line.
std::string draw(const figure& fig, const text_style& style);

/// Display width of `text` in columns: code points, ANSI escape sequences excluded.
std::size_t display_width(const std::string& text);

}  // namespace tpcost::cli::chart
