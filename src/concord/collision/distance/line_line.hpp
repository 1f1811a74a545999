// Squared distance between the infinite lines through two non-parallel edges, and its
// derivatives with respect to (ea0, ea1, eb0, eb1).
#pragma once

#include "concord/collision/distance/affine_min_distance.hpp"
#include "concord/math/types.hpp"

namespace concord {

inline double line_line_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                    const Vec3& eb1) {
    const Vec3 n = (ea1 - ea0).cross(eb1 - eb0);
    const double s = n.dot(eb0 - ea0);
    return s * s / n.squaredNorm();
}

/// The line-line distance as min_(s,t) |ea0 + s (ea1 − ea0) − eb0 − t (eb1 − eb0)|², at its
/// optimal line parameters.
inline AffineClosestPoints<4, 2> line_line_closest_points(const Vec3& ea0, const Vec3& ea1,
                                                          const Vec3& eb0, const Vec3& eb1) {
    const Vec3 u = ea1 - ea0, v = eb1 - eb0, delta = eb0 - ea0;
    const Vec3 n = u.cross(v);
    const double nn = n.squaredNorm();
    // Line parameters from cross products rather than from the normal equations, whose
    // determinant |u|²|v|² − (u·v)² cancels badly for nearly parallel edges.
    const double s = delta.cross(v).dot(n) / nn;
    const double t = delta.cross(u).dot(n) / nn;
    AffineClosestPoints<4, 2> a;
    a.w << 1.0 - s, s, t - 1.0, -t;
    a.B << -1.0, 0.0,  //
        1.0, 0.0,      //
        0.0, 1.0,      //
        0.0, -1.0;
    a.g.col(0) = u;
    a.g.col(1) = -v;
    a.r = (-n.dot(delta) / nn) * n;
    return a;
}

inline Vec12 line_line_distance_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                            const Vec3& eb1) {
    return affine_min_distance_gradient(line_line_closest_points(ea0, ea1, eb0, eb1));
}

inline Mat12 line_line_distance_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                           const Vec3& eb1) {
    return affine_min_distance_hessian(line_line_closest_points(ea0, ea1, eb0, eb1));
}

}  // namespace concord
