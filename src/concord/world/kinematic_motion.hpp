// Prescribed rigid motion of kinematic bodies.
#pragma once

#include "concord/math/types.hpp"
#include "concord/scene/scene_spec.hpp"

namespace concord {

/// Affine state (rigid: A a rotation) of a kinematic body at time t. `q0` is its initial
/// state. With keyframes the pose is interpolated (positions linearly, rotations by slerp) and
/// held outside the keyframe range; otherwise it rotates with constant angular velocity about
/// the pivot while the pivot moves with the linear velocity.
Vec12 kinematic_state(const KinematicSpec& k, const Vec12& q0, double t);

/// Rotation by angle |w| t about axis w / |w| (identity for w = 0).
Mat3 rotation_from_angular_velocity(const Vec3& w, double t);

}  // namespace concord
