#include "concord/elastic/mode_normalisation.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

#include "concord/math/error.hpp"

namespace concord {

MatX mass_normalise(const MatX& phi, const Eigen::SparseMatrix<double>& mass, const std::string& context) {
    const MatX G0 = phi.transpose() * (mass * phi);
    const MatX G = 0.5 * (G0 + G0.transpose());
    Eigen::SelfAdjointEigenSolver<MatX> eig(G);
    const VecX l = eig.eigenvalues();
    if (!(l.size() > 0 && l(0) > 1e-12 * l(l.size() - 1)))
        throw InputError(context + ": the reduced mass Phi^T M Phi is not positive definite (dependent or massless modes)");
    const MatX& U = eig.eigenvectors();
    return phi * (U * l.cwiseSqrt().cwiseInverse().asDiagonal() * U.transpose());
}

void fix_mode_signs(MatX& phi) {
    for (Eigen::Index k = 0; k < phi.cols(); ++k) {
        Eigen::Index imax = 0;
        double vmax = -1.0;
        for (Eigen::Index i = 0; i < phi.rows(); ++i)
            if (std::abs(phi(i, k)) > vmax) {
                vmax = std::abs(phi(i, k));
                imax = i;
            }
        if (phi(imax, k) < 0.0) phi.col(k) *= -1.0;
    }
}

}  // namespace concord
