#include "concord/solver/krylov.hpp"

namespace concord {

LinearSolveResult conjugate_gradient(const SparseMatrix& A, const VecX& b, VecX& x,
                                     const Preconditioner& M, double tolerance,
                                     int max_iterations) {
    LinearSolveResult res;
    res.used = LinearSolverType::CG;
    res.preconditioner = M.type();
    const Eigen::Index n = b.size();
    x = VecX::Zero(n);
    const double bnorm = b.norm();
    if (bnorm == 0.0) {
        res.success = true;
        return res;
    }
    VecX r = b, z, Ap(n);
    M.apply(r, z);
    VecX p = z;
    double rz = r.dot(z);
    for (int it = 0; it < max_iterations; ++it) {
        Ap.noalias() = A * p;
        const double pAp = p.dot(Ap);
        if (!(pAp > 0.0) || !std::isfinite(rz)) {
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
        if (res.relative_residual <= tolerance) {
            res.success = true;
            return res;
        }
        M.apply(r, z);
        const double rz_new = r.dot(z);
        p = z + (rz_new / rz) * p;
        rz = rz_new;
    }
    // For SPD A every CG iterate decreases the quadratic model, so the partial solution is
    // still a descent direction for Newton.
    res.success = true;
    res.hit_iteration_limit = true;
    return res;
}

}  // namespace concord
