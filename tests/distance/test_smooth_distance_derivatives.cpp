// Finite-difference checks of the gradients and Hessians of the four smooth distances
// (point-point, point-line, point-plane, line-line), on random well-conditioned input and on
// explicitly near-degenerate input with steps scaled to the conditioning.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "concord/collision/distance/line_line.hpp"
#include "concord/collision/distance/point_line.hpp"
#include "concord/collision/distance/point_plane.hpp"
#include "concord/collision/distance/point_point.hpp"
#include "distance/fd_check.hpp"
#include "distance/random_configs.hpp"

namespace concord {
namespace {

using test::Differentiable;
using test::point_of;
using test::WorstErrors;

constexpr double kEps = std::numeric_limits<double>::epsilon();

const Differentiable<6> kPointPoint{
    [](const Vec6& x) { return point_point_distance_sq(point_of(x, 0), point_of(x, 1)); },
    [](const Vec6& x) { return point_point_distance_sq_gradient(point_of(x, 0), point_of(x, 1)); },
    [](const Vec6& x) { return point_point_distance_sq_hessian(point_of(x, 0), point_of(x, 1)); },
};

const Differentiable<9> kPointLine{
    [](const Vec9& x) {
        return point_line_distance_sq(point_of(x, 0), point_of(x, 1), point_of(x, 2));
    },
    [](const Vec9& x) {
        return point_line_distance_sq_gradient(point_of(x, 0), point_of(x, 1), point_of(x, 2));
    },
    [](const Vec9& x) {
        return point_line_distance_sq_hessian(point_of(x, 0), point_of(x, 1), point_of(x, 2));
    },
};

const Differentiable<12> kPointPlane{
    [](const Vec12& x) {
        return point_plane_distance_sq(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                       point_of(x, 3));
    },
    [](const Vec12& x) {
        return point_plane_distance_sq_gradient(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                                point_of(x, 3));
    },
    [](const Vec12& x) {
        return point_plane_distance_sq_hessian(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                               point_of(x, 3));
    },
};

const Differentiable<12> kLineLine{
    [](const Vec12& x) {
        return line_line_distance_sq(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                     point_of(x, 3));
    },
    [](const Vec12& x) {
        return line_line_distance_sq_gradient(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                              point_of(x, 3));
    },
    [](const Vec12& x) {
        return line_line_distance_sq_hessian(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                             point_of(x, 3));
    },
};

// Set CONCORD_FD_VERBOSE=1 to print the worst errors (how the tolerances below were chosen).
void report(const char* what, const WorstErrors& w) {
    if (std::getenv("CONCORD_FD_VERBOSE") == nullptr) return;
    std::printf("%-40s n=%5d  grad %.2e  hess %.2e  asym %.2e\n", what, w.samples, w.gradient,
                w.hessian, w.asymmetry);
}

// Random well-conditioned input: coordinates in [-1, 1] (|f| ≤ 12), edges ≥ 0.2 and angles or
// triangle qualities ≥ 0.05, so |f'''| stays O(10²). With h = 1e-6 the central-difference error
// is ≈ h²|f'''|/6 + ε|f|/h ≈ 1e-10 + 3e-9, relative to entries floored at 1 (smaller entries
// are compared absolutely). The measured worst is ~1.5e-9; the tolerance 1e-7 leaves a margin
// of more than 30 and is still six orders of magnitude below what a wrong term would produce.
constexpr double kRandomStep = 1e-6;
constexpr double kRandomTol = 1e-7;
constexpr int kRandomSamples = 1000;
// Hessians are built as 2 (w wᵀ ⊗ I − K Kᵀ), symmetric up to the round-off of the sum.
constexpr double kAsymmetryTol = 1e-14;

void expect_within(const WorstErrors& w, double grad_tol, double hess_tol) {
    EXPECT_LE(w.gradient, grad_tol);
    EXPECT_LE(w.hessian, hess_tol);
    EXPECT_LE(w.asymmetry, kAsymmetryTol);
}

TEST(SmoothDistanceDerivatives, PointPointRandom) {
    test::RandomPoints rng(1);
    WorstErrors worst;
    while (worst.samples < kRandomSamples) {
        const Vec6 x = test::stack<2>({rng.point(), rng.point()});
        accumulate(worst, kPointPoint, x, kRandomStep, kRandomStep, 1.0, 1.0);
    }
    report("point-point random", worst);
    expect_within(worst, kRandomTol, kRandomTol);
}

TEST(SmoothDistanceDerivatives, PointLineRandom) {
    test::RandomPoints rng(2);
    WorstErrors worst;
    while (worst.samples < kRandomSamples) {
        const Vec3 p = rng.point(-2, 2), e0 = rng.point(), e1 = rng.point();
        if ((e1 - e0).norm() < 0.2) continue;
        accumulate(worst, kPointLine, test::stack<3>({p, e0, e1}), kRandomStep, kRandomStep, 1.0,
                   1.0);
    }
    report("point-line random", worst);
    expect_within(worst, kRandomTol, kRandomTol);
}

TEST(SmoothDistanceDerivatives, PointPlaneRandom) {
    test::RandomPoints rng(3);
    WorstErrors worst;
    while (worst.samples < kRandomSamples) {
        const Vec3 p = rng.point(-2, 2), t0 = rng.point(), t1 = rng.point(), t2 = rng.point();
        if (test::triangle_quality(t0, t1, t2) < 0.05) continue;
        if (std::min({(t1 - t0).norm(), (t2 - t1).norm(), (t0 - t2).norm()}) < 0.2) continue;
        accumulate(worst, kPointPlane, test::stack<4>({p, t0, t1, t2}), kRandomStep, kRandomStep,
                   1.0, 1.0);
    }
    report("point-plane random", worst);
    expect_within(worst, kRandomTol, kRandomTol);
}

TEST(SmoothDistanceDerivatives, LineLineRandom) {
    test::RandomPoints rng(4);
    WorstErrors worst;
    while (worst.samples < kRandomSamples) {
        const Vec3 a0 = rng.point(), a1 = rng.point(), b0 = rng.point(), b1 = rng.point();
        if ((a1 - a0).norm() < 0.2 || (b1 - b0).norm() < 0.2) continue;
        if (test::sin_angle(a1 - a0, b1 - b0) < 0.05) continue;
        accumulate(worst, kLineLine, test::stack<4>({a0, a1, b0, b1}), kRandomStep, kRandomStep,
                   1.0, 1.0);
    }
    report("line-line random", worst);
    expect_within(worst, kRandomTol, kRandomTol);
}

// Near-degenerate geometry whose conditioning length is L (the sine of the angle between
// nearly parallel edges, or the height of a sliver triangle). The function varies on the scale
// L: each derivative beyond the first gains a factor 1/L, while the gradient itself stays O(1)
// (it is 2 w_j r with bounded weights). The value carries a relative round-off of ε/L (cross
// product of nearly parallel vectors). Central differences of the value therefore have a
// relative gradient error ≈ h²/L³ + ε/(L h), smallest at h = (ε L²)^(1/3) where it is
// ≈ (ε/L)^(2/3) / L; those of the analytic gradient have a relative Hessian error
// ≈ h²/L² + ε/h, also smallest near h = (ε L²)^(1/3), at ≈ (ε/L)^(2/3). (Checked against
// long-double differences while writing this test: the measured worst errors are about 2 times
// the gradient model and 10 times the Hessian model.) The tolerances are 30 and 100 times the
// models, a margin of 10 over the measured worst. Below L = 1e-4 the gradient model
// exceeds 1e-3 — double-precision differences cannot resolve the gradient there — so only the
// Hessian, whose check stays tight, is compared.
double conditioned_step(double L) {
    return std::cbrt(kEps * L * L);
}
double conditioned_gradient_tolerance(double L) {
    return 30.0 * std::pow(kEps / L, 2.0 / 3.0) / L;
}
double conditioned_hessian_tolerance(double L) {
    return 100.0 * std::pow(kEps / L, 2.0 / 3.0);
}
constexpr double kSmallestGradientCheckedL = 1e-4;

void expect_within_conditioned(const WorstErrors& w, double L) {
    if (L >= kSmallestGradientCheckedL) {
        EXPECT_LE(w.gradient, conditioned_gradient_tolerance(L));
    }
    EXPECT_LE(w.hessian, conditioned_hessian_tolerance(L));
    EXPECT_LE(w.asymmetry, kAsymmetryTol);
}

// A random unit vector orthogonal to the unit vector a.
Vec3 orthogonal_unit(test::RandomPoints& rng, const Vec3& a) {
    Vec3 v;
    do v = rng.unit_vector().cross(a);
    while (v.norm() < 0.1);
    return v.normalized();
}

TEST(SmoothDistanceDerivatives, LineLineNearlyParallel) {
    test::RandomPoints rng(5);
    for (const double theta : {1e-2, 1e-3, 1e-4, 1e-5, 1e-6}) {
        WorstErrors worst;
        while (worst.samples < 200) {
            const Vec3 m = rng.unit_vector();         // common normal of the two lines
            const Vec3 da = orthogonal_unit(rng, m);  // direction of edge a
            const Vec3 db = std::cos(theta) * da + std::sin(theta) * m.cross(da);
            const Vec3 ca = rng.point(), cb = ca + rng.uniform(0.05, 0.5) * m;
            const double la = rng.uniform(0.5, 2.0), lb = rng.uniform(0.5, 2.0);
            const double sa = rng.uniform(-0.5, 0.5), sb = rng.uniform(-0.5, 0.5);
            const Vec3 a0 = ca + (sa - 0.5) * la * da, a1 = ca + (sa + 0.5) * la * da;
            const Vec3 b0 = cb + (sb - 0.5) * lb * db, b1 = cb + (sb + 0.5) * lb * db;
            const double h = conditioned_step(theta);
            accumulate(worst, kLineLine, test::stack<4>({a0, a1, b0, b1}), h, h, 0.0, 0.0);
        }
        char label[64];
        std::snprintf(label, sizeof label, "line-line parallel theta=%.0e", theta);
        report(label, worst);
        SCOPED_TRACE(label);
        expect_within_conditioned(worst, theta);
    }
}

TEST(SmoothDistanceDerivatives, PointPlaneSliverTriangle) {
    test::RandomPoints rng(6);
    for (const double height : {1e-2, 1e-3, 1e-4, 1e-5, 1e-6}) {
        WorstErrors worst;
        while (worst.samples < 200) {
            const Vec3 t0 = rng.point(), d = rng.unit_vector();
            const Vec3 t1 = t0 + rng.uniform(0.5, 2.0) * d;
            const Vec3 t2 =
                t0 + rng.uniform(0.2, 0.8) * (t1 - t0) + height * orthogonal_unit(rng, d);
            const Vec3 p = rng.point(-2, 2);
            const double h = conditioned_step(height);
            accumulate(worst, kPointPlane, test::stack<4>({p, t0, t1, t2}), h, h, 0.0, 0.0);
        }
        char label[64];
        std::snprintf(label, sizeof label, "point-plane sliver height=%.0e", height);
        report(label, worst);
        SCOPED_TRACE(label);
        expect_within_conditioned(worst, height);
    }
}

// Pairs at a tiny distance δ (a point almost on a line or plane, two lines almost meeting). The
// distance is smooth there (|r|² with r → 0), the gradient is O(δ) and the Hessian O(1).
// Gradient: f has absolute round-off ≈ εδ, so the error relative to the O(δ) gradient is
// ≈ h²/δ + ε/h, smallest at h = (εδ)^(1/3) with value ≈ 2 (ε²/δ)^(1/3). Hessian: the gradient
// has absolute round-off ≈ ε and |f''''| = O(1), so h = 1e-6 gives ≈ 1e-12 + 2e-10.
// Tolerances are 100 times these models.
double small_distance_gradient_step(double delta) {
    return std::cbrt(kEps * delta);
}
double small_distance_gradient_tolerance(double delta) {
    return 100.0 * 2.0 * std::cbrt(kEps * kEps / delta);
}
constexpr double kSmallDistanceHessianStep = 1e-6;
constexpr double kSmallDistanceHessianTol = 1e-7;

TEST(SmoothDistanceDerivatives, PointNearlyOnLine) {
    test::RandomPoints rng(7);
    for (const double delta : {1e-2, 1e-4, 1e-6, 1e-8}) {
        WorstErrors worst;
        while (worst.samples < 200) {
            const Vec3 e0 = rng.point(), e1 = rng.point();
            if ((e1 - e0).norm() < 0.2) continue;
            const Vec3 dir = (e1 - e0).normalized();
            const Vec3 p =
                e0 + rng.uniform(-0.5, 1.5) * (e1 - e0) + delta * orthogonal_unit(rng, dir);
            accumulate(worst, kPointLine, test::stack<3>({p, e0, e1}),
                       small_distance_gradient_step(delta), kSmallDistanceHessianStep, 0.0, 1.0);
        }
        char label[64];
        std::snprintf(label, sizeof label, "point-line near line delta=%.0e", delta);
        report(label, worst);
        SCOPED_TRACE(label);
        expect_within(worst, small_distance_gradient_tolerance(delta), kSmallDistanceHessianTol);
    }
}

TEST(SmoothDistanceDerivatives, PointNearlyOnPlane) {
    test::RandomPoints rng(8);
    for (const double delta : {1e-2, 1e-4, 1e-6, 1e-8}) {
        WorstErrors worst;
        while (worst.samples < 200) {
            const Vec3 t0 = rng.point(), t1 = rng.point(), t2 = rng.point();
            if (test::triangle_quality(t0, t1, t2) < 0.05) continue;
            if (std::min({(t1 - t0).norm(), (t2 - t1).norm(), (t0 - t2).norm()}) < 0.2) continue;
            const Vec3 n = (t1 - t0).cross(t2 - t0).normalized();
            const Vec3 p =
                t0 + rng.uniform(-1, 1) * (t1 - t0) + rng.uniform(-1, 1) * (t2 - t0) + delta * n;
            accumulate(worst, kPointPlane, test::stack<4>({p, t0, t1, t2}),
                       small_distance_gradient_step(delta), kSmallDistanceHessianStep, 0.0, 1.0);
        }
        char label[64];
        std::snprintf(label, sizeof label, "point-plane near plane delta=%.0e", delta);
        report(label, worst);
        SCOPED_TRACE(label);
        expect_within(worst, small_distance_gradient_tolerance(delta), kSmallDistanceHessianTol);
    }
}

TEST(SmoothDistanceDerivatives, LinesNearlyIntersecting) {
    test::RandomPoints rng(9);
    for (const double delta : {1e-2, 1e-4, 1e-6, 1e-8}) {
        WorstErrors worst;
        while (worst.samples < 200) {
            const Vec3 a0 = rng.point(), a1 = rng.point(), d = rng.unit_vector();
            if ((a1 - a0).norm() < 0.2) continue;
            if (test::sin_angle(a1 - a0, d) < 0.05) continue;
            const Vec3 n = (a1 - a0).cross(d).normalized();
            const Vec3 c = a0 + rng.uniform(-0.5, 1.5) * (a1 - a0) + delta * n;
            const Vec3 b0 = c - rng.uniform(0.2, 1.0) * d, b1 = c + rng.uniform(0.2, 1.0) * d;
            accumulate(worst, kLineLine, test::stack<4>({a0, a1, b0, b1}),
                       small_distance_gradient_step(delta), kSmallDistanceHessianStep, 0.0, 1.0);
        }
        char label[64];
        std::snprintf(label, sizeof label, "line-line nearly meeting delta=%.0e", delta);
        report(label, worst);
        SCOPED_TRACE(label);
        expect_within(worst, small_distance_gradient_tolerance(delta), kSmallDistanceHessianTol);
    }
}

// Closed forms checked against hand-derived values (not only against finite differences).
TEST(SmoothDistanceDerivatives, KnownGradientsAndHessians) {
    // Point-point: 2 [I −I; −I I].
    const Mat6 H_pp = point_point_distance_sq_hessian(Vec3(1, 2, 3), Vec3(0, 0, 0));
    EXPECT_DOUBLE_EQ(H_pp(0, 0), 2.0);
    EXPECT_DOUBLE_EQ(H_pp(0, 3), -2.0);
    EXPECT_DOUBLE_EQ(H_pp(0, 1), 0.0);
    // Point (0,3,4) over the x axis through e0 = origin: ∂/∂p = 2 r, ∂/∂e0 = −2 r, ∂/∂e1 = 0.
    const Vec9 g_pl = point_line_distance_sq_gradient(Vec3(0, 3, 4), Vec3(0, 0, 0), Vec3(1, 0, 0));
    Vec9 expected;
    expected << 0, 6, 8, 0, -6, -8, 0, 0, 0;
    EXPECT_LT((g_pl - expected).norm(), 1e-14);
    // ∂²/∂p² of the point-line distance is 2 (I − ê êᵀ).
    const Mat9 H_pl = point_line_distance_sq_hessian(Vec3(0, 3, 4), Vec3(0, 0, 0), Vec3(2, 0, 0));
    const Mat3 expected_pp = 2.0 * Vec3(0, 1, 1).asDiagonal();
    EXPECT_LT((H_pl.block<3, 3>(0, 0) - expected_pp).norm(), 1e-14);
    // ∂²/∂p² of the point-plane distance is 2 n nᵀ.
    const Mat12 H_ppl = point_plane_distance_sq_hessian(Vec3(0.3, 0.2, 5), Vec3(0, 0, 0),
                                                        Vec3(1, 0, 0), Vec3(0, 1, 0));
    EXPECT_LT((H_ppl.block<3, 3>(0, 0) - 2.0 * Vec3(0, 0, 1).asDiagonal().toDenseMatrix()).norm(),
              1e-14);
    // Point-plane gradient over the centroid: p gets 2 r, each vertex −2 r / 3.
    const Vec12 g_ppl = point_plane_distance_sq_gradient(Vec3(1.0 / 3, 1.0 / 3, 2), Vec3(0, 0, 0),
                                                         Vec3(1, 0, 0), Vec3(0, 1, 0));
    Vec12 expected12;
    expected12 << 0, 0, 4, 0, 0, -4.0 / 3, 0, 0, -4.0 / 3, 0, 0, -4.0 / 3;
    EXPECT_LT((g_ppl - expected12).norm(), 1e-14);
    // Line-line: x axis and the line along y at height 3 crossing above x = 5 with closest
    // points at ea = (5,0,0) (s = 5 on [0,1]-parametrised a) and eb = (5,0,3) (t = 0).
    const Vec12 g_ll =
        line_line_distance_sq_gradient(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(5, 0, 3), Vec3(5, 1, 3));
    // r = ea − eb = (0,0,−3); weights (1−s, s, −(1−t), −t) = (−4, 5, −1, 0).
    expected12 << 0, 0, 24, 0, 0, -30, 0, 0, 6, 0, 0, 0;
    EXPECT_LT((g_ll - expected12).norm(), 1e-13);
}

}  // namespace
}  // namespace concord
