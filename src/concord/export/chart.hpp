// Line charts for `concord plot`: stacked panels, each with linear or log-scale y, several
// series with a legend, written as SVG or rendered to a PNG picture.
#pragma once

#include <string>
#include <vector>

#include "concord/export/chart_canvas.hpp"
#include "concord/export/image.hpp"

namespace concord {

struct ChartSeries {
    std::string label;
    std::string colour;  ///< "#rrggbb"
    /// One or more polylines drawn in the series' colour (e.g. one per frame of a trace).
    std::vector<std::vector<Vec2>> lines;
};

struct ChartPanel {
    std::string title;
    std::string x_label;
    bool log_y = false;  ///< non-positive values are left out (the line breaks there)
    std::vector<ChartSeries> series;
};

struct Chart {
    std::string title;
    int width = 900;
    int panel_height = 260;
    std::vector<ChartPanel> panels;
};

/// Tick positions for [lo, hi]: 1-2-5 steps on a linear axis, powers of ten on a log axis
/// (both ends in data units). At least two ticks for a non-empty range.
std::vector<double> axis_ticks(double lo, double hi, bool log_scale);

/// Short tick label: "0", "2.5", "1e-06", "1200".
std::string tick_label(double value);

/// Total picture height for `chart`.
int chart_height(const Chart& chart);

/// Lays out and draws `chart` on `canvas` (width x chart_height).
void draw_chart(const Chart& chart, ChartCanvas& canvas);

/// The chart as a standalone SVG document.
std::string chart_to_svg(const Chart& chart);

/// The chart as a picture (for PNG output).
Image chart_to_image(const Chart& chart);

}  // namespace concord
