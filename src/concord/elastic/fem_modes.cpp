#include "concord/elastic/fem_modes.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>

#include "concord/elastic/mode_normalisation.hpp"
#include "concord/elastic/node_interpolation.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {

[[noreturn]] void fail(const std::string& what) { throw InputError("fem_modes: " + what); }

// Dense O(N^3) solve: 6000 DoFs take about a minute and 300 MB per matrix.
constexpr Eigen::Index kMaxDenseDofs = 6000;

MatX checked_dense(const Eigen::SparseMatrix<double>& A, Eigen::Index size, const char* key) {
    if (A.rows() != size || A.cols() != size)
        fail(std::string(key) + " must be " + std::to_string(size) + " x " + std::to_string(size) + " (got " +
             std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ")");
    MatX D(A);
    if (!D.allFinite()) fail(std::string(key) + " has non-finite entries");
    const double scale = std::max(D.cwiseAbs().maxCoeff(), 1e-300);
    if ((D - D.transpose()).cwiseAbs().maxCoeff() > 1e-10 * scale) fail(std::string(key) + " is not symmetric");
    return 0.5 * (D + D.transpose());
}

}  // namespace

ModalBasis fem_modes(const FemParams& p) {
    const Eigen::Index n = p.nodes.rows();
    if (n < 1) fail("nodes is empty");
    if (!p.nodes.allFinite()) fail("nodes has non-finite entries");
    const Eigen::Index N = 3 * n;
    if (N > kMaxDenseDofs)
        fail("the model has " + std::to_string(N) + " DoFs; the dense eigen solver takes at most " +
             std::to_string(kMaxDenseDofs) + " (reduce the mesh)");
    const MatX M = checked_dense(p.mass, N, "mass");
    const MatX K = checked_dense(p.stiffness, N, "stiffness");
    const bool has_c = p.damping.rows() != 0 || p.damping.cols() != 0;
    const MatX C = has_c ? checked_dense(p.damping, N, "damping") : MatX();
    if (p.num_modes < 1) fail("num_modes must be >= 1 (got " + std::to_string(p.num_modes) + ")");
    if (!(p.rigid_tolerance >= 0.0 && p.rigid_tolerance < 1.0)) fail("rigid_tolerance must be in [0, 1)");

    // M must be positive definite (Cholesky with pivots bounded away from zero).
    Eigen::LLT<MatX> llt(M);
    if (llt.info() != Eigen::Success ||
        !(llt.matrixL().toDenseMatrix().diagonal().cwiseAbs2().minCoeff() > 1e-14 * M.diagonal().maxCoeff()))
        fail("mass is not symmetric positive definite");

    Eigen::GeneralizedSelfAdjointEigenSolver<MatX> ges(K, M);
    if (ges.info() != Eigen::Success) fail("the generalised eigen solve did not converge");
    const VecX& lambda = ges.eigenvalues();  // ascending
    const double lmax = lambda(N - 1);
    if (!(lmax > 0.0)) fail("stiffness is zero (no elastic modes)");
    if (lambda(0) < -p.rigid_tolerance * lmax)
        fail("stiffness is not positive semidefinite (eigenvalue " + std::to_string(lambda(0)) + ")");
    Eigen::Index first = 0;
    while (first < N && lambda(first) <= p.rigid_tolerance * lmax) ++first;
    if (p.constrained && first > 0)
        fail("the model is marked constrained but has " + std::to_string(first) +
             " zero-energy (rigid) mode(s); add supports to stiffness or set constrained = false");
    const Eigen::Index available = N - first;
    if (p.num_modes > available)
        fail("num_modes = " + std::to_string(p.num_modes) + " exceeds the " + std::to_string(available) +
             " non-rigid modes of the model (" + std::to_string(first) + " rigid skipped)");
    const int m = p.num_modes;

    const Eigen::SparseMatrix<double> Ms = M.sparseView();
    MatX phi = ges.eigenvectors().middleCols(first, m);
    phi = mass_normalise(phi, Ms, "fem_modes");
    fix_mode_signs(phi);

    ModalBasis basis;
    basis.num_modes = m;
    basis.mass.points = p.nodes;
    basis.mass.phi = phi;
    basis.mass.mass = Ms;
    basis.modal_mass = reduced_mass(basis.mass);
    basis.modal_stiffness = lambda.segment(first, m).asDiagonal();
    if (has_c) {
        const MatX Ce = phi.transpose() * C * phi;
        basis.modal_damping = 0.5 * (Ce + Ce.transpose());
    } else {
        basis.modal_damping = MatX::Zero(m, m);
    }
    for (int j = 1; j <= m; ++j) basis.mode_names.push_back("fem_" + std::to_string(j));
    basis.field = std::make_shared<InterpolatedModalField>(p.nodes, phi, p.neighbours);
    validate_modal_basis(basis, "fem_modes");
    return basis;
}

}  // namespace concord
