#include "concord/solver/linear_solver.hpp"

#include <Eigen/SparseCholesky>

#include "concord/solver/krylov.hpp"

namespace concord {

LinearSolverType resolve_linear_solver(LinearSolverType type, Eigen::Index n,
                                       const LinearSolverParams& params) {
    if (type != LinearSolverType::Auto) return type;
    return n <= params.direct_max_dofs ? LinearSolverType::LDLT : LinearSolverType::CG;
}

LinearSolveResult solve_linear_system(const SparseMatrix& A, const VecX& b, VecX& x,
                                      const LinearSolverParams& params) {
    const LinearSolverType type = resolve_linear_solver(params.type, A.rows(), params);
    if (type != LinearSolverType::LDLT) {
        const Preconditioner M(A, params.preconditioner, params.block_size);
        switch (type) {
            case LinearSolverType::MINRES:
                return minres(A, b, x, M, params.tolerance, params.max_iterations);
            case LinearSolverType::GMRES:
                return gmres(A, b, x, M, params.tolerance, params.max_iterations,
                             params.gmres_restart);
            default:
                return conjugate_gradient(A, b, x, M, params.tolerance, params.max_iterations);
        }
    }
    LinearSolveResult res;
    res.used = LinearSolverType::LDLT;
    Eigen::SimplicialLDLT<SparseMatrix> ldlt(A);
    if (ldlt.info() != Eigen::Success) {
        x = VecX::Zero(b.size());
        res.failure = "LDLT factorisation failed";
        return res;
    }
    x = ldlt.solve(b);
    if (ldlt.info() != Eigen::Success || !x.allFinite()) {
        x = VecX::Zero(b.size());
        res.failure = "LDLT solve failed (singular matrix)";
        return res;
    }
    const double bnorm = b.norm();
    res.relative_residual = bnorm > 0 ? (A * x - b).norm() / bnorm : 0.0;
    res.success = true;
    return res;
}

}  // namespace concord
