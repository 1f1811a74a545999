// An elastic chair-like body (scenes/chair-ramp.json: a seat on four legs with three sampled leg
// modes) on a ramp with friction: it sticks below tan(theta) = mu and slides above it.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "concord/scene/scene_parser.hpp"
#include "concord/world/world.hpp"

using namespace concord;

namespace {

// The scene with its ramp at `theta` (rad) and friction mu: the plane through the origin with
// normal (-sin, cos, 0), the chair rotated with it, its feet 2 mm above it.
SceneSpec chair_on_ramp(double theta, double mu) {
    SceneSpec s = load_scene_file(std::string(CONCORD_SOURCE_DIR) + "/scenes/chair-ramp.json");
    const Vec3 n(-std::sin(theta), std::cos(theta), 0.0);
    s.planes[0].normal = n;
    s.planes[0].friction = mu;
    s.bodies[0].friction = mu;
    s.bodies[0].rotation = Eigen::AngleAxisd(theta, Vec3::UnitZ()).toRotationMatrix();
    s.bodies[0].position = 0.402 * n;
    return s;
}

// Mean downhill displacement of the chair's feet (its lowest vertices) since `x0`.
double feet_downhill(const World& w, const Vertices& x0, const std::vector<int>& feet, double theta) {
    const Vertices x = w.world_vertices(0);
    const Vec3 down(-std::cos(theta), -std::sin(theta), 0.0);
    double s = 0.0;
    for (int v : feet) s += (x.row(v) - x0.row(v)).dot(down.transpose());
    return s / static_cast<double>(feet.size());
}

std::vector<int> feet_of(const World& w) {
    std::vector<int> feet;
    const Vertices& X = w.body(0).mesh().vertices;
    for (int v = 0; v < X.rows(); ++v)
        if (X(v, 1) < -0.4 + 1e-9) feet.push_back(v);
    return feet;
}

}  // namespace

TEST(ChairRamp, SticksBelowTheFrictionAngle) {
    // tan(20 deg) = 0.36 < mu = 0.5: the feet stay put (the smooth friction of IPC lets a
    // stuck contact creep at most at eps_v = 1 mm/s: under 0.3 mm over the 0.3 s watched) while
    // the legs sway elastically under the load.
    const double theta = 20.0 * std::numbers::pi / 180.0;
    World w(chair_on_ramp(theta, 0.5));
    const std::vector<int> feet = feet_of(w);
    ASSERT_EQ(feet.size(), 16u);  // four feet, four corners each
    for (int n = 0; n < 40; ++n) w.step();  // land and settle
    const Vertices x0 = w.world_vertices(0);
    for (int n = 0; n < 60; ++n) w.step();
    EXPECT_LT(std::abs(feet_downhill(w, x0, feet, theta)), 3e-4);
    EXPECT_GT(w.modal_coordinates(0).cwiseAbs().maxCoeff(), 1e-4);  // the legs carry the load
}

TEST(ChairRamp, SlidesAboveTheFrictionAngleAtTheCoulombAcceleration) {
    // tan(35 deg) = 0.70 > mu = 0.4: the chair slides with a = g (sin theta - mu cos theta)
    // = 2.41 m/s^2. The acceleration is fitted to the feet's displacement over 0.3 s of
    // sliding; 10 % covers the legs' elastic oscillation and the lagged friction.
    const double theta = 35.0 * std::numbers::pi / 180.0, mu = 0.4, g = 9.81;
    World w(chair_on_ramp(theta, mu));
    const std::vector<int> feet = feet_of(w);
    for (int n = 0; n < 20; ++n) w.step();
    const Vertices x0 = w.world_vertices(0);
    const double h = w.spec().time_step;
    // Least-squares fit of s(t) = s0 + v0 t + a t^2 / 2.
    Eigen::MatrixXd M(60, 3);
    VecX s(60);
    for (int n = 0; n < 60; ++n) {
        w.step();
        const double t = (n + 1) * h;
        M.row(n) << 1.0, t, 0.5 * t * t;
        s[n] = feet_downhill(w, x0, feet, theta);
    }
    const VecX c = M.colPivHouseholderQr().solve(s);
    const double expected = g * (std::sin(theta) - mu * std::cos(theta));
    EXPECT_NEAR(c[2] / expected, 1.0, 0.1) << "fitted a = " << c[2] << ", Coulomb " << expected;
}
