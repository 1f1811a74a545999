// Squared distance from a point to the plane through a non-degenerate triangle t0 t1 t2.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

inline double point_plane_distance_sq(const Vec3& p, const Vec3& t0, const Vec3& t1,
                                      const Vec3& t2) {
    const Vec3 n = (t1 - t0).cross(t2 - t0);
    const double s = n.dot(p - t0);
    return s * s / n.squaredNorm();
}

}  // namespace concord
