// Quasi-Newton minimisation with a CCD-capped line search (docs/solver.md): residual-based
// convergence, PSD projection policies, fallbacks for failed iterations, explosion control.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "concord/solver/newton_problem.hpp"
#include "concord/solver/solver_params.hpp"
#include "concord/solver/solver_stats.hpp"

namespace concord {

using SolverClock = std::chrono::steady_clock;

/// Minimises the problem from x (updated in place). `free_dof[i]` selects the unknowns; the
/// other entries of x never change. Every accepted iterate lies within the problem's
/// max_step, so no accepted state is inadmissible; when the result is Diverged, x is the last
/// accepted iterate (the caller decides whether to keep it). `deadline` (default: start +
/// params.max_time when that is positive) stops the solve as MaxTime.
NewtonStats newton_solve(NewtonProblem& problem, VecX& x, const std::vector<bool>& free_dof,
                         const SolverParams& params,
                         std::optional<SolverClock::time_point> deadline = std::nullopt);

}  // namespace concord
