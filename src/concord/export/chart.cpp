#include "concord/export/chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "concord/export/raster_chart_canvas.hpp"
#include "concord/export/svg_chart_canvas.hpp"

namespace concord {

namespace {

constexpr int kTitleHeight = 34;
constexpr double kLeft = 78, kRight = 20, kTop = 30, kBottom = 44;
const std::string kBackground = "#ffffff", kAxis = "#444444", kGrid = "#e4e4e4", kText = "#222222";

struct Range {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    bool empty() const { return !(lo <= hi); }
};

bool usable(double y, bool log_y) {
    return std::isfinite(y) && (!log_y || y > 0);
}

void draw_panel(const ChartPanel& panel, double top, double width, double height,
                ChartCanvas& canvas) {
    const double x0 = kLeft, x1 = width - kRight, y0 = top + kTop, y1 = top + height - kBottom;
    Range xr, yr;
    for (const auto& s : panel.series)
        for (const auto& line : s.lines)
            for (const Vec2& p : line) {
                if (!std::isfinite(p.x()) || !usable(p.y(), panel.log_y)) continue;
                xr.lo = std::min(xr.lo, p.x());
                xr.hi = std::max(xr.hi, p.x());
                yr.lo = std::min(yr.lo, p.y());
                yr.hi = std::max(yr.hi, p.y());
            }
    canvas.text(x0, top + 20, panel.title, 13, TextAnchor::Start, kText);
    if (xr.empty()) {
        canvas.text((x0 + x1) / 2, (y0 + y1) / 2, "no data", 12, TextAnchor::Middle, kAxis);
        return;
    }
    if (xr.hi == xr.lo) xr = {xr.lo - 1, xr.hi + 1};
    if (panel.log_y) {
        yr.lo = std::pow(10.0, std::floor(std::log10(yr.lo)));
        yr.hi = std::pow(10.0, std::ceil(std::log10(yr.hi)));
        if (yr.hi <= yr.lo) yr.hi = yr.lo * 10;
    } else {
        yr.lo = std::min(0.0, yr.lo);  // counts and times read best from zero
        if (yr.hi <= yr.lo) yr.hi = yr.lo + 1;
        yr.hi += 0.05 * (yr.hi - yr.lo);
    }
    auto sx = [&](double x) { return x0 + (x - xr.lo) / (xr.hi - xr.lo) * (x1 - x0); };
    auto sy = [&](double y) {
        const double t = panel.log_y ? (std::log10(y) - std::log10(yr.lo)) /
                                           (std::log10(yr.hi) - std::log10(yr.lo))
                                     : (y - yr.lo) / (yr.hi - yr.lo);
        return y1 - t * (y1 - y0);
    };

    for (double t : axis_ticks(yr.lo, yr.hi, panel.log_y)) {
        const double y = sy(t);
        canvas.line(x0, y, x1, y, kGrid, 1, false);
        canvas.text(x0 - 6, y + 4, tick_label(t), 11, TextAnchor::End, kText);
    }
    for (double t : axis_ticks(xr.lo, xr.hi, false, panel.integer_x)) {
        const double x = sx(t);
        canvas.line(x, y1, x, y1 + 4, kAxis, 1, false);
        canvas.text(x, y1 + 17, tick_label(t), 11, TextAnchor::Middle, kText);
    }
    canvas.line(x0, y1, x1, y1, kAxis, 1, false);
    canvas.line(x0, y0, x0, y1, kAxis, 1, false);
    canvas.text((x0 + x1) / 2, y1 + 35, panel.x_label, 12, TextAnchor::Middle, kText);

    // Legend, right-aligned on the title line.
    double lx = x1;
    for (auto it = panel.series.rbegin(); it != panel.series.rend(); ++it) {
        lx -= text_width(it->label, 11) + 34;
        canvas.line(lx, top + 16, lx + 16, top + 16, it->colour, 3, false);
        canvas.text(lx + 20, top + 20, it->label, 11, TextAnchor::Start, kText);
    }

    for (const auto& s : panel.series) {
        for (const auto& line : s.lines) {
            std::vector<Vec2> run;
            auto flush = [&] {
                if (!run.empty()) canvas.polyline(run, s.colour, 1.6, s.label);
                run.clear();
            };
            for (const Vec2& p : line) {
                if (!std::isfinite(p.x()) || !usable(p.y(), panel.log_y)) {
                    flush();
                    continue;
                }
                run.emplace_back(sx(p.x()), sy(p.y()));
            }
            flush();
        }
    }
}

}  // namespace

std::vector<double> axis_ticks(double lo, double hi, bool log_scale, bool integers) {
    std::vector<double> ticks;
    if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
    if (log_scale) {
        const int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
        const int b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
        const int stride = std::max(1, (b - a + 7) / 8);  // at most ~8 labelled decades
        for (int e = a; e <= b; e += stride) ticks.push_back(std::pow(10.0, e));
        return ticks;
    }
    const double raw = integers ? std::max(1.0, (hi - lo) / 6) : (hi - lo) / 6;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        step = m * mag;
        if (step >= raw) break;
    }
    for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
        ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
    return ticks;
}

std::string tick_label(double value) {
    if (value == 0) return "0";
    char buf[32];
    const double a = std::abs(value);
    if (a >= 1e5 || a < 1e-3)
        std::snprintf(buf, sizeof buf, "%.0e", value);
    else
        std::snprintf(buf, sizeof buf, "%.4g", value);
    return buf;
}

int chart_height(const Chart& chart) {
    return kTitleHeight +
           chart.panel_height * static_cast<int>(std::max<std::size_t>(1, chart.panels.size()));
}

void draw_chart(const Chart& chart, ChartCanvas& canvas) {
    const double width = chart.width;
    canvas.rect(0, 0, width, chart_height(chart), kBackground);
    canvas.text(width / 2, 22, chart.title, 15, TextAnchor::Middle, kText);
    double top = kTitleHeight;
    for (const ChartPanel& panel : chart.panels) {
        draw_panel(panel, top, width, chart.panel_height, canvas);
        top += chart.panel_height;
    }
}

std::string chart_to_svg(const Chart& chart) {
    SvgChartCanvas canvas(chart.width, chart_height(chart));
    draw_chart(chart, canvas);
    return canvas.document();
}

Image chart_to_image(const Chart& chart) {
    RasterChartCanvas canvas(chart.width, chart_height(chart));
    draw_chart(chart, canvas);
    return canvas.image();
}

}  // namespace concord
