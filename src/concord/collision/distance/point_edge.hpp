// Squared distance from a point to a segment.
#pragma once

#include "concord/collision/distance/distance_type.hpp"
#include "concord/collision/distance/point_line.hpp"
#include "concord/collision/distance/point_point.hpp"

namespace concord {

inline double point_edge_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1,
                                     PointEdgeDistanceType type) {
    switch (type) {
        case PointEdgeDistanceType::P_E0: return point_point_distance_sq(p, e0);
        case PointEdgeDistanceType::P_E1: return point_point_distance_sq(p, e1);
        case PointEdgeDistanceType::P_E: return point_line_distance_sq(p, e0, e1);
    }
    return 0.0;
}

inline double point_edge_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    return point_edge_distance_sq(p, e0, e1, point_edge_distance_type(p, e0, e1));
}

}  // namespace concord
