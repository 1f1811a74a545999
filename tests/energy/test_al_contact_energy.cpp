// Augmented-Lagrangian contact energy: derivatives, the multiplier update, decay and removal,
// the active set's bookkeeping and the lagged normal forces it hands to friction.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>

#include "concord/collision/barrier/barrier.hpp"
#include "concord/energy/al_contact_energy.hpp"
#include "concord/energy/barrier_energy.hpp"
#include "concord/math/finite_difference.hpp"
#include "energy_test_util.hpp"

using namespace concord;
using concord::test::ContactFixture;
using concord::test::dense_hessian;
using concord::test::gradient_of;
using concord::test::rel_err;

namespace {

std::vector<AlPairKey> keys_of(const ContactSet& c) {
    std::vector<AlPairKey> k;
    for (const auto& p : c.point_triangle) k.push_back({AlPairKey::PointTriangle, p.vertex, p.face});
    for (const auto& p : c.edge_edge) k.push_back({AlPairKey::EdgeEdge, p.edge_a, p.edge_b});
    for (const auto& p : c.point_plane) k.push_back({AlPairKey::PointPlane, p.vertex, p.plane});
    return k;
}

AlContactEnergy make_energy(const ContactFixture& f, std::vector<bool> movable = {true, true}) {
    AlContactParams p;
    p.dhat = f.dhat;
    p.penalty_scale = 1e5;
    AlContactEnergy e(f.surface, f.planes, std::move(movable),
                      {f.bodies[0].mass_properties.mass, 2.0 * f.bodies[1].mass_properties.mass}, p);
    e.set_time_step(0.01);
    return e;
}

VecX perturbed(const VecX& q, double amount, int seed) {
    VecX d = VecX::Zero(q.size());
    for (Eigen::Index i = 0; i < q.size(); ++i) d[i] = amount * std::sin(1.7 * static_cast<double>(i + seed));
    return q + d;
}

}  // namespace

TEST(AlContactEnergy, DerivativesMatchFiniteDifferencesAndHessianIsPsd) {
    ContactFixture f;
    const ContactSet c = f.contacts();
    ASSERT_GT(c.point_triangle.size(), 0u);
    ASSERT_GT(c.edge_edge.size(), 0u);
    ASSERT_GT(c.point_plane.size(), 0u);
    AlContactEnergy e = make_energy(f);
    e.join(keys_of(c));
    // Some multipliers positive, the slack frozen at another iterate than the one evaluated.
    std::vector<AlConstraint> set = e.constraints();
    for (std::size_t i = 0; i < set.size(); i += 3) set[i].lambda = 0.5 * static_cast<double>(i + 1);
    e.set_constraints(set);
    e.linearize(f.q, perturbed(f.q, 1e-3, 1));
    const VecX q = perturbed(f.q, 2e-3, 5);
    // Affine bodies: the gaps are linear in q, so the energy is quadratic and its finite
    // differences exact to round-off.
    const VecX g = gradient_of(e, q);
    const VecX g_fd = fd_gradient([&](const VecX& x) { return e.value(x); }, q, 1e-6);
    EXPECT_LT(rel_err(g, g_fd), 1e-6);
    const MatX H = dense_hessian(e, q, false);
    const MatX H_fd = fd_jacobian([&](const VecX& x) { return gradient_of(e, x); }, q, 1e-6);
    EXPECT_LT(rel_err(H, H_fd), 1e-6);
    EXPECT_EQ((H - dense_hessian(e, q, true)).norm(), 0.0);  // nothing to project
    Eigen::SelfAdjointEigenSolver<MatX> eig(H);
    EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-9 * eig.eigenvalues().cwiseAbs().maxCoeff());
}

namespace {

// Joins the pair of body a's lowest vertex (at x) and the ground plane y = -0.6; returns the
// vertex.
int join_lowest_vertex(const ContactFixture& f, const Vertices& x, AlContactEnergy& e) {
    int low = 0;
    for (int v = 0; v < f.surface.body_vertex_begin[1]; ++v)
        if (x(v, 1) < x(low, 1)) low = v;
    e.join(std::vector<AlPairKey>{{AlPairKey::PointPlane, low, 0}});
    return low;
}

}  // namespace

TEST(AlContactEnergy, LinearisedGapIsTheDistanceMinusDhatAtTheAdmissibleState) {
    ContactFixture f;
    AlContactEnergy e = make_energy(f);
    // The lowest vertex of body a against the ground plane y = -0.6.
    const Vertices x = f.surface.positions(f.q);
    const int low = join_lowest_vertex(f, x, e);
    e.linearize(f.q, f.q);
    const AlConstraint& c = e.constraints()[0];
    const double distance = x(low, 1) + 0.6;
    // g(q) = distance - dhat; with lambda 0 the slack s = max(0, g) leaves 1/2 mu min(0, g)^2.
    const double g = distance - f.dhat;
    EXPECT_NEAR(c.offset + c.normal[0].dot(x.row(low).transpose()), g, 1e-12);
    EXPECT_NEAR(e.value(f.q), 0.5 * c.mu * std::min(0.0, g) * std::min(0.0, g), 1e-12 * c.mu);
}

TEST(AlContactEnergy, MultipliersGrowOnViolationDecayAndLeaveWhenInactive) {
    ContactFixture f;
    AlContactEnergy e = make_energy(f, {true, false});
    const Vertices x = f.surface.positions(f.q);
    const int low = join_lowest_vertex(f, x, e);
    e.linearize(f.q, f.q);
    const double mu = e.constraints()[0].mu;
    // The penalty: scale * m * h^2, m the mass of the only movable body.
    EXPECT_NEAR(mu, 1e5 * f.bodies[0].mass_properties.mass * 1e-4, 1e-9 * mu);
    // Push the body down until the vertex is 0.01 below its admissible position: g < 0.
    const double distance = x(low, 1) + 0.6;
    VecX q = f.q;
    q[1] -= distance - f.dhat + 0.01;  // translation y of body a
    e.update_multipliers(q);
    EXPECT_NEAR(e.constraints()[0].lambda, mu * 0.01, 1e-9 * mu);
    EXPECT_EQ(e.constraints()[0].inactive, 0);
    // Lifted well clear: the multiplier drops to zero and the pair starts to decay.
    VecX up = f.q;
    up[1] += 1.0;
    for (int k = 1; k <= 25; ++k) {
        e.update_multipliers(up);
        ASSERT_EQ(e.constraints().size(), 1u);
        EXPECT_EQ(e.constraints()[0].lambda, 0.0);
        EXPECT_EQ(e.constraints()[0].inactive, k);
        e.linearize(f.q, up);
        EXPECT_NEAR(e.constraints()[0].mu_eff, mu * std::pow(0.3, k), 1e-12 * mu);
    }
    e.update_multipliers(up);  // the 26th inactive update: removed
    EXPECT_TRUE(e.constraints().empty());
}

// A pair whose penalty decayed while it was inactive gains, when the iterate then violates it,
// the multiplier of the penalty the iterate saw (mu_eff |g|), not mu |g|: with mu the
// multipliers of a block sliding down an incline swung between 0 and several times its load.
TEST(AlContactEnergy, ADecayedPairGainsItsMultiplierAtTheDecayedPenalty) {
    ContactFixture f;
    AlContactEnergy e = make_energy(f, {true, false});
    const Vertices x = f.surface.positions(f.q);
    const int low = join_lowest_vertex(f, x, e);
    VecX up = f.q;
    up[1] += 1.0;
    for (int k = 0; k < 3; ++k) {  // three inactive updates: mu_eff = 0.3^3 mu
        e.linearize(f.q, up);
        e.update_multipliers(up);
    }
    VecX down = f.q;
    const double distance = x(low, 1) + 0.6;
    down[1] -= distance - f.dhat + 0.01;  // g = -0.01
    e.linearize(f.q, down);
    const double mu = e.constraints()[0].mu;
    ASSERT_NEAR(e.constraints()[0].mu_eff, mu * std::pow(0.3, 3), 1e-12 * mu);
    e.update_multipliers(down);
    EXPECT_NEAR(e.constraints()[0].lambda, mu * std::pow(0.3, 3) * 0.01, 1e-9 * mu);
    EXPECT_EQ(e.constraints()[0].inactive, 0);
    // Active again: the next linearisation uses the whole penalty.
    e.linearize(f.q, down);
    EXPECT_EQ(e.constraints()[0].mu_eff, mu);
}

// The load floor: a pair that starts the step carrying the multiplier L has at least the
// penalty L / (load_compression dhat), so that its load compresses it by at most that share of
// dhat. The floor is the step's start: the updates within the step leave the penalty as it was.
TEST(AlContactEnergy, ALoadedPairIsAsStiffAsItsLoadAtTheStepsStart) {
    ContactFixture f;
    for (const double compression : {1e-3, 0.0}) {
        AlContactParams p;
        p.dhat = f.dhat;
        p.penalty_scale = 1e5;
        p.load_compression = compression;
        AlContactEnergy e(f.surface, f.planes, {true, false},
                          {f.bodies[0].mass_properties.mass, 1.0}, p);
        e.set_time_step(0.01);
        const Vertices x = f.surface.positions(f.q);
        const int low = join_lowest_vertex(f, x, e);
        const double base = 1e5 * f.bodies[0].mass_properties.mass * 1e-4;
        const double load = 50.0 * base * 1e-3 * f.dhat;  // 50 times the mass-based penalty's
        std::vector<AlConstraint> set = e.constraints();
        set[0].lambda = load;
        e.set_constraints(set);
        e.linearize(f.q, f.q);
        const double expected = compression > 0.0 ? load / (compression * f.dhat) : base;
        EXPECT_NEAR(e.constraints()[0].mu, expected, 1e-12 * expected) << compression;
        if (compression > 0.0) {
            EXPECT_NEAR(e.constraints()[0].mu, 50.0 * base, 1e-9 * base);
        }
        // Violated by 1 um: the multiplier grows by mu 1e-6, the penalty stays.
        VecX down = f.q;
        down[1] -= x(low, 1) + 0.6 - f.dhat + 1e-6;
        e.update_multipliers(down);
        EXPECT_NEAR(e.constraints()[0].lambda, load + expected * 1e-6, 1e-9 * load);
        e.linearize(f.q, down);
        EXPECT_NEAR(e.constraints()[0].mu, expected, 1e-12 * expected) << compression;
    }
}

TEST(AlContactEnergy, JoinKeepsMultipliersAndTheSetSorted) {
    ContactFixture f;
    AlContactEnergy e = make_energy(f);
    e.join({{AlPairKey::PointPlane, 3, 0}, {AlPairKey::PointTriangle, 9, 2}, {AlPairKey::PointPlane, 3, 0}});
    ASSERT_EQ(e.constraints().size(), 2u);
    std::vector<AlConstraint> set = e.constraints();
    set[1].lambda = 4.0;  // the vertex-plane pair (sorted after point-triangle)
    e.set_constraints(set);
    e.join({{AlPairKey::EdgeEdge, 1, 30}, {AlPairKey::PointPlane, 3, 0}});
    ASSERT_EQ(e.constraints().size(), 3u);
    EXPECT_EQ(e.constraints()[0].key.kind, AlPairKey::PointTriangle);
    EXPECT_EQ(e.constraints()[1].key.kind, AlPairKey::EdgeEdge);
    EXPECT_EQ(e.constraints()[2].key.kind, AlPairKey::PointPlane);
    EXPECT_EQ(e.constraints()[2].lambda, 4.0);
    EXPECT_EQ(e.constraints()[1].lambda, 0.0);
}

TEST(AlContactEnergy, ActiveContactsAreThePairsWithPositiveMultipliersInContactSetOrder) {
    ContactFixture f;
    const ContactSet c = f.contacts();
    AlContactEnergy e = make_energy(f);
    e.join(keys_of(c));
    std::vector<AlConstraint> set = e.constraints();
    for (std::size_t i = 0; i < set.size(); ++i) set[i].lambda = i % 2 == 0 ? 1.0 + static_cast<double>(i) : 0.0;
    e.set_constraints(set);
    std::vector<double> lambda;
    const ContactSet active = e.active_contacts(f.q, lambda);
    ASSERT_EQ(active.size(), lambda.size());
    std::size_t expected = 0;
    for (const AlConstraint& k : e.constraints()) expected += k.lambda > 0.0;
    EXPECT_EQ(active.size(), expected);
    // Same order as the set (kinds in contact-set order), multipliers matching.
    std::size_t j = 0;
    for (const AlConstraint& k : e.constraints()) {
        if (k.lambda > 0.0) {
            EXPECT_EQ(lambda[j++], k.lambda);
        }
    }
    EXPECT_GT(active.point_triangle.size(), 0u);
    EXPECT_GT(active.edge_edge.size(), 0u);
    EXPECT_GT(active.point_plane.size(), 0u);
}

// Hybrid contact: the constraints taken over from a barrier's contact set hold every pair at
// the distance it has (g = 0 there, below dhat), start each multiplier at the pair's barrier
// force (divided by its weight in a replicated system), and leave a pair without a usable
// normal at dhat; a pair joined later keeps dhat.
TEST(AlContactEnergy, TakingOverKeepsEachPairAtItsDistanceWithItsBarrierForce) {
    ContactFixture f;
    const ContactSet c = f.contacts();
    ASSERT_GT(c.point_triangle.size(), 0u);
    ASSERT_GT(c.edge_edge.size(), 0u);
    ASSERT_GT(c.point_plane.size(), 0u);
    std::vector<double> force(c.size());
    for (std::size_t i = 0; i < force.size(); ++i) force[i] = 0.25 * static_cast<double>(i + 1);
    const std::vector<AlPairKey> keys = keys_of(c);
    for (const double weight : {1.0, 0.5}) {
        SCOPED_TRACE(weight);
        // Bodies a and b shared by two workers each: every pair's weight is 1/2.
        ContactReplication rep;
        rep.holders = {3, 3};
        AlContactEnergy e = make_energy(f);
        if (weight < 1.0) e.set_replication(&rep);
        e.take_over(c, force, f.q, 1.0);
        ASSERT_EQ(e.constraints().size(), c.size());
        e.linearize(f.q, f.q);
        int held = 0;
        for (const AlConstraint& k : e.constraints()) {
            const auto i = static_cast<std::size_t>(std::find(keys.begin(), keys.end(), k.key) - keys.begin());
            ASSERT_LT(i, keys.size());
            EXPECT_DOUBLE_EQ(k.lambda, force[i] / weight);
            EXPECT_DOUBLE_EQ(k.load, k.lambda);  // the load floor starts from it too
            if (k.clearance < 0.0) continue;      // no usable normal (parallel edges)
            ++held;
            EXPECT_LT(k.clearance, f.dhat);
            double g = k.offset;
            for (int v = 0; v < k.num_vertices; ++v)
                g += k.normal[static_cast<std::size_t>(v)].dot(
                    f.surface.position(f.q, k.vertex[static_cast<std::size_t>(v)]));
            EXPECT_NEAR(g, 0.0, 1e-12);
        }
        EXPECT_GT(held, static_cast<int>(c.size()) / 2);
        // At the take-over state no pair is violated: each held pair's energy is
        // weight lambda^2 / (2 mu), the multiplier alone (its slack frozen at g = 0).
        double expected = 0.0;
        for (const AlConstraint& k : e.constraints())
            if (k.mu_eff > 0.0) expected += k.weight * 0.5 * k.lambda * k.lambda / k.mu_eff;
        EXPECT_NEAR(e.value(f.q), expected, 1e-12 * expected);
        // A pair that joins afterwards asks for dhat, as in the augmented-Lagrangian model.
        const AlPairKey later{AlPairKey::PointPlane, f.surface.body_vertex_begin[1], 0};
        ASSERT_EQ(std::find(keys.begin(), keys.end(), later), keys.end());
        e.join(std::vector<AlPairKey>{later});
        int joined = 0;
        for (const AlConstraint& k : e.constraints())
            if (k.key == later) {
                ++joined;
                EXPECT_LT(k.clearance, 0.0);
            }
        EXPECT_EQ(joined, 1);
    }
    AlContactEnergy e = make_energy(f);
    EXPECT_THROW(e.take_over(c, std::vector<double>(c.size() + 1, 1.0), f.q, 1.0), std::logic_error);
    EXPECT_THROW(e.take_over(c, force, f.q, 0.0), std::logic_error);
}

// After taking over, multiplier and clearance move together along the barrier's law F: taken
// over with the barrier's own forces, an update where nothing moved changes neither; pushed
// closer, a pair's new multiplier is the barrier's force at its new clearance and also the
// implicit update lambda - mu (D - clearance) of the old one.
TEST(AlContactEnergy, AfterTakingOverMultiplierAndClearanceFollowTheBarriersLaw) {
    ContactFixture f;
    ContactSet c = f.contacts();
    const double kappa = 50.0, dhat_sq = f.dhat * f.dhat;
    BarrierEnergy barrier(f.surface, f.planes, {true, true}, f.dhat);
    barrier.set_stiffness(kappa);
    barrier.set_contacts(&c);
    AlContactEnergy e = make_energy(f);
    e.take_over(c, barrier.normal_forces(f.q), f.q, kappa);
    e.linearize(f.q, f.q);
    const std::vector<AlConstraint> before = e.constraints();
    e.update_multipliers(f.q);
    ASSERT_EQ(e.constraints().size(), before.size());
    int checked = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
        const AlConstraint &was = before[i], &now = e.constraints()[i];
        if (was.mu_eff <= 0.0 || was.clearance < 0.0) continue;
        ++checked;
        EXPECT_NEAR(now.lambda, was.lambda, 1e-9 * was.lambda);
        EXPECT_NEAR(now.clearance, was.clearance, 1e-9 * f.dhat);
    }
    EXPECT_GT(checked, 0);
    // Body a 2 mm down, towards the ground plane y = -0.6 (and away from b).
    e.set_constraints(before);
    VecX q = f.q;
    q[1] -= 2e-3;
    e.linearize(f.q, q);
    const std::vector<AlConstraint> lin = e.constraints();
    e.update_multipliers(q);
    int pressed = 0;
    for (std::size_t i = 0; i < lin.size(); ++i) {
        const AlConstraint &was = lin[i], &now = e.constraints()[i];
        if (was.mu_eff <= 0.0 || was.clearance < 0.0 || now.lambda <= 0.0) continue;
        double distance = was.offset + was.clearance;  // D(q), linearised
        for (int v = 0; v < was.num_vertices; ++v)
            distance += was.normal[static_cast<std::size_t>(v)].dot(
                f.surface.position(q, was.vertex[static_cast<std::size_t>(v)]));
        EXPECT_NEAR(now.lambda, kappa * barrier_force(now.clearance * now.clearance, dhat_sq),
                    1e-9 * now.lambda);
        EXPECT_NEAR(now.lambda, was.lambda - was.mu_eff * (distance - now.clearance),
                    1e-6 * now.lambda);
        if (was.key.kind == AlPairKey::PointPlane) {
            ++pressed;
            EXPECT_GT(now.lambda, was.lambda);
            EXPECT_LT(now.clearance, was.clearance);
        }
    }
    EXPECT_GT(pressed, 0);
}

// Hybrid contact's friction loads: a pair of the barrier's contact set that the constraints
// hold gets their multiplier times its weight as normal force, the others keep the barrier's.
TEST(AlContactEnergy, CarriedLoadsReplaceTheBarriersForcesOfThePairsTheSetHolds) {
    ContactFixture f;
    const ContactSet c = f.contacts();
    const std::vector<AlPairKey> keys = keys_of(c);
    ContactReplication rep;
    rep.holders = {3, 3};  // every pair's weight 1/2
    AlContactEnergy e = make_energy(f);
    e.set_replication(&rep);
    std::vector<double> forces(c.size(), -1.0);
    EXPECT_EQ(e.carried_loads(c, forces), 0);  // empty set: nothing replaced
    EXPECT_EQ(forces, std::vector<double>(c.size(), -1.0));
    // The set holds every other pair of the contact set, and one pair it does not have.
    std::vector<AlConstraint> set;
    for (std::size_t i = 0; i < keys.size(); i += 2) {
        AlConstraint k;
        k.key = keys[i];
        k.lambda = 1.0 + static_cast<double>(i);
        set.push_back(k);
    }
    AlConstraint elsewhere;
    elsewhere.key = {AlPairKey::PointPlane, f.surface.body_vertex_begin[1], 0};
    ASSERT_EQ(std::find(keys.begin(), keys.end(), elsewhere.key), keys.end());
    elsewhere.lambda = 100.0;
    set.push_back(elsewhere);
    e.set_constraints(set);
    EXPECT_EQ(e.carried_loads(c, forces), static_cast<int>((keys.size() + 1) / 2));
    for (std::size_t i = 0; i < keys.size(); ++i)
        EXPECT_EQ(forces[i], i % 2 == 0 ? 0.5 * (1.0 + static_cast<double>(i)) : -1.0) << i;
    std::vector<double> wrong(c.size() + 1, 0.0);
    EXPECT_THROW(e.carried_loads(c, wrong), std::logic_error);
}
