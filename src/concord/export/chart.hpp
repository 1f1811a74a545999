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
    bool log_y = false;      ///< non-positive values are left out (the line breaks there)
    bool integer_x = false;  ///< x counts something (frames, iterations): whole-number ticks
    std::vector<ChartSeries> series;
};

struct Chart {
    std::string title;
    int width = 900;
    int panel_height = 260;
    std::vector<ChartPanel> panels;
};

/// Tick positions for [lo, hi]: 1-2-5 steps on a linear axis (steps of at least 1 when
/// `integers`), powers of ten on a log axis (both ends in data units).
std::vector<double> axis_ticks(double lo, double hi, bool log_scale, bool integers = false);

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
