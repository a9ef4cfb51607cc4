// Charts as image files: a chart::figure as a gnuplot script with its data inline, and running
// gnuplot on it. The script is what `--plot-script` writes, so users can restyle it.
#pragma once

#include <string>

#include "charts/chart.hpp"
#include "tpcost/base/error.hpp"

namespace tpcost::cli {

enum class image_format { svg, png };

/// The format from a file name's extension (.svg or .png, any case); throws invalid_spec
/// naming --plot otherwise.
image_format image_format_of(const std::string& path);

/// The figure as a self-contained gnuplot script: terminal, data blocks, one plot per panel
/// in a multiplot. With `output` empty the image goes to gnuplot's stdout.
std::string gnuplot_script(const chart::figure& fig, image_format format,
                           const std::string& output);

/// The Debian package that provides gnuplot without X11, named in errors.
inline constexpr const char* gnuplot_package = "gnuplot-nox";

/// Runs gnuplot (TPCOST_GNUPLOT, or `gnuplot` on PATH) on `script` and returns the image it
/// printed on stdout. Throws tool_error when gnuplot is missing or fails.
std::string run_gnuplot(const std::string& script);

/// A program tpcost needs (gnuplot) is missing or failed: exit code 5.
class tool_error : public tpcost::error {
 public:
  using tpcost::error::error;
};

}  // namespace tpcost::cli
