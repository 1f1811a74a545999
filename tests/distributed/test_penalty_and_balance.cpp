// Penalty rules (initial rho, Eq. 12 adaptation, dual rescaling) and the PD load balancer.
#include <gtest/gtest.h>

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
    EXPECT_DOUBLE_EQ(up.u_scale, 0.5);  // rho u unchanged: u * 4 / 8
    up = adapt_penalty(d, 4.0, 4.0, 1.0, 6.0);  // s > mu r: soften
    EXPECT_DOUBLE_EQ(up.rho, 2.0);
    EXPECT_DOUBLE_EQ(up.u_scale, 2.0);
    up = adapt_penalty(d, 4.0, 4.0, 1.0, 3.0);  // balanced enough: keep
    EXPECT_DOUBLE_EQ(up.rho, 4.0);
    EXPECT_DOUBLE_EQ(up.u_scale, 1.0);
    up = adapt_penalty(d, 4000.0, 4.0, 6.0, 1.0);  // clamp at 1e3 rho0
    EXPECT_DOUBLE_EQ(up.rho, 4000.0);
    EXPECT_DOUBLE_EQ(up.u_scale, 1.0);
    d.rescale_dual = false;
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 6.0, 1.0).u_scale, 1.0);
    d.adapt = false;
    EXPECT_DOUBLE_EQ(adapt_penalty(d, 4.0, 4.0, 6.0, 1.0).rho, 4.0);
}

TEST(LoadBalancer, MovesThePlaneTowardsTheSlowerWorkerAndSettles) {
    LoadBalanceSpec spec;
    spec.kp = 0.1;
    spec.kd = 0.0;
    spec.smoothing = 1.0;
    LoadBalancer lb(spec, 10.0);
    Partition p;
    p.cells = {2, 1, 1};
    p.planes[0] = {0.0};
    // Worker 0 three times slower: T = (3 - 1) / (3 + 1) = 0.5, dp = l kp T = 0.5.
    lb.update({3.0, 1.0}, p, 0.1);
    EXPECT_DOUBLE_EQ(p.planes[0][0], -0.5);  // cell 0 shrinks
    lb.update({1.0, 1.0}, p, 0.1);  // balanced: stays
    EXPECT_DOUBLE_EQ(p.planes[0][0], -0.5);
    lb.update({1.0, 3.0}, p, 0.1);
    EXPECT_DOUBLE_EQ(p.planes[0][0], 0.0);
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
