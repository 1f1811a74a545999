// The scene file's "joints": keys, body names, schedules, errors with key paths, round trip.
#include <gtest/gtest.h>

#include "concord/math/error.hpp"
#include "concord/scene/scene_json.hpp"
#include "concord/scene/scene_parser.hpp"

using namespace concord;
using nlohmann::json;

namespace {

json two_boxes() {
    return {{"bodies",
             {{{"name", "a"}, {"shape", {{"box", {{"size", {1, 1, 1}}}}}}},
              {{"name", "b"}, {"shape", {{"box", {{"size", {1, 1, 1}}}}}}, {"position", {2, 0, 0}}}}}};
}

std::string error_of(const json& j) {
    try {
        parse_scene(j, "s.json", "");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(JointScene, ParsesEveryKey) {
    json j = two_boxes();
    j["joints"] = {{{"name", "hinge"},
                    {"type", "revolute"},
                    {"parent", "a"},
                    {"child", "b"},
                    {"anchor", {1, 0, 0}},
                    {"axis", {0, 0, 2}},
                    {"drive", {{"mode", "position"}, {"ke", 10}, {"kd", 1},
                               {"schedule", {{"keyframes", {{0, 0}, {1, 1.5}}}}}}},
                    {"limits", {{"lower", -1}, {"upper", 2}}},
                    {"stiffness", 1e6}},
                   {{"type", "ball"}, {"parent", "world"}, {"child", "a"},
                    {"parent_anchor", {0, 1, 0}}, {"child_anchor", {0, 0.5, 0}}}};
    const SceneSpec s = parse_scene(j, "s.json", "");
    ASSERT_EQ(s.joints.size(), 2u);
    const JointSpec& h = s.joints[0];
    EXPECT_EQ(h.type, JointType::Revolute);
    EXPECT_EQ(h.parent, 0);
    EXPECT_EQ(h.child, 1);
    ASSERT_TRUE(h.world_anchor);
    EXPECT_EQ(*h.world_anchor, Vec3(1, 0, 0));
    EXPECT_EQ(h.axis, Vec3(0, 0, 1));  // normalised
    EXPECT_TRUE(h.drive.enabled);
    EXPECT_DOUBLE_EQ(h.drive.schedule.value(0.5), 0.75);
    EXPECT_TRUE(h.limits.enabled);
    EXPECT_EQ(s.joints[1].parent, -1);
    EXPECT_EQ(s.joints[1].child_anchor, Vec3(0, 0.5, 0));
    // The resolved scene reads back to the same joints.
    EXPECT_EQ(parse_scene(scene_to_json(s), "s.json", "").joints, s.joints);
}

TEST(JointScene, ErrorsNameTheKeyPath) {
    json j = two_boxes();
    j["joints"] = {{{"type", "fixed"}, {"parent", "nobody"}, {"child", "b"}, {"anchor", {0, 0, 0}}}};
    EXPECT_NE(error_of(j).find("joints[0].parent"), std::string::npos) << error_of(j);
    j["joints"] = {{{"type", "hinge"}, {"parent", "a"}, {"child", "b"}, {"anchor", {0, 0, 0}}}};
    EXPECT_NE(error_of(j).find("joints[0].type"), std::string::npos);
    j["joints"] = {{{"type", "fixed"}, {"parent", "a"}, {"child", "a"}, {"anchor", {0, 0, 0}}}};
    EXPECT_NE(error_of(j).find("joints[0].child"), std::string::npos) << error_of(j);
    j["joints"] = {{{"type", "ball"}, {"parent", "a"}, {"child", "b"}, {"anchor", {0, 0, 0}},
                    {"drive", {{"ke", 1}}}}};
    EXPECT_NE(error_of(j).find("joints[0].drive"), std::string::npos) << error_of(j);
    j["joints"] = {{{"type", "fixed"}, {"parent", "a"}, {"child", "b"}}};
    EXPECT_NE(error_of(j).find("joints[0]"), std::string::npos);  // no anchor
    j["joints"] = {{{"type", "revolute"}, {"parent", "a"}, {"child", "b"}, {"anchor", {0, 0, 0}},
                    {"limits", {{"lower", 1}, {"upper", 0}}}}};
    EXPECT_NE(error_of(j).find("joints[0].limits"), std::string::npos) << error_of(j);
}
