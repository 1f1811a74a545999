// Squared distance from a point to the infinite line through e0 and e1 (e0 != e1).
#pragma once

#include "concord/math/types.hpp"

namespace concord {

inline double point_line_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    const Vec3 e = e1 - e0;
    return (e0 - p).cross(e1 - p).squaredNorm() / e.squaredNorm();
}

}  // namespace concord
