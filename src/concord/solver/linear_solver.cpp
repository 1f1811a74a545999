#include "concord/solver/linear_solver.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "concord/math/parallel_all_of.hpp"
#include "concord/math/uninitialised_allocator.hpp"
#include "concord/solver/block_ldlt.hpp"
#include "concord/solver/krylov.hpp"

namespace concord {

struct LinearSolverWorkspace::Impl {
    BlockLDLT ldlt;
    bool analysed = false;
    std::vector<int> outer;  ///< pattern of the analysed matrix: column starts,
    std::vector<int, UninitialisedAllocator<int>> inner;  ///< row indices

    bool same_pattern(const SparseMatrix& A) const {
        const auto n = static_cast<std::size_t>(A.cols()) + 1;
        const auto nnz = static_cast<std::size_t>(A.nonZeros());
        if (!analysed || outer.size() != n || inner.size() != nnz ||
            !std::equal(outer.begin(), outer.end(), A.outerIndexPtr()))
            return false;
        // The 512-sphere pile's Hessian has 250,000 row indices: compared in parallel pieces.
        const int* a = A.innerIndexPtr();
        return parallel_all_of(
            static_cast<long>((nnz + kPiece - 1) / kPiece),
            [&](long k) {
                const std::size_t b = static_cast<std::size_t>(k) * kPiece,
                                  e = std::min(nnz, b + kPiece);
                return std::equal(inner.begin() + static_cast<std::ptrdiff_t>(b),
                                  inner.begin() + static_cast<std::ptrdiff_t>(e), a + b);
            },
            1);
    }
    void remember_pattern(const SparseMatrix& A) {
        outer.assign(A.outerIndexPtr(), A.outerIndexPtr() + A.cols() + 1);
        // (The row indices copied in parallel pieces, as same_pattern compares them.)
        const auto nnz = static_cast<std::size_t>(A.nonZeros());
        inner.clear();
        inner.resize(nnz);
        const int* a = A.innerIndexPtr();
        tbb::parallel_for(std::size_t{0}, (nnz + kPiece - 1) / kPiece, [&](std::size_t k) {
            const std::size_t b = k * kPiece, e = std::min(nnz, b + kPiece);
            std::copy(a + b, a + e, inner.begin() + static_cast<std::ptrdiff_t>(b));
        });
        analysed = true;
    }
    static constexpr std::size_t kPiece = 1 << 16;
};

namespace {

// A x - b for a symmetric A with both triangles stored, column by column in parallel: (A x)_j
// is column j's dot product with x, each formed in one fixed order.
VecX symmetric_residual(const SparseMatrix& A, const VecX& x, const VecX& b) {
    VecX r(b.size());
    const int* outer = A.outerIndexPtr();
    const int* inner = A.innerIndexPtr();
    const double* val = A.valuePtr();
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, A.cols(), 256),
                      [&](const tbb::blocked_range<Eigen::Index>& range) {
                          for (Eigen::Index j = range.begin(); j < range.end(); ++j) {
                              double s = 0.0;
                              for (int k = outer[j]; k < outer[j + 1]; ++k)
                                  s += val[k] * x[inner[k]];
                              r[j] = s - b[j];
                          }
                      });
    return r;
}

}  // namespace

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
    res.relative_residual = bnorm > 0 ? symmetric_residual(A, x, b).norm() / bnorm : 0.0;
    res.success = true;
    return res;
}

}  // namespace concord
