// Two elastic pads grip a free rigid sphere by friction and lift it (scenes/gripper.json): the
// pads (one sampled compression mode each, u_x ~ ((x - x_back) / T)^2, so the front face stays
// flat and gives the sphere no cradle) hang on kinematic carriers by fixed joints; the carriers
// close 7 mm (the pads' modes absorb what is past contact) and then rise 0.2 m.
#include <gtest/gtest.h>

#include "concord/scene/scene_parser.hpp"
#include "concord/world/world.hpp"

using namespace concord;

TEST(Gripper, ElasticPadsLiftASphereByFriction) {
    // Statics: each pad presses with N = k delta (k = 2000 N/m per unit of the sampled mode,
    // delta its compression) and friction holds the sphere while 2 mu N >= m g (mu = 1,
    // m g = 2.57 N, so delta >= 0.65 mm). With delta ~ 5 mm the grip sticks: the sphere must
    // rise with the carriers, 0.2 m, within 1 mm of slip, and move at their 0.2 m/s.
    const SceneSpec scene = load_scene_file(std::string(CONCORD_SOURCE_DIR) + "/scenes/gripper.json");
    World w(scene);
    const double y0 = w.q(0)[1];
    const double h = scene.time_step;
    const int steps = static_cast<int>(1.5 / h + 0.5);
    double y_prev = y0;
    for (int n = 1; n <= steps; ++n) {
        w.step();
        const double t = n * h, y = w.q(0)[1];
        if (t > 0.7 && t < 1.45) {  // lifting, after the first 0.2 s of it
            EXPECT_NEAR((y - y_prev) / h, 0.2, 0.002) << "t = " << t << ": the sphere slips";
            EXPECT_GT(w.last_stats().contacts, 0);
        }
        y_prev = y;
    }
    EXPECT_NEAR(w.q(0)[1] - y0, 0.2, 1e-3);
    const double mu = 1.0, mg = scene.bodies[0].material.density * 4.0 / 3.0 * 3.14159265358979 *
                                     0.05 * 0.05 * 0.05 * 9.81;
    for (int pad : {1, 2}) {
        const double delta = w.modal_coordinates(pad)[0];
        EXPECT_GT(2 * mu * 2000.0 * delta, mg) << "pad " << pad << " compressed " << delta;
        EXPECT_LT(delta, 0.01);
    }
}

TEST(Gripper, WithoutFrictionTheSphereStaysDown) {
    // The same grip with frictionless contacts: the flat pads press horizontally only, so
    // nothing holds the sphere up and it stays on the ground while the pads slide up past it.
    SceneSpec scene = load_scene_file(std::string(CONCORD_SOURCE_DIR) + "/scenes/gripper.json");
    for (BodySpec& b : scene.bodies) b.friction.reset();
    scene.contact.friction = 0.0;
    World w(scene);
    const double y0 = w.q(0)[1];
    const int steps = static_cast<int>(1.5 / scene.time_step + 0.5);
    for (int n = 0; n < steps; ++n) w.step();
    EXPECT_LT(w.q(0)[1] - y0, 0.01);
}
