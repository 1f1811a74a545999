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
            EXPECT_EQ(found.point_triangle, expected.point_triangle) << "seed " << seed << " k " << k;
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
