// Line searches along a Newton direction, all capped by the CCD step alpha_max so that every
// trial lies on the segment certified intersection-free: non-penetration holds whichever is used.
#pragma once

#include "concord/solver/newton_problem.hpp"
#include "concord/solver/residual_norm.hpp"
#include "concord/solver/solver_params.hpp"

namespace concord {

struct LineSearchResult {
    bool sufficient = false;  ///< the search's acceptance condition held at alpha
    /// The monitored quantity (energy, or residual norm for ResidualNorm) is lower at alpha
    /// than at 0; when false no step is taken.
    bool improved = false;
    double alpha = 0.0;  ///< accepted step fraction (0 when not improved)
    int trials = 0;      ///< function evaluations
};

/// Searches alpha in (0, alpha_max] along dx from x, g being the gradient at x (g.dx < 0).
/// When it improves, x_new = x + alpha dx. When no trial meets the condition, the best
/// improving trial is taken (improved but not sufficient). ResidualNorm monitors the weighted
/// norm when `weighted_residual`, the l2 norm otherwise.
LineSearchResult line_search(NewtonProblem& problem, const SolverParams& params,
                             const ResidualNorm& norm, bool weighted_residual, const VecX& x,
                             const VecX& dx, const VecX& g, double alpha_max, VecX& x_new);

}  // namespace concord
