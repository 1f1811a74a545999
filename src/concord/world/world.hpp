// The world: bodies, planes and materials, advanced one time step at a time.
#pragma once

#include <memory>
#include <vector>

#include "concord/body/affine_body.hpp"
#include "concord/scene/scene_spec.hpp"
#include "concord/world/step_stats.hpp"

namespace concord {

class World {
public:
    /// Builds bodies (meshes, mass, stiffness) from a resolved scene. Throws InputError for an
    /// invalid scene, e.g. bodies that intersect or touch in the initial state (naming them).
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
    /// World vertex positions of body i.
    Vertices world_vertices(int i) const;
    double time() const;
    int step_count() const;
    /// Scene scale l: bounding-box diagonal of the initial scene (used by stopping criteria).
    double scene_scale() const;

    /// Advances by one time step (spec().time_step); never accepts a penetrating state.
    const StepStats& step();
    const StepStats& last_stats() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace concord
