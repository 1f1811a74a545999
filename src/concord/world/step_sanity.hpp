// A step that input makes absurd ends with a clear message instead of running for hours
// (issue 18, bounded work): a time step or a velocity that would carry a body farther in one
// step than many times the whole scene is large. Such a step is not a simulation any more, and
// its continuous collision queries would crawl across the distance in steps of d-hat.
#pragma once

#include <vector>

#include "concord/world/world_model.hpp"
#include "concord/world/world_state.hpp"

namespace concord {

/// How far, in scene sizes (WorldModel::scene_scale), one step may carry a body.
inline constexpr double kMaxStepMotionInSceneSizes = 100.0;

/// Throws InputError naming the body, the distance and the scene's size when a step of length h
/// from `state` would move a dynamic body (by its velocity and its external acceleration,
/// h q_dot + h^2 a) farther than kMaxStepMotionInSceneSizes scene sizes. A non-finite motion
/// (a non-finite force) is left to the solver, whose step then diverges without a change.
void check_step_motion(const WorldModel& model, const WorldState& state, double h,
                       const std::vector<Vec12>& external_acceleration);

}  // namespace concord
