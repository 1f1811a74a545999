// Squared distance from a point to the plane through a non-degenerate triangle t0 t1 t2, and
// its derivatives with respect to (p, t0, t1, t2).
#pragma once

#include "concord/collision/distance/affine_min_distance.hpp"
#include "concord/math/types.hpp"

namespace concord {

inline double point_plane_distance_sq(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                      const Vec3& t2) {
    const Vec3 n = (t1 - t0).cross(t2 - t0);
    const double s = n.dot(p - t0);
    return s * s / n.squaredNorm();
}

/// The point-plane distance as min_(b1,b2) |p − t0 − b1 (t1 − t0) − b2 (t2 − t0)|², at its
/// optimal barycentric coordinates.
inline AffineClosestPoints<4, 2> point_plane_closest_points(const Vec3& p, const Vec3& t0,
                                                            const Vec3& t1, const Vec3& t2) {
    const Vec3 e1 = t1 - t0, e2 = t2 - t0, q = p - t0;
    const Vec3 n = e1.cross(e2);
    const double nn = n.squaredNorm();
    // Barycentric coordinates of the projection from cross products (Cramer's rule in the
    // plane); the residual is taken along n so that it is exactly normal to the plane.
    const double b1 = q.cross(e2).dot(n) / nn;
    const double b2 = e1.cross(q).dot(n) / nn;
    AffineClosestPoints<4, 2> a;
    a.w << 1.0, b1 + b2 - 1.0, -b1, -b2;
    a.B << 0.0, 0.0,  //
        1.0, 1.0,     //
        -1.0, 0.0,    //
        0.0, -1.0;
    a.g.col(0) = -e1;
    a.g.col(1) = -e2;
    a.r = (n.dot(q) / nn) * n;
    return a;
}

inline Vec12 point_plane_distance_sq_gradient(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                              const Vec3& t2) {
    return affine_min_distance_gradient(point_plane_closest_points(p, t0, t1, t2));
}

inline Mat12 point_plane_distance_sq_hessian(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                             const Vec3& t2) {
    return affine_min_distance_hessian(point_plane_closest_points(p, t0, t1, t2));
}

}  // namespace concord
