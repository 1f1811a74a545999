// What one Newton solve did: how it ended, and a record of every iteration.
#pragma once

#include <algorithm>
#include <vector>

#include "concord/solver/linear_solver_params.hpp"

namespace concord {

enum class ConvergenceStatus {
    Converged,  ///< a residual (or StepNorm) criterion was met
    Stopped,    ///< a limit was reached first; the iterate is usable but not converged
    Diverged,   ///< non-finite or exploding residual; the iterate must not be used
};

enum class StopReason {
    Residual,       ///< absolute or relative residual tolerance met (Converged)
    StepNorm,       ///< StepNorm criterion met (Converged)
    StepRate,       ///< StepRate criterion met (Converged)
    RelativeStep,   ///< ||dq|| <= rel_step_tol ||q|| (Stopped)
    MaxIterations,  ///< (Stopped)
    MaxTime,        ///< (Stopped)
    NoImprovement,  ///< no line search could improve the monitored quantity (Stopped)
    Diverged,       ///< (Diverged)
    /// Augmented-Lagrangian contact: the admissible state has covered the cumulative fraction
    /// 1 - toi_threshold of the way to the iterates (Converged).
    CumulativeStep,
};

/// The more severe of two statuses (Diverged > Stopped > Converged): the status of a step
/// made of several solves.
inline ConvergenceStatus worst(ConvergenceStatus a, ConvergenceStatus b) {
    return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

/// One Newton iteration: the direction computed at an iterate and what the line search did.
struct NewtonIteration {
    double residual = 0.0;        ///< convergence measure at the iterate (see NewtonStats)
    double direction_norm = 0.0;  ///< ||dq||_2 over the unknowns, before line search
    double step_measure = 0.0;    ///< NewtonProblem::step_measure of the direction
    double max_step = 1.0;        ///< CCD cap on the step fraction
    double step = 0.0;            ///< accepted step fraction (0: none accepted)
    int line_search_trials = 0;
    LinearSolverType linear_solver = LinearSolverType::LDLT;  ///< the one actually used
    int linear_iterations = 0;
    double linear_residual = 0.0;     ///< ||H dq + g|| / ||g|| of the linear solve
    bool psd_projected = false;       ///< the Hessian that produced dq was PSD-projected
    bool psd_retry = false;           ///< the unprojected iteration failed and was redone projected
    bool fallback_direction = false;  ///< dq is preconditioned steepest descent
};

struct NewtonStats {
    ConvergenceStatus status = ConvergenceStatus::Converged;
    StopReason stop_reason = StopReason::Residual;
    int iterations = 0;  ///< nonlinear updates attempted
    /// Convergence measure at every iterate examined, the start included: max_b rho_b in
    /// PerBodyWeighted mode, the l2 norm of the residual in the other modes.
    std::vector<double> residual_history;
    std::vector<NewtonIteration> history;  ///< one entry per iteration
    int line_search_trials = 0;
    int ccd_limited = 0;  ///< iterations whose step was capped by CCD (max_step < 1)
    int linear_iterations = 0;
    double max_linear_residual = 0.0;
    int psd_retries = 0;
    int fallback_directions = 0;
    double last_step_measure = 0.0;  ///< NewtonProblem::step_measure of the last direction
    /// Hybrid contact: solves the augmented Lagrangian took over from the barrier (0 or 1 for
    /// one solve; summed where solves are summed).
    int al_switches = 0;
    /// Wall time per phase, s. Collision (broad phase, CCD, contact sets) is reported by the
    /// problem and excluded from the other phases.
    double t_collision = 0.0, t_assembly = 0.0, t_linear = 0.0, t_line_search = 0.0;
    double t_total = 0.0;

    double final_residual() const {
        return residual_history.empty() ? 0.0 : residual_history.back();
    }
};

/// Adds s's work (counts and times, iterations aside) to total.
inline void add_work(NewtonStats& total, const NewtonStats& s) {
    total.line_search_trials += s.line_search_trials;
    total.ccd_limited += s.ccd_limited;
    total.al_switches += s.al_switches;
    total.linear_iterations += s.linear_iterations;
    total.max_linear_residual = std::max(total.max_linear_residual, s.max_linear_residual);
    total.psd_retries += s.psd_retries;
    total.fallback_directions += s.fallback_directions;
    total.t_collision += s.t_collision;
    total.t_assembly += s.t_assembly;
    total.t_linear += s.t_linear;
    total.t_line_search += s.t_line_search;
    total.t_total += s.t_total;
}

}  // namespace concord
