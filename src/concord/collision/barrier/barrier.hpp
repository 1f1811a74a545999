// The IPC log-barrier (Li et al. 2020) applied to SQUARED distances, as ipc-toolkit does.
//
// Both arguments are squared: d is a squared distance (as every distance function in
// concord/collision/distance returns) and dhat is the squared activation distance, i.e. a pair
// contributes when its distance is below sqrt(dhat). Then
//     b(d) = −(d − dhat)² ln(d / dhat)   for 0 < d < dhat,   0 for d ≥ dhat,
// which is C2 at d = dhat (b, b' and b'' all vanish there; b''' does not) and grows to +∞ as
// d → 0+.
//
// For d ≤ 0 (touching or crossing, which the line search must never accept) the value is +∞,
// b' is −∞ and b'' is +∞, so an accidental evaluation poisons the energy instead of silently
// returning a finite number. dhat > 0 is a precondition (checked where it is configured).
//
// The stiffness κ is not part of b: the contact energy multiplies by it.
#pragma once

#include <cmath>
#include <limits>

#include "concord/math/types.hpp"

namespace concord {

/// b(d) for squared distance d and squared activation distance dhat.
inline double barrier(double d, double dhat) {
    if (d <= 0.0) return std::numeric_limits<double>::infinity();
    if (d >= dhat) return 0.0;
    const double gap = d - dhat;
    return -gap * gap * std::log(d / dhat);
}

/// db/dd = (dhat − d) (2 ln(d/dhat) − dhat/d + 1).
inline double barrier_first_derivative(double d, double dhat) {
    if (d <= 0.0) return -std::numeric_limits<double>::infinity();
    if (d >= dhat) return 0.0;
    return (dhat - d) * (2.0 * std::log(d / dhat) - dhat / d + 1.0);
}

/// The barrier's force per unit stiffness at a distance (not squared): |d b(r²) / d r| at
/// r = sqrt(d) for squared distance d, i.e. |b'(d)| 2 sqrt(d); +inf at d <= 0.
inline double barrier_force(double d, double dhat) {
    if (d <= 0.0) return std::numeric_limits<double>::infinity();
    return std::abs(barrier_first_derivative(d, dhat)) * 2.0 * std::sqrt(d);
}

/// d²b/dd² = (dhat/d + 2) dhat/d − 2 ln(d/dhat) − 3.
inline double barrier_second_derivative(double d, double dhat) {
    if (d <= 0.0) return std::numeric_limits<double>::infinity();
    if (d >= dhat) return 0.0;
    const double ratio = dhat / d;
    return (ratio + 2.0) * ratio - 2.0 * std::log(d / dhat) - 3.0;
}

/// ∇ b(d(x)) = b'(d) ∇d, for a distance d with gradient grad_d over N coordinates.
template <int N>
Vec<N> barrier_gradient(double d, double dhat, const Vec<N>& grad_d) {
    if (d >= dhat) return Vec<N>::Zero();
    return barrier_first_derivative(d, dhat) * grad_d;
}

/// ∇² b(d(x)) = b''(d) ∇d ∇dᵀ + b'(d) ∇²d.
/// For d ≤ 0 the infinite factors turn the result into ±∞ and NaN entries, on purpose.
template <int N>
Mat<N> barrier_hessian(double d, double dhat, const Vec<N>& grad_d, const Mat<N>& hess_d) {
    if (d >= dhat) return Mat<N>::Zero();
    const double b1 = barrier_first_derivative(d, dhat), b2 = barrier_second_derivative(d, dhat);
    // One pass over the columns, no temporaries (this is on the per-contact hot path).
    Mat<N> H;
    for (int c = 0; c < N; ++c) H.col(c) = b1 * hess_d.col(c) + (b2 * grad_d[c]) * grad_d;
    return H;
}

}  // namespace concord
