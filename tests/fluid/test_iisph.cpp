#include "concord/fluid/iisph.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "concord/fluid/fluid_sampling.hpp"
#include "concord/geometry/primitives.hpp"

namespace concord {
namespace {

// A column of water `depth` deep in a square tank `width` wide (lattice spacing 2 r).
struct Column {
    FluidMaterial material;
    FluidParticles fluid;
    BoundarySamples tank;
    double floor = 0.0;

    Column(double r = 0.01, double width = 0.2, double depth = 0.4) {
        material.particle_radius = r;
        material.viscosity = 1e-3;
        const double inner_height = depth + 0.1;
        const TriMesh mesh = open_box_container(Vec3(width, inner_height, width), 2 * r);
        floor = -(inner_height + 2 * r) / 2 + 2 * r;
        tank.x = sample_surface(mesh, boundary_sample_spacing(material), boundary_sample_depth(material));
        tank.v.assign(tank.x.size(), Vec3::Zero());
        tank.psi = boundary_psi(tank.x, material);
        fluid.mass = lattice_particle_mass(material);
        const double h = width / 2;
        fluid.add(points_clear_of(box_lattice(Vec3(-h, floor, -h), Vec3(h, floor + depth, h),
                                              material.spacing()),
                                  tank.x, boundary_clearance(material)),
                  Vec3::Zero());
    }
};

TEST(Iisph, LatticeMassGivesTheRestDensityInside) {
    FluidMaterial m;
    m.particle_radius = 0.01;
    const double mass = lattice_particle_mass(m);
    // The rest volume of a particle is close to (2 r)^3 (the cubic kernel oversums a lattice).
    EXPECT_NEAR(mass / (m.rest_density * 8e-6), 1.0, 0.1);
}

TEST(Iisph, HydrostaticColumnMatchesRhoGDepthAndStaysAtRest) {
    // Closed form: p = rho0 g (surface - y), the surface r above the top particles, checked on
    // every layer's average pressure over the particles at least one support radius plus one
    // spacing from the side walls and over the last 150 steps, from the fourth layer down to
    // one support radius above the floor. Tolerance 5 % of rho0 g depth (the issue's; measured
    // 0.2-3.8 % on layers 3-6 of this column, r = 2 cm; one snapshot instead of the average
    // read 0.9-5.7 %). Not met next to the floor: Akinci's boundary force (pressure mirrored
    // with weight 1, as published) needs the layer on the floor at about 1.6 rho0 g depth
    // (measured +58 %, the layer above it -11 %), and next to a vertical wall part of the
    // weight is held by the wall. (Weight 2, the symmetric mirror, gets the floor layer right
    // but makes the particles along vertical edges unstable.) Density error within the
    // solver's tolerance, which must be 1e-4 here (the default 1e-3 leaves layers 6-9 % off).
    // No drift (below).
    Column c(0.02, 0.4, 0.56);
    c.material.density_tolerance = 1e-4;
    c.material.viscosity = 1e-2;  // damps the sloshing of the start; no effect at rest
    IisphSolver solver(c.material);
    const Vec3 g(0, -9.81, 0);
    const double dt = 0.004;
    std::vector<Vec3> impulse;
    for (int s = 0; s < 600; ++s) solver.step(c.fluid, c.tank, g, dt, impulse);
    const std::vector<Vec3> settled = c.fluid.x;
    const double spacing = c.material.spacing();
    const double interior = 0.2 - c.material.support_radius() - spacing;
    // Per layer (counted from the top), over the particles at least one support radius plus
    // one spacing from the side walls and over every one of the last 150 steps (a single
    // snapshot moves the layers' averages by a point or more with the slow sloshing that is
    // left): summed pressure, depth below that step's surface, height, count.
    std::map<int, std::array<double, 4>> layers;
    auto add_layers = [&] {
        double top = -1e9;
        for (const Vec3& x : c.fluid.x) top = std::max(top, x.y());
        const double surface = top + c.material.particle_radius;
        for (std::size_t i = 0; i < c.fluid.size(); ++i) {
            const Vec3& x = c.fluid.x[i];
            if (std::abs(x.x()) > interior || std::abs(x.z()) > interior) continue;
            auto& l = layers[static_cast<int>(std::lround((top - x.y()) / spacing))];
            l[0] += c.fluid.pressure[i];
            l[1] += surface - x.y();
            l[2] += x.y();
            l[3] += 1;
        }
    };
    double worst_error = 0.0;
    for (int s = 0; s < 150; ++s) {
        const IisphStepStats last = solver.step(c.fluid, c.tank, g, dt, impulse);
        worst_error = std::max(worst_error, last.density_error);
        EXPECT_TRUE(last.converged);
        add_layers();
    }
    EXPECT_LE(worst_error, c.material.density_tolerance);
    // No drift: the column's centre of mass stays within 0.02 spacing and particles move 0.1
    // spacing (root mean square) over the last 0.6 s; what remains is slow sloshing.
    double top = -1e9, msd = 0.0;
    Vec3 com_then = Vec3::Zero(), com_now = Vec3::Zero();
    for (std::size_t i = 0; i < settled.size(); ++i) {
        msd += (c.fluid.x[i] - settled[i]).squaredNorm();
        com_then += settled[i];
        com_now += c.fluid.x[i];
        top = std::max(top, c.fluid.x[i].y());
    }
    const double n = static_cast<double>(settled.size());
    EXPECT_LT((com_now - com_then).norm() / n, 0.02 * c.material.spacing());
    EXPECT_LT(std::sqrt(msd / n), 0.1 * c.material.spacing());
    const double rho_g = c.material.rest_density * 9.81;
    ASSERT_GE(layers.size(), 8u);
    int checked = 0;
    for (const auto& [layer, sum] : layers) {
        const double p = sum[0] / sum[3], d = sum[1] / sum[3], y = sum[2] / sum[3];
        if (layer < 3 || y < c.floor + c.material.support_radius()) continue;
        EXPECT_NEAR(p, rho_g * d, 0.05 * rho_g * d) << "layer " << layer << " depth " << d;
        ++checked;
    }
    EXPECT_GE(checked, 4);
}

TEST(Iisph, DamBreakSurgeFrontFollowsMartinAndMoyce) {
    // Martin and Moyce (1952), the n^2 = 2 series: a column a wide and 2 a high collapses along
    // a tank; the surge front x / a (from the column's back wall) against T = t sqrt(2 g / a),
    // as tabulated by Koshizuka and Oka (1996), every point with T <= 3. Here a = 0.1 m, water
    // (nu = 1e-6 m^2/s), r = 5 mm, a tank 5.5 a long and a deep across (1,368 particles). The
    // front is the largest particle x plus r. Tolerance 10 % (the issue's); measured -9.9 % at
    // T = 0.41 (the column starts at rest at Z = 1; the measured 1.11 after 29 ms would need an
    // average acceleration of 2.6 g: the experiment's time origin, the gate's opening) and
    // -4.9 % ... -0.9 % from T = 0.84 on. docs/fluids.md "Validation" has the finer runs.
    const std::vector<std::array<double, 2>> measured = {
        {0.41, 1.11}, {0.84, 1.22}, {1.19, 1.44}, {1.43, 1.67}, {1.63, 1.89}, {1.83, 2.11},
        {1.98, 2.33}, {2.20, 2.56}, {2.32, 2.78}, {2.51, 3.00}, {2.65, 3.22}, {2.83, 3.44},
        {2.98, 3.67}};
    const double a = 0.1, depth = a, g = 9.81;
    FluidMaterial m;
    m.particle_radius = 0.005;
    m.viscosity = 1e-6;
    const double length = 5.5 * a, height = 2.5 * a, wall = m.spacing();
    const TriMesh mesh = open_box_container(Vec3(length, height, depth), wall);
    const double floor = -(height + wall) / 2 + wall, back = -length / 2;
    BoundarySamples tank;
    tank.x = sample_surface(mesh, boundary_sample_spacing(m), boundary_sample_depth(m));
    tank.v.assign(tank.x.size(), Vec3::Zero());
    tank.psi = boundary_psi(tank.x, m);
    FluidParticles fluid;
    fluid.mass = lattice_particle_mass(m);
    fluid.add(points_clear_of(box_lattice(Vec3(back, floor, -depth / 2),
                                          Vec3(back + a, floor + 2 * a, depth / 2), m.spacing()),
                              tank.x, boundary_clearance(m)),
              Vec3::Zero());
    ASSERT_GT(fluid.size(), 1000u);
    IisphSolver solver(m);
    const double time_scale = std::sqrt(2 * g / a);
    std::vector<Vec3> impulse;
    double t = 0.0;
    for (const auto& [T, z_measured] : measured) {
        // CFL-limited steps (number 0.4 over the spacing, as the engine's), the last one ending
        // exactly at the measured time.
        const double until = T / time_scale;
        while (t < until - 1e-12) {
            double vmax = 0.0;
            for (const Vec3& v : fluid.v) vmax = std::max(vmax, v.norm());
            const double dt = std::min({0.002, 0.4 * m.spacing() / (vmax + g * 0.002), until - t});
            solver.step(fluid, tank, Vec3(0, -g, 0), dt, impulse);
            t += dt;
        }
        double front = -std::numeric_limits<double>::infinity();
        for (const Vec3& x : fluid.x) front = std::max(front, x.x());
        const double z = (front + m.particle_radius - back) / a;
        EXPECT_NEAR(z, z_measured, 0.10 * z_measured) << "T = " << T;
    }
}

TEST(Iisph, MomentumChangeIsGravityAndTheBoundaryImpulseExactly) {
    // Newton's third law: what the fluid gains from the tank is what the tank's samples get back.
    Column c;
    c.fluid.v.assign(c.fluid.size(), Vec3(0.3, -0.5, 0.1));
    IisphSolver solver(c.material);
    const Vec3 g(0, -9.81, 0);
    const double dt = 0.002;
    for (int s = 0; s < 40; ++s) {
        Vec3 before = Vec3::Zero(), after = Vec3::Zero(), on_tank = Vec3::Zero();
        for (const Vec3& v : c.fluid.v) before += c.fluid.mass * v;
        std::vector<Vec3> impulse;
        solver.step(c.fluid, c.tank, g, dt, impulse);
        for (const Vec3& v : c.fluid.v) after += c.fluid.mass * v;
        for (const Vec3& j : impulse) on_tank += j;
        const Vec3 gravity = static_cast<double>(c.fluid.size()) * c.fluid.mass * dt * g;
        const Vec3 balance = after - before - gravity + on_tank;
        EXPECT_LT(balance.norm(), 1e-9 * (gravity.norm() + on_tank.norm())) << "step " << s;
    }
}

TEST(Iisph, AParticleTrappedBetweenTwoSurfacesDoesNotBlastThem) {
    // One particle alone between a fixed floor and a moving lid, nearer the floor: its own
    // pressure barely changes its density (the two surfaces' gradients nearly cancel, and it has
    // no fluid neighbour), so a plain Jacobi step divides its small compression by an almost
    // vanishing diagonal. That threw a heavy box resting on the last layer of water off the
    // tank's floor at 176 m/s (docs/fluids.md, "Impacts"); here the lid got 11 N s. With the
    // diagonal bounded below by a tenth of a filled lattice particle's it gets 0.16 N s (the
    // compression is 6 %), below the momentum that would carry the particle across twice its
    // diameter in the step, and the pressure stays below 100 m of water.
    FluidMaterial m;
    m.particle_radius = 0.01;
    const double r = m.particle_radius, dt = 0.00125;
    auto patch = [&](double y) {
        std::vector<Vec3> out;
        for (int i = -10; i <= 10; ++i)
            for (int k = -10; k <= 10; ++k) out.emplace_back(i * r, y, k * r);
        return out;
    };
    BoundarySamples b;
    b.x = patch(-1.58 * r);
    b.psi = boundary_psi(b.x, m);
    b.fixed = b.x.size();
    b.fixed_version = 1;
    const std::vector<Vec3> lid = patch(1.6 * r);
    const std::vector<double> lid_psi = boundary_psi(lid, m);
    b.x.insert(b.x.end(), lid.begin(), lid.end());
    b.psi.insert(b.psi.end(), lid_psi.begin(), lid_psi.end());
    b.v.assign(b.x.size(), Vec3::Zero());
    FluidParticles f;
    f.mass = lattice_particle_mass(m);
    f.add({Vec3::Zero()}, Vec3::Zero());
    IisphSolver solver(m);
    std::vector<Vec3> impulse;
    solver.step(f, b, Vec3::Zero(), dt, impulse);
    EXPECT_GT(f.density[0], m.rest_density);  // compressed: the solve has work to do
    EXPECT_GT(f.pressure[0], 0.0);
    Vec3 on_lid = Vec3::Zero();
    for (std::size_t k = b.fixed; k < b.size(); ++k) on_lid += impulse[k];
    EXPECT_GT(on_lid.y(), 0.0);  // pushed up
    EXPECT_LT(on_lid.norm(), f.mass * 4 * r / dt);
    EXPECT_LT(f.pressure[0], 1e6);
}

TEST(Iisph, ResultsAreTheSameWhateverTheThreadCount) {
    auto run = [](int threads) {
        tbb::global_control ctl(tbb::global_control::max_allowed_parallelism,
                                static_cast<std::size_t>(threads));
        Column c;
        c.fluid.v.assign(c.fluid.size(), Vec3(0.2, 0, 0));
        IisphSolver solver(c.material);
        std::vector<Vec3> impulse;
        for (int s = 0; s < 20; ++s) solver.step(c.fluid, c.tank, Vec3(0, -9.81, 0), 0.002, impulse);
        return std::make_pair(c.fluid.x, impulse);
    };
    const auto one = run(1), two = run(2);
    EXPECT_EQ(one.first, two.first);
    EXPECT_EQ(one.second, two.second);
}

}  // namespace
}  // namespace concord
