// The contact Hessians' PSD projection (project_translation_invariant_to_psd, the one
// BarrierEnergy uses) against the exact eigen-clamped projection on real barrier Hessians:
// point-triangle pairs of every distance type and edge-edge pairs (general, and nearly parallel
// with the mollifier active), at distances from 1e-6 dhat to dhat, near the origin and 100 m
// away from it (where the coordinates' round-off is largest relative to the gaps).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "concord/collision/barrier/barrier.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/edge_edge_mollifier.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "concord/math/psd_projection.hpp"
#include "concord/math/translation_invariant_psd.hpp"
#include "distance/random_configs.hpp"

namespace concord {
namespace {

constexpr double kDhat = 1e-6;  // squared activation distance: dhat = 1e-3 m, as in the scenes

struct Tally {
    int samples = 0, reduced = 0, full = 0;
    double worst_relative = 0.0;  // max ||R - P||_F / ||H||_F
};

// Checks one Hessian; the accuracy bound of translation_invariant_psd.hpp with A = H.
void check(const Mat12& H, Tally& t) {
    PsdPath path;
    const Mat12 R = project_translation_invariant_to_psd<4>(H, &path);
    const Mat12 P = project_to_psd<12>(H);
    const double scale = H.norm();
    ++t.samples;
    t.reduced += path == PsdPath::Reduced;
    t.full += path == PsdPath::Full;
    const double rel = (R - P).norm() / scale;
    t.worst_relative = std::max(t.worst_relative, rel);
    // Round-off of two eigen decompositions plus the tolerated translation residual
    // (kTranslationTolerance of the largest entry, times at most 12 entries per row).
    EXPECT_LE(rel, 1e-8) << "path " << static_cast<int>(path);
    const double lo =
        Eigen::SelfAdjointEigenSolver<Mat12>(R, Eigen::EigenvaluesOnly).eigenvalues()[0];
    EXPECT_GE(lo, -1e-12 * scale);
}

void report(const char* what, const Tally& t) {
    if (std::getenv("CONCORD_FD_VERBOSE"))
        std::printf("%s: %d Hessians, %d reduced, %d full, worst ||R - P|| / ||H|| %.2e\n", what,
                    t.samples, t.reduced, t.full, t.worst_relative);
}

}  // namespace

TEST(BarrierPsdProjection, PointTriangleHessiansOfEveryType) {
    test::RandomPoints rng(71);
    Tally tally;
    std::array<int, 7> per_type{};
    for (int draw = 0; tally.samples < 3000; ++draw) {
        ASSERT_LT(draw, 1000000);
        const Vec3 offset = draw % 2 ? Vec3(100.0, -100.0, 100.0) : Vec3::Zero();
        const Vec3 t0 = offset + 0.1 * rng.point(), t1 = offset + 0.1 * rng.point(),
                   t2 = offset + 0.1 * rng.point();
        if (test::triangle_quality(t0, t1, t2) < 0.05) continue;
        const Vec3 n = (t1 - t0).cross(t2 - t0).normalized();
        // Above the triangle's plane at a distance in [1e-6, 1] dhat, over the face, its edges
        // or its corners.
        const double height = std::sqrt(kDhat) * std::pow(10.0, rng.uniform(-6.0, 0.0));
        Vec3 p = t0 + rng.uniform(-0.3, 1.0) * (t1 - t0) + rng.uniform(-0.3, 1.0) * (t2 - t0) +
                 (draw % 3 ? 1.0 : -1.0) * height * n;
        if (draw % 4 == 0) {  // just beyond a corner: the vertex types
            const std::array<Vec3, 3> t{t0, t1, t2};
            const Vec3 corner = t[static_cast<std::size_t>(draw / 4 % 3)];
            const Vec3 out = (corner - (t0 + t1 + t2) / 3.0).normalized() + 0.3 * n;
            p = corner + height * out.normalized();
        }
        const PointTriangleDistanceType type = point_triangle_distance_type(p, t0, t1, t2);
        const double d = point_triangle_distance_sq(p, t0, t1, t2, type);
        if (!(d > 0.0 && d < kDhat)) continue;
        ++per_type[static_cast<std::size_t>(type)];
        check(barrier_hessian<12>(d, kDhat, point_triangle_distance_sq_gradient(p, t0, t1, t2, type),
                                  point_triangle_distance_sq_hessian(p, t0, t1, t2, type)),
              tally);
    }
    report("point-triangle", tally);
    for (int k = 0; k < 7; ++k) EXPECT_GT(per_type[static_cast<std::size_t>(k)], 10) << "type " << k;
    // The reduced path is the point: real barrier Hessians pass the invariance check.
    EXPECT_GE(tally.reduced, tally.samples * 99 / 100);
}

TEST(BarrierPsdProjection, EdgeEdgeHessiansIncludingMollified) {
    test::RandomPoints rng(72);
    Tally tally, mollified;
    for (int draw = 0; tally.samples < 3000; ++draw) {
        ASSERT_LT(draw, 1000000);
        const Vec3 offset = draw % 2 ? Vec3(-100.0, 100.0, 100.0) : Vec3::Zero();
        const Vec3 u = rng.unit_vector(), m = u.unitOrthogonal(), side = u.cross(m);
        // Every third pair nearly parallel (angle 0.001-0.03 rad: the mollifier is active).
        const double theta = draw % 3 == 0 ? rng.uniform(0.001, 0.03) : rng.uniform(0.1, 1.5);
        const Vec3 v = std::cos(theta) * u + std::sin(theta) * side;
        const double gap = std::sqrt(kDhat) * std::pow(10.0, rng.uniform(-6.0, 0.0));
        const Vec3 a0 = offset + 0.1 * rng.point();
        const Vec3 a1 = a0 + 0.1 * u;
        const Vec3 ca = a0 + rng.uniform(-0.02, 0.12) * u;  // beyond the ends too: other types
        const Vec3 b0 = ca + gap * m - rng.uniform(-0.02, 0.12) * v, b1 = b0 + 0.1 * v;
        const EdgeEdgeDistanceType type = edge_edge_distance_type(a0, a1, b0, b1);
        const double d = edge_edge_distance_sq(a0, a1, b0, b1, type);
        if (!(d > 0.0 && d < kDhat)) continue;
        const Vec12 g = edge_edge_distance_sq_gradient(a0, a1, b0, b1, type);
        const Mat12 Hb = barrier_hessian<12>(d, kDhat, g, edge_edge_distance_sq_hessian(a0, a1, b0, b1, type));
        const double eps_x = edge_edge_mollifier_threshold(a0, a1, b0, b1);
        const double mol = edge_edge_mollifier(a0, a1, b0, b1, eps_x);
        if (mol == 1.0) {
            check(Hb, tally);
            continue;
        }
        const Mat12 H = mollified_hessian(mol, edge_edge_mollifier_gradient(a0, a1, b0, b1, eps_x),
                                          edge_edge_mollifier_hessian(a0, a1, b0, b1, eps_x),
                                          barrier(d, kDhat), barrier_gradient<12>(d, kDhat, g), Hb);
        check(H, tally);
        check(H, mollified);
    }
    report("edge-edge", tally);
    report("edge-edge, mollified", mollified);
    EXPECT_GT(mollified.samples, 300);
    EXPECT_GE(tally.reduced, tally.samples * 99 / 100);
}

}  // namespace concord
