// Checkpoints of distributed runs (issue 18): a fresh run restored from a checkpoint repeats the
// original's steps bit for bit (planes, load balancer and carried multipliers included); a
// checkpoint of another layout restores the world state and starts the consensus afresh.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "concord/distributed/admm_protocol.hpp"
#include "concord/math/error.hpp"
#include "distributed_test_util.hpp"

namespace concord::test {
namespace {

// The bridge (a shared plank) beside a row of boxes on one side, so that the load balancer
// moves the plane every step and the plank's multipliers are carried from step to step.
SceneSpec moving_plane_scene() {
    SceneSpec s = bridge_scene();
    for (int i = 0; i < 4; ++i)
        s.bodies.push_back(box("b" + std::to_string(i), Vec3(-9.0 + 1.6 * i, 0.5 + 0.5e-3, 0)));
    s = with_workers(s, 2, 1e-4);
    s.distributed.load_balance.enabled = true;
    s.distributed.initial_planes = InitialPlanes::Even;
    return s;
}

TEST(DistributedCheckpoint, AFreshRunRestoredFromACheckpointRepeatsTheStepsBitForBit) {
    const SceneSpec s = moving_plane_scene();
    DistributedWorld a(s);
    for (int k = 0; k < 4; ++k) a.step();
    const Checkpoint c = a.capture_checkpoint();
    EXPECT_EQ(c.simulator, "distributed");
    const double plane_at_capture = a.partition().planes[0][0];
    for (int k = 0; k < 4; ++k) a.step();
    EXPECT_NE(a.partition().planes[0][0], plane_at_capture);  // the balancer state matters

    // Through a file, as `concord run --resume` reads it.
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("concord_dckpt_" + std::to_string(::getpid()) + ".ckpt"))
                                 .string();
    save_checkpoint(c, path);
    const Checkpoint loaded = load_checkpoint(path);
    std::filesystem::remove(path);
    EXPECT_EQ(loaded.extension, c.extension);

    DistributedWorld b(s);
    b.restore_checkpoint(loaded);
    EXPECT_EQ(b.partition().planes[0][0], plane_at_capture);
    for (int k = 0; k < 4; ++k) b.step();
    EXPECT_TRUE(a.capture_state().bitwise_equal(b.capture_state()));
    EXPECT_EQ(a.partition().planes[0][0], b.partition().planes[0][0]);

    // Restoring the world state alone (ADMM cold, planes as they were) is not the same run:
    // the checkpoint's own part is what makes the steps repeat.
    DistributedWorld cold(s);
    cold.restore_state(c.world);
    for (int k = 0; k < 4; ++k) cold.step();
    EXPECT_FALSE(a.capture_state().bitwise_equal(cold.capture_state()));
}

TEST(DistributedCheckpoint, AnotherLayoutOrOneMachineTakesTheWorldStateAndStartsAfresh) {
    const SceneSpec s = moving_plane_scene();
    DistributedWorld a(s);
    for (int k = 0; k < 3; ++k) a.step();
    const Checkpoint c = a.capture_checkpoint();

    SceneSpec three = s;
    three.distributed.workers = 3;
    DistributedWorld b(three);
    b.restore_checkpoint(c);
    EXPECT_TRUE(b.capture_state().bitwise_equal(c.world));
    ASSERT_EQ(b.partition().planes[0].size(), 2u);
    b.step();
    EXPECT_TRUE(b.last_stats().converged);

    SceneSpec one = s;
    one.distributed = DistributedSpec{};
    World w(one);
    w.restore_checkpoint(c);
    EXPECT_TRUE(w.capture_state().bitwise_equal(c.world));
    EXPECT_TRUE(w.step().converged);
}

// Checkpoints written before the support flags (distributed section format 1) still restore:
// every body then starts its next step as not supported (z^1 = q~ for one step).
TEST(DistributedCheckpoint, ACheckpointWithoutSupportFlagsStillRestores) {
    const SceneSpec s = moving_plane_scene();
    DistributedWorld a(s);
    for (int k = 0; k < 4; ++k) a.step();
    Checkpoint c = a.capture_checkpoint();
    MessageReader r(c.extension);
    ASSERT_EQ(r.get<std::int32_t>(), 2);
    MessageWriter w;
    const auto workers = r.get<std::int32_t>();
    w.put(std::int32_t{1}).put(workers);
    put_partition(w, get_partition(r));
    for (int list = 0; list < 4; ++list) w.put_list(r.get_list<double>());  // the balancer
    for (int k = 0; k < workers; ++k) {
        put_carried(w, get_carried(r));
        r.get_list<std::int32_t>();
    }
    ASSERT_TRUE(r.done());
    EXPECT_EQ(supported_bodies(c).size(), 7u);  // every body rests on the ground or the boxes
    c.extension = w.take();
    DistributedWorld b(s);
    b.restore_checkpoint(c);
    EXPECT_TRUE(b.capture_state().bitwise_equal(c.world));
    for (int k = 0; k < 4; ++k) EXPECT_EQ(b.step().status, ConvergenceStatus::Converged);
}

TEST(DistributedCheckpoint, ACheckpointThatDoesNotFitIsRefused) {
    const SceneSpec s = moving_plane_scene();
    DistributedWorld a(s);
    a.step();
    Checkpoint c = a.capture_checkpoint();

    Checkpoint damaged = c;
    damaged.extension.resize(damaged.extension.size() - 3);
    DistributedWorld b(s);
    EXPECT_THROW(b.restore_checkpoint(damaged), InputError);

    SceneSpec fewer = s;
    fewer.bodies.pop_back();
    DistributedWorld d(fewer);
    EXPECT_THROW(d.restore_checkpoint(c), InputError);
}

}  // namespace
}  // namespace concord::test
