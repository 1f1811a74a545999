// Squared distance between two points.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

inline double point_point_distance_sq(const Vec3& a, const Vec3& b) { return (a - b).squaredNorm(); }

}  // namespace concord
