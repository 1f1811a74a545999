// The resolved scene: scene_to_json writes every default, expands arrays, and parses back to the
// same SceneSpec.
#include <gtest/gtest.h>

#include <filesystem>

#include "concord/scene/scene_json.hpp"
#include "scene_test_util.hpp"

namespace concord {
namespace {

using test::parse_text;

/// A scene that uses every feature, with mesh paths made absolute so the round trip is exact.
std::string full_scene_text() {
    std::string cube =
        std::filesystem::absolute(test::scene_data_dir() + "/cube.obj").lexically_normal().string();
    return R"({
      "name": "everything", "time_step": 0.005, "frames": 12, "substeps": 2, "gravity": [0, 0, -9.8],
      "contact": {"dhat": 2e-3, "friction": 0.3, "friction_velocity": 1e-4,
                  "friction_iterations": 3, "barrier_stiffness": 1e6},
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
                        "rotation": {"axis": [0, 0, 1], "angle_deg": 10}}]}}]})";
}

TEST(SceneJson, RoundTripIsExact) {
    SceneSpec s = parse_text(full_scene_text());
    ASSERT_EQ(s.bodies.size(), 14u);
    nlohmann::json j = scene_to_json(s);
    SceneSpec back = parse_scene(j, "a.json", test::scene_data_dir());
    EXPECT_EQ(back, s);
    // And through text, as written to and read from an output directory.
    SceneSpec from_text = parse_scene(nlohmann::json::parse(j.dump()), "a.json", "");
    EXPECT_EQ(from_text, s);
    EXPECT_EQ(scene_to_json(from_text), j);
}

TEST(SceneJson, EqualityNoticesChanges) {
    // Guards the round-trip test against an equality that always holds.
    SceneSpec s = parse_text(full_scene_text());
    SceneSpec t = s;
    t.bodies[3].rotation(1, 2) = std::nextafter(t.bodies[3].rotation(1, 2), 2.0);
    EXPECT_NE(s, t);
    t = s;
    t.bodies[13].kinematic.keyframes[1].time += 1e-12;
    EXPECT_NE(s, t);
    t = s;
    t.planes[0].friction.reset();
    EXPECT_NE(s, t);
}

TEST(SceneJson, WritesEveryDefault) {
    nlohmann::json j = scene_to_json(parse_text(R"({"bodies": [{"shape": {"sphere": {}}}]})"));
    EXPECT_EQ(j.at("time_step"), 0.01);
    EXPECT_EQ(j.at("frames"), 100);
    EXPECT_EQ(j.at("substeps"), 1);
    EXPECT_EQ(j.at("contact").at("dhat"), 1e-3);
    EXPECT_EQ(j.at("contact").at("friction_iterations"), 1);
    EXPECT_EQ(j.at("solver").at("linear_solver"), "auto");
    const auto& body = j.at("bodies").at(0);
    EXPECT_EQ(body.at("name"), "body_0");
    EXPECT_EQ(body.at("motion"), "dynamic");
    EXPECT_EQ(body.at("shape").at("sphere").at("radius"), 0.5);
    EXPECT_EQ(body.at("shape").at("sphere").at("subdivisions"), 2);
    EXPECT_EQ(body.at("material").at("density"), 1000.0);
    EXPECT_EQ(body.at("rotation").at("matrix").at(1).at(1), 1.0);
    EXPECT_EQ(body.at("velocity"), nlohmann::json::parse("[0.0, 0.0, 0.0]"));
    EXPECT_FALSE(body.contains("friction")) << "unset friction falls back to contact.friction";
}

TEST(SceneJson, RelativeMeshPathsBecomeAbsolute) {
    SceneSpec s = parse_text(R"({"bodies": [{"shape": {"mesh": {"file": "cube.obj"}}}]})");
    nlohmann::json j = scene_to_json(s);
    std::string file = j.at("bodies").at(0).at("shape").at("mesh").at("file");
    EXPECT_TRUE(std::filesystem::path(file).is_absolute());
    // Parsing the resolved scene from anywhere finds the same file; writing it again is a fixed
    // point.
    SceneSpec back = parse_scene(j, "elsewhere.json", "/");
    EXPECT_EQ(back.bodies[0].shape.resolved_file, s.bodies[0].shape.resolved_file);
    EXPECT_EQ(scene_to_json(back), j);
}

}  // namespace
}  // namespace concord
