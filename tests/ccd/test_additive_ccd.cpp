// Known-answer cases of additive CCD: times of impact that can be computed by hand, parallel and
// grazing motion, no motion, starting in contact, degenerate primitives, parameters.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>

#include "ccd/reference_distance.hpp"
#include "concord/collision/ccd/additive_ccd.hpp"
#include "concord/collision/ccd/ccd_ground_truth.hpp"
#include "concord/collision/ccd/distance_estimate.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "concord/math/error.hpp"

namespace concord {
namespace {

const Vec3 kT0(0, 0, 0), kT1(1, 0, 0), kT2(0, 1, 0);  // triangle in z = 0

CCDResult pt(const Vec3& p0, const Vec3& p1, const CCDParams& params = {}) {
    return point_triangle_ccd(p0, kT0, kT1, kT2, p1, kT0, kT1, kT2, params);
}

// Distance of the point-triangle pair at time t (reference, long double).
double pt_distance_at(const Vec3& p0, const Vec3& p1, double t) {
    CCDQuery q;
    q.type = CCDQueryType::VertexFace;
    q.vertices = {p0, kT0, kT1, kT2, p1, kT0, kT1, kT2};
    return static_cast<double>(test::ref_distance(q, t));
}

TEST(AdditiveCCD, PointFallingOntoFaceHitsAtHalf) {
    const Vec3 p0(0.25, 0.25, 1), p1(0.25, 0.25, -1);  // true time of impact 0.5
    const CCDResult r = pt(p0, p1);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.5);
    // Head-on, l_p equals the approach speed, so the search stops after consuming the fraction
    // s = 0.9 of the gap: toi = 0.9 * 0.5 up to the rounding margin.
    EXPECT_NEAR(r.toi, 0.45, 1e-9);
    EXPECT_GT(pt_distance_at(p0, p1, r.toi), 0.0);
    EXPECT_FALSE(r.gave_up);
}

TEST(AdditiveCCD, RescalingControlsHowCloseToiGets) {
    const Vec3 p0(0.25, 0.25, 1), p1(0.25, 0.25, -1);
    for (double s : {0.5, 0.9, 0.99}) {
        CCDParams params;
        params.conservative_rescaling = s;
        const CCDResult r = pt(p0, p1, params);
        ASSERT_TRUE(r.collides) << s;
        EXPECT_LE(r.toi, 0.5) << s;
        EXPECT_GE(r.toi, s * 0.5 * (1 - 1e-9)) << s;
    }
}

TEST(AdditiveCCD, MovingTriangleAndPointMeetAtKnownTime) {
    // Point moves down by 1, triangle up by 1; gap 0.8 closes at t = 0.4.
    const Vec3 up(0, 0, 1);
    const Vec3 p0(0.2, 0.3, 0.8), p1 = p0 - up;
    const CCDResult r = point_triangle_ccd(p0, kT0, kT1, kT2, p1, kT0 + up, kT1 + up, kT2 + up);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.4);
    EXPECT_NEAR(r.toi, 0.9 * 0.4, 1e-9);
}

TEST(AdditiveCCD, MinSeparationIsReachedEarlier) {
    const Vec3 p0(0.25, 0.25, 1), p1(0.25, 0.25, -1);
    CCDParams params;
    params.min_separation = 0.1;  // distance 0.1 at t = 0.45
    const CCDResult r = pt(p0, p1, params);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.45);
    EXPECT_NEAR(r.toi, 0.9 * 0.45, 1e-9);
    EXPECT_GT(pt_distance_at(p0, p1, r.toi), 0.1);
}

TEST(AdditiveCCD, StartingWithinMinSeparationGivesZero) {
    CCDParams params;
    params.min_separation = 0.1;
    const CCDResult r = pt(Vec3(0.25, 0.25, 0.05), Vec3(0.25, 0.25, 1), params);  // moving away
    EXPECT_TRUE(r.collides);
    EXPECT_EQ(r.toi, 0.0);
    const CCDResult touching = pt(Vec3(0.25, 0.25, 0), Vec3(0.25, 0.25, 1));
    EXPECT_TRUE(touching.collides);
    EXPECT_EQ(touching.toi, 0.0);
}

TEST(AdditiveCCD, PassingBesideTheTriangleIsNoCollision) {
    const CCDResult r = pt(Vec3(2, 2, 1), Vec3(2, 2, -1));
    EXPECT_FALSE(r.collides);
    EXPECT_EQ(r.toi, 1.0);
}

TEST(AdditiveCCD, ParallelMotionAboveTheFaceIsNoCollision) {
    // Over the face at constant height 0.01 all the time: many small steps, no collision.
    const CCDResult r = pt(Vec3(0.1, 0.2, 0.01), Vec3(0.6, 0.2, 0.01));
    EXPECT_FALSE(r.collides);
    EXPECT_GT(r.iterations, 10);
}

TEST(AdditiveCCD, ApproachingTenfoldCloserStopsTheSearch) {
    // From 0.5 away to passing 0.01 over the face: the gap falls below (1 - s) of its initial
    // value, which additive CCD reports as a (conservative) collision before the closest
    // approach; the configuration at toi is still well separated.
    const Vec3 p0(-0.5, 0.2, 0.01), p1(1.5, 0.2, 0.01);
    const CCDResult r = pt(p0, p1);
    EXPECT_TRUE(r.collides);
    EXPECT_LT(r.toi, 0.25);  // reaches the face's edge at t = 0.25
    EXPECT_GT(pt_distance_at(p0, p1, r.toi), 0.01);
}

TEST(AdditiveCCD, GrazingAVertexInThePlaneIsFound) {
    // In the plane z = 0, the point's line touches the triangle only at vertex (0, 0, 0), at
    // t = 0.5.
    const Vec3 p0(-0.5, 0.5, 0), p1(0.5, -0.5, 0);
    const CCDResult r = pt(p0, p1);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.5);
    EXPECT_GT(r.toi, 0.0);
    EXPECT_GT(pt_distance_at(p0, p1, r.toi), 0.0);
}

TEST(AdditiveCCD, TouchingExactlyAtTheEndIsACollision) {
    const CCDResult r = pt(Vec3(0.25, 0.25, 1), Vec3(0.25, 0.25, 0));
    ASSERT_TRUE(r.collides);
    EXPECT_LT(r.toi, 1.0);
}

TEST(AdditiveCCD, NoMotionMeansNoCollision) {
    const Vec3 p(0.25, 0.25, 1e-6);
    const CCDResult r = pt(p, p);
    EXPECT_FALSE(r.collides);
    EXPECT_EQ(r.toi, 1.0);
    EXPECT_EQ(r.iterations, 0);
}

TEST(AdditiveCCD, CommonTranslationMeansNoCollision) {
    const Vec3 d(3, -2, 5);
    const Vec3 p(0.25, 0.25, 1e-3);
    const CCDResult r = point_triangle_ccd(p, kT0, kT1, kT2, p + d, kT0 + d, kT1 + d, kT2 + d);
    EXPECT_FALSE(r.collides);
}

TEST(AdditiveCCD, FarFromTheOriginGivesTheSameAnswer) {
    const Vec3 far(1e6, -3e5, 2e6);
    const Vec3 p0(0.25, 0.25, 1), p1(0.25, 0.25, -1);
    const CCDResult r = point_triangle_ccd(p0 + far, kT0 + far, kT1 + far, kT2 + far, p1 + far,
                                           kT0 + far, kT1 + far, kT2 + far);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.5);
    EXPECT_NEAR(r.toi, 0.45, 1e-6);
}

TEST(AdditiveCCD, TmaxLimitsTheSearch) {
    const Vec3 p0(0.25, 0.25, 1), p1(0.25, 0.25, -1);  // impact at 0.5
    CCDParams params;
    params.tmax = 0.4;
    const CCDResult before = pt(p0, p1, params);
    EXPECT_FALSE(before.collides);
    EXPECT_EQ(before.toi, 0.4);
    params.tmax = 2.0;  // the trajectories extend past t = 1
    const CCDResult r = pt(Vec3(0.25, 0.25, 2), Vec3(0.25, 0.25, 1), params);  // impact at t = 2
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 2.0);
    EXPECT_GT(r.toi, 1.0);
}

TEST(AdditiveCCD, IterationLimitGivesUpConservatively) {
    const Vec3 p0(0.1, 0.2, 1e-6), p1(0.6, 0.2, 1e-6);  // sliding over the face: ~10^6 steps
    CCDParams params;
    params.max_iterations = 10;
    const CCDResult r = pt(p0, p1, params);
    EXPECT_TRUE(r.collides);
    EXPECT_TRUE(r.gave_up);
    EXPECT_GT(r.toi, 0.0);
    EXPECT_LT(r.toi, 1e-3);
    EXPECT_GT(pt_distance_at(p0, p1, r.toi), 0.0);
}

TEST(AdditiveCCD, ZeroAreaTrianglesWork) {
    // t0 == t1: the library classification would reach the line formula of a zero-length edge.
    const Vec3 a(0, 0, 0), b(1, 0, 0);
    const DistanceEstimate e = point_triangle_distance_estimate(Vec3(0.5, 1, 0), a, a, b, 1e-13);
    EXPECT_DOUBLE_EQ(e.distance, 1.0);
    // Point passing through the middle of a segment-like triangle at t = 0.5.
    const CCDResult hit = point_triangle_ccd(Vec3(0.5, 0, 1), a, a, b, Vec3(0.5, 0, -1), a, a, b);
    ASSERT_TRUE(hit.collides);
    EXPECT_LE(hit.toi, 0.5);
    EXPECT_GT(hit.toi, 0.4);
    // All three vertices at one point.
    const CCDResult point = point_triangle_ccd(Vec3(1, 1, 1), a, a, a, Vec3(-1, -1, -1), a, a, a);
    ASSERT_TRUE(point.collides);
    EXPECT_LE(point.toi, 0.5);
    // Passing beside it.
    const CCDResult miss = point_triangle_ccd(Vec3(2, 1, 1), a, a, b, Vec3(2, 1, -1), a, a, b);
    EXPECT_FALSE(miss.collides);
}

TEST(AdditiveCCD, NonFiniteInputIsReportedAsContact) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const CCDResult r = pt(Vec3(0.25, 0.25, 1), Vec3(0.25, nan, -1));
    EXPECT_TRUE(r.collides);
    EXPECT_EQ(r.toi, 0.0);
}

TEST(AdditiveCCD, EdgesCrossingAtKnownTime) {
    // Edge a along x at z = 1 falling to z = -1, edge b along y at z = 0: cross at t = 0.5.
    const Vec3 a0(-1, 0, 1), a1(1, 0, 1), b0(0, -1, 0), b1(0, 1, 0), down(0, 0, -2);
    const CCDResult r = edge_edge_ccd(a0, a1, b0, b1, a0 + down, a1 + down, b0, b1);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.5);
    EXPECT_NEAR(r.toi, 0.45, 1e-9);
}

TEST(AdditiveCCD, EdgesPassingBesideEachOtherMiss) {
    const Vec3 a0(2, 0, 1), a1(3, 0, 1), b0(0, -1, 0), b1(0, 1, 0), down(0, 0, -2);
    const CCDResult r = edge_edge_ccd(a0, a1, b0, b1, a0 + down, a1 + down, b0, b1);
    EXPECT_FALSE(r.collides);
}

TEST(AdditiveCCD, ParallelEdgesApproaching) {
    // Parallel edges along x, 1 apart in y, closing at speed 2: contact at t = 0.5.
    const Vec3 a0(0, 0, 0), a1(1, 0, 0), b0(0.5, 1, 0), b1(1.5, 1, 0), d(0, -2, 0);
    const CCDResult r = edge_edge_ccd(a0, a1, b0, b1, a0, a1, b0 + d, b1 + d);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.5);
    EXPECT_NEAR(r.toi, 0.45, 1e-9);
    // Sliding along each other at distance 0.01: no collision.
    const Vec3 slide(2, 0, 0), lift(0, 0, 0.01);
    const CCDResult s =
        edge_edge_ccd(a0, a1, a0 + lift, a1 + lift, a0, a1, a0 + lift + slide, a1 + lift + slide);
    EXPECT_FALSE(s.collides);
}

TEST(AdditiveCCD, CoplanarEdgesSlidingIntoEachOther) {
    // Both in z = 0; edge a along x slides in +y into edge b (along x, at y = 1, overlapping in
    // x) and touches it at t = 0.5 along a whole segment.
    const Vec3 a0(0, 0, 0), a1(1, 0, 0), b0(0.5, 1, 0), b1(2, 1, 0), d(0, 2, 0);
    const CCDResult r = edge_edge_ccd(a0, a1, b0, b1, a0 + d, a1 + d, b0, b1);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.5);
    // Collinear, end to end, meeting at t = 0.5.
    const Vec3 c0(2, 0, 0), c1(3, 0, 0), e(-2, 0, 0);
    const CCDResult c = edge_edge_ccd(a0, a1, c0, c1, a0, a1, c0 + e, c1 + e);
    ASSERT_TRUE(c.collides);
    EXPECT_LE(c.toi, 0.5);
    EXPECT_NEAR(c.toi, 0.45, 1e-9);
}

TEST(AdditiveCCD, ZeroLengthEdges) {
    const Vec3 p(0.5, 0, 1), down(0, 0, -2), b0(0, 0, 0), b1(1, 0, 0);
    const CCDResult r = edge_edge_ccd(p, p, b0, b1, p + down, p + down, b0, b1);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.5);
    const CCDResult both = edge_edge_ccd(p, p, b0, b0, p + down, p + down, b0, b0);
    EXPECT_FALSE(both.collides);  // the point passes 0.5 away from b0
    const CCDResult meet = edge_edge_ccd(p, p, b0, b0, b0 - p, b0 - p, p, p);
    EXPECT_TRUE(meet.collides);  // the two points meet at t = 1/3
}

// Pairs whose closest-feature formulas are ill-conditioned, starting in exact contact (checked in
// rational arithmetic): the computed distance is a little positive from rounding, and only the
// distance's uncertainty makes CCD report the contact at t = 0.
TEST(AdditiveCCD, IllConditionedPairsStartingInContactAreCaught) {
    std::mt19937_64 rng(12);
    auto dyadic = [&](int bits, int scale) {  // a random multiple of 2^-bits in (-scale, scale)
        const long n = static_cast<long>(rng() % (2ul * scale << bits)) - (long(scale) << bits);
        return std::ldexp(static_cast<double>(n), -bits);
    };
    int checked = 0;
    for (int k = 0; k < 400; ++k) {
        // Everything in the tilted plane z = a x + b y, exactly (few significant bits).
        const double a = dyadic(4, 2), b = dyadic(4, 2);
        auto on_plane = [&](double x, double y) { return Vec3(x, y, a * x + b * y); };
        const int thin = 20 + static_cast<int>(rng() % 20);
        CCDQuery q;
        const Vec3 lift = Vec3(dyadic(6, 1), dyadic(6, 1), 1 + dyadic(6, 1));
        if (k % 2 == 0) {  // a sliver, the point on its median
            q.type = CCDQueryType::VertexFace;
            const Vec3 t0 = on_plane(dyadic(8, 1), dyadic(8, 1));
            const Vec3 t1 = on_plane(dyadic(8, 1), dyadic(8, 1));
            const Vec3 mid = 0.5 * (t0 + t1);
            const Vec3 t2 =
                on_plane(mid.x() + std::ldexp(1.0, -thin), mid.y() - std::ldexp(1.0, -thin));
            const Vec3 p = 0.5 * (mid + t2);
            q.vertices = {p, t0, t1, t2, p + lift, t0, t1, t2};
        } else {  // two nearly parallel edges crossing at their midpoints
            q.type = CCDQueryType::EdgeEdge;
            const Vec3 c = on_plane(dyadic(8, 1), dyadic(8, 1));
            const Vec3 u = on_plane(dyadic(8, 1), dyadic(8, 1));
            const Vec3 v = u + on_plane(std::ldexp(1.0, -thin), std::ldexp(1.0, -thin - 1));
            q.vertices = {c - u, c + u, c - v, c + v, c - u, c + u, c - v + lift, c + v + lift};
        }
        if (!primitives_touch_at(q, 0.0)) continue;  // rounding broke the construction
        ++checked;
        const CCDResult r = run_ccd_query(q);
        EXPECT_TRUE(r.collides) << k;
        EXPECT_EQ(r.toi, 0.0) << k;
    }
    EXPECT_GT(checked, 300);
}

TEST(AdditiveCCD, EdgeEdgeMinSeparation) {
    const Vec3 a0(-1, 0, 1), a1(1, 0, 1), b0(0, -1, 0), b1(0, 1, 0), down(0, 0, -2);
    CCDParams params;
    params.min_separation = 0.2;  // distance 0.2 at t = 0.4
    const CCDResult r = edge_edge_ccd(a0, a1, b0, b1, a0 + down, a1 + down, b0, b1, params);
    ASSERT_TRUE(r.collides);
    EXPECT_LE(r.toi, 0.4);
    EXPECT_NEAR(r.toi, 0.9 * 0.4, 1e-9);
}

// The CCD's first distance evaluation, returned as start_distance, is what the solver uses to
// decide which candidates can come within dhat on a segment (IncrementalPotential::ccd_step):
// it must never exceed the true distance at t = 0, and for pairs in general position it is that
// distance to rounding.
TEST(AdditiveCCD, StartDistanceIsALowerBoundOfTheDistanceAtTheStart) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    auto rand3 = [&] { return Vec3(u(rng), u(rng), u(rng)); };
    int tight = 0;
    for (int k = 0; k < 2000; ++k) {
        CCDQuery q;
        std::array<Vec3, 4> x0{rand3(), rand3(), rand3(), rand3()};
        if (k % 4 == 3) {  // (k odd: an edge-edge pair) nearly parallel edges
            x0[3] = x0[2] + (x0[1] - x0[0]) + 1e-9 * rand3();
        }
        q.type = k % 2 == 0 ? CCDQueryType::VertexFace : CCDQueryType::EdgeEdge;
        for (int i = 0; i < 4; ++i) {
            q.vertices[static_cast<std::size_t>(i)] = x0[static_cast<std::size_t>(i)];
            q.vertices[static_cast<std::size_t>(i + 4)] =
                x0[static_cast<std::size_t>(i)] + 0.3 * rand3();
        }
        CCDParams params;
        params.min_separation = k % 3 == 0 ? 0.0 : 1e-3;
        const auto& v = q.vertices;
        const CCDResult r =
            q.type == CCDQueryType::VertexFace
                ? point_triangle_ccd(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], params)
                : edge_edge_ccd(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], params);
        const double d0 = static_cast<double>(test::ref_distance(q, 0.0));
        EXPECT_LE(r.start_distance, d0) << k;
        if (k % 4 != 3) {
            EXPECT_NEAR(r.start_distance, d0, 1e-9) << k;
            ++tight;
        }
    }
    EXPECT_EQ(tight, 1500);
}

TEST(DistanceEstimate, AgreesWithTheDistanceFunctions) {
    const Vec3 p(0.3, 0.2, 0.7), a(0, 0, 0), b(1, 0.1, 0), c(0.2, 1, 0.1);
    const DistanceEstimate pt_e = point_triangle_distance_estimate(p, a, b, c, 1e-13);
    EXPECT_NEAR(pt_e.distance, std::sqrt(point_triangle_distance_sq(p, a, b, c)), 1e-15);
    EXPECT_LT(pt_e.uncertainty, 1e-12);
    const Vec3 e0(-1, 0.5, 0.3), e1(1, 0.4, 0.9);
    const DistanceEstimate ee_e = edge_edge_distance_estimate(a, b, e0, e1, 1e-13);
    EXPECT_NEAR(ee_e.distance, std::sqrt(edge_edge_distance_sq(a, b, e0, e1)), 1e-15);
    EXPECT_LT(ee_e.uncertainty, 1e-11);
    // Nearly parallel edges: the uncertainty must grow.
    const Vec3 f0(0, 1e-3, 1e-9), f1(1, 1e-3, 2e-9);
    EXPECT_GT(edge_edge_distance_estimate(a, Vec3(1, 0, 0), f0, f1, 1e-13).uncertainty, 1e-10);
}

TEST(CCDParams, ValidationNamesTheParameter) {
    EXPECT_NO_THROW(validate_ccd_params(CCDParams{}));
    auto message = [](CCDParams p) {
        try {
            validate_ccd_params(p);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CCDParams p;
    p.conservative_rescaling = 1.0;
    EXPECT_NE(message(p).find("conservative_rescaling"), std::string::npos);
    p = {};
    p.min_separation = -1;
    EXPECT_NE(message(p).find("min_separation"), std::string::npos);
    p = {};
    p.tmax = 0;
    EXPECT_NE(message(p).find("tmax"), std::string::npos);
    p = {};
    p.max_iterations = 0;
    EXPECT_NE(message(p).find("max_iterations"), std::string::npos);
}

}  // namespace
}  // namespace concord
