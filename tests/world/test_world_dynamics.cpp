// Validation of the single-machine simulator against analytic results.
#include <gtest/gtest.h>

#include "concord/world/world.hpp"
#include "world_test_util.hpp"

using namespace concord;
using concord::test::box_body;

// Implicit Euler under constant gravity: v_n = n h g, y_n = y_0 + h^2 g n (n + 1) / 2 exactly,
// and a rigid body stays rigid (A = I) to round-off.
TEST(WorldDynamics, FreeFallMatchesDiscreteImplicitEuler) {
    SceneSpec s;
    s.time_step = 0.01;
    s.bodies.push_back(box_body("box", Vec3(0, 2, 0)));
    World w(s);
    const int n = 50;
    for (int i = 0; i < n; ++i) {
        const StepStats& st = w.step();
        EXPECT_TRUE(st.converged);
    }
    const double h = s.time_step, g = -9.81;
    const double expected_y = 2.0 + h * h * g * n * (n + 1) / 2.0;
    EXPECT_NEAR(w.q(0)[1], expected_y, 1e-9);
    EXPECT_NEAR(w.q(0)[0], 0.0, 1e-12);
    EXPECT_NEAR(w.q_dot(0)[1], n * h * g, 1e-7);
    const Mat3 A = affine_matrix(w.q(0));
    EXPECT_LT((A - Mat3::Identity()).norm(), 1e-9);
}

// A box dropped a little above the ground comes to rest on it: it never penetrates, ends
// within dhat of the plane and its velocity decays to (nearly) zero.
TEST(WorldDynamics, BoxComesToRestOnGround) {
    SceneSpec s;
    s.time_step = 0.01;
    s.planes.push_back(PlaneSpec{});
    s.bodies.push_back(box_body("box", Vec3(0, 0.52, 0)));
    World w(s);
    double min_gap = 1e9;
    for (int i = 0; i < 100; ++i) {
        const StepStats& st = w.step();
        const Vertices x = w.world_vertices(0);
        const double gap = x.col(1).minCoeff();
        min_gap = std::min(min_gap, gap);
        ASSERT_GT(gap, 0.0) << "penetration at step " << i;
        EXPECT_GE(st.min_distance, 0.0);
    }
    const Vertices x = w.world_vertices(0);
    const double gap = x.col(1).minCoeff();
    EXPECT_LT(gap, s.contact.dhat);
    EXPECT_GT(gap, 0.0);
    EXPECT_LT(w.q_dot(0).head<3>().norm(), 1e-2);
    EXPECT_GT(w.last_stats().contacts, 0);
}
