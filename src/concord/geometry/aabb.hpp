// Axis-aligned bounding boxes.
#pragma once

#include <algorithm>
#include <limits>

#include "concord/math/types.hpp"

namespace concord {

struct AABB {
    Vec3 min = Vec3::Constant(std::numeric_limits<double>::infinity());
    Vec3 max = Vec3::Constant(-std::numeric_limits<double>::infinity());

    AABB() = default;
    AABB(const Vec3& lo, const Vec3& hi) : min(lo), max(hi) {}

    bool empty() const { return (min.array() > max.array()).any(); }
    void expand(const Vec3& p) {
        min = min.cwiseMin(p);
        max = max.cwiseMax(p);
    }
    void expand(const AABB& b) {
        min = min.cwiseMin(b.min);
        max = max.cwiseMax(b.max);
    }
    /// Grows the box by r in every direction (e.g. the contact activation distance).
    void inflate(double r) {
        min.array() -= r;
        max.array() += r;
    }
    /// Closed-interval overlap: boxes that only touch do overlap.
    bool overlaps(const AABB& b) const {
        return (min.array() <= b.max.array()).all() && (b.min.array() <= max.array()).all();
    }
    Vec3 center() const { return 0.5 * (min + max); }
    Vec3 extent() const { return max - min; }
    double diagonal() const { return empty() ? 0.0 : (max - min).norm(); }
};

}  // namespace concord
