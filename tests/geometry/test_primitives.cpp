#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "concord/geometry/mesh_validation.hpp"
#include "concord/geometry/primitives.hpp"
#include "geometry/geometry_test_support.hpp"

using namespace concord;
using concord::test::throws_input_error;

namespace {

struct Expected {
    std::string name;
    TriMesh mesh;
    int vertices, faces, euler;
    Vec3 extent;
    Vec3 box_center = Vec3::Zero();
};

std::vector<Expected> all_primitives() {
    const double fh = std::sqrt(1.0 + 0.25 * 0.25);  // funnel rim shift / thickness, slope 1/4
    return {
        {"box", box(Vec3(1, 2, 3)), 8, 12, 2, Vec3(1, 2, 3)},
        {"icosphere0", icosphere(0.5, 0), 12, 20, 2, Vec3::Constant(2 * 0.5 * 0.85065080835204)},
        {"icosphere3", icosphere(2.0, 3), 642, 1280, 2, Vec3(4, 4, 4)},
        // An odd polygon is not symmetric in x: the axis, not the box centre, is at the origin.
        {"cylinder3", cylinder(1.0, 2.0, 3), 8, 12, 2, Vec3(1.5, 2, std::sqrt(3.0)),
         Vec3(0.25, 0, 0)},
        {"cylinder16", cylinder(0.5, 3.0, 16), 34, 64, 2, Vec3(1, 3, 1)},
        // Capsule: 2 poles + 2 rings per latitude step, 4 * segments * rings triangles.
        {"capsule", capsule(0.5, 1.0, 12, 3), 2 + 12 * 6, 4 * 12 * 3, 2, Vec3(1, 2, 1)},
        {"capsule_one_ring", capsule(1.0, 0.5, 4, 1), 2 + 4 * 2, 4 * 4 * 1, 2, Vec3(2, 2.5, 2)},
        {"torus", torus(2.0, 0.5, 16, 8), 128, 256, 0, Vec3(5, 1, 5)},
        {"container", open_box_container(Vec3(1, 2, 3), 0.1), 16, 28, 2, Vec3(1.2, 2.1, 3.2)},
        {"funnel", funnel(1.0, 0.5, 2.0, 0.1, 16), 64, 128, 0,
         Vec3(2 * (1.0 + 0.1 * fh), 2.0, 2 * (1.0 + 0.1 * fh))},
    };
}

}  // namespace

TEST(Primitives, ClosedManifoldOutwardNonDegenerate) {
    for (const Expected& e : all_primitives()) {
        SCOPED_TRACE(e.name);
        const TriMesh& m = e.mesh;
        const MeshReport r = validate_mesh(m);
        EXPECT_TRUE(r.closed);
        EXPECT_TRUE(r.manifold);
        EXPECT_TRUE(r.consistently_oriented);
        EXPECT_FALSE(r.has_degenerate_faces);
        EXPECT_FALSE(r.has_duplicate_faces);
        EXPECT_TRUE(r.outward);
        EXPECT_TRUE(r.ok());
        EXPECT_TRUE(r.problems.empty()) << (r.problems.empty() ? "" : r.problems.front());
        EXPECT_TRUE(r.warnings.empty());
        EXPECT_NO_THROW(require_closed_oriented(m, e.name));
        EXPECT_EQ(m.num_vertices(), e.vertices);
        EXPECT_EQ(m.num_faces(), e.faces);
        EXPECT_EQ(m.num_vertices() - m.num_edges() + m.num_faces(), e.euler);
    }
}

TEST(Primitives, CentredAtOrigin) {
    for (const Expected& e : all_primitives()) {
        SCOPED_TRACE(e.name);
        const AABB b = e.mesh.bounds();
        EXPECT_LT((b.center() - e.box_center).cwiseAbs().maxCoeff(), 1e-12);
        EXPECT_LT((b.extent() - e.extent).cwiseAbs().maxCoeff(), 1e-12)
            << b.extent().transpose() << " vs " << e.extent.transpose();
    }
}

TEST(Primitives, RoundShapesHaveVerticesOnTheirSurface) {
    const TriMesh sphere = icosphere(1.5, 3);
    for (int v = 0; v < sphere.num_vertices(); ++v) {
        EXPECT_NEAR(Vec3(sphere.vertices.row(v)).norm(), 1.5, 1e-14);
    }
    const TriMesh tube = torus(2.0, 0.5, 16, 8);
    for (int v = 0; v < tube.num_vertices(); ++v) {
        const Vec3 p = tube.vertices.row(v);
        const double ring = std::hypot(p.x(), p.z()) - 2.0;
        EXPECT_NEAR(std::hypot(ring, p.y()), 0.5, 1e-14);
    }
    const TriMesh pill = capsule(0.5, 1.0, 12, 3);
    for (int v = 0; v < pill.num_vertices(); ++v) {
        const Vec3 p = pill.vertices.row(v);
        const double axial = std::max(0.0, std::abs(p.y()) - 0.5);  // distance past the band
        EXPECT_NEAR(std::hypot(std::hypot(p.x(), p.z()), axial), 0.5, 1e-14);
    }
}

TEST(Primitives, FunnelWallHasRequestedThickness) {
    // Every outer vertex lies at the requested distance from the inner surface's meridian line.
    const double rt = 1.0, rb = 0.5, h = 2.0, t = 0.1;
    const TriMesh m = funnel(rt, rb, h, t, 12);
    const Vec2 a(rb, -h / 2), b(rt, h / 2);
    const Vec2 normal = Vec2(b.y() - a.y(), -(b.x() - a.x())).normalized();  // outward in (r, y)
    int outer = 0;
    for (int v = 0; v < m.num_vertices(); ++v) {
        const Vec3 p = m.vertices.row(v);
        const Vec2 q(std::hypot(p.x(), p.z()), p.y());
        const double d = (q - a).dot(normal);
        if (d > 1e-9) {
            EXPECT_NEAR(d, t, 1e-14);
            ++outer;
        } else {
            EXPECT_NEAR(d, 0.0, 1e-14);
        }
    }
    EXPECT_EQ(outer, 24);
}

TEST(Primitives, RejectBadParameters) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    struct Case {
        std::function<void()> make;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {[] { box(Vec3(1, 0, 1)); },
         "box: size must be positive and finite in x, y and z, got (1, 0, 1)"},
        {[&] { box(Vec3(1, nan, 1)); }, "box: size must be positive"},
        {[] { icosphere(-1.0, 2); }, "icosphere: radius must be positive and finite, got -1"},
        {[] { icosphere(1.0, 9); }, "icosphere: subdivisions must be in [0, 8], got 9"},
        {[] { icosphere(1.0, -1); }, "icosphere: subdivisions must be in [0, 8], got -1"},
        {[&] { cylinder(inf, 1.0, 8); }, "cylinder: radius must be positive and finite, got inf"},
        {[] { cylinder(1.0, 0.0, 8); }, "cylinder: height must be positive"},
        {[] { cylinder(1.0, 1.0, 2); }, "cylinder: segments must be in [3, 65536], got 2"},
        {[] { capsule(1.0, 0.0, 8, 2); }, "capsule: cylinder_height must be positive"},
        {[] { capsule(1.0, 1.0, 8, 0); }, "capsule: rings must be in [1, 65536], got 0"},
        {[] { torus(1.0, 1.0, 8, 8); },
         "torus: minor radius 1 must be smaller than major radius 1"},
        {[] { torus(1.0, 0.5, 8, 2); }, "torus: minor_segments must be in [3, 65536], got 2"},
        {[] { open_box_container(Vec3(1, 1, 1), 0.0); },
         "open_box_container: wall_thickness must be positive"},
        {[] { open_box_container(Vec3(1, -1, 1), 0.1); },
         "open_box_container: inner_size must be positive"},
        {[&] { funnel(1.0, 0.5, 1.0, nan, 8); },
         "funnel: wall_thickness must be positive and finite, got nan"},
        {[] { funnel(1.0, 0.0, 1.0, 0.1, 8); }, "funnel: bottom_radius must be positive"},
        {[] { funnel(1.0, 0.5, 1.0, 0.1, 1); }, "funnel: segments must be in [3, 65536], got 1"},
    };
    for (const Case& c : cases) EXPECT_TRUE(throws_input_error(c.make, c.expected));
}
