// build_contact_set skips the exact distance of candidates whose bounding boxes are dhat apart:
// the contacts and the minimum distance it reports must be those of classifying every
// candidate exactly, with contacts and without any.
#include <gtest/gtest.h>

#include <random>

#include "concord/body/affine_body.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "energy_test_util.hpp"

namespace concord {
namespace {

// Every candidate classified exactly: what build_contact_set must agree with.
ContactSet exact_contact_set(const ContactSurface& surface, const Vertices& x,
                             const Candidates& candidates, double dhat) {
    ContactSet set;
    auto X = [&](int v) -> Vec3 { return x.row(v).transpose(); };
    const auto& f = surface.mesh.faces;
    const auto& e = surface.mesh.edges;
    for (const auto& c : candidates.point_triangle) {
        const Vec3 p = X(c.vertex), a = X(f(c.face, 0)), b = X(f(c.face, 1)), d = X(f(c.face, 2));
        const auto type = point_triangle_distance_type(p, a, b, d);
        const double d2 = point_triangle_distance_sq(p, a, b, d, type);
        set.min_distance_sq = std::min(set.min_distance_sq, d2);
        if (d2 < dhat * dhat) set.point_triangle.push_back({c.vertex, c.face, type});
    }
    for (const auto& c : candidates.edge_edge) {
        const Vec3 a0 = X(e(c.edge_a, 0)), a1 = X(e(c.edge_a, 1)), b0 = X(e(c.edge_b, 0)),
                   b1 = X(e(c.edge_b, 1));
        const auto type = edge_edge_distance_type(a0, a1, b0, b1);
        const double d2 = edge_edge_distance_sq(a0, a1, b0, b1, type);
        set.min_distance_sq = std::min(set.min_distance_sq, d2);
        if (d2 < dhat * dhat) set.edge_edge.push_back({c.edge_a, c.edge_b, type, 0.0});
    }
    return set;
}

TEST(ContactSet, SkippingFarCandidatesKeepsTheContactsAndTheMinimumDistance) {
    test::ContactFixture fx;
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    int with_contacts = 0, without = 0;
    for (int k = 0; k < 60; ++k) {
        // The upper box placed at gaps from touching to well beyond dhat, turned at random.
        VecX q = fx.q;
        const double gap =
            (k % 3 == 0) ? 0.15 + 0.1 * (u(rng) + 1.0) : 0.002 + 0.02 * (u(rng) + 1.0);
        const Mat3 R = Eigen::AngleAxisd(0.1 * u(rng), Vec3(u(rng), 1.0, u(rng)).normalized())
                           .toRotationMatrix();
        q.segment<12>(12) = affine_state(Vec3(0.3 * u(rng), 0.915 + gap, 0.3 * u(rng)), R);
        const Vertices x = fx.surface.positions(q);
        BroadPhaseParams bp;
        bp.dhat = 0.5;  // many candidates beyond dhat
        bp.method = BroadPhaseMethod::sweep_and_prune;
        const Candidates c = find_candidates(fx.surface.mesh, x, x, bp);
        const ContactSet got = build_contact_set(fx.surface, x, c, {}, {}, fx.dhat);
        const ContactSet want = exact_contact_set(fx.surface, x, c, fx.dhat);
        EXPECT_EQ(got.min_distance_sq, want.min_distance_sq) << k;
        ASSERT_EQ(got.point_triangle.size(), want.point_triangle.size()) << k;
        for (std::size_t i = 0; i < got.point_triangle.size(); ++i) {
            EXPECT_EQ(got.point_triangle[i].vertex, want.point_triangle[i].vertex);
            EXPECT_EQ(got.point_triangle[i].face, want.point_triangle[i].face);
            EXPECT_EQ(got.point_triangle[i].type, want.point_triangle[i].type);
        }
        ASSERT_EQ(got.edge_edge.size(), want.edge_edge.size()) << k;
        for (std::size_t i = 0; i < got.edge_edge.size(); ++i) {
            EXPECT_EQ(got.edge_edge[i].edge_a, want.edge_edge[i].edge_a);
            EXPECT_EQ(got.edge_edge[i].edge_b, want.edge_edge[i].edge_b);
            EXPECT_EQ(got.edge_edge[i].type, want.edge_edge[i].type);
        }
        (got.size() > 0 ? with_contacts : without) += 1;
        EXPECT_GT(c.size(), 2 * got.size()) << k;  // most candidates are beyond dhat
    }
    EXPECT_GT(with_contacts, 20);
    EXPECT_GT(without, 10);
}

}  // namespace
}  // namespace concord
