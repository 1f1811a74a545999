#include "concord/export/svg_chart_canvas.hpp"

#include <cstdio>

namespace concord {

namespace {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
}

}  // namespace

std::string xml_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                // Control characters are not allowed in XML 1.0 documents.
                if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;
        }
    }
    return out;
}

SvgChartCanvas::SvgChartCanvas(int width, int height) : width_(width), height_(height) {}

void SvgChartCanvas::rect(double x, double y, double w, double h, const std::string& fill) {
    body_ << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
          << "\" height=\"" << num(h) << "\" fill=\"" << xml_escape(fill) << "\"/>\n";
}

void SvgChartCanvas::line(double x0, double y0, double x1, double y1, const std::string& colour,
                          double width, bool dashed) {
    body_ << "<line x1=\"" << num(x0) << "\" y1=\"" << num(y0) << "\" x2=\"" << num(x1)
          << "\" y2=\"" << num(y1) << "\" stroke=\"" << xml_escape(colour) << "\" stroke-width=\""
          << num(width) << "\"" << (dashed ? " stroke-dasharray=\"4 3\"" : "") << "/>\n";
}

void SvgChartCanvas::polyline(const std::vector<Vec2>& points, const std::string& colour,
                              double width, const std::string& series) {
    body_ << "<polyline fill=\"none\" stroke=\"" << xml_escape(colour) << "\" stroke-width=\""
          << num(width) << "\" stroke-linejoin=\"round\" data-series=\"" << xml_escape(series)
          << "\" data-count=\"" << points.size() << "\" points=\"";
    for (std::size_t i = 0; i < points.size(); ++i)
        body_ << (i ? " " : "") << num(points[i].x()) << "," << num(points[i].y());
    body_ << "\"/>\n";
}

void SvgChartCanvas::text(double x, double y, const std::string& text, double size,
                          TextAnchor anchor, const std::string& colour) {
    const char* a = anchor == TextAnchor::Start    ? "start"
                    : anchor == TextAnchor::Middle ? "middle"
                                                   : "end";
    body_ << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << num(size)
          << "\" text-anchor=\"" << a << "\" fill=\"" << xml_escape(colour) << "\">"
          << xml_escape(text) << "</text>\n";
}

std::string SvgChartCanvas::document() const {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
           "width=\"" +
           std::to_string(width_) + "\" height=\"" + std::to_string(height_) + "\" viewBox=\"0 0 " +
           std::to_string(width_) + " " + std::to_string(height_) +
           "\" font-family=\"DejaVu Sans Mono, monospace\">\n" + body_.str() + "</svg>\n";
}

}  // namespace concord
