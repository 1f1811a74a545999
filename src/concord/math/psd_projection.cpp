#include "concord/math/psd_projection.hpp"

namespace concord {

MatX project_to_psd(const MatX& A) {
    Eigen::SelfAdjointEigenSolver<MatX> eig(A);
    const VecX lambda = eig.eigenvalues();
    if (lambda.size() == 0 || lambda.minCoeff() >= 0.0) return A;
    return eig.eigenvectors() * lambda.cwiseMax(0.0).asDiagonal() * eig.eigenvectors().transpose();
}

bool is_psd(const MatX& A, double tol) {
    if (A.size() == 0) return true;
    Eigen::SelfAdjointEigenSolver<MatX> eig(A, Eigen::EigenvaluesOnly);
    const VecX lambda = eig.eigenvalues();
    const double scale = std::max(1.0, lambda.cwiseAbs().maxCoeff());
    return lambda.minCoeff() >= -tol * scale;
}

}  // namespace concord
