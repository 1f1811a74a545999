// LocalProblem: a worker's local problem split by islands gives the same start-of-step
// stiffness share and the same end-of-step statistics as the whole local system, and solves
// each island without shared bodies once per lag round.
#include <gtest/gtest.h>

#include <bit>
#include <memory>
#include <vector>

#include "concord/distributed/local_problem.hpp"
#include "distributed_test_util.hpp"

using namespace concord;
using namespace concord::test;

namespace {

// The bridge (two boxes and a plank across them, the plank shared with worker 1) and a box
// resting far away on its own: two islands, one of them with the shared body.
struct Fixture {
    WorldModel model;
    std::vector<int> ids{0, 1, 2, 3};
    std::vector<std::uint64_t> masks{1, 1, 3, 1};
    // With a column: a tall box (body 4) standing 5 cm beyond the plank's right end, an island
    // of its own.
    explicit Fixture(bool column = false) : Fixture(scene(column)) {
        if (!column) return;
        ids.push_back(4);
        masks.push_back(1);
    }
    std::vector<int> shared_local{2};
    VecX q, q_tilde, target;
    std::unique_ptr<StepInput> in;
    std::vector<std::unique_ptr<StepSystem>> systems;
    std::vector<std::unique_ptr<ConsensusEnergy>> terms;

    explicit Fixture(const SceneSpec& spec) : model(build_world_model(spec)) {
        q = model.initial_state();
        const double h = model.spec.time_step;
        q_tilde = q;
        for (int b = 0; b < model.num_bodies(); ++b)
            q_tilde.segment<12>(12 * b) +=
                h * h * model.initial_external_acceleration[static_cast<std::size_t>(b)];
        target = q;
        in = std::make_unique<StepInput>(StepInput{q, q_tilde, target, h, 0.0});
    }
    static SceneSpec scene(bool column) {
        SceneSpec s = bridge_scene();
        s.bodies.push_back(box("far", Vec3(8.0, 0.5 + 0.5e-3, 0)));
        if (column) s.bodies.push_back(box("column", Vec3(2.65, 1.5 + 0.5e-3, 0), Vec3(1, 3, 1)));
        return s;
    }
    LocalSystemRef system(const std::vector<int>& bodies, const std::vector<std::uint64_t>& m) {
        SystemReplication rep;
        for (std::uint64_t mask : m) rep.body_weight.push_back(1.0 / std::popcount(mask));
        rep.contacts.holders = m;
        systems.push_back(std::make_unique<StepSystem>(model, bodies, nullptr, &rep));
        terms.push_back(std::make_unique<ConsensusEnergy>());
        systems.back()->add_term(*terms.back());
        return {systems.back().get(), terms.back().get()};
    }
    /// The step's start in the whole system's order (after problem()).
    VecX start() const {
        VecX x;
        systems.front()->gather(q, x);
        return x;
    }
    std::unique_ptr<LocalProblem> problem(bool islands) {
        const LocalSystemSource source = [this](const std::vector<int>& b,
                                                const std::vector<std::uint64_t>& m) {
            return system(b, m);
        };
        return std::make_unique<LocalProblem>(model, system(ids, masks), ids, masks,
                                              shared_local, *in, model.kappa_min, islands,
                                              source);
    }
};

// Local solves as a worker runs them: to 1e-7 in the step norm, or at most 2 iterations.
SolverParams exact_solve() {
    SolverParams p;
    p.convergence_mode = ConvergenceMode::StepNorm;
    p.step_tol = 1e-7;
    return p;
}
SolverParams inexact_solve() {
    SolverParams p = exact_solve();
    p.max_iterations = 2;
    return p;
}

// Counted here: every pair (one worker).
bool everything(int, int) {
    return true;
}

}  // namespace

TEST(LocalProblem, SplitByIslandsGivesTheWholeSystemsStiffnessShare) {
    Fixture f;
    const auto split = f.problem(true);
    const auto whole = f.problem(false);
    ASSERT_TRUE(split->split());
    EXPECT_EQ(split->internal_bodies(), 1);  // the far box
    ASSERT_FALSE(whole->split());
    const StiffnessShare a = split->stiffness_share(), b = whole->stiffness_share();
    EXPECT_TRUE(a.internal.has_contacts);
    EXPECT_EQ(a.internal.has_contacts, b.internal.has_contacts);
    EXPECT_NEAR(a.internal.dot, b.internal.dot, 1e-12 * std::abs(b.internal.dot));
    EXPECT_NEAR(a.internal.norm_sq, b.internal.norm_sq, 1e-12 * b.internal.norm_sq);
    ASSERT_EQ(a.shared.size(), 1u);
    ASSERT_EQ(b.shared.size(), 1u);
    EXPECT_EQ(a.shared[0].id, 2);
    EXPECT_LT((a.shared[0].g_rest - b.shared[0].g_rest).norm(),
              1e-12 * b.shared[0].g_rest.norm());
    EXPECT_LT((a.shared[0].g_unit - b.shared[0].g_unit).norm(),
              1e-12 * b.shared[0].g_unit.norm());
}

TEST(LocalProblem, SplitByIslandsMeasuresWhatTheWholeSystemMeasures) {
    Fixture f;
    const auto split = f.problem(true);
    const auto whole = f.problem(false);
    const VecX x = f.start();
    const LocalMeasure a = split->measure(x, everything), b = whole->measure(x, everything);
    EXPECT_GT(b.contacts, 0);
    EXPECT_EQ(a.contacts, b.contacts);
    EXPECT_EQ(a.body_contacts, b.body_contacts);
    EXPECT_EQ(a.min_distance, b.min_distance);
    // A pair is counted only where keep says so: here, none of the far box's.
    const LocalMeasure c = split->measure(x, [](int p, int q) { return p != 3 && q != 3; });
    EXPECT_LT(c.contacts, a.contacts);
    for (const BodyContactCount& n : c.body_contacts) EXPECT_NE(n.body, 3);
}

TEST(LocalProblem, IslandsWithoutSharedBodiesAreSolvedOncePerRound) {
    Fixture f;
    const auto split = f.problem(true);
    VecX x = f.start();
    const SolverParams exact = exact_solve(), inexact = inexact_solve();
    split->start_round(x, f.model.kappa_min);
    const std::vector<ConsensusTerm> terms{{2, 1e3, f.q_tilde.segment<12>(24)}};
    split->solve(x, f.model.kappa_min, terms, inexact, exact);
    EXPECT_GT(split->internal_stats().iterations, 0);  // the far box, to convergence
    split->solve(x, f.model.kappa_min, terms, inexact, exact);
    EXPECT_EQ(split->internal_stats().iterations, 0);  // not again in this round
    split->start_round(x, f.model.kappa_min);
    split->solve(x, f.model.kappa_min, terms, inexact, exact);
    EXPECT_GT(split->internal_stats().iterations, 0);
}

// The merge check's CCD (only shared bodies move, to z) runs on the coupled system while the
// problem is split, and finds what the whole system finds: a collision-free fraction of 1 for a
// small move, the same contact-limited fraction for a move into the boxes below, and the whole
// system's answer when an island without shared bodies moves too.
TEST(LocalProblem, SplitCcdFractionIsTheWholeSystems) {
    Fixture f;
    const auto split = f.problem(true);
    const auto whole = f.problem(false);
    ASSERT_TRUE(split->split());
    VecX x0;
    f.systems.front()->gather(f.q, x0);
    auto moved = [&](int body, double dy) {
        VecX x1 = x0;
        x1(12 * body + 1) += dy;  // the translation's y
        return x1;
    };
    const VecX up = moved(2, 1e-4), down = moved(2, -0.8e-3);
    EXPECT_EQ(split->ccd_fraction(x0, up), 1.0);
    EXPECT_EQ(whole->ccd_fraction(x0, up), 1.0);
    const double blocked = whole->ccd_fraction(x0, down);
    EXPECT_GT(blocked, 0.0);
    EXPECT_LT(blocked, 0.7);  // the plank's gap is 0.5e-3 of the 0.8e-3
    EXPECT_EQ(split->ccd_fraction(x0, down), blocked);
    VecX both = down;
    both(12 * 3 + 1) -= 0.8e-3;  // the far box into the ground as well
    EXPECT_EQ(split->ccd_fraction(x0, both), whole->ccd_fraction(x0, both));
    EXPECT_LT(split->ccd_fraction(x0, both), 0.7);
}

// A worker keeps its systems across steps by their bodies and gives them each step's holder
// sets in place: the result must be the system built with those holders, bit for bit.
TEST(LocalProblem, ASystemGivenNewHoldersInPlaceIsTheSystemBuiltWithThem) {
    Fixture f;
    const std::vector<std::uint64_t> before{1, 1, 3, 1}, after{1, 3, 3, 2};
    StepSystem& reused = *f.system(f.ids, before).system;
    StepSystem& fresh = *f.system(f.ids, after).system;
    ASSERT_TRUE(reused.replication_settable());
    VecX x;
    reused.gather(f.q, x);
    // Used once with the old holders (its caches filled), then given the new ones.
    reused.prepare(*f.in, f.model.kappa_min);
    VecX x_old = x;
    SolverParams params;
    params.convergence_mode = ConvergenceMode::StepNorm;
    params.step_tol = 1e-7;
    reused.newton(x_old, f.model.kappa_min, params, std::nullopt);
    SystemReplication rep;
    for (std::uint64_t m : after) rep.body_weight.push_back(1.0 / std::popcount(m));
    rep.contacts.holders = after;
    reused.set_replication(rep);

    const StiffnessBalance a = reused.prepare(*f.in, f.model.kappa_min);
    const StiffnessBalance b = fresh.prepare(*f.in, f.model.kappa_min);
    EXPECT_EQ(a.dot, b.dot);
    EXPECT_EQ(a.norm_sq, b.norm_sq);
    VecX ga, ua, gb, ub;
    reused.start_gradients(ga, ua);
    fresh.start_gradients(gb, ub);
    EXPECT_EQ(ga, gb);
    EXPECT_EQ(ua, ub);
    EXPECT_EQ(reused.objective(x), fresh.objective(x));
    VecX xa = x, xb = x;
    const NewtonStats sa = reused.newton(xa, f.model.kappa_min, params, std::nullopt);
    const NewtonStats sb = fresh.newton(xb, f.model.kappa_min, params, std::nullopt);
    EXPECT_EQ(sa.iterations, sb.iterations);
    EXPECT_GT(sa.iterations, 0);
    EXPECT_EQ(xa, xb);
    // The old weights would have given another answer (the test can tell them apart).
    StepSystem& old_weights = *f.system(f.ids, before).system;
    VecX gc, uc;
    old_weights.prepare(*f.in, f.model.kappa_min);
    old_weights.start_gradients(gc, uc);
    EXPECT_NE(gc, gb);

    // Systems built without replication (one machine) have no shares to change.
    StepSystem single(f.model, f.ids);
    EXPECT_FALSE(single.replication_settable());
    EXPECT_THROW(single.set_replication(rep), std::logic_error);
    SystemReplication short_rep = rep;
    short_rep.body_weight.pop_back();
    EXPECT_THROW(reused.set_replication(short_rep), std::logic_error);
}

// The consensus pulls the shared plank 0.2 m to the right, through the column, which its
// island's system does not hold: the solve leaves the islands' motion bounds. The islands are
// found again over the grown bounds, the column joins the plank's system, which restarts from
// the path cut by CCD and is solved again, and the far box keeps its own system: no body
// passes through another, and the problem stays split.
TEST(LocalProblem, ASolveThatLeavesItsBoundsMergesOnlyTheIslandsItReaches) {
    Fixture f(true);
    const auto split = f.problem(true);
    ASSERT_TRUE(split->split());
    EXPECT_EQ(split->internal_bodies(), 2);  // the far box and the column
    VecX x = f.start();
    const SolverParams exact = exact_solve(), inexact = inexact_solve();
    split->start_round(x, f.model.kappa_min);
    VecX anchor = f.q_tilde.segment<12>(24);
    anchor[0] += 0.2;
    const std::vector<ConsensusTerm> terms{{2, 1e10, anchor}};
    split->solve(x, f.model.kappa_min, terms, inexact, exact);
    EXPECT_GE(split->island_rounds(), 1);
    EXPECT_TRUE(split->split());
    EXPECT_EQ(split->internal_bodies(), 1);  // the far box alone
    // The plank (x from -1.9 to 2.1 at rest) moved right, but not into the column (from 2.15).
    const double plank = x[24], column = x[48];
    EXPECT_GT(plank, 0.1 + 0.01);
    EXPECT_LT(plank + 2.0, column - 0.5);
    EXPECT_GT(split->measure(x, everything).min_distance, 0.0);
    // Later solves go on with the grown system: the plank reaches the column and pushes it.
    for (int k = 0; k < 20; ++k) split->solve(x, f.model.kappa_min, terms, inexact, exact);
    EXPECT_GT(x[48], 2.65 + 0.05);
    EXPECT_LT(x[24] + 2.0, x[48] - 0.5);
    EXPECT_TRUE(split->split());
}
