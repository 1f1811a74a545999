// A fluid's particles as part of a world's state (WorldState::fluid, state files version 5,
// checkpoints): positions, velocities and pressures (the pressure warm-starts the next solve).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "concord/math/types.hpp"

namespace concord {

struct FluidState {
    std::vector<Vec3> x, v;
    std::vector<double> pressure;

    bool empty() const { return x.empty(); }
    bool operator==(const FluidState&) const = default;
};

/// The state as bytes: the particle count (uint64), then x, v (3 doubles each) and p per
/// particle, in the machine's byte order. Empty states give 8 bytes.
std::vector<std::uint8_t> fluid_state_bytes(const FluidState& s);
/// Back from bytes. Throws InputError "WHAT: ..." for bytes that are not a fluid state.
FluidState fluid_state_from_bytes(const std::vector<std::uint8_t>& bytes, const std::string& what);

}  // namespace concord
