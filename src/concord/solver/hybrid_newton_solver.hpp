// Hybrid contact: the barrier's Newton loop (newton_solver.hpp) while it converges, and the
// augmented Lagrangian's (al_newton_solver.hpp) for the rest of a solve that it has not
// converged in `barrier_iterations` iterations. The barrier converges a step at rest or in
// light contact in a few iterations; where it does not, the usual cause is TOI locking (pairs
// that start just outside dhat cap every CCD-limited step at a few per cent of the way), which
// the augmented Lagrangian does not suffer: every pair CCD meets joins its constraint set.
//
// The constraints take over from the barrier's pairs at its last iterate (an admissible
// state): each pair starts with its barrier force as multiplier and keeps the distance it has
// there (ConstrainedNewtonProblem::constrain_contacts), so the switch moves nothing by itself;
// from then on its clearance follows the barrier's law (AlContactEnergy::take_over), so the
// solve ends where the barrier would hold the loads the constraints found.
#pragma once

#include "concord/solver/al_newton_solver.hpp"

namespace concord {

/// Minimises from x (admissible on entry) with at most params.max_iterations Newton
/// iterations in all. The stats are the two loops' together: iterations, work and times add
/// up, the history is the barrier's followed by the augmented Lagrangian's, and the status and
/// stop reason are the last loop's; al_switches is 1 when the second ran.
NewtonStats hybrid_newton_solve(ConstrainedNewtonProblem& problem, VecX& x,
                                const std::vector<bool>& free_dof, const SolverParams& params,
                                const AlSolveParams& al, int barrier_iterations,
                                std::optional<SolverClock::time_point> deadline = std::nullopt);

}  // namespace concord
