// Robots from URDF in a World: the pendulum against its closed-form period, the six-joint arm
// reaching its joint targets, the gripper lifting a cube through the joint API, and the
// contact exclusions of adjacent links.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>

#include "concord/collision/audit/intersection_audit.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/world/world.hpp"

using namespace concord;
using nlohmann::json;

namespace {

const std::string kRobots = std::string(CONCORD_SOURCE_DIR) + "/scenes/robots";

SceneSpec scene(const json& j) {
    return parse_scene(j, "robots.json", kRobots);
}

/// The exact audit of the world's current state, with the scene's excluded pairs.
bool audit_clean(const World& w) {
    std::vector<Vertices> x;
    std::vector<AuditBody> bodies;
    for (int b = 0; b < w.num_bodies(); ++b) x.push_back(w.world_vertices(b));
    for (int b = 0; b < w.num_bodies(); ++b)
        bodies.push_back({&w.body(b).mesh().faces, &x[static_cast<std::size_t>(b)]});
    std::vector<HalfSpace> planes;
    for (const PlaneSpec& p : w.spec().planes) planes.push_back({p.point, p.normal});
    return audit_intersections(bodies, planes, 16, w.spec().contact.exclude).clean;
}

}  // namespace

TEST(Robots, UrdfPendulumSwingsWithTheClosedFormPeriod) {
    // scenes/robots/pendulum.urdf: m = 2 kg whose centre of mass is d = 0.75 m below the
    // hinge (not the rod geometry's 0.5 m), iyy = 0.02 kg m^2 about it. Small swings:
    // T0 = 2 pi sqrt((iyy + m d^2) / (m g d)); amplitude theta0 lengthens it by theta0^2 / 16.
    const double theta0 = 5.0 * std::numbers::pi / 180.0, g = 9.81, m = 2.0, d = 0.75;
    const double T = 2.0 * std::numbers::pi * std::sqrt((0.02 + m * d * d) / (m * g * d)) *
                     (1.0 + theta0 * theta0 / 16.0);
    const SceneSpec s = scene({{"time_step", 0.002},
                               {"gravity", {0, 0, -g}},
                               {"robots",
                                {{{"name", "p"},
                                  {"urdf", "pendulum.urdf"},
                                  {"rotation", {{"axis", {0, 1, 0}}, {"angle_deg", 5}}}}}}});
    World w(s);
    ASSERT_EQ(w.num_joints(), 1);
    const int hinge = w.joint_index("p.hinge");
    EXPECT_NEAR(w.joint_position(hinge), 0.0, 1e-12);  // the build state is the zero
    // Upward zero crossings of the angle (relative to the start, theta0 below it at rest).
    std::vector<double> crossings;
    double prev = w.joint_position(hinge) + theta0;
    for (int n = 1; n <= 2000; ++n) {
        w.step();
        const double a = w.joint_position(hinge) + theta0;  // the angle from the vertical
        if (prev < 0.0 && a >= 0.0) {
            const double t1 = w.time();
            crossings.push_back(t1 - s.time_step * a / (a - prev));
        }
        prev = a;
    }
    ASSERT_GE(crossings.size(), 2u);
    const double period = crossings[1] - crossings[0];
    EXPECT_NEAR(period, T, 1e-3 * T) << "measured " << period << " s, closed form " << T << " s";
}

TEST(Robots, SixJointArmReachesItsJointTargets) {
    const std::map<std::string, double> targets = {
        {"shoulder_pan", 0.5}, {"shoulder_lift", 0.6}, {"elbow", 0.9}, {"wrist_1", 0.3}};
    json drives = json::object();
    for (const auto& [name, target] : targets)
        drives[name] = {{"mode", "position"}, {"target", target}, {"ke", 2e4}, {"kd", 400}};
    World w(scene({{"time_step", 0.005},
                   {"gravity", {0, 0, -9.81}},
                   {"planes", {{{"normal", {0, 0, 1}}}}},
                   {"robots",
                    {{{"name", "arm"},
                      {"urdf", "arm6.urdf"},
                      {"position", {0, 0, 0.001}},
                      {"joint_targets", drives}}}}}));
    ASSERT_EQ(w.num_joints(), 6);
    for (int n = 0; n < 300; ++n) {
        const StepStats& st = w.step();
        ASSERT_NE(st.status, ConvergenceStatus::Diverged) << "step " << n;
    }
    // A PD drive holds the arm against gravity within tau_gravity / ke: below 20 N m / 2e4
    // N m/rad at the shoulder (7 kg beyond it, its centre within 0.3 m of the axis).
    for (const auto& [name, target] : targets)
        EXPECT_NEAR(w.joint_position(w.joint_index("arm." + name)), target, 1e-3) << name;
    for (const auto& [name, target] : targets)
        EXPECT_NEAR(w.joint_velocity(w.joint_index("arm." + name)), 0.0, 1e-2) << name;
    EXPECT_TRUE(audit_clean(w));
}

TEST(Robots, GripperDrivenThroughTheJointApiLiftsACube) {
    // scenes/robot-gripper.json without its schedules: the targets come from the API.
    SceneSpec s = load_scene_file(std::string(CONCORD_SOURCE_DIR) + "/scenes/robot-gripper.json");
    World w(s);
    const int lift = w.joint_index("gripper.lift"), left = w.joint_index("gripper.left"),
              right = w.joint_index("gripper.right");
    const double z0 = w.q(0)[2];
    auto run = [&](double seconds) {
        const int steps = static_cast<int>(std::lround(seconds / s.time_step));
        for (int n = 0; n < steps; ++n) ASSERT_NE(w.step().status, ConvergenceStatus::Diverged);
    };
    w.set_joint_target(lift, -0.12);  // lower
    w.set_joint_target(left, 0.0);
    w.set_joint_target(right, 0.0);
    run(0.6);
    EXPECT_NEAR(w.joint_position(lift), -0.12, 0.01);
    w.set_joint_target(left, 0.08);  // close on the cube (it stops them at 0.03)
    w.set_joint_target(right, 0.08);
    run(0.5);
    EXPECT_NEAR(w.joint_position(left), 0.03, 2e-3);
    EXPECT_NEAR(w.joint_position(right), 0.03, 2e-3);
    EXPECT_NEAR(w.q(0)[2], z0, 1e-3);  // still on the ground
    // Lift by 0.12 m over 0.6 s, the target ramped every step as a controller would (a step
    // in the target would jerk the carriage up at ~100 m/s^2, more than friction can hold).
    const int ramp = static_cast<int>(std::lround(0.6 / s.time_step));
    for (int n = 1; n <= ramp; ++n) {
        w.set_joint_target(lift, -0.12 + 0.12 * n / ramp);
        ASSERT_NE(w.step().status, ConvergenceStatus::Diverged);
        if (n == ramp / 2) {
            // Rising at the ramp's 0.2 m/s, the cube with the carriage.
            EXPECT_NEAR(w.joint_velocity(lift), 0.2, 0.02);
            EXPECT_NEAR(w.q_dot(0)[2], w.joint_velocity(lift), 2e-3);
        }
    }
    run(0.5);
    // 0.12 m less the drive's extra sag under the cube's weight (9.81 N / 2000 N/m).
    EXPECT_NEAR(w.q(0)[2] - z0, 0.12 - 9.81 / 2000.0, 2e-3) << "the cube slipped";
    EXPECT_TRUE(audit_clean(w));
    // The API's errors.
    EXPECT_THROW(w.joint_index("gripper.wrist"), InputError);
    EXPECT_THROW(w.set_joint_target(99, 0.0), InputError);
    EXPECT_THROW(w.set_joint_target(lift, std::nan("")), InputError);
}

TEST(Robots, JointWithoutADriveRefusesATarget) {
    World w(scene(
        {{"gravity", {0, 0, -9.81}}, {"robots", {{{"name", "p"}, {"urdf", "pendulum.urdf"}}}}}));
    try {
        w.set_joint_target(0, 1.0);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("joint 'p.hinge' has no drive"), std::string::npos)
            << e.what();
    }
}

TEST(Robots, AdjacentLinksOverlapOnlyBecauseTheyAreExcluded) {
    // The pendulum's rod starts inside its base's box at the hinge: fine by default, an
    // initial intersection when every pair of links may touch.
    const json robot = {{"name", "p"}, {"urdf", "pendulum.urdf"}};
    EXPECT_NO_THROW(World(scene({{"robots", {robot}}})));
    json all = robot;
    all["self_collision"] = "all";
    try {
        World w(scene({{"robots", {all}}}));
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("bodies 'p.base' and 'p.rod' intersect"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Robots, ArmHooksTheRingAndLiftsTheContainer) {
    // scenes/robot-arm.json with one part of each kind on each side (the example has 192): the
    // arm's scheduled targets push its hook through the container's pull ring at t = 2 s and
    // lift by 0.2 m until t = 3.2 s; the container must follow, and no state may intersect.
    json j = json::parse(std::ifstream(std::string(CONCORD_SOURCE_DIR) + "/scenes/robot-arm.json"));
    for (json& b : j["bodies"])
        if (b.contains("array")) b["array"]["count"] = {1, 1, 1};
    const SceneSpec s =
        parse_scene(j, "robot-arm.json", std::string(CONCORD_SOURCE_DIR) + "/scenes");
    World w(s);
    const int container = 0;
    ASSERT_EQ(w.body(container).name, "container");
    const double z0 = w.q(container)[2];
    const int steps = static_cast<int>(std::lround(3.4 / s.time_step));
    for (int n = 1; n <= steps; ++n) {
        ASSERT_NE(w.step().status, ConvergenceStatus::Diverged) << "step " << n;
        if (n % 40 == 0) {
            ASSERT_TRUE(audit_clean(w)) << "t = " << w.time();
        }
        if (w.time() < 1.9) {
            EXPECT_NEAR(w.q(container)[2], z0, 1e-3) << "t = " << w.time();
        }
    }
    // The hook rose 0.2 m; the container hangs a little lower on it than it stood.
    EXPECT_GT(w.q(container)[2] - z0, 0.15);
    EXPECT_TRUE(audit_clean(w));
}
