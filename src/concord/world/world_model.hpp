// The immutable description of a world's bodies and planes that every step is built from:
// bodies with their mass and stiffness, planes, friction and barrier-stiffness bounds.
#pragma once

#include <optional>
#include <vector>

#include "concord/body/affine_body.hpp"
#include "concord/energy/contact_set.hpp"
#include "concord/energy/contact_surface.hpp"
#include "concord/scene/scene_spec.hpp"
#include "concord/world/world_state.hpp"

namespace concord {

struct WorldModel {
    SceneSpec spec;
    std::vector<AffineBody> bodies;
    std::vector<HalfSpace> planes;
    std::vector<std::optional<double>> plane_friction;
    ContactSurface surface;  ///< every body's surface (initial checks, islands, monolithic solve)

    // Per body.
    std::vector<bool> movable;  ///< dynamic or kinematic: unknowns of the step
    std::vector<bool> dynamic;
    std::vector<bool> kinematic;
    std::vector<Mat12> masses;
    std::vector<double> orthogonality_weights;         ///< kappa_b V_b (0 unless dynamic)
    std::vector<double> lever_arms;                    ///< largest |X| over the body's vertices
    std::vector<Vec12> initial_external_acceleration;  ///< M^-1 f_ext (gravity and force)

    /// State layout: body b's affine part at 12 b; an elastic body's modal coordinates at
    /// modal_offset[b] (-1 for affine bodies), after the 12 * bodies affine numbers.
    std::vector<int> modal_offset;
    int state_size = 0;
    /// The scene's joints with every anchor in body-local coordinates (world anchors resolved
    /// at the initial state).
    std::vector<JointSpec> joints;

    double scene_scale = 1.0;                   ///< bounding-box diagonal of the initial scene
    double characteristic_acceleration = 9.81;  ///< |gravity|, standard gravity when zero
    bool has_friction = false;                  ///< any pair can have mu > 0
    double kappa_min = 0.0, kappa_max = 0.0;    ///< barrier stiffness bounds

    int num_bodies() const { return static_cast<int>(bodies.size()); }
    /// The initial state vector (affine parts and modal coordinates).
    VecX initial_state() const;
    /// The state at t = 0: initial_state(), the scene's initial velocities of the dynamic
    /// bodies (zero elsewhere), barrier stiffness kappa_min, no halving.
    WorldState initial_world_state() const;
    /// Modal coordinates of body b in state q (empty for affine bodies).
    VecX modal_coordinates(const VecX& q, int b) const {
        const auto i = static_cast<std::size_t>(b);
        if (modal_offset[i] < 0) return {};
        return q.segment(modal_offset[i], bodies[i].modal->num_modes);
    }
    /// Body b's coordinates: its 12 affine numbers, then its modal coordinates (12 + modes).
    int body_dofs(int b) const {
        const auto i = static_cast<std::size_t>(b);
        return 12 + (modal_offset[i] < 0 ? 0 : bodies[i].modal->num_modes);
    }
    /// Body b's coordinate block in state q (see body_dofs), and its inverse.
    VecX body_coordinates(const VecX& q, int b) const {
        VecX out(body_dofs(b));
        out.head<12>() = q.segment<12>(12 * b);
        if (out.size() > 12) out.tail(out.size() - 12) = modal_coordinates(q, b);
        return out;
    }
    void set_body_coordinates(VecX& q, int b, const VecX& block) const {
        q.segment<12>(12 * b) = block.head<12>();
        if (block.size() > 12)
            q.segment(modal_offset[static_cast<std::size_t>(b)], block.size() - 12) =
                block.tail(block.size() - 12);
    }
    /// Friction coefficient of every contact of c in the order point_triangle, edge_edge,
    /// point_plane; `global_body[k]` maps the contact surface's body k to the world's body.
    std::vector<double> contact_friction(const ContactSurface& s, const ContactSet& c,
                                         const std::vector<int>& global_body) const;
};

/// Builds bodies (meshes, mass, stiffness) from a resolved scene and, with `check_start`,
/// validates the initial state (check_start_state). Throws InputError for an invalid scene
/// (naming the bodies at fault).
WorldModel build_world_model(const SceneSpec& spec, bool check_start = true);

/// Throws InputError when the model's bodies do not start apart (check_initial_state over the
/// initial state). A process that is not the one to report it (an MPI worker) may skip it.
void check_start_state(const WorldModel& model);

}  // namespace concord
