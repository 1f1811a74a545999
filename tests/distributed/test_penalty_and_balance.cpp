// Penalty rules (initial rho, Eq. 12 adaptation, dual rescaling) and the load balancer (PD
// controller and gap moves).
#include <gtest/gtest.h>

#include <cmath>

#include "concord/distributed/load_balancer.hpp"
#include "concord/distributed/penalty.hpp"

using namespace concord;

TEST(Penalty, InitialValueFollowsTheRule) {
    DistributedSpec d;
    d.beta = 2.0;
    EXPECT_DOUBLE_EQ(initial_penalty(d, 5.0, 1e8), 10.0);  // mass-aware: beta m
    d.penalty = PenaltyRule::Fixed;
    EXPECT_DOUBLE_EQ(initial_penalty(d, 5.0, 1e8), 2.0);
    d.penalty = PenaltyRule::Stiffness;
    EXPECT_DOUBLE_EQ(initial_penalty(d, 5.0, 1e8), 2e8);
}

TEST(Penalty, AdaptsByResidualBalanceWithinTheClamp) {
    DistributedSpec d;  // tau 2, mu 5, clamp [1e-3, 1e3], rescale on
    PenaltyUpdate up = adapt_penalty(d, 4.0, 4.0, 6.0, 1.0);  // r > mu s: stiffen
    EXPECT_DOUBLE_EQ(up.rho, 8.0);
    EXPECT_DOUBLE_EQ(up.u_scale, 0.5);          // rho u unchanged: u * 4 / 8
    up = adapt_penalty(d, 4.0, 4.0, 1.0, 6.0);  // s > mu r: soften
    EXPECT_DOUBLE_EQ(up.rho, 2.0);
    EXPECT_DOUBLE_EQ(up.u_scale, 2.0);
    up = adapt_penalty(d, 4.0, 4.0, 1.0, 3.0);  // balanced enough: keep
    EXPECT_DOUBLE_EQ(up.rho, 4.0);
    EXPECT_DOUBLE_EQ(up.u_scale, 1.0);
    up = adapt_penalty(d, 4000.0, 4.0, 6.0, 0.001);  // clamp at 1e3 rho0
    EXPECT_DOUBLE_EQ(up.rho, 4000.0);
    EXPECT_DOUBLE_EQ(up.u_scale, 1.0);
    up = adapt_penalty(d, 0.004, 4.0, 1.0, 6000.0);  // clamp at 1e-3 rho0
    EXPECT_DOUBLE_EQ(up.rho, 0.004);
    d.rescale_dual = false;
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 6.0, 1.0).u_scale, 1.0);
    d.adapt = false;
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 6.0, 1.0).rho, 4.0);
}

TEST(Penalty, NormalizedRuleScalesTheDualResidualByRhoOverRho0) {
    DistributedSpec d;  // adapt_rule normalized (default): s = (rho / rho0) |dz|
    // At rho = rho0 both rules agree.
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 1.0, 6.0).rho, 2.0);
    // rho already lowered to rho0 / 8: s = 6 / 8 < mu r, so it stops falling (Eq. 12 would
    // keep halving it, since lowering rho never lowered |dz|).
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 0.5, 4.0, 1.0, 6.0).rho, 0.5);
    // ... and rises again when r dominates the scaled s: 1 > 5 * 0.1 / 8.
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 0.5, 4.0, 1.0, 0.1).rho, 1.0);
    d.adapt_rule = AdaptRule::Paper;
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 0.5, 4.0, 1.0, 6.0).rho, 0.25);
}

TEST(Penalty, NormalizedRuleKeepsRhoOfABodyThatAlreadyAgrees) {
    DistributedSpec d;  // normalized
    // r and s both below the stopping test's threshold: the imbalance is not acted on.
    PenaltyUpdate up = adapt_penalty(d, 4.0, 4.0, 1e-6, 6e-6, 1e-5);
    EXPECT_DOUBLE_EQ(up.rho, 4.0);
    EXPECT_DOUBLE_EQ(up.u_scale, 1.0);
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 6e-6, 1e-6, 1e-5).rho, 4.0);
    // One of them at or above it: Eq. 12 as before (soften, stiffen).
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 1e-6, 1e-5, 1e-5).rho, 2.0);
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 1e-5, 1e-7, 1e-5).rho, 8.0);
    // Without a threshold (0, the default) every body adapts.
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 1e-6, 6e-6).rho, 2.0);
    // The paper's literal Eq. 12 adapts agreed bodies too.
    d.adapt_rule = AdaptRule::Paper;
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 1e-6, 6e-6, 1e-5).rho, 2.0);
}

// On a quadratic local objective F(q) = c/2 |q - a|^2 the gradient changes by c dq, and on a
// consensus whose multiplier changes by b dz the curvature is b: the spectral rule sets
// rho = sqrt(c b) (Xu et al. 2017), or the one trustworthy estimate, or keeps rho.
TEST(Penalty, SpectralRuleRecoversTheCurvatures) {
    DistributedSpec d;
    d.adapt_rule = AdaptRule::Spectral;
    Vec12 dq, dz;
    for (int i = 0; i < 12; ++i) {
        dq[i] = std::sin(1.0 + i);
        dz[i] = std::cos(2.0 * i);
    }
    const SpectralHistory both{dq, 4.0 * dq, dz, 9.0 * dz};
    PenaltyUpdate up = spectral_penalty(d, 1.0, 1.0, both);
    EXPECT_NEAR(up.rho, 6.0, 1e-12);
    EXPECT_NEAR(up.u_scale, 1.0 / 6.0, 1e-12);  // rho u unchanged
    // The consensus estimate is useless (dlambda orthogonal to dz): alpha alone.
    Vec12 orth = Vec12::Zero();
    orth[0] = dz[1];
    orth[1] = -dz[0];
    const SpectralHistory local_only{dq, 4.0 * dq, dz, orth};
    EXPECT_NEAR(spectral_penalty(d, 1.0, 1.0, local_only).rho, 4.0, 1e-12);
    // Neither (a gradient change against the motion): rho stays.
    const SpectralHistory none{dq, -dq, dz, -dz};
    EXPECT_DOUBLE_EQ(spectral_penalty(d, 2.5, 1.0, none).rho, 2.5);
    // Clamped to [lo, hi] rho0.
    const SpectralHistory stiff{dq, 1e8 * dq, dz, 1e8 * dz};
    EXPECT_DOUBLE_EQ(spectral_penalty(d, 1.0, 1.0, stiff).rho, 1e3);
    d.adapt = false;
    EXPECT_DOUBLE_EQ(spectral_penalty(d, 1.0, 1.0, both).rho, 1.0);
}

namespace {

// A proportional controller (kp 0.1, no derivative, the newest load alone) with this dead band.
LoadBalanceSpec proportional(double dead_band) {
    LoadBalanceSpec spec;
    spec.kp = 0.1;
    spec.kd = 0.0;
    spec.smoothing = 1.0;
    spec.dead_band = dead_band;
    return spec;
}

// Two slabs along x split at 0.
Partition two_slabs() {
    Partition p;
    p.cells = {2, 1, 1};
    p.planes[0] = {0.0};
    return p;
}

}  // namespace

TEST(LoadBalancer, MovesThePlaneTowardsTheSlowerWorkerAndSettles) {
    LoadBalancer lb(proportional(0.0), 10.0);
    Partition p = two_slabs();
    // Worker 0 three times slower: T = (3 - 1) / (3 + 1) = 0.5, dp = l kp T = 0.5.
    lb.update({3.0, 1.0}, p, 0.1);
    EXPECT_DOUBLE_EQ(p.planes[0][0], -0.5);  // cell 0 shrinks
    lb.update({1.0, 1.0}, p, 0.1);           // balanced: stays
    EXPECT_DOUBLE_EQ(p.planes[0][0], -0.5);
    lb.update({1.0, 3.0}, p, 0.1);
    EXPECT_DOUBLE_EQ(p.planes[0][0], 0.0);
}

// Within the dead band the plane holds still; beyond it the controller acts as without one.
TEST(LoadBalancer, HoldsThePlaneWhileTheImbalanceIsWithinTheDeadBand) {
    LoadBalancer lb(proportional(0.1), 10.0);
    Partition p = two_slabs();
    lb.update({1.2, 1.0}, p, 0.1);  // T = 0.2 / 2.2 = 0.091: holds
    EXPECT_EQ(p.planes[0][0], 0.0);
    lb.update({1.0, 1.2}, p, 0.1);
    EXPECT_EQ(p.planes[0][0], 0.0);
    lb.update({3.0, 1.0}, p, 0.1);  // T = 0.5: dp = l kp T = 0.5, as without a dead band
    EXPECT_DOUBLE_EQ(p.planes[0][0], -0.5);
    LoadBalancer no_band(proportional(0.0), 10.0);
    Partition q = two_slabs();
    no_band.update({1.2, 1.0}, q, 0.1);  // the same small imbalance moves a plane without one
    EXPECT_LT(q.planes[0][0], 0.0);
}

TEST(LoadBalancer, KeepsPlanesOrderedAndCanBeOff) {
    LoadBalanceSpec spec;
    spec.kp = 10.0;
    spec.smoothing = 1.0;
    LoadBalancer lb(spec, 1.0);
    Partition p;
    p.cells = {3, 1, 1};
    p.planes[0] = {-1.0, 1.0};
    lb.update({0.0, 1.0, 0.0}, p, 0.25);  // the middle worker is far slower: both planes close in
    EXPECT_LE(p.planes[0][0] + 0.25, p.planes[0][1] + 1e-12);
    spec.enabled = false;
    LoadBalancer off(spec, 1.0);
    Partition q = p;
    off.update({5.0, 1.0, 1.0}, q, 0.25);
    EXPECT_EQ(q.planes[0], p.planes[0]);
}

namespace {

// Columns of bodies along x with centres at k + 0.5 (k = -4 ... 3) and extents 0.9 wide: gaps
// of 0.1 around every integer x.
BodyLayout columns() {
    BodyLayout b;
    for (int k = -4; k < 4; ++k) {
        const double c = k + 0.5;
        b.extents[0].emplace_back(c - 0.45, c + 0.45);
        b.centres[0].push_back(c);
        for (std::size_t a : {1u, 2u}) {
            b.extents[a].emplace_back(-0.45, 0.45);
            b.centres[a].push_back(0.0);
        }
    }
    return b;
}

bool in_a_gap(double x) {
    return std::abs(x - std::round(x)) < 0.05;
}

}  // namespace

// With the bodies' layout the plane jumps past the slower side's nearest column into the gap
// beyond it, in one step, when that column's load narrows the difference; it never rests on a
// column (where the column would be shared).
TEST(LoadBalancer, MovesThePlaneFromGapToGap) {
    const BodyLayout bodies = columns();
    LoadBalancer lb(proportional(0.05), 10.0);
    Partition p = two_slabs();  // at x = 0: four columns on each side
    // Worker 0 twice as slow: 2 per column against 1; moving one column hands over 2 of the
    // difference 4, and the plane goes to the gap at x = -1.
    lb.update({8.0, 4.0}, p, 0.1, &bodies);
    EXPECT_TRUE(in_a_gap(p.planes[0][0]));
    EXPECT_NEAR(p.planes[0][0], -1.0, 0.05);
    // The smoothed loads took the column along: the same loads again are a balance of 6 to 6
    // (one column of 2 more would turn it round), so the plane holds.
    EXPECT_DOUBLE_EQ(lb.smoothed()[0], 6.0);
    EXPECT_DOUBLE_EQ(lb.smoothed()[1], 6.0);
    lb.update({6.0, 6.0}, p, 0.1, &bodies);
    EXPECT_NEAR(p.planes[0][0], -1.0, 0.05);
    // The other way round it comes back, one gap a step.
    LoadBalancer back(proportional(0.05), 10.0);
    back.update({2.0, 6.0}, p, 0.1, &bodies);  // 6 over five columns: 1.2 of the difference 4
    EXPECT_NEAR(p.planes[0][0], 0.0, 0.05);
    EXPECT_TRUE(in_a_gap(p.planes[0][0]));
}

// A column that carries more than half the difference would turn the imbalance round: the
// plane holds although |T| is beyond the dead band (the PD controller would move it into the
// column).
TEST(LoadBalancer, HoldsWhenTheNextColumnWouldTurnTheImbalanceRound) {
    const BodyLayout bodies = columns();
    LoadBalancer lb(proportional(0.05), 10.0);
    Partition p = two_slabs();
    lb.update({5.0, 4.0}, p, 0.1, &bodies);  // T = 0.11; a column of 1.25 against d = 1
    EXPECT_EQ(p.planes[0][0], 0.0);
    LoadBalancer pd(proportional(0.05), 10.0);
    Partition q = two_slabs();
    pd.update({5.0, 4.0}, q, 0.1);
    EXPECT_NEAR(q.planes[0][0], -1.0 / 9.0, 1e-12);  // l kp T: into the column at x = -0.5
    EXPECT_FALSE(in_a_gap(q.planes[0][0]));
}

// Gap moves keep the planes ordered at least min_gap apart, and hold a plane with no body of
// the slower side to hand over.
TEST(LoadBalancer, GapMovesKeepTheirNeighboursAndNeedBodies) {
    const BodyLayout bodies = columns();
    LoadBalancer lb(proportional(0.05), 10.0);
    Partition p;
    p.cells = {3, 1, 1};
    p.planes[0] = {-1.0, 0.0};  // the middle cell holds one column, at x = -0.5
    // The middle worker is slowest: plane 0 would move up past x = -0.5, but then it would
    // come within min_gap of plane 1; plane 1 moves down likewise. Both hold.
    lb.update({1.0, 10.0, 1.0}, p, 0.5, &bodies);
    EXPECT_EQ(p.planes[0][0], -1.0);
    EXPECT_EQ(p.planes[0][1], 0.0);
    BodyLayout none;
    LoadBalancer empty(proportional(0.05), 10.0);
    Partition q = two_slabs();
    empty.update({8.0, 1.0}, q, 0.1, &none);
    EXPECT_EQ(q.planes[0][0], 0.0);
}
