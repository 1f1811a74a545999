#include "concord/export/raster_chart_canvas.hpp"

#include <algorithm>
#include <cmath>

#include "concord/export/bitmap_font.hpp"

namespace concord {

namespace {
constexpr int kScale = 3;  // supersampling factor
}

void parse_hex_colour(const std::string& colour, float rgb[3]) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    if (colour.size() != 7 || colour[0] != '#') return;
    for (int k = 0; k < 3; ++k) {
        const std::string part = colour.substr(1 + 2 * k, 2);
        char* end = nullptr;
        const long v = std::strtol(part.c_str(), &end, 16);
        if (end != part.c_str() + 2) return;
        rgb[k] = static_cast<float>(v) / 255.0f;
    }
}

RasterChartCanvas::RasterChartCanvas(int width, int height)
    : width_(width),
      height_(height),
      bw_(width * kScale),
      bh_(height * kScale),
      buffer_(static_cast<std::size_t>(bw_) * bh_ * 3, 1.0f) {}

void RasterChartCanvas::fill_box(double x0, double y0, double x1, double y1, const float rgb[3]) {
    const int ix0 = std::max(0, static_cast<int>(std::floor(x0 * kScale)));
    const int iy0 = std::max(0, static_cast<int>(std::floor(y0 * kScale)));
    const int ix1 = std::min(bw_, static_cast<int>(std::ceil(x1 * kScale)));
    const int iy1 = std::min(bh_, static_cast<int>(std::ceil(y1 * kScale)));
    for (int y = iy0; y < iy1; ++y)
        for (int x = ix0; x < ix1; ++x) {
            float* p = &buffer_[(static_cast<std::size_t>(y) * bw_ + x) * 3];
            p[0] = rgb[0];
            p[1] = rgb[1];
            p[2] = rgb[2];
        }
}

void RasterChartCanvas::stroke(double x0, double y0, double x1, double y1, const float rgb[3],
                               double width) {
    // Samples whose distance to the segment is at most width / 2 are painted.
    const double ax = x0 * kScale, ay = y0 * kScale, bx = x1 * kScale, by = y1 * kScale;
    const double r = std::max(0.5, width * kScale / 2);
    const int xmin = std::max(0, static_cast<int>(std::floor(std::min(ax, bx) - r)));
    const int xmax = std::min(bw_ - 1, static_cast<int>(std::ceil(std::max(ax, bx) + r)));
    const int ymin = std::max(0, static_cast<int>(std::floor(std::min(ay, by) - r)));
    const int ymax = std::min(bh_ - 1, static_cast<int>(std::ceil(std::max(ay, by) + r)));
    const double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    for (int y = ymin; y <= ymax; ++y)
        for (int x = xmin; x <= xmax; ++x) {
            const double px = x + 0.5 - ax, py = y + 0.5 - ay;
            const double t = len2 > 0 ? std::clamp((px * dx + py * dy) / len2, 0.0, 1.0) : 0.0;
            const double ex = px - t * dx, ey = py - t * dy;
            if (ex * ex + ey * ey > r * r) continue;
            float* p = &buffer_[(static_cast<std::size_t>(y) * bw_ + x) * 3];
            p[0] = rgb[0];
            p[1] = rgb[1];
            p[2] = rgb[2];
        }
}

void RasterChartCanvas::rect(double x, double y, double w, double h, const std::string& fill) {
    float rgb[3];
    parse_hex_colour(fill, rgb);
    fill_box(x, y, x + w, y + h, rgb);
}

void RasterChartCanvas::line(double x0, double y0, double x1, double y1, const std::string& colour,
                             double width, bool dashed) {
    float rgb[3];
    parse_hex_colour(colour, rgb);
    if (!dashed) {
        stroke(x0, y0, x1, y1, rgb, width);
        return;
    }
    const double len = std::hypot(x1 - x0, y1 - y0);
    for (double s = 0; s < len; s += 7) {
        const double e = std::min(len, s + 4);
        stroke(x0 + (x1 - x0) * s / len, y0 + (y1 - y0) * s / len, x0 + (x1 - x0) * e / len,
               y0 + (y1 - y0) * e / len, rgb, width);
    }
}

void RasterChartCanvas::polyline(const std::vector<Vec2>& points, const std::string& colour,
                                 double width, const std::string&) {
    float rgb[3];
    parse_hex_colour(colour, rgb);
    if (points.size() == 1)
        stroke(points[0].x(), points[0].y(), points[0].x(), points[0].y(), rgb, width * 2);
    for (std::size_t i = 1; i < points.size(); ++i)
        stroke(points[i - 1].x(), points[i - 1].y(), points[i].x(), points[i].y(), rgb, width);
}

void RasterChartCanvas::text(double x, double y, const std::string& text, double size,
                             TextAnchor anchor, const std::string& colour) {
    float rgb[3];
    parse_hex_colour(colour, rgb);
    // Glyph cells advance exactly as text_width() assumes, so that layout matches; the 7-pixel
    // glyph is scaled in whole supersamples so that all its strokes are equally thick.
    const double advance = size * 6.0 / 7.0;
    const double pixel = std::min(advance / kGlyphAdvance,
                                  std::max(1.0, std::round(size / kGlyphHeight * kScale)) / kScale);
    const double w = text_width(text, size);
    double left = anchor == TextAnchor::Start    ? x
                  : anchor == TextAnchor::Middle ? x - w / 2
                                                 : x - w;
    const double top = y - size;
    for (char c : text) {
        const auto& columns = glyph_columns(c);
        for (int col = 0; col < kGlyphWidth; ++col)
            for (int row = 0; row < kGlyphHeight; ++row) {
                if (!(columns[static_cast<std::size_t>(col)] >> row & 1)) continue;
                fill_box(left + col * pixel, top + row * pixel, left + (col + 1) * pixel,
                         top + (row + 1) * pixel, rgb);
            }
        left += advance;
    }
}

Image RasterChartCanvas::image() const {
    Image out(width_, height_);
    constexpr float kNorm = 1.0f / (kScale * kScale);
    for (int y = 0; y < height_; ++y)
        for (int x = 0; x < width_; ++x) {
            float sum[3] = {0, 0, 0};
            for (int j = 0; j < kScale; ++j)
                for (int i = 0; i < kScale; ++i) {
                    const float* p =
                        &buffer_[(static_cast<std::size_t>(y * kScale + j) * bw_ + x * kScale + i) *
                                 3];
                    sum[0] += p[0];
                    sum[1] += p[1];
                    sum[2] += p[2];
                }
            for (int k = 0; k < 3; ++k)
                out.pixel(x, y)[k] = static_cast<std::uint8_t>(
                    std::lround(std::clamp(sum[k] * kNorm, 0.0f, 1.0f) * 255));
        }
    return out;
}

}  // namespace concord
