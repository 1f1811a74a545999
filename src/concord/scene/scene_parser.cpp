#include "concord/scene/scene_parser.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <sstream>
#include <utility>

#include "concord/geometry/mass_properties.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/body_array.hpp"
#include "concord/scene/body_name.hpp"
#include "concord/scene/distributed_json.hpp"
#include "concord/scene/json_file.hpp"
#include "concord/scene/json_node.hpp"
#include "concord/scene/modal_basis_json.hpp"
#include "concord/scene/scene_names.hpp"
#include "concord/scene/solver_params_json.hpp"
#include "concord/scene/urdf_robot.hpp"

namespace concord {

namespace {

constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;
/// Largest number of bodies one array (and one scene) may expand to: far beyond what one
/// machine simulates, small enough that a typo cannot exhaust memory.
constexpr long long kMaxBodies = 1'000'000;
/// A matrix given as a rotation must be orthonormal to this tolerance (it is kept as written).
constexpr double kRotationMatrixTolerance = 1e-6;
constexpr int kMaxSegments = 4096;
constexpr int kMaxSubdivisions = 8;

/// v / |v|, unless |v| is already 1 to within rounding: then v is kept exactly, so that a
/// resolved scene parses back bit for bit.
Vec3 unit_vector(const Vec3& v) {
    double n = v.stableNorm();
    if (std::abs(n - 1.0) <= 4.0 * std::numeric_limits<double>::epsilon()) return v;
    return v / n;
}

Mat3 parse_rotation_matrix(const JsonNode& node) {
    const auto& v = node.value();
    bool shape_ok = v.is_array() && v.size() == 3;
    for (std::size_t i = 0; shape_ok && i < 3; ++i) shape_ok = v[i].is_array() && v[i].size() == 3;
    if (!shape_ok) node.fail("expected 3 rows of 3 numbers, got " + node.describe());
    Mat3 R;
    for (std::size_t i = 0; i < 3; ++i) {
        Vec3 row = node.element(i).vec3();
        R.row(static_cast<Eigen::Index>(i)) = row.transpose();
    }
    double error = (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff();
    if (!(error <= kRotationMatrixTolerance) || !(R.determinant() > 0.0)) {
        node.fail("not a rotation matrix (needs R^T R = I to 1e-6 and det R > 0)");
    }
    return R;
}

Mat3 parse_rotation(const JsonNode& node) {
    node.expect_object({"axis", "angle_deg", "quaternion", "matrix"});
    const bool axis_angle = node.has("axis") || node.has("angle_deg");
    const int forms = int(axis_angle) + int(node.has("quaternion")) + int(node.has("matrix"));
    if (forms != 1) {
        node.fail("expected exactly one of {axis, angle_deg}, {quaternion} or {matrix}");
    }
    if (axis_angle) {
        Vec3 axis = node.child("axis").non_zero_vec3();
        double angle = node.child("angle_deg").number() * kRadiansPerDegree;
        if (angle == 0.0) return Mat3::Identity();
        return Eigen::AngleAxisd(angle, axis / axis.stableNorm()).toRotationMatrix();
    }
    if (node.has("quaternion")) {
        JsonNode q = node.child("quaternion");
        const auto& v = q.value();
        bool ok = v.is_array() && v.size() == 4;
        Eigen::Vector4d wxyz = Eigen::Vector4d::Zero();
        for (std::size_t i = 0; ok && i < 4; ++i) {
            ok = v[i].is_number() && std::isfinite(v[i].get<double>());
            if (ok) wxyz[static_cast<Eigen::Index>(i)] = v[i].get<double>();
        }
        if (!ok) q.fail("expected an array of 4 finite numbers [w, x, y, z], got " + q.describe());
        double n = wxyz.stableNorm();
        if (n == 0.0) q.fail("the quaternion must not be zero");
        wxyz /= n;
        return Eigen::Quaterniond(wxyz[0], wxyz[1], wxyz[2], wxyz[3]).toRotationMatrix();
    }
    return parse_rotation_matrix(node.child("matrix"));
}

MaterialSpec parse_material(const JsonNode& node) {
    node.expect_object({"density", "youngs_modulus"});
    MaterialSpec m;
    if (auto n = node.find("density")) m.density = n->positive_number();
    if (auto n = node.find("youngs_modulus")) m.youngs_modulus = n->positive_number();
    return m;
}

/// A "material": the name of one of the scene's materials (kept in `name`) or an inline one.
void parse_material_ref(const JsonNode& n, const SceneSpec& scene, std::string& name,
                        MaterialSpec& material) {
    if (!n.value().is_string()) {
        name.clear();
        material = parse_material(n);
        return;
    }
    name = n.name();
    const auto it = scene.materials.find(name);
    if (it == scene.materials.end()) {
        std::string known;
        for (const auto& [k, m] : scene.materials) known += (known.empty() ? "" : ", ") + k;
        n.fail("unknown material \"" + name +
               "\" (defined in materials: " + (known.empty() ? "none" : known) + ")");
    }
    material = it->second;
}

int segments(const JsonNode& node, int min) {
    return node.integer(min, kMaxSegments);
}

/// A number or 3 numbers, none zero; a negative factor mirrors the mesh along that axis.
Vec3 parse_scale(const JsonNode& node) {
    static const char* kExpected =
        "expected a non-zero number or an array of 3 non-zero numbers, got ";
    Vec3 scale;
    if (node.value().is_number()) {
        scale = Vec3::Constant(node.number());
    } else if (node.value().is_array()) {
        scale = node.vec3();
    } else {
        node.fail(kExpected + node.describe());
    }
    if (!(scale.array() != 0.0).all()) node.fail(kExpected + node.describe());
    return scale;
}

std::string resolve_mesh_file(const JsonNode& file_node, const std::string& base_dir) {
    namespace fs = std::filesystem;
    fs::path file(file_node.name());
    std::error_code ec;
    if (file.is_relative()) file = (base_dir.empty() ? fs::path(".") : fs::path(base_dir)) / file;
    fs::path resolved = fs::absolute(file, ec);
    if (ec) resolved = file;
    resolved = resolved.lexically_normal();
    if (!fs::is_regular_file(resolved, ec)) {
        file_node.fail("mesh file not found (looked for " + resolved.string() + ")");
    }
    return resolved.string();
}

ShapeSpec parse_shape(const JsonNode& node, const std::string& base_dir) {
    static const char* kExpected =
        "expected an object with exactly one key: box, sphere, cylinder, capsule, torus, mesh, "
        "container, funnel or compound";
    if (!node.value().is_object() || node.value().size() != 1) node.fail(kExpected);
    const std::string key = node.value().begin().key();
    JsonNode p = node.child(key);
    auto kind = shape_kind_from_name(key);
    if (!kind) p.fail(std::string("unknown shape; ") + kExpected);

    ShapeSpec s;
    s.kind = *kind;
    switch (s.kind) {
        case ShapeKind::Box:
            p.expect_object({"size", "divisions"});
            if (auto n = p.find("size")) s.size = n->positive_vec3();
            if (auto n = p.find("divisions")) {
                if (!n->value().is_array() || n->value().size() != 3)
                    n->fail("expected an array of 3 integers in 1..1024, got " + n->describe());
                for (std::size_t i = 0; i < 3; ++i)
                    s.divisions[static_cast<Eigen::Index>(i)] = n->element(i).integer(1, 1024);
            }
            break;
        case ShapeKind::Sphere:
            p.expect_object({"radius", "subdivisions"});
            if (auto n = p.find("radius")) s.radius = n->positive_number();
            if (auto n = p.find("subdivisions")) s.subdivisions = n->integer(0, kMaxSubdivisions);
            break;
        case ShapeKind::Cylinder:
            p.expect_object({"radius", "height", "segments"});
            if (auto n = p.find("radius")) s.radius = n->positive_number();
            if (auto n = p.find("height")) s.height = n->positive_number();
            if (auto n = p.find("segments")) s.segments = segments(*n, 3);
            break;
        case ShapeKind::Capsule:
            p.expect_object({"radius", "height", "segments", "rings"});
            if (auto n = p.find("radius")) s.radius = n->positive_number();
            if (auto n = p.find("height")) s.height = n->positive_number();
            if (auto n = p.find("segments")) s.segments = segments(*n, 3);
            if (auto n = p.find("rings")) s.rings = segments(*n, 1);
            break;
        case ShapeKind::Torus:
            p.expect_object({"major_radius", "minor_radius", "segments", "rings"});
            if (auto n = p.find("major_radius")) s.major_radius = n->positive_number();
            if (auto n = p.find("minor_radius")) s.radius = n->positive_number();
            if (auto n = p.find("segments")) s.segments = segments(*n, 3);
            if (auto n = p.find("rings")) s.rings = segments(*n, 3);
            if (!(s.radius < s.major_radius)) {
                JsonNode at = p.find("minor_radius") ? p.child("minor_radius") : p;
                at.fail("the minor radius (" + std::to_string(s.radius) +
                        ") must be smaller than the major radius (" +
                        std::to_string(s.major_radius) + ")");
            }
            break;
        case ShapeKind::Mesh:
            p.expect_object({"file", "scale"});
            s.file = p.child("file").name();
            s.resolved_file = resolve_mesh_file(p.child("file"), base_dir);
            if (auto n = p.find("scale")) s.scale = parse_scale(*n);
            break;
        case ShapeKind::Container:
            p.expect_object({"size", "wall_thickness"});
            if (auto n = p.find("size")) s.size = n->positive_vec3();
            if (auto n = p.find("wall_thickness")) s.wall_thickness = n->positive_number();
            break;
        case ShapeKind::Compound: {
            p.expect_object({"parts"});
            const JsonNode parts = p.child("parts");
            const std::size_t count = parts.array_size();
            if (count == 0) parts.fail("a compound shape needs at least one part");
            for (std::size_t i = 0; i < count; ++i) {
                const JsonNode part = parts.element(i);
                part.expect_object({"shape", "position", "rotation"});
                ShapePart sp;
                sp.shape = parse_shape(part.child("shape"), base_dir);
                if (sp.shape.kind == ShapeKind::Compound)
                    part.child("shape").fail("a compound's parts are not compounds themselves");
                if (auto n = part.find("position")) sp.position = n->vec3();
                if (auto n = part.find("rotation")) sp.rotation = parse_rotation(*n);
                s.parts.push_back(std::move(sp));
            }
            break;
        }
        case ShapeKind::Funnel:
            p.expect_object(
                {"top_radius", "bottom_radius", "height", "wall_thickness", "segments"});
            if (auto n = p.find("top_radius")) s.top_radius = n->positive_number();
            if (auto n = p.find("bottom_radius")) s.bottom_radius = n->positive_number();
            if (auto n = p.find("height")) s.height = n->positive_number();
            if (auto n = p.find("wall_thickness")) s.wall_thickness = n->positive_number();
            if (auto n = p.find("segments")) s.segments = segments(*n, 3);
            break;
    }
    return s;
}

Keyframe parse_keyframe(const JsonNode& node, const BodySpec& body) {
    node.expect_object({"time", "position", "rotation"});
    Keyframe k;
    k.time = node.child("time").number();
    k.position = body.position;
    k.rotation = body.rotation;
    if (auto n = node.find("position")) k.position = n->vec3();
    if (auto n = node.find("rotation")) k.rotation = parse_rotation(*n);
    return k;
}

KinematicSpec parse_kinematic(const JsonNode& node, const BodySpec& body) {
    node.expect_object({"linear_velocity", "angular_velocity", "pivot", "keyframes"});
    KinematicSpec k;
    k.pivot = body.position;
    if (auto n = node.find("linear_velocity")) k.linear_velocity = n->vec3();
    if (auto n = node.find("angular_velocity")) k.angular_velocity = n->vec3();
    if (auto n = node.find("pivot")) k.pivot = n->vec3();
    if (auto keys = node.find("keyframes")) {
        if (node.has("linear_velocity") || node.has("angular_velocity")) {
            keys->fail("give either keyframes or linear_velocity/angular_velocity, not both");
        }
        std::size_t count = keys->array_size();
        if (count == 0) keys->fail("expected at least one keyframe");
        for (std::size_t i = 0; i < count; ++i) {
            JsonNode key = keys->element(i);
            k.keyframes.push_back(parse_keyframe(key, body));
            if (i > 0 && !(k.keyframes[i].time > k.keyframes[i - 1].time)) {
                key.child("time").fail("keyframe times must increase (previous: " +
                                       nlohmann::json(k.keyframes[i - 1].time).dump() + ")");
            }
        }
    }
    return k;
}

BodyArraySpec parse_body_array(const JsonNode& node) {
    node.expect_object({"count", "spacing", "jitter"});
    BodyArraySpec a;
    JsonNode count = node.child("count");
    if (!count.value().is_array() || count.value().size() != 3) {
        count.fail("expected an array of 3 positive integers, got " + count.describe());
    }
    long long total = 1;
    for (std::size_t i = 0; i < 3; ++i) {
        a.count[i] = count.element(i).integer(1, static_cast<int>(kMaxBodies));
        total *= a.count[i];
        if (total > kMaxBodies) {
            count.fail("at most " + std::to_string(kMaxBodies) + " copies per array");
        }
    }
    if (auto n = node.find("spacing")) a.spacing = n->vec3();
    for (int i = 0; i < 3; ++i) {
        if (a.count[static_cast<std::size_t>(i)] > 1 && a.spacing[i] == 0.0) {
            JsonNode at = node.find("spacing") ? node.child("spacing") : node;
            at.fail(std::string("copies along ") + "xyz"[i] +
                    " would coincide: give a non-zero spacing for every axis with count > 1");
        }
    }
    if (auto j = node.find("jitter")) {
        j->expect_object({"position", "rotation_deg", "seed"});
        if (auto n = j->find("position")) a.jitter_position = n->non_negative_number();
        if (auto n = j->find("rotation_deg")) a.jitter_rotation_deg = n->non_negative_number();
        if (auto n = j->find("seed")) a.seed = n->unsigned_integer();
    }
    return a;
}

struct ParsedBody {
    BodySpec body;
    std::optional<BodyArraySpec> array;
};

ElasticSpec parse_elastic(const JsonNode& node, const SceneSpec& scene) {
    node.expect_object({"basis", "origin", "initial"});
    ElasticSpec e;
    const JsonNode basis = node.child("basis");
    e.basis = basis.name();
    const auto it = std::find_if(scene.modal_bases.begin(), scene.modal_bases.end(),
                                 [&](const ModalBasisSpec& m) { return m.name == e.basis; });
    if (it == scene.modal_bases.end()) {
        std::string known;
        for (const auto& m : scene.modal_bases) known += (known.empty() ? "" : ", ") + m.name;
        basis.fail("unknown modal basis \"" + e.basis +
                   "\" (defined in modal_bases: " + (known.empty() ? "none" : known) + ")");
    }
    if (auto n = node.find("origin")) e.origin = n->vec3();
    if (auto n = node.find("initial")) {
        const std::size_t count = n->array_size();
        if (static_cast<int>(count) != it->num_modes)
            n->fail("expected " + std::to_string(it->num_modes) + " numbers (one per mode of \"" +
                    e.basis + "\"), got " + std::to_string(count));
        for (std::size_t i = 0; i < count; ++i) e.initial.push_back(n->element(i).number());
    }
    return e;
}

/// "world" or the name of a body of the scene -> -1 or its index.
int parse_joint_body(const JsonNode& node, const SceneSpec& scene) {
    const std::string name = node.name();
    if (name == "world") return -1;
    for (std::size_t b = 0; b < scene.bodies.size(); ++b)
        if (scene.bodies[b].name == name) return static_cast<int>(b);
    node.fail("unknown body \"" + name + "\" (give a body name or \"world\")");
}

JointTargetSchedule parse_schedule(const JsonNode& node) {
    node.expect_object({"keyframes", "sinusoid"});
    if (node.has("keyframes") == node.has("sinusoid"))
        node.fail("give exactly one of keyframes and sinusoid");
    JointTargetSchedule s;
    if (auto k = node.find("keyframes")) {
        s.kind = TargetScheduleKind::PiecewiseLinear;
        for (std::size_t i = 0; i < k->array_size(); ++i) {
            const JsonNode e = k->element(i);
            if (e.array_size() != 2) e.fail("expected [time, value]");
            s.keyframes.push_back({e.element(0).number(), e.element(1).number()});
        }
    } else {
        const JsonNode w = node.child("sinusoid");
        w.expect_object({"offset", "amplitude", "frequency", "phase"});
        s.kind = TargetScheduleKind::Sinusoidal;
        if (auto n = w.find("offset")) s.offset = n->number();
        if (auto n = w.find("amplitude")) s.amplitude = n->number();
        if (auto n = w.find("frequency")) s.frequency = n->non_negative_number();
        if (auto n = w.find("phase")) s.phase = n->number();
    }
    return s;
}

JointDrive parse_drive(const JsonNode& d) {
    d.expect_object({"mode", "target", "schedule", "ke", "kd"});
    JointDrive drive;
    drive.enabled = true;
    if (auto n = d.find("mode")) {
        const std::string m = n->string();
        if (m == "position")
            drive.mode = DriveMode::Position;
        else if (m == "velocity")
            drive.mode = DriveMode::Velocity;
        else
            n->fail("expected \"position\" or \"velocity\", got " + n->describe());
    }
    if (auto n = d.find("target")) drive.target = n->number();
    if (auto n = d.find("schedule")) drive.schedule = parse_schedule(*n);
    if (auto n = d.find("ke")) drive.ke = n->non_negative_number();
    if (auto n = d.find("kd")) drive.kd = n->non_negative_number();
    return drive;
}

JointSpec parse_joint(const JsonNode& node, const SceneSpec& scene) {
    node.expect_object({"name", "type", "parent", "child", "anchor", "parent_anchor",
                        "child_anchor", "axis", "drive", "limits", "stiffness",
                        "orientation_length"});
    JointSpec j;
    if (auto n = node.find("name")) j.name = n->name();
    const JsonNode type = node.child("type");
    const std::string t = type.string();
    if (t == "fixed")
        j.type = JointType::Fixed;
    else if (t == "revolute")
        j.type = JointType::Revolute;
    else if (t == "prismatic")
        j.type = JointType::Prismatic;
    else if (t == "ball")
        j.type = JointType::Ball;
    else
        type.fail("expected \"fixed\", \"revolute\", \"prismatic\" or \"ball\", got " +
                  type.describe());
    j.parent = parse_joint_body(node.child("parent"), scene);
    j.child = parse_joint_body(node.child("child"), scene);
    if (node.has("anchor") && (node.has("parent_anchor") || node.has("child_anchor")))
        node.child("anchor").fail(
            "give either anchor (world) or parent_anchor/child_anchor (local)");
    if (auto n = node.find("anchor")) j.world_anchor = n->vec3();
    if (auto n = node.find("parent_anchor")) j.parent_anchor = n->vec3();
    if (auto n = node.find("child_anchor")) j.child_anchor = n->vec3();
    if (!node.has("anchor") && !node.has("parent_anchor") && !node.has("child_anchor"))
        node.fail("a joint needs an anchor (world position) or parent_anchor/child_anchor");
    if (auto n = node.find("axis")) j.axis = unit_vector(n->non_zero_vec3());
    if (auto d = node.find("drive")) j.drive = parse_drive(*d);
    if (auto l = node.find("limits")) {
        l->expect_object({"lower", "upper", "stiffness"});
        j.limits.enabled = true;
        j.limits.lower = l->child("lower").number();
        j.limits.upper = l->child("upper").number();
        if (auto n = l->find("stiffness")) j.limits.stiffness = n->non_negative_number();
    }
    if (auto n = node.find("stiffness")) j.stiffness = n->non_negative_number();
    if (auto n = node.find("orientation_length")) j.orientation_length = n->non_negative_number();
    try {
        validate_joint_spec(j, static_cast<int>(scene.bodies.size()), node.path());
    } catch (const InputError& e) {
        throw InputError(node.source() + ": " + e.what());
    }
    return j;
}

void parse_modal_bases(const JsonNode& node, const std::string& base_dir, SceneSpec& scene) {
    if (!node.value().is_object()) node.fail("expected an object mapping names to modal bases");
    for (const auto& item : node.value().items()) {
        const JsonNode b = node.child(item.key());
        if (item.key().empty()) b.fail("modal basis names must not be empty");
        // Runs the generator once here, so that every error shows when the scene is read.
        const ModalBasis basis = modal_basis_from_json(b, base_dir);
        scene.modal_bases.push_back(
            {item.key(), item.value(), node.source(), base_dir, basis.num_modes});
    }
}

InertiaSpec parse_inertia(const JsonNode& node) {
    node.expect_object({"mass", "center_of_mass", "inertia"});
    InertiaSpec in;
    in.mass = node.child("mass").positive_number();
    if (auto n = node.find("center_of_mass")) in.center_of_mass = n->vec3();
    const JsonNode t = node.child("inertia");
    const auto& v = t.value();
    bool shape_ok = v.is_array() && v.size() == 3;
    for (std::size_t i = 0; shape_ok && i < 3; ++i) shape_ok = v[i].is_array() && v[i].size() == 3;
    if (!shape_ok) t.fail("expected 3 rows of 3 numbers (kg m^2), got " + t.describe());
    for (std::size_t i = 0; i < 3; ++i)
        in.inertia.row(static_cast<Eigen::Index>(i)) = t.element(i).vec3().transpose();
    const std::string problem = inertia_problem(in.mass, in.inertia);
    if (!problem.empty()) t.fail(problem);
    return in;
}

ParsedBody parse_body(const JsonNode& node, std::size_t index, const SceneSpec& scene,
                      const std::string& base_dir) {
    node.expect_object({"name", "shape", "material", "position", "rotation", "velocity",
                        "angular_velocity", "motion", "kinematic", "friction", "external_force",
                        "elastic", "inertia", "array"});
    ParsedBody parsed;
    BodySpec& b = parsed.body;
    b.name = "body_" + std::to_string(index);
    if (auto n = node.find("name")) {
        b.name = n->name();
        if (!is_file_safe_name(b.name)) {
            n->fail("body names become file names; use " + std::string(kFileSafeNameRule) +
                    " (got " + n->describe() + ")");
        }
    }
    b.shape = parse_shape(node.child("shape"), base_dir);
    if (auto n = node.find("material")) parse_material_ref(*n, scene, b.material_name, b.material);
    if (auto n = node.find("position")) b.position = n->vec3();
    if (auto n = node.find("rotation")) b.rotation = parse_rotation(*n);
    if (auto n = node.find("motion")) {
        auto motion = motion_type_from_name(n->string());
        if (!motion)
            n->fail("expected \"dynamic\", \"static\" or \"kinematic\", got " + n->describe());
        b.motion = *motion;
    }
    const bool dynamic = b.motion == MotionType::Dynamic;
    for (const char* key : {"velocity", "angular_velocity"}) {
        if (node.has(key) && !dynamic) {
            node.child(key).fail(
                "only dynamic bodies have an initial velocity (a kinematic body's motion is set "
                "in \"kinematic\")");
        }
    }
    if (auto n = node.find("velocity")) b.velocity = n->vec3();
    if (auto n = node.find("angular_velocity")) b.angular_velocity = n->vec3();
    if (auto n = node.find("external_force")) {
        if (!dynamic) n->fail("only dynamic bodies take an external force");
        b.external_force = n->vec3();
    }
    if (auto n = node.find("friction")) b.friction = n->non_negative_number();
    b.kinematic.pivot = b.position;
    if (auto n = node.find("kinematic")) {
        if (b.motion != MotionType::Kinematic) {
            n->fail("only allowed with \"motion\": \"kinematic\"");
        }
        b.kinematic = parse_kinematic(*n, b);
    }
    if (auto n = node.find("elastic")) {
        if (!dynamic) n->fail("only dynamic bodies can be elastic (drive them through joints)");
        b.elastic = parse_elastic(*n, scene);
    }
    if (auto n = node.find("inertia")) {
        if (b.elastic) n->fail("elastic bodies take their mass from their modes, not \"inertia\"");
        b.inertia = parse_inertia(*n);
    }
    if (auto n = node.find("array")) parsed.array = parse_body_array(*n);
    return parsed;
}

PlaneSpec parse_plane(const JsonNode& node) {
    node.expect_object({"point", "normal", "friction"});
    PlaneSpec p;
    if (auto n = node.find("point")) p.point = n->vec3();
    if (auto n = node.find("normal")) p.normal = unit_vector(n->non_zero_vec3());
    if (auto n = node.find("friction")) p.friction = n->non_negative_number();
    return p;
}

std::vector<PlaneSpec> parse_planes(const JsonNode& root) {
    std::vector<PlaneSpec> planes;
    if (auto list = root.find("planes")) {
        std::size_t count = list->array_size();
        for (std::size_t i = 0; i < count; ++i) planes.push_back(parse_plane(list->element(i)));
    }
    return planes;
}

void parse_contact(const JsonNode& node, ContactSpec& c) {
    // "exclude" names bodies: parse_contact_exclude reads it once the bodies are known.
    node.expect_object({"model", "dhat", "friction", "friction_velocity", "friction_iterations",
                        "barrier_stiffness", "al_penalty", "al_toi_threshold", "al_iterations",
                        "al_load_compression", "hybrid_barrier_iterations", "exclude"});
    if (auto n = node.find("al_iterations")) c.al_iterations = n->integer(1, 1000000);
    if (auto n = node.find("model")) {
        const std::string m = n->value().is_string() ? n->value().get<std::string>() : "";
        if (m == "barrier") c.model = ContactModel::Barrier;
        else if (m == "augmented_lagrangian") c.model = ContactModel::AugmentedLagrangian;
        else if (m == "hybrid") c.model = ContactModel::Hybrid;
        else n->fail("expected one of barrier, augmented_lagrangian, hybrid, got " + n->describe());
    }
    if (auto n = node.find("hybrid_barrier_iterations"))
        c.hybrid_barrier_iterations = n->integer(1, 1000000);
    if (auto n = node.find("al_penalty")) c.al_penalty = n->positive_number();
    if (auto n = node.find("al_load_compression")) c.al_load_compression = n->non_negative_number();
    if (auto n = node.find("al_toi_threshold")) {
        c.al_toi_threshold = n->positive_number();
        if (c.al_toi_threshold >= 1.0) n->fail("expected a number in (0, 1), got " + n->describe());
    }
    if (auto n = node.find("dhat")) c.dhat = n->positive_number();
    if (auto n = node.find("friction")) c.friction = n->non_negative_number();
    if (auto n = node.find("friction_velocity")) c.friction_velocity = n->positive_number();
    if (auto n = node.find("friction_iterations")) c.friction_iterations = n->integer(0, 1000);
    if (auto n = node.find("barrier_stiffness")) c.barrier_stiffness = n->non_negative_number();
}

void parse_bodies(const JsonNode& list, const std::string& base_dir, SceneSpec& scene) {
    // Where each name came from, to name both places when one repeats.
    std::map<std::string, std::string> origin;
    std::size_t count = list.array_size();
    for (std::size_t i = 0; i < count; ++i) {
        JsonNode node = list.element(i);
        ParsedBody parsed = parse_body(node, i, scene, base_dir);
        std::vector<BodySpec> bodies;
        if (parsed.array) {
            bodies = expand_body_array(parsed.body, *parsed.array);
        } else {
            bodies.push_back(std::move(parsed.body));
        }
        if (static_cast<long long>(scene.bodies.size() + bodies.size()) > kMaxBodies) {
            node.fail("the scene has more than " + std::to_string(kMaxBodies) + " bodies");
        }
        for (std::size_t k = 0; k < bodies.size(); ++k) {
            std::string here = node.path();
            if (parsed.array) here += " (array copy " + std::to_string(k) + ")";
            auto [it, inserted] = origin.emplace(bodies[k].name, here);
            if (!inserted) {
                JsonNode at = node.find("name") ? node.child("name") : node;
                at.fail("duplicate body name \"" + bodies[k].name + "\" (" + here + "; also " +
                        it->second + ")");
            }
            scene.bodies.push_back(std::move(bodies[k]));
        }
    }
}

int body_index(const JsonNode& node, const SceneSpec& scene) {
    const std::string name = node.name();
    for (std::size_t b = 0; b < scene.bodies.size(); ++b)
        if (scene.bodies[b].name == name) return static_cast<int>(b);
    node.fail("unknown body \"" + name + "\"");
}

/// contact.exclude: [[body, body], ...] by name, added to the robots' pairs; sorted, unique.
void parse_contact_exclude(const std::optional<JsonNode>& contact, SceneSpec& scene) {
    if (auto list = contact ? contact->find("exclude") : std::nullopt) {
        for (std::size_t i = 0; i < list->array_size(); ++i) {
            const JsonNode e = list->element(i);
            if (e.array_size() != 2) e.fail("expected a pair of body names [a, b]");
            const int a = body_index(e.element(0), scene), b = body_index(e.element(1), scene);
            if (a == b) e.fail("a body always ignores itself: give two different bodies");
            scene.contact.exclude.emplace_back(std::min(a, b), std::max(a, b));
        }
    }
    auto& x = scene.contact.exclude;
    std::sort(x.begin(), x.end());
    x.erase(std::unique(x.begin(), x.end()), x.end());
}

/// One entry of "robots": its URDF read and its links and joints added to the scene.
void parse_robot(const JsonNode& node, const std::string& base_dir, SceneSpec& scene) {
    node.expect_object({"name", "urdf", "position", "rotation", "base", "material", "joint_targets",
                        "self_collision", "package_paths"});
    RobotSpec r;
    r.name = node.child("name").name();
    if (!is_file_safe_name(r.name))
        node.child("name").fail("robot names prefix body names; use " +
                                std::string(kFileSafeNameRule));
    namespace fs = std::filesystem;
    auto resolve = [&](const JsonNode& n) {
        fs::path f(n.name());
        if (f.is_relative()) f = (base_dir.empty() ? fs::path(".") : fs::path(base_dir)) / f;
        std::error_code ec;
        fs::path abs = fs::absolute(f, ec);
        return (ec ? f : abs).lexically_normal();
    };
    const JsonNode urdf = node.child("urdf");
    const fs::path file = resolve(urdf);
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        urdf.fail("URDF file not found (looked for " + file.string() + ")");
    r.urdf = file.string();
    if (auto n = node.find("position")) r.position = n->vec3();
    if (auto n = node.find("rotation")) r.rotation = parse_rotation(*n);
    if (auto n = node.find("base")) {
        const std::string b = n->string();
        if (b == "fixed")
            r.fixed_base = true;
        else if (b == "free")
            r.fixed_base = false;
        else
            n->fail("expected \"fixed\" or \"free\", got " + n->describe());
    }
    if (auto n = node.find("material")) parse_material_ref(*n, scene, r.material_name, r.material);
    if (auto n = node.find("self_collision")) {
        const std::string v = n->string();
        if (v == "non_adjacent")
            r.self_collision = SelfCollision::NonAdjacent;
        else if (v == "all")
            r.self_collision = SelfCollision::All;
        else if (v == "none")
            r.self_collision = SelfCollision::None;
        else
            n->fail("expected \"non_adjacent\", \"all\" or \"none\", got " + n->describe());
    }
    if (auto list = node.find("package_paths")) {
        for (std::size_t i = 0; i < list->array_size(); ++i) {
            const JsonNode e = list->element(i);
            const fs::path dir = resolve(e);
            if (!fs::is_directory(dir, ec)) e.fail("not a folder (" + dir.string() + ")");
            r.package_paths.push_back(dir.string());
        }
    }
    if (auto t = node.find("joint_targets")) {
        if (!t->value().is_object()) t->fail("expected an object mapping joint names to drives");
        for (const auto& item : t->value().items())
            r.joint_targets[item.key()] = parse_drive(t->child(item.key()));
    }
    const int first = static_cast<int>(scene.bodies.size());
    RobotParts parts;
    try {
        parts = import_urdf_robot(r, first);
    } catch (const InputError& e) {
        urdf.fail(e.what());
    }
    if (parts.bodies.empty()) urdf.fail(r.urdf + ": no link has <collision> geometry");
    for (const BodySpec& b : parts.bodies)
        for (const BodySpec& other : scene.bodies)
            if (other.name == b.name)
                node.child("name").fail("the robot's body \"" + b.name +
                                        "\" repeats the name of another body");
    for (BodySpec& b : parts.bodies) scene.bodies.push_back(std::move(b));
    for (std::size_t k = 0; k < parts.joints.size(); ++k) {
        try {
            validate_joint_spec(parts.joints[k], static_cast<int>(scene.bodies.size()),
                                "joint " + parts.joints[k].name);
        } catch (const InputError& e) {
            urdf.fail(r.urdf + ": " + e.what());
        }
        scene.joints.push_back(std::move(parts.joints[k]));
    }
    for (const auto& p : parts.exclude) scene.contact.exclude.push_back(p);
}

/// "fluids": blocks of one fluid (docs/scene-format.md, "Fluids").
void parse_fluids(const JsonNode& list, const std::string& base_dir, SceneSpec& scene) {
    for (std::size_t i = 0; i < list.array_size(); ++i) {
        const JsonNode node = list.element(i);
        node.expect_object({"name", "block", "mesh", "particle_radius", "rest_density",
                            "viscosity", "density_tolerance", "velocity"});
        FluidBlockSpec f;
        f.name = node.find("name") ? node.child("name").name() : "fluid" + std::to_string(i);
        for (const FluidBlockSpec& other : scene.fluids)
            if (other.name == f.name)
                node.child("name").fail("the fluid block name \"" + f.name + "\" is used twice");
        const auto block = node.find("block"), mesh = node.find("mesh");
        if (block.has_value() == mesh.has_value())
            node.fail("a fluid block needs exactly one of \"block\" and \"mesh\"");
        if (block) {
            block->expect_object({"min", "max"});
            f.block_min = block->child("min").vec3();
            f.block_max = block->child("max").vec3();
            if ((f.block_max.array() <= f.block_min.array()).any())
                block->child("max").fail("expected max > min on every axis");
        } else {
            mesh->expect_object({"path", "scale"});
            f.has_block = false;
            f.mesh_file = mesh->child("path").name();
            f.resolved_mesh_file = resolve_mesh_file(mesh->child("path"), base_dir);
            if (auto n = mesh->find("scale")) f.mesh_scale = parse_scale(*n);
        }
        if (auto n = node.find("particle_radius")) f.particle_radius = n->positive_number();
        if (auto n = node.find("rest_density")) f.rest_density = n->positive_number();
        if (auto n = node.find("viscosity")) {
            f.viscosity = n->number();
            if (f.viscosity < 0.0) n->fail("expected a number >= 0, got " + n->describe());
        }
        if (auto n = node.find("density_tolerance")) {
            f.density_tolerance = n->positive_number();
            if (f.density_tolerance >= 1.0)
                n->fail("expected a number in (0, 1), got " + n->describe());
        }
        if (auto n = node.find("velocity")) f.velocity = n->vec3();
        if (!scene.fluids.empty()) {
            // All blocks form one fluid: a block that leaves out a material key takes the first
            // block's; one that gives another value is an error.
            const FluidBlockSpec& first = scene.fluids.front();
            auto same = [&](const char* key, double& mine, double theirs) {
                const auto n = node.find(key);
                if (!n) {
                    mine = theirs;
                } else if (mine != theirs) {
                    std::ostringstream v;
                    v << theirs;
                    n->fail("must equal the first fluid block's (" + v.str() +
                            "): all blocks of a scene form one fluid");
                }
            };
            same("particle_radius", f.particle_radius, first.particle_radius);
            same("rest_density", f.rest_density, first.rest_density);
            same("viscosity", f.viscosity, first.viscosity);
            same("density_tolerance", f.density_tolerance, first.density_tolerance);
        }
        scene.fluids.push_back(std::move(f));
    }
}

}  // namespace

SceneSpec parse_scene(const nlohmann::json& json, const std::string& source_name,
                      const std::string& base_dir) {
    JsonNode root(json, source_name);
    root.expect_object({"$schema", "name", "time_step", "frames", "substeps", "checkpoint_every",
                        "gravity", "contact", "solver", "distributed", "materials", "planes", "modal_bases", "bodies",
                        "robots", "joints", "fluids"});
    SceneSpec s;
    s.source_path = source_name;
    if (auto n = root.find("$schema")) (void)n->string();
    if (auto n = root.find("name")) s.name = n->name();
    if (auto n = root.find("time_step")) s.time_step = n->positive_number();
    if (auto n = root.find("frames")) s.frames = n->integer(0, std::numeric_limits<int>::max());
    if (auto n = root.find("substeps")) s.substeps = n->integer(1, 1'000'000);
    if (auto n = root.find("checkpoint_every")) {
        if (n->value().is_string()) {
            if (n->string() != "auto") n->fail("expected an integer >= 0 or \"auto\"");
            s.checkpoint_every = SceneSpec::kCheckpointAuto;
        } else {
            s.checkpoint_every = n->integer(0, std::numeric_limits<int>::max());
        }
    }
    if (auto n = root.find("gravity")) s.gravity = n->vec3();
    if (auto n = root.find("contact")) parse_contact(*n, s.contact);
    // The solver module owns the "solver" keys; the deprecated SolverSpec members stay at their
    // defaults (parse_solver_params maps the first simulator's keys onto SolverParams).
    if (auto n = root.find("solver"))
        static_cast<SolverParams&>(s.solver) = parse_solver_params(*n);
    if (auto n = root.find("distributed")) s.distributed = parse_distributed_spec(*n);
    if (auto n = root.find("materials")) {
        if (!n->value().is_object()) n->fail("expected an object mapping names to materials");
        for (const auto& item : n->value().items()) {
            JsonNode m = n->child(item.key());
            if (item.key().empty()) m.fail("material names must not be empty");
            s.materials[item.key()] = parse_material(m);
        }
    }
    s.planes = parse_planes(root);
    if (auto n = root.find("modal_bases")) parse_modal_bases(*n, base_dir, s);
    if (auto n = root.find("bodies")) parse_bodies(*n, base_dir, s);
    if (auto n = root.find("robots"))
        for (std::size_t i = 0; i < n->array_size(); ++i) parse_robot(n->element(i), base_dir, s);
    if (static_cast<long long>(s.bodies.size()) > kMaxBodies)
        root.fail("the scene has more than " + std::to_string(kMaxBodies) + " bodies");
    if (auto n = root.find("joints"))
        for (std::size_t i = 0; i < n->array_size(); ++i)
            s.joints.push_back(parse_joint(n->element(i), s));
    parse_contact_exclude(root.find("contact"), s);
    if (auto n = root.find("fluids")) parse_fluids(*n, base_dir, s);
    return s;
}

std::vector<PlaneSpec> parse_scene_planes(const nlohmann::json& json,
                                          const std::string& source_name) {
    JsonNode root(json, source_name);
    if (!json.is_object()) root.fail("expected a JSON object");
    return parse_planes(root);
}

SceneSpec load_scene_file(const std::string& path) {
    nlohmann::json json = read_json_file(path);
    std::string base_dir = std::filesystem::path(path).parent_path().string();
    return parse_scene(json, path, base_dir);
}

}  // namespace concord
