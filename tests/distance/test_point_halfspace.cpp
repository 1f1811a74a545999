// Point to half-space (fixed plane) distances: values, sides, and derivatives with respect to
// the point.
#include <gtest/gtest.h>

#include <cmath>

#include "concord/collision/distance/point_halfspace.hpp"
#include "distance/fd_check.hpp"
#include "distance/random_configs.hpp"

namespace concord {
namespace {

TEST(PointHalfspace, ValuesAndSide) {
    const Vec3 o(0, 0, 1), n(0, 0, 1);
    EXPECT_DOUBLE_EQ(point_halfspace_signed_distance(Vec3(5, -2, 3), o, n), 2.0);
    EXPECT_DOUBLE_EQ(point_halfspace_signed_distance(Vec3(5, -2, 0.5), o, n), -0.5);
    EXPECT_DOUBLE_EQ(point_halfspace_distance_sq(Vec3(5, -2, 3), o, n), 4.0);
    EXPECT_DOUBLE_EQ(point_halfspace_distance_sq(Vec3(5, -2, 0.5), o, n), 0.25);
    // A tilted plane through the origin with normal (1,1,0)/√2.
    const Vec3 tilted = Vec3(1, 1, 0).normalized();
    EXPECT_NEAR(point_halfspace_distance_sq(Vec3(1, 1, 7), Vec3::Zero(), tilted), 2.0, 1e-15);
    EXPECT_EQ(point_halfspace_signed_distance_gradient(Vec3(1, 1, 7), Vec3::Zero(), tilted),
              tilted);
}

TEST(PointHalfspace, KnownDerivatives) {
    const Vec3 o(0, 0, 1), n(0, 0, 1);
    EXPECT_EQ(point_halfspace_distance_sq_gradient(Vec3(5, -2, 3), o, n), Vec3(0, 0, 4));
    const Mat3 H = point_halfspace_distance_sq_hessian(Vec3(5, -2, 3), o, n);
    EXPECT_EQ(H, Mat3(Vec3(0, 0, 2).asDiagonal()));
}

// (n·(p − o))² is a quadratic in p: third derivatives vanish, so central differences are exact
// up to round-off ε |f| / h ≈ 2e-16 · 16 / 1e-5 ≈ 4e-10 for |p − o| ≤ 4. Tolerance 1e-8.
TEST(PointHalfspace, FiniteDifferencesOnRandomPlanes) {
    test::RandomPoints rng(31);
    test::WorstErrors worst;
    while (worst.samples < 1000) {
        const Vec3 o = rng.point(), n = rng.unit_vector(), p = rng.point(-2, 2);
        const test::Differentiable<3> fn{
            [&](const Vec3& x) { return point_halfspace_distance_sq(x, o, n); },
            [&](const Vec3& x) { return point_halfspace_distance_sq_gradient(x, o, n); },
            [&](const Vec3& x) { return point_halfspace_distance_sq_hessian(x, o, n); },
        };
        accumulate(worst, fn, p, 1e-5, 1e-5, 1.0, 1.0);
        const VecX fd_signed = fd_gradient(
            [&](const VecX& x) { return point_halfspace_signed_distance(Vec3(x), o, n); }, VecX(p),
            1e-5);
        ASSERT_LT((fd_signed - point_halfspace_signed_distance_gradient(p, o, n)).norm(), 1e-8);
    }
    EXPECT_LE(worst.gradient, 1e-8);
    EXPECT_LE(worst.hessian, 1e-8);
    EXPECT_EQ(worst.asymmetry, 0.0);
}

}  // namespace
}  // namespace concord
