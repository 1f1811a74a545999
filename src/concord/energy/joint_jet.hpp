// Second-order jets (value, gradient, Hessian) over the local DoFs of one joint (a
// JointStencil), the arithmetic the joint energies are written in.
//
// Every joint quantity is built from attachment points (bilinear in A and eta) and frame axes
// (linear in A) by differences, dot products and atan2, so carrying exact first and second
// derivatives through these few operations gives exact joint gradients and Hessians without
// hand-expanding each energy. A jet of order 0 carries only the value (energy evaluation in
// line searches), order 1 adds the gradient, order 2 the Hessian.
#pragma once

#include <array>
#include <cmath>

#include "concord/energy/body_point.hpp"

namespace concord::joint_jet {

/// A scalar function of the local DoFs. g and H are empty below their order.
struct Jet {
    double v = 0.0;
    VecX g;
    MatX H;
};

/// A 3-vector function of the local DoFs: J is 3 x n, H[i] the Hessian of component i.
struct Jet3 {
    Vec3 v = Vec3::Zero();
    Eigen::Matrix<double, 3, Eigen::Dynamic> J;
    std::array<MatX, 3> H;
};

inline Jet3 zero_jet3(int n, int order) {
    Jet3 r;
    if (order >= 1) r.J = Eigen::Matrix<double, 3, Eigen::Dynamic>::Zero(3, n);
    if (order >= 2)
        for (auto& h : r.H) h = MatX::Zero(n, n);
    return r;
}

/// x(q) of an attachment point whose block starts at local `offset`; n the stencil size.
inline Jet3 point_jet(const BodyPoint& point, int offset, int n, const VecX& q, int order) {
    Jet3 r = zero_jet3(n, order);
    r.v = body_point_position(point, q);
    if (point.is_world()) return r;
    if (order >= 1) r.J.middleCols(offset, point.num_dofs()) = body_point_jacobian(point, q);
    if (order >= 2) {
        // d2 x_i / dA_ij deta_k = Phi_jk: the bilinear frame-mode coupling.
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < point.num_modes(); ++k) {
                    const int a = offset + 3 + 3 * i + j, e = offset + 12 + k;
                    r.H[i](a, e) = r.H[i](e, a) = point.phi(j, k);
                }
    }
    return r;
}

/// A a, the world direction of body-local axis a (linear in A: no second derivatives).
inline Jet3 axis_jet(int body, const Vec3& a, int offset, int n, const VecX& q, int order) {
    Jet3 r = zero_jet3(n, order);
    r.v = body_axis(body, a, q);
    if (body < 0 || order < 1) return r;
    for (int i = 0; i < 3; ++i) r.J.block<1, 3>(i, offset + 3 + 3 * i) = a.transpose();
    return r;
}

inline Jet3 operator-(const Jet3& a, const Jet3& b) {
    Jet3 r;
    r.v = a.v - b.v;
    if (a.J.size() > 0) r.J = a.J - b.J;
    for (int i = 0; i < 3; ++i)
        if (a.H[i].size() > 0) r.H[i] = a.H[i] - b.H[i];
    return r;
}

inline Jet component(const Jet3& a, int i) {
    Jet r;
    r.v = a.v[i];
    if (a.J.size() > 0) r.g = a.J.row(i).transpose();
    if (a.H[i].size() > 0) r.H = a.H[i];
    return r;
}

/// a . b, product rule to second order.
inline Jet dot(const Jet3& a, const Jet3& b) {
    Jet r;
    r.v = a.v.dot(b.v);
    if (a.J.size() > 0) r.g = a.J.transpose() * b.v + b.J.transpose() * a.v;
    if (a.H[0].size() > 0) {
        r.H = a.J.transpose() * b.J;
        r.H += r.H.transpose().eval();
        for (int i = 0; i < 3; ++i) r.H += b.v[i] * a.H[i] + a.v[i] * b.H[i];
    }
    return r;
}

/// c0 + c1 f (an affine change of a scalar jet).
inline Jet affine(const Jet& f, double c0, double c1) {
    Jet r;
    r.v = c0 + c1 * f.v;
    if (f.g.size() > 0) r.g = c1 * f.g;
    if (f.H.size() > 0) r.H = c1 * f.H;
    return r;
}

/// atan2(y, x) + shift (the caller's unwrapping), chain rule to second order.
inline Jet atan2(const Jet& y, const Jet& x, double shift) {
    Jet r;
    r.v = std::atan2(y.v, x.v) + shift;
    const double r2 = x.v * x.v + y.v * y.v;
    const double tx = -y.v / r2, ty = x.v / r2;
    if (x.g.size() > 0) r.g = tx * x.g + ty * y.g;
    if (x.H.size() > 0) {
        const double r4 = r2 * r2;
        const double txx = 2.0 * x.v * y.v / r4, tyy = -txx;
        const double txy = (y.v * y.v - x.v * x.v) / r4;
        r.H = tx * x.H + ty * y.H + txx * x.g * x.g.transpose() + tyy * y.g * y.g.transpose() +
              txy * (x.g * y.g.transpose() + y.g * x.g.transpose());
    }
    return r;
}

/// Accumulates psi(f) for scalar jets f and a scalar function psi given by its value and first
/// two derivatives at f: E += psi, g += psi' grad f, H += psi'' grad f grad f^T + psi' H_f.
struct Accumulator {
    double value = 0.0;
    VecX g;
    MatX H;

    Accumulator(int n, int order) {
        if (order >= 1) g = VecX::Zero(n);
        if (order >= 2) H = MatX::Zero(n, n);
    }
    void add(const Jet& f, double psi, double dpsi, double ddpsi) {
        value += psi;
        if (g.size() > 0) g += dpsi * f.g;
        if (H.size() > 0) {
            if (ddpsi != 0.0) H += ddpsi * f.g * f.g.transpose();
            if (dpsi != 0.0) H += dpsi * f.H;
        }
    }
    /// k/2 f^2.
    void add_square(const Jet& f, double k) { add(f, 0.5 * k * f.v * f.v, k * f.v, k); }
};

}  // namespace concord::joint_jet
