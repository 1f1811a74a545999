// Everything that evolves while a world steps: with the scene, it determines every later step,
// so restoring a captured state replays the same steps bit for bit.
#pragma once

#include <string>

#include "concord/math/types.hpp"

namespace concord {

struct WorldState {
    double time = 0.0;
    int steps = 0;
    VecX q;                          ///< 12 per body
    VecX q_dot;                      ///< 12 per body
    double barrier_stiffness = 0.0;  ///< adaptive kappa carried between steps
    int time_step_level = 0;         ///< retry-halving: the step in use is time_step / 2^level
    int level_successes = 0;         ///< converged substeps at that level (growth counter)

    /// Bitwise equality (NaNs with equal bits compare equal, -0 differs from +0).
    bool bitwise_equal(const WorldState& other) const;
};

/// Writes the state to a binary file (magic, format version, body count, raw IEEE doubles in
/// the machine's byte order, which the header records). Throws InputError naming the file when
/// it cannot be written.
void save_world_state(const WorldState& state, const std::string& path);

/// Reads a file written by save_world_state, exactly. Throws InputError naming the file when
/// it cannot be read, is not a Concord state file, has another version or byte order, or is
/// truncated.
WorldState load_world_state(const std::string& path);

}  // namespace concord
