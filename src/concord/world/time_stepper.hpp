// The time step every simulator shares (World's island solve, the distributed controller): the
// state that evolves (WorldState), retry-halving of a substep that fails, the commit of q and
// q-dot, capture and restore. What solves one substep is pluggable (SubstepSolver), so the
// schedule below exists once.
//
// Retry-halving: the step h is cut into 2^max_halvings ticks; a substep at level k covers
// 2^(max_halvings - k) of them, so substep ends are exact binary fractions of h and the step ends
// at t0 + h exactly. A failed substep is tried again at the next level (nothing was committed);
// after kGrowAfterSuccesses converged substeps in a row the level goes back down by one, at a
// tick where the larger substep fits. The level and that counter are part of the state.
#pragma once

#include <vector>

#include "concord/solver/solver_stats.hpp"
#include "concord/world/world_state.hpp"

namespace concord {

/// One attempt at a substep, not yet committed.
struct SubstepAttempt {
    /// Diverged: the attempt cannot be kept. Stopped: kept unless the policy retries it.
    ConvergenceStatus status = ConvergenceStatus::Converged;
    const VecX* x = nullptr;  ///< the end state, laid out as WorldState::q (not read if Diverged)
    double kappa = 0.0;       ///< the barrier stiffness at the end
    /// Augmented-Lagrangian contact multipliers at the end (null: none carried).
    const AlContactMemory* contact_multipliers = nullptr;
};

/// What becomes of an attempt.
enum class SubstepVerdict {
    Retry,   ///< discarded; the substep is tried again with half the time step
    Commit,  ///< kept: the stepper commits its end state
    GiveUp,  ///< discarded, and the step ends: the state goes back to the step's start
};

/// Solves one substep from the stepper's state. Told the verdict on every attempt.
class SubstepSolver {
  public:
    virtual ~SubstepSolver() = default;
    /// The implicit substep of length dt from `state` (at state.time) to t_end. The returned
    /// x must stay valid until conclude() returns.
    virtual SubstepAttempt attempt(const WorldState& state, double dt, double t_end) = 0;
    /// The verdict on the last attempt; called before a commit changes the state.
    virtual void conclude(SubstepVerdict verdict) = 0;
    /// The step gave up and the state went back to the step's start.
    virtual void restored(const WorldState& /*state*/) {}
};

struct StepPolicy {
    int max_halvings = 0;        ///< 0: a failed substep ends the step (no retry)
    bool retry_stopped = false;  ///< also retry substeps that stopped unconverged
};

/// The schedule one step took.
struct StepSummary {
    int substeps = 0;  ///< committed substeps
    int retries = 0;   ///< halvings
    double smallest_time_step = 0.0;
    bool gave_up = false;  ///< a substep diverged at the smallest step: the state is the start's
};

class TimeStepper {
  public:
    /// Converged substeps in a row after which the time step grows back.
    static constexpr int kGrowAfterSuccesses = 2;

    /// `movable[b]`: body b's 12 affine velocities are kept on commit (others are set to 0).
    TimeStepper(WorldState initial, std::vector<bool> movable);

    const WorldState& state() const { return state_; }
    /// Replaces the state (check_state_fits against the current one's sizes).
    void restore(const WorldState& s);

    /// One time step of length h, substeps solved by `solver`.
    StepSummary step(double h, const StepPolicy& policy, SubstepSolver& solver);

  private:
    void commit(const SubstepAttempt& a, double dt, double t_end);

    WorldState state_;
    std::vector<bool> movable_;
};

}  // namespace concord
