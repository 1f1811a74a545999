// The two energy-level pieces of the distributed solve: the consensus penalty of a local solve
// (FD-checked, and its exact minimiser) and the replication weights of contact pairs.
#include <gtest/gtest.h>

#include <random>

#include "concord/body/body_builder.hpp"
#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/energy/barrier_energy.hpp"
#include "concord/energy/consensus_energy.hpp"
#include "concord/energy/contact_set.hpp"
#include "concord/math/finite_difference.hpp"

using namespace concord;

namespace {

VecX gradient_of(const Energy& e, const VecX& q) {
    VecX g = VecX::Zero(q.size());
    e.add_gradient(q, g);
    return g;
}

MatX dense_hessian(const Energy& e, const VecX& q) {
    HessianBlocks t;
    e.add_hessian(q, t, true);
    return MatX(t.sparse(q.size()));
}

VecX random_vector(std::mt19937& rng, int n) {
    std::normal_distribution<double> d(0.0, 1.0);
    VecX v(n);
    for (int i = 0; i < n; ++i) v[i] = d(rng);
    return v;
}

// Two unit boxes 0.02 apart and a ground plane, as in test_energy_derivatives.cpp.
struct TwoBoxes {
    std::vector<AffineBody> bodies;
    ContactSurface surface;
    std::vector<HalfSpace> planes{HalfSpace{Vec3(0, -0.6, 0), Vec3::UnitY()}};
    VecX q = VecX(24);
    double dhat = 0.05;
    ContactSet contacts;

    TwoBoxes() {
        BodySpec a;
        a.name = "a";
        a.shape.kind = ShapeKind::Box;
        BodySpec b = a;
        b.name = "b";
        bodies = {build_body(a), build_body(b)};
        surface = build_contact_surface(bodies);
        const Mat3 R = Eigen::AngleAxisd(0.3, Vec3::UnitY()).toRotationMatrix();
        q << affine_state(Vec3(0, -0.085, 0), Mat3::Identity()),
            affine_state(Vec3(0.1, 0.935, 0), R);
        const Vertices x = surface.positions(q);
        BroadPhaseParams bp;
        bp.dhat = dhat;
        const Candidates c = find_candidates(surface.mesh, x, x, bp);
        const auto pc = point_plane_candidates(surface, x, x, planes, {true, true}, dhat);
        contacts = build_contact_set(surface, x, c, pc, planes, dhat);
    }
};

void expect_derivatives_match_finite_differences(const Energy& e, const VecX& q) {
    const VecX g = gradient_of(e, q);
    const VecX g_fd = fd_gradient([&](const VecX& x) { return e.value(x); }, q, 1e-6);
    EXPECT_LT((g - g_fd).norm(), 1e-6 * std::max(1.0, g.norm()));
    const MatX H = dense_hessian(e, q);
    const MatX H_fd = fd_jacobian([&](const VecX& x) { return gradient_of(e, x); }, q, 1e-6);
    EXPECT_LT((H - H_fd).norm(), 1e-6 * std::max(1.0, H.norm()));
}

}  // namespace

TEST(ConsensusEnergy, MatchesFiniteDifferencesAndIsMinimisedAtTheAnchor) {
    std::mt19937 rng(7);
    ConsensusEnergy e;
    const VecX a0 = random_vector(rng, 12), a2 = random_vector(rng, 12);
    e.set_terms({{0, 3.5, a0}, {2, 0.25, a2}});
    const VecX q = random_vector(rng, 36);
    const VecX g = gradient_of(e, q);
    expect_derivatives_match_finite_differences(e, q);
    // Body 1 has no term; the minimiser of the rest is the anchor exactly.
    EXPECT_EQ(g.segment<12>(12).norm(), 0.0);
    VecX at = q;
    at.segment<12>(0) = a0;
    at.segment<12>(24) = a2;
    EXPECT_EQ(gradient_of(e, at).norm(), 0.0);
    EXPECT_NEAR(e.value(q), 0.5 * 3.5 * (q.head<12>() - a0).squaredNorm() +
                                0.5 * 0.25 * (q.tail<12>() - a2).squaredNorm(),
                1e-12);
}

TEST(ConsensusEnergy, ModalPartIsWeightedByItsMetricAndMatchesFiniteDifferences) {
    // Bodies 0 (affine) and 1 (two modes at 24..25, after the 2 x 12 affine numbers).
    std::mt19937 rng(11);
    ConsensusEnergy e;
    MatX W(2, 2);
    W << 2.0, 0.3, 0.3, 0.5;  // SPD, not diagonal
    const VecX a0 = random_vector(rng, 12), a1 = random_vector(rng, 14);
    e.set_terms({{0, 3.5, a0}, {1, 0.7, a1, 24, &W}});
    const VecX q = random_vector(rng, 26);
    expect_derivatives_match_finite_differences(e, q);
    const VecX d = q.tail<2>() - a1.tail<2>();
    EXPECT_NEAR(e.value(q), 0.5 * 3.5 * (q.head<12>() - a0).squaredNorm() +
                                0.5 * 0.7 * (q.segment<12>(12) - a1.head<12>()).squaredNorm() +
                                0.5 * 0.7 * d.dot(W * d),
                1e-12);
    // The minimiser is the anchor, modes included.
    VecX at = q;
    at.head<12>() = a0;
    at.segment<12>(12) = a1.head<12>();
    at.tail<2>() = a1.tail<2>();
    EXPECT_EQ(gradient_of(e, at).norm(), 0.0);
    // A term with modes needs a metric of their size.
    EXPECT_THROW(e.set_terms({{1, 0.7, a1, 24, nullptr}}), std::invalid_argument);
    const MatX W3 = MatX::Identity(3, 3);
    EXPECT_THROW(e.set_terms({{1, 0.7, a1, 24, &W3}}), std::invalid_argument);
}

TEST(ContactReplication, WeightsAreOneOverTheNumberOfWorkersHoldingBothBodies) {
    ContactReplication r;
    r.holders = {0b011, 0b110, 0b111};
    EXPECT_DOUBLE_EQ(r.pair_weight(0, 1), 1.0);        // only worker 1 holds both
    EXPECT_DOUBLE_EQ(r.pair_weight(0, 2), 0.5);        // workers 0 and 1
    EXPECT_DOUBLE_EQ(r.pair_weight(2, 2), 1.0 / 3.0);  // a body held by three workers
    EXPECT_DOUBLE_EQ(r.plane_weight(1), 0.5);
}

TEST(ContactReplication, BarrierSharesAddUpToTheUnreplicatedBarrier) {
    // Box a is held by workers 0 and 1, box b by worker 1 only: worker 0 sees a's plane
    // contacts, worker 1 every pair. With the weights, the two shares sum to the whole.
    TwoBoxes f;
    ASSERT_GT(f.contacts.point_plane.size(), 0u);
    ASSERT_GT(f.contacts.point_triangle.size() + f.contacts.edge_edge.size(), 0u);
    BarrierEnergy whole(f.surface, f.planes, {true, true}, f.dhat);
    whole.set_contacts(&f.contacts);
    whole.set_stiffness(10.0);
    ContactReplication rep;
    rep.holders = {0b11, 0b10};
    BarrierEnergy share1(f.surface, f.planes, {true, true}, f.dhat);
    share1.set_contacts(&f.contacts);
    share1.set_stiffness(10.0);
    share1.set_replication(&rep);
    ContactSet plane_only;  // worker 0 holds a only: a's plane contacts
    for (const auto& c : f.contacts.point_plane)
        if (f.surface.body_of_vertex(c.vertex) == 0) plane_only.point_plane.push_back(c);
    BarrierEnergy share0(f.surface, f.planes, {true, true}, f.dhat);
    share0.set_contacts(&plane_only);
    share0.set_stiffness(10.0);
    share0.set_replication(&rep);
    EXPECT_NEAR(share0.value(f.q) + share1.value(f.q), whole.value(f.q), 1e-12 * whole.value(f.q));
    const VecX g = gradient_of(share0, f.q) + gradient_of(share1, f.q);
    EXPECT_LT((g - gradient_of(whole, f.q)).norm(), 1e-10 * gradient_of(whole, f.q).norm());
    // Weighted derivatives stay consistent (FD).
    const VecX g1 = gradient_of(share1, f.q);
    const VecX g1_fd = fd_gradient([&](const VecX& x) { return share1.value(x); }, f.q, 1e-7);
    EXPECT_LT((g1 - g1_fd).norm(), 1e-5 * std::max(1.0, g1.norm()));
    // Normal forces carry the weight: a's plane contacts count half on each worker.
    const auto n_whole = whole.normal_forces(f.q);
    const auto n_share = share1.normal_forces(f.q);
    ASSERT_EQ(n_whole.size(), n_share.size());
    const std::size_t first_plane = f.contacts.point_triangle.size() + f.contacts.edge_edge.size();
    for (std::size_t k = first_plane; k < n_whole.size(); ++k) {
        const int body = f.surface.body_of_vertex(f.contacts.point_plane[k - first_plane].vertex);
        EXPECT_DOUBLE_EQ(n_share[k], body == 0 ? 0.5 * n_whole[k] : n_whole[k]);
    }
}
