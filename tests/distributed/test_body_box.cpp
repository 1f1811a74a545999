// World-space boxes of bodies (the partition's holders and homes): conservative for every
// affine state, and tight for round bodies whatever their rotation.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "concord/body/body_builder.hpp"
#include "concord/distributed/body_box.hpp"

using namespace concord;

namespace {

AffineBody body_of(ShapeKind kind) {
    BodySpec b;
    b.name = "b";
    b.shape.kind = kind;
    b.shape.size = Vec3(0.3, 0.1, 0.2);
    b.shape.radius = 0.1;
    b.shape.subdivisions = 2;
    b.material = {1000.0, 1e8};
    return build_body(b);
}

// q of a rotation R (row-major A) about the origin, then translated by p.
Vec12 pose(const Mat3& A, const Vec3& p) {
    Vec12 q;
    q.head<3>() = p;
    for (int i = 0; i < 3; ++i) q.segment<3>(3 + 3 * i) = A.row(i).transpose();
    return q;
}

}  // namespace

// Every vertex of the mapped mesh lies in the box, for rotations, stretches and shears.
TEST(BodyBox, HoldsEveryVertexOfTheMappedMesh) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (ShapeKind kind :
         {ShapeKind::Box, ShapeKind::Sphere, ShapeKind::Capsule, ShapeKind::Cylinder}) {
        const AffineBody body = body_of(kind);
        const RestBound rest = rest_bound(body);
        for (int trial = 0; trial < 200; ++trial) {
            Mat3 A = Eigen::AngleAxisd(M_PI * u(rng), Vec3(u(rng), u(rng), u(rng)).normalized())
                         .toRotationMatrix();
            if (trial % 2) A += 0.2 * Mat3::NullaryExpr([&] { return u(rng); });  // not a rotation
            const Vec12 q = pose(A, Vec3(u(rng), u(rng), u(rng)));
            const Box3 b = world_box(rest, q);
            const auto& V = body.mesh().vertices;
            for (Eigen::Index v = 0; v < V.rows(); ++v) {
                const Vec3 x = affine_apply(q, V.row(v).transpose());
                for (int i = 0; i < 3; ++i) {
                    EXPECT_GE(x[i], b.lo[i] - 1e-12) << "shape " << static_cast<int>(kind);
                    EXPECT_LE(x[i], b.hi[i] + 1e-12) << "shape " << static_cast<int>(kind);
                }
            }
        }
    }
}

// A sphere turned by 45 degrees about y: the box of its mapped rest box is sqrt(2) times its
// diameter along x and z; the mapped bounding sphere keeps it at the diameter (the icosphere's
// vertices lie on the sphere), so a plane 0.11 from its centre no longer finds it.
TEST(BodyBox, ARotatedSphereKeepsItsDiameter) {
    const AffineBody body = body_of(ShapeKind::Sphere);
    const RestBound rest = rest_bound(body);
    EXPECT_NEAR(rest.radius, 0.1, 1e-12);
    const Mat3 R = Eigen::AngleAxisd(M_PI / 4, Vec3::UnitY()).toRotationMatrix();
    const Box3 b = world_box(rest, pose(R, Vec3(1, 2, 3)));
    for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(b.hi[i] - b.lo[i], 0.2, 1e-12) << "axis " << i;
        EXPECT_NEAR(b.center()[i], Vec3(1, 2, 3)[i], 1e-12) << "axis " << i;
    }
    // The box, axis-aligned, is as before: its corners' image is the tighter bound there.
    const AffineBody box = body_of(ShapeKind::Box);
    const Box3 c = world_box(rest_bound(box), pose(Mat3::Identity(), Vec3::Zero()));
    EXPECT_NEAR(c.hi.x() - c.lo.x(), 0.3, 1e-12);
    EXPECT_NEAR(c.hi.y() - c.lo.y(), 0.1, 1e-12);
    EXPECT_NEAR(c.hi.z() - c.lo.z(), 0.2, 1e-12);
}
