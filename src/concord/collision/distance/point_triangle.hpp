// Squared distance from a point to a triangle, and its derivatives with respect to
// (p, t0, t1, t2).
#pragma once

#include "concord/collision/distance/derivative_scatter.hpp"
#include "concord/collision/distance/distance_type.hpp"
#include "concord/collision/distance/point_line.hpp"
#include "concord/collision/distance/point_plane.hpp"
#include "concord/collision/distance/point_point.hpp"

namespace concord {

inline double point_triangle_distance_sq(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                         const Vec3& t2, PointTriangleDistanceType type) {
    using T = PointTriangleDistanceType;
    switch (type) {
        case T::P_T0:
            return point_point_distance_sq(p, t0);
        case T::P_T1:
            return point_point_distance_sq(p, t1);
        case T::P_T2:
            return point_point_distance_sq(p, t2);
        case T::P_E0:
            return point_line_distance_sq(p, t0, t1);
        case T::P_E1:
            return point_line_distance_sq(p, t1, t2);
        case T::P_E2:
            return point_line_distance_sq(p, t2, t0);
        case T::P_T:
            return point_plane_distance_sq(p, t0, t1, t2);
    }
    return 0.0;
}

inline double point_triangle_distance_sq(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                         const Vec3& t2) {
    return point_triangle_distance_sq(p, t0, t1, t2, point_triangle_distance_type(p, t0, t1, t2));
}

/// Gradient of the distance of the given type (the smooth function of that type, also where
/// the pair has moved out of the type's region).
inline Vec12 point_triangle_distance_sq_gradient(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                                 const Vec3& t2, PointTriangleDistanceType type) {
    using T = PointTriangleDistanceType;
    switch (type) {
        case T::P_T0:
            return scatter_gradient<4, 2>(point_point_distance_sq_gradient(p, t0), {0, 1});
        case T::P_T1:
            return scatter_gradient<4, 2>(point_point_distance_sq_gradient(p, t1), {0, 2});
        case T::P_T2:
            return scatter_gradient<4, 2>(point_point_distance_sq_gradient(p, t2), {0, 3});
        case T::P_E0:
            return scatter_gradient<4, 3>(point_line_distance_sq_gradient(p, t0, t1), {0, 1, 2});
        case T::P_E1:
            return scatter_gradient<4, 3>(point_line_distance_sq_gradient(p, t1, t2), {0, 2, 3});
        case T::P_E2:
            return scatter_gradient<4, 3>(point_line_distance_sq_gradient(p, t2, t0), {0, 3, 1});
        case T::P_T:
            return point_plane_distance_sq_gradient(p, t0, t1, t2);
    }
    return Vec12::Zero();
}

inline Vec12 point_triangle_distance_sq_gradient(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                                 const Vec3& t2) {
    return point_triangle_distance_sq_gradient(p, t0, t1, t2,
                                               point_triangle_distance_type(p, t0, t1, t2));
}

inline Mat12 point_triangle_distance_sq_hessian(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                                const Vec3& t2, PointTriangleDistanceType type) {
    using T = PointTriangleDistanceType;
    switch (type) {
        case T::P_T0:
            return scatter_hessian<4, 2>(point_point_distance_sq_hessian(p, t0), {0, 1});
        case T::P_T1:
            return scatter_hessian<4, 2>(point_point_distance_sq_hessian(p, t1), {0, 2});
        case T::P_T2:
            return scatter_hessian<4, 2>(point_point_distance_sq_hessian(p, t2), {0, 3});
        case T::P_E0:
            return scatter_hessian<4, 3>(point_line_distance_sq_hessian(p, t0, t1), {0, 1, 2});
        case T::P_E1:
            return scatter_hessian<4, 3>(point_line_distance_sq_hessian(p, t1, t2), {0, 2, 3});
        case T::P_E2:
            return scatter_hessian<4, 3>(point_line_distance_sq_hessian(p, t2, t0), {0, 3, 1});
        case T::P_T:
            return point_plane_distance_sq_hessian(p, t0, t1, t2);
    }
    return Mat12::Zero();
}

inline Mat12 point_triangle_distance_sq_hessian(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                                const Vec3& t2) {
    return point_triangle_distance_sq_hessian(p, t0, t1, t2,
                                              point_triangle_distance_type(p, t0, t1, t2));
}

}  // namespace concord
