// TimeStepper: the retry-halving schedule, the commit of q and q-dot, and going back to the
// step's start, with a scripted substep solver.
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "concord/world/time_stepper.hpp"

using namespace concord;

namespace {

// Moves every coordinate by +dt (so q-dot is 1) and answers with the scripted statuses in order
// (Converged once the script is used up); records every call.
struct ScriptedSolver : SubstepSolver {
    std::deque<ConvergenceStatus> script;
    std::vector<double> dts;
    std::vector<SubstepVerdict> verdicts;
    int restores = 0;
    VecX x;

    SubstepAttempt attempt(const WorldState& s, double dt, double t_end) override {
        (void)t_end;
        dts.push_back(dt);
        x = s.q.array() + dt;
        ConvergenceStatus st = ConvergenceStatus::Converged;
        if (!script.empty()) {
            st = script.front();
            script.pop_front();
        }
        return {st, &x, 10.0 + static_cast<double>(dts.size())};
    }
    void conclude(SubstepVerdict v) override { verdicts.push_back(v); }
    void restored(const WorldState&) override { ++restores; }
};

WorldState two_bodies() {
    WorldState s;
    s.num_bodies = 2;
    s.q = VecX::Zero(24);
    s.q_dot = VecX::Zero(24);
    s.barrier_stiffness = 1.0;
    return s;
}

}  // namespace

TEST(TimeStepper, CommitsOneSubstepPerStep) {
    TimeStepper stepper(two_bodies(), {true, false});
    ScriptedSolver solver;
    const StepSummary s = stepper.step(0.01, {}, solver);
    EXPECT_EQ(s.substeps, 1);
    EXPECT_EQ(s.retries, 0);
    EXPECT_FALSE(s.gave_up);
    EXPECT_EQ(stepper.state().time, 0.01);
    EXPECT_EQ(stepper.state().steps, 1);
    EXPECT_EQ(stepper.state().barrier_stiffness, 11.0);
    // q-dot = (x - q) / dt on movable bodies, zero on the others.
    EXPECT_NEAR(stepper.state().q_dot[0], 1.0, 1e-12);
    EXPECT_EQ(stepper.state().q_dot[12], 0.0);
    EXPECT_EQ(solver.verdicts, std::vector<SubstepVerdict>{SubstepVerdict::Commit});
}

TEST(TimeStepper, HalvesAFailedSubstepAndGrowsBack) {
    TimeStepper stepper(two_bodies(), {true, true});
    ScriptedSolver solver;
    solver.script = {ConvergenceStatus::Diverged};
    const StepSummary s = stepper.step(0.01, {4, false}, solver);
    EXPECT_EQ(s.retries, 1);
    EXPECT_EQ(s.substeps, 2);
    EXPECT_EQ(s.smallest_time_step, 0.005);
    EXPECT_EQ(solver.dts, (std::vector<double>{0.01, 0.005, 0.005}));
    EXPECT_EQ(solver.verdicts,
              (std::vector<SubstepVerdict>{SubstepVerdict::Retry, SubstepVerdict::Commit,
                                           SubstepVerdict::Commit}));
    // The step ends at t0 + h exactly; two converged substeps grew the level back to 0.
    EXPECT_EQ(stepper.state().time, 0.01);
    EXPECT_EQ(stepper.state().time_step_level, 0);
    // Stopped is kept unless the policy retries it.
    solver.script = {ConvergenceStatus::Stopped};
    EXPECT_EQ(stepper.step(0.01, {4, false}, solver).substeps, 1);
    solver.script = {ConvergenceStatus::Stopped};
    const StepSummary r = stepper.step(0.01, {4, true}, solver);
    EXPECT_EQ(r.retries, 1);
    EXPECT_EQ(stepper.state().time, 0.03);
}

TEST(TimeStepper, LevelPersistsUntilTwoConvergedSubsteps) {
    TimeStepper stepper(two_bodies(), {true, true});
    ScriptedSolver solver;
    // Fails at h and at h/2; h/4 converges, then a Stopped substep resets the growth counter.
    solver.script = {ConvergenceStatus::Diverged, ConvergenceStatus::Diverged,
                     ConvergenceStatus::Converged, ConvergenceStatus::Stopped};
    const StepSummary s = stepper.step(0.01, {2, false}, solver);
    EXPECT_EQ(s.retries, 2);
    EXPECT_EQ(solver.dts[2], 0.0025);
    EXPECT_EQ(stepper.state().time, 0.01);
    EXPECT_EQ(stepper.state().steps, 1);
    // Four substeps of h/4: after the Stopped one, the last two converged ones grow the level
    // back to h/2 (at the aligned end tick), which the next step starts with.
    EXPECT_EQ(s.substeps, 4);
    EXPECT_EQ(stepper.state().time_step_level, 1);
    solver.dts.clear();
    stepper.step(0.01, {2, false}, solver);
    EXPECT_EQ(solver.dts.front(), 0.005);
}

TEST(TimeStepper, GivingUpRestoresTheStepStart) {
    TimeStepper stepper(two_bodies(), {true, true});
    ScriptedSolver solver;
    stepper.step(0.01, {}, solver);
    const WorldState before = stepper.state();
    // h fails; the first h/2 commits; the second h/2 fails at the smallest level.
    solver.script = {ConvergenceStatus::Diverged, ConvergenceStatus::Converged,
                     ConvergenceStatus::Diverged};
    const StepSummary s = stepper.step(0.01, {1, false}, solver);
    EXPECT_TRUE(s.gave_up);
    EXPECT_EQ(solver.verdicts.back(), SubstepVerdict::GiveUp);
    EXPECT_EQ(solver.restores, 1);
    EXPECT_TRUE(stepper.state().bitwise_equal(before));
    // Without halving, a diverged substep gives up at once.
    solver.script = {ConvergenceStatus::Diverged};
    EXPECT_TRUE(stepper.step(0.01, {}, solver).gave_up);
    EXPECT_TRUE(stepper.state().bitwise_equal(before));
}

TEST(TimeStepper, RestoreChecksTheLayout) {
    TimeStepper stepper(two_bodies(), {true, true});
    WorldState s = two_bodies();
    s.time = 2.0;
    s.time_step_level = -3;  // clamped to 0
    stepper.restore(s);
    EXPECT_EQ(stepper.state().time, 2.0);
    EXPECT_EQ(stepper.state().time_step_level, 0);
    s.q = VecX::Zero(12);
    s.q_dot = VecX::Zero(12);
    s.num_bodies = 1;
    EXPECT_ANY_THROW(stepper.restore(s));
}
