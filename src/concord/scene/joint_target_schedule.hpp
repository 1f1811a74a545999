// Kinematic drivers: a joint drive's target as a function of time (docs/joints.md).
#pragma once

#include <string>
#include <vector>

namespace concord {

enum class TargetScheduleKind {
    None,             ///< no schedule: the drive keeps its constant target
    PiecewiseLinear,  ///< linear between keyframes, held at the end values outside them
    Sinusoidal,       ///< offset + amplitude sin(2 pi frequency t + phase)
};

/// One (time, value) keyframe of a piecewise-linear schedule.
struct TargetKeyframe {
    double time = 0.0;   ///< s
    double value = 0.0;  ///< rad or m (position drives), rad/s or m/s (velocity drives)

    bool operator==(const TargetKeyframe&) const = default;
};

struct JointTargetSchedule {
    TargetScheduleKind kind = TargetScheduleKind::None;
    /// PiecewiseLinear: at least one keyframe, times strictly increasing.
    std::vector<TargetKeyframe> keyframes;
    // Sinusoidal: offset + amplitude sin(2 pi frequency t + phase).
    double offset = 0.0;
    double amplitude = 0.0;
    double frequency = 0.0;  ///< Hz
    double phase = 0.0;      ///< rad

    bool empty() const { return kind == TargetScheduleKind::None; }
    /// The target at time t (s). Not defined for kind None (returns 0).
    double value(double t) const;

    bool operator==(const JointTargetSchedule&) const = default;
};

/// Throws InputError "<prefix>.<key>: ..." for no keyframes, times that are not strictly
/// increasing, or non-finite numbers.
void validate_target_schedule(const JointTargetSchedule& schedule, const std::string& prefix);

}  // namespace concord
