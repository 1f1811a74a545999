// The resolved scene: scene_to_json writes every default, expands arrays, and parses back to the
// same SceneSpec.
#include <gtest/gtest.h>

#include <filesystem>

#include "concord/scene/scene_json.hpp"
#include "scene_test_util.hpp"

namespace concord {
namespace {

using test::full_scene_text;
using test::parse_text;

TEST(SceneJson, RoundTripIsExact) {
    SceneSpec s = parse_text(full_scene_text());
    ASSERT_EQ(s.bodies.size(), 15u);
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
    t.bodies[14].kinematic.keyframes[1].time += 1e-12;
    EXPECT_NE(s, t);
    t = s;
    t.bodies[8].shape.parts[1].position.x() += 1e-12;  // the compound's part
    EXPECT_NE(s, t);
    t = s;
    t.bodies[8].inertia->inertia(1, 2) += 1e-12;
    EXPECT_NE(s, t);
    t = s;
    t.contact.exclude.clear();
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
    EXPECT_EQ(j.at("solver").at("linear_solver").at("type"), "auto");
    EXPECT_EQ(j.at("solver").at("max_iterations"), 100);
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
