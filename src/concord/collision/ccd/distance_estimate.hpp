// Point-triangle and edge-edge distances together with the size of their rounding error, for
// CCD, which must never trust a computed distance by more than floating point allows.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

/// A computed distance and the length its rounding error scales with: the closest-feature
/// formulas divide by a cross product or an edge length, so near-parallel edges, slivers and
/// short edges amplify rounding. The true distance lies within
/// `rounding_tolerance * (error_scale + size of the configuration)` of `distance` (see
/// CCDParams::rounding_tolerance).
struct DistanceEstimate {
    double distance = 0.0;
    double error_scale = 0.0;
};

/// Distance between a point and a triangle; zero-area triangles are treated as the union of
/// their edges.
DistanceEstimate point_triangle_distance_estimate(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                                  const Vec3& t2);

/// Distance between two segments; zero-length edges are points.
DistanceEstimate edge_edge_distance_estimate(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                             const Vec3& eb1);

}  // namespace concord
