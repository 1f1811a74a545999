// ChartCanvas that draws into a picture: anti-aliased by 3x supersampling, text in the
// built-in 5x7 font.
#pragma once

#include <vector>

#include "concord/export/chart_canvas.hpp"
#include "concord/export/image.hpp"

namespace concord {

class RasterChartCanvas : public ChartCanvas {
  public:
    RasterChartCanvas(int width, int height);

    void rect(double x, double y, double w, double h, const std::string& fill) override;
    void line(double x0, double y0, double x1, double y1, const std::string& colour, double width,
              bool dashed) override;
    void polyline(const std::vector<Vec2>& points, const std::string& colour, double width,
                  const std::string& series) override;
    void text(double x, double y, const std::string& text, double size, TextAnchor anchor,
              const std::string& colour) override;

    Image image() const;

  private:
    void fill_box(double x0, double y0, double x1, double y1, const float rgb[3]);
    void stroke(double x0, double y0, double x1, double y1, const float rgb[3], double width);

    int width_, height_, bw_, bh_;
    std::vector<float> buffer_;  ///< bw * bh * 3
};

/// "#rrggbb" to 0..1 floats; black for anything else.
void parse_hex_colour(const std::string& colour, float rgb[3]);

}  // namespace concord
