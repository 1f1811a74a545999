#include "scene_resolve.hpp"

#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include "concord/math/error.hpp"
#include "concord/scene/body_name.hpp"
#include "concord/scene/scene_json.hpp"
#include "concord/scene/scene_names.hpp"
#include "concord/scene/scene_parser.hpp"

namespace concord::python {

namespace {

constexpr const char* kBuiltSceneLabel = "<python scene>";

std::string body_path(std::size_t index, const char* key) {
    return "bodies[" + std::to_string(index) + "]." + key;
}

Vec3 vec3_of(const py::handle& h, const std::string& what) {
    try {
        const auto v = h.cast<std::vector<double>>();
        if (v.size() == 3) return Vec3(v[0], v[1], v[2]);
    } catch (const py::cast_error&) {
    }
    throw InputError(kBuiltSceneLabel + std::string(": ") + what + ": expected 3 numbers, got " +
                     py::repr(h).cast<std::string>());
}

Mat3 mat3_of(const py::handle& h, const std::string& what) {
    try {
        return h.cast<Mat3>();
    } catch (const py::cast_error&) {
        throw InputError(kBuiltSceneLabel + std::string(": ") + what +
                         ": expected a 3x3 rotation matrix, got " +
                         py::repr(h).cast<std::string>());
    }
}

[[noreturn]] void fail(const std::string& what, const std::string& message) {
    throw InputError(kBuiltSceneLabel + std::string(": ") + what + ": " + message);
}

}  // namespace

SceneSpec resolve_scene(const SceneSpec& s) {
    const std::string label = s.source_path.empty() ? kBuiltSceneLabel : s.source_path;
    SceneSpec r = parse_scene(scene_to_json(s), label, "");
    // The scene JSON carries the scene keys only; the C++-only options stay as they were set.
    static_cast<SolverParams&>(r.solver) = static_cast<const SolverParams&>(s.solver);
    r.source_path = s.source_path;
    return r;
}

int scene_add_body(SceneSpec& s, const ShapeSpec& shape, const py::object& name,
                   const py::object& material, const py::object& position,
                   const py::object& rotation, const py::object& velocity,
                   const py::object& angular_velocity, const py::object& motion,
                   const py::object& kinematic, const py::object& friction,
                   const py::object& external_force) {
    const std::size_t index = s.bodies.size();
    BodySpec b;
    b.name = name.is_none() ? "body_" + std::to_string(index) : name.cast<std::string>();
    if (!is_file_safe_name(b.name))
        fail(body_path(index, "name"), "body names become file names; use " +
                                           std::string(kFileSafeNameRule) + " (got \"" + b.name +
                                           "\")");
    for (const auto& other : s.bodies)
        if (other.name == b.name)
            fail(body_path(index, "name"), "duplicate body name \"" + b.name + "\"");
    b.shape = shape;

    if (py::isinstance<py::str>(material)) {
        b.material_name = material.cast<std::string>();
        auto it = s.materials.find(b.material_name);
        if (it == s.materials.end()) {
            std::string known;
            for (const auto& [n, m] : s.materials) known += (known.empty() ? "" : ", ") + n;
            fail(body_path(index, "material"),
                 "unknown material \"" + b.material_name + "\" (defined in materials: " +
                     (known.empty() ? "none" : known) + "; add it with add_material)");
        }
        b.material = it->second;
    } else if (py::isinstance<py::dict>(material)) {
        const auto d = material.cast<py::dict>();
        for (const auto& [k, v] : d) {
            const auto key = k.cast<std::string>();
            if (key == "density")
                b.material.density = v.cast<double>();
            else if (key == "youngs_modulus")
                b.material.youngs_modulus = v.cast<double>();
            else
                fail(body_path(index, "material.") + key,
                     "unknown key (allowed here: density, youngs_modulus)");
        }
    } else if (!material.is_none()) {
        b.material = material.cast<MaterialSpec>();
    }

    b.position = vec3_of(position, body_path(index, "position"));
    if (!rotation.is_none()) b.rotation = mat3_of(rotation, body_path(index, "rotation"));
    if (py::isinstance<py::str>(motion)) {
        const auto m = motion_type_from_name(motion.cast<std::string>());
        if (!m)
            fail(body_path(index, "motion"), "expected \"dynamic\", \"static\" or \"kinematic\", "
                                             "got \"" + motion.cast<std::string>() + "\"");
        b.motion = *m;
    } else {
        b.motion = motion.cast<MotionType>();
    }
    const bool dynamic = b.motion == MotionType::Dynamic;
    // The parser's rules: a non-dynamic body's motion belongs in "kinematic" (scene_to_json
    // would otherwise drop these values without a word).
    for (const auto& [value, key] : {std::pair{&velocity, "velocity"},
                                     std::pair{&angular_velocity, "angular_velocity"}})
        if (!value->is_none() && !dynamic)
            fail(body_path(index, key),
                 "only dynamic bodies have an initial velocity (a kinematic body's motion is set "
                 "in \"kinematic\")");
    if (!external_force.is_none() && !dynamic)
        fail(body_path(index, "external_force"), "only dynamic bodies take an external force");
    if (!velocity.is_none()) b.velocity = vec3_of(velocity, body_path(index, "velocity"));
    if (!angular_velocity.is_none())
        b.angular_velocity = vec3_of(angular_velocity, body_path(index, "angular_velocity"));
    if (!external_force.is_none())
        b.external_force = vec3_of(external_force, body_path(index, "external_force"));
    if (!friction.is_none()) b.friction = friction.cast<double>();

    b.kinematic.pivot = b.position;
    if (!kinematic.is_none()) {
        if (b.motion != MotionType::Kinematic)
            fail(body_path(index, "kinematic"), "only allowed with motion kinematic");
        const auto d = kinematic.cast<py::dict>();
        for (const auto& [k, v] : d) {
            const auto key = k.cast<std::string>();
            const std::string path = body_path(index, "kinematic.") + key;
            if (key == "linear_velocity") {
                b.kinematic.linear_velocity = vec3_of(v, path);
            } else if (key == "angular_velocity") {
                b.kinematic.angular_velocity = vec3_of(v, path);
            } else if (key == "pivot") {
                b.kinematic.pivot = vec3_of(v, path);
            } else if (key == "keyframes") {
                std::size_t i = 0;
                for (const auto& item : v) {
                    const std::string kp = path + "[" + std::to_string(i++) + "]";
                    Keyframe kf;
                    kf.position = b.position;
                    kf.rotation = b.rotation;
                    bool has_time = false;
                    for (const auto& [kk, kv] : item.cast<py::dict>()) {
                        const auto kkey = kk.cast<std::string>();
                        if (kkey == "time") {
                            kf.time = kv.cast<double>();
                            has_time = true;
                        } else if (kkey == "position") {
                            kf.position = vec3_of(kv, kp + ".position");
                        } else if (kkey == "rotation") {
                            kf.rotation = mat3_of(kv, kp + ".rotation");
                        } else {
                            fail(kp + "." + kkey, "unknown key (allowed here: time, position, "
                                                  "rotation)");
                        }
                    }
                    if (!has_time) fail(kp + ".time", "required key missing");
                    b.kinematic.keyframes.push_back(kf);
                }
            } else {
                fail(path, "unknown key (allowed here: linear_velocity, angular_velocity, "
                           "pivot, keyframes)");
            }
        }
    }
    s.bodies.push_back(std::move(b));
    return static_cast<int>(index);
}

int scene_body_index(const SceneSpec& s, const py::object& key) {
    const int n = static_cast<int>(s.bodies.size());
    if (py::isinstance<py::str>(key)) {
        const auto name = key.cast<std::string>();
        for (int i = 0; i < n; ++i)
            if (s.bodies[static_cast<std::size_t>(i)].name == name) return i;
        throw py::key_error("no body named \"" + name + "\"");
    }
    int i = key.cast<int>();
    if (i < 0) i += n;
    if (i < 0 || i >= n)
        throw py::index_error("body index " + py::repr(key).cast<std::string>() +
                              " out of range (" + std::to_string(n) + " bodies)");
    return i;
}

nlohmann::json scene_shape_json(const ShapeSpec& shape) {
    SceneSpec one;
    BodySpec b;
    b.name = "b";
    b.shape = shape;
    one.bodies.push_back(b);
    return scene_to_json(one)["bodies"][0]["shape"];
}

}  // namespace concord::python
