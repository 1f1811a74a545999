#include "concord/fluid/fluid_sampling.hpp"

#include <gtest/gtest.h>

#include <random>

#include "concord/geometry/primitives.hpp"

namespace concord {
namespace {

TEST(FluidSampling, BoxLatticeKeepsHalfASpacingFromTheWalls) {
    const auto p = box_lattice(Vec3(0, 0, 0), Vec3(0.1, 0.2, 0.05), 0.02);
    ASSERT_EQ(p.size(), 5u * 10u * 2u);
    EXPECT_EQ(box_lattice_count(Vec3(0, 0, 0), Vec3(0.1, 0.2, 0.05), 0.02), 100);
    for (const Vec3& x : p) {
        EXPECT_GE(x.minCoeff(), 0.01 - 1e-12);
        EXPECT_LE(x.x(), 0.09 + 1e-12);
    }
    EXPECT_EQ(box_lattice_count(Vec3(0, 0, 0), Vec3(-1, 1, 1), 0.1), 0);
}

TEST(FluidSampling, PointInClosedMeshAgreesWithTheSphere) {
    const TriMesh s = icosphere(1.0, 3);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.3, 1.3);
    int wrong = 0;
    for (int i = 0; i < 2000; ++i) {
        const Vec3 x(u(rng), u(rng), u(rng));
        const double r = x.norm();
        if (std::abs(r - 0.99) < 0.02) continue;  // between the inscribed mesh and the sphere
        if (point_in_closed_mesh(s, x) != (r < 0.99)) ++wrong;
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_TRUE(point_in_closed_mesh(box(Vec3(1, 1, 1)), Vec3(0, 0, 0)));
    EXPECT_TRUE(point_in_closed_mesh(box(Vec3(1, 1, 1)), Vec3(0.25, 0.25, 0.25)));
    EXPECT_FALSE(point_in_closed_mesh(box(Vec3(1, 1, 1)), Vec3(0.6, 0, 0)));
}

TEST(FluidSampling, MeshInsideGivesTheRayTestsAnswersAndSkipsMostRays) {
    // The grid's answers are point_in_closed_mesh's everywhere (random points over and around
    // the bounds, and points near the surface) for a sphere, a tank with its cavity, a torus
    // (two regions outside: the hole and the rest) and a box one cell thick; then a deep point
    // of the sphere, the tank's cavity, a point far outside and an empty grid.
    std::mt19937 rng(11);
    const std::vector<TriMesh> meshes = {icosphere(1.0, 3),
                                         open_box_container(Vec3(1.0, 0.5, 0.4), 0.02),
                                         torus(1.0, 0.3, 24, 12), box(Vec3(2.0, 0.01, 1.0))};
    for (std::size_t m = 0; m < meshes.size(); ++m) {
        const TriMesh& mesh = meshes[m];
        const MeshInside inside(mesh);
        const AABB b = mesh.bounds();
        const Vec3 lo = b.min - 0.1 * (b.max - b.min), hi = b.max + 0.1 * (b.max - b.min);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        int differ = 0, in = 0;
        for (int i = 0; i < 20000; ++i) {
            const Vec3 x = lo + Vec3(u(rng), u(rng), u(rng)).cwiseProduct(hi - lo);
            const bool want = point_in_closed_mesh(mesh, x);
            differ += inside.contains(mesh, x) != want;
            in += want;
        }
        // Near the surface: vertices pushed a little in and out.
        for (int v = 0; v < mesh.num_vertices(); ++v) {
            const Vec3 p = mesh.vertices.row(v).transpose();
            for (const double s : {0.999, 1.001}) {
                const Vec3 x = b.center() + s * (p - b.center());
                differ += inside.contains(mesh, x) != point_in_closed_mesh(mesh, x);
            }
        }
        EXPECT_EQ(differ, 0) << "mesh " << m;
        EXPECT_GT(in, 0) << "mesh " << m;
    }
    const TriMesh sphere = icosphere(1.0, 3);
    EXPECT_TRUE(MeshInside(sphere).contains(sphere, Vec3(0.1, -0.2, 0.05)));
    const TriMesh tank = open_box_container(Vec3(1.0, 0.5, 0.4), 0.02);
    EXPECT_FALSE(MeshInside(tank).contains(tank, tank.bounds().center()));
    EXPECT_FALSE(MeshInside(tank).contains(tank, Vec3(5, 0, 0)));
    EXPECT_FALSE(MeshInside().contains(tank, Vec3::Zero()));  // an empty grid: nothing inside
}

TEST(FluidSampling, MeshLatticeFillsTheVolume) {
    const TriMesh s = icosphere(0.5, 3);  // inscribed: 1.2 % less volume than the sphere
    const double h = 0.025;
    const auto p = mesh_lattice(s, h);
    const double volume = 4.0 / 3.0 * 3.14159265358979 * 0.125;
    EXPECT_NEAR(static_cast<double>(p.size()) * h * h * h, 0.988 * volume, 0.02 * volume);
}

TEST(FluidSampling, SurfaceSamplesAreNoFartherApartThanTheSpacing) {
    const TriMesh b = box(Vec3(0.3, 0.2, 0.1));
    const double s = 0.01;
    const auto pts = sample_surface(b, s);
    // Every point of the surface has a sample within s (checked on random surface points).
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int t = 0; t < 300; ++t) {
        const int f = static_cast<int>(u(rng) * b.num_faces()) % b.num_faces();
        double a = u(rng), c = u(rng);
        if (a + c > 1) a = 1 - a, c = 1 - c;
        const Vec3 A = b.vertices.row(b.faces(f, 0)).transpose(),
                   B = b.vertices.row(b.faces(f, 1)).transpose(),
                   C = b.vertices.row(b.faces(f, 2)).transpose();
        const Vec3 x = A + a * (B - A) + c * (C - A);
        double best = 1e9;
        for (const Vec3& q : pts) best = std::min(best, (q - x).norm());
        EXPECT_LT(best, s);
    }
    // No sample repeated (shared edges are sampled once).
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (std::size_t j = i + 1; j < pts.size(); ++j) ASSERT_GT((pts[i] - pts[j]).norm(), 1e-9);
}

}  // namespace
}  // namespace concord
