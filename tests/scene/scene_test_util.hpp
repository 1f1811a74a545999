// Helpers shared by the scene tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "concord/math/error.hpp"
#include "concord/scene/scene_parser.hpp"

namespace concord::test {

inline std::string scene_data_dir() {
    return std::string(CONCORD_SOURCE_DIR) + "/tests/scene/data";
}

/// Parses scene text as if it came from "a.json" in tests/scene/data.
inline SceneSpec parse_text(const std::string& text) {
    return parse_scene(nlohmann::json::parse(text), "a.json", scene_data_dir());
}

/// Passes when `part` occurs in `text`; the failure message shows the whole text.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << part << "\" not found in \"" << text << "\"";
}

/// The InputError message `f` throws, or a failure when it throws nothing.
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an InputError";
    return "";
}

/// The message of parsing `text`; the test fails unless parsing throws InputError.
inline std::string parse_error(const std::string& text) {
    return error_of([&] { parse_text(text); });
}

/// A scene that uses every feature, with mesh paths made absolute so the round trip is exact.
inline std::string full_scene_text() {
    std::string cube =
        std::filesystem::absolute(test::scene_data_dir() + "/cube.obj").lexically_normal().string();
    return R"({
      "name": "everything", "time_step": 0.005, "frames": 12, "substeps": 2, "gravity": [0, 0, -9.8],
      "contact": {"dhat": 2e-3, "friction": 0.3, "friction_velocity": 1e-4,
                  "friction_iterations": 3, "barrier_stiffness": 1e6, "exclude": [["can", "pill"]]},
      "solver": {"max_iterations": 20, "tolerance": 1e-4, "linear_solver": "ldlt"},
      "materials": {"steel": {"density": 7800, "youngs_modulus": 2e11}, "foam": {"density": 30}},
      "planes": [{"point": [0, 0, -1], "normal": [0.1, 0.2, 1], "friction": 0.9}, {}],
      "bodies": [
        {"name": "crate", "shape": {"box": {"size": [0.3, 0.2, 0.1]}}, "material": "steel",
         "rotation": {"quaternion": [0.9, 0.1, -0.3, 0.2]}, "velocity": [1, 0, 0],
         "angular_velocity": [0.1, 0.2, 0.3], "external_force": [0, 0, 1], "friction": 0.25,
         "array": {"count": [3, 2, 1], "spacing": [0.5, 0.5, 0],
                   "jitter": {"position": 0.01, "rotation_deg": 5, "seed": 77}}},
        {"name": "ball", "shape": {"sphere": {"radius": 0.1, "subdivisions": 1}}, "position": [5, 0, 0],
         "material": {"density": 500, "youngs_modulus": 1e7}},
        {"name": "can", "shape": {"cylinder": {"radius": 0.1, "height": 0.3}}, "position": [6, 0, 0]},
        {"name": "dumbbell", "shape": {"compound": {"parts": [
           {"shape": {"sphere": {"radius": 0.1}}, "position": [-0.2, 0, 0]},
           {"shape": {"cylinder": {"radius": 0.02, "height": 0.3}}, "rotation": {"axis": [0, 0, 1], "angle_deg": 90}},
           {"shape": {"sphere": {"radius": 0.1}}, "position": [0.2, 0, 0]}]}},
         "inertia": {"mass": 2, "center_of_mass": [0, 0.01, 0],
                     "inertia": [[0.01, 0, 0], [0, 0.05, 0.001], [0, 0.001, 0.05]]},
         "position": [6, 2, 0]},
        {"name": "pill", "shape": {"capsule": {"radius": 0.1, "height": 0.2}}, "position": [7, 0, 0]},
        {"name": "ring", "shape": {"torus": {"major_radius": 0.3, "minor_radius": 0.05}}, "position": [8, 0, 0]},
        {"name": "cube", "shape": {"mesh": {"file": ")" +
           cube + R"(", "scale": [1, 2, 3]}}, "position": [9, 0, 0]},
        {"name": "bin", "shape": {"container": {"size": [1, 1, 1]}}, "motion": "static", "position": [0, 0, -5]},
        {"name": "hopper", "shape": {"funnel": {}}, "motion": "kinematic", "position": [0, 5, 0],
         "kinematic": {"angular_velocity": [0, 1, 0], "pivot": [0, 4, 0]}},
        {"name": "arm", "shape": {"box": {}}, "motion": "kinematic", "position": [3, 3, 3],
         "rotation": {"axis": [1, 1, 0], "angle_deg": 33},
         "kinematic": {"keyframes": [{"time": 0}, {"time": 0.5, "position": [3, 4, 3],
                        "rotation": {"axis": [0, 0, 1], "angle_deg": 10}}]}}],
    "fluids": [{"name": "water", "block": {"min": [20, 0, 0], "max": [21, 1, 1]},
                "particle_radius": 0.05, "velocity": [0, -1, 0]},
               {"name": "drop", "mesh": {"path": ")" + cube + R"(", "scale": [0.5, 0.5, 0.5]}}]})";
}

}  // namespace concord::test
