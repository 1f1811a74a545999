// Squared distance between two segments (without the parallel-edge mollifier).
#pragma once

#include "concord/collision/distance/distance_type.hpp"
#include "concord/collision/distance/line_line.hpp"
#include "concord/collision/distance/point_line.hpp"
#include "concord/collision/distance/point_point.hpp"

namespace concord {

inline double edge_edge_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                    const Vec3& eb1, EdgeEdgeDistanceType type) {
    using T = EdgeEdgeDistanceType;
    switch (type) {
        case T::EA0_EB0: return point_point_distance_sq(ea0, eb0);
        case T::EA0_EB1: return point_point_distance_sq(ea0, eb1);
        case T::EA1_EB0: return point_point_distance_sq(ea1, eb0);
        case T::EA1_EB1: return point_point_distance_sq(ea1, eb1);
        case T::EA_EB0: return point_line_distance_sq(eb0, ea0, ea1);
        case T::EA_EB1: return point_line_distance_sq(eb1, ea0, ea1);
        case T::EA0_EB: return point_line_distance_sq(ea0, eb0, eb1);
        case T::EA1_EB: return point_line_distance_sq(ea1, eb0, eb1);
        case T::EA_EB: return line_line_distance_sq(ea0, ea1, eb0, eb1);
    }
    return 0.0;
}

inline double edge_edge_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                    const Vec3& eb1) {
    return edge_edge_distance_sq(ea0, ea1, eb0, eb1, edge_edge_distance_type(ea0, ea1, eb0, eb1));
}

}  // namespace concord
