// The IPC edge-edge mollifier (Li et al. 2020, "Incremental Potential Contact", Sec. 4.3).
//
// The edge-edge distance is only C0 where two edges become parallel (the closest-feature type
// jumps between line-line and point-edge), so the edge-edge barrier is multiplied by a
// mollifier m(c) of c = |(ea1 − ea0) × (eb1 − eb0)|² that vanishes quadratically when the
// edges are parallel:
//     m(c) = −c²/ε_x² + 2c/ε_x   for c < ε_x,   1 otherwise,
// which is C1 at c = ε_x (m = 1, m' = 0 there). The threshold comes from the rest shape,
//     ε_x = 10⁻³ |ea0_rest − ea1_rest|² |eb0_rest − eb1_rest|²,
// so it is fixed per edge pair. All derivatives are with respect to (ea0, ea1, eb0, eb1).
#pragma once

#include "concord/math/types.hpp"

namespace concord {

/// ε_x of an edge pair from its rest positions.
inline double edge_edge_mollifier_threshold(const Vec3& ea0_rest, const Vec3& ea1_rest,
                                            const Vec3& eb0_rest, const Vec3& eb1_rest) {
    return 1e-3 * (ea0_rest - ea1_rest).squaredNorm() * (eb0_rest - eb1_rest).squaredNorm();
}

/// c = |(ea1 − ea0) × (eb1 − eb0)|², the mollifier's argument.
inline double edge_edge_cross_norm_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                      const Vec3& eb1) {
    return (ea1 - ea0).cross(eb1 - eb0).squaredNorm();
}

/// ∇c. With u = ea1 − ea0 and v = eb1 − eb0, c = |u|²|v|² − (u·v)², so
/// ∂c/∂u = 2 (|v|² u − (u·v) v) and ∂c/∂v = 2 (|u|² v − (u·v) u).
inline Vec12 edge_edge_cross_norm_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                              const Vec3& eb1) {
    const Vec3 u = ea1 - ea0, v = eb1 - eb0;
    const double uu = u.squaredNorm(), vv = v.squaredNorm(), uv = u.dot(v);
    const Vec3 dc_du = 2.0 * (vv * u - uv * v);
    const Vec3 dc_dv = 2.0 * (uu * v - uv * u);
    Vec12 grad;
    grad << -dc_du, dc_du, -dc_dv, dc_dv;
    return grad;
}

/// ∇²c, from the (u, v) Hessian
///     c_uu = 2 (|v|² I − v vᵀ),  c_vv = 2 (|u|² I − u uᵀ),  c_uv = 2 (2 u vᵀ − v uᵀ − (u·v) I)
/// and u, v being differences of the stacked points.
inline Mat12 edge_edge_cross_norm_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                             const Vec3& eb1) {
    const Vec3 u = ea1 - ea0, v = eb1 - eb0;
    const double uu = u.squaredNorm(), vv = v.squaredNorm(), uv = u.dot(v);
    const Mat3 I = Mat3::Identity();
    const Mat3 c_uu = 2.0 * (vv * I - v * v.transpose());
    const Mat3 c_vv = 2.0 * (uu * I - u * u.transpose());
    const Mat3 c_uv = 2.0 * (2.0 * u * v.transpose() - v * u.transpose() - uv * I);
    // u = ea1 − ea0 and v = eb1 − eb0: each block gets the product of the two endpoint signs.
    constexpr double sign[2] = {-1.0, 1.0};
    Mat12 H;
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
            const double s = sign[i] * sign[j];
            H.block<3, 3>(3 * i, 3 * j) = s * c_uu;
            H.block<3, 3>(6 + 3 * i, 6 + 3 * j) = s * c_vv;
            H.block<3, 3>(3 * i, 6 + 3 * j) = s * c_uv;
            H.block<3, 3>(6 + 3 * j, 3 * i) = s * c_uv.transpose();
        }
    }
    return H;
}

/// m(c) for threshold ε_x > 0.
inline double mollifier(double c, double eps_x) {
    if (c >= eps_x) return 1.0;
    const double x = c / eps_x;
    return (2.0 - x) * x;
}

/// dm/dc.
inline double mollifier_first_derivative(double c, double eps_x) {
    if (c >= eps_x) return 0.0;
    return 2.0 * (1.0 - c / eps_x) / eps_x;
}

/// d²m/dc² (m' jumps from −2/ε_x² to 0 at c = ε_x: m is C1, not C2).
inline double mollifier_second_derivative(double c, double eps_x) {
    if (c >= eps_x) return 0.0;
    return -2.0 / (eps_x * eps_x);
}

/// m(c(x)) for an edge pair with threshold ε_x.
inline double edge_edge_mollifier(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                  const Vec3& eb1, double eps_x) {
    return mollifier(edge_edge_cross_norm_sq(ea0, ea1, eb0, eb1), eps_x);
}

/// ∇ m(c(x)) = m'(c) ∇c.
inline Vec12 edge_edge_mollifier_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                          const Vec3& eb1, double eps_x) {
    const double c = edge_edge_cross_norm_sq(ea0, ea1, eb0, eb1);
    if (c >= eps_x) return Vec12::Zero();
    return mollifier_first_derivative(c, eps_x) *
           edge_edge_cross_norm_sq_gradient(ea0, ea1, eb0, eb1);
}

/// ∇² m(c(x)) = m''(c) ∇c ∇cᵀ + m'(c) ∇²c.
inline Mat12 edge_edge_mollifier_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                         const Vec3& eb1, double eps_x) {
    const double c = edge_edge_cross_norm_sq(ea0, ea1, eb0, eb1);
    if (c >= eps_x) return Mat12::Zero();
    const Vec12 grad_c = edge_edge_cross_norm_sq_gradient(ea0, ea1, eb0, eb1);
    const double m1 = mollifier_first_derivative(c, eps_x);
    const double m2 = mollifier_second_derivative(c, eps_x);
    Mat12 H = edge_edge_cross_norm_sq_hessian(ea0, ea1, eb0, eb1);
    for (int col = 0; col < 12; ++col) H.col(col) = m1 * H.col(col) + (m2 * grad_c[col]) * grad_c;
    return H;
}

/// ∇(m b) = b ∇m + m ∇b, for the mollifier m and any energy b of the same edge pair (the
/// edge-edge barrier b(d(x))), given their values and gradients.
inline Vec12 mollified_gradient(double m, const Vec12& grad_m, double b, const Vec12& grad_b) {
    return b * grad_m + m * grad_b;
}

/// ∇²(m b) = b ∇²m + ∇m ∇bᵀ + ∇b ∇mᵀ + m ∇²b.
inline Mat12 mollified_hessian(double m, const Vec12& grad_m, const Mat12& hess_m, double b,
                               const Vec12& grad_b, const Mat12& hess_b) {
    // One pass over the columns; entry (i, j) and (j, i) get the same products: symmetric.
    Mat12 H;
    for (int c = 0; c < 12; ++c) {
        H.col(c) = b * hess_m.col(c) + m * hess_b.col(c) + grad_b[c] * grad_m + grad_m[c] * grad_b;
    }
    return H;
}

}  // namespace concord
