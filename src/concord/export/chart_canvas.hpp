// The drawing operations a chart needs, so that one layout feeds both SVG and PNG output.
#pragma once

#include <string>
#include <vector>

#include "concord/math/types.hpp"

namespace concord {

enum class TextAnchor { Start, Middle, End };

/// Coordinates are pixels from the top-left corner; colours are "#rrggbb".
class ChartCanvas {
  public:
    virtual ~ChartCanvas() = default;
    virtual void rect(double x, double y, double w, double h, const std::string& fill) = 0;
    virtual void line(double x0, double y0, double x1, double y1, const std::string& colour,
                      double width, bool dashed) = 0;
    virtual void polyline(const std::vector<Vec2>& points, const std::string& colour, double width,
                          const std::string& series) = 0;
    /// `y` is the text's baseline; `size` its height in pixels.
    virtual void text(double x, double y, const std::string& text, double size, TextAnchor anchor,
                      const std::string& colour) = 0;
};

/// Width of `text` at `size`, the same for both canvases (monospace, 6/7 of the size per glyph).
inline double text_width(const std::string& text, double size) {
    return static_cast<double>(text.size()) * size * 6.0 / 7.0;
}

}  // namespace concord
