#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>

#include "audit/exact_reference.hpp"
#include "concord/collision/audit/triangle_intersection.hpp"

using namespace concord;
using concord::test::reference_triangles_intersect;

namespace {

using Tri = std::array<Vec3, 3>;

constexpr double kInf = std::numeric_limits<double>::infinity();

Tri translated(const Tri& t, const Vec3& by) {
    return {t[0] + by, t[1] + by, t[2] + by};
}

// The answer must not depend on which triangle comes first, on the starting vertex or on the
// orientation: all 2 x 6 x 6 orderings are checked, and the independent reference must agree.
void expect_intersect(const Tri& a, const Tri& b, bool expected) {
    ASSERT_EQ(reference_triangles_intersect(a, b), expected) << "reference disagrees";
    std::array<int, 3> pa = {0, 1, 2};
    do {
        std::array<int, 3> pb = {0, 1, 2};
        do {
            const Tri a2 = {a[pa[0]], a[pa[1]], a[pa[2]]};
            const Tri b2 = {b[pb[0]], b[pb[1]], b[pb[2]]};
            ASSERT_EQ(triangles_intersect(a2[0], a2[1], a2[2], b2[0], b2[1], b2[2]), expected)
                << "A order " << pa[0] << pa[1] << pa[2] << ", B order " << pb[0] << pb[1] << pb[2];
            ASSERT_EQ(triangles_intersect(b2[0], b2[1], b2[2], a2[0], a2[1], a2[2]), expected)
                << "swapped; A order " << pa[0] << pa[1] << pa[2] << ", B order " << pb[0] << pb[1]
                << pb[2];
        } while (std::next_permutation(pb.begin(), pb.end()));
    } while (std::next_permutation(pa.begin(), pa.end()));
}

double up(double x) {
    return std::nextafter(x, kInf);
}
double down(double x) {
    return std::nextafter(x, -kInf);
}

const Tri kUnitXY = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};

}  // namespace

TEST(TrianglesIntersect, SeparatedTriangles) {
    expect_intersect(kUnitXY, translated(kUnitXY, Vec3(0, 0, 1e-9)), false);
    expect_intersect(kUnitXY, {Vec3(2, 2, -1), Vec3(3, 2, 1), Vec3(2, 3, 1)}, false);
    // Planes cross, but beyond the triangles: B cuts z = 0 along x + y = 1.5.
    expect_intersect(kUnitXY, {Vec3(1.5, 0, -1), Vec3(0, 1.5, -1), Vec3(0.75, 0.75, 1)}, false);
}

TEST(TrianglesIntersect, CrossingAndPiercing) {
    // B stands vertically through A's interior.
    expect_intersect(kUnitXY, {Vec3(0.2, 0.2, -1), Vec3(0.3, 0.2, 1), Vec3(0.2, 0.3, 1)}, true);
    // One edge of B pierces A's interior.
    const Tri big = {Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(0, 4, 0)};
    expect_intersect(big, {Vec3(1, 1, -1), Vec3(1, 1, 1), Vec3(10, 10, 0)}, true);
    // B stands in the plane x = 1 and cuts A along y in [0, 1], starting at A's edge.
    expect_intersect({Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(1, 2, 0)},
                     {Vec3(1, 1, -1), Vec3(1, 1, 1), Vec3(1, -2, 0)}, true);
}

TEST(TrianglesIntersect, TouchingCountsAsIntersecting) {
    // A vertex of B on A's interior, with B otherwise above.
    const Tri vertex_on_face = {Vec3(0.25, 0.25, 0), Vec3(0.5, 0.25, 1), Vec3(0.25, 0.5, 1)};
    expect_intersect(kUnitXY, vertex_on_face, true);
    // A vertex of B on an edge of A.
    expect_intersect(kUnitXY, {Vec3(0.5, 0, 0), Vec3(0.5, -1, 1), Vec3(0.6, 0, 1)}, true);
    // Shared vertex.
    expect_intersect(kUnitXY, {Vec3(0, 0, 0), Vec3(-1, 0, 1), Vec3(0, -1, 1)}, true);
    // Edge on edge: B's edge crosses the plane exactly on A's edge y = 0, B lies in x = 0.5.
    expect_intersect(kUnitXY, {Vec3(0.5, -1, 1), Vec3(0.5, 1, -1), Vec3(0.5, -1, -1)}, true);
    // Shared edge, non-coplanar (a hinge).
    expect_intersect(kUnitXY, {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.5, -0.5, 0.5)}, true);
}

TEST(TrianglesIntersect, OneUlpEitherSideOfTouching) {
    // Edge on edge, shifted along y by +-2^-40: through A's interior, or just past its edge.
    const double d = std::ldexp(1.0, -40);
    const Tri edge_on_edge = {Vec3(0.5, -1, 1), Vec3(0.5, 1, -1), Vec3(0.5, -1, -1)};
    expect_intersect(kUnitXY, translated(edge_on_edge, Vec3(0, d, 0)), true);
    expect_intersect(kUnitXY, translated(edge_on_edge, Vec3(0, -d, 0)), false);

    // A tilted plane z = x + y, a vertex exactly on it, then one ulp above or below; also far
    // from the origin, where one ulp is 2^-12.
    for (double offset : {0.0, std::ldexp(1.0, 40)}) {
        const Vec3 shift = Vec3::Constant(offset);
        const Tri a = translated({Vec3(0, 0, 0), Vec3(1, 0, 1), Vec3(0, 1, 1)}, shift);
        Tri b =
            translated({Vec3(0.375, 0.25, 0.625), Vec3(0.375, 0.25, 2), Vec3(0.5, 0.25, 2)}, shift);
        expect_intersect(a, b, true);
        const double on = b[0].z();
        b[0].z() = up(on);
        expect_intersect(a, b, false);
        b[0].z() = down(on);
        expect_intersect(a, b, true);
    }

    // Vertex on face, then lifted by one ulp.
    Tri b = {Vec3(0.25, 0.25, 0), Vec3(0.5, 0.25, 1), Vec3(0.25, 0.5, 1)};
    b[0].z() = up(0.0);  // the smallest subnormal: still strictly above
    expect_intersect(kUnitXY, b, false);
}

TEST(TrianglesIntersect, CoplanarCases) {
    const Tri a = {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 2, 0)};
    // Overlapping, contained, sharing an edge, sharing part of an edge, sharing a vertex.
    expect_intersect(a, {Vec3(0.5, 0.5, 0), Vec3(3, 0.5, 0), Vec3(0.5, 3, 0)}, true);
    expect_intersect(a, {Vec3(0.25, 0.25, 0), Vec3(0.5, 0.25, 0), Vec3(0.25, 0.5, 0)}, true);
    expect_intersect(a, {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, -2, 0)}, true);
    expect_intersect(a, {Vec3(1, 0, 0), Vec3(3, 0, 0), Vec3(1, -2, 0)}, true);
    expect_intersect(a, {Vec3(2, 0, 0), Vec3(3, 0, 0), Vec3(3, -1, 0)}, true);
    // A vertex of B on A's hypotenuse x + y = 2, then one ulp outside it.
    expect_intersect(a, {Vec3(1, 1, 0), Vec3(2, 2, 0), Vec3(1, 2, 0)}, true);
    expect_intersect(a, {Vec3(1, up(1), 0), Vec3(2, 2, 0), Vec3(1, 2, 0)}, false);
    // Disjoint.
    expect_intersect(a, {Vec3(2, 2, 0), Vec3(3, 2, 0), Vec3(2, 3, 0)}, false);
    // Star of David: no vertex inside the other, only edge crossings.
    expect_intersect({Vec3(0, 0, 0), Vec3(4, 0, 0), Vec3(2, 3, 0)},
                     {Vec3(0, 2, 0), Vec3(4, 2, 0), Vec3(2, -1, 0)}, true);
    // In the tilted plane x + y + z = 1: touching at a midpoint, then disjoint.
    const Tri t = {Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
    expect_intersect(t, {Vec3(0.5, 0.5, 0), Vec3(1, 1, -1), Vec3(1.5, 0.5, -1)}, true);
    expect_intersect(t, {Vec3(2, -1, 0), Vec3(2, 0, -1), Vec3(3, -1, -1)}, false);
    // Vertical plane x = 0.5, so the projection must not drop an axis parallel to it.
    expect_intersect({Vec3(0.5, 0, 0), Vec3(0.5, 1, 0), Vec3(0.5, 0, 1)},
                     {Vec3(0.5, 0.5, 0.5), Vec3(0.5, 2, 2), Vec3(0.5, 2, 0)}, true);
    expect_intersect({Vec3(0.5, 0, 0), Vec3(0.5, 1, 0), Vec3(0.5, 0, 1)},
                     {Vec3(0.5, 0.5, up(0.5)), Vec3(0.5, 2, 2), Vec3(0.5, 2, 0.75)}, false);
}

TEST(TrianglesIntersect, DegenerateTriangles) {
    // A segment (collinear triangle) through A, beside A, and ending exactly on A.
    expect_intersect(kUnitXY, {Vec3(0.2, 0.2, -1), Vec3(0.2, 0.2, 1), Vec3(0.2, 0.2, 0.5)}, true);
    expect_intersect(kUnitXY, {Vec3(0.8, 0.8, -1), Vec3(0.8, 0.8, 1), Vec3(0.8, 0.8, 0.5)}, false);
    expect_intersect(kUnitXY, {Vec3(0.2, 0.2, 0), Vec3(0.2, 0.2, 1), Vec3(0.2, 0.2, 0.5)}, true);
    // A segment lying in A's plane, crossing its edge, and one outside it.
    expect_intersect(kUnitXY, {Vec3(-1, 0.5, 0), Vec3(1, 0.5, 0), Vec3(0, 0.5, 0)}, true);
    expect_intersect(kUnitXY, {Vec3(-1, 2, 0), Vec3(2, 2, 0), Vec3(0, 2, 0)}, false);
    // A point (all three vertices equal) on A and off A.
    const Vec3 on(0.25, 0.5, 0), off(0.25, 0.5, up(0.0));
    expect_intersect(kUnitXY, {on, on, on}, true);
    expect_intersect(kUnitXY, {off, off, off}, false);
    // Both degenerate: crossing segments, skew segments, collinear overlapping, equal points.
    expect_intersect({Vec3(0, 0, 0), Vec3(2, 2, 2), Vec3(1, 1, 1)},
                     {Vec3(0, 2, 0), Vec3(2, 0, 2), Vec3(2, 0, 2)}, true);
    expect_intersect({Vec3(0, 0, 0), Vec3(2, 2, 2), Vec3(1, 1, 1)},
                     {Vec3(0, 2, 0), Vec3(2, 0, up(2)), Vec3(2, 0, up(2))}, false);
    expect_intersect({Vec3(0, 0, 0), Vec3(2, 2, 2), Vec3(0, 0, 0)},
                     {Vec3(1, 1, 1), Vec3(3, 3, 3), Vec3(3, 3, 3)}, true);
    expect_intersect({Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3(0, 0, 0)},
                     {Vec3(2, 2, 2), Vec3(3, 3, 3), Vec3(3, 3, 3)}, false);
    expect_intersect({on, on, on}, {on, on, on}, true);
    expect_intersect({on, on, on}, {off, off, off}, false);
}

TEST(SegmentIntersects, SegmentsAndTriangles) {
    EXPECT_TRUE(segments_intersect(Vec3(0, 0, 0), Vec3(1, 1, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)));
    EXPECT_FALSE(
        segments_intersect(Vec3(0, 0, 0), Vec3(1, 1, 0), Vec3(1, 0, up(0.0)), Vec3(0, 1, 0)));
    EXPECT_TRUE(segments_intersect(Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3(1, 1, 1), Vec3(5, 0, 0)));
    // The end of the first segment on the interior of the second, and just short of it.
    EXPECT_TRUE(segments_intersect(Vec3(0, 1, 0), Vec3(0.5, 0, 0), Vec3(0, 0, 0), Vec3(1, 0, 0)));
    EXPECT_FALSE(
        segments_intersect(Vec3(0, 1, 0), Vec3(0.5, up(0.0), 0), Vec3(0, 0, 0), Vec3(1, 0, 0)));
    EXPECT_TRUE(segment_intersects_triangle(Vec3(0.5, 0, -1), Vec3(0.5, 0, 1), Vec3(0, 0, 0),
                                            Vec3(1, 0, 0), Vec3(0, 1, 0)));
    EXPECT_FALSE(segment_intersects_triangle(Vec3(0.5, down(0.0), -1), Vec3(0.5, down(0.0), 1),
                                             Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)));
    EXPECT_TRUE(collinear(Vec3(1, 2, 3), Vec3(2, 4, 6), Vec3(-1, -2, -3)));
    EXPECT_FALSE(collinear(Vec3(1, 2, 3), Vec3(2, 4, 6), Vec3(-1, -2, down(-3))));
}

TEST(PointBelowPlane, OnThePlaneCounts) {
    const Vec3 o(0, 1, 0), n(0, 1, 0);
    EXPECT_FALSE(point_below_plane(Vec3(5, 2, 5), o, n));
    EXPECT_TRUE(point_below_plane(Vec3(5, 1, 5), o, n));
    EXPECT_TRUE(point_below_plane(Vec3(5, down(1), 5), o, n));
    EXPECT_FALSE(point_below_plane(Vec3(5, up(1), 5), o, n));
    // Tilted plane with an unnormalised normal: (1, 1, 1) . (p - o) = 0 for p = (0.5, 0.25, 0.25).
    EXPECT_TRUE(point_below_plane(Vec3(0.5, 0.25, 0.25), Vec3(1, 0, 0), Vec3(1, 1, 1)));
    EXPECT_FALSE(point_below_plane(Vec3(0.5, 0.25, up(0.25)), Vec3(1, 0, 0), Vec3(1, 1, 1)));
}

namespace {

struct CrossCheckStats {
    int checked = 0, intersecting = 0;
};

void cross_check(const Tri& a, const Tri& b, CrossCheckStats& stats) {
    const bool expected = reference_triangles_intersect(a, b);
    ++stats.checked;
    stats.intersecting += expected;
    ASSERT_EQ(triangles_intersect(a[0], a[1], a[2], b[0], b[1], b[2]), expected)
        << "A = " << a[0].transpose() << " | " << a[1].transpose() << " | " << a[2].transpose()
        << "\nB = " << b[0].transpose() << " | " << b[1].transpose() << " | " << b[2].transpose();
    ASSERT_EQ(triangles_intersect(b[0], b[1], b[2], a[0], a[1], a[2]), expected) << "swapped";
}

}  // namespace

// A small integer grid makes exact touching, coplanarity and degenerate triangles frequent.
TEST(TrianglesIntersect, RandomIntegerGridAgreesWithReference) {
    std::mt19937 rng(101);
    std::uniform_int_distribution<int> coord(0, 3), pick(0, 2), kind(0, 3);
    auto grid_point = [&] { return Vec3(coord(rng), coord(rng), coord(rng)); };
    CrossCheckStats stats;
    for (int t = 0; t < 4000; ++t) {
        Tri a = {grid_point(), grid_point(), grid_point()};
        Tri b = {grid_point(), grid_point(), grid_point()};
        // Force shared vertices / edges a quarter of the time each.
        const int k = kind(rng);
        if (k == 1) b[pick(rng)] = a[pick(rng)];
        if (k == 2) {
            b[0] = a[0];
            b[1] = a[1];
        }
        cross_check(a, b, stats);
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(stats.intersecting, stats.checked / 5);
    EXPECT_LT(stats.intersecting, stats.checked * 4 / 5);
}

// Grid configurations scaled by 0.1 (so rounded) and then nudged by single ulps: the touching
// cases turn into near misses and near hits on both sides.
TEST(TrianglesIntersect, NearDegenerateAgreesWithReference) {
    std::mt19937 rng(102);
    std::uniform_int_distribution<int> coord(0, 3), nudge(-1, 1);
    auto near_grid_point = [&] {
        Vec3 p(0.1 * coord(rng), 0.1 * coord(rng), 0.1 * coord(rng));
        for (int k = 0; k < 3; ++k) {
            const int s = nudge(rng);
            if (s > 0) p[k] = up(p[k]);
            if (s < 0) p[k] = down(p[k]);
        }
        return p;
    };
    CrossCheckStats stats;
    for (int t = 0; t < 1500; ++t) {
        const Tri a = {near_grid_point(), near_grid_point(), near_grid_point()};
        const Tri b = {near_grid_point(), near_grid_point(), near_grid_point()};
        cross_check(a, b, stats);
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(stats.intersecting, stats.checked / 10);
    EXPECT_LT(stats.intersecting, stats.checked * 9 / 10);
}

TEST(TrianglesIntersect, RandomContinuousAgreesWithReference) {
    std::mt19937 rng(103);
    std::uniform_real_distribution<double> u(0, 1);
    auto point = [&] { return Vec3(u(rng), u(rng), u(rng)); };
    CrossCheckStats stats;
    for (int t = 0; t < 800; ++t) {
        cross_check({point(), point(), point()}, {point(), point(), point()}, stats);
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(stats.intersecting, stats.checked / 10);
    EXPECT_LT(stats.intersecting, stats.checked * 9 / 10);
}

// The lower-dimensional tests are public too; a segment is the degenerate triangle (p, q, q).
TEST(SegmentIntersects, RandomIntegerGridAgreesWithReference) {
    std::mt19937 rng(104);
    std::uniform_int_distribution<int> coord(0, 2);
    auto grid_point = [&] { return Vec3(coord(rng), coord(rng), coord(rng)); };
    int segment_hits = 0, triangle_hits = 0;
    const int trials = 3000;
    for (int t = 0; t < trials; ++t) {
        const Vec3 p = grid_point(), q = grid_point(), r = grid_point(), s = grid_point(),
                   c = grid_point();
        const bool segments = reference_triangles_intersect({p, q, q}, {r, s, s});
        ASSERT_EQ(segments_intersect(p, q, r, s), segments)
            << p.transpose() << " | " << q.transpose() << " vs " << r.transpose() << " | "
            << s.transpose();
        const bool triangle = reference_triangles_intersect({p, q, q}, {r, s, c});
        ASSERT_EQ(segment_intersects_triangle(p, q, r, s, c), triangle)
            << p.transpose() << " | " << q.transpose() << " vs " << r.transpose() << " | "
            << s.transpose() << " | " << c.transpose();
        segment_hits += segments;
        triangle_hits += triangle;
    }
    EXPECT_GT(segment_hits, trials / 20);
    EXPECT_LT(triangle_hits, trials * 19 / 20);
}
