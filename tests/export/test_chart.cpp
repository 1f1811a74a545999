#include <gtest/gtest.h>

#include <regex>

#include "concord/export/chart.hpp"
#include "concord/export/svg_chart_canvas.hpp"
#include "io/io_test_util.hpp"

namespace concord {
namespace {

Chart two_panel_chart() {
    Chart c;
    c.title = "t <&>";
    ChartPanel linear{"counts", "frame", false, true, {}};
    linear.series.push_back({"contacts", "#1f77b4", {{{0, 1}, {1, 3}, {2, 2}, {3, 5}}}});
    ChartPanel log{"residual", "iteration", true, true, {}};
    // Non-positive values cannot sit on a log axis: the line breaks there.
    log.series.push_back(
        {"primal", "#d62728", {{{0, 1}, {1, 0.1}, {2, 0}, {3, 0.001}, {4, 1e-4}}}});
    c.panels = {linear, log};
    return c;
}

TEST(AxisTicks, LinearTicksAreRoundAndCoverTheRange) {
    const auto t = axis_ticks(0, 10, false);
    ASSERT_GE(t.size(), 2u);
    EXPECT_DOUBLE_EQ(t.front(), 0);
    EXPECT_DOUBLE_EQ(t.back(), 10);
    EXPECT_DOUBLE_EQ(t[1] - t[0], 2);
    const auto u = axis_ticks(-0.3, 0.7, false);
    EXPECT_DOUBLE_EQ(u[1] - u[0], 0.2);
    for (double x : u) EXPECT_TRUE(x >= -0.3 - 1e-12 && x <= 0.7 + 1e-12);
    // Frame numbers: whole steps only, even for a short range.
    const auto w = axis_ticks(0, 2, false, true);
    EXPECT_EQ(w, std::vector<double>({0, 1, 2}));
}

TEST(AxisTicks, LogTicksArePowersOfTen) {
    const auto t = axis_ticks(1e-6, 1, true);
    ASSERT_EQ(t.size(), 7u);
    EXPECT_DOUBLE_EQ(t.front(), 1e-6);
    EXPECT_DOUBLE_EQ(t.back(), 1);
    EXPECT_LE(axis_ticks(1e-30, 1e10, true).size(), 9u);  // thinned to stay legible
}

TEST(TickLabel, IsShort) {
    EXPECT_EQ(tick_label(0), "0");
    EXPECT_EQ(tick_label(2.5), "2.5");
    EXPECT_EQ(tick_label(1e-6), "1e-06");
    EXPECT_EQ(tick_label(1200), "1200");
}

TEST(ChartSvg, HasOnePolylinePerUnbrokenRunWithItsPointCount) {
    const std::string svg = chart_to_svg(two_panel_chart());
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_TRUE(test::contains(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    EXPECT_TRUE(test::contains(svg, "t &lt;&amp;&gt;"));
    EXPECT_TRUE(test::contains(svg, "data-series=\"contacts\" data-count=\"4\""));
    // 1, 0.1 | (0 dropped) | 0.001, 1e-4: two runs of two points.
    const std::regex primal("data-series=\"primal\" data-count=\"2\"");
    EXPECT_EQ(
        std::distance(std::sregex_iterator(svg.begin(), svg.end(), primal), std::sregex_iterator()),
        2);
    EXPECT_TRUE(test::contains(svg, ">1e-04<"));
    EXPECT_TRUE(test::contains(svg, "</svg>\n"));
}

TEST(ChartSvg, EmptyPanelSaysNoData) {
    Chart c;
    c.panels.push_back({"empty", "x", false, false, {{"s", "#000000", {{}}}}});
    EXPECT_TRUE(test::contains(chart_to_svg(c), ">no data<"));
}

TEST(ChartImage, DrawsLinesAndTextOnWhite) {
    const Chart c = two_panel_chart();
    const Image img = chart_to_image(c);
    EXPECT_EQ(img.width, c.width);
    EXPECT_EQ(img.height, chart_height(c));
    long blue = 0, dark = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const auto* p = img.pixel(x, y);
            blue += p[2] > 150 && p[0] < 100;
            dark += p[0] < 80 && p[1] < 80 && p[2] < 80;
        }
    EXPECT_GT(blue, 200);  // the contacts line
    EXPECT_GT(dark, 500);  // axes and text
    EXPECT_EQ(img.pixel(2, 2)[0], 255);
}

TEST(XmlEscape, EscapesMarkupAndDropsControls) {
    EXPECT_EQ(xml_escape("a<b>&\"'\x01"), "a&lt;b&gt;&amp;&quot;&apos;");
}

}  // namespace
}  // namespace concord
