// The World overloads of OutputWriter: the header lists the world's bodies and meshes, frame 0
// is the initial state, and later frames follow World::q.
#include <gtest/gtest.h>

#include "concord/io/output_reader.hpp"
#include "concord/io/output_writer.hpp"
#include "concord/world/world.hpp"
#include "io_test_util.hpp"

namespace concord {
namespace {

SceneSpec box_above_ground() {
    SceneSpec s;
    s.time_step = 0.01;
    s.planes.push_back(PlaneSpec{});
    BodySpec b;
    b.name = "box";
    b.position = Vec3(0.25, 0.6, -0.5);
    b.rotation = Eigen::AngleAxisd(0.3, Vec3::UnitY()).toRotationMatrix();
    s.bodies.push_back(b);
    BodySpec ball;
    ball.name = "ball";
    ball.shape.kind = ShapeKind::Sphere;
    ball.shape.radius = 0.3;
    ball.shape.subdivisions = 1;
    ball.motion = MotionType::Static;
    ball.position = Vec3(3, 1, 0);
    s.bodies.push_back(ball);
    return s;
}

TEST(OutputWriterWorld, HeaderAndFramesFollowTheWorld) {
    test::ScratchDir dir("io_world");
    SceneSpec scene = box_above_ground();
    World world(scene);
    OutputWriter w(dir.str(), false);
    w.write_header(scene, world);
    w.write_frame(0, world.time(), world, nullptr);
    for (int k = 1; k <= 3; ++k) {
        const StepStats& s = world.step();
        w.write_frame(k, world.time(), world, &s);
    }

    OutputReader r(dir.str());
    ASSERT_EQ(r.bodies().size(), 2u);
    EXPECT_EQ(r.bodies()[0].name, "box");
    EXPECT_EQ(r.bodies()[1].motion, MotionType::Static);
    EXPECT_EQ(r.load_mesh(1).vertices, world.body(1).mesh().vertices);
    auto frames = r.read_all_frames();
    ASSERT_EQ(frames.size(), 4u);
    // Frame 0: p = position and A = R of the scene.
    VecX q0 = frames[0].q[0];
    EXPECT_EQ(Vec3(q0.head<3>()), scene.bodies[0].position);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) EXPECT_EQ(q0[3 + 3 * i + j], scene.bodies[0].rotation(i, j));
    }
    EXPECT_EQ(frames[3].q[0], VecX(world.q(0)));
    EXPECT_EQ(frames[3].time, world.time());
    EXPECT_LT(frames[3].q[0][1], frames[0].q[0][1]) << "the box falls";
    EXPECT_EQ(frames[3].stats.newton_iterations, world.last_stats().newton_iterations);
}

}  // namespace
}  // namespace concord
