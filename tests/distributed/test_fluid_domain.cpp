// The fluid split across workers (FluidDomain over the in-process transport) against the
// single-machine IISPH step: the same particles, within rounding, whatever the split.
#include "concord/distributed/fluid_domain.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "concord/distributed/in_process_transport.hpp"
#include "concord/fluid/fluid_sampling.hpp"
#include "concord/geometry/primitives.hpp"

namespace concord {
namespace {

// A column of water 0.2 x 0.3 x 0.2 m collapsing in a tank 0.6 x 0.4 x 0.2 m (r = 1 cm): it
// spreads along +x across the partition planes. The tank's samples are all movable (fixed = 0),
// so that every sample's impulse is computed and compared.
struct DamBreak {
    FluidMaterial material;
    BoundarySamples tank;
    FluidParticles fluid;

    DamBreak() {
        material.particle_radius = 0.01;
        material.viscosity = 1e-4;
        const double wall = material.spacing();
        const TriMesh mesh = open_box_container(Vec3(0.6, 0.4, 0.2), wall);
        const double floor = -(0.4 + wall) / 2 + wall;
        tank.x = sample_surface(mesh, boundary_sample_spacing(material),
                                boundary_sample_depth(material));
        tank.v.assign(tank.x.size(), Vec3::Zero());
        tank.psi = boundary_psi(tank.x, material);
        fluid.mass = lattice_particle_mass(material);
        fluid.add(points_clear_of(box_lattice(Vec3(-0.3, floor, -0.1), Vec3(-0.1, floor + 0.3, 0.1),
                                              material.spacing()),
                                  tank.x, boundary_clearance(material)),
                  Vec3::Zero());
    }
};

constexpr int kSteps = 60;
constexpr double kDt = 0.002;
const Vec3 kGravity(0, -9.81, 0);

struct Outcome {
    std::vector<Vec3> x, v;  ///< by particle id
    std::vector<double> p;
    std::vector<Vec3> impulse;    ///< per sample, summed over the steps (and workers)
    std::vector<int> iterations;  ///< per step
    std::vector<int> exchanges;   ///< per step, worker 1's exchanges with the others
    std::size_t migrated = 0, ghosts = 0;
    std::vector<std::size_t> owned;  ///< per worker after the last step
};

Outcome single_machine() {
    DamBreak s;
    IisphSolver solver(s.material);
    Outcome o;
    std::vector<Vec3> impulse;
    for (int k = 0; k < kSteps; ++k)
        o.iterations.push_back(
            solver.step(s.fluid, s.tank, kGravity, kDt, impulse).pressure_iterations);
    o.x = s.fluid.x;
    o.v = s.fluid.v;
    o.p = s.fluid.pressure;
    o.impulse = impulse;
    return o;
}

Outcome split(const Partition& partition) {
    const DamBreak s;
    const int n_workers = partition.num_workers();
    InProcessNetwork net(n_workers);
    Outcome o;
    const std::size_t n = s.fluid.size();
    o.x.resize(n);
    o.v.resize(n);
    o.p.resize(n);
    o.impulse.assign(s.tank.size(), Vec3::Zero());
    o.owned.resize(static_cast<std::size_t>(n_workers));
    std::vector<std::vector<Vec3>> impulses(static_cast<std::size_t>(n_workers));
    std::vector<std::vector<int>> iterations(static_cast<std::size_t>(n_workers));
    std::mutex m;
    std::string failure;
    std::vector<std::thread> threads;
    for (int w = 1; w <= n_workers; ++w) {
        threads.emplace_back([&, w] {
            InProcessTransport& t = net.endpoint(w);
            t.enter();
            try {
                FluidDomain d(t, s.material, s.fluid.mass, partition);
                std::vector<std::int64_t> ids;
                std::vector<Vec3> x, v;
                for (std::size_t i = 0; i < n; ++i)
                    if (partition.worker_of_point(s.fluid.x[i]) == w - 1) {
                        ids.push_back(static_cast<std::int64_t>(i));
                        x.push_back(s.fluid.x[i]);
                        v.push_back(s.fluid.v[i]);
                    }
                d.set_particles(ids, x, v, std::vector<double>(ids.size(), 0.0));
                std::vector<Vec3> impulse;
                std::size_t migrated = 0, ghosts = 0;
                std::vector<int> exchanges;
                for (int k = 0; k < kSteps; ++k) {
                    d.start_timing();
                    iterations[static_cast<std::size_t>(w - 1)].push_back(
                        d.step(s.tank, kGravity, kDt, impulse).pressure_iterations);
                    // One compute segment more than exchanges.
                    exchanges.push_back(static_cast<int>(d.segments().size()) - 1);
                    migrated += d.migrated_in();
                    ghosts += d.ghosts();
                }
                const std::lock_guard<std::mutex> lock(m);
                for (std::size_t k = 0; k < d.owned(); ++k) {
                    const auto i = static_cast<std::size_t>(d.ids()[k]);
                    o.x[i] = d.particles().x[k];
                    o.v[i] = d.particles().v[k];
                    o.p[i] = d.particles().pressure[k];
                }
                o.owned[static_cast<std::size_t>(w - 1)] = d.owned();
                if (w == 1) o.exchanges = exchanges;
                o.migrated += migrated;
                o.ghosts += ghosts;
                impulses[static_cast<std::size_t>(w - 1)] = impulse;
            } catch (const std::exception& e) {
                const std::lock_guard<std::mutex> lock(m);
                failure = "worker " + std::to_string(w) + ": " + e.what();
                net.abort(failure);
            }
            t.leave();
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failure, "");
    for (const auto& imp : impulses)  // in worker order
        for (std::size_t k = 0; k < imp.size(); ++k) o.impulse[k] += imp[k];
    // Every worker took the same number of pressure iterations in every step.
    for (const auto& it : iterations) EXPECT_EQ(it, iterations[0]);
    o.iterations = iterations[0];
    return o;
}

void expect_same(const Outcome& a, const Outcome& b) {
    ASSERT_EQ(a.x.size(), b.x.size());
    double dx = 0.0, dv = 0.0, dp = 0.0, p_max = 0.0;
    for (std::size_t i = 0; i < a.x.size(); ++i) {
        dx = std::max(dx, (a.x[i] - b.x[i]).norm());
        dv = std::max(dv, (a.v[i] - b.v[i]).norm());
        dp = std::max(dp, std::abs(a.p[i] - b.p[i]));
        p_max = std::max(p_max, std::abs(a.p[i]));
    }
    // Rounding only (neighbours summed in another order): far below the density tolerance's
    // effect on positions (1e-3 of a spacing of 2 cm is 2e-5 m).
    EXPECT_LT(dx, 1e-9) << "largest position difference";
    EXPECT_LT(dv, 1e-7) << "largest velocity difference";
    EXPECT_LT(dp, 1e-6 * p_max) << "largest pressure difference";
    Vec3 ia = Vec3::Zero(), ib = Vec3::Zero();
    double di = 0.0;
    for (std::size_t k = 0; k < a.impulse.size(); ++k) {
        ia += a.impulse[k];
        ib += b.impulse[k];
        di = std::max(di, (a.impulse[k] - b.impulse[k]).norm());
    }
    EXPECT_GT(ia.norm(), 0.0);
    EXPECT_LT((ia - ib).norm(), 1e-9 * ia.norm()) << "total impulse on the tank";
    EXPECT_LT(di, 1e-9 * ia.norm()) << "largest per-sample impulse difference";
    EXPECT_EQ(a.iterations, b.iterations);
    std::printf(
        "largest differences: position %.2e m, velocity %.2e m/s, pressure %.2e of %.0f Pa, "
        "impulse %.2e of %.3e N s\n",
        dx, dv, dp, p_max, di, ia.norm());
}

Partition slabs(std::vector<double> planes_x) {
    Partition p;
    p.cells = {static_cast<int>(planes_x.size()) + 1, 1, 1};
    p.planes[0] = std::move(planes_x);
    return p;
}

TEST(FluidDomain, TwoSlabsGiveTheSingleMachineStep) {
    const Outcome one = single_machine();
    // The plane cuts the column: particles cross it as the column spreads.
    const Outcome two = split(slabs({-0.115}));
    expect_same(two, one);
    EXPECT_GT(two.migrated, 0u);
    EXPECT_GT(two.ghosts, 0u);
    EXPECT_GT(two.owned[0], 0u);
    EXPECT_GT(two.owned[1], 0u);
}

TEST(FluidDomain, FourWorkersInSlabsOrAGridGiveTheSingleMachineStep) {
    const Outcome one = single_machine();
    // Four slabs, the last one empty at the start (the water has not reached it yet).
    const Outcome four = split(slabs({-0.25, -0.2, -0.12}));
    expect_same(four, one);
    // Each exchange is a point where the slowest worker sets the pace: migration, ghosts,
    // densities (with the particle count), advected velocities, d_ii with the warm-started
    // pressures; then per pressure iteration sum_j d_ij p_j, and the pressures with the
    // density error.
    ASSERT_EQ(four.exchanges.size(), four.iterations.size());
    for (std::size_t k = 0; k < four.iterations.size(); ++k)
        EXPECT_EQ(four.exchanges[k], 5 + 2 * four.iterations[k]) << "step " << k;
    // A 2 x 2 grid in x and y.
    Partition grid;
    grid.cells = {2, 2, 1};
    grid.planes[0] = {-0.17};
    grid.planes[1] = {-0.08};
    const Outcome cells = split(grid);
    expect_same(cells, one);
    for (const std::size_t owned : cells.owned) EXPECT_GT(owned, 0u);
}

TEST(FluidDomain, TheSplitIsDeterministic) {
    const Outcome a = split(slabs({-0.115})), b = split(slabs({-0.115}));
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.p, b.p);
    EXPECT_EQ(a.impulse, b.impulse);
}

}  // namespace
}  // namespace concord
