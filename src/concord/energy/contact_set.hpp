// The active contact pairs of a configuration: candidates whose distance is below dhat.
#pragma once

#include <vector>

#include "concord/collision/broad_phase/candidates.hpp"
#include "concord/collision/distance/distance_type.hpp"
#include "concord/energy/contact_surface.hpp"
#include "concord/geometry/half_space.hpp"

namespace concord {

/// A vertex that may come within dhat of a half-space during a step.
struct PointPlaneCandidate {
    int vertex;
    int plane;
    friend auto operator<=>(const PointPlaneCandidate&, const PointPlaneCandidate&) = default;
};

struct PointTriangleContact {
    int vertex;
    int face;
    PointTriangleDistanceType type;
};

struct EdgeEdgeContact {
    int edge_a;
    int edge_b;
    EdgeEdgeDistanceType type;
    double mollifier_threshold;  ///< eps_x of the parallel-edge mollifier, from rest lengths
};

struct PointPlaneContact {
    int vertex;
    int plane;
};

struct ContactSet {
    std::vector<PointTriangleContact> point_triangle;
    std::vector<EdgeEdgeContact> edge_edge;
    std::vector<PointPlaneContact> point_plane;
    /// Smallest squared distance over every candidate (not only active ones); +inf if none.
    double min_distance_sq = std::numeric_limits<double>::infinity();

    std::size_t size() const {
        return point_triangle.size() + edge_edge.size() + point_plane.size();
    }
};

/// Vertices of movable bodies whose segment x0 -> x1 comes within `inflation` of a plane.
std::vector<PointPlaneCandidate> point_plane_candidates(const ContactSurface& surface,
                                                        const Vertices& x0, const Vertices& x1,
                                                        const std::vector<HalfSpace>& planes,
                                                        const std::vector<bool>& body_movable,
                                                        double inflation);

/// Classifies every candidate at positions x and keeps those closer than dhat.
ContactSet build_contact_set(const ContactSurface& surface, const Vertices& x,
                             const Candidates& candidates,
                             const std::vector<PointPlaneCandidate>& plane_candidates,
                             const std::vector<HalfSpace>& planes, double dhat);

/// Signed distance of x to a half-space.
inline double plane_signed_distance(const HalfSpace& h, const Vec3& x) {
    return (x - h.point).dot(h.normal);
}

}  // namespace concord
