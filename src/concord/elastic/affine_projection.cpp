#include "concord/elastic/affine_projection.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <vector>

namespace concord {

MatX mass_orthonormal_affine_fields(const Vertices& points,
                                    const Eigen::SparseMatrix<double>& mass) {
    const Eigen::Index n = points.rows();
    // Centre and scale the coordinates so the Gram matrix is well conditioned; the span of
    // {e_c, X_j e_c} does not change.
    const Vec3 centre = points.colwise().mean().transpose();
    const double scale = std::max((points.rowwise() - centre.transpose()).cwiseAbs().maxCoeff(), 1e-300);
    MatX B = MatX::Zero(3 * n, 12);
    for (Eigen::Index i = 0; i < n; ++i) {
        const Vec3 Y = (points.row(i).transpose() - centre) / scale;
        for (int c = 0; c < 3; ++c) {
            B(3 * i + c, c) = 1.0;  // translation along c
            for (int j = 0; j < 3; ++j) B(3 * i + c, 3 + 3 * c + j) = Y(j);  // u_c = Y_j
        }
    }
    const MatX G = B.transpose() * (mass * B);
    Eigen::SelfAdjointEigenSolver<MatX> eig(0.5 * (G + G.transpose()));
    const VecX lambda = eig.eigenvalues();
    const double lmax = lambda.maxCoeff();
    std::vector<Eigen::Index> keep;
    for (Eigen::Index k = 0; k < lambda.size(); ++k)
        if (lmax > 0.0 && lambda(k) > 1e-12 * lmax) keep.push_back(k);
    MatX Q(3 * n, static_cast<Eigen::Index>(keep.size()));
    for (std::size_t k = 0; k < keep.size(); ++k)
        Q.col(static_cast<Eigen::Index>(k)) =
            B * eig.eigenvectors().col(keep[k]) / std::sqrt(lambda(keep[k]));
    return Q;
}

MatX remove_affine_motion(const Vertices& points, const Eigen::SparseMatrix<double>& mass,
                          const MatX& fields) {
    const MatX Q = mass_orthonormal_affine_fields(points, mass);
    const MatX MQ = mass * Q;
    MatX f = fields;
    for (int pass = 0; pass < 2; ++pass) f -= Q * (MQ.transpose() * f);
    return f;
}

}  // namespace concord
