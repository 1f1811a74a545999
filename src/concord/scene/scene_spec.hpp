// The scene description: what a scene file says, with every default filled in.
//
// This is the plain data between the scene-file parser (io/) and the world builder (world/).
// Every field has the default documented in docs/scene-format.md; the parser fills them so
// that the resolved scene written to an output directory is complete.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "concord/math/types.hpp"
#include "concord/scene/distributed_spec.hpp"
#include "concord/scene/fluid_spec.hpp"
#include "concord/scene/joint_spec.hpp"
#include "concord/solver/solver_params.hpp"

namespace concord {

struct MaterialSpec {
    double density = 1000.0;      ///< kg/m^3
    double youngs_modulus = 1e9;  ///< Pa; sets the orthogonality stiffness (docs/affine-bodies.md)

    bool operator==(const MaterialSpec&) const = default;
};

enum class ShapeKind { Box, Sphere, Cylinder, Capsule, Torus, Mesh, Container, Funnel, Compound };

struct ShapePart;

/// One primitive or a mesh file. Only the fields of `kind` are meaningful.
struct ShapeSpec {
    ShapeKind kind = ShapeKind::Box;
    Vec3 size = Vec3::Ones();      ///< box: full edge lengths; container: inner size
    /// box: grid cells per face along x, y, z (a finer surface for elastic bodies)
    Eigen::Vector3i divisions = Eigen::Vector3i::Ones();
    double radius = 0.5;           ///< sphere, cylinder, capsule; torus: minor radius
    double major_radius = 1.0;     ///< torus
    double height = 1.0;           ///< cylinder, capsule (cylindrical part), funnel
    double top_radius = 1.0;       ///< funnel
    double bottom_radius = 0.5;    ///< funnel
    double wall_thickness = 0.05;  ///< container, funnel
    int subdivisions = 2;          ///< sphere (icosphere level)
    int segments = 24;             ///< cylinder, capsule, torus (major), funnel
    int rings = 8;                 ///< capsule (per hemisphere), torus (minor segments)
    std::string file;              ///< mesh: path as written in the scene file
    std::string
        resolved_file;  ///< mesh: absolute path (relative paths resolve against the scene file)
    Vec3 scale = Vec3::Ones();  ///< mesh: per-axis scale applied to the file's coordinates
    /// compound: the parts, each placed in the body's coordinates; the body's surface is all of
    /// theirs together (a URDF link's collision elements). Parts may touch or overlap: only
    /// their surfaces meet other bodies, but the mass properties then count the overlap twice
    /// unless the body's "inertia" is given.
    std::vector<ShapePart> parts;

    bool operator==(const ShapeSpec&) const;
};

/// One part of a compound shape: x_body = position + rotation * x_part.
struct ShapePart {
    ShapeSpec shape;
    Vec3 position = Vec3::Zero();
    Mat3 rotation = Mat3::Identity();

    bool operator==(const ShapePart&) const = default;
};

inline bool ShapeSpec::operator==(const ShapeSpec& o) const {
    return kind == o.kind && size == o.size && divisions == o.divisions && radius == o.radius &&
           major_radius == o.major_radius && height == o.height && top_radius == o.top_radius &&
           bottom_radius == o.bottom_radius && wall_thickness == o.wall_thickness &&
           subdivisions == o.subdivisions && segments == o.segments && rings == o.rings &&
           file == o.file && resolved_file == o.resolved_file && scale == o.scale &&
           parts == o.parts;
}

enum class MotionType { Dynamic, Static, Kinematic };

/// A keyframed pose of a kinematic body (x = R X + position at time t).
struct Keyframe {
    double time = 0.0;
    Vec3 position = Vec3::Zero();
    Mat3 rotation = Mat3::Identity();

    bool operator==(const Keyframe&) const = default;
};

/// Prescribed rigid motion. With keyframes, poses are interpolated (linear in position,
/// slerp in rotation) and held constant outside the keyframe range; otherwise the body moves
/// with constant linear velocity and rotates with constant angular velocity about `pivot`.
struct KinematicSpec {
    Vec3 linear_velocity = Vec3::Zero();
    Vec3 angular_velocity = Vec3::Zero();  ///< rad/s, world frame
    Vec3 pivot = Vec3::Zero();  ///< world point the rotation is about (default: position)
    std::vector<Keyframe> keyframes;

    bool operator==(const KinematicSpec&) const = default;
};

/// A body's "elastic" object: it is a reduced elastic body deformed by the modes of a named
/// basis of the scene's "modal_bases" (docs/elastic.md).
struct ElasticSpec {
    std::string basis;
    /// Body-local position of the basis's origin: the basis is evaluated at X - origin (e.g. a
    /// beam basis runs from x = 0 to L, so a box of length L centred on its origin needs
    /// origin = [-L/2, 0, 0]).
    Vec3 origin = Vec3::Zero();
    std::vector<double> initial;  ///< eta at t = 0, one per mode; empty: all zero

    bool operator==(const ElasticSpec&) const = default;
};

/// Mass properties given instead of computed from the shape and density (a URDF link's
/// <inertial>): the body keeps its shape's surface for contact.
struct InertiaSpec {
    double mass = 1.0;                   ///< kg, > 0
    Vec3 center_of_mass = Vec3::Zero();  ///< body-local, m
    /// About the centre of mass, body-local axes, kg m^2: symmetric positive definite and
    /// physically realisable (each principal moment at most the sum of the other two).
    Mat3 inertia = Mat3::Identity();

    bool operator==(const InertiaSpec&) const = default;
};

struct BodySpec {
    std::string name;
    ShapeSpec shape;
    std::string material_name;  ///< empty when the material was given inline
    MaterialSpec material;
    Vec3 position = Vec3::Zero();
    Mat3 rotation = Mat3::Identity();
    Vec3 velocity = Vec3::Zero();          ///< of the centre of mass
    Vec3 angular_velocity = Vec3::Zero();  ///< rad/s about the centre of mass
    MotionType motion = MotionType::Dynamic;
    KinematicSpec kinematic;
    std::optional<double> friction;      ///< overrides contact.friction for this body's pairs
    Vec3 external_force = Vec3::Zero();  ///< constant force at the centre of mass, N
    std::optional<ElasticSpec> elastic;  ///< set for reduced elastic bodies
    std::optional<InertiaSpec> inertia;  ///< replaces the mass properties of shape and density

    bool operator==(const BodySpec&) const = default;
};

/// One entry of the scene's "modal_bases": kept as written (its generator runs when the world
/// is built, scene/modal_basis_json.hpp), so that bodies can share it and scene.json repeats it.
struct ModalBasisSpec {
    std::string name;
    nlohmann::json definition;  ///< {"type": ..., parameters}
    std::string source;         ///< where it was read (messages)
    std::string base_dir;       ///< resolves its "file"
    int num_modes = 0;          ///< found when the scene was read

    bool operator==(const ModalBasisSpec&) const = default;
};

struct PlaneSpec {
    Vec3 point = Vec3::Zero();
    Vec3 normal = Vec3::UnitY();  ///< unit; bodies live on the side it points to
    std::optional<double> friction;

    bool operator==(const PlaneSpec&) const = default;
};

/// How contact is enforced (docs/solver.md, "Contact models").
enum class ContactModel {
    Barrier,              ///< IPC's log barrier (Li et al. 2020), CCD-capped line search
    AugmentedLagrangian,  ///< barrier-free augmented Lagrangian (Zheng, Luo and Li 2026)
    /// The barrier, and the augmented Lagrangian for the rest of a solve that the barrier has
    /// not converged in hybrid_barrier_iterations Newton iterations.
    Hybrid,
};

inline const char* to_string(ContactModel m) {
    switch (m) {
    case ContactModel::Barrier: return "barrier";
    case ContactModel::AugmentedLagrangian: return "augmented_lagrangian";
    default: return "hybrid";
    }
}

struct ContactSpec {
    ContactModel model = ContactModel::Barrier;  ///< docs/solver.md, "Contact models"
    double dhat = 1e-3;               ///< activation distance of the barrier, m
    double friction = 0.0;            ///< default coefficient of friction
    double friction_velocity = 1e-3;  ///< epsilon_v: below this slip speed friction is static, m/s
    int friction_iterations = 1;      ///< times the friction is re-lagged per step
    double barrier_stiffness = 0.0;   ///< kappa; 0 = automatic (IPC initialisation and adaptation)
    /// Augmented Lagrangian: penalty mu = al_penalty m h^2 per pair (m the smaller movable
    /// body mass), 1/s^2; and the cumulative-step termination's epsilon.
    double al_penalty = 1e5;
    double al_toi_threshold = 0.1;
    /// ... and the iterations after which a solve that has covered the cumulative step ends
    /// even if the Newton criterion does not hold.
    int al_iterations = 6;
    /// ... and the load floor of its penalty: a pair that starts a step carrying the multiplier
    /// lambda has at least the penalty lambda / (al_load_compression dhat), so that its load
    /// compresses it by at most that share of dhat (0: the mass-based penalty alone).
    double al_load_compression = 3e-4;
    /// Hybrid: Newton iterations a solve makes with the barrier before it goes on with the
    /// augmented Lagrangian (the al_ keys above set it up).
    int hybrid_barrier_iterations = 5;
    /// Body pairs that never touch (a robot's adjacent links): indices (a, b), a < b, sorted and
    /// unique. Their surfaces may overlap; the barrier, CCD and the audit ignore them.
    std::vector<std::pair<int, int>> exclude;

    bool operator==(const ContactSpec&) const = default;
};

/// The scene's "solver" object: every option of solver/solver_params.hpp (read and written
/// by scene/solver_params_json.hpp).
///
/// Transitional: the four members below mirror the scene keys of the first simulator, which
/// the current scene parser still fills. World maps each one that differs from its default
/// onto SolverParams (tolerance -> step_tol with convergence_mode step_norm, linear_solver ->
/// linear.type, cg_max_iterations -> linear.max_iterations, cg_tolerance -> linear.tolerance).
/// Once the parser calls parse_solver_params they stay at their defaults and can be removed,
/// leaving `using SolverSpec = SolverParams;`.
struct SolverSpec : SolverParams {
    double tolerance = 1e-2;             ///< deprecated: use step_tol
    std::string linear_solver = "auto";  ///< deprecated: use linear.type
    int cg_max_iterations = 1000;        ///< deprecated: use linear.max_iterations
    double cg_tolerance = 1e-8;          ///< deprecated: use linear.tolerance

    bool operator==(const SolverSpec&) const = default;
};

struct SceneSpec {
    std::string name = "scene";
    std::string source_path;  ///< the scene file (empty when built in code)
    double time_step = 0.01;
    int frames = 100;
    int substeps = 1;  ///< time steps per saved frame
    /// `concord run` writes a checkpoint every this many saved frames (and after the last), so
    /// that --resume can continue the run; 0: only after the last frame; kCheckpointAuto ("auto"
    /// in JSON): paced by their cost (io/frame_loop.hpp). Does not change results.
    int checkpoint_every = kCheckpointAuto;
    static constexpr int kCheckpointAuto = -1;
    Vec3 gravity = Vec3(0, -9.81, 0);
    ContactSpec contact;
    SolverSpec solver;
    DistributedSpec distributed;  ///< workers = 1: the single-machine solver
    std::map<std::string, MaterialSpec> materials;
    std::vector<PlaneSpec> planes;
    std::vector<BodySpec> bodies;
    std::vector<ModalBasisSpec> modal_bases;  ///< in name order
    std::vector<JointSpec> joints;            ///< parent/child as body indices (-1: the world)
    std::vector<FluidBlockSpec> fluids;       ///< one fluid, laid out block by block

    bool operator==(const SceneSpec&) const = default;
};

}  // namespace concord
