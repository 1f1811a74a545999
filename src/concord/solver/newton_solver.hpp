// Newton's method with a CCD-limited backtracking line search, over a problem it knows only
// through energies, derivatives and a maximum safe step. It knows nothing about bodies.
#pragma once

#include <vector>

#include "concord/solver/linear_solver.hpp"

namespace concord {

/// What the Newton solver needs from the incremental potential.
class NewtonProblem {
public:
    virtual ~NewtonProblem() = default;
    /// Called at the start of every iteration, before derivatives at x are requested.
    virtual void begin_iteration(const VecX& x) = 0;
    virtual double energy(const VecX& x) = 0;
    virtual void gradient(const VecX& x, VecX& g) = 0;
    /// Triplets of the (PSD-projected) Hessian over the full DoF vector.
    virtual void hessian(const VecX& x, std::vector<Eigen::Triplet<double>>& H) = 0;
    /// Largest alpha in (0, 1] such that x + t dx is intersection-free for all t in [0, alpha]
    /// (continuous collision detection). Also prepares what energy() needs along the segment.
    virtual double max_step(const VecX& x, const VecX& dx) = 0;
    /// Scale-free size of a Newton direction compared against NewtonParams::tolerance.
    virtual double step_measure(const VecX& dx) = 0;
    /// Called after each accepted step with the new iterate.
    virtual void accepted(const VecX& x) = 0;
};

struct NewtonParams {
    int max_iterations = 100;
    double tolerance = 1e-2;          ///< converged when step_measure(dx) < tolerance
    double armijo = 1e-4;             ///< sufficient-decrease constant of the line search
    double backtrack = 0.5;           ///< step shrink factor per failed trial
    int max_line_search_trials = 60;
    LinearSolverParams linear;
};

struct NewtonResult {
    int iterations = 0;
    bool converged = false;
    int line_search_trials = 0;
    int ccd_limited = 0;       ///< iterations whose step was capped by max_step < 1
    int linear_iterations = 0;
    double last_step_measure = 0.0;
    double t_assembly = 0.0, t_linear = 0.0, t_line_search = 0.0, t_ccd = 0.0;  ///< seconds
    std::string stop_reason;
};

/// Minimises the problem from x (updated in place). `free_dof[i]` selects the unknowns; the
/// other entries of x never change. Every accepted iterate satisfies the problem's max_step
/// guarantee, so no accepted state intersects.
NewtonResult newton_solve(NewtonProblem& problem, VecX& x, const std::vector<bool>& free_dof,
                          const NewtonParams& params);

}  // namespace concord
