// The generated queries and the exact ground-truth certificates behind them.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ccd/reference_distance.hpp"
#include "concord/collision/ccd/ccd_ground_truth.hpp"
#include "concord/collision/ccd/ccd_query_generator.hpp"
#include "concord/math/error.hpp"

namespace concord {
namespace {

CCDQuery make_query(CCDQueryType type, const std::array<Vec3, 4>& at0,
                    const std::array<Vec3, 4>& at1) {
    CCDQuery q;
    q.type = type;
    for (int i = 0; i < 4; ++i) {
        q.vertices[i] = at0[i];
        q.vertices[i + 4] = at1[i];
    }
    return q;
}

TEST(CCDGroundTruth, TouchingIsExact) {
    const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
    // Point falls through (0.25, 0.25, 0) at t = 0.5 exactly.
    const CCDQuery q = make_query(CCDQueryType::VertexFace, {Vec3(0.25, 0.25, 1), a, b, c},
                                  {Vec3(0.25, 0.25, -1), a, b, c});
    EXPECT_TRUE(primitives_touch_at(q, 0.5));
    EXPECT_FALSE(primitives_touch_at(q, 0.5 + 0x1p-52));
    EXPECT_FALSE(primitives_touch_at(q, 0.0));
    // On an edge and on a vertex count; just outside does not.
    const CCDQuery edge = make_query(CCDQueryType::VertexFace, {Vec3(0.5, 0.5, 0), a, b, c},
                                     {Vec3(0.5, 0.5 + 0x1p-40, 0), a, b, c});
    EXPECT_TRUE(primitives_touch_at(edge, 0.0));
    EXPECT_FALSE(primitives_touch_at(edge, 1.0));
    // Zero-area triangle: the segment a-b.
    const CCDQuery flat = make_query(CCDQueryType::VertexFace, {Vec3(0.5, 0, 0), a, a, b},
                                     {Vec3(1.5, 0, 0), a, a, b});
    EXPECT_TRUE(primitives_touch_at(flat, 0.5));
    EXPECT_FALSE(primitives_touch_at(flat, 0.75));
    // Edges: crossing, parallel overlapping, parallel apart, a point on a segment.
    const CCDQuery cross =
        make_query(CCDQueryType::EdgeEdge, {a, b, Vec3(0.5, -1, 1), Vec3(0.5, 1, 1)},
                   {a, b, Vec3(0.5, -1, -1), Vec3(0.5, 1, -1)});
    EXPECT_TRUE(primitives_touch_at(cross, 0.5));
    EXPECT_FALSE(primitives_touch_at(cross, 0.25));
    const CCDQuery collinear =
        make_query(CCDQueryType::EdgeEdge, {a, b, Vec3(2, 0, 0), Vec3(3, 0, 0)},
                   {a, b, Vec3(0, 0, 0), Vec3(1, 0, 0)});
    EXPECT_TRUE(primitives_touch_at(collinear, 0.5));  // end to end
    EXPECT_FALSE(primitives_touch_at(collinear, 0.25));
    const CCDQuery point = make_query(CCDQueryType::EdgeEdge, {c, c, a, b}, {c, c, a, b});
    EXPECT_FALSE(primitives_touch_at(point, 0.0));
    const CCDQuery point_on = make_query(CCDQueryType::EdgeEdge, {b, b, a, b}, {b, b, a, b});
    EXPECT_TRUE(primitives_touch_at(point_on, 0.0));
}

TEST(CCDGroundTruth, MovingPlaneSeparation) {
    const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0), up(0, 0, 1);
    // Point slides 2^-30 over the face: separated by z = const.
    const CCDQuery slide = make_query(CCDQueryType::VertexFace, {Vec3(-1, 0.2, 0x1p-30), a, b, c},
                                      {Vec3(2, 0.2, 0x1p-30), a, b, c});
    EXPECT_TRUE(separated_by_moving_plane(slide, up));
    EXPECT_TRUE(separated_by_moving_plane(slide, -up));
    EXPECT_FALSE(separated_by_moving_plane(slide, Vec3(1, 0, 0)));
    EXPECT_FALSE(separated_by_moving_plane(slide, Vec3::Zero()));
    // Touching the plane at t = 1 is not strict separation.
    const CCDQuery touch = make_query(CCDQueryType::VertexFace, {Vec3(0.2, 0.2, 1), a, b, c},
                                      {Vec3(0.2, 0.2, 0), a, b, c});
    EXPECT_FALSE(separated_by_moving_plane(touch, up));
    // Both rising together, the point always above: the plane may move with them.
    const Vec3 rise(0, 0, 5);
    const CCDQuery lift = make_query(CCDQueryType::VertexFace, {Vec3(0.2, 0.2, 0.1), a, b, c},
                                     {Vec3(0.2, 0.2, 0.1) + rise, a + rise, b + rise, c + rise});
    EXPECT_TRUE(separated_by_moving_plane(lift, up));
    // Passing from above to below the face's plane beside it: no fixed-normal plane works.
    const CCDQuery beside =
        make_query(CCDQueryType::VertexFace, {Vec3(2, 2, 1), a, b, c}, {Vec3(2, 2, -1), a, b, c});
    EXPECT_FALSE(separated_by_moving_plane(beside, up));
    EXPECT_TRUE(separated_by_moving_plane(beside, Vec3(1, 1, 0)));
    // Edges.
    const CCDQuery edges = make_query(CCDQueryType::EdgeEdge, {a, b, Vec3(0, -1, 1), Vec3(0, 1, 1)},
                                      {a, b, Vec3(5, -1, 0x1p-20), Vec3(5, 1, 0x1p-20)});
    EXPECT_TRUE(separated_by_moving_plane(edges, up));
}

class Generated : public ::testing::TestWithParam<std::tuple<CCDQueryType, CCDQueryKind>> {};

TEST_P(Generated, GroundTruthIsConsistentWithTheReference) {
    const auto [type, kind] = GetParam();
    const auto queries = generate_ccd_queries(type, kind, 600, 42);
    ASSERT_EQ(queries.size(), 600u);
    std::set<std::string> scenarios;
    long hits = 0;
    for (const GeneratedCCDQuery& g : queries) {
        scenarios.insert(std::string(g.scenario));
        EXPECT_EQ(g.query.type, type);
        EXPECT_EQ(g.query.ground_truth, g.contact_time >= 0) << g.scenario;
        for (const Vec3& v : g.query.vertices) EXPECT_TRUE(v.allFinite()) << g.scenario;
        if (g.query.ground_truth) {
            ++hits;
            EXPECT_LE(g.contact_time, 1.0);
            EXPECT_TRUE(primitives_touch_at(g.query, g.contact_time)) << g.scenario;
            // An independent evaluation agrees that the distance vanishes then.
            EXPECT_LT(test::ref_distance(g.query, g.contact_time),
                      1e-15 * std::max(1.0, test::query_scale(g.query)))
                << g.scenario;
        } else {
            // And that a miss never comes into contact at any sample.
            EXPECT_LT(test::first_sampled_contact(g.query, 0.0L, 512), 0.0) << g.scenario;
        }
    }
    if (kind == CCDQueryKind::Hard) {
        EXPECT_EQ(scenarios.size(), 16u);  // every construction appears
        EXPECT_GT(hits, 300);
    } else {
        EXPECT_GT(hits, 50);  // about 15% touch
        EXPECT_LT(hits, 150);
    }
}

INSTANTIATE_TEST_SUITE_P(
    All, Generated,
    ::testing::Combine(::testing::Values(CCDQueryType::VertexFace, CCDQueryType::EdgeEdge),
                       ::testing::Values(CCDQueryKind::Ordinary, CCDQueryKind::Hard)));

TEST(CCDGenerator, DeterministicInTheSeed) {
    const auto a = generate_ccd_queries(CCDQueryType::EdgeEdge, CCDQueryKind::Hard, 100, 7);
    const auto b = generate_ccd_queries(CCDQueryType::EdgeEdge, CCDQueryKind::Hard, 100, 7);
    const auto c = generate_ccd_queries(CCDQueryType::EdgeEdge, CCDQueryKind::Hard, 100, 8);
    bool differs = false;
    for (std::size_t k = 0; k < a.size(); ++k) {
        EXPECT_EQ(a[k].query.vertices, b[k].query.vertices);
        EXPECT_EQ(a[k].query.ground_truth, b[k].query.ground_truth);
        differs = differs || a[k].query.vertices != c[k].query.vertices;
    }
    EXPECT_TRUE(differs);
}

TEST(CCDGenerator, BadArgumentsAreInputErrors) {
    EXPECT_THROW(generate_ccd_queries(CCDQueryType::VertexFace, CCDQueryKind::Ordinary, -1, 0),
                 InputError);
    EXPECT_TRUE(
        generate_ccd_queries(CCDQueryType::VertexFace, CCDQueryKind::Ordinary, 0, 0).empty());
    EXPECT_EQ(parse_ccd_query_kind("hard"), CCDQueryKind::Hard);
    EXPECT_EQ(parse_ccd_query_type("ee"), CCDQueryType::EdgeEdge);
    EXPECT_THROW(parse_ccd_query_kind("easy"), InputError);
    EXPECT_THROW(parse_ccd_query_type("fv"), InputError);
    EXPECT_EQ(to_string(CCDQueryType::VertexFace), "vf");
    EXPECT_EQ(to_string(CCDQueryKind::Ordinary), "ordinary");
}

}  // namespace
}  // namespace concord
