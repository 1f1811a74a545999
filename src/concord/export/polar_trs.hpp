// Translation, rotation and scale (glTF's node TRS) that approximate an affine map, from the
// polar decomposition A = R S (R a rotation, S symmetric positive semi-definite).
#pragma once

#include <Eigen/Geometry>

#include "concord/export/affine_map.hpp"

namespace concord {

struct TRS {
    Vec3 translation = Vec3::Zero();
    Eigen::Quaterniond rotation = Eigen::Quaterniond::Identity();  ///< unit
    Vec3 scale = Vec3::Ones();

    /// R diag(scale): the linear part that glTF applies.
    Mat3 linear() const { return rotation.toRotationMatrix() * scale.asDiagonal(); }
};

/// T = p, R from the polar decomposition of A, and scale = the diagonal of S = R^T A. Exact
/// (linear() == A) when S is diagonal, i.e. A is a rotation times a scaling along the body's own
/// axes, which includes every rigid motion; the off-diagonal of S (shear) is dropped. For a
/// reflection (det A < 0) R is negated to stay a rotation and the scale turns negative. A
/// degenerate A (rank < 3) still yields a rotation (from the SVD).
TRS trs_from_affine(const AffineMap& map);

/// Largest |(T + R diag(s) X) - (p + A X)| over the mesh's vertices: the error the TRS
/// approximation makes for this body in this frame, in metres.
double trs_error(const TRS& trs, const AffineMap& map, const TriMesh& mesh);
/// The same over local points (rows): for a reduced elastic body, the deformed local vertices
/// X + Phi eta, which glTF's morph targets reproduce before the node's TRS applies.
double trs_error(const TRS& trs, const AffineMap& map, const Vertices& local);

}  // namespace concord
