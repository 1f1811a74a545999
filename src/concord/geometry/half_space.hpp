// A half-space boundary (a ground or wall plane) shared by the simulator's contact model and
// the intersection audit.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

/// Bodies stay on the side dot(x - point, normal) > 0; the solid is dot(x - point, normal) < 0.
/// The normal need not be exactly unit: the plane is the exact zero set of that expression for
/// the stored doubles (which the exact audit relies on).
struct HalfSpace {
    Vec3 point = Vec3::Zero();
    Vec3 normal = Vec3::UnitY();
};

}  // namespace concord
