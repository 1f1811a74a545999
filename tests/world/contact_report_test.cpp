// report_contacts: the active pairs of a world's current state, their distances and forces.
#include <gtest/gtest.h>

#include <cmath>

#include "concord/collision/barrier/barrier.hpp"
#include "concord/world/contact_report.hpp"
#include "concord/world/world.hpp"
#include "world_test_util.hpp"

using namespace concord;
using concord::test::box_body;

namespace {

constexpr double kH = 0.01;

// A 1 m cube (1000 kg) released 0.5 mm above the plane y = 0, stepped until it rests.
World resting_box(int steps) {
    SceneSpec s;
    s.time_step = kH;
    s.contact.dhat = 1e-3;
    s.planes.push_back({Vec3::Zero(), Vec3::UnitY(), std::nullopt});
    s.bodies.push_back(box_body("box", Vec3(0, 0.5 + 5e-4, 0)));
    World w(s);
    for (int i = 0; i < steps; ++i) w.step();
    return w;
}

}  // namespace

// At rest the barrier carries the weight: the implicit Euler balance M (q - q~) / h^2 = -grad B
// with q = q^t (no velocity) gives sum of kappa |db/dd| = m g h^2, i.e. sum of `force` = m g.
// Tolerance 1%: the Newton residual (abs_tol 1e-3 of the gravity load per body) and the
// remaining settling velocity after 60 steps stay well below it.
TEST(ContactReport, BoxRestingOnAPlaneCarriesItsWeight) {
    const World w = resting_box(60);
    const ContactReport r = report_contacts(w);
    EXPECT_EQ(r.time, w.time());
    EXPECT_EQ(r.dhat, 1e-3);
    EXPECT_EQ(r.time_step, kH);
    EXPECT_GT(r.barrier_stiffness, 0.0);
    ASSERT_EQ(r.contacts.size(), 4u) << "the four bottom corners";
    const double m = w.body(0).mass_properties.mass;
    EXPECT_NEAR(m, 1000.0, 1e-9);
    double total = 0.0, total_barrier = 0.0;
    for (const ContactInfo& c : r.contacts) {
        EXPECT_EQ(c.kind, ContactKind::PointPlane);
        EXPECT_EQ(c.body_a, 0);
        EXPECT_EQ(c.body_b, 0) << "plane index";
        EXPECT_EQ(c.element_b, 0);
        // The reported vertex is a bottom corner and its distance is its height (to rounding:
        // world_vertices and the contact surface evaluate p + A X in different orders).
        const Vertices x = w.world_vertices(0);
        EXPECT_NEAR(c.distance, x(c.element_a, 1), 1e-12);
        EXPECT_GT(c.distance, 0.0);
        EXPECT_LT(c.distance, r.dhat);
        EXPECT_DOUBLE_EQ(c.force * kH * kH, c.barrier_force);
        total += c.force;
        total_barrier += c.barrier_force;
    }
    EXPECT_NEAR(total, m * 9.81, 0.01 * m * 9.81);
    EXPECT_NEAR(total_barrier, m * 9.81 * kH * kH, 0.01 * m * 9.81 * kH * kH);
}

// barrier_force is kappa |d b(d^2) / d d|: compare with a central difference in the distance.
TEST(ContactReport, BarrierForceMatchesFiniteDifferenceOfTheBarrier) {
    const World w = resting_box(20);
    const ContactReport r = report_contacts(w);
    ASSERT_FALSE(r.contacts.empty());
    const double dhat_sq = r.dhat * r.dhat;
    for (const ContactInfo& c : r.contacts) {
        const double d = c.distance, eps = 1e-6 * d;
        const double fd = (barrier((d + eps) * (d + eps), dhat_sq) -
                           barrier((d - eps) * (d - eps), dhat_sq)) /
                          (2 * eps);
        EXPECT_NEAR(c.barrier_force, r.barrier_stiffness * std::abs(fd), 1e-6 * c.barrier_force);
    }
}

TEST(ContactReport, NoContactsFarFromEverything) {
    SceneSpec s;
    s.planes.push_back({Vec3::Zero(), Vec3::UnitY(), std::nullopt});
    s.bodies.push_back(box_body("a", Vec3(0, 2, 0)));
    s.bodies.push_back(box_body("b", Vec3(0, 4, 0)));
    const World w(s);
    const ContactReport r = report_contacts(w);
    EXPECT_TRUE(r.contacts.empty());
    EXPECT_EQ(r.time, 0.0);
}

// A box resting on a static box: every pair is between the two bodies, with body-local element
// indices in range, and the corners of the top box push on the base's top face.
TEST(ContactReport, BoxOnStaticBoxReportsBodyPairsWithLocalIndices) {
    SceneSpec s;
    s.time_step = kH;
    BodySpec base = box_body("base", Vec3(0, 0, 0), Vec3(2, 1, 2));
    base.motion = MotionType::Static;
    s.bodies.push_back(base);
    s.bodies.push_back(box_body("top", Vec3(0.1, 1.0 + 5e-4, 0.05), Vec3(0.5, 1, 0.5)));
    World w(s);
    for (int i = 0; i < 30; ++i) w.step();
    const ContactReport r = report_contacts(w);
    ASSERT_GE(r.contacts.size(), 4u);
    double total_pt = 0.0;
    for (const ContactInfo& c : r.contacts) {
        ASSERT_NE(c.kind, ContactKind::PointPlane);
        EXPECT_NE(c.body_a, c.body_b);
        EXPECT_TRUE(c.body_a == 0 || c.body_a == 1);
        EXPECT_TRUE(c.body_b == 0 || c.body_b == 1);
        EXPECT_LT(c.distance, r.dhat);
        EXPECT_GT(c.distance, 0.0);
        const TriMesh& ma = w.body(c.body_a).mesh();
        const TriMesh& mb = w.body(c.body_b).mesh();
        if (c.kind == ContactKind::PointTriangle) {
            EXPECT_LT(c.element_a, ma.num_vertices());
            EXPECT_LT(c.element_b, static_cast<int>(mb.faces.rows()));
            // The top box's bottom corners on the base's top face.
            if (c.body_a == 1) total_pt += c.force;
        } else {
            EXPECT_LT(c.element_a, static_cast<int>(ma.edges.rows()));
            EXPECT_LT(c.element_b, static_cast<int>(mb.edges.rows()));
        }
        EXPECT_GE(c.element_a, 0);
        EXPECT_GE(c.element_b, 0);
    }
    EXPECT_GT(total_pt, 0.0);
}
