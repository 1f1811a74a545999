#include <cmath>
#include <vector>

#include "concord/solver/krylov.hpp"

namespace concord {

LinearSolveResult gmres(const SparseMatrix& A, const VecX& b, VecX& x, const Preconditioner& M,
                        double tolerance, int max_iterations, int restart) {
    LinearSolveResult res;
    res.used = LinearSolverType::GMRES;
    res.preconditioner = M.type();
    const Eigen::Index n = b.size();
    x = VecX::Zero(n);
    const double bnorm = b.norm();
    if (bnorm == 0.0) {
        res.success = true;
        return res;
    }
    const int m = static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(restart, n)));
    std::vector<VecX> V(static_cast<std::size_t>(m + 1)), Z(static_cast<std::size_t>(m));
    MatX H = MatX::Zero(m + 1, m);
    VecX cs(m), sn(m), g(m + 1), w(n);
    VecX r = b;
    double beta = bnorm;
    int total = 0;
    bool done = false;
    while (!done && total < max_iterations) {
        V[0] = r / beta;
        g.setZero();
        g[0] = beta;
        H.setZero();
        int j = 0;
        for (; j < m && total < max_iterations; ++j) {
            M.apply(V[static_cast<std::size_t>(j)], Z[static_cast<std::size_t>(j)]);
            w.noalias() = A * Z[static_cast<std::size_t>(j)];
            for (int i = 0; i <= j; ++i) {
                H(i, j) = w.dot(V[static_cast<std::size_t>(i)]);
                w -= H(i, j) * V[static_cast<std::size_t>(i)];
            }
            H(j + 1, j) = w.norm();
            // Previous rotations on the new column, then the one that zeroes H(j + 1, j).
            for (int i = 0; i < j; ++i) {
                const double t = cs[i] * H(i, j) + sn[i] * H(i + 1, j);
                H(i + 1, j) = -sn[i] * H(i, j) + cs[i] * H(i + 1, j);
                H(i, j) = t;
            }
            const double h_next = H(j + 1, j);
            const double rho = std::hypot(H(j, j), h_next);
            if (rho == 0.0 || !std::isfinite(rho)) {
                res.failure = "GMRES breakdown (singular matrix)";
                done = true;
                break;
            }
            cs[j] = H(j, j) / rho;
            sn[j] = h_next / rho;
            H(j, j) = rho;
            H(j + 1, j) = 0.0;
            g[j + 1] = -sn[j] * g[j];
            g[j] = cs[j] * g[j];
            ++total;
            if (std::abs(g[j + 1]) <= tolerance * bnorm || h_next == 0.0) {
                ++j;
                done = true;
                break;
            }
            V[static_cast<std::size_t>(j + 1)] = w / h_next;
        }
        // x += Z y with y the solution of the triangular least-squares system of this cycle.
        if (j > 0) {
            const VecX yv = H.topLeftCorner(j, j).triangularView<Eigen::Upper>().solve(g.head(j));
            for (int i = 0; i < j; ++i) x += yv[i] * Z[static_cast<std::size_t>(i)];
        }
        r = b - A * x;
        beta = r.norm();
        if (beta <= tolerance * bnorm) done = true;
        if (!std::isfinite(beta)) break;
    }
    res.iterations = total;
    if (!x.allFinite()) {
        x.setZero();
        res.failure = "GMRES produced a non-finite solution";
    }
    res.relative_residual = (A * x - b).norm() / bnorm;
    if (res.failure.empty()) {
        res.success = true;
        res.hit_iteration_limit = res.relative_residual > tolerance;
    }
    return res;
}

}  // namespace concord
