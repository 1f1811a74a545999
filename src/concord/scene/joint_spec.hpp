// What a joint is (scene key "joints", docs/joints.md): plain documented structs in the
// spirit of MuJoCo's joint / actuator attributes. JointEnergy turns them into penalty energies.
#pragma once

#include <optional>
#include <string>

#include "concord/scene/joint_target_schedule.hpp"
#include "concord/math/types.hpp"

namespace concord {

enum class JointType {
    Fixed,      ///< welds child to parent: anchors coincide, relative orientation locked
    Revolute,   ///< hinge: anchors coincide, the axis is shared, rotation about it is free
    Prismatic,  ///< slider: relative orientation locked, the child anchor moves on the axis line
    Ball,       ///< spherical: anchors coincide, orientation free
};

enum class DriveMode {
    Position,  ///< spring ke to the target coordinate, damper kd to zero coordinate velocity
    Velocity,  ///< damper kd to the target coordinate velocity (ke must be 0)
};

/// A drive on the joint coordinate (revolute angle theta in rad, prismatic slide s in m).
struct JointDrive {
    bool enabled = false;
    DriveMode mode = DriveMode::Position;
    /// rad or m (Position), rad/s or m/s (Velocity). Ignored when `schedule` is not empty.
    double target = 0.0;
    /// Target over time (kinematic driver); evaluated at the end of each step.
    JointTargetSchedule schedule;
    double ke = 0.0;  ///< N m/rad (revolute) or N/m (prismatic), >= 0
    double kd = 0.0;  ///< N m s/rad or N s/m, >= 0

    bool operator==(const JointDrive&) const = default;
};

/// Range of the joint coordinate, enforced by a one-sided quadratic penalty outside it.
struct JointLimits {
    bool enabled = false;
    double lower = 0.0;  ///< rad or m
    double upper = 0.0;  ///< rad or m, >= lower
    /// Penalty stiffness, N m/rad or N/m; 0: the joint's own coordinate stiffness
    /// (k L^2 for revolute, k for prismatic, k the joint stiffness).
    double stiffness = 0.0;

    bool operator==(const JointLimits&) const = default;
};

struct JointSpec {
    std::string name;
    JointType type = JointType::Fixed;
    int parent = -1;  ///< body index; -1: the world
    int child = -1;   ///< body index (-1, the world, is allowed when parent is a body)
    /// Anchor in each body's local coordinates (used when world_anchor is not set).
    Vec3 parent_anchor = Vec3::Zero();
    Vec3 child_anchor = Vec3::Zero();
    /// One anchor in world coordinates at the initial state, converted to both bodies' local
    /// coordinates with their initial frames (modal coordinates taken as zero).
    std::optional<Vec3> world_anchor;
    /// Revolute / prismatic axis in world coordinates at the initial state (normalised).
    Vec3 axis = Vec3::UnitZ();
    JointDrive drive;    ///< revolute and prismatic only
    JointLimits limits;  ///< revolute and prismatic only
    /// Penalty stiffness k, N/m; 0: automatic, k = w m_eff / h^2 (JointEnergy).
    double stiffness = 0.0;
    /// Length L that turns orientation errors into displacements, m; 0: automatic (the
    /// smallest characteristic length of the joint's movable bodies).
    double orientation_length = 0.0;

    bool operator==(const JointSpec&) const = default;
};

/// True for the types with a coordinate (revolute angle, prismatic slide).
inline bool has_coordinate(JointType t) { return t == JointType::Revolute || t == JointType::Prismatic; }

const char* joint_type_name(JointType t);

/// Throws InputError "<prefix>.<key>: ..." for body indices outside [-1, num_bodies), a joint
/// between a body and itself or between the world and itself, a zero or non-finite axis,
/// drives or limits on fixed and ball joints, negative gains or stiffness, lower > upper, ke in
/// velocity mode, or a bad schedule.
void validate_joint_spec(const JointSpec& spec, int num_bodies, const std::string& prefix);

}  // namespace concord
