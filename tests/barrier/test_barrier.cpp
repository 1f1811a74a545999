// The IPC log-barrier on squared distances: values at known points, the limits at 0 and at
// dhat, finite-difference checks of b' and b'', and the chain rule through the distance
// derivatives (including the mollified edge-edge barrier).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "concord/collision/barrier/barrier.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/edge_edge_mollifier.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "distance/fd_check.hpp"
#include "distance/random_configs.hpp"

namespace concord {
namespace {

using test::point_of;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Barrier, ValuesAtKnownPoints) {
    for (const double dhat : {1e-6, 1e-2, 1.0}) {
        // d = dhat/2: b = (dhat/2)² ln 2, b' = (dhat/2)(−2 ln 2 − 1), b'' = 5 + 2 ln 2.
        const double d = 0.5 * dhat;
        EXPECT_NEAR(barrier(d, dhat), 0.25 * dhat * dhat * std::log(2.0), 1e-15 * dhat * dhat);
        EXPECT_NEAR(barrier_first_derivative(d, dhat), 0.5 * dhat * (-2.0 * std::log(2.0) - 1.0),
                    1e-15 * dhat);
        EXPECT_NEAR(barrier_second_derivative(d, dhat), 5.0 + 2.0 * std::log(2.0), 1e-14);
        // d = dhat/e: ln(d/dhat) = −1, so b = (d − dhat)².
        const double de = dhat / std::exp(1.0);
        EXPECT_NEAR(barrier(de, dhat), (de - dhat) * (de - dhat), 1e-15 * dhat * dhat);
    }
}

TEST(Barrier, VanishesWithTwoDerivativesAtDhat) {
    const double dhat = 1e-2;
    EXPECT_EQ(barrier(dhat, dhat), 0.0);
    EXPECT_EQ(barrier_first_derivative(dhat, dhat), 0.0);
    EXPECT_EQ(barrier_second_derivative(dhat, dhat), 0.0);
    EXPECT_EQ(barrier(2 * dhat, dhat), 0.0);
    EXPECT_EQ(barrier_first_derivative(2 * dhat, dhat), 0.0);
    EXPECT_EQ(barrier_second_derivative(2 * dhat, dhat), 0.0);
    // From below: b = O(δ³), b' = O(δ²), b'' = O(δ) with d = dhat (1 − δ) (Taylor expansion of
    // −(d − dhat)² ln(d/dhat) about dhat: b = dhat² (δ³ + δ⁴/2 + …),
    // b' = −dhat (3δ² + 2δ³ + …), b'' = 6δ + 6δ² + …; the bounds allow the next term).
    for (const double delta : {1e-2, 1e-3, 1e-4}) {
        const double d = dhat * (1.0 - delta);
        const double d3 = delta * delta * delta;
        EXPECT_NEAR(barrier(d, dhat), d3 * dhat * dhat, 2.0 * delta * d3 * dhat * dhat);
        EXPECT_NEAR(barrier_first_derivative(d, dhat), -3.0 * delta * delta * dhat,
                    3.0 * d3 * dhat);
        EXPECT_NEAR(barrier_second_derivative(d, dhat), 6.0 * delta, 10.0 * delta * delta);
    }
}

TEST(Barrier, DivergesAtZeroAndIsInfiniteBelow) {
    const double dhat = 1e-2;
    double previous = 0.0;
    for (double d = 0.5 * dhat; d > 1e-300; d *= 1e-3) {
        const double b = barrier(d, dhat);
        ASSERT_GT(b, previous) << d;
        ASSERT_LT(barrier_first_derivative(d, dhat), 0.0) << d;
        ASSERT_GT(barrier_second_derivative(d, dhat), 0.0) << d;
        previous = b;
    }
    // −dhat² ln(d/dhat) dominates: at d = 1e-300 that is 1e-4 · 688 ≈ 0.069.
    EXPECT_NEAR(barrier(1e-300, dhat), -dhat * dhat * std::log(1e-300 / dhat), 1e-6);
    EXPECT_EQ(barrier(0.0, dhat), kInf);
    EXPECT_EQ(barrier(-1e-3, dhat), kInf);
    EXPECT_EQ(barrier_first_derivative(0.0, dhat), -kInf);
    EXPECT_EQ(barrier_second_derivative(0.0, dhat), kInf);
}

// b is smooth on (0, dhat) and varies on the scale d near 0, so the step is relative: h = 1e-5 d.
// Central-difference error ≈ h² |b'''| / 6 + ε |b| / h. Near 0, |b'''| ≈ 2 dhat² / d³ and
// |b'| ≈ dhat² / d, so the truncation term is ≈ 3e-11 |b'| and round-off (|b| ≤ 6 dhat²) stays
// below 1e-9 |b'|. Near dhat, b' and b'' vanish but b''' → −6/dhat does not: the truncation
// error there is ≈ 1e-10 dhat for b' and ≈ 1e-10 for b'', so errors are taken relative to
// max(|b'|, 1e-2 dhat) and max(|b''|, 1e-2) (their typical sizes are dhat and 1). Tolerance 1e-7.
TEST(Barrier, DerivativesMatchFiniteDifferences) {
    double worst1 = 0.0, worst2 = 0.0;
    for (const double dhat : {1e-8, 1e-4, 1e-2, 1.0}) {
        for (int k = 1; k < 200; ++k) {
            const double d = dhat * k / 200.0;
            const double h = 1e-5 * d;
            const double fd1 = (barrier(d + h, dhat) - barrier(d - h, dhat)) / (2 * h);
            const double fd2 =
                (barrier_first_derivative(d + h, dhat) - barrier_first_derivative(d - h, dhat)) /
                (2 * h);
            const double b1 = barrier_first_derivative(d, dhat);
            const double b2 = barrier_second_derivative(d, dhat);
            worst1 = std::max(worst1, std::abs(fd1 - b1) / std::max(std::abs(b1), 1e-2 * dhat));
            worst2 = std::max(worst2, std::abs(fd2 - b2) / std::max(std::abs(b2), 1e-2));
        }
    }
    if (std::getenv("CONCORD_FD_VERBOSE")) std::printf("b': %.2e  b'': %.2e\n", worst1, worst2);
    EXPECT_LE(worst1, 1e-7);
    EXPECT_LE(worst2, 1e-7);
}

TEST(Barrier, ChainHelpersAreZeroOutsideTheActiveRange) {
    const Vec12 g = Vec12::Ones();
    const Mat12 H = Mat12::Identity();
    EXPECT_EQ(barrier_gradient<12>(0.2, 0.1, g), Vec12::Zero());
    EXPECT_EQ(barrier_hessian<12>(0.2, 0.1, g, H), Mat12::Zero());
    EXPECT_EQ(barrier_gradient<12>(0.05, 0.1, g), barrier_first_derivative(0.05, 0.1) * g);
}

// b(d(x)) for pairs with d ∈ [0.1, 0.9] dhat, dhat = 0.01 (distances 0.03–0.095): the barrier
// varies on the scale d and d changes by ≈ 2 √d h per step, so the relative truncation error is
// ≈ K (2h/√d)² ≈ 4e-9 K at h = 1e-6, √d ≥ 0.03; round-off is below 1e-9. Entries are compared
// relative to the largest; tolerance 1e-6.
constexpr double kDhat = 1e-2;
constexpr double kChainStep = 1e-6;
constexpr double kChainTol = 1e-6;

TEST(Barrier, ChainedThroughPointTriangleDistance) {
    test::RandomPoints rng(51);
    test::WorstErrors worst;
    for (int draw = 0; worst.samples < 1000; ++draw) {
        ASSERT_LT(draw, 100000) << "too few draws land in the barrier's active range";
        const Vec3 t0 = rng.point(), t1 = rng.point(), t2 = rng.point();
        if (test::triangle_quality(t0, t1, t2) < 0.05) continue;
        if (std::min({(t1 - t0).norm(), (t2 - t1).norm(), (t0 - t2).norm()}) < 0.2) continue;
        const Vec3 n = (t1 - t0).cross(t2 - t0).normalized();
        const Vec3 p = t0 + rng.uniform(-0.1, 1.0) * (t1 - t0) +
                       rng.uniform(-0.1, 1.0) * (t2 - t0) + rng.uniform(-0.1, 0.1) * n;
        const PointTriangleDistanceType type = point_triangle_distance_type(p, t0, t1, t2);
        const double d = point_triangle_distance_sq(p, t0, t1, t2, type);
        if (d < 0.1 * kDhat || d > 0.9 * kDhat) continue;
        auto dist = [type](const Vec12& x) {
            return point_triangle_distance_sq(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                              point_of(x, 3), type);
        };
        const test::Differentiable<12> fn{
            [&](const Vec12& x) { return barrier(dist(x), kDhat); },
            [&](const Vec12& x) {
                return barrier_gradient<12>(
                    dist(x), kDhat,
                    point_triangle_distance_sq_gradient(point_of(x, 0), point_of(x, 1),
                                                        point_of(x, 2), point_of(x, 3), type));
            },
            [&](const Vec12& x) {
                const Vec3 a = point_of(x, 0), b = point_of(x, 1), c = point_of(x, 2),
                           e = point_of(x, 3);
                return barrier_hessian<12>(dist(x), kDhat,
                                           point_triangle_distance_sq_gradient(a, b, c, e, type),
                                           point_triangle_distance_sq_hessian(a, b, c, e, type));
            },
        };
        accumulate(worst, fn, test::stack<4>({p, t0, t1, t2}), kChainStep, kChainStep, 0.0, 0.0);
    }
    if (std::getenv("CONCORD_FD_VERBOSE")) {
        std::printf("PT barrier: grad %.2e hess %.2e\n", worst.gradient, worst.hessian);
    }
    EXPECT_LE(worst.gradient, kChainTol);
    EXPECT_LE(worst.hessian, kChainTol);
    EXPECT_LE(worst.asymmetry, 1e-14);
}

// The mollified edge-edge barrier m(x) b(d(x)) for nearly parallel edges (c < ε_x, so the
// mollifier is active): the combination the contact energy evaluates. Here the scale is the
// angle θ ∈ [0.01, 0.03] (ε_x = 1e-3 |ea|²|eb|² ≈ sin²(0.032) |ea|²|eb|²), so h = 1e-4 θ as in
// the mollifier test, and the distance adds the barrier scale above; tolerance 1e-5.
TEST(Barrier, MollifiedEdgeEdgeBarrier) {
    test::RandomPoints rng(52);
    test::WorstErrors worst;
    for (int draw = 0; worst.samples < 1000; ++draw) {
        ASSERT_LT(draw, 100000) << "too few draws land in the barrier's active range";
        const Vec3 u = rng.unit_vector(), m = u.unitOrthogonal(), side = u.cross(m);
        const double theta = rng.uniform(0.01, 0.03);
        const Vec3 v = std::cos(theta) * u + std::sin(theta) * side;
        const Vec3 a0 = rng.point();
        const Vec3 ca = a0 + rng.uniform(0.3, 0.7) * u;
        const Vec3 cb = ca + rng.uniform(0.04, 0.09) * m;  // lines closest near the middles
        const Vec3 b0 = cb - rng.uniform(0.3, 0.7) * v, b1 = b0 + v;
        const Vec3 a1 = a0 + u;
        const EdgeEdgeDistanceType type = edge_edge_distance_type(a0, a1, b0, b1);
        const double d = edge_edge_distance_sq(a0, a1, b0, b1, type);
        if (d < 0.1 * kDhat || d > 0.9 * kDhat) continue;
        const double eps_x = edge_edge_mollifier_threshold(a0, a1, b0, b1);
        ASSERT_LT(edge_edge_cross_norm_sq(a0, a1, b0, b1), eps_x);
        auto fn_value = [=](const Vec12& x) {
            const Vec3 p0 = point_of(x, 0), p1 = point_of(x, 1), q0 = point_of(x, 2),
                       q1 = point_of(x, 3);
            return edge_edge_mollifier(p0, p1, q0, q1, eps_x) *
                   barrier(edge_edge_distance_sq(p0, p1, q0, q1, type), kDhat);
        };
        auto fn_gradient = [=](const Vec12& x) {
            const Vec3 p0 = point_of(x, 0), p1 = point_of(x, 1), q0 = point_of(x, 2),
                       q1 = point_of(x, 3);
            const double dd = edge_edge_distance_sq(p0, p1, q0, q1, type);
            return mollified_gradient(
                edge_edge_mollifier(p0, p1, q0, q1, eps_x),
                edge_edge_mollifier_gradient(p0, p1, q0, q1, eps_x), barrier(dd, kDhat),
                barrier_gradient<12>(dd, kDhat,
                                     edge_edge_distance_sq_gradient(p0, p1, q0, q1, type)));
        };
        auto fn_hessian = [=](const Vec12& x) {
            const Vec3 p0 = point_of(x, 0), p1 = point_of(x, 1), q0 = point_of(x, 2),
                       q1 = point_of(x, 3);
            const double dd = edge_edge_distance_sq(p0, p1, q0, q1, type);
            const Vec12 grad_d = edge_edge_distance_sq_gradient(p0, p1, q0, q1, type);
            return mollified_hessian(
                edge_edge_mollifier(p0, p1, q0, q1, eps_x),
                edge_edge_mollifier_gradient(p0, p1, q0, q1, eps_x),
                edge_edge_mollifier_hessian(p0, p1, q0, q1, eps_x), barrier(dd, kDhat),
                barrier_gradient<12>(dd, kDhat, grad_d),
                barrier_hessian<12>(dd, kDhat, grad_d,
                                    edge_edge_distance_sq_hessian(p0, p1, q0, q1, type)));
        };
        const test::Differentiable<12> fn{fn_value, fn_gradient, fn_hessian};
        const double h = 1e-4 * theta;
        accumulate(worst, fn, test::stack<4>({a0, a1, b0, b1}), h, h, 0.0, 0.0);
    }
    if (std::getenv("CONCORD_FD_VERBOSE")) {
        std::printf("mollified EE barrier: grad %.2e hess %.2e\n", worst.gradient, worst.hessian);
    }
    EXPECT_LE(worst.gradient, 1e-5);
    EXPECT_LE(worst.hessian, 1e-5);
    EXPECT_LE(worst.asymmetry, 1e-14);
}

}  // namespace
}  // namespace concord
