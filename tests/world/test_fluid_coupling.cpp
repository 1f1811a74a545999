// The fluid coupled with the bodies (world/fluid_coupling.hpp): Archimedes, sinking, momentum,
// capture/restore, and the errors of bad fluid input.
#include "concord/world/fluid_coupling.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "concord/math/error.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/world/world.hpp"

namespace concord {
namespace {

World world_from(const std::string& text) {
    return World(parse_scene(nlohmann::json::parse(text), "fluid-test.json", ""));
}

std::string input_error_of(const std::string& text) {
    try {
        world_from(text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// A 0.3 x 0.3 m tank (floor at y = 0) with water 0.12 m deep and a 0.1 m cube of the given
// density released 5 mm above the water, r = 1 cm, h = 2.5 ms (about the fluid's CFL step, as
// the source paper's 3 ms; at 5 and 10 ms cubes of 2,000 and 3,000 kg/m^3 land as well, with
// 1-6 particles pushed back out of them over the run).
constexpr double kStep = 0.0025;

std::string tank_with_box(double box_density, double seconds, double viscosity = 0.01) {
    const nlohmann::json scene = {
        {"time_step", kStep},
        {"frames", static_cast<int>(seconds / kStep)},
        {"gravity", {0, -9.81, 0}},
        {"materials", {{"wall", {{"density", 1000}}}, {"box", {{"density", box_density}}}}},
        {"bodies",
         {{{"name", "tank"},
           {"shape", {{"container", {{"size", {0.3, 0.3, 0.3}}, {"wall_thickness", 0.02}}}}},
           {"material", "wall"},
           {"motion", "static"},
           {"position", {0, 0.15 - 0.02 + 0.01, 0}}},
          {{"name", "box"},
           {"shape", {{"box", {{"size", {0.1, 0.1, 0.1}}}}}},
           {"material", "box"},
           {"position", {0, 0.125 + 0.05, 0}}}}},
        {"fluids",
         {{{"name", "water"},
           {"block", {{"min", {-0.15, 0, -0.15}}, {"max", {0.15, 0.12, 0.15}}}},
           {"particle_radius", 0.01},
           {"viscosity", viscosity}}}}};
    return scene.dump();
}

// The free surface: r above the highest particle away from the box.
double surface_away_from_box(const World& w) {
    const FluidParticles& f = *w.fluid_particles();
    double top = -1e9;
    for (const Vec3& x : f.x)
        if (std::max(std::abs(x.x()), std::abs(x.z())) > 0.1) top = std::max(top, x.y());
    return top + 0.01;
}

TEST(FluidCoupling, AFloatingBoxSettlesAtTheArchimedesDraft) {
    // Density 500 in water: it floats with half its height (0.05 m) below the surface. The
    // issue's tolerance: one particle spacing (0.02 m). Its particles never enter the box.
    World w = world_from(tank_with_box(500, 2.0));
    ASSERT_GT(w.num_fluid_particles(), 600);
    int inside = 0;
    for (int s = 0; s < 800; ++s) {
        const StepStats& st = w.step();
        ASSERT_TRUE(st.fluid.has_value());
        inside = std::max(inside, st.fluid->particles_in_bodies);
    }
    EXPECT_EQ(inside, 0);
    const double bottom = w.q(1)[1] - 0.05;
    const double draft = surface_away_from_box(w) - bottom;
    EXPECT_NEAR(draft, 0.05, 0.02) << "box bottom at " << bottom;
    EXPECT_LT(w.q_dot(1).head<3>().norm(), 0.05);  // at rest
}

// The sinking boxes fall through water of nu = 1e-3 m^2/s (the example scenes'): in the tank's
// 0.01 m^2/s (ten times glycerine) a 2,000 kg/m^3 box stays on a squeeze film one particle thick
// (its bottom 2.1 cm above the floor for at least 3 s; at 1e-3 and 1e-6 it is down within 0.5 s).
TEST(FluidCoupling, AHeavyBoxSinksToTheFloor) {
    World w = world_from(tank_with_box(2000, 1.5, 1e-3));
    for (int s = 0; s < 600; ++s)
        ASSERT_EQ(w.step().fluid->particles_in_bodies, 0) << "step " << s << " box at " << w.q(1).head<3>().transpose();
    const double bottom = w.q(1)[1] - 0.05;
    EXPECT_LT(bottom, 0.005);  // on the tank's floor (y = 0), within the contact distance
    EXPECT_GT(bottom, -1e-6);
}

// A cube three times as dense as water reaches the floor at 0.8 m/s and rests on the last
// layer of particles, each held between the cube's samples and the floor's. Such a particle's own
// pressure barely changes its density; before the solver bounded its Jacobi diagonal
// (fluid/iisph.cpp, kTrappedDiagonal) it took pressures of 1e6-1e10 Pa and threw the cube up at
// 176 m/s, with every later body step at the 1,000-step fluid cap.
TEST(FluidCoupling, AVeryHeavyBoxLandsOnTheFloorThroughTheWater) {
    World w = world_from(tank_with_box(3000, 1.5, 1e-3));
    double highest = 0.0;
    int most_substeps = 0;
    for (int s = 0; s < 600; ++s) {
        const StepStats& st = w.step();
        ASSERT_EQ(st.fluid->particles_in_bodies, 0) << "step " << s;
        most_substeps = std::max(most_substeps, st.fluid->substeps);
        highest = std::max(highest, w.q(1)[1]);
    }
    EXPECT_LE(highest, 0.175 + 1e-9);  // never thrown above where it started
    EXPECT_LE(most_substeps, 4);       // the fluid stays near its resting CFL step (measured: 2)
    EXPECT_LT(w.q(1)[1] - 0.05, 0.005);
    EXPECT_GT(w.q(1)[1] - 0.05, -1e-6);
}

TEST(FluidCoupling, MomentumOfFluidAndBodyIsConserved) {
    // No gravity, nothing else: a block of water thrown at a free box. Whatever the fluid loses
    // the box gains (Newton's third law through J^T f), up to the box solve's tolerance.
    const nlohmann::json scene = {
        {"time_step", 0.005},
        {"gravity", {0, 0, 0}},
        {"materials", {{"box", {{"density", 800}}}}},
        {"bodies",
         {{{"name", "box"}, {"shape", {{"box", {{"size", {0.1, 0.1, 0.1}}}}}}, {"material", "box"},
           {"position", {0.12, 0.05, 0.05}}}}},
        {"fluids",
         {{{"block", {{"min", {-0.1, 0, 0}}, {"max", {0.0, 0.1, 0.1}}}},
           {"particle_radius", 0.01},
           {"velocity", {1.5, 0, 0}}}}}};
    World w = world_from(scene.dump());
    const double box_mass = 800 * 1e-3;
    auto momentum = [&] {
        Vec3 m = box_mass * w.q_dot(0).head<3>();
        const FluidParticles& f = *w.fluid_particles();
        for (const Vec3& v : f.v) m += f.mass * v;
        return m;
    };
    const Vec3 before = momentum();
    for (int s = 0; s < 40; ++s) w.step();
    EXPECT_GT(w.q_dot(0)[0], 0.05);  // the water pushed the box
    EXPECT_LT((momentum() - before).norm(), 1e-6 * before.norm());
}

TEST(FluidCoupling, AParticleInsideABodyOrBehindAPlaneIsPutBackAndTheBodyTakesItsMomentum) {
    // No gravity: a box at rest, a plane, and a block of water beside them. Two particles are
    // put where the boundary handling should never let them be: inside the box, moving into it,
    // and behind the plane. One step puts both back outside (stats.fluid.pushed_out), and the
    // momentum the first loses into the box is the box's (third law, to the box solve's
    // tolerance).
    const nlohmann::json scene = {
        {"time_step", 0.0025},
        {"gravity", {0, 0, 0}},
        {"materials", {{"box", {{"density", 800}}}}},
        {"planes", {{{"point", {0, -0.2, 0}}, {"normal", {0, 1, 0}}}}},
        {"bodies",
         {{{"name", "box"}, {"shape", {{"box", {{"size", {0.1, 0.1, 0.1}}}}}}, {"material", "box"},
           {"position", {0.2, 0.05, 0.05}}}}},
        {"fluids",
         {{{"block", {{"min", {-0.1, 0, 0}}, {"max", {0.0, 0.1, 0.1}}}},
           {"particle_radius", 0.01}}}}};
    World w = world_from(scene.dump());
    WorldState s = w.capture_state();
    s.fluid.x[0] = Vec3(0.19, 0.05, 0.05);  // 4 cm inside the box's -x face (x = 0.15)
    s.fluid.v[0] = Vec3(0.5, 0, 0);
    s.fluid.x[1] = Vec3(-0.05, -0.25, 0.05);  // 5 cm behind the plane
    s.fluid.v[1] = Vec3(0, -0.2, 0);
    w.restore_state(s);
    const double box_mass = 800 * 1e-3;
    auto momentum = [&] {
        Vec3 m = box_mass * w.q_dot(0).head<3>();
        const FluidParticles& f = *w.fluid_particles();
        for (std::size_t i = 0; i < f.size(); ++i)
            if (i != 1) m += f.mass * f.v[i];  // the plane takes what particle 1 loses
        return m;
    };
    const Vec3 before = momentum();
    const StepStats st = w.step();
    ASSERT_TRUE(st.fluid.has_value());
    EXPECT_EQ(st.fluid->pushed_out, 2);
    EXPECT_EQ(st.fluid->particles_in_bodies, 0);
    const FluidParticles& f = *w.fluid_particles();
    // Particle 0 left through the nearest face (x = 0.15, 4 cm away) and no longer moves into
    // the box; particle 1 is above the plane, no longer moving down.
    EXPECT_LT(f.x[0].x(), 0.15);
    EXPECT_LE(f.v[0].x(), w.q_dot(0)[0] + 1e-9);
    EXPECT_GT(f.x[1].y(), -0.2);
    EXPECT_GE(f.v[1].y(), 0.0);
    EXPECT_GT(w.q_dot(0)[0], 0.0);  // the box was pushed by the particle it stopped
    EXPECT_LT((momentum() - before).norm(), 1e-6 * f.mass * 0.5);
}

TEST(FluidCoupling, CaptureAndRestoreReplayTheFluidBitForBit) {
    World w = world_from(tank_with_box(500, 0.2));
    for (int s = 0; s < 3; ++s) w.step();
    const WorldState saved = w.capture_state();
    EXPECT_EQ(static_cast<int>(saved.fluid.x.size()), w.num_fluid_particles());
    for (int s = 0; s < 3; ++s) w.step();
    const WorldState first = w.capture_state();
    w.restore_state(saved);
    for (int s = 0; s < 3; ++s) w.step();
    EXPECT_TRUE(w.capture_state().bitwise_equal(first));
    WorldState wrong = saved;
    wrong.fluid = {};
    EXPECT_THROW(w.restore_state(wrong), InputError);
    EXPECT_EQ(fluid_state_from_bytes(fluid_state_bytes(saved.fluid), "x"), saved.fluid);
    auto bytes = fluid_state_bytes(saved.fluid);
    bytes.pop_back();
    EXPECT_THROW(fluid_state_from_bytes(bytes, "x"), InputError);
}

TEST(FluidCoupling, AMeshBlockFillsTheInsideOfTheMesh) {
    // tests/scene/data/cube.obj (the unit cube about the origin) scaled to 0.16 m: the lattice
    // points 2 r apart inside it, 8^3 of them, the fluid alone in space.
    const std::string cube = std::string(CONCORD_SOURCE_DIR) + "/tests/scene/data/cube.obj";
    const nlohmann::json scene = {
        {"gravity", {0, 0, 0}},
        {"fluids",
         {{{"mesh", {{"path", cube}, {"scale", {0.16, 0.16, 0.16}}}}, {"particle_radius", 0.01}}}}};
    World w = world_from(scene.dump());
    const FluidParticles& f = *w.fluid_particles();
    EXPECT_EQ(f.size(), 512u);
    for (const Vec3& x : f.x) EXPECT_LE(x.cwiseAbs().maxCoeff(), 0.07 + 1e-12);
    w.step();  // and it steps
    EXPECT_EQ(w.last_stats().fluid->particles, 512);
}

TEST(FluidCoupling, BadFluidInputIsAClearError) {
    // Particles inside a body.
    nlohmann::json s = nlohmann::json::parse(tank_with_box(500, 0.1));
    s["bodies"][1]["position"] = {0, 0.06, 0};
    EXPECT_NE(input_error_of(s.dump()).find("fluid \"water\": "), std::string::npos);
    EXPECT_NE(input_error_of(s.dump()).find("start inside body \"box\""), std::string::npos)
        << input_error_of(s.dump());
    // More particles than memory allows: refused before anything is allocated.
    nlohmann::json big = nlohmann::json::parse(tank_with_box(500, 0.1));
    big["fluids"][0]["block"] = {{"min", {-100, 0, -100}}, {"max", {100, 50, 100}}};
    big["fluids"][0]["particle_radius"] = 0.001;
    EXPECT_NE(input_error_of(big.dump()).find("more than half of this machine's memory"),
              std::string::npos)
        << input_error_of(big.dump());
    // A block too thin for one particle.
    nlohmann::json thin = nlohmann::json::parse(tank_with_box(500, 0.1));
    thin["fluids"][0]["block"] = {{"min", {-0.1, 0.05, -0.1}}, {"max", {0.1, 0.055, 0.1}}};
    EXPECT_NE(input_error_of(thin.dump()).find("holds no particle"), std::string::npos)
        << input_error_of(thin.dump());
}

}  // namespace
}  // namespace concord
