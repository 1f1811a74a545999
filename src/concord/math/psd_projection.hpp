// Projection of small symmetric matrices onto the cone of positive semi-definite matrices.
//
// Newton's method on the incremental potential needs a descent direction, so each local
// Hessian block is replaced by its nearest PSD matrix (in the Frobenius norm): the eigenvalue
// decomposition with negative eigenvalues clamped to zero.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "concord/math/types.hpp"

namespace concord {

/// Returns V max(Λ, 0) Vᵀ for symmetric A = V Λ Vᵀ. Only the lower triangle of A is read.
/// A positive definite A (its Cholesky factorisation succeeds) is returned as it is without the
/// eigendecomposition, which costs about twenty times more (most orthogonality blocks).
template <int N>
Mat<N> project_to_psd(const Mat<N>& A) {
    if (Eigen::LLT<Mat<N>>(A).info() == Eigen::Success) return A;
    Eigen::SelfAdjointEigenSolver<Mat<N>> eig(A);
    const Vec<N> lambda = eig.eigenvalues();
    if (lambda.minCoeff() >= 0.0) return A;
    const Vec<N> clamped = lambda.cwiseMax(0.0);
    return eig.eigenvectors() * clamped.asDiagonal() * eig.eigenvectors().transpose();
}

/// Dynamic-size variant for blocks whose size is only known at run time (e.g. elastic bodies).
MatX project_to_psd(const MatX& A);

/// True when every eigenvalue of symmetric A is at least -tol·max(1, |λ|max).
bool is_psd(const MatX& A, double tol = 1e-10);

}  // namespace concord
