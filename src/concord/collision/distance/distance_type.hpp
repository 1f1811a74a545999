// Which pair of closest features realises the distance between a point and a triangle, or
// between two edges. Each type maps to one smooth distance function (point-point, point-line,
// point-plane or line-line), which is what gives the distance its gradient and Hessian.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

enum class PointTriangleDistanceType {
    P_T0,  ///< closest to vertex t0
    P_T1,
    P_T2,
    P_E0,  ///< closest to the interior of edge t0-t1
    P_E1,  ///< edge t1-t2
    P_E2,  ///< edge t2-t0
    P_T,   ///< closest to the triangle's interior (point-plane distance)
};

enum class PointEdgeDistanceType {
    P_E0,  ///< closest to endpoint e0
    P_E1,  ///< closest to endpoint e1
    P_E,   ///< closest to the edge's interior (point-line distance)
};

enum class EdgeEdgeDistanceType {
    EA0_EB0,  ///< vertex-vertex
    EA0_EB1,
    EA1_EB0,
    EA1_EB1,
    EA_EB0,  ///< interior of edge a to vertex eb0 (point-line)
    EA_EB1,
    EA0_EB,  ///< vertex ea0 to the interior of edge b (point-line)
    EA1_EB,
    EA_EB,  ///< interior to interior (line-line)
};

PointEdgeDistanceType point_edge_distance_type(const Vec3& p, const Vec3& e0, const Vec3& e1);

PointTriangleDistanceType point_triangle_distance_type(const Vec3& p, const Vec3& t0,
                                                       const Vec3& t1, const Vec3& t2);

/// Nearly parallel edges (|ea x eb|^2 below a relative threshold) never get EA_EB: the
/// line-line distance is ill-conditioned there and one of the point-edge types is used instead.
EdgeEdgeDistanceType edge_edge_distance_type(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                             const Vec3& eb1);

}  // namespace concord
