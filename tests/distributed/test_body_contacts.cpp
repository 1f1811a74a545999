// StepStats::body_contacts of a distributed step: every active pair is counted by exactly one
// worker, per body too, so the controller's sums equal the counts of one system over every
// body at the same state.
#include <gtest/gtest.h>

#include <numeric>

#include "concord/world/step_system.hpp"
#include "distributed_test_util.hpp"

using namespace concord;
using namespace concord::test;

namespace {

/// Per-body counts of one system over every body of `spec`, measured at state q.
std::vector<int> whole_system_counts(const SceneSpec& spec, const VecX& q, double kappa) {
    const WorldModel model = build_world_model(spec);
    std::vector<int> all(static_cast<std::size_t>(model.num_bodies()));
    std::iota(all.begin(), all.end(), 0);
    StepSystem whole(model, all);
    whole.prepare(StepInput{q, q, q, spec.time_step}, kappa);
    SystemStepResult r;
    whole.measure(q, r);
    std::vector<int> dense(all.size(), 0);
    add_body_contacts(r.body_contacts, dense);
    EXPECT_GE(std::accumulate(dense.begin(), dense.end(), 0), r.contacts);
    return dense;
}

}  // namespace

// A table top shared by four workers on four legs standing on the ground: the top's pairs with
// every leg are held by several workers but counted once.
TEST(DistributedBodyContacts, SharedBodyCountedOnceOverWorkers) {
    const SceneSpec s = table_scene();
    SceneSpec d = with_workers(s, 4, 1e-7);
    d.distributed.grid = {2, 1, 2};
    DistributedWorld dw(d);
    for (int k = 0; k < 2; ++k) {
        const StepStats& st = dw.step();
        ASSERT_EQ(st.status, ConvergenceStatus::Converged);
        ASSERT_EQ(st.body_contacts.size(), 5u);
        EXPECT_EQ(st.body_contacts, whole_system_counts(s, state_of(dw), st.barrier_stiffness))
            << "step " << k;
        // Each leg: four corners on the ground plus its pairs with the top; the top's pairs are
        // all with legs, and pairs between two bodies count for both.
        int leg_top = 0;
        for (int i = 0; i < 4; ++i) {
            EXPECT_GT(st.body_contacts[static_cast<std::size_t>(i)], 4) << "leg " << i;
            leg_top += st.body_contacts[static_cast<std::size_t>(i)] - 4;
        }
        EXPECT_EQ(st.body_contacts[4], leg_top);
        EXPECT_EQ(st.contacts, 16 + leg_top);
    }
}

// The box-on-ground case with two workers: four point-plane pairs, all the box's.
TEST(DistributedBodyContacts, BoxOnGround) {
    SceneSpec s;
    s.name = "box";
    s.time_step = 0.01;
    s.contact.dhat = 1e-3;
    s.planes = {PlaneSpec{Vec3::Zero(), Vec3::UnitY(), std::nullopt}};
    s.bodies = {box("box", Vec3(0.2, 0.5 + 5e-4, 0))};
    DistributedWorld dw(with_workers(s, 2));
    for (int k = 0; k < 3; ++k) {
        const StepStats& st = dw.step();
        EXPECT_EQ(st.contacts, 4);
        EXPECT_EQ(st.body_contacts, std::vector<int>({4})) << "step " << k;
    }
}
