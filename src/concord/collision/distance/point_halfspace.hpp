// Distance from a point to the boundary plane of a fixed half-space (a ground or wall plane),
// and its derivatives with respect to the point only: the plane is part of the scene, not a
// degree of freedom.
//
// The plane is given by a point on it and its outward unit normal n (|n| = 1 is a
// precondition, checked where planes are read, not here). The squared distance
// (n·(p − o))² does not look at the side; the signed distance n·(p − o) is positive on the
// side n points to (outside the solid half-space) and tells the side.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

/// n·(p − o): positive outside the half-space, negative inside.
inline double point_halfspace_signed_distance(const Vec3& p, const Vec3& plane_point,
                                              const Vec3& plane_normal) {
    return plane_normal.dot(p - plane_point);
}

/// ∇_p of the signed distance: the normal (its Hessian is zero).
inline Vec3 point_halfspace_signed_distance_gradient(const Vec3& /*p*/, const Vec3& /*plane_point*/,
                                                     const Vec3& plane_normal) {
    return plane_normal;
}

/// Squared distance from p to the plane, (n·(p − o))².
inline double point_halfspace_distance_sq(const Vec3& p, const Vec3& plane_point,
                                          const Vec3& plane_normal) {
    const double s = point_halfspace_signed_distance(p, plane_point, plane_normal);
    return s * s;
}

/// ∇_p of the squared distance: 2 (n·(p − o)) n.
inline Vec3 point_halfspace_distance_sq_gradient(const Vec3& p, const Vec3& plane_point,
                                                 const Vec3& plane_normal) {
    return (2.0 * point_halfspace_signed_distance(p, plane_point, plane_normal)) * plane_normal;
}

/// ∇²_p of the squared distance: 2 n nᵀ, independent of p.
inline Mat3 point_halfspace_distance_sq_hessian(const Vec3& /*p*/, const Vec3& /*plane_point*/,
                                                const Vec3& plane_normal) {
    return 2.0 * plane_normal * plane_normal.transpose();
}

}  // namespace concord
