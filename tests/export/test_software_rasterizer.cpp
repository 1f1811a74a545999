#include <gtest/gtest.h>

#include <cmath>

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

TEST(SoftwareRasterizer, SphereIsAShadedDiscThatHidesAndIsHidden) {
    // A sphere of radius 0.5 at the origin, 5 away with a 40 degree field of view, covers a disc
    // of radius 0.5 / 5 / tan(20 deg) * 48 = 13.2 pixels of the 96-pixel-high image.
    SoftwareRasterizer r(96, 96, looking_down_z(), 1);
    r.clear(kBlack);
    r.draw_sphere(Vec3::Zero(), 0.5, kBlue);
    const Image img = r.resolve();
    EXPECT_EQ(r.spheres_drawn(), 1);
    int covered = 0;
    for (int y = 0; y < 96; ++y)
        for (int x = 0; x < 96; ++x) covered += img.pixel(x, y)[2] > 0;
    const double expected = M_PI * std::pow(0.5 / 5.0 / std::tan(20.0 * M_PI / 180.0) * 48, 2);
    EXPECT_NEAR(covered, expected, 0.1 * expected);
    EXPECT_EQ(img.pixel(48 + 16, 48)[2], 0);  // outside the outline
    // Shaded like a sphere: the rim is darker than the middle.
    EXPECT_GT(img.pixel(48, 48)[2], img.pixel(48 - 12, 48)[2]);

    // A triangle in front hides it, one behind is hidden by it, in either order.
    for (bool sphere_first : {true, false}) {
        SoftwareRasterizer s(32, 32, looking_down_z(), 1);
        s.clear(kBlack);
        const auto sphere = [&] { s.draw_sphere(Vec3::Zero(), 0.5, kBlue); };
        if (sphere_first) sphere();
        s.draw_triangle(Vec3(-3, -3, -1), Vec3(3, -3, -1), Vec3(0, 3, -1), kRed);  // behind
        if (!sphere_first) sphere();
        const Image behind = s.resolve();
        EXPECT_GT(behind.pixel(16, 16)[2], 0) << sphere_first;
        EXPECT_EQ(behind.pixel(16, 16)[0], 0) << sphere_first;
        s.draw_triangle(Vec3(-3, -3, 0.6), Vec3(3, -3, 0.6), Vec3(0, 3, 0.6), kRed);  // in front
        const Image front = s.resolve();
        EXPECT_GT(front.pixel(16, 16)[0], 0) << sphere_first;
        EXPECT_EQ(front.pixel(16, 16)[2], 0) << sphere_first;
    }
    // A triangle through the sphere's middle hides its back half only: the centre stays blue.
    SoftwareRasterizer t(32, 32, looking_down_z(), 1);
    t.clear(kBlack);
    t.draw_sphere(Vec3::Zero(), 0.5, kBlue);
    t.draw_triangle(Vec3(-3, -3, 0), Vec3(3, -3, 0), Vec3(0, 3, 0), kRed);
    EXPECT_GT(t.resolve().pixel(16, 16)[2], 0);
    EXPECT_EQ(t.resolve().pixel(16, 16)[0], 0);

    // Behind the camera, through the near plane, off screen or not finite: nothing drawn.
    SoftwareRasterizer u(32, 32, looking_down_z(), 1);
    u.clear(kBlack);
    u.draw_sphere(Vec3(0, 0, 8), 0.5, kBlue);
    u.draw_sphere(Vec3(0, 0, 5), 0.5, kBlue);
    u.draw_sphere(Vec3(40, 0, 0), 0.5, kBlue);
    u.draw_sphere(Vec3(0, std::nan(""), 0), 0.5, kBlue);
    u.draw_sphere(Vec3::Zero(), 0.0, kBlue);
    EXPECT_EQ(u.spheres_drawn(), 0);
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
