// URDF import (scene key "robots"): links -> bodies, joints -> joints, the mass properties,
// geometry placement, merged links, package paths, self-collision pairs, and one-line errors
// naming the file and the element.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numbers>

#include "concord/math/error.hpp"
#include "concord/scene/scene_json.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/scene/urdf_robot.hpp"
#include "scene_test_util.hpp"

using namespace concord;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kRobots = std::string(CONCORD_SOURCE_DIR) + "/scenes/robots";

/// A scratch folder holding URDF text as files.
class UrdfFiles : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("concord_urdf_" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string write(const std::string& name, const std::string& text) const {
        const fs::path p = dir_ / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
        return p.string();
    }

    /// A scene with one robot from `urdf` (extra keys merged into the robot's entry).
    SceneSpec scene(const std::string& urdf, const json& extra = json::object()) const {
        json robot = {{"name", "r"}, {"urdf", urdf}};
        robot.update(extra);
        return parse_scene(json{{"robots", json::array({robot})}}, "s.json", dir_.string());
    }

    std::string error(const std::string& urdf, const json& extra = json::object()) const {
        try {
            scene(urdf, extra);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    }

    fs::path dir_;
};

std::string robot(const std::string& body) {
    return "<?xml version=\"1.0\"?>\n<robot name=\"t\">\n" + body + "\n</robot>\n";
}

std::string box_link(const std::string& name, const std::string& origin = "0 0 0",
                     const std::string& size = "0.1 0.1 0.1") {
    return "<link name=\"" + name + "\"><collision><origin xyz=\"" + origin +
           "\"/><geometry><box size=\"" + size + "\"/></geometry></collision></link>";
}

std::string joint(const std::string& name, const std::string& type, const std::string& parent,
                  const std::string& child, const std::string& origin = "0 0 0.2",
                  const std::string& extra = "") {
    return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent +
           "\"/><child link=\"" + child + "\"/><origin xyz=\"" + origin +
           "\"/><axis xyz=\"0 1 0\"/>" + extra + "</joint>";
}

const std::string kLimit = "<limit lower=\"-1\" upper=\"1.5\" effort=\"1\" velocity=\"1\"/>";

}  // namespace

TEST_F(UrdfFiles, PendulumLinksBecomeBodiesAndItsHingeAJoint) {
    const SceneSpec s = scene(kRobots + "/pendulum.urdf", {{"position", {1, 2, 3}}});
    ASSERT_EQ(s.bodies.size(), 2u);
    EXPECT_EQ(s.bodies[0].name, "r.base");
    EXPECT_EQ(s.bodies[0].motion, MotionType::Static);  // base "fixed" is the default
    EXPECT_EQ(s.bodies[1].name, "r.rod");
    EXPECT_EQ(s.bodies[1].motion, MotionType::Dynamic);
    EXPECT_EQ(s.bodies[1].position, Vec3(1, 2, 3));
    // The collision origin places the rod's box below the hinge, in the link's frame.
    ASSERT_EQ(s.bodies[1].shape.kind, ShapeKind::Compound);
    ASSERT_EQ(s.bodies[1].shape.parts.size(), 1u);
    EXPECT_EQ(s.bodies[1].shape.parts[0].position, Vec3(0, 0, -0.5));
    EXPECT_EQ(s.bodies[1].shape.parts[0].shape.size, Vec3(0.04, 0.04, 1.0));
    // The <inertial>: mass, centre of mass and inertia tensor as written.
    ASSERT_TRUE(s.bodies[1].inertia.has_value());
    EXPECT_DOUBLE_EQ(s.bodies[1].inertia->mass, 2.0);
    EXPECT_EQ(s.bodies[1].inertia->center_of_mass, Vec3(0, 0, -0.75));
    EXPECT_DOUBLE_EQ(s.bodies[1].inertia->inertia(1, 1), 0.02);
    EXPECT_FALSE(s.bodies[0].inertia.has_value());  // from geometry and density
    ASSERT_EQ(s.joints.size(), 1u);
    const JointSpec& j = s.joints[0];
    EXPECT_EQ(j.name, "r.hinge");
    EXPECT_EQ(j.type, JointType::Revolute);
    EXPECT_FALSE(j.limits.enabled);  // continuous
    EXPECT_EQ(j.parent, 0);
    EXPECT_EQ(j.child, 1);
    ASSERT_TRUE(j.world_anchor.has_value());
    EXPECT_EQ(*j.world_anchor, Vec3(1, 2, 3));
    EXPECT_EQ(j.axis, Vec3(0, 1, 0));
    // Adjacent links never touch (their boxes overlap at the hinge).
    EXPECT_EQ(s.contact.exclude, (std::vector<std::pair<int, int>>{{0, 1}}));
}

TEST_F(UrdfFiles, TheRobotsPoseMovesEveryLinkAndAxis) {
    const Mat3 R = Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitZ()).toRotationMatrix();
    const SceneSpec s =
        scene(kRobots + "/pendulum.urdf",
              {{"position", {0, 0, 1}}, {"rotation", {{"axis", {0, 0, 1}}, {"angle_deg", 90}}}});
    EXPECT_TRUE(s.bodies[1].rotation.isApprox(R, 1e-15));
    EXPECT_TRUE(s.joints[0].axis.isApprox(R * Vec3::UnitY(), 1e-15));
}

TEST_F(UrdfFiles, TheSixJointArmHasSixJointsWithLimitsDampingAndTargets) {
    const SceneSpec s =
        scene(kRobots + "/arm6.urdf",
              {{"joint_targets",
                {{"elbow", {{"mode", "position"}, {"target", 0.5}, {"ke", 100}, {"kd", 2}}}}}});
    ASSERT_EQ(s.bodies.size(), 7u);
    ASSERT_EQ(s.joints.size(), 6u);
    for (const JointSpec& j : s.joints) EXPECT_EQ(j.type, JointType::Revolute);
    const JointSpec& pan = s.joints[0];
    EXPECT_EQ(pan.name, "r.shoulder_pan");
    EXPECT_TRUE(pan.limits.enabled);
    EXPECT_DOUBLE_EQ(pan.limits.lower, -3.14);
    // <dynamics damping> is a damper on the coordinate (a velocity drive to rest) ...
    EXPECT_TRUE(pan.drive.enabled);
    EXPECT_EQ(pan.drive.mode, DriveMode::Velocity);
    EXPECT_DOUBLE_EQ(pan.drive.kd, 0.5);
    // ... and adds to a target's own damping.
    const auto elbow = std::find_if(s.joints.begin(), s.joints.end(),
                                    [](const JointSpec& j) { return j.name == "r.elbow"; });
    ASSERT_NE(elbow, s.joints.end());
    EXPECT_EQ(elbow->drive.mode, DriveMode::Position);
    EXPECT_DOUBLE_EQ(elbow->drive.target, 0.5);
    EXPECT_DOUBLE_EQ(elbow->drive.kd, 2.3);
    EXPECT_FALSE(s.joints[5].limits.enabled);  // wrist_3 is continuous
    // Cylinders run along the URDF's z: the base's 0.1 m cylinder is 0.1 m tall in z.
    const ShapePart& base = s.bodies[0].shape.parts[0];
    EXPECT_EQ(base.shape.kind, ShapeKind::Cylinder);
    EXPECT_TRUE((base.rotation * Vec3::UnitY()).isApprox(Vec3::UnitZ(), 1e-15));
    // Six adjacent pairs excluded by default; "none" excludes all 21 pairs, "all" none.
    EXPECT_EQ(s.contact.exclude.size(), 6u);
    EXPECT_EQ(scene(kRobots + "/arm6.urdf", {{"self_collision", "none"}}).contact.exclude.size(),
              21u);
    EXPECT_TRUE(scene(kRobots + "/arm6.urdf", {{"self_collision", "all"}}).contact.exclude.empty());
}

TEST_F(UrdfFiles, ResolvedSceneParsesBackWithoutTheUrdf) {
    const SceneSpec s = scene(kRobots + "/arm6.urdf", {{"base", "free"}});
    EXPECT_EQ(s.bodies[0].motion, MotionType::Dynamic);
    const json written = scene_to_json(s);
    EXPECT_FALSE(written.contains("robots"));  // expanded into bodies, joints, contact.exclude
    const SceneSpec back = parse_scene(written, "s.json", "");
    EXPECT_EQ(back.bodies, s.bodies);
    EXPECT_EQ(back.joints.size(), s.joints.size());
    EXPECT_EQ(back.contact.exclude, s.contact.exclude);
    EXPECT_EQ(scene_to_json(back), written);
}

TEST_F(UrdfFiles, LinksWithoutGeometryOnFixedJointsMergeIntoTheirParent) {
    // world (no geometry) -fixed- base -revolute- arm -fixed- tool0 (no geometry, 1 kg).
    const std::string urdf = write(
        "merge.urdf",
        robot("<link name=\"world\"/>" + box_link("base") + box_link("arm", "0 0 0.1") +
              "<link name=\"tool0\"><inertial><origin xyz=\"0 0 0.3\"/><mass value=\"1\"/>"
              "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>"
              "</inertial></link>" +
              "<link name=\"arm_inertia\"/>" + joint("fix", "fixed", "world", "base", "0 0 0.5") +
              joint("hinge", "revolute", "base", "arm", "0 0 0.2", kLimit) +
              joint("flange", "fixed", "arm", "tool0", "0 0 0.2")));
    // arm_inertia has no parent joint: a second root, which urdfdom refuses.
    EXPECT_TRUE(test::contains(error(urdf), "not a valid URDF"));
    const std::string ok = write(
        "merge_ok.urdf",
        robot("<link name=\"world\"/>" + box_link("base") + box_link("arm", "0 0 0.1") +
              "<link name=\"tool0\"><inertial><origin xyz=\"0 0 0.3\"/><mass value=\"1\"/>"
              "<inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>"
              "</inertial></link>" +
              joint("fix", "fixed", "world", "base", "0 0 0.5") +
              joint("hinge", "revolute", "base", "arm", "0 0 0.2", kLimit) +
              joint("flange", "fixed", "arm", "tool0", "0 0 0.2")));
    const SceneSpec s = scene(ok);
    ASSERT_EQ(s.bodies.size(), 2u);
    // The base is welded to the world: static, no joint for it.
    EXPECT_EQ(s.bodies[0].name, "r.base");
    EXPECT_EQ(s.bodies[0].motion, MotionType::Static);
    EXPECT_EQ(s.bodies[0].position, Vec3(0, 0, 0.5));
    ASSERT_EQ(s.joints.size(), 1u);
    EXPECT_EQ(s.joints[0].name, "r.hinge");
    // tool0's kilogram sits 0.2 + 0.3 m above the arm's frame.
    ASSERT_TRUE(s.bodies[1].inertia.has_value());
    EXPECT_DOUBLE_EQ(s.bodies[1].inertia->mass, 1.0);
    EXPECT_TRUE(s.bodies[1].inertia->center_of_mass.isApprox(Vec3(0, 0, 0.5), 1e-15));
}

TEST_F(UrdfFiles, MergedInertialsAddWithTheParallelAxisTheorem) {
    const std::string inertial =
        "<inertial><origin xyz=\"0 0 %Z%\"/><mass value=\"2\"/><inertia ixx=\"0.1\" iyy=\"0.1\" "
        "izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>";
    auto at = [&](const std::string& z) {
        std::string s = inertial;
        s.replace(s.find("%Z%"), 3, z);
        return s;
    };
    const std::string urdf =
        write("pair.urdf",
              robot(box_link("base") + "<link name=\"a\">" + at("1") +
                    "<collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry></collision></link>"
                    "<link name=\"b\">" +
                    at("0") + "</link>" + joint("j", "revolute", "base", "a", "0 0 0.2", kLimit) +
                    joint("k", "fixed", "a", "b", "0 0 -1")));
    const SceneSpec s = scene(urdf);
    const InertiaSpec& in = *s.bodies[1].inertia;
    EXPECT_DOUBLE_EQ(in.mass, 4.0);
    EXPECT_TRUE(in.center_of_mass.isApprox(Vec3(0, 0, 0), 1e-15));
    // Two 2 kg masses 1 m either side of the centre along z: + 2 * 2 * 1^2 about x and y.
    EXPECT_NEAR(in.inertia(0, 0), 0.2 + 4.0, 1e-12);
    EXPECT_NEAR(in.inertia(1, 1), 0.2 + 4.0, 1e-12);
    EXPECT_NEAR(in.inertia(2, 2), 0.2, 1e-12);
}

TEST_F(UrdfFiles, MeshesResolveRelativeAndPackagePaths) {
    const std::string obj = std::string(CONCORD_SOURCE_DIR) + "/scenes/meshes";
    ASSERT_TRUE(fs::exists(obj + "/chair.obj")) << "test mesh missing";
    fs::create_directories(dir_ / "pkgs/my_robot/meshes");
    fs::copy_file(obj + "/chair.obj", dir_ / "pkgs/my_robot/meshes/chair.obj");
    fs::create_directories(dir_ / "desc/meshes");
    fs::copy_file(obj + "/chair.obj", dir_ / "desc/meshes/chair.obj");
    auto mesh_link = [](const std::string& file) {
        return "<link name=\"m\"><collision><geometry><mesh filename=\"" + file +
               "\" scale=\"2 2 2\"/></geometry></collision></link>";
    };
    // Relative to the URDF's folder.
    const SceneSpec rel = scene(write("desc/rel.urdf", robot(mesh_link("meshes/chair.obj"))));
    EXPECT_EQ(rel.bodies[0].shape.parts[0].shape.resolved_file,
              (dir_ / "desc/meshes/chair.obj").lexically_normal().string());
    EXPECT_EQ(rel.bodies[0].shape.parts[0].shape.scale, Vec3(2, 2, 2));
    // package:// through the robot's package_paths ...
    const std::string pkg =
        write("desc/pkg.urdf", robot(mesh_link("package://my_robot/meshes/chair.obj")));
    EXPECT_EQ(
        scene(pkg, {{"package_paths", {"pkgs"}}}).bodies[0].shape.parts[0].shape.resolved_file,
        (dir_ / "pkgs/my_robot/meshes/chair.obj").lexically_normal().string());
    // ... or the URDF's own package folder (PKG/urdf/robot.urdf).
    const std::string inside =
        write("pkgs/my_robot/urdf/r.urdf", robot(mesh_link("package://my_robot/meshes/chair.obj")));
    EXPECT_EQ(scene(inside).bodies[0].shape.parts[0].shape.resolved_file,
              (dir_ / "pkgs/my_robot/meshes/chair.obj").lexically_normal().string());
    // Not found: the file, the link and where it looked.
    const std::string e = error(pkg);
    EXPECT_TRUE(test::contains(
        e, "pkg.urdf: link 'm': mesh 'package://my_robot/meshes/chair.obj' not found"));
    EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST_F(UrdfFiles, SeveralCollisionElementsMakeOneCompoundBody) {
    const std::string urdf =
        write("two.urdf",
              robot("<link name=\"l\"><collision><origin xyz=\"-0.2 0 0\"/><geometry><sphere "
                    "radius=\"0.05\"/></geometry></collision><collision><origin xyz=\"0.2 0 0\"/>"
                    "<geometry><box size=\"0.1 0.1 0.1\"/></geometry></collision></link>"));
    const SceneSpec s = scene(urdf);
    ASSERT_EQ(s.bodies.size(), 1u);
    ASSERT_EQ(s.bodies[0].shape.parts.size(), 2u);
    EXPECT_EQ(s.bodies[0].shape.parts[0].shape.kind, ShapeKind::Sphere);
    EXPECT_EQ(s.bodies[0].shape.parts[1].position, Vec3(0.2, 0, 0));
}

TEST_F(UrdfFiles, UnsupportedOrBrokenInputIsOneLineNamingFileAndElement) {
    const std::string two = box_link("a") + box_link("b", "0 0 0.3");
    struct Case {
        std::string urdf, expected;
    };
    const std::vector<Case> cases = {
        {"<robot><link", "not a valid URDF"},
        {robot(two + joint("float", "floating", "a", "b")),
         "joint 'float': type \"floating\" is not supported"},
        {robot(two + joint("pl", "planar", "a", "b")),
         "joint 'pl': type \"planar\" is not supported"},
        {robot(two + box_link("c", "0 0 0.6") +
               joint("j", "revolute", "a", "b", "0 0 0.2", kLimit) +
               joint("m", "revolute", "b", "c", "0 0 0.2", kLimit + "<mimic joint=\"j\"/>")),
         "joint 'm': <mimic> is not supported"},
        {robot(two + joint("f", "revolute", "a", "b", "0 0 0.2",
                           kLimit + "<dynamics damping=\"0\" friction=\"0.3\"/>")),
         "joint 'f': <dynamics friction> is not supported"},
        {robot(box_link("a") + "<link name=\"b\"/>" +
               joint("j", "revolute", "a", "b", "0 0 0.2", kLimit)),
         "link 'b' moves on joint 'j' but has no <collision> geometry"},
        {robot("<link name=\"bad name\"><collision><geometry><box size=\"1 1 1\"/></geometry>"
               "</collision></link>"),
         "link 'bad name': the name becomes 'r.bad name'"},
        {robot("<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" "
               "izz=\"3\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial><collision><geometry><box "
               "size=\"1 1 1\"/></geometry></collision></link>"),
         "link 'a': <inertial>: no body has this inertia"},
        {robot("<link name=\"a\"/>"), "no link has <collision> geometry"},
    };
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const std::string file = write("case" + std::to_string(k) + ".urdf", cases[k].urdf);
        const std::string e = error(file);
        EXPECT_TRUE(test::contains(e, "s.json: robots[0].urdf: ")) << k;
        EXPECT_TRUE(test::contains(e, "case" + std::to_string(k) + ".urdf")) << k;
        EXPECT_TRUE(test::contains(e, cases[k].expected)) << k;
        EXPECT_EQ(e.find('\n'), std::string::npos) << k << ": " << e;
    }
    // A free robot's root needs geometry.
    EXPECT_TRUE(test::contains(error(write("free.urdf", robot("<link name=\"w\"/>" + box_link("a") +
                                                              joint("j", "fixed", "w", "a"))),
                                     {{"base", "free"}}),
                               "the root link of a free robot needs <collision> geometry"));
}

TEST_F(UrdfFiles, SceneKeysAreChecked) {
    const std::string arm = kRobots + "/arm6.urdf";
    EXPECT_TRUE(test::contains(
        error(arm, {{"joint_targets", {{"nope", {{"ke", 1}}}}}}),
        "no movable joint 'nope' (movable joints: shoulder_pan, shoulder_lift, elbow, "));
    EXPECT_TRUE(test::contains(error(arm, {{"base", "floating"}}),
                               "robots[0].base: expected \"fixed\" or \"free\""));
    EXPECT_TRUE(
        test::contains(error(arm, {{"self_collision", "some"}}), "robots[0].self_collision"));
    EXPECT_TRUE(test::contains(error("missing.urdf"), "robots[0].urdf: URDF file not found"));
    EXPECT_TRUE(test::contains(error(arm, {{"colour", 1}}), "colour"));
    EXPECT_TRUE(test::contains(
        error(arm, {{"joint_targets", {{"elbow", {{"mode", "velocity"}, {"ke", 1}}}}}}), "ke"));
    // Two robots with one name would repeat body names.
    const json two = {{"robots",
                       {{{"name", "r"}, {"urdf", arm}},
                        {{"name", "r"}, {"urdf", arm}, {"position", {2, 0, 0}}}}}};
    try {
        parse_scene(two, "s.json", "");
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        EXPECT_TRUE(test::contains(e.what(), "repeats the name of another body"));
    }
}

TEST_F(UrdfFiles, ContactExcludeNamesBodiesOfTheScene) {
    const json bodies = {
        {{"name", "a"}, {"shape", {{"sphere", json::object()}}}},
        {{"name", "b"}, {"shape", {{"sphere", json::object()}}}, {"position", {3, 0, 0}}},
        {{"name", "c"}, {"shape", {{"sphere", json::object()}}}, {"position", {6, 0, 0}}}};
    const SceneSpec s = parse_scene(
        json{{"bodies", bodies},
             {"contact",
              {{"exclude", json::array({json::array({"c", "a"}), json::array({"a", "b"}),
                                        json::array({"a", "c"})})}}}},
        "s.json", "");
    EXPECT_EQ(s.contact.exclude, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}}));
    auto err = [&](const json& exclude) {
        try {
            parse_scene(json{{"bodies", bodies}, {"contact", {{"exclude", exclude}}}}, "s.json",
                        "");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_TRUE(test::contains(err(json::array({json::array({"a", "zz"})})),
                               "contact.exclude[0][1]: unknown body \"zz\""));
    EXPECT_TRUE(
        test::contains(err(json::array({json::array({"a", "a"})})), "two different bodies"));
    EXPECT_TRUE(
        test::contains(err(json::array({json::array({"a"})})), "expected a pair of body names"));
}
