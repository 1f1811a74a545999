// The IPC edge-edge mollifier: threshold, scalar m(c), its derivatives, continuity at c = ε_x,
// and the derivatives of m(c(x)) and of a mollified product with respect to the four vertices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "concord/collision/distance/edge_edge_mollifier.hpp"
#include "distance/fd_check.hpp"
#include "distance/random_configs.hpp"

namespace concord {
namespace {

using test::point_of;

TEST(EdgeEdgeMollifier, ThresholdFromRestLengths) {
    // |ea|² = 4, |eb|² = 9.
    EXPECT_DOUBLE_EQ(
        edge_edge_mollifier_threshold(Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(1, 1, 1), Vec3(1, 4, 1)),
        1e-3 * 36.0);
}

TEST(EdgeEdgeMollifier, CrossNormSquared) {
    // Perpendicular edges of lengths 2 and 3: |u × v|² = 36; parallel edges: 0.
    EXPECT_DOUBLE_EQ(
        edge_edge_cross_norm_sq(Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(5, 5, 5), Vec3(5, 8, 5)), 36.0);
    EXPECT_DOUBLE_EQ(
        edge_edge_cross_norm_sq(Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(5, 5, 5), Vec3(8, 5, 5)), 0.0);
}

TEST(EdgeEdgeMollifier, ScalarValues) {
    const double eps = 0.5;
    EXPECT_DOUBLE_EQ(mollifier(0.0, eps), 0.0);
    EXPECT_DOUBLE_EQ(mollifier(0.25, eps), 0.75);  // x = 1/2: (2 − 1/2)/2
    EXPECT_DOUBLE_EQ(mollifier(eps, eps), 1.0);
    EXPECT_DOUBLE_EQ(mollifier(3.0, eps), 1.0);
    EXPECT_DOUBLE_EQ(mollifier_first_derivative(0.0, eps), 4.0);  // 2/ε
    EXPECT_DOUBLE_EQ(mollifier_first_derivative(0.25, eps), 2.0);
    EXPECT_DOUBLE_EQ(mollifier_first_derivative(3.0, eps), 0.0);
    EXPECT_DOUBLE_EQ(mollifier_second_derivative(0.25, eps), -8.0);  // −2/ε²
    EXPECT_DOUBLE_EQ(mollifier_second_derivative(3.0, eps), 0.0);
}

TEST(EdgeEdgeMollifier, ScalarDerivativesMatchFiniteDifferences) {
    // m is a quadratic below ε_x: central differences are exact up to round-off ε/h relative
    // (h = 1e-6 ε_x keeps every stencil on one side of ε_x). Tolerance 1e-8.
    for (const double eps : {1e-8, 1e-3, 1.0}) {
        const double h = 1e-6 * eps;
        for (int i = 1; i < 100; ++i) {
            const double c = eps * i / 100.0;
            const double fd1 = (mollifier(c + h, eps) - mollifier(c - h, eps)) / (2 * h);
            const double fd2 =
                (mollifier_first_derivative(c + h, eps) - mollifier_first_derivative(c - h, eps)) /
                (2 * h);
            const double d1 = mollifier_first_derivative(c, eps);
            const double d2 = mollifier_second_derivative(c, eps);
            ASSERT_NEAR(fd1, d1, 1e-8 * std::abs(2.0 / eps)) << c;
            ASSERT_NEAR(fd2, d2, 1e-8 * std::abs(d2)) << c;
        }
    }
}

TEST(EdgeEdgeMollifier, ContinuousWithContinuousSlopeAtThreshold) {
    // C1 at c = ε_x: m → 1 and m' → 0 from below (both at rate O(ε_x − c)).
    const double eps = 1e-3;
    for (const double gap : {1e-4, 1e-8, 1e-12}) {
        const double below = eps * (1.0 - gap);
        EXPECT_NEAR(mollifier(below, eps), 1.0, 2 * gap * gap + 1e-16);
        EXPECT_NEAR(mollifier_first_derivative(below, eps), 0.0, 2.0 * gap / eps * 1.01);
        EXPECT_EQ(mollifier(eps * (1.0 + gap), eps), 1.0);
        EXPECT_EQ(mollifier_first_derivative(eps * (1.0 + gap), eps), 0.0);
    }
    // m is monotone on [0, ε_x].
    double previous = -1.0;
    for (int i = 0; i <= 1000; ++i) {
        const double m = mollifier(eps * i / 1000.0, eps);
        ASSERT_GE(m, previous);
        previous = m;
    }
}

test::Differentiable<12> cross_norm_fn() {
    return {
        [](const Vec12& x) {
            return edge_edge_cross_norm_sq(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                           point_of(x, 3));
        },
        [](const Vec12& x) {
            return edge_edge_cross_norm_sq_gradient(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                                    point_of(x, 3));
        },
        [](const Vec12& x) {
            return edge_edge_cross_norm_sq_hessian(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                                   point_of(x, 3));
        },
    };
}

test::Differentiable<12> mollifier_fn(double eps_x) {
    return {
        [eps_x](const Vec12& x) {
            return edge_edge_mollifier(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                       point_of(x, 3), eps_x);
        },
        [eps_x](const Vec12& x) {
            return edge_edge_mollifier_gradient(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                                point_of(x, 3), eps_x);
        },
        [eps_x](const Vec12& x) {
            return edge_edge_mollifier_hessian(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                               point_of(x, 3), eps_x);
        },
    };
}

// c is a quartic polynomial of O(1) coordinates (|c| ≤ ~70), so h = 1e-5 gives central
// difference errors ≈ h² |c'''| + ε |c| / h ≈ 1e-9 + 1e-9 relative to entries floored at 1;
// tolerance 1e-7.
TEST(EdgeEdgeMollifier, CrossNormDerivativesMatchFiniteDifferences) {
    test::RandomPoints rng(41);
    test::WorstErrors worst;
    while (worst.samples < 1000) {
        const Vec12 x = test::stack<4>({rng.point(), rng.point(), rng.point(), rng.point()});
        accumulate(worst, cross_norm_fn(), x, 1e-5, 1e-5, 1.0, 1.0);
    }
    EXPECT_LE(worst.gradient, 1e-7);
    EXPECT_LE(worst.hessian, 1e-7);
    EXPECT_LE(worst.asymmetry, 1e-15);
}

// Nearly parallel edges whose c is a fraction of ε_x, so the mollifier is active: m(c(x)) is
// then a polynomial of degree 8 in the coordinates, varying on the scale of the angle θ
// (c ∝ θ²). With h = 1e-4 θ the relative truncation error is ≈ K (h/θ)² with K = O(10) for
// this polynomial (measured worst ~1e-7) and the relative round-off ≈ ε θ / h ≈ 2e-12;
// tolerance 1e-5. The step keeps c within [0.2, 0.8] ε_x, away from the kink at ε_x.
TEST(EdgeEdgeMollifier, MollifierDerivativesMatchFiniteDifferences) {
    test::RandomPoints rng(42);
    test::WorstErrors worst;
    while (worst.samples < 1000) {
        const Vec3 a0 = rng.point(), b0 = rng.point();
        const Vec3 u = rng.uniform(0.5, 1.5) * rng.unit_vector();
        const double lb = rng.uniform(0.5, 1.5);
        // ε_x from the rest shape (the current lengths); aim c at [0.2, 0.8] ε_x.
        const double eps_x = 1e-3 * u.squaredNorm() * lb * lb;
        const double target = rng.uniform(0.2, 0.8) * eps_x;
        // c = |u|² lb² sin²θ.
        const double theta = std::asin(std::sqrt(target) / (u.norm() * lb));
        const Vec3 side = u.unitOrthogonal();
        const Vec3 v = lb * (std::cos(theta) * u.normalized() + std::sin(theta) * side);
        const Vec12 x = test::stack<4>({a0, a0 + u, b0, b0 + v});
        const double c = edge_edge_cross_norm_sq(a0, a0 + u, b0, b0 + v);
        ASSERT_GT(c, 0.19 * eps_x);
        ASSERT_LT(c, 0.81 * eps_x);
        const double h = 1e-4 * theta;
        accumulate(worst, mollifier_fn(eps_x), x, h, h, 0.0, 0.0);
    }
    EXPECT_LE(worst.gradient, 1e-5);
    EXPECT_LE(worst.hessian, 1e-5);
    EXPECT_LE(worst.asymmetry, 1e-14);
    if (std::getenv("CONCORD_FD_VERBOSE")) {
        std::printf("mollifier: grad %.2e hess %.2e\n", worst.gradient, worst.hessian);
    }
}

TEST(EdgeEdgeMollifier, InactiveAboveThreshold) {
    const Vec3 a0(0, 0, 0), a1(1, 0, 0), b0(0, 0, 1), b1(0, 1, 1);
    EXPECT_EQ(edge_edge_mollifier(a0, a1, b0, b1, 1e-3), 1.0);
    EXPECT_EQ(edge_edge_mollifier_gradient(a0, a1, b0, b1, 1e-3), Vec12::Zero());
    EXPECT_EQ(edge_edge_mollifier_hessian(a0, a1, b0, b1, 1e-3), Mat12::Zero());
}

// The product rule helpers: m(x) b(x) for two smooth test functions with known derivatives,
// here b = the cross norm (a quartic) and m = the active mollifier.
TEST(EdgeEdgeMollifier, MollifiedProductMatchesFiniteDifferences) {
    test::RandomPoints rng(43);
    test::WorstErrors worst;
    while (worst.samples < 1000) {
        const Vec3 a0 = rng.point(), b0 = rng.point();
        const Vec3 u = rng.unit_vector();
        const double theta = rng.uniform(0.005, 0.02);  // c = sin²θ ∈ [2.5e-5, 4e-4] < ε_x
        const Vec3 v = std::cos(theta) * u + std::sin(theta) * u.unitOrthogonal();
        const double eps_x = 1e-3;
        const Vec12 x = test::stack<4>({a0, a0 + u, b0, b0 + v});
        const auto m = mollifier_fn(eps_x);
        const auto b = cross_norm_fn();
        const test::Differentiable<12> product{
            [&](const Vec12& y) { return m.value(y) * b.value(y); },
            [&](const Vec12& y) {
                return mollified_gradient(m.value(y), m.gradient(y), b.value(y), b.gradient(y));
            },
            [&](const Vec12& y) {
                return mollified_hessian(m.value(y), m.gradient(y), m.hessian(y), b.value(y),
                                         b.gradient(y), b.hessian(y));
            },
        };
        // Same scale argument as above: h = 1e-4 θ, tolerance 1e-5.
        accumulate(worst, product, x, 1e-4 * theta, 1e-4 * theta, 0.0, 0.0);
    }
    EXPECT_LE(worst.gradient, 1e-5);
    EXPECT_LE(worst.hessian, 1e-5);
    EXPECT_LE(worst.asymmetry, 1e-14);
    if (std::getenv("CONCORD_FD_VERBOSE")) {
        std::printf("product: grad %.2e hess %.2e\n", worst.gradient, worst.hessian);
    }
}

}  // namespace
}  // namespace concord
