// The linear solve of a Newton iteration, H dx = -g: picks the solver and preconditioner the
// parameters ask for (Auto by system size) and reports how it went.
#pragma once

#include <memory>
#include <string>
#include <vector>

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

/// What a direct solve keeps from one call to the next (one per Newton solve): the LDLT's
/// symbolic analysis (BlockLDLT: column groups, their AMD ordering, elimination tree,
/// supernodes, where each entry goes) of the last matrix, reused while the following matrices
/// have the same sparsity pattern. The factorisation is then the one a fresh LDLT computes, bit
/// for bit (the analysis depends on the pattern alone); only the analysis is skipped.
class LinearSolverWorkspace {
  public:
    LinearSolverWorkspace();
    ~LinearSolverWorkspace();
    LinearSolverWorkspace(const LinearSolverWorkspace&) = delete;
    LinearSolverWorkspace& operator=(const LinearSolverWorkspace&) = delete;

    int analyses = 0;  ///< LDLT symbolic analyses done
    int reuses = 0;    ///< LDLT factorisations that reused the previous analysis

  private:
    friend LinearSolveResult solve_linear_system(const SparseMatrix&, const VecX&, VecX&,
                                                 const LinearSolverParams&,
                                                 LinearSolverWorkspace*);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// The solver Auto resolves to for an n x n system (the type itself otherwise).
LinearSolverType resolve_linear_solver(LinearSolverType type, Eigen::Index n,
                                       const LinearSolverParams& params);

/// Solves A x = b for square A (symmetric, both triangles stored, except for GMRES which takes
/// any matrix). Never throws on a singular or indefinite A: it reports the failure (CG stops at
/// the first direction of non-positive curvature) and leaves a finite x.
/// With a workspace, an LDLT solve reuses its symbolic analysis when A's pattern (column
/// starts and row indices) equals the previous matrix's.
LinearSolveResult solve_linear_system(const SparseMatrix& A, const VecX& b, VecX& x,
                                      const LinearSolverParams& params,
                                      LinearSolverWorkspace* workspace = nullptr);

}  // namespace concord
