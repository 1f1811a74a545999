// Preconditioned Krylov solvers. Each starts from x = 0, stops at
// ||r|| <= tolerance ||b|| or after max_iterations, and reports breakdowns as failures with a
// finite x instead of producing NaNs.
#pragma once

#include "concord/solver/linear_solver.hpp"
#include "concord/solver/preconditioner.hpp"

namespace concord {

/// Conjugate gradients for SPD A. A direction of non-positive curvature (A not positive
/// definite) stops it with failure "matrix is not positive definite ...".
LinearSolveResult conjugate_gradient(const SparseMatrix& A, const VecX& b, VecX& x,
                                     const Preconditioner& M, double tolerance, int max_iterations);

/// MINRES (Paige and Saunders) for symmetric, possibly indefinite A with SPD preconditioner M;
/// the tolerance applies to the residual in the M^-1 norm, which it minimises.
LinearSolveResult minres(const SparseMatrix& A, const VecX& b, VecX& x, const Preconditioner& M,
                         double tolerance, int max_iterations);

/// Restarted GMRES(m) with right preconditioning (the residual it minimises is the true one),
/// Arnoldi by modified Gram-Schmidt and Givens rotations. Any nonsingular A.
LinearSolveResult gmres(const SparseMatrix& A, const VecX& b, VecX& x, const Preconditioner& M,
                        double tolerance, int max_iterations, int restart);

}  // namespace concord
