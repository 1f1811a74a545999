// What one time step did. StepStats is the per-frame summary (frames.jsonl, World::step());
// SolverStats is the full record of the step's solves (World::solver_stats()).
#pragma once

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "concord/solver/solver_stats.hpp"

namespace concord {

/// One worker's part of a distributed step.
struct WorkerStepStats {
    int bodies = 0;             ///< movable bodies it held (internal + shared)
    int shared = 0;             ///< of which shared with other workers
    int owned = 0;              ///< bodies whose end state it reported (their home is its cell)
    double owned_mass = 0.0;    ///< their total mass, kg
    int newton_iterations = 0;  ///< summed over its local solves
    int contacts = 0;           ///< active pairs on the worker at the end of the step
    int island_rounds = 0;      ///< local solves that left their islands' motion bounds
    double t_compute = 0.0;     ///< local solves, CCD checks and set-up, s
    double t_sync = 0.0;        ///< packing, sending and unpacking shared-body data, s
    double load = 0.0;          ///< what the load balancer equalises (work units or seconds)
};

/// What the consensus ADMM of a distributed step did (docs/distributed.md).
struct DistributedStepStats {
    int workers = 0;
    int admm_iterations = 0;    ///< summed over substeps and friction lag rounds
    int merge_blocked = 0;      ///< iterations whose residuals passed but whose merge CCD did not
    int anderson_steps = 0;     ///< iterations that took an Anderson-accelerated iterate
    int anderson_restarts = 0;  ///< iterations where the safeguard restarted the histories
    double primal_residual = 0.0;  ///< r_inf / (h l) at the end
    double dual_residual = 0.0;    ///< s_inf / (h l) at the end
    double t_sync = 0.0;        ///< largest worker exchange time, s
    /// Modelled parallel time: sum over ADMM iterations of the slowest worker's compute time,
    /// plus the largest exchange time, s.
    double t_parallel = 0.0;
    std::vector<WorkerStepStats> per_worker;
    std::vector<std::vector<double>> planes;  ///< plane positions per axis (x, y, z) after the step
    double overlap_width = 0.0;  ///< w of the (last) substep, m: the shared region is |x - plane| < w/2
    std::vector<int> owners;  ///< per body: the worker that owns it (0-based), -1 if static
};

/// The fluid's part of a step (world/fluid_coupling.hpp): frames.jsonl's stats.fluid.
struct FluidStepStats {
    int particles = 0;
    int substeps = 0;             ///< fluid steps (CFL-limited) taken inside the body step
    int pressure_iterations = 0;  ///< summed over the fluid steps
    double density_error = 0.0;   ///< largest average compression a pressure solve ended with
    bool converged = true;        ///< every pressure solve reached its tolerance (not its cap)
    /// Particles inside a closed body surface or behind a plane after the step: a failure of
    /// the boundary handling, always 0 in the tests.
    int particles_in_bodies = 0;
    double t_fluid = 0.0;      ///< the whole fluid stage, s
    double t_neighbors = 0.0;  ///< neighbour search, s
    double t_pressure = 0.0;   ///< prediction and pressure solve, s
    double t_coupling = 0.0;   ///< boundary samples, body impulses, the inside check, s
    /// Particles a fluid step left inside a closed body or behind a plane, put back outside
    /// (FluidCoupling: the last line of the boundary handling), summed over the fluid steps.
    int pushed_out = 0;
};

/// How well the joints held at the end of a step: the largest violation over the joints
/// (energy/joint_energy.hpp, docs/joints.md).
struct JointStepStats {
    double position = 0.0;         ///< anchor gap, m (prismatic: off the axis)
    double orientation = 0.0;      ///< axis / frame misalignment, ~rad
    double limit_violation = 0.0;  ///< coordinate beyond its limits, rad or m

    /// Keeps the larger of each field of this and r (a JointStepStats or a JointResidual).
    template <typename Residual>
    void take_worst(const Residual& r) {
        position = std::max(position, r.position);
        orientation = std::max(orientation, r.orientation);
        limit_violation = std::max(limit_violation, r.limit_violation);
    }
};

struct StepStats {
    ConvergenceStatus status = ConvergenceStatus::Converged;  ///< worst over islands and substeps
    StopReason stop_reason = StopReason::Residual;            ///< of the worst solve
    int newton_iterations = 0;  ///< per substep the largest island's count, summed
    bool converged = false;     ///< status == Converged
    double residual = 0.0;      ///< final convergence measure, largest over islands
    int contacts = 0;           ///< active barrier pairs (distance < dhat) at the end of the step
    /// Per body (world order), the pairs of `contacts` it takes part in: a point-triangle or
    /// edge-edge pair counts for each of its (one or two) bodies, a point-plane pair for the
    /// vertex's body only (world/body_contact_count.hpp). Empty when not recorded.
    std::vector<int> body_contacts;
    int candidates = 0;         ///< broad-phase candidate pairs (peak over the step)
    double min_distance = std::numeric_limits<double>::infinity();  ///< over all contact pairs, m
    double barrier_stiffness = 0.0;
    int line_search_trials = 0;  ///< function evaluations in line searches
    int ccd_limited_steps = 0;   ///< Newton iterations whose step was capped by CCD
    /// Hybrid contact: solves the augmented Lagrangian took over from the barrier.
    int al_switches = 0;
    int linear_solver_iterations = 0;
    int islands = 1;             ///< independent solves of the (last) substep
    int substeps = 1;            ///< implicit steps taken (more than 1 after retry-halving)
    int retries = 0;             ///< substeps redone with half the time step
    double time_step = 0.0;      ///< smallest substep time step used, s
    double t_coll = 0.0;         ///< broad phase + CCD + contact sets (+ islands), s
    double t_assembly = 0.0;     ///< gradients and Hessians, s
    double t_linear = 0.0;       ///< linear solves, s
    double t_line_search = 0.0;  ///< line-search energy / residual evaluations, s
    double t_solve = 0.0;        ///< t_assembly + t_linear + t_line_search, s
    double t_frame = 0.0;        ///< whole step (wall clock), s
    std::optional<DistributedStepStats> distributed;  ///< set by distributed runs
    std::optional<JointStepStats> joints;             ///< set when the scene has joints
    std::optional<FluidStepStats> fluid;              ///< set when the scene has a fluid
};

/// One island's part of a step: the Newton solves of its bodies.
struct IslandStats {
    std::vector<int> bodies;  ///< its movable bodies (world indices), sorted
    ConvergenceStatus status = ConvergenceStatus::Converged;
    StopReason stop_reason = StopReason::Residual;
    std::vector<NewtonStats> solves;  ///< one per friction lag round, in order
    int iterations = 0;               ///< summed over the solves
    int contacts = 0;
    double min_distance = std::numeric_limits<double>::infinity();
};

/// Everything the solver did in the last World::step(). Times are summed over islands (CPU
/// seconds when islands run in parallel) except t_total, the step's wall time.
struct SolverStats {
    ConvergenceStatus status = ConvergenceStatus::Converged;
    StopReason stop_reason = StopReason::Residual;
    int nonlinear_iterations = 0;  ///< as StepStats::newton_iterations
    double final_residual = 0.0;   ///< largest over islands of the last solve's final measure
    int line_search_trials = 0;
    int ccd_limited_steps = 0;
    int al_switches = 0;
    int linear_iterations = 0;
    double max_linear_residual = 0.0;
    int psd_retries = 0;
    int fallback_directions = 0;

    int substeps = 0;                 ///< accepted implicit steps (> 1 after retry-halving)
    int retries = 0;                  ///< substeps redone with half the time step
    double smallest_time_step = 0.0;  ///< s
    bool islands_enabled = false;
    bool island_fallback = false;  ///< a substep's islands were re-solved as one system
    /// Islands of the last substep attempted (its islands were solved independently; a single
    /// entry when islands are off or fell back).
    std::vector<IslandStats> islands;

    double t_islands = 0.0;  ///< island detection (broad phase over the step's motion bounds)
    double t_collision = 0.0, t_assembly = 0.0, t_linear = 0.0, t_line_search = 0.0;
    double t_total = 0.0;
};

}  // namespace concord
