// An affine body: a closed surface mesh in local coordinates X whose world positions are
// x = p + A X, with q = [p (3), A row-major (9)] its 12 degrees of freedom.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "concord/body/modal_part.hpp"
#include "concord/geometry/mass_properties.hpp"
#include "concord/geometry/mesh.hpp"
#include "concord/math/types.hpp"
#include "concord/scene/scene_spec.hpp"

namespace concord {

/// Index of A(i, j) inside q.
constexpr int affine_index(int i, int j) { return 3 + 3 * i + j; }

inline Vec3 affine_translation(const Vec12& q) { return q.head<3>(); }

inline Mat3 affine_matrix(const Vec12& q) {
    Mat3 A;
    A << q[3], q[4], q[5], q[6], q[7], q[8], q[9], q[10], q[11];
    return A;
}

inline Vec12 affine_state(const Vec3& p, const Mat3& A) {
    Vec12 q;
    q << p, A(0, 0), A(0, 1), A(0, 2), A(1, 0), A(1, 1), A(1, 2), A(2, 0), A(2, 1), A(2, 2);
    return q;
}

/// World position x = p + A X of local point X.
inline Vec3 affine_apply(const Vec12& q, const Vec3& X) {
    return Vec3(q[0] + q[3] * X[0] + q[4] * X[1] + q[5] * X[2],
                q[1] + q[6] * X[0] + q[7] * X[1] + q[8] * X[2],
                q[2] + q[9] * X[0] + q[10] * X[1] + q[11] * X[2]);
}

/// J(X)^T g: maps a force/gradient g on the world point x(X) to the 12 affine coordinates.
inline Vec12 affine_jacobian_transpose(const Vec3& X, const Vec3& g) {
    Vec12 r;
    r << g, g[0] * X, g[1] * X, g[2] * X;
    return r;
}

/// The 3x12 affine basis J(X) with x = J(X) q.
inline Eigen::Matrix<double, 3, 12> affine_jacobian(const Vec3& X) {
    Eigen::Matrix<double, 3, 12> J = Eigen::Matrix<double, 3, 12>::Zero();
    for (int i = 0; i < 3; ++i) {
        J(i, i) = 1.0;
        J.block<1, 3>(i, affine_index(i, 0)) = X.transpose();
    }
    return J;
}

/// One body of the world: its geometry, mass, material and how it moves.
struct AffineBody {
    std::string name;
    /// The shape in local coordinates X (as in the output directory's meshes/), shared by the
    /// bodies built from one shape (build_body's same_shape: a pile of 512 icospheres holds one
    /// copy, 28 KB, instead of 512).
    std::shared_ptr<const TriMesh> shape = std::make_shared<const TriMesh>();
    const TriMesh& mesh() const { return *shape; }
    MotionType motion = MotionType::Dynamic;
    MaterialSpec material;
    MassProperties mass_properties;
    Mat12 mass_matrix = Mat12::Zero();  ///< integral of rho J^T J over the body
    double stiffness = 0.0;     ///< kappa of the orthogonality energy kappa V ||A A^T - I||_F^2
    std::optional<double> friction;
    KinematicSpec kinematic;    ///< prescribed motion (kinematic bodies)
    Vec12 q_initial = Vec12::Zero();
    Vec3 external_force = Vec3::Zero();
    double bounding_radius = 0.0;  ///< max |X - c| over the vertices, c the centre of mass
    /// Reduced elastic bodies: modal coordinates deforming the body in its affine frame,
    /// x = p + A (X + Phi eta) (docs/elastic.md). Empty for affine bodies.
    std::optional<ModalPart> modal;

    bool is_elastic() const { return modal.has_value() && modal->num_modes > 0; }

    bool is_dynamic() const { return motion == MotionType::Dynamic; }
};

}  // namespace concord
