// A step that would carry a body across many scene sizes is refused with a message (issue 18,
// bounded work): time_step 1e4 s on a small scene used to run one frame for minutes.
#include <gtest/gtest.h>

#include "concord/math/error.hpp"
#include "concord/world/step_sanity.hpp"
#include "concord/world/world.hpp"
#include "world_test_util.hpp"

namespace concord {
namespace {

SceneSpec two_boxes(double h) {
    SceneSpec s;
    s.time_step = h;
    s.planes.push_back(PlaneSpec{});
    s.bodies.push_back(test::box_body("low", Vec3(0, 0.6, 0)));
    s.bodies.push_back(test::box_body("high", Vec3(0, 2.0, 0)));
    return s;
}

std::string step_error(World& w) {
    try {
        w.step();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(StepSanity, AnAbsurdTimeStepIsRefusedByNameAndChangesNothing) {
    World w(two_boxes(1e4));  // gravity alone: h^2 g ~ 1e9 m against a scene of a few metres
    const WorldState before = w.capture_state();
    const std::string e = step_error(w);
    EXPECT_NE(e.find("a time step of 10000 s would move body \"low\""), std::string::npos) << e;
    EXPECT_NE(e.find("lower time_step"), std::string::npos) << e;
    EXPECT_TRUE(w.capture_state().bitwise_equal(before));
}

TEST(StepSanity, LargeButMeaningfulStepsAndVelocitiesPass) {
    World w(two_boxes(0.5));  // h^2 g = 2.5 m: coarse, but a simulation
    EXPECT_NO_THROW(w.step());
    // A velocity that crosses the scene 100 times in one step is refused; one that crosses it
    // once is not.
    const WorldModel model = build_world_model(two_boxes(0.01));
    WorldState s = model.initial_world_state();
    const std::vector<Vec12> no_force(2, Vec12::Zero());
    s.q_dot[12 + 0] = 1.0 * model.scene_scale / 0.01;
    EXPECT_NO_THROW(check_step_motion(model, s, 0.01, no_force));
    s.q_dot[12 + 0] = 101.0 * model.scene_scale / 0.01;
    EXPECT_THROW(check_step_motion(model, s, 0.01, no_force), InputError);
}

}  // namespace
}  // namespace concord
