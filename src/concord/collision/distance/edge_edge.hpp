// Squared distance between two segments (without the parallel-edge mollifier), and its
// derivatives with respect to (ea0, ea1, eb0, eb1).
#pragma once

#include "concord/collision/distance/derivative_scatter.hpp"
#include "concord/collision/distance/distance_type.hpp"
#include "concord/collision/distance/line_line.hpp"
#include "concord/collision/distance/point_line.hpp"
#include "concord/collision/distance/point_point.hpp"

namespace concord {

inline double edge_edge_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                    const Vec3& eb1, EdgeEdgeDistanceType type) {
    using T = EdgeEdgeDistanceType;
    switch (type) {
        case T::EA0_EB0:
            return point_point_distance_sq(ea0, eb0);
        case T::EA0_EB1:
            return point_point_distance_sq(ea0, eb1);
        case T::EA1_EB0:
            return point_point_distance_sq(ea1, eb0);
        case T::EA1_EB1:
            return point_point_distance_sq(ea1, eb1);
        case T::EA_EB0:
            return point_line_distance_sq(eb0, ea0, ea1);
        case T::EA_EB1:
            return point_line_distance_sq(eb1, ea0, ea1);
        case T::EA0_EB:
            return point_line_distance_sq(ea0, eb0, eb1);
        case T::EA1_EB:
            return point_line_distance_sq(ea1, eb0, eb1);
        case T::EA_EB:
            return line_line_distance_sq(ea0, ea1, eb0, eb1);
    }
    return 0.0;
}

inline double edge_edge_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                    const Vec3& eb1) {
    return edge_edge_distance_sq(ea0, ea1, eb0, eb1, edge_edge_distance_type(ea0, ea1, eb0, eb1));
}

/// Gradient of the distance of the given type (the smooth function of that type, also where
/// the pair has moved out of the type's region).
inline Vec12 edge_edge_distance_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                            const Vec3& eb1, EdgeEdgeDistanceType type) {
    using T = EdgeEdgeDistanceType;
    switch (type) {
        case T::EA0_EB0:
            return scatter_gradient<4, 2>(point_point_distance_sq_gradient(ea0, eb0), {0, 2});
        case T::EA0_EB1:
            return scatter_gradient<4, 2>(point_point_distance_sq_gradient(ea0, eb1), {0, 3});
        case T::EA1_EB0:
            return scatter_gradient<4, 2>(point_point_distance_sq_gradient(ea1, eb0), {1, 2});
        case T::EA1_EB1:
            return scatter_gradient<4, 2>(point_point_distance_sq_gradient(ea1, eb1), {1, 3});
        case T::EA_EB0:
            return scatter_gradient<4, 3>(point_line_distance_sq_gradient(eb0, ea0, ea1),
                                          {2, 0, 1});
        case T::EA_EB1:
            return scatter_gradient<4, 3>(point_line_distance_sq_gradient(eb1, ea0, ea1),
                                          {3, 0, 1});
        case T::EA0_EB:
            return scatter_gradient<4, 3>(point_line_distance_sq_gradient(ea0, eb0, eb1),
                                          {0, 2, 3});
        case T::EA1_EB:
            return scatter_gradient<4, 3>(point_line_distance_sq_gradient(ea1, eb0, eb1),
                                          {1, 2, 3});
        case T::EA_EB:
            return line_line_distance_sq_gradient(ea0, ea1, eb0, eb1);
    }
    return Vec12::Zero();
}

inline Vec12 edge_edge_distance_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                            const Vec3& eb1) {
    return edge_edge_distance_sq_gradient(ea0, ea1, eb0, eb1,
                                          edge_edge_distance_type(ea0, ea1, eb0, eb1));
}

inline Mat12 edge_edge_distance_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                           const Vec3& eb1, EdgeEdgeDistanceType type) {
    using T = EdgeEdgeDistanceType;
    switch (type) {
        case T::EA0_EB0:
            return scatter_hessian<4, 2>(point_point_distance_sq_hessian(ea0, eb0), {0, 2});
        case T::EA0_EB1:
            return scatter_hessian<4, 2>(point_point_distance_sq_hessian(ea0, eb1), {0, 3});
        case T::EA1_EB0:
            return scatter_hessian<4, 2>(point_point_distance_sq_hessian(ea1, eb0), {1, 2});
        case T::EA1_EB1:
            return scatter_hessian<4, 2>(point_point_distance_sq_hessian(ea1, eb1), {1, 3});
        case T::EA_EB0:
            return scatter_hessian<4, 3>(point_line_distance_sq_hessian(eb0, ea0, ea1), {2, 0, 1});
        case T::EA_EB1:
            return scatter_hessian<4, 3>(point_line_distance_sq_hessian(eb1, ea0, ea1), {3, 0, 1});
        case T::EA0_EB:
            return scatter_hessian<4, 3>(point_line_distance_sq_hessian(ea0, eb0, eb1), {0, 2, 3});
        case T::EA1_EB:
            return scatter_hessian<4, 3>(point_line_distance_sq_hessian(ea1, eb0, eb1), {1, 2, 3});
        case T::EA_EB:
            return line_line_distance_sq_hessian(ea0, ea1, eb0, eb1);
    }
    return Mat12::Zero();
}

inline Mat12 edge_edge_distance_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                           const Vec3& eb1) {
    return edge_edge_distance_sq_hessian(ea0, ea1, eb0, eb1,
                                         edge_edge_distance_type(ea0, ea1, eb0, eb1));
}

}  // namespace concord
