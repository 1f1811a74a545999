// Implicit incompressible SPH (Ihmsen, Cornelis, Solenthaler, Horvath and Teschner 2013, "IISPH")
// with the boundary handling of Akinci et al. 2012: a one-step pressure solve per time step.
//
// One step of length dt (IisphSolver::step):
//   1. neighbours   fluid-fluid and fluid-boundary lists (NeighborGrid, cell = H = 4 r);
//   2. density      rho_i = sum_j m W_ij + sum_k psi_k W_ik (psi_k = rho0 V_k, Akinci);
//   3. advection    v_adv = v + dt (g + viscosity), the laminar viscosity of Monaghan (2005):
//                   a_i = 2 (d + 2) nu sum_j (2 m / (rho_i + rho_j)) (v_ij . x_ij) / (|x_ij|^2 +
//                   0.01 H^2) grad W_ij;
//   4. prediction   d_ii, rho_adv (with the boundary samples' velocities), a_ii, p = p_prev / 2;
//   5. pressure     relaxed Jacobi (omega = 0.5) on A p = rho0 - rho_adv, p clamped at 0, until
//                   the average compression (rho_pred - rho0)^+ / rho0 is below the tolerance
//                   after at least two iterations, or the cap; a trapped particle's diagonal
//                   (|a_ii| below a tenth of a filled lattice particle's, as between two
//                   surfaces whose gradients cancel) is taken as that tenth;
//   6. integration  a_p = -sum_j m (p_i / rho_i^2 + p_j / rho_j^2) grad W_ij
//                         - sum_k psi_k p_i / rho_i^2 grad W_ik,
//                   symplectic Euler: v = v_adv + dt a_p, x += dt v.
// The boundary term of a_p is the force the boundary exerts on the fluid; its opposite, summed
// over the step, is returned per boundary sample (Newton's third law holds term by term).
// Kernel gradients of fluid pairs are computed in double precision and kept in single precision
// for the step (the pressure sweeps are bound by memory traffic: 2.7 M pairs on the 100 k dam
// break); rounding is odd-symmetric, so the gradient of (j, i) is still exactly minus that of
// (i, j) and pair forces stay equal and opposite.
#pragma once

#include <cstdint>
#include <vector>

#include "concord/fluid/fluid_halo.hpp"
#include "concord/fluid/neighbor_grid.hpp"
#include "concord/fluid/sph_kernel.hpp"
#include "concord/math/types.hpp"

namespace concord {

struct FluidMaterial {
    double particle_radius = 0.01;    ///< r, m; lattice spacing 2 r, kernel support 4 r
    double rest_density = 1000.0;     ///< rho0, kg/m^3
    double viscosity = 1e-3;          ///< kinematic viscosity nu, m^2/s
    double density_tolerance = 1e-3;  ///< average compression that ends the pressure solve
    int min_pressure_iterations = 2;
    int max_pressure_iterations = 100;
    double omega = 0.5;  ///< relaxation of the Jacobi iteration

    double support_radius() const { return 4.0 * particle_radius; }
    double spacing() const { return 2.0 * particle_radius; }
};

/// The fluid's particles: every particle has the same mass.
struct FluidParticles {
    double mass = 0.0;
    std::vector<Vec3> x, v;
    std::vector<double> density, pressure;

    std::size_t size() const { return x.size(); }
    /// Adds particles at rest pressure 0 (density set by the next step).
    void add(const std::vector<Vec3>& positions, const Vec3& velocity);
};

/// Boundary samples (Akinci et al. 2012): positions, velocities and psi = rho0 V.
struct BoundarySamples {
    std::vector<Vec3> x, v;
    std::vector<double> psi;
    /// The first `fixed` samples stand still (planes, static bodies): while `fixed_version`
    /// stays the same from step to step, the solver keeps their neighbour grid.
    std::size_t fixed = 0;
    std::uint64_t fixed_version = 0;

    std::size_t size() const { return x.size(); }
};

struct IisphStepStats {
    int pressure_iterations = 0;
    double density_error = 0.0;  ///< average compression at the last iteration (relative)
    bool converged = false;      ///< the tolerance was reached before the cap
    double t_neighbors = 0.0;    ///< s
    double t_pressure = 0.0;     ///< s (prediction and the pressure solve)
    double t_integrate = 0.0;    ///< s (density, advection, integration)
};

class IisphSolver {
  public:
    explicit IisphSolver(const FluidMaterial& material);

    const FluidMaterial& material() const { return material_; }
    const CubicSplineKernel& kernel() const { return kernel_; }

    /// Advances the particles by dt with gravity g against the boundary samples, and adds to
    /// boundary_impulse[k] (resized to the boundary's size if needed) the impulse the fluid's
    /// pressure exerts on sample k during the step, for every sample but the fixed ones.
    IisphStepStats step(FluidParticles& fluid, const BoundarySamples& boundary, const Vec3& g,
                        double dt, std::vector<Vec3>& boundary_impulse);

    /// One domain of a fluid split across workers: the first `owned` particles are this
    /// domain's, the rest ghosts (positions and velocities of the step's start, copied from
    /// their owners; every owned particle's neighbours must be among the particles). Steps the
    /// owned particles only; `halo` refreshes the ghosts' values where the solve reads them and
    /// reduces the density error over all domains, so that every domain takes the same number
    /// of pressure iterations. boundary_impulse gets the owned particles' share. Afterwards
    /// the ghosts' entries are stale. With owned = fluid.size() and no halo, the same as step().
    IisphStepStats step(FluidParticles& fluid, std::size_t owned, FluidHalo* halo,
                        const BoundarySamples& boundary, const Vec3& g, double dt,
                        std::vector<Vec3>& boundary_impulse);

  private:
    FluidMaterial material_;
    CubicSplineKernel kernel_;
    NeighborGrid fluid_grid_, fixed_grid_, moving_grid_;
    std::vector<Vec3> fixed_points_, moving_points_;  ///< what the two boundary grids index
    bool fixed_built_ = false;
    std::size_t fixed_count_ = 0;
    std::uint64_t fixed_version_ = 0;
    NeighborLists ff_, fb_, fb_fixed_, fb_moving_;
    // Per particle, reused between steps.
    std::vector<Vec3> v_adv_, d_ii_, dij_pj_;
    std::vector<Eigen::Vector3f> gff_;  ///< grad W of every fluid pair (single precision)
    std::vector<Vec3> gfb_;             ///< grad W of every fluid-boundary pair
    std::vector<double> wff_, wfb_;    ///< W of every fluid-fluid / fluid-boundary pair
    struct PairKernel {
        Eigen::Vector3f grad;
        double w;
    };
    std::vector<std::vector<PairKernel>> pair_blocks_;  ///< pair_lists scratch: per block of finders
    struct BoundaryKernel {
        Vec3 grad;
        double w;
    };
    /// Per block of queries, in list order: the fixed and the moving samples' pairs.
    std::vector<std::vector<BoundaryKernel>> fixed_pairs_, moving_pairs_;
    std::vector<Vec3> boundary_grad_;  ///< per particle: sum_k psi_k grad W_ik
    std::vector<double> rho_adv_, a_ii_, p_next_, compression_;
    std::vector<Vec3> grad_sum_, djj_pj_;  ///< sum_j grad W_ij; d_jj p_j + sum_k d_jk p_k
    std::vector<double> grad_sq_, p_rho2_;  ///< sum_j |grad W_ij|^2; m p_j / rho_j^2
    double lattice_gradient_sq_ = 0.0;  ///< sum over a lattice's points of |grad W|^2
};

/// The particle mass that gives rest density rho0 inside a lattice of spacing 2 r with this
/// kernel: rho0 / sum over lattice points of W.
double lattice_particle_mass(const FluidMaterial& material);

/// Boundary samples sit `boundary_sample_spacing` = r apart on surfaces.
inline double boundary_sample_spacing(const FluidMaterial& m) {
    return m.particle_radius;
}

/// Akinci's volumes give a sampled surface the weight of a half-space of fluid at the surface:
/// unloaded fluid rests about 2.2 r from a plane of samples (1.4 r under a metre of water), and
/// a lattice layer r from the samples would start compressed by up to 60 %, which one step of a
/// pressure solve turns into a blast through the wall. Boundary samples therefore sit
/// `boundary_sample_depth` = r inside the surface they stand for (the fluid then rests 1.2 r
/// from a surface, 0.4 r under load, instead of 2.2 r and 1.4 r: bodies float at close to their
/// Archimedes draft), and fluid blocks leave out lattice points nearer than
/// `boundary_clearance` to a sample (those closer than 0.9 r to a surface): the layer r from a
/// surface stays, compressed by about 6 % at the start.
inline double boundary_sample_depth(const FluidMaterial& m) {
    return 0.5 * m.particle_radius;
}
inline double boundary_clearance(const FluidMaterial& m) {
    return 1.6 * m.particle_radius;
}

/// Akinci et al.'s boundary volume of each sample, V_k = 1 / sum_l W(x_k - x_l) over the
/// samples (itself included); returns psi_k = rho0 V_k.
std::vector<double> boundary_psi(const std::vector<Vec3>& samples, const FluidMaterial& material);

}  // namespace concord
