// Squared distance from a point to the infinite line through e0 and e1 (e0 != e1), and its
// derivatives with respect to (p, e0, e1).
#pragma once

#include "concord/collision/distance/affine_min_distance.hpp"
#include "concord/math/types.hpp"

namespace concord {

inline double point_line_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    const Vec3 e = e1 - e0;
    return (e0 - p).cross(e1 - p).squaredNorm() / e.squaredNorm();
}

/// The point-line distance as min_s |p − e0 − s (e1 − e0)|², at its optimal s.
inline AffineClosestPoints<3, 1> point_line_closest_points(const Vec3& p, const Vec3& e0,
                                                           const Vec3& e1) {
    const Vec3 e = e1 - e0;
    const Vec3 q = p - e0;
    const double s = e.dot(q) / e.squaredNorm();
    AffineClosestPoints<3, 1> a;
    a.w << 1.0, s - 1.0, -s;
    a.B << 0.0, 1.0, -1.0;
    a.g = -e;
    a.r = q - s * e;
    return a;
}

inline Vec9 point_line_distance_sq_gradient(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    return affine_min_distance_gradient(point_line_closest_points(p, e0, e1));
}

inline Mat9 point_line_distance_sq_hessian(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    return affine_min_distance_hessian(point_line_closest_points(p, e0, e1));
}

}  // namespace concord
