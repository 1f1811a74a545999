// The per-body spare speed of the overlap width: what can come at a body within a step.
#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>

#include "concord/distributed/approach_speed.hpp"
#include "distributed_test_util.hpp"

using namespace concord;
using namespace concord::test;

namespace {

struct Fixture {
    WorldModel model;
    std::vector<RestBound> rest;
    VecX q, q_dot;

    explicit Fixture(const SceneSpec& s) : model(build_world_model(s, false)) {
        for (const AffineBody& b : model.bodies) rest.push_back(rest_bound(b));
        const WorldState st = model.initial_world_state();
        q = st.q;
        q_dot = st.q_dot;
    }
    std::vector<double> speeds(double h, double alpha, double dhat) const {
        return ApproachSpeeds(model, rest, q)(q, q_dot, h, alpha * h, dhat);
    }
};

SceneSpec floating(std::vector<BodySpec> bodies) {
    SceneSpec s;
    s.name = "floating";
    s.time_step = 0.01;
    s.gravity = Vec3::Zero();
    s.contact.dhat = 1e-3;
    s.bodies = std::move(bodies);
    return s;
}

BodySpec moving(const std::string& name, const Vec3& x, const Vec3& v,
                const Vec3& size = Vec3::Ones()) {
    BodySpec b = box(name, x, size);
    b.velocity = v;
    return b;
}

}  // namespace

// A lattice falling as one: nothing comes at any of its bodies, whatever their speed.
TEST(ApproachSpeeds, BodiesMovingTogetherNeedNoSpare) {
    std::vector<BodySpec> bodies;
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j)
            bodies.push_back(moving("b" + std::to_string(i) + std::to_string(j),
                                    Vec3(1.002 * i, 1.002 * j, 0), Vec3(0.3, -1.4, 0.2)));
    Fixture f(floating(bodies));
    for (double v : f.speeds(0.01, 2.0, 1e-3)) EXPECT_EQ(v, 0.0);
}

// Two boxes closing at 2 m/s: within reach (gap <= alpha h v + dhat) both take the relative
// speed; a little farther, neither does.
TEST(ApproachSpeeds, ABodyWithinReachLendsItsRelativeSpeed) {
    const double h = 0.01, alpha = 2.0, dhat = 1e-3;
    const double reach = alpha * h * 2.0 + dhat;
    for (const double gap : {0.5 * reach, 0.999 * reach, 1.001 * reach, 3.0 * reach}) {
        Fixture f(floating({moving("a", Vec3(0, 0, 0), Vec3(1.5, 0, 0)),
                            moving("b", Vec3(1.0 + gap, 0, 0), Vec3(-0.5, 0, 0)),
                            moving("far", Vec3(20, 0, 0), Vec3(0, 3, 0))}));
        const std::vector<double> s = f.speeds(h, alpha, dhat);
        const double expected = gap <= reach ? 2.0 : 0.0;
        EXPECT_NEAR(s[0], expected, 1e-8) << gap;
        EXPECT_NEAR(s[1], expected, 1e-8) << gap;
        EXPECT_EQ(s[2], 0.0);
    }
}

// Still things: a ground plane and a static body's triangles lend a body its own predicted
// speed (v + h g) when it can reach them.
TEST(ApproachSpeeds, GroundPlanesAndStaticTrianglesLendTheBodysOwnSpeed) {
    const double h = 0.01, dhat = 1e-3;
    SceneSpec s = floating({moving("low", Vec3(0, 0.5 + 0.02, 0), Vec3(0, -1.0, 0)),
                            moving("high", Vec3(3, 0.5 + 0.2, 0), Vec3(0, -1.0, 0))});
    s.gravity = Vec3(0, -10.0, 0);
    s.planes = {PlaneSpec{Vec3::Zero(), Vec3::UnitY(), std::nullopt}};
    {
        Fixture f(s);
        const std::vector<double> v = f.speeds(h, 2.0, dhat);
        EXPECT_NEAR(v[0], 1.1, 1e-8);  // |-1 - 0.01 * 10|: reach 2.3 cm > 2 cm
        EXPECT_EQ(v[1], 0.0);
    }
    // The same in a static container instead of over the plane: its triangles count, not its
    // box (which holds every body inside it).
    s.planes.clear();
    BodySpec bin;
    bin.name = "bin";
    bin.shape.kind = ShapeKind::Container;
    bin.shape.size = Vec3(10, 4, 10);
    bin.shape.wall_thickness = 0.1;
    bin.material = {1000.0, 1e8};
    bin.motion = MotionType::Static;
    s.bodies.push_back(bin);
    // Its floor's top: the second lowest height of its vertices (under it, the outer bottom).
    std::set<double> heights;
    {
        const WorldModel m = build_world_model(s, false);
        const AffineBody& b = m.bodies[2];
        for (Eigen::Index i = 0; i < b.mesh().vertices.rows(); ++i)
            heights.insert(
                affine_apply(b.q_initial, Vec3(b.mesh().vertices.row(i).transpose())).y());
    }
    const double floor = *std::next(heights.begin());
    s.bodies[0].position.y() += floor;
    s.bodies[1].position.y() += floor;
    Fixture f(s);
    const std::vector<double> v = f.speeds(h, 2.0, dhat);
    EXPECT_NEAR(v[0], 1.1, 1e-8);
    EXPECT_EQ(v[1], 0.0);
    EXPECT_EQ(v[2], 0.0);  // static
}

// Spin counts where it moves the box: a cube turning about z sweeps its x and y faces out at
// about half its width times the rate; a sphere turning in place keeps its box.
TEST(ApproachSpeeds, SpinCountsWhereItMovesTheBox) {
    BodySpec cube = box("cube", Vec3(0, 0, 0));
    cube.angular_velocity = Vec3(0, 0, 10.0);
    BodySpec ball;
    ball.name = "ball";
    ball.shape.kind = ShapeKind::Sphere;
    ball.shape.radius = 0.5;
    ball.shape.subdivisions = 2;
    ball.material = {1000.0, 1e8};
    ball.position = Vec3(0, 3, 0);
    ball.angular_velocity = Vec3(0, 0, 10.0);
    Fixture f(
        floating({cube, box("still", Vec3(1.01, 0, 0)), ball, box("under", Vec3(0, 1.998, 0))}));
    const std::vector<double> v = f.speeds(0.01, 2.0, 1e-3);
    EXPECT_NEAR(v[0], 5.0, 1e-6);  // d/dt of 0.5 (1 + 10 t)
    EXPECT_EQ(v[1], v[0]);
    EXPECT_LT(v[2], 1e-3);  // the sphere bound stretches by sqrt(1 + (10 t)^2): second order
    EXPECT_EQ(v[3], v[2]);
}

// The sweep finds exactly the pairs a test of every pair finds, in random scenes.
TEST(ApproachSpeeds, TheSweepMatchesEveryPair) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const double h = 0.01, alpha = 2.0, dhat = 1e-3;
    for (int trial = 0; trial < 5; ++trial) {
        std::vector<BodySpec> bodies;
        for (int i = 0; i < 60; ++i) {
            BodySpec b = moving(
                "b" + std::to_string(i), Vec3(1.5 * u(rng), 1.5 * u(rng), 1.5 * u(rng)),
                Vec3(5 * u(rng), 5 * u(rng), 5 * u(rng)), Vec3(0.2 + 0.1 * u(rng), 0.2, 0.3));
            b.angular_velocity = Vec3(u(rng), u(rng), u(rng));
            bodies.push_back(b);
        }
        Fixture f(floating(bodies));
        const std::vector<double> fast = f.speeds(h, alpha, dhat);
        std::vector<double> slow(bodies.size(), 0.0);
        const int n = f.model.num_bodies();
        for (int a = 0; a < n; ++a)
            for (int c = a + 1; c < n; ++c) {
                const auto ia = static_cast<std::size_t>(a), ic = static_cast<std::size_t>(c);
                const Box3 A =
                    world_box(f.model.bodies[ia], f.rest[ia], f.model.body_coordinates(f.q, a));
                const Box3 C =
                    world_box(f.model.bodies[ic], f.rest[ic], f.model.body_coordinates(f.q, c));
                const double rel = relative_speed(
                    box_velocity(f.model.bodies[ia], f.rest[ia], f.model.body_coordinates(f.q, a),
                                 f.model.body_coordinates(f.q_dot, a), 1e-4 * h),
                    box_velocity(f.model.bodies[ic], f.rest[ic], f.model.body_coordinates(f.q, c),
                                 f.model.body_coordinates(f.q_dot, c), 1e-4 * h));
                Box3 grown = A;
                grown.inflate(alpha * h * rel + dhat);
                if (!grown.overlaps(C)) continue;
                slow[ia] = std::max(slow[ia], rel);
                slow[ic] = std::max(slow[ic], rel);
            }
        int touched = 0;
        for (std::size_t b = 0; b < slow.size(); ++b) {
            EXPECT_EQ(fast[b], slow[b]) << trial << " " << b;
            touched += slow[b] > 0.0;
        }
        EXPECT_GT(touched, 5);  // the scenes have pairs to find
    }
}
