#include "concord/solver/linear_solver.hpp"

#include <Eigen/SparseCholesky>
#include <vector>

namespace concord {

namespace {

// Inverse of each diagonal block of A (block_size x block_size); blocks that are not
// positive definite fall back to the inverse of their diagonal.
std::vector<MatX> block_jacobi_inverses(const SparseMatrix& A, int block_size) {
    const int n = static_cast<int>(A.rows());
    const int num_blocks = (n + block_size - 1) / block_size;
    std::vector<MatX> inv(static_cast<std::size_t>(num_blocks));
    std::vector<MatX> blocks(static_cast<std::size_t>(num_blocks));
    for (int b = 0; b < num_blocks; ++b) {
        const int size = std::min(block_size, n - b * block_size);
        blocks[static_cast<std::size_t>(b)] = MatX::Zero(size, size);
    }
    for (int col = 0; col < A.outerSize(); ++col)
        for (SparseMatrix::InnerIterator it(A, col); it; ++it) {
            const int r = static_cast<int>(it.row()), c = static_cast<int>(it.col());
            if (r / block_size == c / block_size)
                blocks[static_cast<std::size_t>(r / block_size)](r % block_size, c % block_size) =
                    it.value();
        }
    for (int b = 0; b < num_blocks; ++b) {
        const MatX& B = blocks[static_cast<std::size_t>(b)];
        Eigen::LLT<MatX> llt(B);
        if (llt.info() == Eigen::Success) {
            inv[static_cast<std::size_t>(b)] = llt.solve(MatX::Identity(B.rows(), B.cols()));
        } else {
            VecX d = B.diagonal().cwiseAbs();
            for (Eigen::Index i = 0; i < d.size(); ++i) d[i] = d[i] > 0 ? 1.0 / d[i] : 1.0;
            inv[static_cast<std::size_t>(b)] = d.asDiagonal();
        }
    }
    return inv;
}

}  // namespace

LinearSolveResult solve_cg_block_jacobi(const SparseMatrix& A, const VecX& b, VecX& x,
                                        const LinearSolverParams& params) {
    LinearSolveResult res;
    res.used = LinearSolverType::CG;
    const Eigen::Index n = b.size();
    x = VecX::Zero(n);
    const double bnorm = b.norm();
    if (bnorm == 0.0) {
        res.success = true;
        return res;
    }
    const auto inv = block_jacobi_inverses(A, params.block_size);
    auto precondition = [&](const VecX& r) {
        VecX z(n);
        for (std::size_t k = 0; k < inv.size(); ++k) {
            const Eigen::Index o = static_cast<Eigen::Index>(k) * params.block_size;
            const Eigen::Index s = inv[k].rows();
            z.segment(o, s) = inv[k] * r.segment(o, s);
        }
        return z;
    };
    VecX r = b;
    VecX z = precondition(r);
    VecX p = z;
    double rz = r.dot(z);
    for (int it = 0; it < params.cg_max_iterations; ++it) {
        const VecX Ap = A * p;
        const double pAp = p.dot(Ap);
        if (!(pAp > 0.0)) {
            res.iterations = it;
            res.failure = "matrix is not positive definite (non-positive curvature in CG)";
            res.relative_residual = r.norm() / bnorm;
            return res;
        }
        const double alpha = rz / pAp;
        x += alpha * p;
        r -= alpha * Ap;
        res.iterations = it + 1;
        res.relative_residual = r.norm() / bnorm;
        if (res.relative_residual <= params.cg_tolerance) {
            res.success = true;
            return res;
        }
        z = precondition(r);
        const double rz_new = r.dot(z);
        p = z + (rz_new / rz) * p;
        rz = rz_new;
    }
    // Out of iterations: the partial solution is still a descent direction for SPD A.
    res.success = true;
    res.hit_iteration_limit = true;
    return res;
}

LinearSolveResult solve_linear_system(const SparseMatrix& A, const VecX& b, VecX& x,
                                      const LinearSolverParams& params) {
    LinearSolverType type = params.type;
    if (type == LinearSolverType::Auto)
        type = A.rows() <= params.auto_direct_max_dofs ? LinearSolverType::LDLT
                                                       : LinearSolverType::CG;
    if (type == LinearSolverType::CG) return solve_cg_block_jacobi(A, b, x, params);

    LinearSolveResult res;
    res.used = LinearSolverType::LDLT;
    Eigen::SimplicialLDLT<SparseMatrix> ldlt(A);
    if (ldlt.info() != Eigen::Success) {
        res.failure = "LDLT factorisation failed";
        return res;
    }
    x = ldlt.solve(b);
    if (ldlt.info() != Eigen::Success || !x.allFinite()) {
        res.failure = "LDLT solve failed";
        return res;
    }
    const double bnorm = b.norm();
    res.relative_residual = bnorm > 0 ? (A * x - b).norm() / bnorm : 0.0;
    res.success = true;
    return res;
}

}  // namespace concord
