// Linear solvers for the Newton system H dx = -g: sparse LDLT and preconditioned CG.
#pragma once

#include <Eigen/SparseCore>
#include <string>

#include "concord/math/types.hpp"

namespace concord {

using SparseMatrix = Eigen::SparseMatrix<double>;

enum class LinearSolverType {
    Auto,  ///< LDLT up to LinearSolverParams::auto_direct_max_dofs DoFs, CG above
    LDLT,  ///< sparse Cholesky-type factorisation (Eigen SimplicialLDLT, AMD ordering)
    CG,    ///< conjugate gradients with a per-body (12x12 block) Jacobi preconditioner
};

struct LinearSolverParams {
    LinearSolverType type = LinearSolverType::Auto;
    int auto_direct_max_dofs = 60000;  ///< Auto switches to CG above this many unknowns
    double cg_tolerance = 1e-8;        ///< relative residual ||r|| / ||b|| at which CG stops
    int cg_max_iterations = 1000;
    int block_size = 12;               ///< block of the block-Jacobi preconditioner (one body)
};

struct LinearSolveResult {
    bool success = false;
    LinearSolverType used = LinearSolverType::LDLT;
    int iterations = 0;           ///< CG iterations (0 for direct)
    double relative_residual = 0; ///< ||A x - b|| / ||b||
    bool hit_iteration_limit = false;  ///< CG stopped at cg_max_iterations (result still used)
    std::string failure;          ///< why it failed (empty on success)
};

/// Solves A x = b for symmetric A (lower and upper triangles both stored).
LinearSolveResult solve_linear_system(const SparseMatrix& A, const VecX& b, VecX& x,
                                      const LinearSolverParams& params);

/// Preconditioned conjugate gradients; stops with failure when it meets a direction of
/// non-positive curvature (A not positive definite), so indefinite systems never blow up.
LinearSolveResult solve_cg_block_jacobi(const SparseMatrix& A, const VecX& b, VecX& x,
                                        const LinearSolverParams& params);

}  // namespace concord
