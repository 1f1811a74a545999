// build_world_model: the bodies of an array share their shape's mesh and mass properties, built
// once, and every body comes out as build_body makes it alone.
#include <gtest/gtest.h>

#include "concord/body/body_builder.hpp"
#include "concord/world/world_model.hpp"
#include "world_test_util.hpp"

using namespace concord;
using namespace concord::test;

namespace {

void expect_same_body(const AffineBody& a, const AffineBody& b) {
    EXPECT_EQ(a.mesh().vertices, b.mesh().vertices);
    EXPECT_EQ(a.mesh().faces, b.mesh().faces);
    EXPECT_EQ(a.mesh().edges, b.mesh().edges);
    EXPECT_EQ(a.mass_properties.mass, b.mass_properties.mass);
    EXPECT_EQ(a.mass_properties.center_of_mass, b.mass_properties.center_of_mass);
    EXPECT_EQ(a.mass_properties.second_moment, b.mass_properties.second_moment);
    EXPECT_EQ(a.mass_properties.inertia_about_com, b.mass_properties.inertia_about_com);
    EXPECT_EQ(a.mass_matrix, b.mass_matrix);
    EXPECT_EQ(a.bounding_radius, b.bounding_radius);
    EXPECT_EQ(a.q_initial, b.q_initial);
    EXPECT_EQ(a.stiffness, b.stiffness);
}

}  // namespace

TEST(WorldModel, BodiesOfOneShapeAreBuiltAsEachAlone) {
    SceneSpec s;
    s.time_step = 0.01;
    BodySpec ball = box_body("ball", Vec3(0, 1, 0));
    ball.shape.kind = ShapeKind::Sphere;
    ball.shape.radius = 0.1;
    ball.shape.subdivisions = 2;
    for (int i = 0; i < 3; ++i) {
        BodySpec b = ball;
        b.name = "ball" + std::to_string(i);
        b.position = Vec3(0.3 * i, 1, 0);
        s.bodies.push_back(b);
    }
    BodySpec heavy = ball;  // the same shape, another density: its own mass
    heavy.name = "heavy";
    heavy.material.density = 3000.0;
    heavy.position = Vec3(1.0, 1, 0);
    s.bodies.push_back(heavy);
    BodySpec big = ball;  // another shape
    big.name = "big";
    big.shape.radius = 0.2;
    big.position = Vec3(2.0, 1, 0);
    s.bodies.push_back(big);

    const WorldModel m = build_world_model(s);
    ASSERT_EQ(m.bodies.size(), s.bodies.size());
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
        SCOPED_TRACE(s.bodies[i].name);
        expect_same_body(m.bodies[i], build_body(s.bodies[i]));
    }
    EXPECT_NEAR(m.bodies[3].mass_properties.mass, 3.0 * m.bodies[0].mass_properties.mass,
                1e-12 * m.bodies[3].mass_properties.mass);
    EXPECT_GT(m.bodies[4].bounding_radius, 1.9 * m.bodies[0].bounding_radius);
}
