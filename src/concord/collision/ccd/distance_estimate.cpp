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

DistanceEstimate point_segment_estimate(const Vec3& p, const Vec3& e0, const Vec3& e1, double tol) {
    const PointEdgeDistanceType type = point_edge_distance_type(p, e0, e1);
    const double d2 = point_edge_distance_sq(p, e0, e1, type);
    const double scale = type == PointEdgeDistanceType::P_E ? point_line_error_scale(p, e0, e1) : 0;
    return {std::sqrt(d2), tol * scale};
}

// The minimum of uncertain values is as uncertain as the most uncertain of them.
DistanceEstimate min_of(const DistanceEstimate& a, const DistanceEstimate& b) {
    return {std::min(a.distance, b.distance), std::max(a.uncertainty, b.uncertainty)};
}

}  // namespace

DistanceEstimate point_triangle_distance_estimate(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                                  const Vec3& t2, double tol) {
    using T = PointTriangleDistanceType;
    const Vec3 ab = t1 - t0, ac = t2 - t0, bc = t2 - t1;
    const double n_norm = ab.cross(ac).norm();
    const double ab2 = ab.squaredNorm(), ac2 = ac.squaredNorm(), bc2 = bc.squaredNorm();
    const double size = std::sqrt(std::max({ab2, ac2, (p - t0).squaredNorm()}));
    const double face_error = n_norm > 0 ? tol * size * size * size / n_norm : 0.0;
    const double sliver_width = n_norm / std::sqrt(std::max({ab2, ac2, bc2}));
    if (n_norm == 0.0 || sliver_width < face_error) {
        // As its three edges: exact for a zero-area triangle (where the classification could
        // reach a zero-length edge's line formula, 0/0), off by at most the width otherwise.
        DistanceEstimate e = min_of(
            min_of(point_segment_estimate(p, t0, t1, tol), point_segment_estimate(p, t1, t2, tol)),
            point_segment_estimate(p, t2, t0, tol));
        e.uncertainty += sliver_width;
        return e;
    }
    const T type = point_triangle_distance_type(p, t0, t1, t2);
    const double d2 = point_triangle_distance_sq(p, t0, t1, t2, type);
    double edge_scale = 0.0;
    switch (type) {
        case T::P_E0:
            edge_scale = point_line_error_scale(p, t0, t1);
            break;
        case T::P_E1:
            edge_scale = point_line_error_scale(p, t1, t2);
            break;
        case T::P_E2:
            edge_scale = point_line_error_scale(p, t2, t0);
            break;
        default:
            break;
    }
    // face_error covers the plane formula and the region tests, whose misclassification near a
    // region boundary costs as much.
    return {std::sqrt(d2), face_error + tol * edge_scale};
}

DistanceEstimate edge_edge_distance_estimate(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                             const Vec3& eb1, double tol) {
    using T = EdgeEdgeDistanceType;
    const Vec3 u = ea1 - ea0, v = eb1 - eb0;
    const double uu = u.squaredNorm(), vv = v.squaredNorm();
    auto endpoints = [&](double model_error) {
        DistanceEstimate e = min_of(min_of(point_segment_estimate(ea0, eb0, eb1, tol),
                                           point_segment_estimate(ea1, eb0, eb1, tol)),
                                    min_of(point_segment_estimate(eb0, ea0, ea1, tol),
                                           point_segment_estimate(eb1, ea0, ea1, tol)));
        e.uncertainty += model_error;
        return e;
    };
    if (uu == 0.0 || vv == 0.0) return endpoints(0.0);  // a point against a segment: exact

    const Vec3 n = u.cross(v);
    const double sin_angle = std::sqrt(n.squaredNorm() / (uu * vv));
    const double length_u = std::sqrt(uu), length_v = std::sqrt(vv);
    const double general_error = tol * (length_u + length_v + (eb0 - ea0).norm()) / sin_angle;
    const double parallel_error = 2 * std::max(length_u, length_v) * sin_angle;
    if (!(general_error <= parallel_error)) return endpoints(parallel_error);

    const T type = edge_edge_distance_type(ea0, ea1, eb0, eb1);
    const double d2 = edge_edge_distance_sq(ea0, ea1, eb0, eb1, type);
    double scale = 0.0;
    switch (type) {
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
        default:
            break;  // vertex-vertex: none; line-line: general_error covers it
    }
    return {std::sqrt(d2), general_error + tol * scale};
}

}  // namespace concord
