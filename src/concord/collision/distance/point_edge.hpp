// Squared distance from a point to a segment, and its derivatives with respect to (p, e0, e1).
#pragma once

#include "concord/collision/distance/derivative_scatter.hpp"
#include "concord/collision/distance/distance_type.hpp"
#include "concord/collision/distance/point_line.hpp"
#include "concord/collision/distance/point_point.hpp"

namespace concord {

inline double point_edge_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1,
                                     PointEdgeDistanceType type) {
    switch (type) {
        case PointEdgeDistanceType::P_E0:
            return point_point_distance_sq(p, e0);
        case PointEdgeDistanceType::P_E1:
            return point_point_distance_sq(p, e1);
        case PointEdgeDistanceType::P_E:
            return point_line_distance_sq(p, e0, e1);
    }
    return 0.0;
}

inline double point_edge_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    return point_edge_distance_sq(p, e0, e1, point_edge_distance_type(p, e0, e1));
}

/// Gradient of the distance of the given type (the smooth function of that type, also where
/// the pair has moved out of the type's region).
inline Vec9 point_edge_distance_sq_gradient(const Vec3& p, const Vec3& e0, const Vec3& e1,
                                            PointEdgeDistanceType type) {
    switch (type) {
        case PointEdgeDistanceType::P_E0:
            return scatter_gradient<3, 2>(point_point_distance_sq_gradient(p, e0), {0, 1});
        case PointEdgeDistanceType::P_E1:
            return scatter_gradient<3, 2>(point_point_distance_sq_gradient(p, e1), {0, 2});
        case PointEdgeDistanceType::P_E:
            return point_line_distance_sq_gradient(p, e0, e1);
    }
    return Vec9::Zero();
}

inline Vec9 point_edge_distance_sq_gradient(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    return point_edge_distance_sq_gradient(p, e0, e1, point_edge_distance_type(p, e0, e1));
}

inline Mat9 point_edge_distance_sq_hessian(const Vec3& p, const Vec3& e0, const Vec3& e1,
                                           PointEdgeDistanceType type) {
    switch (type) {
        case PointEdgeDistanceType::P_E0:
            return scatter_hessian<3, 2>(point_point_distance_sq_hessian(p, e0), {0, 1});
        case PointEdgeDistanceType::P_E1:
            return scatter_hessian<3, 2>(point_point_distance_sq_hessian(p, e1), {0, 2});
        case PointEdgeDistanceType::P_E:
            return point_line_distance_sq_hessian(p, e0, e1);
    }
    return Mat9::Zero();
}

inline Mat9 point_edge_distance_sq_hessian(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    return point_edge_distance_sq_hessian(p, e0, e1, point_edge_distance_type(p, e0, e1));
}

}  // namespace concord
