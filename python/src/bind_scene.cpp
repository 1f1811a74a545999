// Scenes: loading them from files, JSON text or dicts through the scene parser, and building
// them in code (Scene, Shape, Material, ContactParams), resolved through the same parser.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <fstream>
#include <numbers>

#include "bindings.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/json_file.hpp"
#include "concord/scene/scene_json.hpp"
#include "concord/scene/scene_names.hpp"
#include "concord/scene/scene_parser.hpp"
#include "scene_resolve.hpp"

namespace concord::python {

namespace {

Vec3 vec3_arg(const py::handle& h, const char* what) {
    try {
        const auto v = h.cast<std::vector<double>>();
        if (v.size() == 3) return Vec3(v[0], v[1], v[2]);
    } catch (const py::cast_error&) {
    }
    throw InputError(std::string(what) + ": expected 3 numbers, got " +
                     py::repr(h).cast<std::string>());
}

// The parser's formulas (scene_parser.cpp, parse_rotation), so that a rotation built here is
// bit for bit the one a scene file's {"axis", "angle_deg"} or {"quaternion"} gives; the Python
// test comparing a built scene with scenes/incline.json guards that they stay the same.
Mat3 axis_angle_matrix(const Vec3& axis, double angle_deg) {
    if (!axis.allFinite() || axis.isZero(0.0) || !std::isfinite(angle_deg))
        throw InputError("rotation: expected a non-zero finite axis and a finite angle");
    const double angle = angle_deg * (std::numbers::pi / 180.0);
    if (angle == 0.0) return Mat3::Identity();
    return Eigen::AngleAxisd(angle, axis / axis.stableNorm()).toRotationMatrix();
}

Mat3 quaternion_matrix(double w, double x, double y, double z) {
    Eigen::Vector4d wxyz(w, x, y, z);
    if (!wxyz.allFinite()) throw InputError("rotation.quaternion: expected 4 finite numbers");
    const double n = wxyz.stableNorm();
    if (n == 0.0) throw InputError("rotation.quaternion: the quaternion must not be zero");
    wxyz /= n;
    return Eigen::Quaterniond(wxyz[0], wxyz[1], wxyz[2], wxyz[3]).toRotationMatrix();
}

ShapeSpec make_shape(ShapeKind kind) {
    ShapeSpec s;
    s.kind = kind;
    return s;
}

std::string absolute_path(const std::string& file) {
    if (file.empty()) return file;
    return std::filesystem::absolute(std::filesystem::path(file)).lexically_normal().string();
}

std::string source_label(const std::string& source, const char* fallback) {
    return source.empty() ? std::string(fallback) : source;
}

}  // namespace

void bind_scene(py::module_& m) {
    m.def("axis_angle", &axis_angle_matrix, py::arg("axis"), py::arg("angle_deg"),
          "The 3x3 rotation by angle_deg degrees about axis (right-hand rule), computed as the "
          "scene parser computes {\"axis\": ..., \"angle_deg\": ...}.");
    m.def("quaternion", &quaternion_matrix, py::arg("w"), py::arg("x"), py::arg("y"),
          py::arg("z"),
          "The 3x3 rotation of the quaternion [w, x, y, z] (normalised), as the scene parser "
          "computes {\"quaternion\": [w, x, y, z]}.");

    py::class_<MaterialSpec>(m, "Material", "Density (kg/m^3) and Young's modulus (Pa).")
        .def(py::init([](double density, double youngs_modulus) {
                 return MaterialSpec{density, youngs_modulus};
             }),
             py::arg("density") = 1000.0, py::arg("youngs_modulus") = 1e9)
        .def_readwrite("density", &MaterialSpec::density, "kg/m^3 (default 1000).")
        .def_readwrite("youngs_modulus", &MaterialSpec::youngs_modulus, "Pa (default 1e9).")
        .def(py::self == py::self)
        .def("__repr__", [](const MaterialSpec& s) {
            return "Material(density=" + py::repr(py::float_(s.density)).cast<std::string>() +
                   ", youngs_modulus=" +
                   py::repr(py::float_(s.youngs_modulus)).cast<std::string>() + ")";
        });

    py::class_<ShapeSpec>(
        m, "Shape",
        "One primitive or mesh file in local coordinates (docs/scene-format.md, Shapes). Build "
        "one with the static methods box, sphere, cylinder, capsule, torus, mesh, container, "
        "funnel; only the fields of its kind are meaningful.")
        .def_static(
            "box",
            [](const py::object& size) {
                ShapeSpec s = make_shape(ShapeKind::Box);
                s.size = vec3_arg(size, "shape.box.size");
                return s;
            },
            py::arg("size") = py::make_tuple(1.0, 1.0, 1.0), "Box with edge lengths size, m.")
        .def_static(
            "sphere",
            [](double radius, int subdivisions) {
                ShapeSpec s = make_shape(ShapeKind::Sphere);
                s.radius = radius;
                s.subdivisions = subdivisions;
                return s;
            },
            py::arg("radius") = 0.5, py::arg("subdivisions") = 2,
            "Icosphere of radius m, 20 * 4^subdivisions triangles.")
        .def_static(
            "cylinder",
            [](double radius, double height, int segments) {
                ShapeSpec s = make_shape(ShapeKind::Cylinder);
                s.radius = radius;
                s.height = height;
                s.segments = segments;
                return s;
            },
            py::arg("radius") = 0.5, py::arg("height") = 1.0, py::arg("segments") = 24,
            "Cylinder along y.")
        .def_static(
            "capsule",
            [](double radius, double height, int segments, int rings) {
                ShapeSpec s = make_shape(ShapeKind::Capsule);
                s.radius = radius;
                s.height = height;
                s.segments = segments;
                s.rings = rings;
                return s;
            },
            py::arg("radius") = 0.5, py::arg("height") = 1.0, py::arg("segments") = 24,
            py::arg("rings") = 8, "Capsule along y; height is the cylindrical part's.")
        .def_static(
            "torus",
            [](double major_radius, double minor_radius, int segments, int rings) {
                ShapeSpec s = make_shape(ShapeKind::Torus);
                s.major_radius = major_radius;
                s.radius = minor_radius;
                s.segments = segments;
                s.rings = rings;
                return s;
            },
            py::arg("major_radius") = 1.0, py::arg("minor_radius") = 0.5,
            py::arg("segments") = 24, py::arg("rings") = 8, "Torus in the xz plane.")
        .def_static(
            "mesh",
            [](const std::string& file, const py::object& scale) {
                ShapeSpec s = make_shape(ShapeKind::Mesh);
                s.file = file;
                s.resolved_file = absolute_path(file);
                if (py::isinstance<py::float_>(scale) || py::isinstance<py::int_>(scale))
                    s.scale = Vec3::Constant(scale.cast<double>());
                else
                    s.scale = vec3_arg(scale, "shape.mesh.scale");
                return s;
            },
            py::arg("file"), py::arg("scale") = 1.0,
            "A closed mesh file (OBJ, STL, PLY); a relative path is relative to the current "
            "directory. scale: a number or 3 numbers.")
        .def_static(
            "container",
            [](const py::object& size, double wall_thickness) {
                ShapeSpec s = make_shape(ShapeKind::Container);
                s.size = vec3_arg(size, "shape.container.size");
                s.wall_thickness = wall_thickness;
                return s;
            },
            py::arg("size") = py::make_tuple(1.0, 1.0, 1.0), py::arg("wall_thickness") = 0.05,
            "Open-top box of inner size, m.")
        .def_static(
            "funnel",
            [](double top_radius, double bottom_radius, double height, double wall_thickness,
               int segments) {
                ShapeSpec s = make_shape(ShapeKind::Funnel);
                s.top_radius = top_radius;
                s.bottom_radius = bottom_radius;
                s.height = height;
                s.wall_thickness = wall_thickness;
                s.segments = segments;
                return s;
            },
            py::arg("top_radius") = 1.0, py::arg("bottom_radius") = 0.5, py::arg("height") = 1.0,
            py::arg("wall_thickness") = 0.05, py::arg("segments") = 24, "Funnel along y.")
        .def_readwrite("kind", &ShapeSpec::kind, "ShapeKind.")
        .def_readwrite("size", &ShapeSpec::size, "box: edge lengths; container: inner size.")
        .def_readwrite("radius", &ShapeSpec::radius, "sphere, cylinder, capsule; torus: minor.")
        .def_readwrite("major_radius", &ShapeSpec::major_radius)
        .def_readwrite("height", &ShapeSpec::height)
        .def_readwrite("top_radius", &ShapeSpec::top_radius)
        .def_readwrite("bottom_radius", &ShapeSpec::bottom_radius)
        .def_readwrite("wall_thickness", &ShapeSpec::wall_thickness)
        .def_readwrite("subdivisions", &ShapeSpec::subdivisions)
        .def_readwrite("segments", &ShapeSpec::segments)
        .def_readwrite("rings", &ShapeSpec::rings)
        .def_readonly("file", &ShapeSpec::file, "mesh: the path as given.")
        .def_readonly("resolved_file", &ShapeSpec::resolved_file, "mesh: absolute path.")
        .def_readwrite("scale", &ShapeSpec::scale)
        .def(py::self == py::self)
        .def("__repr__", [](const ShapeSpec& s) {
            return "Shape(" + scene_shape_json(s).dump() + ")";
        });

    py::class_<ContactSpec>(m, "ContactParams", "The scene's \"contact\" object.")
        .def(py::init<>())
        .def_readwrite("dhat", &ContactSpec::dhat, "Barrier activation distance, m (1e-3).")
        .def_readwrite("friction", &ContactSpec::friction, "Default friction coefficient (0).")
        .def_readwrite("friction_velocity", &ContactSpec::friction_velocity,
                       "eps_v: below this slip speed friction is static, m/s (1e-3).")
        .def_readwrite("friction_iterations", &ContactSpec::friction_iterations,
                       "Friction re-lag rounds per step (1).")
        .def_readwrite("barrier_stiffness", &ContactSpec::barrier_stiffness,
                       "kappa; 0 = automatic (default).")
        .def(py::self == py::self);

    py::class_<PlaneSpec>(m, "Plane", "A static half-space (read from Scene.planes).")
        .def_readonly("point", &PlaneSpec::point)
        .def_readonly("normal", &PlaneSpec::normal)
        .def_readonly("friction", &PlaneSpec::friction, "None when unset.");

    py::class_<Keyframe>(m, "Keyframe", "A kinematic body's pose at a time.")
        .def_readonly("time", &Keyframe::time)
        .def_readonly("position", &Keyframe::position)
        .def_readonly("rotation", &Keyframe::rotation);

    py::class_<KinematicSpec>(m, "Kinematic", "A kinematic body's prescribed motion.")
        .def_readonly("linear_velocity", &KinematicSpec::linear_velocity)
        .def_readonly("angular_velocity", &KinematicSpec::angular_velocity)
        .def_readonly("pivot", &KinematicSpec::pivot)
        .def_readonly("keyframes", &KinematicSpec::keyframes);

    py::class_<BodySpec>(m, "Body", "One body of a scene (a copy: Scene.body(i)).")
        .def_readonly("name", &BodySpec::name)
        .def_readonly("shape", &BodySpec::shape)
        .def_readonly("material_name", &BodySpec::material_name, "Empty for inline materials.")
        .def_readonly("material", &BodySpec::material)
        .def_readonly("position", &BodySpec::position)
        .def_readonly("rotation", &BodySpec::rotation)
        .def_readonly("velocity", &BodySpec::velocity)
        .def_readonly("angular_velocity", &BodySpec::angular_velocity)
        .def_readonly("motion", &BodySpec::motion)
        .def_readonly("kinematic", &BodySpec::kinematic)
        .def_readonly("friction", &BodySpec::friction, "None when unset.")
        .def_readonly("external_force", &BodySpec::external_force)
        .def(py::self == py::self);

    py::class_<SolverSpec, SolverParams>(m, "_SceneSolverParams",
                                         "The SolverParams stored in a Scene (edit in place).");

    py::class_<SceneSpec>(
        m, "Scene",
        "A scene: what a scene file says, with every default filled in (docs/scene-format.md). "
        "Load one with load_scene / scene_from_dict / scene_from_json, or build one: "
        "Scene(name=...), then add_material, add_plane and add_body. Values are checked, with "
        "the scene parser's messages, when a World is made from the scene or by validate().")
        .def(py::init([](const std::string& name, double time_step, int frames, int substeps,
                         const py::object& gravity) {
                 SceneSpec s;
                 s.name = name;
                 s.time_step = time_step;
                 s.frames = frames;
                 s.substeps = substeps;
                 s.gravity = vec3_arg(gravity, "gravity");
                 return s;
             }),
             py::arg("name") = "scene", py::arg("time_step") = 0.01, py::arg("frames") = 100,
             py::arg("substeps") = 1, py::arg("gravity") = py::make_tuple(0.0, -9.81, 0.0))
        .def_readwrite("name", &SceneSpec::name)
        .def_readonly("source_path", &SceneSpec::source_path,
                      "The scene file (empty when built in code).")
        .def_readwrite("time_step", &SceneSpec::time_step, "h, s (default 0.01).")
        .def_readwrite("frames", &SceneSpec::frames, "Frames World.run writes after frame 0.")
        .def_readwrite("substeps", &SceneSpec::substeps, "Time steps per saved frame.")
        .def_property(
            "gravity", [](const SceneSpec& s) { return s.gravity; },
            [](SceneSpec& s, const py::object& g) { s.gravity = vec3_arg(g, "gravity"); },
            "m/s^2 (a copy; assign a new value to change it).")
        .def_readwrite("contact", &SceneSpec::contact,
                       "ContactParams, edited in place: scene.contact.dhat = 1e-3.")
        .def_property(
            "solver", [](SceneSpec& s) -> SolverParams& { return s.solver; },
            [](SceneSpec& s, const SolverParams& p) {
                s.solver = SolverSpec{};
                static_cast<SolverParams&>(s.solver) = p;
            },
            py::return_value_policy::reference_internal,
            "SolverParams, edited in place (scene.solver.max_iterations = 20) or replaced.")
        .def_property_readonly(
            "materials", [](const SceneSpec& s) { return s.materials; },
            "dict name -> Material (a copy; add_material adds one).")
        .def_property_readonly(
            "planes", [](const SceneSpec& s) { return s.planes; }, "list of Plane (a copy).")
        .def_property_readonly(
            "bodies", [](const SceneSpec& s) { return s.bodies; }, "list of Body (a copy).")
        .def_property_readonly("num_bodies",
                               [](const SceneSpec& s) { return static_cast<int>(s.bodies.size()); })
        .def(
            "body",
            [](const SceneSpec& s, const py::object& key) {
                return s.bodies.at(static_cast<std::size_t>(scene_body_index(s, key)));
            },
            py::arg("index_or_name"), "A copy of a body, by index or name.")
        .def(
            "add_material",
            [](SceneSpec& s, const std::string& name, double density, double youngs_modulus) {
                if (name.empty()) throw InputError("materials: material names must not be empty");
                s.materials[name] = MaterialSpec{density, youngs_modulus};
            },
            py::arg("name"), py::arg("density") = 1000.0, py::arg("youngs_modulus") = 1e9,
            "Adds (or replaces) a named material for add_body(material=name).")
        .def(
            "add_plane",
            [](SceneSpec& s, const py::object& point, const py::object& normal,
               std::optional<double> friction) {
                PlaneSpec p;
                p.point = vec3_arg(point, "planes.point");
                p.normal = vec3_arg(normal, "planes.normal");
                p.friction = friction;
                s.planes.push_back(p);
                return static_cast<int>(s.planes.size()) - 1;
            },
            py::arg("point") = py::make_tuple(0.0, 0.0, 0.0),
            py::arg("normal") = py::make_tuple(0.0, 1.0, 0.0), py::arg("friction") = py::none(),
            "Adds a static half-space (the normal is normalised when the scene is resolved, as "
            "in a file); returns its index.")
        .def("add_body", &scene_add_body, py::arg("shape"), py::kw_only(),
             py::arg("name") = py::none(), py::arg("material") = py::none(),
             py::arg("position") = py::make_tuple(0.0, 0.0, 0.0),
             py::arg("rotation") = py::none(), py::arg("velocity") = py::none(),
             py::arg("angular_velocity") = py::none(), py::arg("motion") = "dynamic",
             py::arg("kinematic") = py::none(), py::arg("friction") = py::none(),
             py::arg("external_force") = py::none(),
             "Adds a body and returns its index. shape: a Shape. name: default \"body_INDEX\". "
             "material: a name from add_material, a Material, a dict {density, youngs_modulus} "
             "or None (density 1000, E 1e9). rotation: a 3x3 matrix (axis_angle(), quaternion()) "
             "or None. motion: MotionType or its name. velocity, angular_velocity (rad/s) and "
             "external_force (N): dynamic bodies only. kinematic (motion kinematic only): dict "
             "with linear_velocity, angular_velocity, pivot (default: position) or keyframes, a "
             "list of dicts {time, position, rotation} (position and rotation default to the "
             "body's). friction: overrides contact.friction for this body's pairs.")
        .def(
            "validate", [](const SceneSpec& s) { (void)resolve_scene(s); },
            "Raises InputError with the scene parser's message (\"<python scene>: "
            "bodies[0].shape.box.size: ...\") when the scene is invalid.")
        .def("resolved", &resolve_scene,
             "The scene as the parser resolves it (normals normalised, defaults filled in): "
             "what a World simulates. Equal (==) to the scene loaded from the equivalent JSON, "
             "apart from source_path and relative mesh paths.")
        .def(
            "to_dict", [](const SceneSpec& s) { return from_json(scene_to_json(s)); },
            "The resolved-scene JSON object (scene.json of an output directory).")
        .def(
            "to_json",
            [](const SceneSpec& s, int indent) { return scene_to_json(s).dump(indent); },
            py::arg("indent") = 2, "to_dict() as JSON text.")
        .def(
            "save",
            [](const SceneSpec& s, const std::string& path) {
                std::ofstream out(path);
                out << scene_to_json(s).dump(2) << "\n";
                if (!out) throw InputError(path + ": cannot write file");
            },
            py::arg("path"), "Writes to_json() to a scene file.")
        .def(py::self == py::self)
        .def("__repr__", [](const SceneSpec& s) {
            return "Scene(name=\"" + s.name + "\", " + std::to_string(s.bodies.size()) +
                   " bodies, " + std::to_string(s.planes.size()) + " planes)";
        })
        .def(py::pickle([](const SceneSpec& s) { return scene_to_json(s).dump(); },
                        [](const std::string& text) {
                            return parse_scene(nlohmann::json::parse(text), "<pickle>", "");
                        }));

    m.def(
        "load_scene", [](const std::string& path) { return load_scene_file(path); },
        py::arg("path"),
        "Reads a scene file (as `concord run` does). Raises InputError \"PATH: key.path: "
        "message\" for invalid input.");
    m.def(
        "scene_from_json",
        [](const std::string& text, const std::string& base_dir, const std::string& source) {
            const std::string label = source_label(source, "<json>");
            return parse_scene(parse_json_text(text, label), label, base_dir);
        },
        py::arg("text"), py::arg("base_dir") = "", py::arg("source") = "",
        "Parses scene JSON text (comments allowed). Relative mesh paths resolve against base_dir "
        "(default: the current directory); source prefixes error messages.");
    m.def(
        "scene_from_dict",
        [](const py::dict& d, const std::string& base_dir, const std::string& source) {
            const std::string label = source_label(source, "<dict>");
            return parse_scene(to_json(d), label, base_dir);
        },
        py::arg("scene"), py::arg("base_dir") = "", py::arg("source") = "",
        "Parses a scene given as a dict in the scene-file format (numpy arrays allowed as "
        "vectors). Errors as for files: InputError \"<dict>: key.path: message\".");
}

}  // namespace concord::python
