// The linear solve of a Newton iteration, H dx = -g: picks the solver and preconditioner the
// parameters ask for (Auto by system size) and reports how it went.
#pragma once

#include <string>

#include "concord/math/types.hpp"
#include "concord/solver/linear_solver_params.hpp"
#include "concord/solver/sparse_matrix.hpp"

namespace concord {

struct LinearSolveResult {
    /// x is a usable solution: direct solve succeeded, or an iterative one met its tolerance or
    /// ran out of iterations (then hit_iteration_limit) without a breakdown.
    bool success = false;
    LinearSolverType used = LinearSolverType::LDLT;
    PreconditionerType preconditioner = PreconditionerType::None;  ///< iterative solvers only
    int iterations = 0;              ///< Krylov iterations (0 for LDLT)
    double relative_residual = 0.0;  ///< ||A x - b|| / ||b||
    bool hit_iteration_limit = false;
    std::string failure;  ///< why it failed (empty on success)
};

/// The solver Auto resolves to for an n x n system (the type itself otherwise).
LinearSolverType resolve_linear_solver(LinearSolverType type, Eigen::Index n,
                                       const LinearSolverParams& params);

/// Solves A x = b for square A (symmetric, both triangles stored, except for GMRES which takes
/// any matrix). Never throws on a singular or indefinite A: it reports the failure (CG stops at
/// the first direction of non-positive curvature) and leaves a finite x.
LinearSolveResult solve_linear_system(const SparseMatrix& A, const VecX& b, VecX& x,
                                      const LinearSolverParams& params);

}  // namespace concord
