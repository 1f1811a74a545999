// Which body pairs may produce candidates: static pairs, the scene's excluded pairs, and the
// excluded pairs of a system's bodies.
#include <gtest/gtest.h>

#include <random>

#include "broad_phase/random_scene.hpp"
#include "concord/collision/broad_phase/body_pair_filter.hpp"
#include "concord/collision/broad_phase/broad_phase.hpp"

using namespace concord;

TEST(BodyPairFilter, ContactFilterSkipsStaticPairsAndExcludedPairsInEitherOrder) {
    const BodyPairFilter f = contact_pair_filter({1, 1, 0, 0, 0}, {{2, 4}, {0, 3}});
    EXPECT_FALSE(f(0, 1));  // both static
    EXPECT_FALSE(f(1, 0));
    EXPECT_TRUE(f(0, 2));   // static with dynamic
    EXPECT_FALSE(f(2, 4));  // excluded
    EXPECT_FALSE(f(4, 2));
    EXPECT_FALSE(f(3, 0));  // excluded, one static
    EXPECT_TRUE(f(2, 3));
    EXPECT_TRUE(f(3, 4));
    EXPECT_TRUE(f(5, 6));  // beyond the vectors: dynamic, not excluded
    // Without exclusions it is skip_static_pairs.
    const BodyPairFilter g = contact_pair_filter({1, 1, 0}, {});
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            if (a != b) {
                EXPECT_EQ(g(a, b), skip_static_pairs({1, 1, 0})(a, b)) << a << " " << b;
            }
}

TEST(BodyPairFilter, PairsWithinRenumberToTheSystemsBodies) {
    const std::vector<std::pair<int, int>> world = {{0, 5}, {2, 7}, {3, 5}, {5, 9}};
    // System bodies 9, 5, 3 (in this order): (3, 5) -> (1, 2), (5, 9) -> (0, 1).
    EXPECT_EQ(pairs_within(world, {9, 5, 3}), (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}));
    EXPECT_TRUE(pairs_within(world, {1, 2, 4}).empty());
    EXPECT_TRUE(pairs_within({}, {1, 2}).empty());
}

TEST(BodyPairFilter, ExcludedPairsLoseExactlyTheirCandidates) {
    std::mt19937 rng(77);
    const test::Scene s = test::random_scene(rng, {.min_bodies = 5, .max_bodies = 5});
    BroadPhaseParams params;
    params.dhat = 0.5;
    const Candidates all = find_candidates(s.mesh, s.x0, s.x1, params);
    // Exclude the body pair of the first point-triangle candidate, and one pair with none.
    ASSERT_FALSE(all.point_triangle.empty());
    const auto first = std::minmax(
        s.mesh.vertex_body[static_cast<std::size_t>(all.point_triangle[0].vertex)],
        s.mesh.face_body[static_cast<std::size_t>(all.point_triangle[0].face)]);
    const std::pair<int, int> pair{first.first, first.second};
    params.body_pair_filter = contact_pair_filter({}, {pair, {7, 9}});
    const Candidates kept = find_candidates(s.mesh, s.x0, s.x1, params);
    auto excluded = [&](int a, int b) { return std::minmax(a, b) == first; };
    std::size_t expected = 0, removed = 0;
    for (const auto& pt : all.point_triangle) {
        const bool x = excluded(s.mesh.vertex_body[static_cast<std::size_t>(pt.vertex)],
                                s.mesh.face_body[static_cast<std::size_t>(pt.face)]);
        expected += !x;
        removed += x;
    }
    for (const auto& ee : all.edge_edge) {
        const bool x = excluded(s.mesh.edge_body[static_cast<std::size_t>(ee.edge_a)],
                                s.mesh.edge_body[static_cast<std::size_t>(ee.edge_b)]);
        expected += !x;
        removed += x;
    }
    EXPECT_GT(removed, 0u);
    EXPECT_EQ(kept.size(), expected);
    for (const auto& pt : kept.point_triangle)
        EXPECT_FALSE(excluded(s.mesh.vertex_body[static_cast<std::size_t>(pt.vertex)],
                              s.mesh.face_body[static_cast<std::size_t>(pt.face)]));
}
