// Exact gradient and Hessian of a squared distance that is the minimum, over a few free
// parameters, of the squared length of an affine combination of points.
//
// Every smooth distance of the IPC contact model has this form:
//     d(x) = min_β f(x, β),   f = |r|²,   r(x, β) = Σ_j w_j(β) x_j,   w affine in β,
// with x the stacked points of the pair (point-line: β = the edge parameter; point-plane: two
// barycentric coordinates; line-line: one parameter per edge). At the optimum f_β = 0, so by
// the envelope theorem
//     ∇d  = f_x,
//     ∇²d = f_xx − f_xβ f_ββ⁻¹ f_βx.
// With g_k = ∂r/∂β_k = Σ_j B_jk x_j (B = ∂w/∂β, constant) the pieces are
//     f_x   : block j = 2 w_j r
//     f_xx  : block (j, l) = 2 w_j w_l I
//     f_xβ  : block (j, k) = 2 (B_jk r + w_j g_k)
//     f_ββ  : 2 GᵀG, G = [g_1 … g_M]
// so ∇²d = 2 (w wᵀ ⊗ I − K Kᵀ) with K = F R⁻¹, F_jk = B_jk r + w_j g_k and G = Q R. Going
// through R instead of (GᵀG)⁻¹ keeps the result exactly symmetric and avoids squaring the
// condition number of G (R's last diagonal entry comes from a cross product, not from a
// cancelling difference of dot products).
#pragma once

#include <cmath>

#include "concord/math/types.hpp"

namespace concord {

/// The minimiser of an affine-combination distance: N points, M free parameters.
template <int N, int M>
struct AffineClosestPoints {
    Vec<N> w;     ///< weights of the points in the residual, at the optimal parameters
    Mat<N, M> B;  ///< ∂w/∂β, constant
    Mat<3, M> g;  ///< ∂r/∂β_k = Σ_j B_jk x_j, linearly independent columns
    Vec3 r;       ///< the residual at the optimum (orthogonal to every column of g)
};

/// ∇d with respect to the stacked points (3N numbers).
template <int N, int M>
Vec<3 * N> affine_min_distance_gradient(const AffineClosestPoints<N, M>& a) {
    Vec<3 * N> grad;
    for (int j = 0; j < N; ++j) grad.template segment<3>(3 * j) = (2.0 * a.w[j]) * a.r;
    return grad;
}

/// ∇²d with respect to the stacked points (3N × 3N), exact at the optimum.
template <int N, int M>
Mat<3 * N> affine_min_distance_hessian(const AffineClosestPoints<N, M>& a) {
    static_assert(M == 1 || M == 2, "only one or two free parameters are needed");
    // K = √2 F R⁻¹ with G = Q R (upper-triangular R), so that K Kᵀ = 2 F (GᵀG)⁻¹ Fᵀ; the
    // factor 2 of ∇²d is folded into K so that H needs no final scaling pass.
    Mat<3 * N, M> K;
    const double r00 = a.g.col(0).norm();
    const double s0 = std::sqrt(2.0) / r00;
    for (int j = 0; j < N; ++j) {
        K.template block<3, 1>(3 * j, 0) = s0 * (a.B(j, 0) * a.r + a.w[j] * a.g.col(0));
    }
    if constexpr (M == 2) {
        const double r01 = a.g.col(0).dot(a.g.col(1)) / r00;
        const double r11 = a.g.col(0).cross(a.g.col(1)).norm() / r00;
        const double s1 = std::sqrt(2.0) / r11, c01 = r01 / r11;
        for (int j = 0; j < N; ++j) {
            K.template block<3, 1>(3 * j, 1) = s1 * (a.B(j, 1) * a.r + a.w[j] * a.g.col(1)) -
                                               c01 * K.template block<3, 1>(3 * j, 0);
        }
    }
    // −K Kᵀ one column at a time (twice as fast as Eigen's lazy 3N×M·M×3N product here), with
    // the same products in the same order for (i, j) and (j, i): exactly symmetric.
    Mat<3 * N> H;
    for (int c = 0; c < 3 * N; ++c) {
        H.col(c) = -K(c, 0) * K.col(0);
        if constexpr (M == 2) H.col(c) -= K(c, 1) * K.col(1);
    }
    for (int j = 0; j < N; ++j) {
        for (int l = 0; l < N; ++l) {
            H.template block<3, 3>(3 * j, 3 * l).diagonal().array() += 2.0 * a.w[j] * a.w[l];
        }
    }
    return H;
}

}  // namespace concord
