#include <gtest/gtest.h>

#include <random>

#include "concord/export/polar_trs.hpp"
#include "concord/geometry/mesh.hpp"

namespace concord {
namespace {

TriMesh unit_cube() {
    Vertices v(8, 3);
    for (int i = 0; i < 8; ++i)
        v.row(i) << (i & 1 ? 0.5 : -0.5), (i & 2 ? 0.5 : -0.5), (i & 4 ? 0.5 : -0.5);
    Faces f(1, 3);
    f << 0, 1, 2;
    return make_mesh(v, f);
}

TEST(PolarTrs, RigidMotionIsExact) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int trial = 0; trial < 50; ++trial) {
        AffineMap m;
        m.p = Vec3(u(rng), u(rng), u(rng)) * 10;
        m.A = Eigen::Quaterniond(u(rng), u(rng), u(rng), u(rng)).normalized().toRotationMatrix();
        const TRS trs = trs_from_affine(m);
        EXPECT_TRUE(trs.linear().isApprox(m.A, 1e-12));
        EXPECT_TRUE(trs.scale.isApprox(Vec3::Ones(), 1e-12));
        EXPECT_EQ(trs.translation, m.p);
        EXPECT_NEAR(trs.rotation.norm(), 1.0, 1e-12);
        EXPECT_LT(trs_error(trs, m, unit_cube()), 1e-12);
    }
}

TEST(PolarTrs, RotationTimesAxisScaleIsExact) {
    AffineMap m;
    const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
    m.A = R * Vec3(1.1, 0.9, 1.02).asDiagonal();
    const TRS trs = trs_from_affine(m);
    EXPECT_TRUE(trs.scale.isApprox(Vec3(1.1, 0.9, 1.02), 1e-12));
    EXPECT_TRUE(trs.rotation.toRotationMatrix().isApprox(R, 1e-12));
    EXPECT_LT(trs_error(trs, m, unit_cube()), 1e-12);
}

TEST(PolarTrs, ShearIsApproximatedAndItsErrorMeasured) {
    AffineMap m;
    m.A << 1, 0.1, 0, 0, 1, 0, 0, 0, 1;  // a small shear
    const TRS trs = trs_from_affine(m);
    const double error = trs_error(trs, m, unit_cube());
    EXPECT_GT(error, 1e-3);
    EXPECT_LT(error, 0.1);
    // The rotation is still a proper rotation.
    EXPECT_NEAR(trs.rotation.toRotationMatrix().determinant(), 1.0, 1e-12);
    // The reported error is the largest vertex displacement: check it directly at one corner.
    const Vec3 X(0.5, 0.5, 0.5);
    EXPECT_LE(((trs.translation + trs.linear() * X) - m.apply(X)).norm(), error + 1e-15);
}

TEST(PolarTrs, ReflectionKeepsAProperRotationWithNegativeScale) {
    AffineMap m;
    m.A = Vec3(-1, 1, 1).asDiagonal();
    const TRS trs = trs_from_affine(m);
    EXPECT_NEAR(trs.rotation.toRotationMatrix().determinant(), 1.0, 1e-12);
    EXPECT_TRUE(trs.linear().isApprox(m.A, 1e-12));
    EXPECT_LT(trs.scale.prod(), 0);
}

TEST(PolarTrs, DegenerateMapDoesNotProduceNaN) {
    AffineMap m;
    m.A = Mat3::Zero();
    const TRS trs = trs_from_affine(m);
    EXPECT_TRUE(trs.rotation.coeffs().allFinite());
    EXPECT_TRUE(trs.scale.isZero());
}

TEST(AffineMap, ReadsRowMajorRows) {
    VecX row(14);
    row << 1, 2, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 42, 43;  // two extra (reduced) coordinates
    const AffineMap m = affine_map_from_row(row);
    EXPECT_EQ(m.p, Vec3(1, 2, 3));
    EXPECT_EQ(m.A(0, 1), 2);
    EXPECT_EQ(m.A(1, 0), 4);
    EXPECT_EQ(m.A(2, 2), 9);
    EXPECT_EQ(m.apply(Vec3(1, 0, 0)), Vec3(2, 6, 10));
    EXPECT_THROW(affine_map_from_row(VecX::Zero(11)), std::invalid_argument);
}

}  // namespace
}  // namespace concord
