// Point-triangle and edge-edge distances together with a bound on how far the computed value can
// be from the true one, for CCD, which must never trust a distance more than floating point
// allows.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

/// A computed distance and a bound on its error: the true distance of the (exact) input lies
/// within `uncertainty` of `distance`, apart from rounding of order
/// rounding_tolerance * (size of the configuration), which the caller adds (it knows the size).
struct DistanceEstimate {
    double distance = 0.0;
    double uncertainty = 0.0;
};

/// Distance between a point and a triangle. The closest-feature formulas divide by the
/// triangle's area, so slivers amplify rounding by about (size)^3 / |n|; when that exceeds the
/// sliver's own width |n| / (longest edge), the triangle is taken as its three edges instead
/// (exact for zero area, off by at most that width otherwise). `rounding_tolerance` is the
/// relative precision assumed of each arithmetic result (see CCDParams::rounding_tolerance).
DistanceEstimate point_triangle_distance_estimate(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                                  const Vec3& t2, double rounding_tolerance);

/// Distance between two segments. For edges at angle theta the classification and the
/// line-line formula lose about (size) / sin(theta) times the rounding; when that exceeds
/// 2 * (longer edge) * sin(theta), the bound on what the four endpoint-to-segment distances can
/// overestimate for nearly parallel edges, those are used instead. Zero-length edges are points.
DistanceEstimate edge_edge_distance_estimate(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                             const Vec3& eb1, double rounding_tolerance);

}  // namespace concord
