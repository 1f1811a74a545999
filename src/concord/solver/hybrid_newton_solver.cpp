#include "concord/solver/hybrid_newton_solver.hpp"

#include <algorithm>

#include "concord/solver/newton_system.hpp"

namespace concord {

namespace {

/// Appends a later solve of the same step to `first`: work and times add up, the histories
/// follow each other, and the later solve's outcome is the result.
void append_solve(NewtonStats& first, const NewtonStats& later) {
    add_work(first, later);
    first.status = later.status;
    first.stop_reason = later.stop_reason;
    first.iterations += later.iterations;
    first.residual_history.insert(first.residual_history.end(), later.residual_history.begin(),
                                  later.residual_history.end());
    first.history.insert(first.history.end(), later.history.begin(), later.history.end());
    first.last_step_measure = later.last_step_measure;
}

}  // namespace

NewtonStats hybrid_newton_solve(ConstrainedNewtonProblem& problem, VecX& x,
                                const std::vector<bool>& free_dof, const SolverParams& params,
                                const AlSolveParams& al, int barrier_iterations,
                                std::optional<SolverClock::time_point> deadline) {
    deadline = solve_deadline(deadline, params, SolverClock::now());
    // 1. The barrier, for at most barrier_iterations iterations.
    SolverParams barrier = params;
    barrier.max_iterations = std::min(params.max_iterations, barrier_iterations);
    NewtonStats st = newton_solve(problem, x, free_dof, barrier, deadline);
    // Converged, diverged, out of time or out of the solve's own iterations: that is the answer.
    if (st.stop_reason != StopReason::MaxIterations || barrier.max_iterations >= params.max_iterations)
        return st;

    // 2. The constraints take over at the barrier's iterate and finish the solve.
    problem.constrain_contacts(x);
    SolverParams rest = params;
    rest.max_iterations = params.max_iterations - st.iterations;
    rest.min_iterations = std::max(0, params.min_iterations - st.iterations);
    const NewtonStats constrained = al_newton_solve(problem, x, free_dof, rest, al, deadline);
    problem.release_contacts();
    append_solve(st, constrained);
    ++st.al_switches;
    return st;
}

}  // namespace concord
