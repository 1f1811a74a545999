// interacting_body_pairs against the body pairs of the brute-force candidates: the same set on
// random scenes (with and without filters, including one that is not symmetric), on a larger
// scene where the per-pair search sorts and sweeps, and on one and two threads.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <random>

#include "concord/collision/broad_phase/body_pairs.hpp"
#include "concord/collision/broad_phase/brute_force.hpp"
#include "random_scene.hpp"

using namespace concord;

namespace {

using Pairs = std::vector<std::pair<int, int>>;

Pairs reference(const test::Scene& s, const BroadPhaseParams& p) {
    const Candidates c = brute_force_candidates(s.mesh, s.x0, s.x1, p);
    Pairs out;
    auto add = [&](int a, int b) { out.emplace_back(std::min(a, b), std::max(a, b)); };
    for (const auto& pt : c.point_triangle)
        add(s.mesh.vertex_body[static_cast<std::size_t>(pt.vertex)],
            s.mesh.face_body[static_cast<std::size_t>(pt.face)]);
    for (const auto& ee : c.edge_edge)
        add(s.mesh.edge_body[static_cast<std::size_t>(ee.edge_a)],
            s.mesh.edge_body[static_cast<std::size_t>(ee.edge_b)]);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace

TEST(InteractingBodyPairs, AreTheBodyPairsOfTheCandidatesOnRandomScenes) {
    std::mt19937 rng(21);
    int nonempty = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const test::Scene s = test::random_scene(rng, {.max_bodies = 8});
        BroadPhaseParams p;
        p.dhat = std::array<double, 4>{0.0, 1e-3, 0.05, 0.3}[trial % 4];
        if (trial % 3 == 1) p.body_pair_filter = skip_static_pairs({1, 0, 1, 0, 1});
        // Not symmetric: a vertex (or lower edge) of an even body never pairs with an odd one.
        if (trial % 3 == 2) p.body_pair_filter = [](int a, int b) { return !(a % 2 == 0 && b % 2 == 1); };
        const Pairs expected = reference(s, p);
        nonempty += !expected.empty();
        ASSERT_EQ(interacting_body_pairs(s.mesh, s.x0, s.x1, p), expected) << "trial " << trial;
    }
    EXPECT_GT(nonempty, 150);  // the scenes do produce pairs
}

TEST(InteractingBodyPairs, SweepsLargeNeighbourhoodsAndAgreesOnAnyThreadCount) {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 3; ++trial) {
        test::Scene s = test::large_random_scene(rng, 120);
        // One large body spanning the others (a container): its box holds every body, so each
        // pair with it searches many primitives.
        test::Scene big = test::random_scene(rng, {.min_bodies = 1, .max_bodies = 1,
                                                   .max_vertices_per_body = 200,
                                                   .world_size = 0.0, .spread_scale = 3.0});
        append_body(s.mesh, 120, static_cast<int>(big.x0.rows()), big.mesh.faces);  // local = its own
        Vertices x0(s.x0.rows() + big.x0.rows(), 3), x1(x0.rows(), 3);
        x0 << s.x0, big.x0;
        x1 << s.x1, big.x1;
        s.x0 = x0;
        s.x1 = x1;
        BroadPhaseParams p;
        p.dhat = 0.02;
        const Pairs expected = reference(s, p);
        EXPECT_GT(expected.size(), 100u);
        Pairs one, two;
        {
            tbb::global_control c(tbb::global_control::max_allowed_parallelism, 1);
            one = interacting_body_pairs(s.mesh, s.x0, s.x1, p);
        }
        {
            tbb::global_control c(tbb::global_control::max_allowed_parallelism, 2);
            two = interacting_body_pairs(s.mesh, s.x0, s.x1, p);
        }
        EXPECT_EQ(one, expected);
        EXPECT_EQ(two, expected);
    }
}

TEST(InteractingBodyPairs, RefusesWhatTheBroadPhaseRefuses) {
    std::mt19937 rng(1);
    const test::Scene s = test::random_scene(rng, {.min_bodies = 2});
    BroadPhaseParams p;
    p.dhat = -1.0;
    EXPECT_ANY_THROW(interacting_body_pairs(s.mesh, s.x0, s.x1, p));
    EXPECT_TRUE(interacting_body_pairs(CollisionMesh{}, Vertices(0, 3), Vertices(0, 3)).empty());
}
