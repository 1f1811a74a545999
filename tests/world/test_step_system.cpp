// StepSystem's broad-phase hand-over: a system built for a new set of bodies starts from the
// envelope of another system that holds some of them (BroadPhaseDonors picks which), and its
// contacts are those of a system built afresh, bit for bit.
#include <gtest/gtest.h>

#include "concord/world/step_system.hpp"
#include "concord/world/world_model.hpp"
#include "world_test_util.hpp"

namespace concord {
namespace {

// Five unit boxes in a row, 0.5 mm apart (inside d-hat = 1 mm): every neighbour is in contact.
WorldModel row_of_boxes() {
    SceneSpec s;
    s.time_step = 0.01;
    s.contact.dhat = 1e-3;
    for (int i = 0; i < 5; ++i)
        s.bodies.push_back(test::box_body(std::string(1, static_cast<char>('a' + i)),
                                          Vec3(1.0005 * i, 0, 0)));
    return build_world_model(s);
}

struct Prepared {
    StiffnessBalance balance;
    std::size_t contacts = 0;
};

Prepared prepare(StepSystem& sys, const WorldModel& model) {
    const VecX q = model.initial_state();
    const StepInput in{q, q, q, 0.01, 0.01};
    Prepared p;
    p.balance = sys.prepare(in, 1e4);
    p.contacts = sys.contacts().size();
    return p;
}

TEST(BroadPhaseDonors, PicksTheCachedSystemWithTheMostBodiesInCommon) {
    const WorldModel model = row_of_boxes();
    StepSystem a(model, {0, 1, 2, 3}), b(model, {3, 4});
    BroadPhaseDonors donors;
    donors.add(a);
    donors.add(b);
    EXPECT_EQ(donors.donor_for({2, 3, 4}), nullptr);  // neither holds an envelope yet
    prepare(b, model);
    EXPECT_EQ(donors.donor_for({2, 3, 4}), &b);  // the only one with an envelope
    prepare(a, model);
    EXPECT_EQ(donors.donor_for({3, 4}), &b);        // two in common against one
    EXPECT_EQ(donors.donor_for({1, 2, 3, 4}), &a);  // three against two
    EXPECT_EQ(donors.donor_for({2, 3, 4}), &a);     // a tie goes to the first listed
    EXPECT_EQ(donors.donor_for({}), nullptr);
    donors.clear();
    EXPECT_EQ(donors.donor_for({1, 2, 3, 4}), nullptr);
}

TEST(StepSystem, AnAdoptedBroadPhaseGivesTheContactsOfAFreshOne) {
    const WorldModel model = row_of_boxes();
    StepSystem donor(model, {0, 1, 2, 3});
    const Prepared d0 = prepare(donor, model);
    ASSERT_TRUE(donor.broad_phase_cached());

    StepSystem adopted(model, {1, 2, 3, 4}), fresh(model, {1, 2, 3, 4});
    EXPECT_FALSE(adopted.broad_phase_cached());
    const VecX q0 = model.initial_state();
    EXPECT_EQ(adopted.adopt_broad_phase(donor, q0), 3);  // bodies 1, 2 and 3
    EXPECT_TRUE(adopted.broad_phase_cached());
    const Prepared p = prepare(adopted, model), q = prepare(fresh, model);
    EXPECT_GT(q.contacts, 0u);
    EXPECT_EQ(p.contacts, q.contacts);
    // The stiffness balance sums over every contact: equal bit for bit only with the same
    // contacts in the same order.
    EXPECT_EQ(p.balance.dot, q.balance.dot);
    EXPECT_EQ(p.balance.norm_sq, q.balance.norm_sq);

    // Bodies that left their envelopes are not taken over (the first query updates them
    // alone), however many they are.
    VecX moved = q0;
    moved.head<3>() += Vec3(0, 1e-5, 0);  // body 0 moved within d-hat's margin: still inside
    moved.segment<3>(12 * 1) += Vec3(0, 0.1, 0);  // body 1 up by 10 cm
    StepSystem one_out(model, {0, 1, 2, 3});
    EXPECT_EQ(one_out.adopt_broad_phase(donor, moved), 3);
    const Prepared p1 = prepare(one_out, model);  // (at q0 after all: body 1 is queried again)
    EXPECT_EQ(p1.contacts, d0.contacts);
    EXPECT_EQ(p1.balance.dot, d0.balance.dot);
    moved.segment<3>(12 * 2) += Vec3(0, 0.1, 0);  // and body 2: half of the vertices
    StepSystem two_out(model, {0, 1, 2, 3});
    EXPECT_EQ(two_out.adopt_broad_phase(donor, moved), 2);
    EXPECT_TRUE(two_out.broad_phase_cached());
    const Prepared p2 = prepare(two_out, model);
    EXPECT_EQ(p2.contacts, d0.contacts);
    EXPECT_EQ(p2.balance.dot, d0.balance.dot);
    EXPECT_EQ(p2.balance.norm_sq, d0.balance.norm_sq);

    // A donor with no body in common hands nothing over.
    StepSystem lone(model, {4});
    EXPECT_EQ(lone.adopt_broad_phase(donor, q0), 0);
    EXPECT_FALSE(lone.broad_phase_cached());
}

// The contact set is queried once per state: asked again where it was found (the friction lag
// and the first Newton iteration at the step's start, an ADMM iteration's solve starting where
// the last one ended), the system answers from what it holds, and what it holds after a solve
// is what a fresh query at the result finds.
TEST(StepSystem, ContactsAskedForAgainWhereTheyWereFoundAreNotQueriedAgain) {
    const WorldModel model = row_of_boxes();
    const VecX q0 = model.initial_state();
    VecX q_tilde = q0;
    q_tilde.head<3>() += Vec3(2e-3, 0, 0);  // box 0 pushed into box 1 (0.5 mm away)
    const StepInput in{q0, q_tilde, q0, 0.01, 0.01};
    StepSystem sys(model, {0, 1, 2, 3, 4});
    sys.prepare(in, 1e4);
    EXPECT_EQ(sys.contact_queries(), 1);
    const std::size_t at_start = sys.contacts().size();
    ASSERT_GT(at_start, 0u);

    SystemStepResult r0;
    sys.measure(q0, r0);
    EXPECT_EQ(sys.contact_queries(), 1);
    EXPECT_EQ(static_cast<std::size_t>(r0.contacts), at_start);

    VecX x = q0;
    const NewtonStats st = sys.newton(x, 1e4, SolverParams{}, std::nullopt);
    EXPECT_GE(st.iterations, 2);
    EXPECT_EQ(sys.contact_queries(), 1);  // its first iteration started where prepare() looked
    EXPECT_GT((x - q0).norm(), 1e-4);

    SystemStepResult r1, r2;
    sys.measure(x, r1);
    StepSystem fresh(model, {0, 1, 2, 3, 4});
    fresh.prepare(in, 1e4);
    fresh.measure(x, r2);  // a state this system never saw: queried
    EXPECT_EQ(fresh.contact_queries(), 2);
    EXPECT_EQ(r1.contacts, r2.contacts);
    EXPECT_EQ(r1.min_distance, r2.min_distance);
    EXPECT_EQ(r1.body_contacts, r2.body_contacts);

    // Elsewhere, and back: each a query of its own.
    VecX moved = x;
    moved.segment<3>(12 * 4) += Vec3(0, 0.1, 0);
    const int before = sys.contact_queries();
    sys.measure(moved, r1);
    sys.measure(x, r2);
    EXPECT_EQ(sys.contact_queries(), before + 2);
    EXPECT_LT(r1.contacts, r2.contacts);  // box 4 lifted off box 3
}

}  // namespace
}  // namespace concord
