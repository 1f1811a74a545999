// Squared distance between the infinite lines through two non-parallel edges.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

inline double line_line_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                    const Vec3& eb1) {
    const Vec3 n = (ea1 - ea0).cross(eb1 - eb0);
    const double s = n.dot(eb0 - ea0);
    return s * s / n.squaredNorm();
}

}  // namespace concord
