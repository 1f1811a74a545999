#include "concord/world/step_sanity.hpp"

#include <cmath>

#include <fmt/format.h>

#include "concord/body/body_motion.hpp"
#include "concord/math/error.hpp"

namespace concord {

void check_step_motion(const WorldModel& model, const WorldState& state, double h,
                       const std::vector<Vec12>& external_acceleration) {
    const double limit = kMaxStepMotionInSceneSizes * model.scene_scale;
    for (int b = 0; b < model.num_bodies(); ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (!model.movable[i] || model.kinematic[i]) continue;
        VecX d = h * model.body_coordinates(state.q_dot, b);
        if (i < external_acceleration.size()) d.head<12>() += h * h * external_acceleration[i];
        const double reach = body_displacement(model.bodies[i], d);
        // A non-finite force is the solver's to report (the step diverges, the state stays).
        if (std::isfinite(reach) && reach > limit)
            throw InputError(fmt::format(
                "a time step of {:g} s would move body \"{}\" about {:.3g} m, more than {:g} "
                "times the scene's size ({:.3g} m): lower time_step, or the body's velocity",
                h, model.bodies[i].name, reach, kMaxStepMotionInSceneSizes, model.scene_scale));
    }
}

}  // namespace concord
