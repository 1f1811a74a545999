// Derivatives of the classified distances (point-edge, point-triangle, edge-edge): the
// dispatch on the closest-feature type and the scatter into the full 9/12 coordinates.
//
// Each check differentiates the smooth function of one fixed type, so finite differences never
// straddle a type switch; near region boundaries the two neighbouring types are checked on
// either side, and must agree there (the squared distance to a segment or triangle is C1).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/point_edge.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "distance/fd_check.hpp"
#include "distance/random_configs.hpp"

namespace concord {
namespace {

using test::Differentiable;
using test::point_of;
using test::WorstErrors;
using PE = PointEdgeDistanceType;
using PT = PointTriangleDistanceType;
using EE = EdgeEdgeDistanceType;

Differentiable<9> point_edge_of_type(PE type) {
    return {
        [type](const Vec9& x) {
            return point_edge_distance_sq(point_of(x, 0), point_of(x, 1), point_of(x, 2), type);
        },
        [type](const Vec9& x) {
            return point_edge_distance_sq_gradient(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                                   type);
        },
        [type](const Vec9& x) {
            return point_edge_distance_sq_hessian(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                                  type);
        },
    };
}

Differentiable<12> point_triangle_of_type(PT type) {
    return {
        [type](const Vec12& x) {
            return point_triangle_distance_sq(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                              point_of(x, 3), type);
        },
        [type](const Vec12& x) {
            return point_triangle_distance_sq_gradient(point_of(x, 0), point_of(x, 1),
                                                       point_of(x, 2), point_of(x, 3), type);
        },
        [type](const Vec12& x) {
            return point_triangle_distance_sq_hessian(point_of(x, 0), point_of(x, 1),
                                                      point_of(x, 2), point_of(x, 3), type);
        },
    };
}

Differentiable<12> edge_edge_of_type(EE type) {
    return {
        [type](const Vec12& x) {
            return edge_edge_distance_sq(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                         point_of(x, 3), type);
        },
        [type](const Vec12& x) {
            return edge_edge_distance_sq_gradient(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                                  point_of(x, 3), type);
        },
        [type](const Vec12& x) {
            return edge_edge_distance_sq_hessian(point_of(x, 0), point_of(x, 1), point_of(x, 2),
                                                 point_of(x, 3), type);
        },
    };
}

void report(const char* what, const WorstErrors& w) {
    if (std::getenv("CONCORD_FD_VERBOSE") == nullptr) return;
    std::printf("%-40s n=%5d  grad %.2e  hess %.2e  asym %.2e\n", what, w.samples, w.gradient,
                w.hessian, w.asymmetry);
}

// Same regime and error model as the random checks of the smooth distances
// (test_smooth_distance_derivatives.cpp): O(1) coordinates, edges ≥ 0.2, qualities and angle
// sines ≥ 0.05, h = 1e-6, measured worst ~1.5e-9, tolerance 1e-7.
constexpr double kStep = 1e-6;
constexpr double kTol = 1e-7;
constexpr double kAsymmetryTol = 1e-14;
constexpr int kSamplesPerType = 150;  // × 3, 7 and 9 types: ≥ 1000 per function
// Every type region has a sizeable volume in these distributions (the rarest takes ~1% of the
// draws), so this cap only stops a broken classification from looping forever.
constexpr int kMaxDraws = 200000;

void expect_within(const WorstErrors& w) {
    EXPECT_LE(w.gradient, kTol);
    EXPECT_LE(w.hessian, kTol);
    EXPECT_LE(w.asymmetry, kAsymmetryTol);
}

TEST(ClassifiedDistanceDerivatives, PointEdgeRandom) {
    test::RandomPoints rng(11);
    std::array<WorstErrors, 3> worst;
    auto done = [&] {
        for (const auto& w : worst)
            if (w.samples < kSamplesPerType) return false;
        return true;
    };
    for (int draw = 0; !done(); ++draw) {
        ASSERT_LT(draw, kMaxDraws) << "some type is (almost) never classified";
        const Vec3 p = rng.point(-2, 2), e0 = rng.point(), e1 = rng.point();
        if ((e1 - e0).norm() < 0.2) continue;
        const PE type = point_edge_distance_type(p, e0, e1);
        auto& w = worst[static_cast<int>(type)];
        if (w.samples >= kSamplesPerType) continue;
        // The overloads without a type classify and dispatch to the same function.
        ASSERT_EQ(point_edge_distance_sq_gradient(p, e0, e1),
                  point_edge_distance_sq_gradient(p, e0, e1, type));
        ASSERT_EQ(point_edge_distance_sq_hessian(p, e0, e1),
                  point_edge_distance_sq_hessian(p, e0, e1, type));
        accumulate(w, point_edge_of_type(type), test::stack<3>({p, e0, e1}), kStep, kStep, 1.0,
                   1.0);
    }
    for (int t = 0; t < 3; ++t) {
        SCOPED_TRACE("type " + std::to_string(t));
        report(("point-edge type " + std::to_string(t)).c_str(), worst[t]);
        expect_within(worst[t]);
    }
}

TEST(ClassifiedDistanceDerivatives, PointTriangleRandom) {
    test::RandomPoints rng(12);
    std::array<WorstErrors, 7> worst;
    auto done = [&] {
        for (const auto& w : worst)
            if (w.samples < kSamplesPerType) return false;
        return true;
    };
    for (int draw = 0; !done(); ++draw) {
        ASSERT_LT(draw, kMaxDraws) << "some type is (almost) never classified";
        const Vec3 p = rng.point(-2, 2), t0 = rng.point(), t1 = rng.point(), t2 = rng.point();
        if (test::triangle_quality(t0, t1, t2) < 0.05) continue;
        if (std::min({(t1 - t0).norm(), (t2 - t1).norm(), (t0 - t2).norm()}) < 0.2) continue;
        const PT type = point_triangle_distance_type(p, t0, t1, t2);
        auto& w = worst[static_cast<int>(type)];
        if (w.samples >= kSamplesPerType) continue;
        ASSERT_EQ(point_triangle_distance_sq_gradient(p, t0, t1, t2),
                  point_triangle_distance_sq_gradient(p, t0, t1, t2, type));
        ASSERT_EQ(point_triangle_distance_sq_hessian(p, t0, t1, t2),
                  point_triangle_distance_sq_hessian(p, t0, t1, t2, type));
        accumulate(w, point_triangle_of_type(type), test::stack<4>({p, t0, t1, t2}), kStep, kStep,
                   1.0, 1.0);
    }
    for (int t = 0; t < 7; ++t) {
        SCOPED_TRACE("type " + std::to_string(t));
        report(("point-triangle type " + std::to_string(t)).c_str(), worst[t]);
        expect_within(worst[t]);
    }
}

TEST(ClassifiedDistanceDerivatives, EdgeEdgeRandom) {
    test::RandomPoints rng(13);
    std::array<WorstErrors, 9> worst;
    auto done = [&] {
        for (const auto& w : worst)
            if (w.samples < kSamplesPerType) return false;
        return true;
    };
    for (int draw = 0; !done(); ++draw) {
        ASSERT_LT(draw, kMaxDraws) << "some type is (almost) never classified";
        const Vec3 a0 = rng.point(), a1 = rng.point(), b0 = rng.point(), b1 = rng.point();
        if ((a1 - a0).norm() < 0.2 || (b1 - b0).norm() < 0.2) continue;
        if (test::sin_angle(a1 - a0, b1 - b0) < 0.05) continue;
        const EE type = edge_edge_distance_type(a0, a1, b0, b1);
        auto& w = worst[static_cast<int>(type)];
        if (w.samples >= kSamplesPerType) continue;
        ASSERT_EQ(edge_edge_distance_sq_gradient(a0, a1, b0, b1),
                  edge_edge_distance_sq_gradient(a0, a1, b0, b1, type));
        ASSERT_EQ(edge_edge_distance_sq_hessian(a0, a1, b0, b1),
                  edge_edge_distance_sq_hessian(a0, a1, b0, b1, type));
        accumulate(w, edge_edge_of_type(type), test::stack<4>({a0, a1, b0, b1}), kStep, kStep, 1.0,
                   1.0);
    }
    for (int t = 0; t < 9; ++t) {
        SCOPED_TRACE("type " + std::to_string(t));
        report(("edge-edge type " + std::to_string(t)).c_str(), worst[t]);
        expect_within(worst[t]);
    }
}

// ---- Region boundaries --------------------------------------------------------------------
//
// Pairs a distance ζ = 1e-7 to either side of the boundary between two regions. On each side the
// classification must give the expected type, the fixed-type derivatives must pass the
// finite-difference check (h = 1e-6 > ζ is fine: the fixed-type function is smooth across the
// boundary), and value and gradient of the two types must agree up to O(ζ): on the boundary
// itself both types have the same closest points and weights, so the gradients 2 w_j r
// coincide. Away from the boundary they separate like |∇²d| ζ with |∇²d| = O(10) here (the
// measured worst jump is 16 ζ); the allowed jump is 100 ζ, while a wrong weight or a swapped
// vertex in the scatter gives a jump of O(1).
constexpr double kZeta = 1e-7;
constexpr double kJumpTol = 100.0 * kZeta;

template <int N>
struct BoundarySide {
    Vec<N> x;
    int expected_type;
};

template <int N, typename Classify, typename OfType>
void check_boundary(const BoundarySide<N>& inner, const BoundarySide<N>& outer, Classify classify,
                    OfType of_type, WorstErrors& worst, double& worst_jump) {
    const int ti = classify(inner.x), to = classify(outer.x);
    ASSERT_EQ(ti, inner.expected_type);
    ASSERT_EQ(to, outer.expected_type);
    const auto fi = of_type(ti), fo = of_type(to);
    accumulate(worst, fi, inner.x, kStep, kStep, 1.0, 1.0);
    accumulate(worst, fo, outer.x, kStep, kStep, 1.0, 1.0);
    // Both types evaluated at the same point just inside: equal to O(ζ).
    const double value_jump = std::abs(fi.value(inner.x) - fo.value(inner.x));
    const double grad_jump =
        (fi.gradient(inner.x) - fo.gradient(inner.x)).template lpNorm<Eigen::Infinity>();
    worst_jump = std::max({worst_jump, value_jump, grad_jump});
}

// In-plane unit normal of triangle edge k (t_k → t_k+1), pointing away from the triangle.
Vec3 outward_edge_normal(const std::array<Vec3, 3>& t, int k) {
    const Vec3 n = (t[1] - t[0]).cross(t[2] - t[0]);
    return (t[(k + 1) % 3] - t[k]).cross(n).normalized();
}

TEST(ClassifiedDistanceDerivatives, PointTriangleRegionBoundaries) {
    test::RandomPoints rng(14);
    WorstErrors worst;
    double worst_jump = 0.0;
    auto classify = [](const Vec12& x) {
        return static_cast<int>(point_triangle_distance_type(point_of(x, 0), point_of(x, 1),
                                                             point_of(x, 2), point_of(x, 3)));
    };
    auto of_type = [](int t) { return point_triangle_of_type(static_cast<PT>(t)); };
    int pairs = 0;
    while (pairs < 300) {
        const std::array<Vec3, 3> t = {rng.point(), rng.point(), rng.point()};
        if (test::triangle_quality(t[0], t[1], t[2]) < 0.05) continue;
        const Vec3 n = (t[1] - t[0]).cross(t[2] - t[0]).normalized();
        const double height = rng.uniform(-1.0, 1.0);
        for (int k = 0; k < 3; ++k) {
            const Vec3 e = (t[(k + 1) % 3] - t[k]).normalized();
            const Vec3 o = outward_edge_normal(t, k);
            const int edge_type = static_cast<int>(PT::P_E0) + k;
            // Face | edge k: the foot of the perpendicular crosses edge k.
            const Vec3 foot = t[k] + rng.uniform(0.2, 0.8) * (t[(k + 1) % 3] - t[k]) + height * n;
            check_boundary<12>(
                {test::stack<4>({foot - kZeta * o, t[0], t[1], t[2]}), static_cast<int>(PT::P_T)},
                {test::stack<4>({foot + kZeta * o, t[0], t[1], t[2]}), edge_type}, classify,
                of_type, worst, worst_jump);
            // Vertex k | edge k: the projection onto edge k's line crosses t_k.
            const Vec3 beside = t[k] + rng.uniform(0.1, 1.0) * o + height * n;
            check_boundary<12>({test::stack<4>({beside + kZeta * e, t[0], t[1], t[2]}), edge_type},
                               {test::stack<4>({beside - kZeta * e, t[0], t[1], t[2]}),
                                static_cast<int>(PT::P_T0) + k},
                               classify, of_type, worst, worst_jump);
            if (HasFatalFailure()) return;
        }
        ++pairs;
    }
    report("point-triangle boundaries", worst);
    if (std::getenv("CONCORD_FD_VERBOSE")) std::printf("  worst jump %.2e\n", worst_jump);
    expect_within(worst);
    EXPECT_LE(worst_jump, kJumpTol);
}

// The edge-edge configurations are built for edge a's vertex ea0 and then permuted to reach
// the other vertices: reversing edge a swaps ea0/ea1, exchanging the edges swaps a/b.
enum class EdgePermutation { Identity, ReverseA, SwapEdges, SwapEdgesReverseB };

Vec12 permute(const std::array<Vec3, 4>& e, EdgePermutation perm) {
    switch (perm) {
        case EdgePermutation::Identity:
            return test::stack<4>({e[0], e[1], e[2], e[3]});
        case EdgePermutation::ReverseA:
            return test::stack<4>({e[1], e[0], e[2], e[3]});
        case EdgePermutation::SwapEdges:
            return test::stack<4>({e[2], e[3], e[0], e[1]});
        case EdgePermutation::SwapEdgesReverseB:
            return test::stack<4>({e[2], e[3], e[1], e[0]});
    }
    return {};
}

// The type a configuration built for ea0 (against edge b, or against eb0) has after `perm`.
EE permuted_type(EE type, EdgePermutation perm) {
    // Built types are EA_EB, EA0_EB and EA0_EB0 only.
    switch (perm) {
        case EdgePermutation::Identity:
            return type;
        case EdgePermutation::ReverseA:
            return type == EE::EA0_EB ? EE::EA1_EB : type == EE::EA0_EB0 ? EE::EA1_EB0 : type;
        case EdgePermutation::SwapEdges:
            return type == EE::EA0_EB ? EE::EA_EB0 : type;
        case EdgePermutation::SwapEdgesReverseB:
            return type == EE::EA0_EB ? EE::EA_EB1 : type == EE::EA0_EB0 ? EE::EA0_EB1 : type;
    }
    return type;
}

TEST(ClassifiedDistanceDerivatives, EdgeEdgeRegionBoundaries) {
    test::RandomPoints rng(15);
    WorstErrors worst;
    double worst_jump = 0.0;
    auto classify = [](const Vec12& x) {
        return static_cast<int>(edge_edge_distance_type(point_of(x, 0), point_of(x, 1),
                                                        point_of(x, 2), point_of(x, 3)));
    };
    auto of_type = [](int t) { return edge_edge_of_type(static_cast<EE>(t)); };
    const EdgePermutation perms[] = {EdgePermutation::Identity, EdgePermutation::ReverseA,
                                     EdgePermutation::SwapEdges,
                                     EdgePermutation::SwapEdgesReverseB};
    int pairs = 0;
    while (pairs < 200) {
        const Vec3 u = rng.unit_vector(), v = rng.unit_vector();
        if (test::sin_angle(u, v) < 0.2) continue;
        const Vec3 m = u.cross(v).normalized();
        const double la = rng.uniform(0.3, 1.5), lb = rng.uniform(0.3, 1.5);
        const Vec3 b0 = rng.point(), b1 = b0 + lb * v;
        const double gap = rng.uniform(0.05, 1.0);
        // Interior | vertex ea0: the lines' closest point on a crosses ea0 (s = 0) while the one
        // on b stays inside.
        {
            const Vec3 cb = b0 + rng.uniform(0.2, 0.8) * lb * v, ca = cb + gap * m;
            const std::array<Vec3, 4> in = {ca - kZeta * u, ca - kZeta * u + la * u, b0, b1};
            const std::array<Vec3, 4> out = {ca + kZeta * u, ca + kZeta * u + la * u, b0, b1};
            for (const auto perm : perms) {
                check_boundary<12>(
                    {permute(in, perm), static_cast<int>(permuted_type(EE::EA_EB, perm))},
                    {permute(out, perm), static_cast<int>(permuted_type(EE::EA0_EB, perm))},
                    classify, of_type, worst, worst_jump);
                if (HasFatalFailure()) return;
            }
        }
        // Vertex ea0 against edge b | against vertex eb0: ea0's projection onto b crosses eb0,
        // with edge a leaving b so that ea0 stays a's closest point.
        {
            const Vec3 w = m.cross(v).normalized();  // ⟂ v, ⟂ m
            const Vec3 a0 = b0 + gap * w;
            const Vec3 dir = (w + rng.uniform(-0.5, 0.5) * m).normalized();
            const std::array<Vec3, 4> in = {a0 + kZeta * v, a0 + kZeta * v + la * dir, b0, b1};
            const std::array<Vec3, 4> out = {a0 - kZeta * v, a0 - kZeta * v + la * dir, b0, b1};
            for (const auto perm : {EdgePermutation::Identity, EdgePermutation::ReverseA,
                                    EdgePermutation::SwapEdgesReverseB}) {
                check_boundary<12>(
                    {permute(in, perm), static_cast<int>(permuted_type(EE::EA0_EB, perm))},
                    {permute(out, perm), static_cast<int>(permuted_type(EE::EA0_EB0, perm))},
                    classify, of_type, worst, worst_jump);
                if (HasFatalFailure()) return;
            }
        }
        ++pairs;
    }
    report("edge-edge boundaries", worst);
    if (std::getenv("CONCORD_FD_VERBOSE")) std::printf("  worst jump %.2e\n", worst_jump);
    expect_within(worst);
    EXPECT_LE(worst_jump, kJumpTol);
}

}  // namespace
}  // namespace concord
