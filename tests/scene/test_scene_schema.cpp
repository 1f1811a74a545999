// schema/scene.schema.json agrees with the parser: what the parser writes conforms, what the
// parser rejects (where a schema can say so) the schema rejects, and the defaults are the same.
#include <gtest/gtest.h>

#include "concord/scene/body_array.hpp"
#include "concord/scene/json_file.hpp"
#include "concord/scene/scene_json.hpp"
#include "mini_json_schema.hpp"
#include "scene_test_util.hpp"

namespace concord {
namespace {

using nlohmann::json;
using test::parse_text;

json load_schema() {
    return read_json_file(std::string(CONCORD_SOURCE_DIR) + "/schema/scene.schema.json");
}

std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

TEST(SceneSchema, DeclaresDraft2020_12) {
    json schema = load_schema();
    EXPECT_EQ(schema.at("$schema"), "https://json-schema.org/draft/2020-12/schema");
    EXPECT_EQ(schema.at("type"), "object");
    EXPECT_EQ(schema.at("additionalProperties"), false);
}

TEST(SceneSchema, AcceptsWhatTheParserAcceptsAndWrites) {
    test::MiniJsonSchema schema(load_schema());
    json input = json::parse(test::full_scene_text());
    EXPECT_EQ(joined(schema.errors(input)), "");
    EXPECT_EQ(joined(schema.errors(scene_to_json(parse_scene(input, "a.json", "")))), "");
    EXPECT_EQ(joined(schema.errors(json::object())), "");
}

TEST(SceneSchema, RejectsWhatTheParserRejects) {
    test::MiniJsonSchema schema(load_schema());
    const char* bad[] = {
        R"({"time_stp": 1})",
        R"({"time_step": 0})",
        R"({"frames": -1})",
        R"({"frames": 2.5})",
        R"({"contact": {"kappa": 1}})",
        R"({"solver": {"linear_solver": "lu"}})",
        R"({"solver": {"linear_solver": {"preconditioner": "ilu"}}})",
        R"({"solver": {"tolerance": 1e-3, "step_tol": 1e-3}})",
        R"({"solver": {"max_halvings": 31}})",
        R"({"solver": {"convergence_mode": "step_rates"}})",
        R"({"solver": {"translation_rate_tol": 0}})",
        R"({"solver": {"affine_rate_tol": -0.1}})",
        R"({"distributed": {"workers": 0}})",
        R"({"distributed": {"axis": "w"}})",
        R"({"distributed": {"penalty": "huge"}})",
        R"({"distributed": {"load_balance": {"gain": 1}}})",
        R"({"distributed": {"workers": 2, "grid": [2, 2]}})",
        R"({"materials": {"m": {"density": -1}}})",
        R"({"planes": [{"normal": [0, 0, 0]}]})",
        R"({"bodies": [{}]})",
        R"({"bodies": [{"shape": {"box": {"size": [1, 0, 1]}}}]})",
        R"({"bodies": [{"shape": {"box": {}, "sphere": {}}}]})",
        R"({"bodies": [{"shape": {"cube": {}}}]})",
        R"({"bodies": [{"shape": {"mesh": {}}}]})",
        R"({"bodies": [{"shape": {"mesh": {"file": "a.obj", "scale": 0}}}]})",
        R"({"bodies": [{"name": "a/b", "shape": {"box": {}}}]})",
        R"({"bodies": [{"shape": {"box": {}}, "rotation": {"quaternion": [0, 0, 0, 0]}}]})",
        R"({"bodies": [{"shape": {"box": {}}, "rotation": {"axis": [0, 1, 0]}}]})",
        R"({"bodies": [{"shape": {"box": {}}, "rotation": {"axis": [0, 1, 0], "angle_deg": 1, "quaternion": [1, 0, 0, 0]}}]})",
        R"({"bodies": [{"shape": {"box": {}}, "motion": "static", "velocity": [1, 0, 0]}]})",
        R"({"bodies": [{"shape": {"box": {}}, "kinematic": {}}]})",
        R"({"bodies": [{"shape": {"box": {}}, "motion": "kinematic", "kinematic": {"keyframes": [{"time": 0}], "linear_velocity": [1, 0, 0]}}]})",
        R"({"bodies": [{"shape": {"box": {}}, "array": {"count": [0, 1, 1]}}]})",
        R"({"bodies": [{"shape": {"compound": {"parts": []}}}]})",
        R"({"bodies": [{"shape": {"compound": {"parts": [{"shape": {"compound": {"parts": [{"shape": {"box": {}}}]}}}]}}}]})",
        R"({"bodies": [{"shape": {"box": {}}, "inertia": {"inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}]})",
        R"({"bodies": [{"shape": {"box": {}}, "inertia": {"mass": 1, "inertia": [[1, 0, 0], [0, 1, 0]]}}]})",
        R"({"robots": [{"name": "r"}]})",
        R"({"contact": {"exclude": [["a"]]}})",
        R"({"bodies": [{"shape": {"box": {}}, "array": {"count": [2, 1, 1], "jitter": {"seed": -1}}}]})",
    };
    for (const char* text : bad) {
        EXPECT_FALSE(schema.errors(json::parse(text)).empty()) << text;
        EXPECT_THROW(parse_text(text), InputError) << text;
    }
}

/// Compares every "default" among `props` with the value the parser wrote into `written`.
void expect_defaults_match(const json& props, const json& written, const std::string& where,
                           const std::set<std::string>& skip = {}) {
    int compared = 0;
    for (const auto& [key, sub] : props.items()) {
        if (!sub.contains("default") || skip.count(key)) continue;
        ASSERT_TRUE(written.contains(key))
            << where << "." << key << " is not written by scene_to_json";
        EXPECT_EQ(written.at(key), sub.at("default")) << where << "." << key;
        ++compared;
    }
    EXPECT_GT(compared, 0) << where;
}

TEST(SceneSchema, DefaultsMatchTheParser) {
    json schema = load_schema();
    const json& defs = schema.at("$defs");
    json scene = scene_to_json(parse_text("{}"));
    expect_defaults_match(schema.at("properties"), scene, "scene");
    expect_defaults_match(defs.at("contact").at("properties"), scene.at("contact"), "contact");
    expect_defaults_match(defs.at("solver").at("properties"), scene.at("solver"), "solver");
    const json& linear = defs.at("solver").at("properties").at("linear_solver").at("oneOf").at(1);
    expect_defaults_match(linear.at("properties"), scene.at("solver").at("linear_solver"),
                          "solver.linear_solver");
    EXPECT_EQ(scene.at("solver").at("linear_solver").size(), linear.at("properties").size());

    json distributed =
        scene_to_json(parse_text(R"({"distributed": {"workers": 2}})")).at("distributed");
    expect_defaults_match(defs.at("distributed").at("properties"), distributed, "distributed",
                          {"workers"});
    expect_defaults_match(defs.at("distributed").at("properties").at("load_balance").at("properties"),
                          distributed.at("load_balance"), "distributed.load_balance");

    json planes = scene_to_json(parse_text(R"({"planes": [{}]})")).at("planes");
    expect_defaults_match(defs.at("plane").at("properties"), planes.at(0), "plane");

    json body =
        scene_to_json(parse_text(R"({"bodies": [{"shape": {"box": {}}}]})")).at("bodies").at(0);
    expect_defaults_match(defs.at("body").at("properties"), body, "body");
    expect_defaults_match(defs.at("material").at("properties"), body.at("material"), "material");

    json kinematic =
        scene_to_json(parse_text(R"({"bodies": [{"shape": {"box": {}}, "motion": "kinematic"}]})"))
            .at("bodies")
            .at(0)
            .at("kinematic");
    expect_defaults_match(defs.at("kinematic").at("properties"), kinematic, "kinematic");

    for (const auto& [kind, sub] : defs.at("shape").at("properties").items()) {
        if (kind == "mesh" || kind == "compound") continue;  // they have required keys
        json shape =
            scene_to_json(parse_text(R"({"bodies": [{"shape": {")" + kind + R"(": {}}}]})"))
                .at("bodies")
                .at(0)
                .at("shape")
                .at(kind);
        expect_defaults_match(sub.at("properties"), shape, kind);
        EXPECT_EQ(shape.size(), sub.at("properties").size()) << kind << ": keys written vs. schema";
    }
    json mesh =
        scene_to_json(parse_text(R"({"bodies": [{"shape": {"mesh": {"file": "cube.obj"}}}]})"))
            .at("bodies")
            .at(0)
            .at("shape")
            .at("mesh");
    const json& scale_default =
        defs.at("shape").at("properties").at("mesh").at("properties").at("scale").at("default");
    EXPECT_EQ(mesh.at("scale"), json::array({scale_default, scale_default, scale_default}));

    // Body arrays are expanded on writing, so their defaults are compared with BodyArraySpec.
    const json& array = defs.at("body_array").at("properties");
    BodyArraySpec a;
    EXPECT_EQ(array.at("spacing").at("default"),
              json::array({a.spacing[0], a.spacing[1], a.spacing[2]}));
    const json& jitter = array.at("jitter").at("properties");
    EXPECT_EQ(jitter.at("position").at("default"), a.jitter_position);
    EXPECT_EQ(jitter.at("rotation_deg").at("default"), a.jitter_rotation_deg);
    EXPECT_EQ(jitter.at("seed").at("default"), a.seed);
}

}  // namespace
}  // namespace concord
