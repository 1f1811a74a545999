// The World: stepping (GIL released), numpy views of its state, capture/restore, solver
// statistics, contact reports and the standard output directory.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>

#include "bindings.hpp"
#include "concord/distributed/distributed_world.hpp"
#include "concord/io/frame_loop.hpp"
#include "concord/io/run_resume.hpp"
#include "concord/io/output_writer.hpp"
#include "concord/io/step_stats_json.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/distributed_json.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/world/contact_report.hpp"
#include "concord/world/world.hpp"
#include "scene_resolve.hpp"

namespace concord::python {

namespace {

/// A World with a flag that keeps a second thread from using it while step() runs without
/// the GIL (a try-lock, so it never blocks a thread that holds the GIL).
struct WorldHandle {
    explicit WorldHandle(const SceneSpec& spec) : world(spec) {}
    World world;
    std::atomic<bool> busy{false};
};

class BusyGuard {
  public:
    explicit BusyGuard(WorldHandle& h) : h_(h) {
        bool expected = false;
        if (!h_.busy.compare_exchange_strong(expected, true))
            throw std::runtime_error(
                "this World is busy: step() or run() is running in another thread");
    }
    ~BusyGuard() { h_.busy = false; }
    BusyGuard(const BusyGuard&) = delete;
    BusyGuard& operator=(const BusyGuard&) = delete;

  private:
    WorldHandle& h_;
};

/// Lets Ctrl-C end a long step(n) / run() between two steps (KeyboardInterrupt).
void check_signals() {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

SceneSpec scene_from_object(const py::object& source) {
    if (py::isinstance<SceneSpec>(source)) return resolve_scene(source.cast<const SceneSpec&>());
    if (py::isinstance<py::dict>(source)) return parse_scene(to_json(source), "<dict>", "");
    py::object os = py::module_::import("os");
    if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__"))
        return load_scene_file(os.attr("fspath")(source).cast<std::string>());
    throw py::type_error("World(): expected a Scene, a scene file path or a scene dict, got " +
                         py::repr(source).cast<std::string>());
}

int body_index(const World& w, const py::object& key) {
    const int n = w.num_bodies();
    if (py::isinstance<py::str>(key)) {
        const auto name = key.cast<std::string>();
        for (int i = 0; i < n; ++i)
            if (w.body(i).name == name) return i;
        throw py::key_error("no body named \"" + name + "\"");
    }
    int i = key.cast<int>();
    if (i < 0) i += n;
    if (i < 0 || i >= n)
        throw py::index_error("body index " + py::repr(key).cast<std::string>() +
                              " out of range (" + std::to_string(n) + " bodies)");
    return i;
}

/// (J,) array of `value(j)` over the world's joints (a copy).
py::array_t<double> per_joint(WorldHandle& h, double (World::*value)(int) const) {
    BusyGuard busy(h);
    py::array_t<double> out(h.world.num_joints());
    auto r = out.mutable_unchecked<1>();
    for (int j = 0; j < h.world.num_joints(); ++j) r(j) = (h.world.*value)(j);
    return out;
}

/// A joint given by name (or index, negative from the end) -> its index.
int joint_index(const World& w, const py::object& key) {
    const int n = w.num_joints();
    if (py::isinstance<py::str>(key)) {
        const auto name = key.cast<std::string>();
        for (int j = 0; j < n; ++j)
            if (w.joint(j).name == name) return j;
        std::string known;
        for (int j = 0; j < n; ++j) known += (known.empty() ? "" : ", ") + w.joint(j).name;
        throw py::key_error("no joint named \"" + name + "\" (joints: " +
                            (known.empty() ? "none" : known) + ")");
    }
    int j = key.cast<int>();
    if (j < 0) j += n;
    if (j < 0 || j >= n)
        throw py::index_error("joint index " + py::repr(key).cast<std::string>() +
                              " out of range (" + std::to_string(n) + " joints)");
    return j;
}

/// A (B, 12) numpy view of the affine part of a state vector, kept alive by `owner`. `bodies`:
/// B (the modal coordinates of elastic bodies follow the 12 B affine numbers and are not part
/// of the view); -1: the vector holds 12 numbers per body only.
py::array_t<double> state_view(const VecX& v, py::handle owner, bool writeable,
                               py::ssize_t bodies = -1) {
    const py::ssize_t B = bodies >= 0 ? bodies : v.size() / 12;
    py::array_t<double> a({B, py::ssize_t(12)},
                          {py::ssize_t(12 * sizeof(double)), py::ssize_t(sizeof(double))},
                          v.data(), owner);
    if (!writeable) a.attr("setflags")(py::arg("write") = false);
    return a;
}

py::bytes as_bytes(const std::vector<std::uint8_t>& b) {
    return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

enum class FluidColumn { Position, Velocity, Pressure };

/// A read-only numpy view of the fluid's particles, kept alive by the world object. The
/// particle arrays keep their size and storage for the world's lifetime (steps and restores
/// assign them in place), as q does.
py::array_t<double> fluid_view(py::handle self, FluidColumn c) {
    const World& w = self.cast<WorldHandle&>().world;
    const FluidParticles* f = w.fluid_particles();
    const auto n = static_cast<py::ssize_t>(f ? f->size() : 0);
    static const double none = 0.0;
    py::array_t<double> a;
    if (c == FluidColumn::Pressure) {
        a = py::array_t<double>({n}, {py::ssize_t(sizeof(double))}, f ? f->pressure.data() : &none,
                                self);
    } else {
        const std::vector<Vec3>* v = f ? (c == FluidColumn::Position ? &f->x : &f->v) : nullptr;
        a = py::array_t<double>({n, py::ssize_t(3)},
                                {py::ssize_t(sizeof(Vec3)), py::ssize_t(sizeof(double))},
                                v ? v->front().data() : &none, self);
    }
    a.attr("setflags")(py::arg("write") = false);
    return a;
}

/// Copies an array into a state vector `dst` of fixed size whose first 12 B numbers are the
/// bodies' affine ones: a (B, 12) array replaces those and keeps the modal coordinates after
/// them; a flat array of dst's whole size replaces everything.
void copy_state(VecX& dst, const py::array_t<double, py::array::c_style | py::array::forcecast>& a,
                const char* what, py::ssize_t bodies) {
    const py::ssize_t n = dst.size();
    const bool rows = a.ndim() == 2 && a.shape(0) == bodies && a.shape(1) == 12;
    const bool flat = a.ndim() == 1 && a.shape(0) == n;
    if (!rows && !flat) {
        // A stream, not string concatenation: GCC 12's LTO flags the latter with a spurious
        // -Wstringop-overflow.
        std::ostringstream message;
        message << what << ": expected shape (" << bodies << ", 12)";
        if (n != 12 * bodies) message << " or (" << n << ",) with the modal coordinates";
        message << ", got (";
        for (py::ssize_t d = 0; d < a.ndim(); ++d) message << (d ? ", " : "") << a.shape(d);
        message << ")";
        throw py::value_error(message.str());
    }
    const py::ssize_t count = rows ? 12 * bodies : n;
    if (count > 0) std::memcpy(dst.data(), a.data(), static_cast<std::size_t>(count) * sizeof(double));
}

/// B of a captured state (its layout), or 12 numbers per body when the state does not say.
py::ssize_t state_bodies(const WorldState& s) {
    return s.num_bodies >= 0 ? s.num_bodies : s.q.size() / 12;
}

/// A writeable numpy view of the modal coordinates that follow the 12 B affine numbers.
py::array_t<double> modal_view(VecX& v, py::handle owner, py::ssize_t bodies) {
    const py::ssize_t m = v.size() - 12 * bodies;
    return py::array_t<double>({m}, {py::ssize_t(sizeof(double))}, v.data() + 12 * bodies, owner);
}

/// Moves a computed matrix into a numpy array without copying its entries.
template <typename M>
py::array_t<typename M::Scalar> owned_array(M&& m) {
    using T = typename M::Scalar;
    static_assert(M::IsRowMajor, "row-major matrices map to C-ordered arrays");
    auto* heap = new M(std::forward<M>(m));
    py::capsule owner(heap, [](void* p) { delete static_cast<M*>(p); });
    return py::array_t<T>({py::ssize_t(heap->rows()), py::ssize_t(heap->cols())},
                          {py::ssize_t(heap->cols() * sizeof(T)), py::ssize_t(sizeof(T))},
                          heap->data(), owner);
}

StepStats step_world(WorldHandle& h, int n) {
    if (n < 0) throw InputError("step: expected a number of steps >= 0, got " + std::to_string(n));
    BusyGuard busy(h);
    StepStats last = h.world.last_stats();
    py::gil_scoped_release release;
    for (int i = 0; i < n; ++i) {
        last = h.world.step();
        if (i + 1 < n) check_signals();
    }
    return last;
}

int step_world_until(WorldHandle& h, double t) {
    if (!std::isfinite(t)) throw InputError("step_until: expected a finite time, got " +
                                            std::to_string(t));
    BusyGuard busy(h);
    const double half_step = 0.5 * h.world.spec().time_step;
    int taken = 0;
    py::gil_scoped_release release;
    while (h.world.time() < t - half_step) {
        const double before = h.world.time();
        h.world.step();
        ++taken;
        // A diverged step leaves the state and time unchanged: stepping again would repeat it
        // forever, so stop and let the caller look at last_stats.
        if (!(h.world.time() > before)) break;
        check_signals();
    }
    return taken;
}

/// The world's scene as scene.json records it (the solver options in use).
SceneSpec resolved_scene(const World& w) {
    SceneSpec scene = w.spec();
    static_cast<SolverParams&>(scene.solver) = w.solver_params();
    return scene;
}

// World.run(workers=N > 1): the same scene and current state, advanced by the distributed
// solver with N in-process workers (docs/distributed.md); the world then takes the end state.
int run_distributed(WorldHandle& h, const std::string& out, std::optional<int> frames, bool force,
                    int workers) {
    if (frames && *frames < 0)
        throw InputError("frames: expected an integer >= 0, got " + std::to_string(*frames));
    BusyGuard busy(h);
    World& w = h.world;
    SceneSpec scene = resolved_scene(w);
    if (frames) scene.frames = *frames;
    set_worker_count(scene.distributed, workers, "workers=" + std::to_string(workers));
    OutputWriter writer(out, force);
    py::gil_scoped_release release;
    DistributedWorld dw(scene);
    dw.restore_state(w.capture_state());
    writer.write_header(scene, output_bodies(dw));
    const int frames_done = run_frames(dw, scene, writer, [](int, const StepStats&) {
        check_signals();
        return true;
    });
    w.restore_state(dw.capture_state());
    return frames_done;
}

int run_world(WorldHandle& h, const std::string& out, std::optional<int> frames, bool force,
              int workers) {
    if (workers < 1)
        throw InputError("workers: expected an integer >= 1, got " + std::to_string(workers));
    if (workers > 1) {
        return run_distributed(h, out, frames, force, workers);
    }
    if (frames && *frames < 0)
        throw InputError("frames: expected an integer >= 0, got " + std::to_string(*frames));
    BusyGuard busy(h);
    World& w = h.world;
    // scene.json records the options the frames are computed with.
    SceneSpec scene = resolved_scene(w);
    if (frames) scene.frames = *frames;
    OutputWriter writer(out, force);
    writer.write_header(scene, output_bodies(w));
    py::gil_scoped_release release;
    return run_frames(w, scene, writer, [](int, const StepStats&) {
        check_signals();
        return true;
    });
}

py::dict body_info(const World& w, int i) {
    const AffineBody& b = w.body(i);
    py::dict d;
    d["name"] = b.name;
    d["motion"] = b.motion;
    d["mass"] = b.mass_properties.mass;
    d["volume"] = b.mass_properties.volume;
    d["center_of_mass"] = Vec3(b.mass_properties.center_of_mass);
    d["inertia_about_com"] = Mat3(b.mass_properties.inertia_about_com);
    d["num_vertices"] = b.mesh().num_vertices();
    d["num_faces"] = b.mesh().num_faces();
    d["bounding_radius"] = b.bounding_radius;
    d["friction"] = b.friction;
    return d;
}

template <typename F>
py::array_t<double> contact_column(const ContactReport& r, F f) {
    py::array_t<double> a(static_cast<py::ssize_t>(r.contacts.size()));
    auto* p = a.mutable_data();
    for (const auto& c : r.contacts) *p++ = f(c);
    return a;
}

py::array_t<int> contact_pairs(const ContactReport& r, bool elements) {
    py::array_t<int> a({static_cast<py::ssize_t>(r.contacts.size()), py::ssize_t(2)});
    auto* p = a.mutable_data();
    for (const auto& c : r.contacts) {
        *p++ = elements ? c.element_a : c.body_a;
        *p++ = elements ? c.element_b : c.body_b;
    }
    return a;
}

}  // namespace

void bind_world(py::module_& m) {
    py::class_<WorldState>(
        m, "WorldState",
        "Everything that evolves while a world steps (World.capture_state()). q and q_dot are "
        "writeable (B, 12) numpy views into this object (no copy); edit them and give the "
        "state to World.restore_state to change the world.")
        .def(py::init<>())
        .def_readwrite("time", &WorldState::time, "s")
        .def_readwrite("steps", &WorldState::steps)
        .def_property(
            "q", [](py::object self) {
                WorldState& s = self.cast<WorldState&>();
                return state_view(s.q, self, true, state_bodies(s));
            },
            [](WorldState& s, const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
                copy_state(s.q, a, "WorldState.q", state_bodies(s));
            },
            "(B, 12) view: per body p (3) then A row-major (9); x = p + A X. Setting it with a "
            "(B, 12) array keeps the modal coordinates; a flat array of all coordinates "
            "replaces them too.")
        .def_property(
            "q_dot", [](py::object self) {
                WorldState& s = self.cast<WorldState&>();
                return state_view(s.q_dot, self, true, state_bodies(s));
            },
            [](WorldState& s, const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
                copy_state(s.q_dot, a, "WorldState.q_dot", state_bodies(s));
            },
            "(B, 12) view of dq/dt.")
        .def_property_readonly(
            "modal_q", [](py::object self) {
                WorldState& s = self.cast<WorldState&>();
                return modal_view(s.q, self, state_bodies(s));
            },
            "Writeable view of the modal coordinates of the reduced elastic bodies (after the "
            "12 B affine numbers, in body order; empty without elastic bodies).")
        .def_property_readonly(
            "modal_q_dot", [](py::object self) {
                WorldState& s = self.cast<WorldState&>();
                return modal_view(s.q_dot, self, state_bodies(s));
            },
            "Writeable view of the modal velocities, laid out as modal_q.")
        .def_readonly("num_bodies", &WorldState::num_bodies,
                      "B: q and q_dot start with 12 numbers per body (-1: not recorded; then "
                      "q holds 12 per body only).")
        .def_readwrite("barrier_stiffness", &WorldState::barrier_stiffness,
                       "Adaptive kappa carried between steps.")
        .def_readwrite("time_step_level", &WorldState::time_step_level,
                       "Retry-halving level: the step in use is time_step / 2^level.")
        .def_readwrite("level_successes", &WorldState::level_successes)
        .def("bitwise_equal", &WorldState::bitwise_equal, py::arg("other"),
             "True when every number has the same bits.")
        .def("__eq__", &WorldState::bitwise_equal, py::arg("other"), "bitwise_equal.")
        .def("copy", [](const WorldState& s) { return WorldState(s); }, "An independent copy.")
        .def("__copy__", [](const WorldState& s) { return WorldState(s); })
        .def("__deepcopy__", [](const WorldState& s, py::dict) { return WorldState(s); },
             py::arg("memo"))
        .def(py::pickle(
            [](const WorldState& s) {
                return py::make_tuple(
                    s.time, s.steps,
                    py::bytes(reinterpret_cast<const char*>(s.q.data()),
                              static_cast<std::size_t>(s.q.size()) * sizeof(double)),
                    py::bytes(reinterpret_cast<const char*>(s.q_dot.data()),
                              static_cast<std::size_t>(s.q_dot.size()) * sizeof(double)),
                    s.barrier_stiffness, s.time_step_level, s.level_successes, s.num_bodies,
                    as_bytes(fluid_state_bytes(s.fluid)),
                    as_bytes(al_memory_bytes(s.contact_multipliers)));
            },
            [](const py::tuple& t) {
                WorldState s;
                s.time = t[0].cast<double>();
                s.steps = t[1].cast<int>();
                for (auto [index, v] : {std::pair{2, &s.q}, std::pair{3, &s.q_dot}}) {
                    const std::string bytes = t[static_cast<std::size_t>(index)].cast<std::string>();
                    v->resize(static_cast<Eigen::Index>(bytes.size() / sizeof(double)));
                    std::memcpy(v->data(), bytes.data(), bytes.size());
                }
                s.barrier_stiffness = t[4].cast<double>();
                s.time_step_level = t[5].cast<int>();
                s.level_successes = t[6].cast<int>();
                if (t.size() > 7) s.num_bodies = t[7].cast<int>();  // older pickles: unknown
                auto bytes_of = [&](std::size_t i) {
                    const std::string b = t[i].cast<std::string>();
                    return std::vector<std::uint8_t>(b.begin(), b.end());
                };
                if (t.size() > 8) s.fluid = fluid_state_from_bytes(bytes_of(8), "pickled WorldState");
                if (t.size() > 9) s.contact_multipliers = al_memory_from_bytes(bytes_of(9));
                return s;
            }));

    py::class_<ContactInfo>(m, "Contact", "One active barrier pair (World.contacts()).")
        .def_readonly("kind", &ContactInfo::kind, "ContactKind.")
        .def_readonly("body_a", &ContactInfo::body_a, "Body of the vertex / first edge.")
        .def_readonly("body_b", &ContactInfo::body_b,
                      "Body of the face / second edge; the plane index for point_plane.")
        .def_readonly("element_a", &ContactInfo::element_a,
                      "Body-local vertex (point_*) or edge (edge_edge) of body_a.")
        .def_readonly("element_b", &ContactInfo::element_b,
                      "Body-local face or edge of body_b; the plane index for point_plane.")
        .def_readonly("distance", &ContactInfo::distance, "m")
        .def_readonly("barrier_force", &ContactInfo::barrier_force,
                      "kappa |db/dd|, N s^2 (the incremental potential's units).")
        .def_readonly("force", &ContactInfo::force, "Normal force magnitude, N.")
        .def("__repr__", [](const ContactInfo& c) {
            return "Contact(" + py::str(py::cast(c.kind)).cast<std::string>() +
                   ", bodies=(" + std::to_string(c.body_a) + ", " + std::to_string(c.body_b) +
                   "), distance=" + py::repr(py::float_(c.distance)).cast<std::string>() +
                   ", force=" + py::repr(py::float_(c.force)).cast<std::string>() + ")";
        });

    py::class_<ContactReport>(
        m, "ContactReport",
        "The active contact pairs at a world's state (World.contacts()), as a list of Contact "
        "(iterate, index, len) and as numpy columns.")
        .def_readonly("time", &ContactReport::time, "s")
        .def_readonly("dhat", &ContactReport::dhat, "m")
        .def_readonly("barrier_stiffness", &ContactReport::barrier_stiffness, "kappa")
        .def_readonly("time_step", &ContactReport::time_step, "h used for force, s")
        .def_readonly("contacts", &ContactReport::contacts, "list of Contact.")
        .def("__len__", [](const ContactReport& r) { return r.contacts.size(); })
        .def("__getitem__",
             [](const ContactReport& r, py::ssize_t i) {
                 const auto n = static_cast<py::ssize_t>(r.contacts.size());
                 if (i < 0) i += n;
                 if (i < 0 || i >= n) throw py::index_error("contact index out of range");
                 return r.contacts[static_cast<std::size_t>(i)];
             })
        .def("__iter__",
             [](const ContactReport& r) {
                 return py::make_iterator(r.contacts.begin(), r.contacts.end());
             },
             py::keep_alive<0, 1>())
        .def_property_readonly(
            "kinds",
            [](const ContactReport& r) {
                std::vector<ContactKind> k;
                for (const auto& c : r.contacts) k.push_back(c.kind);
                return k;
            },
            "list of ContactKind.")
        .def_property_readonly(
            "pairs", [](const ContactReport& r) { return contact_pairs(r, false); },
            "(N, 2) int array of (body_a, body_b).")
        .def_property_readonly(
            "elements", [](const ContactReport& r) { return contact_pairs(r, true); },
            "(N, 2) int array of (element_a, element_b).")
        .def_property_readonly(
            "distances",
            [](const ContactReport& r) {
                return contact_column(r, [](const ContactInfo& c) { return c.distance; });
            },
            "(N,) distances, m.")
        .def_property_readonly(
            "forces",
            [](const ContactReport& r) {
                return contact_column(r, [](const ContactInfo& c) { return c.force; });
            },
            "(N,) normal force magnitudes, N.")
        .def_property_readonly(
            "barrier_forces",
            [](const ContactReport& r) {
                return contact_column(r, [](const ContactInfo& c) { return c.barrier_force; });
            },
            "(N,) kappa |db/dd|, N s^2.");

    py::class_<WorldHandle>(
        m, "World",
        "Bodies, planes and materials advanced one time step at a time. World(source) takes a "
        "Scene, a scene file path or a scene dict; raises InputError for an invalid scene "
        "(e.g. bodies that touch in the initial state, naming them).")
        .def(py::init([](const py::object& source) {
                 return std::make_unique<WorldHandle>(scene_from_object(source));
             }),
             py::arg("scene"))
        .def_property_readonly("num_bodies",
                               [](const WorldHandle& h) { return h.world.num_bodies(); })
        .def_property_readonly("time", [](const WorldHandle& h) { return h.world.time(); },
                               "Simulated time, s.")
        .def_property_readonly("step_count",
                               [](const WorldHandle& h) { return h.world.step_count(); })
        .def_property_readonly("scene_scale",
                               [](const WorldHandle& h) { return h.world.scene_scale(); },
                               "Bounding-box diagonal of the initial scene, m.")
        .def_property_readonly(
            "scene", [](const WorldHandle& h) { return h.world.spec(); },
            "The resolved Scene the world was built from (a copy).")
        .def_property_readonly(
            "body_names",
            [](const WorldHandle& h) {
                std::vector<std::string> names;
                for (int i = 0; i < h.world.num_bodies(); ++i) names.push_back(h.world.body(i).name);
                return names;
            },
            "Body names in body order.")
        .def(
            "body_index", [](const WorldHandle& h, const py::object& key) {
                return body_index(h.world, key);
            },
            py::arg("index_or_name"), "The index of a body given by name (or index).")
        .def(
            "body_info",
            [](const WorldHandle& h, const py::object& key) {
                return body_info(h.world, body_index(h.world, key));
            },
            py::arg("body"),
            "dict: name, motion, mass (kg), volume (m^3), center_of_mass (local), "
            "inertia_about_com, num_vertices, num_faces, bounding_radius, friction.")
        .def_property_readonly(
            "joint_names",
            [](const WorldHandle& h) {
                std::vector<std::string> names;
                for (int j = 0; j < h.world.num_joints(); ++j) names.push_back(h.world.joint(j).name);
                return names;
            },
            "Joint names in joint order (a robot's joints are ROBOT.JOINT).")
        .def(
            "joint_index",
            [](const WorldHandle& h, const py::object& key) { return joint_index(h.world, key); },
            py::arg("index_or_name"), "The index of a joint given by name (or index).")
        .def_property_readonly(
            "joint_positions",
            [](WorldHandle& h) { return per_joint(h, &World::joint_position); },
            "(J,) joint coordinates now (a copy): revolute angles in rad (unwrapped, 0 at the "
            "build state, which for a robot is the URDF's zero), prismatic slides in m, 0 for "
            "fixed and ball joints.")
        .def_property_readonly(
            "joint_velocities",
            [](WorldHandle& h) { return per_joint(h, &World::joint_velocity); },
            "(J,) rates of the joint coordinates now (rad/s, m/s; a copy).")
        .def(
            "set_joint_targets",
            [](WorldHandle& h, const py::dict& targets) {
                BusyGuard busy(h);
                // All looked up and checked first, so that a bad entry changes nothing.
                std::vector<std::pair<int, double>> set;
                for (const auto& [key, value] : targets) {
                    const int j = joint_index(h.world, py::reinterpret_borrow<py::object>(key));
                    const double v = value.cast<double>();
                    h.world.check_joint_target(j, v);
                    set.emplace_back(j, v);
                }
                for (const auto& [j, target] : set) h.world.set_joint_target(j, target);
            },
            py::arg("targets"),
            "Replaces drive targets from the next step on: {joint name or index: target} (rad "
            "or m for position drives, rad/s or m/s for velocity drives); a schedule the "
            "joint had is dropped. InputError for a joint without a drive or a non-finite "
            "target, KeyError for an unknown name; nothing changes then.")
        .def(
            "mesh",
            [](const WorldHandle& h, const py::object& key) {
                const TriMesh& mesh = h.world.body(body_index(h.world, key)).mesh();
                return py::make_tuple(owned_array(Vertices(mesh.vertices)),
                                      owned_array(Faces(mesh.faces)));
            },
            py::arg("body"),
            "(vertices (V, 3) in local coordinates X, faces (F, 3) int), copies.")
        .def("step", &step_world, py::arg("n") = 1,
             "Advances n time steps (the GIL is released; Ctrl-C stops between steps) and "
             "returns the StepStats of the last one.")
        .def("step_until", &step_world_until, py::arg("t"),
             "Steps until time >= t - time_step/2 and returns the number of steps taken; stops "
             "early if a step diverges (time does not advance; see last_stats).")
        .def_property_readonly(
            "q",
            [](py::object self) {
                const World& w = self.cast<WorldHandle&>().world;
                return state_view(w.state_vector(), self, false, w.num_bodies());
            },
            "(B, 12) read-only numpy view of the live state (no copy): it changes as the world "
            "steps; .copy() keeps a snapshot. Row b = [p (3), A row-major (9)]. Set with set_q.")
        .def_property_readonly(
            "q_dot",
            [](py::object self) {
                const World& w = self.cast<WorldHandle&>().world;
                return state_view(w.velocity_vector(), self, false, w.num_bodies());
            },
            "(B, 12) read-only live view of dq/dt. Set with set_q_dot.")
        .def_property_readonly(
            "num_fluid_particles",
            [](WorldHandle& h) { return h.world.num_fluid_particles(); },
            "Particles of the scene's fluid (0 without one; docs/fluids.md).")
        .def_property_readonly(
            "fluid_x",
            [](py::object self) { return fluid_view(self, FluidColumn::Position); },
            "(n, 3) read-only numpy view of the fluid's particle positions, live like q (no copy); "
            "(0, 3) without a fluid.")
        .def_property_readonly(
            "fluid_v",
            [](py::object self) { return fluid_view(self, FluidColumn::Velocity); },
            "(n, 3) read-only live view of the fluid's particle velocities.")
        .def_property_readonly(
            "fluid_pressure",
            [](py::object self) { return fluid_view(self, FluidColumn::Pressure); },
            "(n,) read-only live view of the fluid's particle pressures, Pa.")
        .def(
            "set_q",
            [](WorldHandle& h, const py::array_t<double, py::array::c_style | py::array::forcecast>& q) {
                BusyGuard busy(h);
                WorldState s = h.world.capture_state();
                copy_state(s.q, q, "set_q", h.world.num_bodies());
                h.world.restore_state(s);
            },
            py::arg("q"),
            "Replaces the state q through restore_state (InputError if not finite): a (B, 12) "
            "array replaces the affine numbers and keeps the modal coordinates of elastic "
            "bodies, a flat array of all coordinates replaces both. Nothing checks for "
            "intersections: keep bodies apart.")
        .def(
            "set_q_dot",
            [](WorldHandle& h, const py::array_t<double, py::array::c_style | py::array::forcecast>& v) {
                BusyGuard busy(h);
                WorldState s = h.world.capture_state();
                copy_state(s.q_dot, v, "set_q_dot", h.world.num_bodies());
                h.world.restore_state(s);
            },
            py::arg("q_dot"), "Replaces dq/dt, as set_q.")
        .def(
            "modal_coordinates",
            [](WorldHandle& h, const py::object& key) {
                BusyGuard busy(h);
                const VecX eta = h.world.modal_coordinates(body_index(h.world, key));
                return py::array_t<double>(eta.size(), eta.data());  // a copy
            },
            py::arg("body"),
            "The modal coordinates eta of a reduced elastic body (a copy, shape (m,); empty for "
            "an affine body). q shows the 12 affine numbers of every body only.")
        .def(
            "world_vertices",
            [](WorldHandle& h, const py::object& key) {
                BusyGuard busy(h);
                return owned_array(h.world.world_vertices(body_index(h.world, key)));
            },
            py::arg("body"),
            "(V, 3) world positions x = p + A X of a body's vertices (computed, handed to numpy "
            "without a further copy).")
        .def(
            "capture_state",
            [](WorldHandle& h) {
                BusyGuard busy(h);
                return h.world.capture_state();
            },
            "A WorldState; restore_state(capture_state()) changes nothing, and stepping after a "
            "restore repeats the same steps bit for bit.")
        .def(
            "restore_state",
            [](WorldHandle& h, const WorldState& s) {
                BusyGuard busy(h);
                h.world.restore_state(s);
            },
            py::arg("state"),
            "Raises InputError when the state has another body count or is not finite.")
        .def(
            "save_state",
            [](WorldHandle& h, const std::string& path) {
                BusyGuard busy(h);
                h.world.save_state(path);
            },
            py::arg("path"), "capture_state() to a binary file.")
        .def(
            "load_state",
            [](WorldHandle& h, const std::string& path) {
                BusyGuard busy(h);
                h.world.load_state(path);
            },
            py::arg("path"), "restore_state() from a file written by save_state.")
        .def(
            "save_checkpoint",
            [](WorldHandle& h, const std::string& path, std::optional<int> frame) {
                BusyGuard busy(h);
                Checkpoint c = h.world.capture_checkpoint();
                const int substeps = std::max(1, h.world.spec().substeps);
                c.frame = frame ? *frame : h.world.step_count() / substeps;
                if (c.frame < 0)
                    throw InputError("frame: expected an integer >= 0, got " + std::to_string(c.frame));
                c.scene_digest = scene_digest(resolved_scene(h.world));
                save_checkpoint(c, path);
            },
            py::arg("path"), py::arg("frame") = py::none(),
            "Writes a checkpoint in the format `concord run` writes (OUT/checkpoints/*.ckpt, "
            "docs/cli.md): the whole state and the scene's digest, atomically. `frame` is the "
            "output frame it stands for (default: steps taken / scene.substeps).")
        .def(
            "load_checkpoint",
            [](WorldHandle& h, const std::string& path) {
                BusyGuard busy(h);
                const Checkpoint c = load_checkpoint(path);
                if (!c.scene_digest.empty() && c.scene_digest != scene_digest(resolved_scene(h.world)))
                    throw InputError(path + ": written for another scene (or other solver options)");
                h.world.restore_checkpoint(c);
                return c.frame;
            },
            py::arg("path"),
            "Restores a checkpoint written by save_checkpoint or by `concord run` (one machine or "
            "distributed: the world state is taken) and returns its frame. Raises InputError for "
            "a damaged file or one written for another scene.")
        .def_property(
            "solver_params", [](const WorldHandle& h) { return h.world.solver_params(); },
            [](WorldHandle& h, const SolverParams& p) {
                BusyGuard busy(h);
                h.world.set_solver_params(p);
            },
            "The SolverParams in use. Reading returns a COPY: change it and assign it back "
            "(p = w.solver_params; p.max_iterations = 20; w.solver_params = p), which raises "
            "InputError for a value out of range.")
        .def_property_readonly(
            "last_stats", [](const WorldHandle& h) { return h.world.last_stats(); },
            "StepStats of the last step.")
        .def(
            "get_solver_stats", [](const WorldHandle& h) { return h.world.solver_stats(); },
            "SolverStats of the last step: status, stop_reason, iterations, residual_history, "
            "islands with every Newton solve.")
        .def_property_readonly(
            "solver_stats", [](const WorldHandle& h) { return h.world.solver_stats(); },
            "Same as get_solver_stats().")
        .def(
            "contacts",
            [](WorldHandle& h) {
                BusyGuard busy(h);
                return report_contacts(h.world);
            },
            "ContactReport of the active pairs at the current state (distance < dhat): kinds, "
            "body pairs, distances, normal forces. Call after each step to follow contacts.")
        .def("run", &run_world, py::arg("out"), py::arg("frames") = py::none(),
             py::arg("force") = false, py::arg("workers") = 1,
             "Writes the standard output directory as `concord run` does: scene.json, "
             "bodies.json, meshes/, and frames.jsonl with frame 0 (the current state) and "
             "`frames` more (default: the scene's), each scene.substeps steps. Refuses a "
             "non-empty folder unless force. Returns the frames written after frame 0. "
             "workers > 1 runs the distributed solver (consensus ADMM, docs/distributed.md) with "
             "that many in-process workers split along the scene's distributed.axis, from the "
             "current state; the world then holds the end state.")
        .def("__repr__", [](const WorldHandle& h) {
            return "World(\"" + h.world.spec().name + "\", " +
                   std::to_string(h.world.num_bodies()) + " bodies, t=" +
                   py::repr(py::float_(h.world.time())).cast<std::string>() + ")";
        });

    py::class_<OutputWriter>(
        m, "OutputWriter",
        "Writes an output directory frame by frame, for loops that do more between frames "
        "than World.run: write_header(world) once, then write_frame(world, stats) per frame.")
        .def(py::init<std::string, bool>(), py::arg("dir"), py::arg("force") = false,
             "Raises InputError for a non-empty folder unless force.")
        .def(
            "write_header",
            [](OutputWriter& w, const WorldHandle& h) {
                w.write_header(resolved_scene(h.world), h.world);
            },
            py::arg("world"), "scene.json, bodies.json, meshes/, an empty frames.jsonl.")
        .def(
            "write_frame",
            [](OutputWriter& w, const WorldHandle& h, const StepStats* stats) {
                w.write_frame(w.frames_written(), h.world.time(), h.world, stats);
            },
            py::arg("world"), py::arg("stats") = nullptr,
            "Appends the world's current state as the next frame (frame 0 first); stats None "
            "writes defaults (as for frame 0).")
        .def_property_readonly("directory", &OutputWriter::directory)
        .def_property_readonly("frames_written", &OutputWriter::frames_written);
}

}  // namespace concord::python
