// The world: bodies, planes and materials, advanced one time step at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "concord/body/affine_body.hpp"
#include "concord/fluid/iisph.hpp"
#include "concord/scene/scene_spec.hpp"
#include "concord/solver/solver_params.hpp"
#include "concord/world/step_stats.hpp"
#include "concord/world/checkpoint.hpp"
#include "concord/world/world_state.hpp"

namespace concord {

class World {
  public:
    /// Builds bodies (meshes, mass, stiffness) from a resolved scene. Throws InputError for an
    /// invalid scene, e.g. bodies that intersect or touch in the initial state (naming them),
    /// or solver options out of range.
    explicit World(const SceneSpec& spec);
    ~World();
    World(World&&) noexcept;
    World& operator=(World&&) noexcept;

    const SceneSpec& spec() const;
    int num_bodies() const;
    const AffineBody& body(int i) const;

    /// Affine state of body i (static and kinematic bodies included).
    Vec12 q(int i) const;
    /// Time derivative of q of body i.
    Vec12 q_dot(int i) const;
    /// Modal coordinates eta of body i (empty unless it is a reduced elastic body).
    VecX modal_coordinates(int i) const;
    /// Body i's row of frames.jsonl: q(i), then its modal coordinates.
    VecX state_row(int i) const;
    /// World vertex positions of body i (deformed by its modes on an elastic body).
    Vertices world_vertices(int i) const;
    double time() const;
    int step_count() const;
    /// Scene scale l: bounding-box diagonal of the initial scene (used by stopping criteria).
    double scene_scale() const;

    /// The scene's fluid (docs/fluids.md): its particle count (0 without one), and the particles
    /// (null without one; they change during step() and restore_state()).
    int num_fluid_particles() const;
    const FluidParticles* fluid_particles() const;
    /// Joints: the scene's robots' joints and its "joints", in the order of spec().joints.
    int num_joints() const;
    const JointSpec& joint(int j) const;
    /// The index of the joint named `name`; InputError naming the known joints when none is.
    int joint_index(const std::string& name) const;
    /// Joint j's coordinate now: revolute angle (rad, unwrapped across steps, 0 at the build
    /// state) or prismatic slide (m); 0 for fixed and ball joints.
    double joint_position(int j) const;
    /// Its rate now (rad/s or m/s): the coordinate's derivative along the bodies' velocities.
    double joint_velocity(int j) const;
    /// Replaces joint j's drive target (rad or m in position mode, rad/s or m/s in velocity
    /// mode) from the next step on; a schedule the joint had is dropped. Not part of the
    /// captured state. InputError for a joint without a drive or an index out of range.
    void set_joint_target(int j, double target);
    /// The InputError set_joint_target would throw, without changing anything (callers that
    /// set several targets check them all first).
    void check_joint_target(int j, double target) const;
    /// The solver options in use (from the scene's "solver" object, legacy keys mapped).
    const SolverParams& solver_params() const;
    /// Replaces them for the following steps. Throws InputError for values out of range.
    void set_solver_params(const SolverParams& params);

    /// Advances by one time step (spec().time_step), in several substeps when retry-halving
    /// redoes a failed one. Never accepts a penetrating state; a Diverged step leaves the state
    /// (and time) exactly as before.
    const StepStats& step();
    const StepStats& last_stats() const;
    /// Everything the solver did in the last step.
    const SolverStats& solver_stats() const;

    /// The evolving state; restore_state(capture_state()) changes nothing, and stepping after
    /// a restore repeats the steps that followed the capture bit for bit.
    WorldState capture_state() const;
    /// Throws InputError when the state has another body count or is not finite.
    void restore_state(const WorldState& state);
    /// capture_state / restore_state through a file (see world_state.hpp).
    void save_state(const std::string& path) const;
    void load_state(const std::string& path);

    /// The state as a checkpoint (checkpoint.hpp, simulator "world"); frame and scene_digest
    /// are left to the caller. A world keeps nothing else from step to step that its results
    /// depend on, so restoring it in a fresh World repeats the steps that followed bit for bit.
    Checkpoint capture_checkpoint() const;
    /// Restores a checkpoint's world state; a distributed run's own part is not needed by one
    /// machine and is ignored. Throws InputError when the state does not fit.
    void restore_checkpoint(const Checkpoint& c);

    /// The whole state q (12 per body, body order) and its time derivative, without a copy
    /// (the Python API's zero-copy views). The vectors are assigned in place and never resized,
    /// so their storage stays at the same address for the world's lifetime; they change during
    /// step() and restore_state().
    const VecX& state_vector() const;
    const VecX& velocity_vector() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// The SolverParams a scene's solver object stands for: its SolverParams part with the legacy
/// members (see SolverSpec) mapped onto it.
SolverParams resolve_solver_spec(const SolverSpec& spec);

}  // namespace concord
