// The controller of a distributed run (paper Sec. 5.1): it holds the scene and the gathered
// state, tells the workers to advance, decides after every ADMM iteration whether to go on
// (Eq. 8 and the merge CCD of Sec. 4.2), retries a step that does not converge or cannot merge
// with half the time step, checks that the partition missed no pair, and moves the planes to
// balance the load (Sec. 5.2). It talks to the workers only through a Transport, so the same
// code drives in-process threads and MPI processes.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "concord/distributed/admm_protocol.hpp"
#include "concord/distributed/approach_speed.hpp"
#include "concord/distributed/body_box.hpp"
#include "concord/distributed/distributed_fluid.hpp"
#include "concord/distributed/load_balancer.hpp"
#include "concord/distributed/transport.hpp"
#include "concord/world/checkpoint.hpp"
#include "concord/world/step_stats.hpp"
#include "concord/world/time_stepper.hpp"
#include "concord/world/world.hpp"
#include "concord/world/world_model.hpp"
#include "concord/world/world_state.hpp"

namespace concord {

/// One line of the ADMM trace (--admm-trace): the state of the loop after iteration k.
struct AdmmTraceLine {
    int step = 0;       ///< time steps completed before this one
    int substep = 0;    ///< attempt within the step (retries count)
    int round = 0;      ///< friction lag round
    int iteration = 0;  ///< k, from 1
    double time_step = 0.0;
    double r = 0.0, s = 0.0, dq = 0.0;  ///< over h l, maxima over workers
    double toi = 0.0;                   ///< smallest merge TOI (0: some worker did not check)
    double rho_min = 0.0, rho_max = 0.0, rho_mean = 0.0;
    int newton_iterations = 0;  ///< the most Newton iterations of any worker's local solve
    double t_compute = 0.0;     ///< the slowest worker's compute seconds in this iteration
    std::vector<double> worker_t_compute;       ///< each worker's compute seconds, in rank order
    std::vector<int> worker_newton_iterations;  ///< each worker's Newton iterations
    /// Each worker's dq as Eq. 8 tests it (0 where its local solve was done).
    std::vector<double> worker_dq;
    std::optional<double> mse;  ///< against the single-machine solve of the step (--reference)
    std::string decision;       ///< continue, converged or failed
};

// The controller is the substep solver of a TimeStepper: one substep is one consensus solve.
class DistributedSimulation final : private SubstepSolver {
  public:
    /// `model` and `transport` are kept by reference; spec().distributed configures the run.
    /// Sends every worker its initial bodies.
    DistributedSimulation(const WorldModel& model, Transport& transport);
    ~DistributedSimulation();

    const SceneSpec& spec() const { return model_.spec; }
    int num_bodies() const { return model_.num_bodies(); }
    const AffineBody& body(int i) const { return model_.bodies.at(static_cast<std::size_t>(i)); }
    Vec12 q(int i) const { return current().q.segment<12>(12 * i); }
    /// Body i's frames.jsonl row: q(i), then its modal coordinates.
    VecX state_row(int i) const { return model_.body_coordinates(current().q, i); }
    Vec12 q_dot(int i) const { return current().q_dot.segment<12>(12 * i); }
    const VecX& state() const { return current().q; }
    double time() const { return current().time; }
    int step_count() const { return current().steps; }
    const Partition& partition() const { return partition_; }

    const SolverParams& solver_params() const { return params_; }
    void set_solver_params(const SolverParams& p);

    /// One time step (substeps after retries); never accepts an unmerged or penetrating state:
    /// a step that fails at the smallest time step leaves the state unchanged (Diverged).
    const StepStats& step();
    const StepStats& last_stats() const { return stats_; }

    /// The bodies' state (without the fluid's particles: capture_world_state gathers those).
    WorldState capture_state() const { return current(); }
    /// The whole state, the fluid's particles gathered from the workers.
    WorldState capture_world_state() {
        WorldState s = current();
        if (fluid_) s.fluid = fluid_->capture();
        return s;
    }
    /// The fluid's particles, gathered from the workers (null without a fluid).
    const FluidParticles* fluid_particles() { return fluid_ ? &fluid_->particles() : nullptr; }
    /// Replaces the state and sends every worker its bodies again (ADMM restarts cold), and its
    /// share of s.fluid when the scene has a fluid.
    void restore_state(const WorldState& s);

    /// The run's whole state between steps (checkpoint.hpp), with simulator "distributed": the
    /// world's, the planes, the load balancer's and every worker's carried penalties and
    /// multipliers (asked of the workers). frame and scene_digest are left to the caller.
    Checkpoint capture_checkpoint();
    /// Continues from a checkpoint. One that a distributed run with the same cells wrote
    /// restores everything, so the steps that follow repeat that run's bit for bit; any other
    /// (a single-machine run's, another worker count's) restores the world state, places the
    /// planes as at a start and starts ADMM cold. Throws InputError for a checkpoint that does
    /// not fit the scene.
    void restore_checkpoint(const Checkpoint& c);

    /// Receives every ADMM iteration of the following steps (the --admm-trace file).
    void set_trace(std::function<void(const AdmmTraceLine&)> sink) { trace_ = std::move(sink); }
    /// Also compute each traced iteration's MSE against a single-machine solve of the step.
    void set_reference(bool on);

    /// Tells the workers to stop serving (called by the destructor if not done before).
    void shutdown();

  private:
    struct Outcome;
    const WorldState& current() const { return stepper_.state(); }
    Outcome substep(double h, double t_end, int substep_index);
    // SubstepSolver: one consensus solve; the workers keep or drop it as the stepper decides.
    SubstepAttempt attempt(const WorldState& s, double dt, double t_end) override;
    void conclude(SubstepVerdict verdict) override;
    void restored(const WorldState& s) override;
    /// Sends every worker the bodies it owns at the current state (and what it carries; the
    /// sorted ids of the bodies that ended the last step in contact, BodyRecord::supported).
    void assign(const std::vector<std::vector<CarriedMultiplier>>& carry = {},
                const std::vector<int>& supported = {});
    /// Planes as at a start (spec().distributed.initial_planes), over the movable bodies at the
    /// current state and the fluid's particles at `fluid`.
    Partition starting_partition(const std::vector<Vec3>& fluid) const;
    /// Where the movable bodies lie at the current state (their boxes grown by half their
    /// overlap width, which their velocities set).
    BodyLayout body_layout() const;
    /// spec().distributed.plane_gaps, and no fluid (a plane in water has no gap to find).
    bool planes_in_gaps() const;
    /// Planes of p move to the quietest position near them (partition.hpp) for `bodies`: all
    /// of them within half the smallest body's box diagonal when `moved_from` is null (a
    /// start); otherwise those the balancer left where they were in `moved_from`, between the
    /// body centres around them.
    void seek_gaps(Partition& p, const BodyLayout& bodies,
                   const std::array<std::vector<double>, 3>* moved_from) const;
    /// Per body (world order), its overlap width for a step of length h (width_rule with the
    /// speed width_speed says; static bodies get the narrowest).
    std::vector<double> overlap_widths_for(double h) const;
    bool partition_missed_a_pair(const VecX& x_end,
                                 const std::vector<std::uint64_t>& holders) const;

    const WorldModel& model_;
    Transport& transport_;
    SolverParams params_;
    DistributedSpec dspec_;
    Partition partition_;
    std::unique_ptr<LoadBalancer> balancer_;
    std::unique_ptr<FluidController> fluid_;  ///< the scene's fluid, split like the bodies
    std::unique_ptr<ApproachSpeeds> approach_;  ///< width_speed Approach
    std::vector<RestBound> rest_bounds_;
    std::vector<int> group_;  ///< joint_groups(): bodies owned together
    double w_min_ = 0.0;

    TimeStepper stepper_;  ///< the gathered state and the substep schedule
    StepStats stats_;
    // During a step: the attempt being decided on, attempts so far, work per worker.
    std::unique_ptr<Outcome> attempted_;
    int attempts_ = 0;
    std::vector<double> loads_;

    std::function<void(const AdmmTraceLine&)> trace_;
    std::unique_ptr<World> reference_;
    FluidState reference_fluid_;  ///< the fluid at the step's start, for the reference step
    bool shut_down_ = false;
};

}  // namespace concord
