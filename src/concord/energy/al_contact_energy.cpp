#include "concord/energy/al_contact_energy.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>

#include "concord/collision/barrier/barrier.hpp"
#include "concord/collision/distance/distance_type.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/edge_edge_mollifier.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "concord/energy/pair_scatter.hpp"

namespace concord {

AlContactEnergy::AlContactEnergy(const ContactSurface& surface,
                                 const std::vector<HalfSpace>& planes,
                                 std::vector<bool> body_movable, std::vector<double> body_mass,
                                 AlContactParams params)
    : surface_(surface),
      planes_(planes),
      movable_(std::move(body_movable)),
      mass_(std::move(body_mass)),
      params_(params) {}

void AlContactEnergy::join(const std::vector<AlPairKey>& pairs) {
    if (pairs.empty()) return;
    std::vector<AlPairKey> fresh = pairs;
    std::sort(fresh.begin(), fresh.end());
    fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
    std::vector<AlConstraint> merged;
    merged.reserve(set_.size() + fresh.size());
    std::size_t i = 0, j = 0;
    while (i < set_.size() || j < fresh.size()) {
        if (j == fresh.size() || (i < set_.size() && set_[i].key < fresh[j])) {
            merged.push_back(std::move(set_[i++]));
        } else if (i < set_.size() && set_[i].key == fresh[j]) {
            merged.push_back(std::move(set_[i++]));  // already in: keeps its multiplier
            ++j;
        } else {
            AlConstraint c;
            c.key = fresh[j++];
            merged.push_back(c);
        }
    }
    set_ = std::move(merged);
}

void AlContactEnergy::set_constraints(std::vector<AlConstraint> set) {
    set_ = std::move(set);
    for (AlConstraint& c : set_) c.load = c.lambda;
    std::sort(set_.begin(), set_.end(),
              [](const AlConstraint& x, const AlConstraint& y) { return x.key < y.key; });
}

double AlContactEnergy::pair_penalty(const AlConstraint& c) const {
    // The smallest mass among the pair's movable bodies (a static body's mass does not count).
    double m = std::numeric_limits<double>::infinity();
    for (int k = 0; k < c.num_vertices; ++k) {
        const auto b = static_cast<std::size_t>(surface_.body_of_vertex(c.vertex[static_cast<std::size_t>(k)]));
        if (movable_[b]) m = std::min(m, mass_[b]);
    }
    if (!std::isfinite(m)) return 0.0;
    const double base = params_.penalty_scale * m * h_ * h_;
    if (params_.load_compression <= 0.0) return base;
    return std::max(base, c.load / (params_.load_compression * params_.dhat));
}

double AlContactEnergy::pair_weight(const AlPairKey& key) const {
    if (!replication_) return 1.0;
    // A vertex of each primitive names its body: the point, the face's first corner, the edges'
    // first ends.
    const auto& f = surface_.mesh.faces;
    const auto& e = surface_.mesh.edges;
    switch (key.kind) {
        case AlPairKey::PointTriangle:
            return replication_->pair_weight(surface_.body_of_vertex(key.a),
                                             surface_.body_of_vertex(f(key.b, 0)));
        case AlPairKey::EdgeEdge:
            return replication_->pair_weight(surface_.body_of_vertex(e(key.a, 0)),
                                             surface_.body_of_vertex(e(key.b, 0)));
        default:
            return replication_->plane_weight(surface_.body_of_vertex(key.a));
    }
}

double AlContactEnergy::gap(const AlConstraint& c, const VecX& q) const {
    double g = c.offset;
    for (int k = 0; k < c.num_vertices; ++k) {
        const auto kk = static_cast<std::size_t>(k);
        g += c.normal[kk].dot(surface_.position(q, c.vertex[kk]));
    }
    return g;
}

void AlContactEnergy::linearize(const VecX& q_np, const VecX& q) {
    const auto& f = surface_.mesh.faces;
    const auto& e = surface_.mesh.edges;
    const double dhat = params_.dhat;
    for_each_chunk(set_.size(), [&](std::size_t b, std::size_t end, std::size_t) {
        for (std::size_t i = b; i < end; ++i) {
            AlConstraint& c = set_[i];
            auto x = [&](int v) { return surface_.position(q_np, v); };
            double D = 0.0;
            Vec12 grad_sq = Vec12::Zero();  // d(D^2)/dx, stacked
            bool usable = true;
            switch (c.key.kind) {
            case AlPairKey::PointTriangle: {
                c.vertex = {c.key.a, f(c.key.b, 0), f(c.key.b, 1), f(c.key.b, 2)};
                c.num_vertices = 4;
                const Vec3 p = x(c.vertex[0]), t0 = x(c.vertex[1]), t1 = x(c.vertex[2]),
                           t2 = x(c.vertex[3]);
                const auto type = point_triangle_distance_type(p, t0, t1, t2);
                D = std::sqrt(point_triangle_distance_sq(p, t0, t1, t2, type));
                grad_sq = point_triangle_distance_sq_gradient(p, t0, t1, t2, type);
                break;
            }
            case AlPairKey::EdgeEdge: {
                c.vertex = {e(c.key.a, 0), e(c.key.a, 1), e(c.key.b, 0), e(c.key.b, 1)};
                c.num_vertices = 4;
                const Vec3 a0 = x(c.vertex[0]), a1 = x(c.vertex[1]), b0 = x(c.vertex[2]),
                           b1 = x(c.vertex[3]);
                // Nearly parallel edges have no usable normal from the edge-edge distance; the
                // point-triangle pairs of their faces hold them apart (libuipc does the same).
                const Vec3 ea = a1 - a0, eb = b1 - b0;
                if (ea.cross(eb).squaredNorm() < 1e-6 * ea.squaredNorm() * eb.squaredNorm()) {
                    usable = false;
                    break;
                }
                const auto type = edge_edge_distance_type(a0, a1, b0, b1);
                D = std::sqrt(edge_edge_distance_sq(a0, a1, b0, b1, type));
                grad_sq = edge_edge_distance_sq_gradient(a0, a1, b0, b1, type);
                break;
            }
            default: {
                c.vertex = {c.key.a, 0, 0, 0};
                c.num_vertices = 1;
                const HalfSpace& hs = planes_[static_cast<std::size_t>(c.key.b)];
                D = plane_signed_distance(hs, x(c.key.a));
                grad_sq.head<3>() = 2.0 * D * hs.normal;
                break;
            }
            }
            c.weight = pair_weight(c.key);
            // x_np is intersection-free, so D > 0; guard anyway (no usable normal at 0).
            if (!usable || !(D > 0.0)) {
                c.mu_eff = 0.0;
                c.mu = pair_penalty(c);
                continue;
            }
            double dot = 0.0;
            for (int k = 0; k < c.num_vertices; ++k) {
                const auto kk = static_cast<std::size_t>(k);
                c.normal[kk] = grad_sq.segment<3>(3 * k) / (2.0 * D);
                dot += c.normal[kk].dot(x(c.vertex[kk]));
            }
            c.offset = D - dot - (c.clearance < 0.0 ? dhat : c.clearance);
            c.mu = pair_penalty(c);
            c.mu_eff = c.mu * std::pow(params_.decay, c.inactive);
            if (c.mu <= 0.0) {
                c.mu_eff = 0.0;
                continue;
            }
            // Slack frozen at the Newton iterate.
            const double ratio = c.lambda / c.mu;
            const double s = std::max(0.0, gap(c, q) - ratio);
            c.shift = s + ratio;
        }
    });
}

void AlContactEnergy::take_over(const ContactSet& contacts,
                                const std::vector<double>& normal_forces, const VecX& q,
                                double kappa) {
    if (!(kappa > 0.0)) throw std::logic_error("AlContactEnergy::take_over: kappa must be positive");
    if (normal_forces.size() != contacts.size())
        throw std::logic_error("AlContactEnergy::take_over: one normal force per contact");
    std::vector<AlConstraint> set;
    set.reserve(contacts.size());
    auto add = [&](int kind, int a, int b) {
        AlConstraint c;
        c.key = {kind, a, b};
        const double w = pair_weight(c.key);
        c.lambda = w > 0.0 ? normal_forces[set.size()] / w : 0.0;
        set.push_back(c);
    };
    for (const auto& c : contacts.point_triangle) add(AlPairKey::PointTriangle, c.vertex, c.face);
    for (const auto& c : contacts.edge_edge) add(AlPairKey::EdgeEdge, c.edge_a, c.edge_b);
    for (const auto& c : contacts.point_plane) add(AlPairKey::PointPlane, c.vertex, c.plane);
    set_constraints(std::move(set));
    // Linearised at q with the clearance dhat, g(q) = D(q) - dhat.
    linearize(q, q);
    for (AlConstraint& c : set_) {
        bool usable = false;  // (without a normal, e.g. parallel edges, the clearance stays dhat)
        for (int k = 0; k < c.num_vertices; ++k)
            usable = usable || c.normal[static_cast<std::size_t>(k)].squaredNorm() > 0.0;
        if (usable) c.clearance = std::clamp(gap(c, q) + params_.dhat, 0.0, params_.dhat);
    }
    barrier_kappa_ = kappa;
}

void AlContactEnergy::barrier_law_update(AlConstraint& c, const VecX& q) const {
    const double dhat = params_.dhat, dhat_sq = dhat * dhat;
    const double clearance = c.clearance < 0.0 ? dhat : c.clearance;
    const double distance = gap(c, q) + clearance;  // D(q), linearised
    // h(d) = kappa F(d) + mu (D - d) - lambda falls from +inf at d -> 0 to mu (D - dhat) -
    // lambda at dhat; its root d is the new clearance and kappa F(d) the new multiplier.
    auto h = [&](double d) {
        return barrier_kappa_ * barrier_force(d * d, dhat_sq) + c.mu_eff * (distance - d) - c.lambda;
    };
    if (h(dhat) >= 0.0) {  // the pair separates: no load, clearance dhat
        c.lambda = 0.0;
        c.clearance = dhat;
        return;
    }
    double lo = dhat, hi = dhat;  // h(lo) > 0 > h(hi), bisected in log d
    do lo *= 0.5; while (h(lo) <= 0.0 && lo > 1e-12 * dhat);
    for (int k = 0; k < 60 && hi - lo > 1e-12 * dhat; ++k) {
        const double mid = std::sqrt(lo * hi);
        (h(mid) > 0.0 ? lo : hi) = mid;
    }
    c.clearance = hi;
    c.lambda = barrier_kappa_ * barrier_force(hi * hi, dhat_sq);
}

int AlContactEnergy::carried_loads(const ContactSet& contacts,
                                   std::vector<double>& normal_forces) const {
    if (normal_forces.size() != contacts.size())
        throw std::logic_error("AlContactEnergy::carried_loads: one normal force per contact");
    if (set_.empty()) return 0;
    int replaced = 0;
    std::size_t i = 0;
    auto carry = [&](int kind, int a, int b) {
        const AlPairKey key{kind, a, b};
        auto it = std::lower_bound(set_.begin(), set_.end(), key,
                                   [](const AlConstraint& c, const AlPairKey& k) { return c.key < k; });
        if (it != set_.end() && it->key == key) {
            normal_forces[i] = pair_weight(key) * it->lambda;
            ++replaced;
        }
        ++i;
    };
    for (const auto& c : contacts.point_triangle) carry(AlPairKey::PointTriangle, c.vertex, c.face);
    for (const auto& c : contacts.edge_edge) carry(AlPairKey::EdgeEdge, c.edge_a, c.edge_b);
    for (const auto& c : contacts.point_plane) carry(AlPairKey::PointPlane, c.vertex, c.plane);
    return replaced;
}

void AlContactEnergy::update_multipliers(const VecX& q) {
    for_each_chunk(set_.size(), [&](std::size_t b, std::size_t end, std::size_t) {
        for (std::size_t i = b; i < end; ++i) {
            AlConstraint& c = set_[i];
            if (c.mu_eff <= 0.0) continue;
            // With the penalty the iterate saw: a pair whose stiffness was decayed while it was
            // inactive and that the iterate then pushed deep gets mu_eff |g|, not mu |g| (which
            // made the multipliers swing between 0 and several times the load).
            if (barrier_kappa_ > 0.0)
                barrier_law_update(c, q);
            else
                c.lambda = std::max(0.0, c.lambda - c.mu_eff * gap(c, q));
            c.inactive = c.lambda > 0.0 ? 0 : c.inactive + 1;
        }
    });
    std::erase_if(set_, [&](const AlConstraint& c) { return c.inactive > params_.max_inactive; });
}

ContactSet AlContactEnergy::active_contacts(const VecX& q, std::vector<double>& lambda) const {
    ContactSet out;
    std::vector<double> pt, ee, pp;
    const auto& f = surface_.mesh.faces;
    const auto& e = surface_.mesh.edges;
    auto x = [&](int v) { return surface_.position(q, v); };
    auto rest = [&](int v) -> Vec3 { return surface_.rest.row(v).transpose(); };
    for (const AlConstraint& c : set_) {
        if (!(c.lambda > 0.0)) continue;
        // (From the key: friction is lagged before the first linearisation of a step.)
        const double share = pair_weight(c.key) * c.lambda;
        switch (c.key.kind) {
        case AlPairKey::PointTriangle: {
            const int fa = c.key.b;
            out.point_triangle.push_back(
                {c.key.a, fa,
                 point_triangle_distance_type(x(c.key.a), x(f(fa, 0)), x(f(fa, 1)), x(f(fa, 2)))});
            pt.push_back(share);
            break;
        }
        case AlPairKey::EdgeEdge: {
            const int a = c.key.a, b = c.key.b;
            const double eps = edge_edge_mollifier_threshold(rest(e(a, 0)), rest(e(a, 1)),
                                                             rest(e(b, 0)), rest(e(b, 1)));
            out.edge_edge.push_back(
                {a, b, edge_edge_distance_type(x(e(a, 0)), x(e(a, 1)), x(e(b, 0)), x(e(b, 1))), eps});
            ee.push_back(share);
            break;
        }
        default:
            out.point_plane.push_back({c.key.a, c.key.b});
            pp.push_back(share);
            break;
        }
    }
    lambda = pt;
    lambda.insert(lambda.end(), ee.begin(), ee.end());
    lambda.insert(lambda.end(), pp.begin(), pp.end());
    return out;
}

// The set is sorted by kind: the two four-vertex kinds first, then the vertex-plane pairs.
namespace {

std::size_t first_plane_pair(const std::vector<AlConstraint>& set) {
    return static_cast<std::size_t>(
        std::partition_point(set.begin(), set.end(),
                             [](const AlConstraint& c) { return c.key.kind != AlPairKey::PointPlane; }) -
        set.begin());
}

template <int N>
std::array<int, N> stencil(const AlConstraint& c) {
    std::array<int, N> v{};
    for (int k = 0; k < N; ++k) v[static_cast<std::size_t>(k)] = c.vertex[static_cast<std::size_t>(k)];
    return v;
}

template <int N>
Vec<3 * N> stacked_normal(const AlConstraint& c) {
    Vec<3 * N> n;
    for (int k = 0; k < N; ++k) n.template segment<3>(3 * k) = c.normal[static_cast<std::size_t>(k)];
    return n;
}

}  // namespace

double AlContactEnergy::value(const VecX& q) const {
    return deterministic_sum(set_.size(), [&](std::size_t i) {
        const AlConstraint& c = set_[i];
        if (c.mu_eff <= 0.0) return 0.0;
        const double r = gap(c, q) - c.shift;
        return 0.5 * c.weight * c.mu_eff * r * r;
    });
}

void AlContactEnergy::add_gradient(const VecX& q, VecX& g) const {
    const std::size_t split = first_plane_pair(set_);
    const std::span<const AlConstraint> quads(set_.data(), split),
        points(set_.data() + split, set_.size() - split);
    auto local = [&]<int N>(const AlConstraint& c) -> Vec<3 * N> {
        if (c.mu_eff <= 0.0) return Vec<3 * N>::Zero();
        return c.weight * c.mu_eff * (gap(c, q) - c.shift) * stacked_normal<N>(c);
    };
    scatter_pair_gradients<4>(
        quads, surface_, q, [&](const AlConstraint& c) { return local.template operator()<4>(c); },
        stencil<4>, movable_, g);
    scatter_pair_gradients<1>(
        points, surface_, q, [&](const AlConstraint& c) { return local.template operator()<1>(c); },
        stencil<1>, movable_, g);
}

void AlContactEnergy::add_hessian(const VecX& q, HessianBlocks& H, bool /*project_psd*/) const {
    // mu_eff n n^T: PSD as it is.
    const std::size_t split = first_plane_pair(set_);
    const std::span<const AlConstraint> quads(set_.data(), split),
        points(set_.data() + split, set_.size() - split);
    auto local = [&]<int N>(const AlConstraint& c) -> Mat<3 * N> {
        if (c.mu_eff <= 0.0) return Mat<3 * N>::Zero();
        const Vec<3 * N> n = stacked_normal<N>(c);
        return c.weight * c.mu_eff * n * n.transpose();
    };
    scatter_pair_hessians<4>(
        quads, surface_, q, [&](const AlConstraint& c) { return local.template operator()<4>(c); },
        stencil<4>, movable_, H);
    scatter_pair_hessians<1>(
        points, surface_, q, [&](const AlConstraint& c) { return local.template operator()<1>(c); },
        stencil<1>, movable_, H);
}

}  // namespace concord
