// Everything that evolves while a world steps: with the scene, it determines every later step,
// so restoring a captured state replays the same steps bit for bit.
#pragma once

#include <iosfwd>
#include <string>

#include "concord/math/types.hpp"
#include "concord/world/al_contact_memory.hpp"
#include "concord/world/fluid_state.hpp"

namespace concord {

struct WorldState {
    double time = 0.0;
    int steps = 0;
    /// 12 per body (p, then A row-major), then the modal coordinates of the reduced elastic
    /// bodies in body order (see num_bodies).
    VecX q;
    VecX q_dot;  ///< dq/dt, laid out as q
    /// B, the bodies whose 12 affine numbers start q and q_dot: what follows 12 B is modal.
    /// -1 when unknown (a default-constructed state or a version-2 state file): then q holds 12
    /// numbers per body only. It describes the layout, so bitwise_equal ignores it.
    int num_bodies = -1;
    double barrier_stiffness = 0.0;  ///< adaptive kappa carried between steps
    int time_step_level = 0;         ///< retry-halving: the step in use is time_step / 2^level
    int level_successes = 0;         ///< converged substeps at that level (growth counter)
    /// Augmented-Lagrangian contact: the active set and multipliers the next step starts from
    /// (empty with the barrier).
    AlContactMemory contact_multipliers;
    /// The fluid's particles (empty without a fluid). World keeps them outside its stepper and
    /// fills this member in capture_state().
    FluidState fluid;

    /// Bitwise equality (NaNs with equal bits compare equal, -0 differs from +0).
    bool bitwise_equal(const WorldState& other) const;
};

/// Throws InputError unless `state` can replace the state of a world with `num_bodies` bodies
/// and `num_coordinates` entries in q and q_dot: the same sizes (and body count, when the state
/// records it) and finite numbers. World and DistributedSimulation restore through it.
void check_state_fits(const WorldState& state, int num_bodies, Eigen::Index num_coordinates);

/// Writes the state to a binary file (magic, format version, coordinate and body counts, raw
/// IEEE doubles in the machine's byte order, which the header records), atomically (a reader,
/// or a process killed meanwhile, sees the old file or the new one, never a part). Throws
/// InputError naming the file when it cannot be written.
void save_world_state(const WorldState& state, const std::string& path);

/// Reads a file written by save_world_state, exactly. Throws InputError naming the file when
/// it cannot be read, is not a Concord state file, has another version or byte order, or is
/// truncated.
WorldState load_world_state(const std::string& path);

/// The same format on a stream (checkpoints embed it). read_world_state stops after the state;
/// `source` names the stream in errors.
void write_world_state(std::ostream& out, const WorldState& state);
WorldState read_world_state(std::istream& in, const std::string& source);

}  // namespace concord
