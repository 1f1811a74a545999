// Projection of displacement fields sampled at points onto / away from the affine fields
// u(X) = c + G X (rigid motion included), in the mass inner product <u, v> = u^T M v.
#pragma once

#include <Eigen/Sparse>

#include "concord/math/types.hpp"

namespace concord {

/// An M-orthonormal basis Q (3n x r, Q^T M Q = I) of the affine fields sampled at the points
/// (rows 3i..3i+2 for point i). r = 12 when the massive points span 3D; fewer when they are
/// coplanar or collinear (directions of the 12-field Gram matrix below 1e-12 of its largest
/// eigenvalue are dropped, so the span is what the points can distinguish).
[[nodiscard]] MatX mass_orthonormal_affine_fields(const Vertices& points,
                                                  const Eigen::SparseMatrix<double>& mass);

/// Removes the affine part of every column of `fields` (3n x s): f - Q Q^T M f, applied twice
/// (re-orthogonalisation, so the remainder is M-orthogonal to the affine fields to rounding).
[[nodiscard]] MatX remove_affine_motion(const Vertices& points,
                                        const Eigen::SparseMatrix<double>& mass,
                                        const MatX& fields);

}  // namespace concord
