// The messages of the distributed step (paper Algorithm 1) and their encoding. The controller
// drives: it sends commands, answers every per-iteration report with a signal, and collects
// each worker's result at the end of a step.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "concord/distributed/message.hpp"
#include "concord/distributed/partition.hpp"
#include "concord/scene/distributed_spec.hpp"
#include "concord/solver/solver_params.hpp"
#include "concord/world/al_contact_memory.hpp"
#include "concord/world/body_contact_count.hpp"
#include "concord/world/step_stats.hpp"

namespace concord {

/// Capture: the worker answers on Tag::State with its carried multipliers (a checkpoint).
enum class CommandKind : std::int32_t {
    Assign = 1,
    Step = 2,
    Commit = 3,
    Discard = 4,
    Shutdown = 5,
    Capture = 6,
    // The fluid (distributed_fluid.hpp): set each worker's particles, advance them over a body
    // step, go back to before it, count particles inside bodies, send them to the controller.
    FluidSet = 7,
    FluidStep = 8,
    FluidRestore = 9,
    FluidCheck = 10,
    FluidGather = 11,
};

/// A body's data as it travels between workers at a step's start (paper: mass, mesh id, q,
/// q_dot; mass and mesh come with the id, every process having the scene's bodies). q and
/// q_dot are the body's whole coordinate block: 12 affine numbers, then a reduced elastic
/// body's modal coordinates (WorldModel::body_coordinates).
struct BodyRecord {
    std::int32_t id = 0;
    VecX q = VecX::Zero(12);
    VecX q_dot = VecX::Zero(12);
    std::uint64_t holders = 0;  ///< workers (bit w = worker w, 0-based) holding it this step
    std::int32_t home = 0;      ///< the worker that owns it from this step on
    /// It ended its last step in contact (a barrier pair in its home worker's systems) and
    /// nothing it touched moved more than a body at rest does: what InitialConsensus::Resting
    /// reads as "held up by supports". Set by the home worker at the end of a step, sent with
    /// the record so that every holder takes the same z^1, captured in checkpoints; false at
    /// the start of a run.
    bool supported = false;
    /// Augmented-Lagrangian contact: the pairs of the active set this body carries, with their
    /// multipliers (distributed/carried_contacts.hpp says which body carries a pair). Set by
    /// the home worker at the end of a step; every holder takes them at the next step's start.
    std::vector<AlMemoryEntry> contact_multipliers;
};

/// A shared body's penalty and unscaled multiplier rho u at the end of a worker's last
/// committed step, with its holders then: the warm start of the next step's ADMM (kept by each
/// worker, captured in checkpoints).
struct CarriedMultiplier {
    std::int32_t id = 0;
    std::uint64_t holders = 0;
    double rho = 0.0;
    VecX lambda;  ///< over the body's coordinate block
};

/// Assign: the bodies a worker owns from now on (start, or after a state restore), and the
/// multipliers it carries into its next step (empty: ADMM starts cold).
struct AssignCommand {
    std::vector<BodyRecord> bodies;  ///< holders/home unused
    std::vector<CarriedMultiplier> carry;
};

/// The threshold of Eq. 8 on |dq|, r and s (over h l): theta, but never below the local
/// solves' own step tolerance when they stop by the step norm. Replicas solved only to
/// step_tol cannot be asked to agree more closely than that: their iterates keep moving by up
/// to step_tol from one ADMM iteration to the next, and r and s with them.
inline double consensus_threshold(const DistributedSpec& spec, const SolverParams& params) {
    return params.convergence_mode == ConvergenceMode::StepNorm
               ? std::max(spec.theta, params.step_tol)
               : spec.theta;
}

struct StepCommand {
    double h = 0.0;      ///< this substep's time step
    double t_end = 0.0;  ///< time at its end (kinematic targets)
    double kappa = 0.0;  ///< barrier stiffness carried over from the last step
    double width = 0.0;  ///< overlap width w: the widest of `widths`
    /// Per body (world order): its overlap width w_b. A body is held by every worker whose cell,
    /// grown by w_b / 2 on each side of its interior planes, its swept box meets.
    std::vector<double> widths;
    Partition partition;
    SolverParams params;
    DistributedSpec spec;
    bool trace_states = false;  ///< include owned-body estimates in every report
};

enum class ReportKind : std::int32_t { Iteration = 1, Snap = 2 };

struct WorkerReport {
    ReportKind kind = ReportKind::Iteration;
    double dq = 0.0;      ///< the last Newton update of the local solve (over h l)
    double r = 0.0;       ///< max primal residual over its shared bodies (displacement units)
    double s = 0.0;       ///< max dual residual over its shared bodies
    double toi = 0.0;     ///< merge CCD: collision-free fraction q_i -> q^_i (0: not checked)
    double kappa = 0.0;   ///< barrier stiffness after its local solve
    bool failed = false;  ///< the local solve diverged
    /// The local solve is as done as the single-machine solve would be: it met the scene's own
    /// convergence criterion, or can go no further (no line search improves, a relative step
    /// at round-off), or took the scene's max_iterations Newton iterations in this step. Eq. 8's
    /// |dq| test passes then, as it does when dq < theta.
    bool local_done = false;
    bool ok = true;  ///< Snap: kinematic bodies may be snapped
    std::int32_t newton_iterations = 0;
    double t_compute = 0.0;  ///< compute seconds of this iteration
    double rho_min = 0.0, rho_max = 0.0, rho_sum = 0.0;
    std::int32_t rho_count = 0;
    std::vector<BodyRecord> estimates;  ///< trace_states: current estimate of owned bodies
    /// Anderson acceleration (anderson_window > 0): this worker's share of the normal
    /// equations, m x m column-major then m (empty while no history); and whether a penalty of
    /// its shared bodies changed since the last report (the histories must restart).
    std::vector<double> anderson;
    bool rho_changed = false;
};

enum class SignalKind : std::int32_t { Continue = 1, Converged = 2, Failed = 3 };

struct ControllerSignal {
    SignalKind kind = SignalKind::Continue;
    double kappa = 0.0;  ///< barrier stiffness for the next local solve
    /// Anderson acceleration: the coefficients to apply to every shared body (empty: take the
    /// plain iterate), and whether every history restarts (the safeguard rejected).
    std::vector<double> gamma;
    bool anderson_restart = false;
};

struct WorkerResult {
    std::vector<BodyRecord> owned;  ///< end-of-step state of the bodies it owns
    bool failed = false;
    std::int32_t bodies = 0, shared = 0, newton_iterations = 0, contacts = 0, candidates = 0;
    /// Per body, the pairs of `contacts` it takes part in (sorted by body, zeros left out).
    std::vector<BodyContactCount> body_contacts;
    double owned_mass = 0.0;
    double min_distance = 0.0;
    JointStepStats joints;  ///< largest violation of the joints it holds, at the end
    double kappa = 0.0;
    double t_compute = 0.0, t_sync = 0.0, load = 0.0;
    // Solver work, summed over its local solves.
    std::int32_t line_search_trials = 0, ccd_limited = 0, linear_iterations = 0;
    std::int32_t al_switches = 0;  ///< hybrid contact: solves the augmented Lagrangian took over
    std::int32_t island_rounds = 0;  ///< local solves that left their islands' motion bounds
    double t_collision = 0.0, t_assembly = 0.0, t_linear = 0.0, t_line_search = 0.0;
};

Bytes encode(CommandKind kind);
Bytes encode(const AssignCommand& c);
Bytes encode(const StepCommand& c);
Bytes encode(const WorkerReport& r);
Bytes encode(const ControllerSignal& s);
Bytes encode(const WorkerResult& r);
/// A partition: its cells per axis, then its planes per axis.
void put_partition(MessageWriter& w, const Partition& p);
Partition get_partition(MessageReader& r);
void put_records(MessageWriter& w, const std::vector<BodyRecord>& records);
std::vector<BodyRecord> get_records(MessageReader& r);
void put_carried(MessageWriter& w, const std::vector<CarriedMultiplier>& carry);
std::vector<CarriedMultiplier> get_carried(MessageReader& r);

CommandKind decode_command_kind(MessageReader& r);
AssignCommand decode_assign(MessageReader& r);
StepCommand decode_step(MessageReader& r);
WorkerReport decode_report(const Bytes& b);
ControllerSignal decode_signal(const Bytes& b);
WorkerResult decode_result(const Bytes& b);

}  // namespace concord
