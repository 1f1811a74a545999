// EnvelopeBroadPhase: the cached-envelope answers equal a fresh query, bit for bit, over a
// sequence of Newton-like segments, and most queries reuse the envelope.
#include <gtest/gtest.h>

#include <random>

#include "broad_phase/random_scene.hpp"
#include "concord/collision/broad_phase/brute_force.hpp"
#include "concord/collision/broad_phase/envelope_broad_phase.hpp"

using namespace concord;
using concord::test::Scene;

TEST(EnvelopeBroadPhase, MatchesAFreshQueryAlongShrinkingSegments) {
    EnvelopeBroadPhase envelope;
    std::size_t total = 0;
    int queries = 0;
    for (int seed = 0; seed < 60; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(seed));
        const Scene s = test::random_scene(rng);
        BroadPhaseParams params;
        params.dhat = std::array<double, 3>{0.0, 1e-3, 0.05}[seed % 3];
        envelope.reset();  // a new mesh object may reuse the old one's address
        // Newton-like: from x, a step towards x1 of shrinking length, accepted halfway.
        Vertices x = s.x0;
        for (int k = 0; k < 6; ++k) {
            const Vertices step = s.x1 + (0.5 * k) * (s.x0 - s.x1);  // wanders back and forth
            const Vertices x_next = x + std::ldexp(1.0, -k) * (step - x);
            const Candidates expected = brute_force_candidates(s.mesh, x, x_next, params);
            const Candidates found = envelope.find(s.mesh, x, x_next, params);
            EXPECT_EQ(found.point_triangle, expected.point_triangle)
                << "seed " << seed << " k " << k;
            EXPECT_EQ(found.edge_edge, expected.edge_edge) << "seed " << seed << " k " << k;
            // A static query at the accepted point.
            x = x + 0.5 * (x_next - x);
            const Candidates at = envelope.find(s.mesh, x, x, params);
            const Candidates expected_at = brute_force_candidates(s.mesh, x, x, params);
            EXPECT_EQ(at.point_triangle, expected_at.point_triangle);
            EXPECT_EQ(at.edge_edge, expected_at.edge_edge);
            total += expected.size() + expected_at.size();
            queries += 2;
        }
    }
    EXPECT_GT(total, 1000u);  // not a comparison of empty sets
    // The point of it: most queries are answered from the cached envelope.
    EXPECT_LT(envelope.rebuilds(), queries / 2);
}

// A dense scene in which a few bodies at a time leave their envelopes (the Newton iterations
// of a jammed pile): only those bodies are queried again, and the answers stay exact, with and
// without a body-pair filter, for moved bodies near and far from the others.
TEST(EnvelopeBroadPhase, UpdatesOnlyTheBodiesThatLeaveTheirEnvelopes) {
    std::size_t total = 0;
    int partial = 0, rebuilds = 0, queries = 0;
    for (int seed = 0; seed < 12; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(100 + seed));
        const Scene s = test::large_random_scene(rng, 60);
        int num_bodies = 0;
        for (int b : s.mesh.vertex_body) num_bodies = std::max(num_bodies, b + 1);
        BroadPhaseParams params;
        params.dhat = seed % 2 == 0 ? 1e-3 : 0.02;
        if (seed % 3 == 0) {  // every fourth body static: static pairs are filtered out
            std::vector<std::uint8_t> is_static(static_cast<std::size_t>(num_bodies), 0);
            for (int b = 0; b < num_bodies; b += 4) is_static[static_cast<std::size_t>(b)] = 1;
            params.body_pair_filter = skip_static_pairs(is_static);
        }
        EnvelopeBroadPhase envelope;
        std::normal_distribution<double> normal(0.0, 1.0);
        std::uniform_int_distribution<int> pick(0, num_bodies - 1);
        Vertices x = s.x0;
        for (int k = 0; k < 10; ++k) {
            // Everything jitters within the first envelope's margin; one or two bodies jump
            // (some far, some onto their neighbours).
            Vertices x_next = x;
            for (Eigen::Index v = 0; v < x.rows(); ++v)
                x_next.row(v) += 1e-4 * Vec3(normal(rng), normal(rng), normal(rng)).transpose();
            const int jumps = 1 + k % 2;
            for (int j = 0; j < jumps; ++j) {
                const int body = pick(rng);
                const Vec3 shift =
                    (k % 3 == 0 ? 1.0 : 0.1) * Vec3(normal(rng), normal(rng), normal(rng));
                for (Eigen::Index v = 0; v < x.rows(); ++v)
                    if (s.mesh.vertex_body[static_cast<std::size_t>(v)] == body)
                        x_next.row(v) += shift.transpose();
            }
            const Candidates found = envelope.find(s.mesh, x, x_next, params);
            const Candidates expected = brute_force_candidates(s.mesh, x, x_next, params);
            ASSERT_EQ(found.point_triangle, expected.point_triangle)
                << "seed " << seed << " k " << k;
            ASSERT_EQ(found.edge_edge, expected.edge_edge) << "seed " << seed << " k " << k;
            total += expected.size();
            ++queries;
            x = x_next;
        }
        partial += envelope.partial_updates();
        rebuilds += envelope.rebuilds();
    }
    EXPECT_GT(total, 2000u);  // not a comparison of empty sets
    // The first query of each scene builds the envelope; later ones update single bodies.
    EXPECT_GT(partial, queries / 2);
    EXPECT_LT(rebuilds, queries / 4);
}
