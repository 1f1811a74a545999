#include "concord/energy/friction_energy.hpp"

#include <algorithm>

#include "concord/energy/affine_stencil.hpp"
#include "concord/energy/deterministic_parallel.hpp"
#include "concord/energy/pair_scatter.hpp"

namespace concord {

double friction_f0(double y, double eps) {
    if (y >= eps) return y;
    return -y * y * y / (3.0 * eps * eps) + y * y / eps + eps / 3.0;
}

double friction_f1(double y, double eps) {
    if (y >= eps) return 1.0;
    return 2.0 * y / eps - y * y / (eps * eps);
}

namespace {

// f1(y)/y, finite at y = 0.
double f1_over_y(double y, double eps) { return y >= eps ? 1.0 / y : 2.0 / eps - y / (eps * eps); }

double project_on_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
    const Vec3 e = b - a;
    const double ee = e.squaredNorm();
    return ee > 0 ? std::clamp(e.dot(p - a) / ee, 0.0, 1.0) : 0.0;
}

// Closest-point weights of a point-triangle pair (p, t0, t1, t2): r = sum_k w_k x_k is the
// vector from the closest point on the triangle to p.
std::array<double, 4> point_triangle_weights(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                             const Vec3& t2, PointTriangleDistanceType type) {
    using T = PointTriangleDistanceType;
    Vec3 b = Vec3::Zero();
    switch (type) {
        case T::P_T0: b = {1, 0, 0}; break;
        case T::P_T1: b = {0, 1, 0}; break;
        case T::P_T2: b = {0, 0, 1}; break;
        case T::P_E0: { const double s = project_on_segment(p, t0, t1); b = {1 - s, s, 0}; break; }
        case T::P_E1: { const double s = project_on_segment(p, t1, t2); b = {0, 1 - s, s}; break; }
        case T::P_E2: { const double s = project_on_segment(p, t2, t0); b = {s, 0, 1 - s}; break; }
        case T::P_T: {
            const Vec3 e1 = t1 - t0, e2 = t2 - t0, r = p - t0;
            Mat2 A;
            A << e1.dot(e1), e1.dot(e2), e1.dot(e2), e2.dot(e2);
            const Vec2 s = A.ldlt().solve(Vec2(e1.dot(r), e2.dot(r)));
            b = {1 - s[0] - s[1], s[0], s[1]};
            break;
        }
    }
    return {1.0, -b[0], -b[1], -b[2]};
}

std::array<double, 4> edge_edge_weights(const Vec3& a0, const Vec3& a1, const Vec3& b0,
                                        const Vec3& b1, EdgeEdgeDistanceType type) {
    using T = EdgeEdgeDistanceType;
    double a = 0, b = 0;
    switch (type) {
        case T::EA0_EB0: a = 0; b = 0; break;
        case T::EA0_EB1: a = 0; b = 1; break;
        case T::EA1_EB0: a = 1; b = 0; break;
        case T::EA1_EB1: a = 1; b = 1; break;
        case T::EA_EB0: a = project_on_segment(b0, a0, a1); b = 0; break;
        case T::EA_EB1: a = project_on_segment(b1, a0, a1); b = 1; break;
        case T::EA0_EB: a = 0; b = project_on_segment(a0, b0, b1); break;
        case T::EA1_EB: a = 1; b = project_on_segment(a1, b0, b1); break;
        case T::EA_EB: {
            const Vec3 u = a1 - a0, v = b1 - b0, w = a0 - b0;
            const double uu = u.dot(u), uv = u.dot(v), vv = v.dot(v), uw = u.dot(w), vw = v.dot(w);
            const double D = uu * vv - uv * uv;
            a = D > 0 ? (uv * vw - vv * uw) / D : 0.0;
            b = D > 0 ? (uu * vw - uv * uw) / D : 0.0;
            break;
        }
    }
    return {1 - a, a, -(1 - b), -b};
}

Eigen::Matrix<double, 3, 2> tangent_basis(const Vec3& n) {
    // Cross with the coordinate axis least aligned with n for a well-conditioned basis.
    Eigen::Index axis;
    n.cwiseAbs().minCoeff(&axis);
    const Vec3 t0 = n.cross(Vec3::Unit(axis)).normalized();
    Eigen::Matrix<double, 3, 2> T;
    T.col(0) = t0;
    T.col(1) = n.cross(t0);
    return T;
}

}  // namespace

void FrictionEnergy::lag(const ContactSet& contacts, const std::vector<HalfSpace>& planes,
                         const VecX& q_lag, const std::vector<double>& lambda,
                         const std::vector<double>& mu, const VecX& q_start, double eps) {
    pairs_.clear();
    q_start_ = q_start;
    eps_ = eps;
    const auto& f = surface_.mesh.faces;
    const auto& e = surface_.mesh.edges;
    auto x = [&](int v) { return surface_.position(q_lag, v); };
    std::size_t k = 0;
    auto push = [&](FrictionPair p, const Vec3& normal) {
        const std::size_t idx = k++;
        if (mu[idx] <= 0.0 || lambda[idx] <= 0.0 || !(normal.squaredNorm() > 0)) return;
        p.tangent = tangent_basis(normal.normalized());
        p.normal_force = lambda[idx];
        p.mu = mu[idx];
        pairs_.push_back(p);
    };
    for (const auto& c : contacts.point_triangle) {
        FrictionPair p;
        p.vertex = {c.vertex, f(c.face, 0), f(c.face, 1), f(c.face, 2)};
        p.weight = point_triangle_weights(x(p.vertex[0]), x(p.vertex[1]), x(p.vertex[2]),
                                          x(p.vertex[3]), c.type);
        Vec3 r = Vec3::Zero();
        for (int i = 0; i < 4; ++i) r += p.weight[i] * x(p.vertex[i]);
        push(p, r);
    }
    for (const auto& c : contacts.edge_edge) {
        FrictionPair p;
        p.vertex = {e(c.edge_a, 0), e(c.edge_a, 1), e(c.edge_b, 0), e(c.edge_b, 1)};
        p.weight = edge_edge_weights(x(p.vertex[0]), x(p.vertex[1]), x(p.vertex[2]),
                                     x(p.vertex[3]), c.type);
        Vec3 r = Vec3::Zero();
        for (int i = 0; i < 4; ++i) r += p.weight[i] * x(p.vertex[i]);
        push(p, r);
    }
    for (const auto& c : contacts.point_plane) {
        FrictionPair p;
        p.vertex = {c.vertex, c.vertex, c.vertex, c.vertex};
        p.weight = {1.0, 0.0, 0.0, 0.0};
        p.num_vertices = 1;
        push(p, planes[static_cast<std::size_t>(c.plane)].normal);
    }
}

Vec2 FrictionEnergy::tangential_displacement(const FrictionPair& p, const VecX& q) const {
    Vec3 d = Vec3::Zero();
    for (int i = 0; i < p.num_vertices; ++i)
        d += p.weight[i] * (surface_.position(q, p.vertex[i]) - surface_.position(q_start_, p.vertex[i]));
    return p.tangent.transpose() * d;
}

double FrictionEnergy::value(const VecX& q) const {
    return deterministic_sum(pairs_.size(), [&](std::size_t i) {
        const FrictionPair& p = pairs_[i];
        return p.mu * p.normal_force * friction_f0(tangential_displacement(p, q).norm(), eps_);
    });
}

namespace {

// Vertex-space operator: 3 x 12 block row [w_0 I, w_1 I, w_2 I, w_3 I] times the tangent
// basis transposed, i.e. u = (T^T Gamma) x.
Eigen::Matrix<double, 2, 12> tangent_operator(const FrictionPair& p) {
    Eigen::Matrix<double, 2, 12> TG = Eigen::Matrix<double, 2, 12>::Zero();
    for (int i = 0; i < p.num_vertices; ++i)
        TG.block<2, 3>(0, 3 * i) = p.weight[i] * p.tangent.transpose();
    return TG;
}

}  // namespace

void FrictionEnergy::add_gradient(const VecX& q, VecX& g) const {
    auto movable = [&](int body) { return movable_[static_cast<std::size_t>(body)]; };
    add_pair_gradients(
        pairs_.size(),
        [&](std::size_t i) {
            const FrictionPair& p = pairs_[i];
            const Vec2 u = tangential_displacement(p, q);
            const Vec12 local = p.mu * p.normal_force * f1_over_y(u.norm(), eps_) *
                                (tangent_operator(p).transpose() * u);
            if (p.num_vertices == 1)
                return AffineStencil<1>(surface_, {p.vertex[0]}, &q)
                    .gradient(local.head<3>(), movable);
            return AffineStencil<4>(surface_, p.vertex, &q).gradient(local, movable);
        },
        g);
}

void FrictionEnergy::add_hessian(const VecX& q, HessianBlocks& H, bool) const {
    // The 2x2 tangential Hessian of f0(|u|) is PSD for every u (its eigenvalues are f1(y)/y
    // and f1'(y) >= 0 with this mollifier), so no projection is needed.
    auto movable = [&](int body) { return movable_[static_cast<std::size_t>(body)]; };
    add_blocks_in_chunks(pairs_.size(), H, [&](std::size_t i, HessianBlocks& out) {
        const FrictionPair& p = pairs_[i];
        const Vec2 u = tangential_displacement(p, q);
        const double y = u.norm();
        Mat2 inner = f1_over_y(y, eps_) * Mat2::Identity();
        if (y >= eps_)
            inner -= u * u.transpose() / (y * y * y);
        else if (y > 0)
            inner -= u * u.transpose() / (eps_ * eps_ * y);
        const auto TG = tangent_operator(p);
        // (lazyProduct: a 12 x 2 x 12 product is far below what Eigen's blocked GEMM pays off for)
        const Mat12 h = p.mu * p.normal_force * (TG.transpose() * inner).lazyProduct(TG);
        if (p.num_vertices == 1) {
            const AffineStencil<1> st(surface_, {p.vertex[0]}, &q);
            st.scatter_hessian(h.topLeftCorner<3, 3>(), out, movable);
        } else {
            const AffineStencil<4> st(surface_, p.vertex, &q);
            st.scatter_hessian(h, out, movable);
        }
    });
}

}  // namespace concord
