// ModalBasis: a set of mode shapes with the mass quadrature and modal matrices that an elastic
// body needs (inertia, stiffness, damping), plus sampling of the modes at arbitrary points.
#pragma once

#include <Eigen/Core>
#include <Eigen/Sparse>
#include <memory>
#include <string>
#include <vector>

#include "concord/elastic/modal_field.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// Discrete mass distribution of the body on which the modal and reduced inertia integrals are
/// evaluated: integral of f(X) rho dV ~ sum over points, and for vector fields u, v sampled at
/// the points (3n-vectors, point i's components at rows 3i..3i+2) the mass inner product is
/// u^T mass v.
struct MassQuadrature {
    /// n x 3 body-local points (Gauss points of a beam, FEM nodes, POD/sampled points).
    Vertices points;
    /// 3n x m: Phi at every point, point i's 3 rows stacked at rows 3i, 3i+1, 3i+2.
    MatX phi;
    /// 3n x 3n symmetric mass matrix over the points' coordinates. Lumped masses are diagonal
    /// (each point's mass repeated on its 3 coordinates); FEM bases keep the user's (possibly
    /// consistent) matrix.
    Eigen::SparseMatrix<double> mass;
};

/// m modes of one elastic body. Several bodies may share one basis (it is immutable; the field
/// is held through a shared pointer).
struct ModalBasis {
    int num_modes = 0;
    /// Phi(X) anywhere in the body (analytic or interpolated).
    std::shared_ptr<const ModalField> field;
    /// The quadrature the modal matrices were computed on; also what the reduced inertia of the
    /// body (frame-mode coupling) must be computed on.
    MassQuadrature mass;
    /// m x m, Phi^T M Phi over the quadrature (the identity for mass-normalised bases).
    MatX modal_mass;
    /// m x m symmetric positive semidefinite K_eta (diag(omega_k^2) for mass-normalised modes).
    MatX modal_stiffness;
    /// m x m symmetric positive semidefinite C_eta; zero when the basis has no damping.
    MatX modal_damping;
    /// One name per mode, e.g. "bend_y_1", "pod_3", "fem_2".
    std::vector<std::string> mode_names;

    /// Phi at the given body-local points: 3n x m, point i at rows 3i..3i+2. Named sample sets
    /// (render vertices, contact vertices, attachment points) are just calls to this.
    [[nodiscard]] MatX sample(const Vertices& points) const;
};

/// Phi at the points of `points` for any field: 3n x field.num_modes().
[[nodiscard]] MatX sample_field(const ModalField& field, const Vertices& points);

/// Phi^T M Phi over a quadrature, symmetrised.
[[nodiscard]] MatX reduced_mass(const MassQuadrature& quadrature);

/// Lumped mass matrix (3n x 3n diagonal) from per-point masses.
[[nodiscard]] Eigen::SparseMatrix<double> lumped_mass_matrix(const VecX& point_masses);

/// Checks a basis and throws InputError with a one-line message naming the entry at fault:
/// m >= 1 and consistent sizes; all values finite; mass matrix symmetric with a nonnegative
/// diagonal; modal_mass equal to Phi^T M Phi over the quadrature and symmetric positive definite;
/// the modes not affine at the quadrature points (no combination of them is an affine field, or
/// the reduced mass of frame + modes would be singular); stiffness and damping symmetric
/// positive semidefinite. `context` prefixes the message (e.g. "beam_modes").
void validate_modal_basis(const ModalBasis& basis, const std::string& context = "modal basis");

}  // namespace concord
