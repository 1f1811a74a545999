// PSD projection of the Hessian of a contact potential, in the smaller space it lives in.
//
// A contact pair's barrier is a function of K points (x_1 .. x_K stacked, 3K numbers) that does
// not change when all of them move together: distances between points, edges and triangles,
// and the edge-edge mollifier, depend on differences only. Its Hessian A therefore vanishes
// along the 3 translations, and only the points the pair's distance type involves (2 of the 4
// for a vertex-vertex type) have non-zero rows. So A = Q Ar Q^T with Q the orthonormal basis
// (3m x 3(m-1)) of relative motions of the m involved points, and the eigen-clamped projection
// is Q (Ar)_+ Q^T: an eigen decomposition of 3(m-1) instead of 3K rows (9 instead of 12 for
// point-triangle and edge-edge, 6 for point-edge, 3 for point-point): 1.3-1.5x cheaper on
// real barrier Hessians (docs/benchmarks.md).
//
// Guarantee (tests/math/test_translation_invariant_psd.cpp): the result R is symmetric PSD (to
// round-off, like project_to_psd), zero outside the involved rows, and
//     ||R - project_to_psd(A)||_F <= ||A - P A P||_F + round-off,
// P = Q Q^T, because R = project_to_psd(P A P) exactly and the projection onto the PSD cone
// is 1-Lipschitz in the Frobenius norm. A is only used this way when its translation residual
// (the block-row sums of the involved points) is at most kTranslationTolerance times its
// largest entry; otherwise (or with one involved point) the full eigen decomposition of the
// involved block is used. So R equals the exact projection up to that relative tolerance.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

/// Relative size of the block-row sums below which A is taken as translation-invariant.
inline constexpr double kTranslationTolerance = 1e-9;

/// Which path project_translation_invariant_to_psd took (for tests and statistics).
enum class PsdPath {
    Zero,      ///< A is zero
    Reduced,   ///< projected in the 3(m-1) relative coordinates of the m involved points
    Full,      ///< not translation-invariant (or one point): eigen decomposition of the 3m block
};

/// Eigen-clamped PSD projection of A, the symmetric Hessian of a translation-invariant function
/// of K points (K = 2, 3 or 4), as described above. Only the lower triangle is not enough: A must
/// be stored in full (both triangles), as the barrier Hessians are.
template <int K>
Mat<3 * K> project_translation_invariant_to_psd(const Mat<3 * K>& A, PsdPath* path = nullptr);

}  // namespace concord
