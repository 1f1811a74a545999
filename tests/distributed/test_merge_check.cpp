// The controller never accepts a step whose merge CCD fails (paper Sec. 4.2): driven by
// scripted workers that report passing residuals but a blocked merge (TOI < 1), it keeps
// iterating, counts the blocked iterations, and when the merge stays blocked it retries the
// step with half the time step and finally leaves the state unchanged (Diverged).
#include <gtest/gtest.h>

#include <thread>

#include "concord/distributed/distributed_simulation.hpp"
#include "concord/distributed/in_process_transport.hpp"
#include "concord/world/step_system.hpp"
#include "distributed_test_util.hpp"

using namespace concord;
using namespace concord::test;

namespace {

// A worker that follows the protocol but reports what it is told: merge TOI `toi_until`
// for the first `blocked` iterations of each step, 1 afterwards; it owns the bodies it was
// assigned and returns them unmoved. Records the time step of every step command.
void scripted_worker(InProcessTransport& t, int blocked, double toi_until, std::vector<double>& hs) {
    t.enter();
    std::vector<BodyRecord> owned;
    for (;;) {
        const Bytes b = t.receive(0, Tag::Command);
        MessageReader r(b);
        const CommandKind kind = decode_command_kind(r);
        if (kind == CommandKind::Shutdown) break;
        if (kind == CommandKind::Assign) {
            owned = decode_assign(r).bodies;
            continue;
        }
        ASSERT_EQ(kind, CommandKind::Step);
        const StepCommand cmd = decode_step(r);
        hs.push_back(cmd.h);
        MessageWriter bal;
        bal.put(false).put(0.0).put(0.0).put(std::int64_t(0));
        t.send(0, Tag::Balance, bal.take());
        (void)t.receive(0, Tag::Stiffness);
        bool failed = false;
        for (int k = 1;; ++k) {
            WorkerReport rep;
            rep.toi = k <= blocked ? toi_until : 1.0;  // residuals 0: only the merge decides
            t.send(0, Tag::Report, encode(rep));
            const ControllerSignal sig = decode_signal(t.receive(0, Tag::Signal));
            if (sig.kind == SignalKind::Failed) failed = true;
            if (sig.kind != SignalKind::Continue) break;
        }
        if (!failed) {
            WorkerReport snap;
            snap.kind = ReportKind::Snap;
            t.send(0, Tag::Report, encode(snap));
            (void)t.receive(0, Tag::Signal);
        }
        WorkerResult res;
        for (BodyRecord rec : owned) {
            rec.holders = 0b11;
            res.owned.push_back(rec);
        }
        res.failed = failed;
        t.send(0, Tag::Result, encode(res));
        (void)t.receive(0, Tag::Command);  // commit or discard
    }
    t.leave();
}

struct Harness {
    WorldModel model;
    InProcessNetwork net{2};
    std::vector<double> hs1, hs2;
    std::thread w1, w2;
    std::unique_ptr<DistributedSimulation> sim;

    Harness(int blocked, int max_iterations) : model(make_model(max_iterations)) {
        w1 = std::thread([&, blocked] { scripted_worker(net.endpoint(1), blocked, 0.5, hs1); });
        w2 = std::thread([&, blocked] { scripted_worker(net.endpoint(2), blocked, 0.5, hs2); });
        net.endpoint(0).enter();
        sim = std::make_unique<DistributedSimulation>(model, net.endpoint(0));
    }
    ~Harness() {
        sim->shutdown();
        net.endpoint(0).leave();
        w1.join();
        w2.join();
    }
    static WorldModel make_model(int max_iterations) {
        SceneSpec s = with_workers(bridge_scene(), 2, 1e-3);
        s.distributed.max_iterations = max_iterations;
        s.solver.max_halvings = 2;
        return build_world_model(s);
    }
};

}  // namespace

TEST(MergeCheck, ABlockedMergeKeepsTheLoopGoingUntilTheCcdPasses) {
    Harness h(3, 50);
    const StepStats& st = h.sim->step();
    EXPECT_EQ(st.status, ConvergenceStatus::Converged);
    EXPECT_EQ(st.distributed->admm_iterations, 4);  // three blocked, then merged
    EXPECT_EQ(st.distributed->merge_blocked, 3);
    EXPECT_EQ(st.retries, 0);
}

TEST(MergeCheck, AMergeThatStaysBlockedIsRetriedAndNeverAccepted) {
    Harness h(1000, 5);
    const WorldState before = h.sim->capture_state();
    const StepStats& st = h.sim->step();
    EXPECT_EQ(st.status, ConvergenceStatus::Diverged);
    EXPECT_EQ(st.retries, 2);  // max_halvings
    EXPECT_EQ(st.distributed->merge_blocked, 3 * 4);  // 5 iterations each, the last one fails
    ASSERT_EQ(h.hs1.size(), 3u);
    EXPECT_DOUBLE_EQ(h.hs1[1], 0.5 * h.hs1[0]);
    EXPECT_DOUBLE_EQ(h.hs1[2], 0.25 * h.hs1[0]);
    EXPECT_EQ(h.sim->state(), before.q);
    EXPECT_EQ(h.sim->time(), before.time);
}

// The worker's side of the check: CCD along q_i -> q^_i sees a merge path that crosses a
// static obstacle (the replica on one side of a wall, the consensus on the other).
TEST(MergeCheck, CcdOfTheMergePathSeesAWallInTheWay) {
    SceneSpec s;
    s.gravity = Vec3::Zero();
    BodySpec wall = box("wall", Vec3(0, 0, 0), Vec3(0.1, 2.0, 2.0));
    wall.motion = MotionType::Static;
    s.bodies = {wall, box("s", Vec3(-1.0, 0, 0), Vec3(0.5, 0.5, 0.5))};
    const WorldModel model = build_world_model(s);
    StepSystem sys(model, {0, 1});
    VecX q(24);
    q << model.bodies[0].q_initial, model.bodies[1].q_initial;
    sys.prepare(StepInput{q, q, q, s.time_step}, 1.0);
    VecX through = q, beside = q;
    through[12] = 1.0;  // p_x of "s": to the other side of the wall
    beside[13] = 0.5;   // p_y: up, staying on its side
    EXPECT_LT(sys.ccd_fraction(q, through), 1.0);
    EXPECT_GT(sys.ccd_fraction(q, through), 0.0);
    EXPECT_EQ(sys.ccd_fraction(q, beside), 1.0);
}
