// Exact (rational) facts about a CCD query's trajectories, used to give generated queries a
// ground truth that is proven rather than estimated. All arithmetic is on the query's doubles
// taken as exact rationals (GMP), so the answers hold for the numbers in the file.
#pragma once

#include "concord/collision/ccd/ccd_query.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// True iff the two primitives share a point at time t (t itself taken exactly); this proves a
/// ground truth of 1 when 0 <= t <= 1. Zero-area triangles and zero-length edges are handled.
bool primitives_touch_at(const CCDQuery& query, double t);

/// True iff some plane with the fixed normal `normal` and an offset moving linearly in time has
/// one primitive strictly on one side and the other strictly on the other side, both at t = 0
/// and at t = 1. Every vertex's signed height over such a plane is linear in t, and so is that
/// of every point of a primitive, so the separation then holds on all of [0, 1]: this proves a
/// ground truth of 0.
bool separated_by_moving_plane(const CCDQuery& query, const Vec3& normal);

}  // namespace concord
