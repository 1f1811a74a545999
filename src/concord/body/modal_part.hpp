// The elastic part of a reduced elastic body: m modal coordinates eta that deform the body in
// its affine frame, x(X) = p + A (X + Phi(X) eta) (docs/elastic.md).
//
// Writing C_k = eta_k A, the same map is x(X) = p + A X + sum_k C_k Phi_k(X): linear in the
// "reduced coordinates" z = [p, A, C_1, ..., C_m] (3 + 9 + 9 m numbers, matrices row-major).
// The body's kinetic energy is therefore exactly 1/2 z'^T M_z z' with a constant matrix M_z
// (frame-mode coupling included), which is what the reduced inertia energy uses.
#pragma once

#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "concord/elastic/modal_field.hpp"
#include "concord/math/types.hpp"

namespace concord {

struct ModalPart {
    int num_modes = 0;
    /// Phi at the body's mesh vertices: rows 3v..3v+2 are the 3 x m mode values of vertex v
    /// (shared with the contact surfaces built from the body).
    std::shared_ptr<const MatX> vertex_modes;
    /// M_z over z = [p, A, C_1..C_m] ((12 + 9m) square), symmetric positive semi-definite
    /// (J^T M_z J over the body's unknowns is definite).
    MatX reduced_mass;
    MatX modal_stiffness;  ///< K_eta (m x m), symmetric PSD
    MatX modal_damping;    ///< C_eta (m x m), symmetric PSD (zero when undamped)
    VecX eta_initial;      ///< initial modal coordinates
    /// Per mode: the largest displacement |Phi_k(X)| over the mesh vertices (converts a change
    /// of eta_k into a length for convergence measures and motion bounds).
    VecX mode_scale;
    std::string basis_name;  ///< the basis it was sampled from (bodies may share one)
    /// The basis's mode field and where its origin sits in the body, for points other than the
    /// mesh vertices (joint anchors): Phi(X) = field(X - field_origin).
    std::shared_ptr<const ModalField> field;
    Vec3 field_origin = Vec3::Zero();

    /// Phi (3 x m) at any body-local point.
    MatX phi_at(const Vec3& X) const { return field->evaluate(X - field_origin); }

    /// Phi at vertex v (3 x m).
    auto vertex_phi(int v) const { return vertex_modes->middleRows(3 * v, 3); }
};

/// Number of reduced coordinates z of a body with m modes.
constexpr int reduced_size(int num_modes) { return 12 + 9 * num_modes; }

/// Local deformed position Y = X + Phi eta.
inline Vec3 deformed_local(const Vec3& X, const Eigen::Ref<const MatX>& phi,
                           const Eigen::Ref<const VecX>& eta) {
    return X + phi * eta;
}

/// z = [p, A, eta_1 A, ..., eta_m A] of affine state q (12) and modal coordinates eta (m).
VecX reduced_coordinates(const Vec12& q, const Eigen::Ref<const VecX>& eta);

/// dz/d[q, eta]: the (12 + 9m) x (12 + m) Jacobian of reduced_coordinates.
MatX reduced_coordinates_jacobian(const Vec12& q, const Eigen::Ref<const VecX>& eta);

/// Psi(X) with x = Psi z for a point of local position X and mode values phi (3 x m):
/// the 3 x (12 + 9m) matrix [I, I (x) X^T, I (x) Phi_1^T, ..., I (x) Phi_m^T].
MatX reduced_point_basis(const Vec3& X, const Eigen::Ref<const MatX>& phi);

/// M_z = sum over the quadrature points of Psi^T M Psi: `points` (n x 3) the mass points in
/// local coordinates, `phi` (3n x m) the mode values there, `mass` (3n x 3n) the mass matrix
/// over their coordinates (lumped = diagonal). Throws InputError unless the mass matrix of the
/// body's unknowns [p, A, eta] at rest is positive definite (it is not when a mode is itself an
/// affine field, or when the mass points are too few).
MatX reduced_mass_matrix(const Vertices& points, const MatX& phi,
                         const Eigen::SparseMatrix<double>& mass);

}  // namespace concord
