// ChartCanvas that writes SVG elements.
#pragma once

#include <sstream>
#include <string>

#include "concord/export/chart_canvas.hpp"

namespace concord {

class SvgChartCanvas : public ChartCanvas {
  public:
    SvgChartCanvas(int width, int height);

    void rect(double x, double y, double w, double h, const std::string& fill) override;
    void line(double x0, double y0, double x1, double y1, const std::string& colour, double width,
              bool dashed) override;
    /// Each polyline carries data-series and data-count (its number of points) for scripts.
    void polyline(const std::vector<Vec2>& points, const std::string& colour, double width,
                  const std::string& series) override;
    void text(double x, double y, const std::string& text, double size, TextAnchor anchor,
              const std::string& colour) override;

    /// The whole document, closed.
    std::string document() const;

  private:
    int width_, height_;
    std::ostringstream body_;
};

/// Escapes &, <, >, " and ' for SVG/XML text and attributes.
std::string xml_escape(const std::string& text);

}  // namespace concord
