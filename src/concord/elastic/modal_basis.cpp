#include "concord/elastic/modal_basis.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "concord/elastic/affine_projection.hpp"
#include "concord/math/error.hpp"

namespace concord {

MatX sample_field(const ModalField& field, const Vertices& points) {
    const int m = field.num_modes();
    MatX out(3 * points.rows(), m);
    for (Eigen::Index i = 0; i < points.rows(); ++i)
        out.middleRows(3 * i, 3) = field.evaluate(points.row(i).transpose());
    return out;
}

MatX ModalBasis::sample(const Vertices& points) const {
    if (!field) throw InputError("modal basis: sample called on a basis without a field");
    return sample_field(*field, points);
}

MatX reduced_mass(const MassQuadrature& quadrature) {
    const MatX R = quadrature.phi.transpose() * (quadrature.mass * quadrature.phi);
    return 0.5 * (R + R.transpose());
}

Eigen::SparseMatrix<double> lumped_mass_matrix(const VecX& point_masses) {
    const Eigen::Index n = point_masses.size();
    Eigen::SparseMatrix<double> M(3 * n, 3 * n);
    M.reserve(Eigen::VectorXi::Constant(3 * n, 1));
    for (Eigen::Index i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) M.insert(3 * i + c, 3 * i + c) = point_masses(i);
    M.makeCompressed();
    return M;
}

namespace {

[[noreturn]] void fail(const std::string& context, const std::string& what) {
    throw InputError(context + ": " + what);
}

std::string num(double v) {
    std::ostringstream s;
    s.precision(6);
    s << v;
    return s.str();
}

void check_size(const std::string& context, const std::string& key, const MatX& A,
                Eigen::Index rows, Eigen::Index cols) {
    if (A.rows() != rows || A.cols() != cols)
        fail(context, key + " must be " + std::to_string(rows) + " x " + std::to_string(cols) +
                          " (got " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ")");
    if (!A.allFinite()) fail(context, key + " has non-finite entries");
}

void check_symmetric(const std::string& context, const std::string& key, const MatX& A) {
    const double scale = std::max(A.cwiseAbs().maxCoeff(), 1e-300);
    if ((A - A.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale)
        fail(context, key + " is not symmetric");
}

// Eigenvalues of a symmetric matrix, ascending.
VecX symmetric_eigenvalues(const MatX& A) {
    return Eigen::SelfAdjointEigenSolver<MatX>(0.5 * (A + A.transpose()), Eigen::EigenvaluesOnly)
        .eigenvalues();
}

void check_psd(const std::string& context, const std::string& key, const MatX& A) {
    check_symmetric(context, key, A);
    const VecX l = symmetric_eigenvalues(A);
    const double scale = std::max(l.cwiseAbs().maxCoeff(), 1e-300);
    if (l(0) < -1e-10 * scale)
        fail(context, key + " is not positive semidefinite (smallest eigenvalue " + num(l(0)) + ")");
}

}  // namespace

void validate_modal_basis(const ModalBasis& basis, const std::string& context) {
    const int m = basis.num_modes;
    if (m < 1) fail(context, "num_modes must be >= 1 (got " + std::to_string(m) + ")");
    if (!basis.field) fail(context, "field is missing");
    if (basis.field->num_modes() != m)
        fail(context, "field has " + std::to_string(basis.field->num_modes()) + " modes, num_modes is " +
                          std::to_string(m));
    if (static_cast<int>(basis.mode_names.size()) != m)
        fail(context, "mode_names must have " + std::to_string(m) + " entries (got " +
                          std::to_string(basis.mode_names.size()) + ")");

    const MassQuadrature& q = basis.mass;
    const Eigen::Index n = q.points.rows();
    if (n < 1) fail(context, "mass quadrature has no points");
    if (!q.points.allFinite()) fail(context, "mass quadrature points have non-finite entries");
    check_size(context, "mass quadrature phi", q.phi, 3 * n, m);
    if (q.mass.rows() != 3 * n || q.mass.cols() != 3 * n)
        fail(context, "mass matrix must be " + std::to_string(3 * n) + " x " + std::to_string(3 * n));
    {
        const Eigen::SparseMatrix<double>& M = q.mass;
        double mmax = 0.0;
        for (int k = 0; k < M.outerSize(); ++k)
            for (Eigen::SparseMatrix<double>::InnerIterator it(M, k); it; ++it) {
                if (!std::isfinite(it.value())) fail(context, "mass matrix has non-finite entries");
                mmax = std::max(mmax, std::abs(it.value()));
            }
        const Eigen::SparseMatrix<double> asym = M - Eigen::SparseMatrix<double>(M.transpose());
        for (int k = 0; k < asym.outerSize(); ++k)
            for (Eigen::SparseMatrix<double>::InnerIterator it(asym, k); it; ++it)
                if (std::abs(it.value()) > 1e-9 * mmax) fail(context, "mass matrix is not symmetric");
        if (VecX(M.diagonal()).minCoeff() < 0.0) fail(context, "mass matrix has a negative diagonal entry");
    }

    check_size(context, "modal_mass", basis.modal_mass, m, m);
    check_symmetric(context, "modal_mass", basis.modal_mass);
    const MatX R = reduced_mass(q);
    const double rscale = std::max(R.cwiseAbs().maxCoeff(), 1e-300);
    if ((R - basis.modal_mass).cwiseAbs().maxCoeff() > 1e-8 * rscale)
        fail(context, "modal_mass differs from Phi^T M Phi over the mass quadrature");
    const VecX lm = symmetric_eigenvalues(basis.modal_mass);
    if (!(lm(0) > 1e-12 * lm(m - 1)))
        fail(context, "modal_mass is not symmetric positive definite (smallest eigenvalue " + num(lm(0)) +
                          "): the modes are linearly dependent or massless");
    // Modes must not be affine: the part of the modes M-orthogonal to the affine fields must
    // still have a positive definite mass, or frame + modes would have a singular inertia.
    const MatX E = remove_affine_motion(q.points, q.mass, q.phi);
    const VecX le = symmetric_eigenvalues(E.transpose() * (q.mass * E));
    if (!(le(0) > 1e-10 * lm(m - 1)))
        fail(context, "a combination of the modes is an affine field (rigid motion or uniform strain) at "
                      "the mass points; the frame already carries it");

    check_size(context, "modal_stiffness", basis.modal_stiffness, m, m);
    check_psd(context, "modal_stiffness", basis.modal_stiffness);
    check_size(context, "modal_damping", basis.modal_damping, m, m);
    check_psd(context, "modal_damping", basis.modal_damping);
}

}  // namespace concord
