#include "concord/io/step_stats_json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace concord {

nlohmann::json step_stats_to_json(const StepStats& s) {
    nlohmann::json min_distance = nullptr;
    if (std::isfinite(s.min_distance)) min_distance = s.min_distance;
    return nlohmann::json{
        {"newton_iterations", s.newton_iterations},
        {"converged", s.converged},
        {"contacts", s.contacts},
        {"candidates", s.candidates},
        {"min_distance", min_distance},
        {"barrier_stiffness", s.barrier_stiffness},
        {"line_search_trials", s.line_search_trials},
        {"ccd_limited_steps", s.ccd_limited_steps},
        {"linear_solver_iterations", s.linear_solver_iterations},
        {"t_coll", s.t_coll},
        {"t_solve", s.t_solve},
        {"t_frame", s.t_frame},
    };
}

StepStats step_stats_from_json(const JsonNode& node) {
    if (!node.value().is_object()) node.fail("expected an object, got " + node.describe());
    StepStats s;
    constexpr int kMaxCount = std::numeric_limits<int>::max();
    auto count = [&](const char* key, int& field) {
        if (auto n = node.find(key)) field = n->integer(0, kMaxCount);
    };
    auto seconds = [&](const char* key, double& field) {
        if (auto n = node.find(key)) field = n->non_negative_number();
    };
    count("newton_iterations", s.newton_iterations);
    count("contacts", s.contacts);
    count("candidates", s.candidates);
    count("line_search_trials", s.line_search_trials);
    count("ccd_limited_steps", s.ccd_limited_steps);
    count("linear_solver_iterations", s.linear_solver_iterations);
    if (auto n = node.find("converged")) s.converged = n->boolean();
    if (auto n = node.find("min_distance"); n && !n->value().is_null()) {
        s.min_distance = n->non_negative_number();
    }
    if (auto n = node.find("barrier_stiffness")) s.barrier_stiffness = n->non_negative_number();
    seconds("t_coll", s.t_coll);
    seconds("t_solve", s.t_solve);
    seconds("t_frame", s.t_frame);
    return s;
}

void accumulate_substep(StepStats& frame, const StepStats& step, bool first) {
    if (first) {
        frame = step;
        return;
    }
    frame.newton_iterations += step.newton_iterations;
    frame.converged = frame.converged && step.converged;
    frame.contacts = step.contacts;
    frame.candidates = std::max(frame.candidates, step.candidates);
    frame.min_distance = std::min(frame.min_distance, step.min_distance);
    frame.barrier_stiffness = step.barrier_stiffness;
    frame.line_search_trials += step.line_search_trials;
    frame.ccd_limited_steps += step.ccd_limited_steps;
    frame.linear_solver_iterations += step.linear_solver_iterations;
    frame.t_coll += step.t_coll;
    frame.t_solve += step.t_solve;
    frame.t_frame += step.t_frame;
}

}  // namespace concord
