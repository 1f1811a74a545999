#include <cmath>
#include <limits>

#include "concord/solver/krylov.hpp"

namespace concord {

// Preconditioned MINRES after Paige and Saunders (1975), in the three-term Lanczos form with
// the QR factorisation of the tridiagonal matrix updated by one Givens rotation per iteration.
LinearSolveResult minres(const SparseMatrix& A, const VecX& b, VecX& x, const Preconditioner& M,
                         double tolerance, int max_iterations) {
    LinearSolveResult res;
    res.used = LinearSolverType::MINRES;
    res.preconditioner = M.type();
    const Eigen::Index n = b.size();
    x = VecX::Zero(n);
    if (b.norm() == 0.0) {
        res.success = true;
        return res;
    }
    VecX r1 = b, y;
    M.apply(r1, y);
    const double ry = r1.dot(y);
    if (!(ry > 0.0)) {
        res.failure = "preconditioner is not positive definite (MINRES)";
        return res;
    }
    const double beta1 = std::sqrt(ry);
    double beta = beta1, old_beta = 0.0;
    double dbar = 0.0, epsilon = 0.0, phibar = beta1;
    double cs = -1.0, sn = 0.0;
    VecX r2 = r1, v(n), w = VecX::Zero(n), w1(n), w2 = VecX::Zero(n);
    const double tiny = std::numeric_limits<double>::min();
    for (int it = 0; it < max_iterations; ++it) {
        // Lanczos step: v_k = y / beta_k, then the next (preconditioned) basis vector.
        v = y / beta;
        y.noalias() = A * v;
        if (it > 0) y -= (beta / old_beta) * r1;
        const double alpha = v.dot(y);
        y -= (alpha / beta) * r2;
        r1 = r2;
        r2 = y;
        M.apply(r2, y);
        old_beta = beta;
        const double r2y = r2.dot(y);
        if (r2y < 0.0 || !std::isfinite(r2y)) {
            res.iterations = it;
            res.failure = "preconditioner is not positive definite (MINRES)";
            break;
        }
        beta = std::sqrt(r2y);

        // Apply the previous rotation, then the one that eliminates beta_{k+1}.
        const double old_epsilon = epsilon;
        const double delta = cs * dbar + sn * alpha;
        const double gbar = sn * dbar - cs * alpha;
        epsilon = sn * beta;
        dbar = -cs * beta;
        const double gamma = std::max(std::hypot(gbar, beta), tiny);
        cs = gbar / gamma;
        sn = beta / gamma;
        const double phi = cs * phibar;
        phibar = sn * phibar;

        w1 = w2;
        w2 = w;
        w = (v - old_epsilon * w1 - delta * w2) / gamma;
        x += phi * w;
        res.iterations = it + 1;
        if (phibar <= tolerance * beta1) {
            res.success = true;
            break;
        }
        if (beta == 0.0) {  // invariant subspace: x is exact
            res.success = true;
            break;
        }
    }
    if (!x.allFinite()) {
        x.setZero();
        res.success = false;
        res.failure = "MINRES produced a non-finite solution";
    } else if (res.failure.empty() && !res.success) {
        res.success = true;
        res.hit_iteration_limit = true;
    }
    res.relative_residual = (A * x - b).norm() / b.norm();
    return res;
}

}  // namespace concord
