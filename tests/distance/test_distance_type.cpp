// Closest-feature classification: every enum value on a hand-built case, degenerate input,
// and agreement with a brute-force segment/triangle distance on random input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "concord/collision/distance/distance_type.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/point_edge.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "distance/random_configs.hpp"

namespace concord {
namespace {

using PE = PointEdgeDistanceType;
using PT = PointTriangleDistanceType;
using EE = EdgeEdgeDistanceType;

TEST(PointEdgeDistanceType, EveryType) {
    const Vec3 e0(0, 0, 0), e1(1, 0, 0);
    EXPECT_EQ(point_edge_distance_type(Vec3(-1, 1, 0), e0, e1), PE::P_E0);
    EXPECT_EQ(point_edge_distance_type(Vec3(2, 0, 1), e0, e1), PE::P_E1);
    EXPECT_EQ(point_edge_distance_type(Vec3(0.5, 2, 0), e0, e1), PE::P_E);
    EXPECT_EQ(point_edge_distance_type(Vec3(0.999, -3, 0), e0, e1), PE::P_E);
    // A zero-length edge is a point.
    EXPECT_EQ(point_edge_distance_type(Vec3(0.5, 2, 0), e0, e0), PE::P_E0);
}

TEST(PointTriangleDistanceType, EveryType) {
    const Vec3 t0(0, 0, 0), t1(1, 0, 0), t2(0, 1, 0);
    EXPECT_EQ(point_triangle_distance_type(Vec3(-1, -1, 1), t0, t1, t2), PT::P_T0);
    EXPECT_EQ(point_triangle_distance_type(Vec3(2, -1, 0), t0, t1, t2), PT::P_T1);
    EXPECT_EQ(point_triangle_distance_type(Vec3(-1, 2, 0.5), t0, t1, t2), PT::P_T2);
    EXPECT_EQ(point_triangle_distance_type(Vec3(0.5, -1, 1), t0, t1, t2), PT::P_E0);
    EXPECT_EQ(point_triangle_distance_type(Vec3(1, 1, 0), t0, t1, t2), PT::P_E1);
    EXPECT_EQ(point_triangle_distance_type(Vec3(-1, 0.5, 2), t0, t1, t2), PT::P_E2);
    EXPECT_EQ(point_triangle_distance_type(Vec3(0.25, 0.25, 3), t0, t1, t2), PT::P_T);
    EXPECT_EQ(point_triangle_distance_type(Vec3(0.25, 0.25, -3), t0, t1, t2), PT::P_T);
    // Just inside the face near a corner, and just outside across an edge.
    EXPECT_EQ(point_triangle_distance_type(Vec3(1e-9, 1e-9, 1), t0, t1, t2), PT::P_T);
    EXPECT_EQ(point_triangle_distance_type(Vec3(0.5, -1e-9, 1), t0, t1, t2), PT::P_E0);
}

TEST(PointTriangleDistanceType, DegenerateTrianglesNeverNameADegenerateEdge) {
    // Two coincident vertices: the triangle is the segment t1-t2 (= t0-t2).
    {
        const Vec3 t0(0, 0, 0), t1(0, 0, 0), t2(1, 0, 0);
        const Vec3 p(0.5, 1, 0);
        const PT type = point_triangle_distance_type(p, t0, t1, t2);
        EXPECT_TRUE(type == PT::P_E1 || type == PT::P_E2) << static_cast<int>(type);
        EXPECT_DOUBLE_EQ(point_triangle_distance_sq(p, t0, t1, t2), 1.0);
        EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(-1, 0, 1), t0, t1, t2), 2.0);
    }
    // Collinear vertices: beyond either end the closest feature is a vertex, not a line.
    {
        const Vec3 t0(0, 0, 0), t1(1, 0, 0), t2(2, 0, 0);
        EXPECT_EQ(point_triangle_distance_type(Vec3(3, 1, 0), t0, t1, t2), PT::P_T2);
        EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(3, 1, 0), t0, t1, t2), 2.0);
        EXPECT_EQ(point_triangle_distance_type(Vec3(-1, 0.5, 0), t0, t1, t2), PT::P_T0);
        EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(0.5, 0, 2), t0, t1, t2), 4.0);
    }
    // All three vertices coincide.
    {
        const Vec3 t(1, 1, 1);
        EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(1, 1, 3), t, t, t), 4.0);
    }
}

TEST(EdgeEdgeDistanceType, EveryType) {
    // Interior to interior.
    EXPECT_EQ(edge_edge_distance_type(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, -1, 1), Vec3(0, 1, 1)),
              EE::EA_EB);
    // Vertex-vertex: two edges pointing away from each other's start; the other three by
    // reversing one or both edges.
    const Vec3 a0(0, 0, 0), a1(-1, -0.2, 0.2), b0(0, 1, 0), b1(0, 2, -0.3);
    EXPECT_EQ(edge_edge_distance_type(a0, a1, b0, b1), EE::EA0_EB0);
    EXPECT_EQ(edge_edge_distance_type(a0, a1, b1, b0), EE::EA0_EB1);
    EXPECT_EQ(edge_edge_distance_type(a1, a0, b0, b1), EE::EA1_EB0);
    EXPECT_EQ(edge_edge_distance_type(a1, a0, b1, b0), EE::EA1_EB1);
    // A vertex of b against the interior of a.
    const Vec3 c0(-1, 0, 0), c1(1, 0, 0), d0(0, 1, 0.5), d1(0, 2, 1);
    EXPECT_EQ(edge_edge_distance_type(c0, c1, d0, d1), EE::EA_EB0);
    EXPECT_EQ(edge_edge_distance_type(c0, c1, d1, d0), EE::EA_EB1);
    // A vertex of a against the interior of b.
    EXPECT_EQ(edge_edge_distance_type(d0, d1, c0, c1), EE::EA0_EB);
    EXPECT_EQ(edge_edge_distance_type(d1, d0, c0, c1), EE::EA1_EB);
    EXPECT_DOUBLE_EQ(edge_edge_distance_sq(d1, d0, c0, c1), 1.25);
}

TEST(EdgeEdgeDistanceType, ParallelEdgesUseAPointEdgeType) {
    const Vec3 a0(0, 0, 0), a1(1, 0, 0), b0(0.5, 1, 0), b1(2, 1, 0);
    const EE type = edge_edge_distance_type(a0, a1, b0, b1);
    EXPECT_NE(type, EE::EA_EB);
    EXPECT_DOUBLE_EQ(edge_edge_distance_sq(a0, a1, b0, b1, type), 1.0);
    // Degenerate (zero-length) edges.
    EXPECT_EQ(edge_edge_distance_type(a0, a0, b0, b1), EE::EA0_EB0);
    EXPECT_DOUBLE_EQ(
        edge_edge_distance_sq(Vec3(1, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(2, 1, 0)), 1.0);
}

TEST(EdgeEdgeDistanceType, NearlyParallelEdgesAboveTheThresholdAreLineLine) {
    // Edges crossing at their midpoints 0.1 apart, at angles down to just above the parallel
    // threshold (sin²θ = 1e-20). Before the determinant came from a cross product these were
    // classified as endpoint pairs from about 1e-8 rad on.
    const Vec3 offset(0.3, 0.7, -0.2);
    for (const double theta : {1e-2, 1e-4, 1e-6, 1e-8, 1e-9, 3e-10}) {
        const Vec3 ea0 = offset + Vec3(-1, 0, 0), ea1 = offset + Vec3(1, 0, 0);
        const Vec3 dir(std::cos(theta), std::sin(theta), 0.0);
        const Vec3 eb0 = offset + Vec3(0, 0, 0.1) - dir, eb1 = offset + Vec3(0, 0, 0.1) + dir;
        EXPECT_EQ(edge_edge_distance_type(ea0, ea1, eb0, eb1), EE::EA_EB) << theta;
        EXPECT_NEAR(edge_edge_distance_sq(ea0, ea1, eb0, eb1), 0.01, 1e-15) << theta;
    }
}

// Brute-force references, independent of the classification code.
double segment_point_distance_sq(const Vec3& p, const Vec3& a, const Vec3& b) {
    const Vec3 e = b - a;
    const double s = std::clamp(e.dot(p - a) / e.squaredNorm(), 0.0, 1.0);
    return (p - (a + s * e)).squaredNorm();
}

double reference_point_triangle(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
    // Inside the prism over the triangle: the plane; otherwise the nearest edge.
    const Vec3 n = (t1 - t0).cross(t2 - t0);
    const bool inside = n.dot((t1 - t0).cross(p - t0)) >= 0 &&
                        n.dot((t2 - t1).cross(p - t1)) >= 0 && n.dot((t0 - t2).cross(p - t2)) >= 0;
    if (inside) {
        const double s = n.dot(p - t0);
        return s * s / n.squaredNorm();
    }
    return std::min({segment_point_distance_sq(p, t0, t1), segment_point_distance_sq(p, t1, t2),
                     segment_point_distance_sq(p, t2, t0)});
}

double reference_edge_edge(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
    double best =
        std::min({segment_point_distance_sq(a0, b0, b1), segment_point_distance_sq(a1, b0, b1),
                  segment_point_distance_sq(b0, a0, a1), segment_point_distance_sq(b1, a0, a1)});
    // Interior-interior only when the lines' closest points fall inside both segments.
    const Vec3 u = a1 - a0, v = b1 - b0, w = a0 - b0;
    const Mat2 A{{u.dot(u), -u.dot(v)}, {-u.dot(v), v.dot(v)}};
    const Vec2 st = A.inverse() * Vec2(-u.dot(w), v.dot(w));
    if (st.minCoeff() > 0 && st.maxCoeff() < 1) {
        best = std::min(best, (w + st[0] * u - st[1] * v).squaredNorm());
    }
    return best;
}

TEST(PointTriangleDistanceType, AgreesWithBruteForceOnRandomInput) {
    test::RandomPoints rng(17);
    int counts[7] = {};
    for (int i = 0; i < 20000; ++i) {
        const Vec3 p = rng.point(-2, 2), t0 = rng.point(), t1 = rng.point(), t2 = rng.point();
        if (test::triangle_quality(t0, t1, t2) < 1e-3) continue;
        const PT type = point_triangle_distance_type(p, t0, t1, t2);
        ++counts[static_cast<int>(type)];
        const double ref = reference_point_triangle(p, t0, t1, t2);
        ASSERT_NEAR(point_triangle_distance_sq(p, t0, t1, t2, type), ref, 1e-12 * (1 + ref))
            << "sample " << i << " type " << static_cast<int>(type);
    }
    for (int t = 0; t < 7; ++t) EXPECT_GT(counts[t], 100) << "type " << t << " barely sampled";
}

TEST(EdgeEdgeDistanceType, AgreesWithBruteForceOnRandomInput) {
    test::RandomPoints rng(23);
    int counts[9] = {};
    for (int i = 0; i < 20000; ++i) {
        const Vec3 a0 = rng.point(), a1 = rng.point(), b0 = rng.point(), b1 = rng.point();
        if (test::sin_angle(a1 - a0, b1 - b0) < 1e-3) continue;
        const EE type = edge_edge_distance_type(a0, a1, b0, b1);
        ++counts[static_cast<int>(type)];
        const double ref = reference_edge_edge(a0, a1, b0, b1);
        ASSERT_NEAR(edge_edge_distance_sq(a0, a1, b0, b1, type), ref, 1e-12 * (1 + ref))
            << "sample " << i << " type " << static_cast<int>(type);
    }
    for (int t = 0; t < 9; ++t) EXPECT_GT(counts[t], 100) << "type " << t << " barely sampled";
}

TEST(PointEdgeDistanceType, AgreesWithBruteForceOnRandomInput) {
    test::RandomPoints rng(29);
    for (int i = 0; i < 5000; ++i) {
        const Vec3 p = rng.point(-2, 2), e0 = rng.point(), e1 = rng.point();
        const double ref = segment_point_distance_sq(p, e0, e1);
        ASSERT_NEAR(point_edge_distance_sq(p, e0, e1), ref, 1e-12 * (1 + ref)) << i;
    }
}

}  // namespace
}  // namespace concord
