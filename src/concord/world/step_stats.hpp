// What one time step did: reported per frame in frames.jsonl and by World::last_stats().
#pragma once

#include <limits>
#include <vector>

namespace concord {

struct StepStats {
    int newton_iterations = 0;
    bool converged = false;       ///< Newton met its tolerance before max_iterations
    int contacts = 0;             ///< active barrier pairs (distance < dhat) at the end of the step
    int candidates = 0;           ///< broad-phase candidate pairs (peak over the step)
    double min_distance = std::numeric_limits<double>::infinity();  ///< over all contact pairs, m
    double barrier_stiffness = 0.0;
    int line_search_trials = 0;   ///< energy evaluations in line searches
    int ccd_limited_steps = 0;    ///< Newton iterations whose step was capped by CCD
    int linear_solver_iterations = 0;
    double t_coll = 0.0;          ///< broad phase + CCD + contact set, s
    double t_solve = 0.0;         ///< assembly + linear solves + line search energy, s
    double t_frame = 0.0;         ///< whole step, s
};

}  // namespace concord
