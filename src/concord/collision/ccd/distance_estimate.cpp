#include "concord/collision/ccd/distance_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "concord/collision/distance/distance_type.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/point_edge.hpp"
#include "concord/collision/distance/point_triangle.hpp"

namespace concord {
namespace {

// |(e0 - p) x (e1 - p)| / |e1 - e0| loses about eps * |e0 - p| * |e1 - p| in the cross product
// before the division by the edge length.
double point_line_error_scale(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    return std::sqrt((e0 - p).squaredNorm() * (e1 - p).squaredNorm() / (e1 - e0).squaredNorm());
}

// n . w / |n| with n = u x v loses about eps * |u| * |v| * |w| in the numerator, divided by |n|.
double cross_projection_error_scale(const Vec3& u, const Vec3& v, const Vec3& w, const Vec3& n) {
    return std::sqrt(u.squaredNorm() * v.squaredNorm() * w.squaredNorm() / n.squaredNorm());
}

DistanceEstimate point_segment_estimate(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    const PointEdgeDistanceType type = point_edge_distance_type(p, e0, e1);
    const double d2 = point_edge_distance_sq(p, e0, e1, type);
    const double scale = type == PointEdgeDistanceType::P_E ? point_line_error_scale(p, e0, e1) : 0;
    return {std::sqrt(d2), scale};
}

}  // namespace

DistanceEstimate point_triangle_distance_estimate(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                                  const Vec3& t2) {
    using T = PointTriangleDistanceType;
    const Vec3 ab = t1 - t0, ac = t2 - t0;
    const Vec3 n = ab.cross(ac);
    if (n.squaredNorm() == 0.0) {
        // A zero-area triangle is exactly the union of its three edges; the classification
        // below could send it to a zero-length edge's line formula (0/0).
        const DistanceEstimate e[3] = {point_segment_estimate(p, t0, t1),
                                       point_segment_estimate(p, t1, t2),
                                       point_segment_estimate(p, t2, t0)};
        // The minimum of three uncertain values is as uncertain as the worst of them.
        return {std::min({e[0].distance, e[1].distance, e[2].distance}),
                std::max({e[0].error_scale, e[1].error_scale, e[2].error_scale})};
    }
    const T type = point_triangle_distance_type(p, t0, t1, t2);
    const double d2 = point_triangle_distance_sq(p, t0, t1, t2, type);
    double scale = 0.0;
    switch (type) {
        case T::P_T0:
        case T::P_T1:
        case T::P_T2:
            break;
        case T::P_E0:
            scale = point_line_error_scale(p, t0, t1);
            break;
        case T::P_E1:
            scale = point_line_error_scale(p, t1, t2);
            break;
        case T::P_E2:
            scale = point_line_error_scale(p, t2, t0);
            break;
        case T::P_T:
            scale = cross_projection_error_scale(ab, ac, p - t0, n);
            break;
    }
    return {std::sqrt(d2), scale};
}

DistanceEstimate edge_edge_distance_estimate(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                             const Vec3& eb1) {
    using T = EdgeEdgeDistanceType;
    const T type = edge_edge_distance_type(ea0, ea1, eb0, eb1);
    const double d2 = edge_edge_distance_sq(ea0, ea1, eb0, eb1, type);
    double scale = 0.0;
    switch (type) {
        case T::EA0_EB0:
        case T::EA0_EB1:
        case T::EA1_EB0:
        case T::EA1_EB1:
            break;
        case T::EA_EB0:
            scale = point_line_error_scale(eb0, ea0, ea1);
            break;
        case T::EA_EB1:
            scale = point_line_error_scale(eb1, ea0, ea1);
            break;
        case T::EA0_EB:
            scale = point_line_error_scale(ea0, eb0, eb1);
            break;
        case T::EA1_EB:
            scale = point_line_error_scale(ea1, eb0, eb1);
            break;
        case T::EA_EB: {
            const Vec3 u = ea1 - ea0, v = eb1 - eb0;
            scale = cross_projection_error_scale(u, v, eb0 - ea0, u.cross(v));
            break;
        }
    }
    return {std::sqrt(d2), scale};
}

}  // namespace concord
