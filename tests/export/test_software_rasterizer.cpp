#include <gtest/gtest.h>

#include "concord/export/image.hpp"
#include "concord/export/software_rasterizer.hpp"
#include "io/io_test_util.hpp"

namespace concord {
namespace {

Camera looking_down_z() {
    Camera c;
    c.eye = Vec3(0, 0, 5);
    c.target = Vec3::Zero();
    c.up = Vec3::UnitY();
    c.fov_deg = 40;
    return c;
}

const Rgb kBlack = {0, 0, 0}, kRed = {1, 0, 0}, kBlue = {0, 0, 1};

TEST(SoftwareRasterizer, TriangleCoversTheCentreOnly) {
    SoftwareRasterizer r(64, 48, looking_down_z(), 1);
    r.clear(kBlack);
    r.draw_triangle(Vec3(-0.5, -0.5, 0), Vec3(0.5, -0.5, 0), Vec3(0, 0.5, 0), kRed);
    const Image img = r.resolve();
    EXPECT_GT(img.pixel(32, 24)[0], 100);  // lit red at the centre
    EXPECT_EQ(img.pixel(32, 24)[2], 0);
    EXPECT_EQ(img.pixel(0, 0)[0], 0);  // background in the corner
    EXPECT_EQ(img.pixel(63, 47)[0], 0);
    EXPECT_EQ(r.triangles_drawn(), 1);
}

TEST(SoftwareRasterizer, NearerTriangleWinsWhateverTheOrder) {
    for (bool near_first : {true, false}) {
        SoftwareRasterizer r(32, 32, looking_down_z(), 1);
        r.clear(kBlack);
        auto near = [&] { r.draw_triangle(Vec3(-1, -1, 1), Vec3(1, -1, 1), Vec3(0, 1, 1), kRed); };
        auto far = [&] {
            r.draw_triangle(Vec3(-1, -1, -1), Vec3(1, -1, -1), Vec3(0, 1, -1), kBlue);
        };
        if (near_first) {
            near();
            far();
        } else {
            far();
            near();
        }
        const Image img = r.resolve();
        EXPECT_GT(img.pixel(16, 16)[0], 0) << near_first;
        EXPECT_EQ(img.pixel(16, 16)[2], 0) << near_first;
    }
}

TEST(SoftwareRasterizer, TranslucentOverlayBlendsWithoutHiding) {
    SoftwareRasterizer r(16, 16, looking_down_z(), 1);
    r.clear(kBlack);
    r.draw_triangle(Vec3(-3, -3, 1), Vec3(3, -3, 1), Vec3(0, 3, 1), kRed, 0.5);
    r.draw_triangle(Vec3(-3, -3, -1), Vec3(3, -3, -1), Vec3(0, 3, -1), kBlue);  // behind, opaque
    const Image img = r.resolve();
    EXPECT_GT(img.pixel(8, 8)[2], 0);  // the overlay did not write depth
}

TEST(SoftwareRasterizer, TrianglesBehindOrThroughTheCameraAreClipped) {
    SoftwareRasterizer r(32, 32, looking_down_z(), 1);
    r.clear(kBlack);
    r.draw_triangle(Vec3(-1, -1, 10), Vec3(1, -1, 10), Vec3(0, 1, 10), kRed);  // behind the eye
    EXPECT_EQ(r.triangles_drawn(), 0);
    // Crossing the eye plane: a floor under the camera reaching behind it.
    r.draw_triangle(Vec3(-5, -1, 20), Vec3(5, -1, 20), Vec3(0, -1, -20), kRed);
    EXPECT_EQ(r.triangles_drawn(), 1);
    const Image img = r.resolve();
    EXPECT_GT(img.pixel(16, 31)[0], 0);  // the floor fills the bottom
    EXPECT_EQ(img.pixel(16, 0)[0], 0);   // not the top
}

TEST(SoftwareRasterizer, SupersamplingSmoothsEdges) {
    SoftwareRasterizer r(32, 32, looking_down_z(), 4);
    r.clear(kBlack);
    r.draw_triangle(Vec3(-1, -1, 0), Vec3(1, -1, 0), Vec3(-1, 1, 0), {1, 1, 1});
    const Image img = r.resolve();
    int partial = 0;
    for (int x = 0; x < 32; ++x) {
        const int v = img.pixel(x, x)[0];  // the diagonal runs along the hypotenuse
        partial += v > 10 && v < 200;
    }
    EXPECT_GT(partial, 5);
}

TEST(SoftwareRasterizer, DegenerateAndNonFiniteTrianglesAreSkipped) {
    SoftwareRasterizer r(8, 8, looking_down_z(), 1);
    r.clear(kBlack);
    r.draw_triangle(Vec3(0, 0, 0), Vec3(1, 1, 0), Vec3(2, 2, 0), kRed);
    r.draw_triangle(Vec3(0, 0, 0), Vec3(NAN, 1, 0), Vec3(2, 0, 0), kRed);
    EXPECT_EQ(r.triangles_drawn(), 0);
    EXPECT_THROW(SoftwareRasterizer(0, 8, looking_down_z()), std::invalid_argument);
}

TEST(Png, WriteThenReadIsLossless) {
    test::ScratchDir dir("png_roundtrip");
    Image img(7, 5);
    for (std::size_t i = 0; i < img.rgb.size(); ++i) img.rgb[i] = static_cast<std::uint8_t>(i * 37);
    write_png(img, dir.file("a.png"));
    const Image back = read_png(dir.file("a.png"));
    EXPECT_EQ(back.width, 7);
    EXPECT_EQ(back.height, 5);
    EXPECT_EQ(back.rgb, img.rgb);
    EXPECT_TRUE(test::contains(test::error_of([&] { write_png(img, "/nonexistent/x.png"); }),
                               "/nonexistent/x.png: cannot write PNG"));
    test::write_file(dir.file("bad.png"), "not a png");
    EXPECT_TRUE(
        test::contains(test::error_of([&] { read_png(dir.file("bad.png")); }), "cannot read PNG"));
}

}  // namespace
}  // namespace concord
