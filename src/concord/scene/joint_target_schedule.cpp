#include "concord/scene/joint_target_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "concord/math/error.hpp"

namespace concord {

double JointTargetSchedule::value(double t) const {
    switch (kind) {
        case TargetScheduleKind::None:
            return 0.0;
        case TargetScheduleKind::Sinusoidal:
            return offset + amplitude * std::sin(2.0 * std::numbers::pi * frequency * t + phase);
        case TargetScheduleKind::PiecewiseLinear: {
            if (keyframes.empty()) return 0.0;
            if (t <= keyframes.front().time) return keyframes.front().value;
            if (t >= keyframes.back().time) return keyframes.back().value;
            // First keyframe strictly after t; the one before it starts the segment.
            const auto hi = std::upper_bound(
                keyframes.begin(), keyframes.end(), t,
                [](double time, const TargetKeyframe& k) { return time < k.time; });
            const auto lo = hi - 1;
            const double s = (t - lo->time) / (hi->time - lo->time);
            return lo->value + s * (hi->value - lo->value);
        }
    }
    return 0.0;
}

void validate_target_schedule(const JointTargetSchedule& schedule, const std::string& prefix) {
    switch (schedule.kind) {
        case TargetScheduleKind::None:
            return;
        case TargetScheduleKind::Sinusoidal:
            for (const auto& [key, v] :
                 {std::pair<const char*, double>{"offset", schedule.offset},
                  {"amplitude", schedule.amplitude},
                  {"frequency", schedule.frequency},
                  {"phase", schedule.phase}})
                if (!std::isfinite(v)) throw InputError(prefix + "." + key + ": must be finite");
            return;
        case TargetScheduleKind::PiecewiseLinear:
            if (schedule.keyframes.empty())
                throw InputError(prefix + ".keyframes: at least one keyframe is needed");
            for (std::size_t i = 0; i < schedule.keyframes.size(); ++i) {
                const TargetKeyframe& k = schedule.keyframes[i];
                const std::string at = prefix + ".keyframes[" + std::to_string(i) + "]";
                if (!std::isfinite(k.time) || !std::isfinite(k.value))
                    throw InputError(at + ": time and value must be finite");
                if (i > 0 && k.time <= schedule.keyframes[i - 1].time)
                    throw InputError(at + ".time: keyframe times must be strictly increasing");
            }
            return;
    }
}

}  // namespace concord
