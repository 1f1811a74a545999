// Scene-file parsing: defaults, every key, and one test per class of invalid input (the message
// must name the file and the key path).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>

#include "concord/scene/scene_parser.hpp"
#include "scene_test_util.hpp"

namespace concord {
namespace {

using test::contains;
using test::parse_error;
using test::parse_text;

TEST(SceneParser, EmptyDocumentGivesDocumentedDefaults) {
    SceneSpec s = parse_text("{}");
    EXPECT_EQ(s.name, "scene");
    EXPECT_EQ(s.source_path, "a.json");
    EXPECT_EQ(s.time_step, 0.01);
    EXPECT_EQ(s.frames, 100);
    EXPECT_EQ(s.substeps, 1);
    EXPECT_EQ(s.gravity, Vec3(0, -9.81, 0));
    EXPECT_EQ(s.contact.dhat, 1e-3);
    EXPECT_EQ(s.contact.friction, 0.0);
    EXPECT_EQ(s.contact.friction_velocity, 1e-3);
    EXPECT_EQ(s.contact.friction_iterations, 1);
    EXPECT_EQ(s.contact.barrier_stiffness, 0.0);
    EXPECT_EQ(static_cast<const SolverParams&>(s.solver), SolverParams{});
    EXPECT_TRUE(s.materials.empty());
    EXPECT_TRUE(s.planes.empty());
    EXPECT_TRUE(s.bodies.empty());
}

TEST(SceneParser, BodyDefaults) {
    SceneSpec s = parse_text(R"({"bodies": [{"shape": {"box": {}}}, {"shape": {"sphere": {}}}]})");
    ASSERT_EQ(s.bodies.size(), 2u);
    const BodySpec& b = s.bodies[0];
    EXPECT_EQ(b.name, "body_0");
    EXPECT_EQ(s.bodies[1].name, "body_1");
    EXPECT_EQ(b.shape.kind, ShapeKind::Box);
    EXPECT_EQ(b.shape.size, Vec3::Ones());
    EXPECT_EQ(b.material, MaterialSpec{});
    EXPECT_TRUE(b.material_name.empty());
    EXPECT_EQ(b.position, Vec3::Zero());
    EXPECT_EQ(b.rotation, Mat3::Identity());
    EXPECT_EQ(b.velocity, Vec3::Zero());
    EXPECT_EQ(b.motion, MotionType::Dynamic);
    EXPECT_FALSE(b.friction.has_value());
    EXPECT_EQ(s.bodies[1].shape.radius, 0.5);
    EXPECT_EQ(s.bodies[1].shape.subdivisions, 2);
}

TEST(SceneParser, ContractExampleParses) {
    SceneSpec s = parse_text(R"({
      "name": "box-on-ground", "time_step": 0.01, "frames": 100, "gravity": [0, -9.81, 0],
      "contact": {"dhat": 1e-3, "friction": 0.0, "friction_velocity": 1e-3},
      "materials": {"steel": {"density": 7800, "youngs_modulus": 2e11}},
      "planes": [{"point": [0, 0, 0], "normal": [0, 1, 0]}],
      "bodies": [{"name": "box", "shape": {"box": {"size": [1, 1, 1]}}, "material": "steel",
                  "position": [0, 0.5011, 0], "rotation": {"axis": [0, 1, 0], "angle_deg": 0},
                  "velocity": [0, 0, 0], "angular_velocity": [0, 0, 0], "motion": "dynamic"}]})");
    EXPECT_EQ(s.name, "box-on-ground");
    ASSERT_EQ(s.bodies.size(), 1u);
    EXPECT_EQ(s.bodies[0].material_name, "steel");
    EXPECT_EQ(s.bodies[0].material.density, 7800);
    EXPECT_EQ(s.bodies[0].material.youngs_modulus, 2e11);
    EXPECT_EQ(s.bodies[0].position, Vec3(0, 0.5011, 0));
    ASSERT_EQ(s.planes.size(), 1u);
    EXPECT_EQ(s.planes[0].normal, Vec3::UnitY());
}

TEST(SceneParser, EveryTopLevelKey) {
    SceneSpec s = parse_text(R"({
      "$schema": "../schema/scene.schema.json", "name": "n", "time_step": 0.002, "frames": 7,
      "substeps": 3, "gravity": [1, 2, 3],
      "contact": {"dhat": 0.01, "friction": 0.4, "friction_velocity": 0.02,
                  "friction_iterations": 2, "barrier_stiffness": 1e5},
      "solver": {"max_iterations": 50, "tolerance": 1e-3, "linear_solver": "cg",
                 "cg_max_iterations": 77, "cg_tolerance": 1e-6}})");
    EXPECT_EQ(s.time_step, 0.002);
    EXPECT_EQ(s.frames, 7);
    EXPECT_EQ(s.substeps, 3);
    EXPECT_EQ(s.gravity, Vec3(1, 2, 3));
    EXPECT_EQ(s.contact.dhat, 0.01);
    EXPECT_EQ(s.contact.friction, 0.4);
    EXPECT_EQ(s.contact.friction_velocity, 0.02);
    EXPECT_EQ(s.contact.friction_iterations, 2);
    EXPECT_EQ(s.contact.barrier_stiffness, 1e5);
    // The first simulator's solver keys map onto SolverParams (solver/solver_params.hpp).
    EXPECT_EQ(s.solver.max_iterations, 50);
    EXPECT_EQ(s.solver.step_tol, 1e-3);
    EXPECT_EQ(s.solver.convergence_mode, ConvergenceMode::StepNorm);
    EXPECT_EQ(s.solver.linear.type, LinearSolverType::CG);
    EXPECT_EQ(s.solver.linear.max_iterations, 77);
    EXPECT_EQ(s.solver.linear.tolerance, 1e-6);
    SceneSpec t = parse_text(R"({"solver": {"linear_solver": {"type": "gmres", "restart": 12},
                                            "on_failure": "retry_halving", "islands": false,
                                            "convergence_mode": "step_rate",
                                            "translation_rate_tol": 0.02,
                                            "affine_rate_tol": 0.3}})");
    EXPECT_EQ(t.solver.convergence_mode, ConvergenceMode::StepRate);
    EXPECT_EQ(t.solver.translation_rate_tol, 0.02);
    EXPECT_EQ(t.solver.affine_rate_tol, 0.3);
    EXPECT_EQ(t.solver.linear.type, LinearSolverType::GMRES);
    EXPECT_EQ(t.solver.linear.gmres_restart, 12);
    EXPECT_EQ(t.solver.on_failure, FailurePolicy::RetryHalving);
    EXPECT_FALSE(t.solver.islands);
}

TEST(SceneParser, IntegralFloatsAreIntegers) {
    EXPECT_EQ(parse_text(R"({"frames": 1e3})").frames, 1000);
    EXPECT_TRUE(contains(parse_error(R"({"frames": 2.5})"), "a.json: frames: expected an integer"));
}

TEST(SceneParser, EveryShape) {
    SceneSpec s = parse_text(R"({"bodies": [
      {"shape": {"box": {"size": [1, 2, 3]}}, "position": [0, 0, 0]},
      {"shape": {"sphere": {"radius": 0.3, "subdivisions": 1}}, "position": [3, 0, 0]},
      {"shape": {"cylinder": {"radius": 0.2, "height": 0.7, "segments": 9}}, "position": [6, 0, 0]},
      {"shape": {"capsule": {"radius": 0.2, "height": 0.5, "segments": 8, "rings": 3}}},
      {"shape": {"torus": {"major_radius": 2, "minor_radius": 0.25, "segments": 30, "rings": 6}}},
      {"shape": {"mesh": {"file": "cube.obj", "scale": 2}}},
      {"shape": {"mesh": {"file": "cube.obj", "scale": [1, -2, 3]}}},
      {"shape": {"container": {"size": [4, 1, 2], "wall_thickness": 0.1}}},
      {"shape": {"funnel": {"top_radius": 2, "bottom_radius": 0.5, "height": 3,
                            "wall_thickness": 0.2, "segments": 12}}}]})");
    ASSERT_EQ(s.bodies.size(), 9u);
    EXPECT_EQ(s.bodies[0].shape.size, Vec3(1, 2, 3));
    EXPECT_EQ(s.bodies[1].shape.kind, ShapeKind::Sphere);
    EXPECT_EQ(s.bodies[1].shape.radius, 0.3);
    EXPECT_EQ(s.bodies[1].shape.subdivisions, 1);
    EXPECT_EQ(s.bodies[2].shape.kind, ShapeKind::Cylinder);
    EXPECT_EQ(s.bodies[2].shape.height, 0.7);
    EXPECT_EQ(s.bodies[2].shape.segments, 9);
    EXPECT_EQ(s.bodies[3].shape.kind, ShapeKind::Capsule);
    EXPECT_EQ(s.bodies[3].shape.rings, 3);
    EXPECT_EQ(s.bodies[4].shape.kind, ShapeKind::Torus);
    EXPECT_EQ(s.bodies[4].shape.major_radius, 2);
    EXPECT_EQ(s.bodies[4].shape.radius, 0.25);
    const ShapeSpec& mesh = s.bodies[5].shape;
    EXPECT_EQ(mesh.kind, ShapeKind::Mesh);
    EXPECT_EQ(mesh.file, "cube.obj");
    EXPECT_TRUE(std::filesystem::path(mesh.resolved_file).is_absolute());
    EXPECT_TRUE(
        std::filesystem::equivalent(mesh.resolved_file, test::scene_data_dir() + "/cube.obj"));
    EXPECT_EQ(mesh.scale, Vec3::Constant(2));
    EXPECT_EQ(s.bodies[6].shape.scale, Vec3(1, -2, 3));
    EXPECT_EQ(s.bodies[7].shape.kind, ShapeKind::Container);
    EXPECT_EQ(s.bodies[7].shape.size, Vec3(4, 1, 2));
    EXPECT_EQ(s.bodies[7].shape.wall_thickness, 0.1);
    const ShapeSpec& funnel = s.bodies[8].shape;
    EXPECT_EQ(funnel.kind, ShapeKind::Funnel);
    EXPECT_EQ(funnel.top_radius, 2);
    EXPECT_EQ(funnel.bottom_radius, 0.5);
    EXPECT_EQ(funnel.height, 3);
    EXPECT_EQ(funnel.wall_thickness, 0.2);
    EXPECT_EQ(funnel.segments, 12);
}

TEST(SceneParser, RotationForms) {
    SceneSpec s = parse_text(R"({"bodies": [
      {"shape": {"box": {}}, "rotation": {"axis": [0, 0, 2], "angle_deg": 90}},
      {"shape": {"box": {}}, "rotation": {"quaternion": [2, 0, 0, 2]}},
      {"shape": {"box": {}}, "rotation": {"matrix": [[0, -1, 0], [1, 0, 0], [0, 0, 1]]}}]})");
    Mat3 expected;
    expected << 0, -1, 0, 1, 0, 0, 0, 0, 1;
    for (int i = 0; i < 3; ++i) {
        EXPECT_LT((s.bodies[i].rotation - expected).norm(), 1e-15) << "body " << i;
    }
    // The matrix form is kept exactly as written.
    EXPECT_EQ(s.bodies[2].rotation, expected);
}

TEST(SceneParser, QuaternionIsNormalised) {
    SceneSpec s = parse_text(R"({"bodies": [
      {"shape": {"box": {}}, "rotation": {"quaternion": [0.3, -1.2, 0.4, 2.5]}}]})");
    const Mat3& R = s.bodies[0].rotation;
    EXPECT_LT((R.transpose() * R - Mat3::Identity()).norm(), 1e-14);
    EXPECT_NEAR(R.determinant(), 1.0, 1e-14);
}

TEST(SceneParser, RotationErrors) {
    auto body_with = [](const std::string& rotation) {
        return R"({"bodies": [{"shape": {"box": {}}, "rotation": )" + rotation + "}]}";
    };
    EXPECT_TRUE(contains(parse_error(body_with(R"({"quaternion": [0, 0, 0, 0]})")),
                         "a.json: bodies[0].rotation.quaternion: the quaternion must not be zero"));
    EXPECT_TRUE(contains(parse_error(body_with(R"({"quaternion": [1, 0, 0]})")),
                         "bodies[0].rotation.quaternion: expected an array of 4"));
    EXPECT_TRUE(contains(parse_error(body_with(R"({"axis": [0, 0, 0], "angle_deg": 3})")),
                         "bodies[0].rotation.axis: expected a non-zero vector"));
    EXPECT_TRUE(contains(parse_error(body_with(R"({"axis": [0, 1, 0]})")),
                         "bodies[0].rotation.angle_deg: missing required key"));
    EXPECT_TRUE(contains(parse_error(body_with(
                             R"({"axis": [0, 1, 0], "angle_deg": 1, "quaternion": [1, 0, 0, 0]})")),
                         "bodies[0].rotation: expected exactly one of"));
    EXPECT_TRUE(
        contains(parse_error(body_with(R"({"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]})")),
                 "bodies[0].rotation.matrix: not a rotation matrix"));
    EXPECT_TRUE(contains(parse_error(body_with(R"({"matrix": [[2, 0, 0], [0, 1, 0], [0, 0, 1]]})")),
                         "bodies[0].rotation.matrix: not a rotation matrix"));
}

TEST(SceneParser, MaterialsNamedAndInline) {
    SceneSpec s = parse_text(R"({"materials": {"wood": {"density": 600}},
      "bodies": [{"shape": {"box": {}}, "material": "wood"},
                 {"shape": {"box": {}}, "material": {"density": 2, "youngs_modulus": 3}}]})");
    EXPECT_EQ(s.materials.at("wood").density, 600);
    EXPECT_EQ(s.materials.at("wood").youngs_modulus, 1e9);
    EXPECT_EQ(s.bodies[0].material_name, "wood");
    EXPECT_EQ(s.bodies[0].material.density, 600);
    EXPECT_TRUE(s.bodies[1].material_name.empty());
    EXPECT_EQ(s.bodies[1].material, (MaterialSpec{2, 3}));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "material": "iron"}]})"),
                         "a.json: bodies[0].material: unknown material \"iron\""));
}

TEST(SceneParser, MotionKinematicAndFriction) {
    SceneSpec s = parse_text(R"({"planes": [{"normal": [0, 0, 3], "friction": 0.7}],
      "bodies": [
        {"name": "floor", "shape": {"box": {}}, "motion": "static", "friction": 0.2},
        {"name": "spin", "shape": {"box": {}}, "motion": "kinematic", "position": [1, 2, 3],
         "kinematic": {"linear_velocity": [1, 0, 0], "angular_velocity": [0, 3, 0]}},
        {"name": "pivoted", "shape": {"box": {}}, "motion": "kinematic",
         "kinematic": {"angular_velocity": [0, 1, 0], "pivot": [5, 0, 0]}},
        {"name": "keyed", "shape": {"box": {}}, "motion": "kinematic", "position": [0, 1, 0],
         "kinematic": {"keyframes": [{"time": 0}, {"time": 1, "position": [2, 1, 0],
                        "rotation": {"axis": [0, 1, 0], "angle_deg": 90}}]}},
        {"name": "pushed", "shape": {"box": {}}, "external_force": [0, 0, 5],
         "velocity": [1, 2, 3], "angular_velocity": [4, 5, 6]}]})");
    EXPECT_EQ(s.planes[0].normal, Vec3::UnitZ());
    EXPECT_EQ(s.planes[0].friction, 0.7);
    EXPECT_EQ(s.bodies[0].motion, MotionType::Static);
    EXPECT_EQ(s.bodies[0].friction, 0.2);
    const KinematicSpec& k = s.bodies[1].kinematic;
    EXPECT_EQ(s.bodies[1].motion, MotionType::Kinematic);
    EXPECT_EQ(k.linear_velocity, Vec3(1, 0, 0));
    EXPECT_EQ(k.angular_velocity, Vec3(0, 3, 0));
    EXPECT_EQ(k.pivot, Vec3(1, 2, 3)) << "the pivot defaults to the position";
    EXPECT_EQ(s.bodies[2].kinematic.pivot, Vec3(5, 0, 0));
    const auto& keys = s.bodies[3].kinematic.keyframes;
    ASSERT_EQ(keys.size(), 2u);
    EXPECT_EQ(keys[0].position, Vec3(0, 1, 0)) << "keyframes default to the body's pose";
    EXPECT_EQ(keys[0].rotation, Mat3::Identity());
    EXPECT_EQ(keys[1].time, 1.0);
    EXPECT_EQ(keys[1].position, Vec3(2, 1, 0));
    EXPECT_LT((keys[1].rotation * Vec3::UnitX() - Vec3(0, 0, -1)).norm(), 1e-15);
    EXPECT_EQ(s.bodies[4].external_force, Vec3(0, 0, 5));
    EXPECT_EQ(s.bodies[4].velocity, Vec3(1, 2, 3));
    EXPECT_EQ(s.bodies[4].angular_velocity, Vec3(4, 5, 6));
}

TEST(SceneParser, MotionErrors) {
    EXPECT_TRUE(
        contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "motion": "flying"}]})"),
                 "a.json: bodies[0].motion: expected \"dynamic\", \"static\" or \"kinematic\""));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "kinematic": {}}]})"),
                         "bodies[0].kinematic: only allowed with \"motion\": \"kinematic\""));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "motion": "static",
                                            "velocity": [1, 0, 0]}]})"),
                         "bodies[0].velocity: only dynamic bodies"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "motion": "kinematic",
                                            "external_force": [1, 0, 0]}]})"),
                         "bodies[0].external_force: only dynamic bodies"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "motion": "kinematic",
        "kinematic": {"keyframes": [{"time": 1}, {"time": 1}]}}]})"),
                         "bodies[0].kinematic.keyframes[1].time: keyframe times must increase"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "motion": "kinematic",
        "kinematic": {"keyframes": [{"time": 0}], "linear_velocity": [1, 0, 0]}}]})"),
                         "bodies[0].kinematic.keyframes: give either keyframes or"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "motion": "kinematic",
        "kinematic": {"keyframes": [{"position": [0, 0, 0]}]}}]})"),
                         "bodies[0].kinematic.keyframes[0].time: missing required key"));
}

TEST(SceneParser, UnknownKeysNameTheirPath) {
    EXPECT_TRUE(contains(parse_error(R"({"time_stp": 0.1})"), "a.json: time_stp: unknown key"));
    EXPECT_TRUE(contains(parse_error(R"({"contact": {"dhat": 1e-3, "kappa": 1}})"),
                         "a.json: contact.kappa: unknown key"));
    EXPECT_TRUE(contains(
        parse_error(
            R"({"bodies": [{"shape": {"box": {}}}, {"shape": {"box": {"sise": [1, 1, 1]}}}]})"),
        "a.json: bodies[1].shape.box.sise: unknown key (allowed here: size, divisions)"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"cube": {}}}]})"),
                         "a.json: bodies[0].shape.cube: unknown shape"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"box": {}, "sphere": {}}}]})"),
                         "a.json: bodies[0].shape: expected an object with exactly one key"));
    EXPECT_TRUE(contains(parse_error(R"({"planes": [{"normal": [0, 1, 0], "offset": 1}]})"),
                         "a.json: planes[0].offset: unknown key"));
    EXPECT_TRUE(contains(parse_error(R"({"solver": {"newton": 3}})"),
                         "a.json: solver.newton: unknown key"));
    EXPECT_TRUE(contains(parse_error(R"({"materials": {"m": {"density": 1, "poisson": 0.3}}})"),
                         "a.json: materials.m.poisson: unknown key"));
}

TEST(SceneParser, WrongTypesNameTheirPath) {
    EXPECT_TRUE(contains(
        parse_error(
            R"({"bodies": [{"shape": {"box": {}}}, {"shape": {"box": {}}}, {"shape": {"box": {}}},
                                           {"shape": {"box": {"size": [1, 2]}}}]})"),
        "a.json: bodies[3].shape.box.size: expected an array of 3 positive numbers"));
    EXPECT_TRUE(contains(parse_error(R"({"time_step": "fast"})"),
                         "a.json: time_step: expected a number, got a string"));
    EXPECT_TRUE(contains(parse_error(R"({"gravity": [0, "down", 0]})"),
                         "a.json: gravity: expected an array of 3 finite numbers"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": {}})"), "a.json: bodies: expected an array"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"name": 3, "shape": {"box": {}}}]})"),
                         "a.json: bodies[0].name: expected a string"));
    EXPECT_TRUE(contains(parse_error(R"({"solver": {"linear_solver": "lu"}})"),
                         "a.json: solver.linear_solver: expected one of auto, ldlt, cg"));
    EXPECT_TRUE(contains(parse_error(R"([1, 2])"), "a.json: expected an object"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{}]})"),
                         "a.json: bodies[0].shape: missing required key"));
}

TEST(SceneParser, NonFiniteNumbersAreRejectedEverywhere) {
    // JSON text cannot hold NaN or infinity, but a document built in code can.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    auto base = [] {
        return nlohmann::json::parse(R"({"bodies": [{"shape": {"box": {}}}], "planes": [{}]})");
    };
    auto error = [](const nlohmann::json& j) {
        return test::error_of([&] { parse_scene(j, "a.json", ""); });
    };
    auto j = base();
    j["time_step"] = nan;
    EXPECT_TRUE(contains(error(j), "a.json: time_step: expected a finite number"));
    j = base();
    j["gravity"] = {0, inf, 0};
    EXPECT_TRUE(contains(error(j), "a.json: gravity: expected an array of 3 finite numbers"));
    j = base();
    j["bodies"][0]["position"] = {nan, 0, 0};
    EXPECT_TRUE(contains(error(j), "a.json: bodies[0].position: expected an array of 3 finite"));
    j = base();
    j["bodies"][0]["rotation"] = {{"quaternion", {1, 0, nan, 0}}};
    EXPECT_TRUE(
        contains(error(j), "a.json: bodies[0].rotation.quaternion: expected an array of 4 finite"));
    j = base();
    j["planes"][0]["friction"] = -inf;
    EXPECT_TRUE(contains(error(j), "a.json: planes[0].friction: expected a finite number"));
    j = base();
    j["frames"] = inf;
    EXPECT_TRUE(contains(error(j), "a.json: frames: expected an integer"));
}

TEST(SceneParser, RangeErrors) {
    EXPECT_TRUE(contains(parse_error(R"({"time_step": 0})"),
                         "a.json: time_step: expected a positive number, got 0"));
    EXPECT_TRUE(contains(parse_error(R"({"time_step": -0.01})"),
                         "a.json: time_step: expected a positive number"));
    EXPECT_TRUE(
        contains(parse_error(R"({"frames": -1})"), "a.json: frames: expected an integer in [0, "));
    EXPECT_EQ(parse_text(R"({"frames": 0})").frames, 0);
    EXPECT_TRUE(contains(parse_error(R"({"substeps": 0})"),
                         "a.json: substeps: expected an integer in [1, "));
    EXPECT_TRUE(contains(parse_error(R"({"materials": {"m": {"density": 0}}})"),
                         "a.json: materials.m.density: expected a positive number"));
    EXPECT_TRUE(contains(parse_error(R"({"materials": {"m": {"youngs_modulus": -5}}})"),
                         "a.json: materials.m.youngs_modulus: expected a positive number"));
    EXPECT_TRUE(contains(
        parse_error(R"({"bodies": [{"shape": {"box": {}}, "material": {"density": -1}}]})"),
        "a.json: bodies[0].material.density: expected a positive number"));
    EXPECT_TRUE(
        contains(parse_error(R"({"bodies": [{"shape": {"box": {"size": [1, 0, 1]}}}]})"),
                 "a.json: bodies[0].shape.box.size: expected an array of 3 positive numbers"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"sphere": {"radius": 0}}}]})"),
                         "a.json: bodies[0].shape.sphere.radius: expected a positive number"));
    EXPECT_TRUE(
        contains(parse_error(R"({"bodies": [{"shape": {"cylinder": {"segments": 2}}}]})"),
                 "a.json: bodies[0].shape.cylinder.segments: expected an integer in [3, 4096]"));
    EXPECT_TRUE(contains(
        parse_error(
            R"({"bodies": [{"shape": {"torus": {"major_radius": 1, "minor_radius": 1}}}]})"),
        "a.json: bodies[0].shape.torus.minor_radius: the minor radius"));
    EXPECT_TRUE(contains(
        parse_error(
            R"({"bodies": [{"shape": {"mesh": {"file": "cube.obj", "scale": [1, 0, 1]}}}]})"),
        "a.json: bodies[0].shape.mesh.scale: expected a non-zero number"));
    EXPECT_TRUE(contains(parse_error(R"({"contact": {"friction": -0.1}})"),
                         "a.json: contact.friction: expected a number >= 0"));
    EXPECT_TRUE(contains(parse_error(R"({"contact": {"dhat": 0}})"),
                         "a.json: contact.dhat: expected a positive number"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "friction": -1}]})"),
                         "a.json: bodies[0].friction: expected a number >= 0"));
}

TEST(SceneParser, PlaneNormals) {
    SceneSpec s = parse_text(R"({"planes": [{"normal": [3, 4, 0]}, {}]})");
    EXPECT_NEAR(s.planes[0].normal[0], 0.6, 1e-16);
    EXPECT_NEAR(s.planes[0].normal[1], 0.8, 1e-16);
    EXPECT_EQ(s.planes[1].normal, Vec3::UnitY());
    EXPECT_EQ(s.planes[1].point, Vec3::Zero());
    EXPECT_TRUE(contains(parse_error(R"({"planes": [{"normal": [0, 0, 0]}]})"),
                         "a.json: planes[0].normal: expected a non-zero vector"));
    // Huge and tiny normals normalise without overflow or underflow.
    SceneSpec t =
        parse_text(R"({"planes": [{"normal": [0, 1e300, 0]}, {"normal": [1e-300, 0, 0]}]})");
    EXPECT_LT((t.planes[0].normal - Vec3::UnitY()).norm(), 1e-15);
    EXPECT_LT((t.planes[1].normal - Vec3::UnitX()).norm(), 1e-15);
}

TEST(SceneParser, DuplicateBodyNames) {
    EXPECT_TRUE(
        contains(parse_error(R"({"bodies": [{"name": "a", "shape": {"box": {}}},
                                           {"name": "a", "shape": {"box": {}}}]})"),
                 "a.json: bodies[1].name: duplicate body name \"a\" (bodies[1]; also bodies[0])"));
    // An array copy's generated name can collide with another body's name.
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"name": "b_1", "shape": {"box": {}}},
        {"name": "b", "shape": {"box": {}}, "array": {"count": [2, 1, 1], "spacing": [2, 0, 0]}}]})"),
                         "duplicate body name \"b_1\" (bodies[1] (array copy 1); also bodies[0])"));
}

TEST(SceneParser, BodyNamesMustBeFileSafe) {
    for (const char* bad : {"a/b", "..", ".hidden", "-rf", "sp ace", "semi;colon", "ümlaut"}) {
        std::string text =
            R"({"bodies": [{"name": ")" + std::string(bad) + R"(", "shape": {"box": {}}}]})";
        EXPECT_TRUE(
            contains(parse_error(text), "a.json: bodies[0].name: body names become file names"))
            << bad;
    }
    EXPECT_EQ(
        parse_text(R"({"bodies": [{"name": "Crate-2.v_1", "shape": {"box": {}}}]})").bodies[0].name,
        "Crate-2.v_1");
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"name": "", "shape": {"box": {}}}]})"),
                         "a.json: bodies[0].name: expected a non-empty string"));
}

TEST(SceneParser, MissingMeshFile) {
    std::string msg = parse_error(R"({"bodies": [{"shape": {"mesh": {"file": "no/such.obj"}}}]})");
    EXPECT_TRUE(contains(msg, "a.json: bodies[0].shape.mesh.file: mesh file not found"));
    EXPECT_TRUE(contains(msg, "tests/scene/data/no/such.obj"));
    // A folder is not a mesh file.
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"mesh": {"file": "."}}}]})"),
                         "mesh file not found"));
    EXPECT_TRUE(contains(parse_error(R"({"bodies": [{"shape": {"mesh": {}}}]})"),
                         "a.json: bodies[0].shape.mesh.file: missing required key"));
}

TEST(SceneParser, LoadSceneFileResolvesMeshesAgainstItsFolder) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / "concord_test_scene_load";
    fs::remove_all(dir);
    fs::create_directories(dir / "sub" / "meshes");
    fs::copy_file(test::scene_data_dir() + "/cube.obj", dir / "sub" / "meshes" / "c.obj");
    {
        std::ofstream out(dir / "sub" / "s.json");
        out << R"({"bodies": [{"shape": {"mesh": {"file": "meshes/c.obj"}}}]})";
    }
    SceneSpec s = load_scene_file((dir / "sub" / "s.json").string());
    EXPECT_EQ(s.source_path, (dir / "sub" / "s.json").string());
    EXPECT_TRUE(fs::equivalent(s.bodies[0].shape.resolved_file, dir / "sub" / "meshes" / "c.obj"));
    std::string missing = (dir / "nope.json").string();
    EXPECT_TRUE(contains(test::error_of([&] { load_scene_file(missing); }),
                         missing + ": cannot read file"));
    fs::remove_all(dir);
}

}  // namespace
// The contact model and its augmented-Lagrangian options; bad values name their key.
TEST(SceneParser, ContactModelAndItsOptions) {
    EXPECT_EQ(parse_text("{}").contact.model, ContactModel::Barrier);
    const SceneSpec s = parse_text(R"({"contact": {"model": "augmented_lagrangian",
        "al_penalty": 2e4, "al_toi_threshold": 0.01, "al_iterations": 9,
        "al_load_compression": 0}})");
    EXPECT_EQ(s.contact.model, ContactModel::AugmentedLagrangian);
    EXPECT_EQ(s.contact.al_penalty, 2e4);
    EXPECT_EQ(s.contact.al_toi_threshold, 0.01);
    EXPECT_EQ(s.contact.al_iterations, 9);
    EXPECT_EQ(s.contact.al_load_compression, 0.0);
    EXPECT_EQ(parse_text("{}").contact.al_load_compression, 3e-4);
    EXPECT_TRUE(contains(test::error_of([] { parse_text(R"({"contact": {"model": "penalty"}})"); }),
                         "contact.model"));
    EXPECT_TRUE(contains(test::error_of([] { parse_text(R"({"contact": {"model": "penalty"}})"); }),
                         "barrier, augmented_lagrangian, hybrid"));
    for (const char* bad : {R"({"contact": {"al_penalty": 0}})", R"({"contact": {"al_penalty": -1}})",
                            R"({"contact": {"al_toi_threshold": 0}})",
                            R"({"contact": {"al_toi_threshold": 1}})",
                            R"({"contact": {"al_iterations": 0}})",
                            R"({"contact": {"al_load_compression": -1e-3}})"}) {
        EXPECT_TRUE(contains(test::error_of([&] { parse_text(bad); }), "contact.al_")) << bad;
    }
    const SceneSpec h =
        parse_text(R"({"contact": {"model": "hybrid", "hybrid_barrier_iterations": 8}})");
    EXPECT_EQ(h.contact.model, ContactModel::Hybrid);
    EXPECT_EQ(h.contact.hybrid_barrier_iterations, 8);
    EXPECT_EQ(parse_text("{}").contact.hybrid_barrier_iterations, 5);
    EXPECT_STREQ(to_string(ContactModel::Hybrid), "hybrid");
    for (const char* bad : {R"({"contact": {"hybrid_barrier_iterations": 0}})",
                            R"({"contact": {"hybrid_barrier_iterations": -3}})",
                            R"({"contact": {"hybrid_barrier_iterations": 2.5}})"}) {
        EXPECT_TRUE(contains(test::error_of([&] { parse_text(bad); }),
                             "contact.hybrid_barrier_iterations"))
            << bad;
    }
}

}  // namespace concord

namespace concord {

TEST(SceneParser, FluidBlocksAndTheirErrors) {
    const SceneSpec s = parse_text(R"({"fluids": [
        {"name": "water", "block": {"min": [0, 0, 0], "max": [1, 0.5, 0.2]},
         "particle_radius": 0.02, "rest_density": 998, "viscosity": 0.01,
         "density_tolerance": 0.002, "velocity": [1, 0, 0]},
        {"block": {"min": [2, 0, 0], "max": [3, 1, 1]}},
        {"name": "drop", "mesh": {"path": "cube.obj", "scale": [0.5, 0.5, 0.5]}}]})");
    ASSERT_EQ(s.fluids.size(), 3u);
    EXPECT_EQ(s.fluids[0].name, "water");
    EXPECT_EQ(s.fluids[0].block_max, Vec3(1, 0.5, 0.2));
    EXPECT_EQ(s.fluids[0].velocity, Vec3(1, 0, 0));
    EXPECT_EQ(s.fluids[0].rest_density, 998);
    // A block that leaves out the material takes the first block's: one fluid.
    EXPECT_EQ(s.fluids[1].name, "fluid1");
    EXPECT_EQ(s.fluids[1].particle_radius, 0.02);
    EXPECT_EQ(s.fluids[1].viscosity, 0.01);
    EXPECT_EQ(s.fluids[1].density_tolerance, 0.002);
    EXPECT_FALSE(s.fluids[2].has_block);
    EXPECT_TRUE(contains(s.fluids[2].resolved_mesh_file, "cube.obj"));
    EXPECT_EQ(s.fluids[2].mesh_scale, Vec3(0.5, 0.5, 0.5));
    EXPECT_TRUE(parse_text("{}").fluids.empty());

    const std::pair<const char*, const char*> bad[] = {
        {R"({"fluids": [{}]})", "exactly one of \"block\" and \"mesh\""},
        {R"({"fluids": [{"block": {"min": [0,0,0], "max": [1,1,1]}, "mesh": {"path": "cube.obj"}}]})",
         "exactly one"},
        {R"({"fluids": [{"block": {"min": [0,0,0], "max": [1,0,1]}}]})", "fluids[0].block.max: expected max > min"},
        {R"({"fluids": [{"block": {"min": [0,0,0], "max": [1,1,1]}, "particle_radius": 0}]})",
         "fluids[0].particle_radius"},
        {R"({"fluids": [{"block": {"min": [0,0,0], "max": [1,1,1]}, "particle_radius": -0.1}]})",
         "fluids[0].particle_radius"},
        {R"({"fluids": [{"block": {"min": [0,0,0], "max": [1,1,1]}, "viscosity": -1}]})",
         "fluids[0].viscosity"},
        {R"({"fluids": [{"block": {"min": [0,0,0], "max": [1,1,1]}, "density_tolerance": 1}]})",
         "fluids[0].density_tolerance"},
        {R"({"fluids": [{"block": {"min": [0,0,0], "max": [1,1,1]}, "colour": "blue"}]})", "colour"},
        {R"({"fluids": [{"block": {"min": [0,0,0], "max": [1,1,1]}},
                        {"block": {"min": [2,0,0], "max": [3,1,1]}, "particle_radius": 0.02}]})",
         "fluids[1].particle_radius: must equal the first fluid block's (0.01)"},
        {R"({"fluids": [{"name": "a", "block": {"min": [0,0,0], "max": [1,1,1]}},
                        {"name": "a", "block": {"min": [2,0,0], "max": [3,1,1]}}]})",
         "used twice"},
        {R"({"fluids": [{"mesh": {"path": "no-such-file.obj"}}]})", "mesh file not found"},
    };
    for (const auto& [text, message] : bad) EXPECT_TRUE(contains(parse_error(text), message)) << text;
}

}  // namespace concord
