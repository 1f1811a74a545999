// The scene's fluid and its two-way coupling with the bodies (issue 16; docs/fluids.md).
//
// The fluid (fluid/iisph.hpp) is advanced first in every body step, in CFL-limited fluid steps
// that cover the body step, against boundary samples on every body's surface and on the planes
// (Akinci et al. 2012). Within the body step the samples follow a prediction of their body's
// motion: its velocity at the step's start, changed after every fluid step by that step's fluid
// impulse and the body's external forces (contacts are not predicted). The impulse the fluid's
// pressure exerts on a body's samples over the whole body step is turned into the generalised
// force J^T f of the affine map (12 numbers) and enters that body's predicted state
// q~ = q + h q' + h^2 M^-1 (f_ext + f_fluid): the body step sees the force once, and it is
// exactly opposite to what the fluid received (Newton's third law, tested). Reduced elastic
// bodies couple through their floating frame (x = p + A X, modes not sampled).
#pragma once

#include <string>
#include <vector>

#include "concord/fluid/fluid_sampling.hpp"
#include "concord/fluid/iisph.hpp"
#include "concord/world/fluid_state.hpp"
#include "concord/world/step_stats.hpp"
#include "concord/world/world_model.hpp"

namespace concord {

/// A fluid split across workers (distributed/fluid_domain.hpp): FluidCoupling::advance steps
/// this worker's particles through it and reduces what every worker must agree on.
class FluidSplit {
  public:
    virtual ~FluidSplit() = default;
    /// One fluid step of this worker's particles (IisphSolver::step's contract).
    virtual IisphStepStats step(const BoundarySamples& boundary, const Vec3& g, double dt,
                                std::vector<Vec3>& boundary_impulse) = 0;
    /// The fastest particle of every worker.
    virtual double max_speed() = 0;
    /// Per body, the sum over every worker, added in a fixed order (the same on all); returns
    /// max_speed(), which travels in the same exchange (the next fluid step's CFL limit).
    virtual double sum(std::vector<Vec12>& per_body) = 0;
    /// This worker's particles: the first owned() of local_particles().
    virtual FluidParticles& local_particles() = 0;
    virtual std::size_t owned() const = 0;
};

class FluidCoupling {
  public:
    /// Lays out the scene's fluid blocks (lattice points nearer than the boundary clearance to
    /// a boundary sample are left out) and samples the bodies and planes. Throws InputError
    /// naming the block for a block that holds no particle, particles that start inside a body
    /// (naming it), or more particles than this machine's memory allows (estimated before
    /// anything is allocated).
    explicit FluidCoupling(const WorldModel& model);

    int num_particles() const { return static_cast<int>(fluid_.size()); }
    const FluidParticles& particles() const { return fluid_; }
    const FluidMaterial& material() const { return solver_.material(); }

    FluidState capture() const;
    /// Throws InputError when the state has another particle count or is not finite (check),
    /// changing nothing then.
    void restore(const FluidState& s);
    void check(const FluidState& s) const;

    /// Advances the fluid over the body step [t, t + h] of state s (kinematic bodies move to
    /// their position at t + h). Returns, per body, the generalised impulse of the fluid on its
    /// affine coordinates over the step (zero for bodies without samples).
    /// With `split`, the particles stepped are that worker's (this object's own are unused)
    /// and the bodies' impulses are summed over every worker: the same return on all of them.
    std::vector<Vec12> advance(const WorldModel& model, const WorldState& s, double h,
                               FluidStepStats& stats, FluidSplit* split = nullptr);

    /// Particles inside a body's closed surface or behind a plane in state q.
    int particles_in_bodies(const WorldModel& model, const VecX& q) const;
    /// The same for the points x (a worker's particles).
    int points_in_bodies(const WorldModel& model, const VecX& q, const std::vector<Vec3>& x,
                         std::size_t count) const;
    /// After the bodies' stage: particles that the bodies' motion left inside a closed body or
    /// behind a plane in state q move half a particle radius outside the nearest surface point
    /// (positions only: no momentum changes hands; the next fluid step's push_out settles any
    /// inward velocity, with its third-law impulse). The first n of p, or this object's own
    /// particles when p is null. Returns how many moved.
    int settle(const WorldModel& model, const VecX& q, FluidParticles* p = nullptr,
               std::size_t n = 0);

    /// The largest number of fluid steps one body step may take (bounded work): beyond it the
    /// step is taken with this many, and stats.converged is false.
    static constexpr int kMaxSubsteps = 1000;

  private:
    /// Points of x inside a closed body surface or behind a plane in state q; *where (if given)
    /// names what holds the first of them.
    int count_inside(const WorldModel& model, const VecX& q, const std::vector<Vec3>& x,
                     std::string* where) const;

    struct BodySamples {
        int body = -1;
        bool is_static = false;   ///< static bodies come first (the boundary's fixed part)
        std::vector<Vec3> local;  ///< X, body-local
        std::vector<double> psi;
    };
    /// A body's affine state and rate as the fluid sees it during a body step.
    struct BodyMotion {
        Vec12 q = Vec12::Zero(), q_dot = Vec12::Zero();
        bool dynamic = false;
    };
    /// At the step's start: dynamic bodies at q with q', kinematic ones heading for their
    /// position at t + h, static ones still.
    std::vector<BodyMotion> body_motions(const WorldModel& model, const WorldState& s,
                                         double h) const;
    /// boundary_: the plane samples, then every body's samples placed by `motion`.
    void place_samples(const std::vector<BodyMotion>& motion);
    /// The last line of the boundary handling, after every fluid step: each of the first n
    /// particles of p that lies inside a closed body (placed by `motion`) or behind a plane goes
    /// back half a particle radius outside the nearest surface point, and the inward part of its
    /// velocity relative to the surface there is removed. The momentum this gives the particle
    /// is taken from the body (its generalised impulse added to impulse[k], bodies_ order), so
    /// the balance stays exact. With impulse null, positions only (settle). Returns how many
    /// particles it moved.
    int push_out(const WorldModel& model, const std::vector<BodyMotion>& motion, FluidParticles& p,
                 std::size_t n, std::vector<Vec12>* impulse) const;

    IisphSolver solver_;
    FluidParticles fluid_;
    std::vector<BodySamples> bodies_;
    BoundarySamples planes_;  ///< static: patches of the planes around the fluid
    BoundarySamples boundary_;
    std::vector<Vec12> fixed_q_;
    double fixed_speed_ = 0.0;   ///< the fastest of the boundary's fixed samples
    std::vector<Vec3> impulse_;  ///< per sample, the fluid step's impulse (moving samples only)
    std::vector<bool> closed_;   ///< per body: its mesh is closed (the inside check applies)
    std::vector<MeshInside> inside_;  ///< per closed body: its inside test (body coordinates)
};

}  // namespace concord
