// Islands whose motion bounds fail: only the islands that came together are solved again, the
// others keep their result, and the work of the replaced solves still counts in the stats.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cstring>

#include "concord/world/world.hpp"
#include "world_test_util.hpp"

using namespace concord;
using concord::test::box_body;

namespace {

// A fast kinematic pusher shoves box A into box C, which starts too far away to be in A's
// island; box D, 5 m off, never meets anyone.
SceneSpec pusher_scene() {
    SceneSpec s;
    s.gravity = Vec3::Zero();
    s.time_step = 0.01;
    BodySpec pusher = box_body("pusher", Vec3(-1.005, 0, 0));
    pusher.motion = MotionType::Kinematic;
    pusher.kinematic.linear_velocity = Vec3(2, 0, 0);
    pusher.kinematic.pivot = pusher.position;
    BodySpec d = box_body("d", Vec3(0, 5, 0));
    d.velocity = Vec3(0.3, 0, 0);
    s.bodies = {pusher, box_body("a", Vec3(0, 0, 0)), box_body("c", Vec3(1.006, 0, 0)), d};
    return s;
}

VecX all_q(const World& w) {
    VecX q(12 * w.num_bodies());
    for (int b = 0; b < w.num_bodies(); ++b) q.segment<12>(12 * b) = w.q(b);
    return q;
}

}  // namespace

TEST(WorldIslandRounds, OnlyTheMergedIslandsAreSolvedAgainAndTheirWorkCounts) {
    SceneSpec s = pusher_scene();
    s.solver.islands = false;
    World mono(s);
    s.solver.islands = true;
    World w(s);
    int rounds = 0;
    for (int i = 0; i < 10; ++i) {
        mono.step();
        const StepStats& st = w.step();
        const SolverStats& ss = w.solver_stats();
        ASSERT_GT(w.world_vertices(2).col(0).minCoeff() - w.world_vertices(1).col(0).maxCoeff(),
                  0.0)
            << "step " << i;
        ASSERT_GT(w.world_vertices(1).col(0).minCoeff() - w.world_vertices(0).col(0).maxCoeff(),
                  0.0)
            << "step " << i;
        if (!ss.island_fallback) continue;
        ++rounds;
        // D never came near the others: its island survives the failed bounds (the old
        // fallback re-solved everything as one system, leaving one island).
        ASSERT_EQ(ss.islands.size(), 2u) << "step " << i;
        EXPECT_EQ(ss.islands[0].bodies, (std::vector<int>{0, 1, 2}));
        EXPECT_EQ(ss.islands[1].bodies, (std::vector<int>{3}));
        // The first round's solve of {pusher, A} was replaced but done: the step's iterations
        // exceed those of the final solves (the old fallback reported the last solve alone).
        int final_iterations = 0;
        for (const IslandStats& is : ss.islands)
            final_iterations = std::max(final_iterations, is.iterations);
        EXPECT_GT(st.newton_iterations, final_iterations) << "step " << i;
        EXPECT_EQ(st.status, ConvergenceStatus::Converged);
    }
    EXPECT_GT(rounds, 0) << "the scene no longer makes A leave its motion bounds";
    EXPECT_GT(w.q(2)[0], 1.02);  // C was pushed
    // Same motion as the monolithic solve, to solver tolerance.
    const VecX d = all_q(mono) - all_q(w);
    EXPECT_LT(d.cwiseAbs().maxCoeff(), 1e-5);
}

TEST(WorldIslandRounds, AreDeterministicAcrossThreadCounts) {
    auto run = [](int threads) {
        tbb::global_control c(tbb::global_control::max_allowed_parallelism, threads);
        World w(pusher_scene());
        for (int k = 0; k < 8; ++k) w.step();
        return all_q(w);
    };
    const VecX a = run(1), b = run(2);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())),
              0);
}
