// The fluid in a distributed run (issue 16; docs/fluids.md "Distributed"): the controller's
// side (FluidController) and the worker's (FluidWorker) of the fluid stage that comes before
// the bodies' consensus solve in every step, as on one machine (World: fluid, bodies, inside
// check). Each worker steps the particles in its cell of the partition (FluidDomain: ghosts,
// halo exchanges, migration between workers); the bodies' fluid impulses are summed over the
// workers in worker order, so that every worker predicts its bodies with the same forces; the
// controller gathers the particles only when it needs them (output, checkpoints).
#pragma once

#include <memory>
#include <vector>

#include "concord/distributed/admm_protocol.hpp"
#include "concord/distributed/fluid_domain.hpp"
#include "concord/distributed/transport.hpp"
#include "concord/world/fluid_coupling.hpp"
#include "concord/world/world_model.hpp"
#include "concord/world/world_state.hpp"

namespace concord {

/// A particle-step (one particle through one fluid step) in the units of the bodies' load
/// count (Newton iterations x (bodies + contacts)) for the plane balancer. An estimate, not a
/// measurement of mixed scenes: a Newton iteration of the 512-sphere pile costs about 50 us
/// per body or contact on one core (docs/benchmarks.md), a particle-step about 3 us (the
/// 100 k dam break on one thread): 3 / 50 ~ 0.05. With load_balance.measure "time" the
/// balancer takes the fluid's seconds instead.
inline constexpr double kParticleStepLoad = 0.05;

class FluidController {
  public:
    /// Lays out the scene's fluid (FluidCoupling: the same particles as on one machine).
    FluidController(const WorldModel& model, Transport& transport);

    int num_particles() const { return coupling_.num_particles(); }
    /// Throws InputError unless `state` fits the scene's fluid (FluidCoupling::check).
    void check(const FluidState& state) const { coupling_.check(state); }
    /// Sends every worker the particles of `state` in its cell of `partition`.
    void scatter(const FluidState& state, const Partition& partition);
    /// The fluid stage of a step over [s.time, s.time + h]: per body, the generalised impulse
    /// of the fluid (the same every worker uses); the workers' statistics folded (work summed,
    /// times of the slowest worker). `work` gets each worker's particle-steps (owned particles
    /// x fluid steps), `seconds` its fluid stage's time.
    std::vector<Vec12> advance(const WorldState& s, double h, const Partition& partition,
                               FluidStepStats& stats, std::vector<double>& work,
                               std::vector<double>& seconds);
    /// The last advance()'s modelled parallel time: the sum over the segments between the
    /// workers' exchanges of the slowest worker's compute, plus the largest transfer time
    /// (t_sync_of_last()); as t_parallel of the bodies' consensus (docs/distributed.md).
    double t_parallel_of_last() const { return t_parallel_; }
    double t_sync_of_last() const { return t_sync_; }
    /// The step that followed advance() was not taken: every worker goes back to its particles
    /// before it.
    void restore();
    /// Stage 3 at state q: every worker settles its particles that the bodies moved onto
    /// (FluidCoupling::settle) and counts those still inside a closed body or behind a plane
    /// (`inside`). Returns how many were settled.
    int settle(const VecX& q, int& inside);
    /// The last settle()'s modelled parallel time: the slowest worker's compute plus the
    /// controller's transfer time (the workers check their own particles alongside each other).
    double t_parallel_of_settle() const { return t_settle_; }
    /// Every particle, by its id (gathered from the workers when they moved since last time).
    const FluidParticles& particles();
    FluidState capture();
    /// The initial layout (frame 0).
    FluidState initial_state() const { return initial_; }

  private:
    const WorldModel& model_;
    Transport& transport_;
    FluidCoupling coupling_;  ///< the gathered particles
    FluidState initial_;
    bool stale_ = false;  ///< the workers' particles moved since the last gather
    double t_parallel_ = 0.0, t_sync_ = 0.0, t_settle_ = 0.0;
};

class FluidWorker {
  public:
    FluidWorker(const WorldModel& model, Transport& transport);
    /// Serves one fluid command (its kind already read from r).
    void handle(CommandKind kind, MessageReader& r);
    /// Body b's acceleration from the fluid over the current step (M^-1 J^T f; zero for bodies
    /// that are not dynamic): what its prediction adds to the scene's external acceleration.
    const Vec12& acceleration(int b) const { return acceleration_[static_cast<std::size_t>(b)]; }

  private:
    const WorldModel& model_;
    Transport& transport_;
    /// Boundary samples and the coupling (its own particles unused), made at the first
    /// FluidSet: a scene the controller refuses never gets this far.
    std::unique_ptr<FluidCoupling> coupling_;
    std::unique_ptr<FluidDomain> domain_;
    std::vector<Vec12> acceleration_;
    // Before the last FluidStep (FluidRestore goes back to it).
    std::vector<std::int64_t> saved_ids_;
    std::vector<Vec3> saved_x_, saved_v_;
    std::vector<double> saved_p_;
};

}  // namespace concord
