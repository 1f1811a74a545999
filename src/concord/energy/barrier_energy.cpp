#include "concord/energy/barrier_energy.hpp"

#include "concord/collision/barrier/barrier.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/edge_edge_mollifier.hpp"
#include "concord/collision/distance/point_halfspace.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "concord/energy/deterministic_parallel.hpp"
#include "concord/energy/pair_scatter.hpp"
#include "concord/math/psd_projection.hpp"
#include "concord/math/translation_invariant_psd.hpp"

namespace concord {

namespace {

// Local value/gradient/Hessian of one pair in the stacked coordinates of its vertices.
template <int N>
struct LocalDerivatives {
    double value = 0.0;
    Vec<3 * N> gradient = Vec<3 * N>::Zero();
    Mat<3 * N> hessian = Mat<3 * N>::Zero();
};

// kappa b(d) with d the squared distance: chain rule through the distance derivatives.
template <int N>
LocalDerivatives<N> barrier_of_distance(double kappa, double d, double dhat_sq,
                                        const Vec<3 * N>& dd, const Mat<3 * N>& ddd, int order) {
    LocalDerivatives<N> r;
    r.value = kappa * barrier(d, dhat_sq);
    if (order >= 1) r.gradient = kappa * barrier_first_derivative(d, dhat_sq) * dd;
    if (order >= 2)
        r.hessian = kappa * (barrier_second_derivative(d, dhat_sq) * dd * dd.transpose() +
                             barrier_first_derivative(d, dhat_sq) * ddd);
    return r;
}

}  // namespace

BarrierEnergy::BarrierEnergy(const ContactSurface& surface, const std::vector<HalfSpace>& planes,
                             std::vector<bool> body_movable, double dhat)
    : surface_(surface), planes_(planes), movable_(std::move(body_movable)), dhat_(dhat) {}

// Each pair kind is evaluated by one function that fills value, gradient and Hessian up to
// `order` (0, 1 or 2); value(), add_gradient() and add_hessian() differ only in what they keep.
namespace {

struct PairEvaluator {
    const ContactSurface& s;
    const std::vector<HalfSpace>& planes;
    const VecX& q;
    double kappa, dhat_sq;
    const ContactReplication* replication;

    Vec3 x(int v) const { return s.position(q, v); }
    // kappa / kappa_c: this system's share of the pair between the bodies of vertices u and v.
    double stiffness(int u, int v) const {
        if (!replication) return kappa;
        return kappa * replication->pair_weight(s.body_of_vertex(u), s.body_of_vertex(v));
    }
    double plane_stiffness(int v) const {
        return replication ? kappa * replication->plane_weight(s.body_of_vertex(v)) : kappa;
    }

    LocalDerivatives<4> point_triangle(const PointTriangleContact& c, int order) const {
        const auto& f = s.mesh.faces;
        const Vec3 p = x(c.vertex), t0 = x(f(c.face, 0)), t1 = x(f(c.face, 1)), t2 = x(f(c.face, 2));
        const double d = point_triangle_distance_sq(p, t0, t1, t2, c.type);
        Vec12 g = Vec12::Zero();
        Mat12 H = Mat12::Zero();
        if (order >= 1) g = point_triangle_distance_sq_gradient(p, t0, t1, t2, c.type);
        if (order >= 2) H = point_triangle_distance_sq_hessian(p, t0, t1, t2, c.type);
        return barrier_of_distance<4>(stiffness(c.vertex, f(c.face, 0)), d, dhat_sq, g, H, order);
    }

    LocalDerivatives<4> edge_edge(const EdgeEdgeContact& c, int order) const {
        const auto& e = s.mesh.edges;
        const Vec3 a0 = x(e(c.edge_a, 0)), a1 = x(e(c.edge_a, 1)), b0 = x(e(c.edge_b, 0)),
                   b1 = x(e(c.edge_b, 1));
        const double d = edge_edge_distance_sq(a0, a1, b0, b1, c.type);
        Vec12 g = Vec12::Zero();
        Mat12 H = Mat12::Zero();
        if (order >= 1) g = edge_edge_distance_sq_gradient(a0, a1, b0, b1, c.type);
        if (order >= 2) H = edge_edge_distance_sq_hessian(a0, a1, b0, b1, c.type);
        LocalDerivatives<4> b = barrier_of_distance<4>(stiffness(e(c.edge_a, 0), e(c.edge_b, 0)), d,
                                                       dhat_sq, g, H, order);
        // Mollified barrier m(c) b(d): product rule.
        const double eps = c.mollifier_threshold;
        const double m = edge_edge_mollifier(a0, a1, b0, b1, eps);
        if (m == 1.0) return b;
        LocalDerivatives<4> r;
        r.value = m * b.value;
        if (order >= 1) {
            const Vec12 gm = edge_edge_mollifier_gradient(a0, a1, b0, b1, eps);
            r.gradient = mollified_gradient(m, gm, b.value, b.gradient);
            if (order >= 2)
                r.hessian = mollified_hessian(m, gm, edge_edge_mollifier_hessian(a0, a1, b0, b1, eps),
                                              b.value, b.gradient, b.hessian);
        }
        return r;
    }

    LocalDerivatives<1> point_plane(const PointPlaneContact& c, int order) const {
        const HalfSpace& h = planes[static_cast<std::size_t>(c.plane)];
        const Vec3 p = x(c.vertex);
        const double d = point_halfspace_distance_sq(p, h.point, h.normal);
        return barrier_of_distance<1>(plane_stiffness(c.vertex), d, dhat_sq,
                                      point_halfspace_distance_sq_gradient(p, h.point, h.normal),
                                      point_halfspace_distance_sq_hessian(p, h.point, h.normal),
                                      order);
    }
};

}  // namespace

double BarrierEnergy::value(const VecX& q) const {
    if (!contacts_) return 0.0;
    const PairEvaluator ev{surface_, planes_, q, kappa_, dhat_ * dhat_, replication_};
    const auto& c = *contacts_;
    return deterministic_sum(c.point_triangle.size(),
                             [&](std::size_t i) { return ev.point_triangle(c.point_triangle[i], 0).value; }) +
           deterministic_sum(c.edge_edge.size(),
                             [&](std::size_t i) { return ev.edge_edge(c.edge_edge[i], 0).value; }) +
           deterministic_sum(c.point_plane.size(),
                             [&](std::size_t i) { return ev.point_plane(c.point_plane[i], 0).value; });
}

namespace {

// Pair barriers depend on differences of their points only: project in the relative
// coordinates of the points the distance type involves (same result to round-off, a fraction
// of the cost; translation_invariant_psd.hpp). A vertex-plane pair (N = 1, the plane is fixed)
// is not translation-invariant.
template <int N>
Mat<3 * N> projected(Mat<3 * N> h, bool project) {
    if (!project) return h;
    if constexpr (N == 1) return project_to_psd<3>(h);
    else return project_translation_invariant_to_psd<N>(h);
}

}  // namespace

void BarrierEnergy::add_gradient(const VecX& q, VecX& g) const {
    if (!contacts_) return;
    const PairEvaluator ev{surface_, planes_, q, kappa_, dhat_ * dhat_, replication_};
    const auto& f = surface_.mesh.faces;
    const auto& e = surface_.mesh.edges;
    scatter_pair_gradients<4>(
        contacts_->point_triangle, surface_, q,
        [&](const auto& c) { return ev.point_triangle(c, 1).gradient; },
        [&](const PointTriangleContact& c) {
            return std::array<int, 4>{c.vertex, f(c.face, 0), f(c.face, 1), f(c.face, 2)};
        },
        movable_, g);
    scatter_pair_gradients<4>(
        contacts_->edge_edge, surface_, q, [&](const auto& c) { return ev.edge_edge(c, 1).gradient; },
        [&](const EdgeEdgeContact& c) {
            return std::array<int, 4>{e(c.edge_a, 0), e(c.edge_a, 1), e(c.edge_b, 0), e(c.edge_b, 1)};
        },
        movable_, g);
    scatter_pair_gradients<1>(
        contacts_->point_plane, surface_, q,
        [&](const auto& c) { return ev.point_plane(c, 1).gradient; },
        [&](const PointPlaneContact& c) { return std::array<int, 1>{c.vertex}; }, movable_, g);
}

void BarrierEnergy::add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const {
    if (!contacts_) return;
    const PairEvaluator ev{surface_, planes_, q, kappa_, dhat_ * dhat_, replication_};
    const auto& f = surface_.mesh.faces;
    const auto& e = surface_.mesh.edges;
    scatter_pair_hessians<4>(
        contacts_->point_triangle, surface_, q,
        [&](const auto& c) { return projected<4>(ev.point_triangle(c, 2).hessian, project_psd); },
        [&](const PointTriangleContact& c) {
            return std::array<int, 4>{c.vertex, f(c.face, 0), f(c.face, 1), f(c.face, 2)};
        },
        movable_, H);
    scatter_pair_hessians<4>(
        contacts_->edge_edge, surface_, q,
        [&](const auto& c) { return projected<4>(ev.edge_edge(c, 2).hessian, project_psd); },
        [&](const EdgeEdgeContact& c) {
            return std::array<int, 4>{e(c.edge_a, 0), e(c.edge_a, 1), e(c.edge_b, 0), e(c.edge_b, 1)};
        },
        movable_, H);
    scatter_pair_hessians<1>(
        contacts_->point_plane, surface_, q,
        [&](const auto& c) { return projected<1>(ev.point_plane(c, 2).hessian, project_psd); },
        [&](const PointPlaneContact& c) { return std::array<int, 1>{c.vertex}; }, movable_, H);
}

std::vector<double> BarrierEnergy::normal_forces(const VecX& q) const {
    std::vector<double> out;
    if (!contacts_) return out;
    const double dhat_sq = dhat_ * dhat_;
    auto force = [&](double d_sq) { return barrier_force(d_sq, dhat_sq); };
    const PairEvaluator ev{surface_, planes_, q, kappa_, dhat_sq, replication_};
    const auto& f = surface_.mesh.faces;
    const auto& e = surface_.mesh.edges;
    auto x = [&](int v) { return surface_.position(q, v); };
    for (const auto& c : contacts_->point_triangle)
        out.push_back(ev.stiffness(c.vertex, f(c.face, 0)) *
                      force(point_triangle_distance_sq(x(c.vertex), x(f(c.face, 0)), x(f(c.face, 1)),
                                                       x(f(c.face, 2)), c.type)));
    for (const auto& c : contacts_->edge_edge)
        out.push_back(ev.stiffness(e(c.edge_a, 0), e(c.edge_b, 0)) *
                      force(edge_edge_distance_sq(x(e(c.edge_a, 0)), x(e(c.edge_a, 1)),
                                                  x(e(c.edge_b, 0)), x(e(c.edge_b, 1)), c.type)));
    for (const auto& c : contacts_->point_plane) {
        const double sd = plane_signed_distance(planes_[static_cast<std::size_t>(c.plane)], x(c.vertex));
        out.push_back(ev.plane_stiffness(c.vertex) * force(sd * sd));
    }
    return out;
}

}  // namespace concord
