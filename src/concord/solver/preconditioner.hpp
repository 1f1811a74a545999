// Preconditioners of the iterative linear solvers: z = M^-1 r with M a cheap SPD approximation
// of the system matrix (SPD even when the matrix is indefinite, as MINRES requires).
#pragma once

#include <Eigen/IterativeLinearSolvers>
#include <memory>
#include <vector>

#include "concord/math/types.hpp"
#include "concord/solver/linear_solver_params.hpp"
#include "concord/solver/sparse_matrix.hpp"

namespace concord {

class Preconditioner {
  public:
    /// Builds M for A (symmetric, both triangles stored; GMRES may pass a nonsymmetric A, of
    /// which the per-body and Jacobi variants read only the diagonal blocks). Incomplete
    /// Cholesky falls back to PerBody when its factorisation fails even with shifts.
    Preconditioner(const SparseMatrix& A, PreconditionerType type, int block_size = 12);
    ~Preconditioner();

    /// z = M^-1 r (z is resized).
    void apply(const VecX& r, VecX& z) const;
    /// The preconditioner actually in use.
    PreconditionerType type() const { return type_; }

  private:
    void build_blocks(const SparseMatrix& A);

    PreconditionerType type_;
    int block_size_;
    VecX inverse_diagonal_;             ///< Jacobi
    std::vector<MatX> inverse_blocks_;  ///< PerBody
    using IncompleteCholesky =
        Eigen::IncompleteCholesky<double, Eigen::Lower, Eigen::NaturalOrdering<int>>;
    std::unique_ptr<IncompleteCholesky> ic_;
};

}  // namespace concord
