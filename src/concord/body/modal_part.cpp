#include "concord/body/modal_part.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

#include "concord/math/error.hpp"

namespace concord {

VecX reduced_coordinates(const Vec12& q, const Eigen::Ref<const VecX>& eta) {
    const auto m = eta.size();
    VecX z(12 + 9 * m);
    z.head<12>() = q;
    for (Eigen::Index k = 0; k < m; ++k) z.segment<9>(12 + 9 * k) = eta[k] * q.tail<9>();
    return z;
}

MatX reduced_coordinates_jacobian(const Vec12& q, const Eigen::Ref<const VecX>& eta) {
    const auto m = eta.size();
    MatX J = MatX::Zero(12 + 9 * m, 12 + m);
    J.topLeftCorner<12, 12>().setIdentity();
    for (Eigen::Index k = 0; k < m; ++k) {
        // d(eta_k A)/dA = eta_k I, d(eta_k A)/d eta_k = A.
        J.block<9, 9>(12 + 9 * k, 3).diagonal().setConstant(eta[k]);
        J.block<9, 1>(12 + 9 * k, 12 + k) = q.tail<9>();
    }
    return J;
}

MatX reduced_point_basis(const Vec3& X, const Eigen::Ref<const MatX>& phi) {
    const auto m = phi.cols();
    MatX Psi = MatX::Zero(3, 12 + 9 * m);
    for (int i = 0; i < 3; ++i) {
        Psi(i, i) = 1.0;
        Psi.block<1, 3>(i, 3 + 3 * i) = X.transpose();
        for (Eigen::Index k = 0; k < m; ++k)
            Psi.block<1, 3>(i, 12 + 9 * k + 3 * i) = phi.col(k).transpose();
    }
    return Psi;
}

MatX reduced_mass_matrix(const Vertices& points, const MatX& phi,
                         const Eigen::SparseMatrix<double>& mass) {
    const auto n = points.rows();
    const auto m = phi.cols();
    if (phi.rows() != 3 * n || mass.rows() != 3 * n || mass.cols() != 3 * n)
        throw InputError("reduced mass: mode values or mass matrix do not match the " +
                         std::to_string(n) + " mass points");
    const auto nz = 12 + 9 * m;
    MatX Psi(3 * n, nz);
    for (Eigen::Index i = 0; i < n; ++i)
        Psi.middleRows(3 * i, 3) =
            reduced_point_basis(points.row(i).transpose(), phi.middleRows(3 * i, 3));
    MatX Mz = Psi.transpose() * (mass * Psi);
    Mz = 0.5 * (Mz + Mz.transpose()).eval();
    // M_z itself is singular whenever a mode moves points along fewer than 3 directions (the
    // unused columns of C_k = eta_k A carry no mass); what must be positive definite is the mass
    // matrix of the body's own unknowns [p, A, eta], J^T M_z J, here at the rest state. It is
    // singular when a mode is an affine field (frame and mode would describe the same motion)
    // or when the mass points are too few to weigh every affine motion.
    const Vec12 rest = (Vec12() << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1).finished();
    const MatX J = reduced_coordinates_jacobian(rest, VecX::Zero(m));
    const MatX Mq = J.transpose() * Mz * J;
    Eigen::SelfAdjointEigenSolver<MatX> eig(Mq);
    const double scale = Mq.diagonal().cwiseAbs().maxCoeff();
    if (!(scale > 0.0) || eig.info() != Eigen::Success || !eig.eigenvalues().allFinite() ||
        eig.eigenvalues().minCoeff() <= 1e-10 * eig.eigenvalues().maxCoeff())
        throw InputError(
            "reduced mass matrix is not positive definite: a mode is (nearly) an affine field "
            "of the body, or the mass points are too few");
    return Mz;
}

}  // namespace concord
