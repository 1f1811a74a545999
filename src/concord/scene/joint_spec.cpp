#include "concord/scene/joint_spec.hpp"

#include <cmath>

#include "concord/math/error.hpp"

namespace concord {

const char* joint_type_name(JointType t) {
    switch (t) {
        case JointType::Fixed: return "fixed";
        case JointType::Revolute: return "revolute";
        case JointType::Prismatic: return "prismatic";
        case JointType::Ball: return "ball";
    }
    return "?";
}

void validate_joint_spec(const JointSpec& spec, int num_bodies, const std::string& prefix) {
    for (const auto& [key, b] : {std::pair<const char*, int>{"parent", spec.parent}, {"child", spec.child}})
        if (b < -1 || b >= num_bodies)
            throw InputError(prefix + "." + key + ": body index " + std::to_string(b) +
                             " is not a body of the scene");
    if (spec.parent == spec.child)
        throw InputError(prefix + ".child: a joint needs two different bodies (or a body and the world)");
    if (!spec.parent_anchor.allFinite() || !spec.child_anchor.allFinite() ||
        (spec.world_anchor && !spec.world_anchor->allFinite()))
        throw InputError(prefix + ".anchor: must be finite");
    if (!spec.axis.allFinite() || spec.axis.norm() < 1e-12)
        throw InputError(prefix + ".axis: must be a finite non-zero vector");
    if (!(spec.stiffness >= 0.0) || !std::isfinite(spec.stiffness))
        throw InputError(prefix + ".stiffness: must be finite and >= 0");
    if (!(spec.orientation_length >= 0.0) || !std::isfinite(spec.orientation_length))
        throw InputError(prefix + ".orientation_length: must be finite and >= 0");
    const std::string type = joint_type_name(spec.type);
    if (spec.drive.enabled) {
        if (!has_coordinate(spec.type))
            throw InputError(prefix + ".drive: a " + type + " joint has no coordinate to drive");
        const JointDrive& d = spec.drive;
        if (!(d.ke >= 0.0) || !std::isfinite(d.ke)) throw InputError(prefix + ".drive.ke: must be finite and >= 0");
        if (!(d.kd >= 0.0) || !std::isfinite(d.kd)) throw InputError(prefix + ".drive.kd: must be finite and >= 0");
        if (!std::isfinite(d.target)) throw InputError(prefix + ".drive.target: must be finite");
        if (d.mode == DriveMode::Velocity && d.ke != 0.0)
            throw InputError(prefix + ".drive.ke: unused by a velocity drive (set kd)");
        validate_target_schedule(d.schedule, prefix + ".drive.schedule");
    }
    if (spec.limits.enabled) {
        if (!has_coordinate(spec.type))
            throw InputError(prefix + ".limits: a " + type + " joint has no coordinate to limit");
        const JointLimits& l = spec.limits;
        if (!std::isfinite(l.lower) || !std::isfinite(l.upper) || l.lower > l.upper)
            throw InputError(prefix + ".limits: need finite lower <= upper");
        if (!(l.stiffness >= 0.0) || !std::isfinite(l.stiffness))
            throw InputError(prefix + ".limits.stiffness: must be finite and >= 0");
    }
}

}  // namespace concord
