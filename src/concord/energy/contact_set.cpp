#include "concord/energy/contact_set.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <limits>

#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/edge_edge_mollifier.hpp"
#include "concord/collision/distance/point_triangle.hpp"

namespace concord {

std::vector<PointPlaneCandidate> point_plane_candidates(const ContactSurface& surface,
                                                        const Vertices& x0, const Vertices& x1,
                                                        const std::vector<HalfSpace>& planes,
                                                        const std::vector<bool>& body_movable,
                                                        double inflation) {
    std::vector<PointPlaneCandidate> out;
    for (int p = 0; p < static_cast<int>(planes.size()); ++p) {
        for (int v = 0; v < surface.num_vertices(); ++v) {
            if (!body_movable[static_cast<std::size_t>(surface.body_of_vertex(v))]) continue;
            const double s0 = plane_signed_distance(planes[p], x0.row(v).transpose());
            const double s1 = plane_signed_distance(planes[p], x1.row(v).transpose());
            if (std::min(s0, s1) < inflation) out.push_back({v, p});
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

/// Squared distance between the bounding boxes of two point sets: a lower bound of the squared
/// distance between their convex hulls (so between the primitives).
template <std::size_t N, std::size_t M>
double box_distance_sq(const std::array<Vec3, N>& a, const std::array<Vec3, M>& b) {
    Vec3 a_lo = a[0], a_hi = a[0], b_lo = b[0], b_hi = b[0];
    for (std::size_t i = 1; i < N; ++i) {
        a_lo = a_lo.cwiseMin(a[i]);
        a_hi = a_hi.cwiseMax(a[i]);
    }
    for (std::size_t i = 1; i < M; ++i) {
        b_lo = b_lo.cwiseMin(b[i]);
        b_hi = b_hi.cwiseMax(b[i]);
    }
    const Vec3 gap = (b_lo - a_hi).cwiseMax(a_lo - b_hi).cwiseMax(Vec3::Zero());
    return gap.squaredNorm();
}

}  // namespace

ContactSet build_contact_set(const ContactSurface& surface, const Vertices& x,
                             const Candidates& candidates,
                             const std::vector<PointPlaneCandidate>& plane_candidates,
                             const std::vector<HalfSpace>& planes, double dhat) {
    const double dhat_sq = dhat * dhat;
    const auto& faces = surface.mesh.faces;
    const auto& edges = surface.mesh.edges;
    auto X = [&](int v) -> Vec3 { return x.row(v).transpose(); };
    auto R = [&](int v) -> Vec3 { return surface.rest.row(v).transpose(); };

    // Classify in parallel into per-candidate slots, then compact in candidate order so the
    // result is independent of the thread count. A pair whose bounding boxes are dhat apart
    // cannot be a contact: its slot holds +inf, and its distance is computed only if no pair is
    // within dhat, for the set's minimum distance (the second pass fills just those slots).
    const auto& pt = candidates.point_triangle;
    const auto& ee = candidates.edge_edge;
    std::vector<double> d_pt(pt.size()), d_ee(ee.size());
    std::vector<PointTriangleDistanceType> t_pt(pt.size());
    std::vector<EdgeEdgeDistanceType> t_ee(ee.size());
    constexpr double kSkipped = std::numeric_limits<double>::infinity();
    auto classify = [&](bool exact) {
        tbb::parallel_for(std::size_t(0), pt.size(), [&](std::size_t i) {
            if (exact && d_pt[i] != kSkipped) return;
            const auto& c = pt[i];
            const Vec3 p = X(c.vertex), a = X(faces(c.face, 0)), b = X(faces(c.face, 1)),
                       d = X(faces(c.face, 2));
            if (!exact &&
                box_distance_sq(std::array<Vec3, 1>{p}, std::array<Vec3, 3>{a, b, d}) >= dhat_sq) {
                d_pt[i] = kSkipped;
                return;
            }
            t_pt[i] = point_triangle_distance_type(p, a, b, d);
            d_pt[i] = point_triangle_distance_sq(p, a, b, d, t_pt[i]);
        });
        tbb::parallel_for(std::size_t(0), ee.size(), [&](std::size_t i) {
            if (exact && d_ee[i] != kSkipped) return;
            const auto& c = ee[i];
            const Vec3 a0 = X(edges(c.edge_a, 0)), a1 = X(edges(c.edge_a, 1)),
                       b0 = X(edges(c.edge_b, 0)), b1 = X(edges(c.edge_b, 1));
            if (!exact && box_distance_sq(std::array<Vec3, 2>{a0, a1},
                                          std::array<Vec3, 2>{b0, b1}) >= dhat_sq) {
                d_ee[i] = kSkipped;
                return;
            }
            t_ee[i] = edge_edge_distance_type(a0, a1, b0, b1);
            d_ee[i] = edge_edge_distance_sq(a0, a1, b0, b1, t_ee[i]);
        });
    };
    classify(false);
    const auto below = [&](const std::vector<double>& d) {
        return std::any_of(d.begin(), d.end(), [&](double v) { return v < dhat_sq; });
    };
    if (!below(d_pt) && !below(d_ee)) classify(true);

    ContactSet set;
    for (std::size_t i = 0; i < pt.size(); ++i) {
        set.min_distance_sq = std::min(set.min_distance_sq, d_pt[i]);
        if (d_pt[i] < dhat_sq) set.point_triangle.push_back({pt[i].vertex, pt[i].face, t_pt[i]});
    }
    for (std::size_t i = 0; i < ee.size(); ++i) {
        set.min_distance_sq = std::min(set.min_distance_sq, d_ee[i]);
        if (d_ee[i] < dhat_sq) {
            const auto& c = ee[i];
            const double eps =
                edge_edge_mollifier_threshold(R(edges(c.edge_a, 0)), R(edges(c.edge_a, 1)),
                                              R(edges(c.edge_b, 0)), R(edges(c.edge_b, 1)));
            set.edge_edge.push_back({c.edge_a, c.edge_b, t_ee[i], eps});
        }
    }
    for (const auto& c : plane_candidates) {
        const double s = plane_signed_distance(planes[c.plane], X(c.vertex));
        const double d = s * s;
        set.min_distance_sq = std::min(set.min_distance_sq, s <= 0 ? 0.0 : d);
        if (d < dhat_sq) set.point_plane.push_back({c.vertex, c.plane});
    }
    return set;
}

}  // namespace concord
