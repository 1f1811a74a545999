#include "concord/solver/linear_solver.hpp"

#include <algorithm>

#include "concord/solver/block_ldlt.hpp"
#include "concord/solver/krylov.hpp"

namespace concord {

struct LinearSolverWorkspace::Impl {
    BlockLDLT ldlt;
    bool analysed = false;
    std::vector<int> outer, inner;  ///< pattern of the analysed matrix

    bool same_pattern(const SparseMatrix& A) const {
        const auto n = static_cast<std::size_t>(A.cols()) + 1;
        const auto nnz = static_cast<std::size_t>(A.nonZeros());
        return analysed && outer.size() == n && inner.size() == nnz &&
               std::equal(outer.begin(), outer.end(), A.outerIndexPtr()) &&
               std::equal(inner.begin(), inner.end(), A.innerIndexPtr());
    }
    void remember_pattern(const SparseMatrix& A) {
        outer.assign(A.outerIndexPtr(), A.outerIndexPtr() + A.cols() + 1);
        inner.assign(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
        analysed = true;
    }
};

LinearSolverWorkspace::LinearSolverWorkspace() : impl_(std::make_unique<Impl>()) {}
LinearSolverWorkspace::~LinearSolverWorkspace() = default;

LinearSolverType resolve_linear_solver(LinearSolverType type, Eigen::Index n,
                                       const LinearSolverParams& params) {
    if (type != LinearSolverType::Auto) return type;
    return n <= params.direct_max_dofs ? LinearSolverType::LDLT : LinearSolverType::CG;
}

LinearSolveResult solve_linear_system(const SparseMatrix& A, const VecX& b, VecX& x,
                                      const LinearSolverParams& params,
                                      LinearSolverWorkspace* workspace) {
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
    BlockLDLT local;
    BlockLDLT* factor = &local;
    if (workspace && A.isCompressed()) {
        LinearSolverWorkspace::Impl& w = *workspace->impl_;
        factor = &w.ldlt;
        if (w.same_pattern(A)) {
            ++workspace->reuses;
        } else {
            w.ldlt.analyze(A);
            w.remember_pattern(A);
            ++workspace->analyses;
        }
    } else if (A.isCompressed()) {
        local.analyze(A);
    } else {
        SparseMatrix compressed = A;
        compressed.makeCompressed();
        return solve_linear_system(compressed, b, x, params, nullptr);
    }
    if (!factor->factorize(A)) {
        x = VecX::Zero(b.size());
        res.failure = "LDLT factorisation failed";
        return res;
    }
    factor->solve(b, x);
    if (!x.allFinite()) {
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
