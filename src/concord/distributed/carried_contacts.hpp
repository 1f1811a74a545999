// Augmented-Lagrangian contact in distributed runs: the active set and its multipliers travel
// between steps with the body records (BodyRecord::contact_multipliers), as q and q_dot do.
//
// A pair (body_a, body_b; body_b -1 for a half-space) is carried by body_a's record when the
// one who writes the records has it there, otherwise by body_b's: a worker at the end of a step
// writes the records of the bodies it owns, the controller (after a restore) those of every
// movable body. Two workers may both have carried the same pair (its two bodies have different
// homes and both held the pair); the next step takes body_a's copy. A pair whose bodies' homes
// both lacked it (it lived only on a third worker holding both) starts again from lambda = 0.
#pragma once

#include <functional>
#include <span>

#include "concord/distributed/admm_protocol.hpp"

namespace concord {

/// Appends every entry of `memory` to the record of the first of its bodies (body_a, then
/// body_b) for which `record` returns one (null: not written here); an entry neither gets is
/// dropped.
void attach_contact_multipliers(const AlContactMemory& memory,
                                const std::function<BodyRecord*(int body)>& record);

/// Every pair the records carry, once, sorted by pair: of a pair carried twice, body_a's copy.
AlContactMemory carried_contact_multipliers(std::span<const BodyRecord> records);

}  // namespace concord
