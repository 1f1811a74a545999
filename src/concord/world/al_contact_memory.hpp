// What augmented-Lagrangian contact carries from one time step to the next: every pair of the
// active set with its multiplier, named by world bodies and body-local primitives so that it
// survives islands being formed and merged (each step's systems take the entries of their
// bodies and give them back). The multipliers are the next step's warm start and friction's
// lagged normal forces; they are part of a checkpoint.
#pragma once

#include <cstdint>
#include <vector>

#include "concord/energy/al_contact_energy.hpp"

namespace concord {

struct AlMemoryEntry {
    int kind = 0;  ///< AlPairKey::Kind
    /// (world body, body-local vertex/face/edge) of each primitive; a half-space: body_b = -1,
    /// prim_b = the plane.
    int body_a = 0, prim_a = 0, body_b = 0, prim_b = 0;
    double lambda = 0.0;
    int inactive = 0;
    friend auto operator<=>(const AlMemoryEntry& x, const AlMemoryEntry& y) {
        return std::tie(x.kind, x.body_a, x.prim_a, x.body_b, x.prim_b) <=>
               std::tie(y.kind, y.body_a, y.prim_a, y.body_b, y.prim_b);
    }
    friend bool operator==(const AlMemoryEntry&, const AlMemoryEntry&) = default;
};

/// Sorted by pair.
using AlContactMemory = std::vector<AlMemoryEntry>;

/// Translates pairs between a system's surface and the world's names. `bodies`: the system's
/// world body indices.
class AlMemoryNames {
  public:
    AlMemoryNames(const ContactSurface& surface, const std::vector<int>& bodies, int num_planes);
    AlMemoryEntry name(const AlConstraint& c) const;
    /// The system's pair, or false when a body of the entry is not in the system (or the entry
    /// names primitives its bodies do not have).
    bool key(const AlMemoryEntry& e, AlPairKey& out) const;
    /// The system's constraints among `memory` (sorted, as the world keeps it): the entries
    /// whose bodies are all in the system, found by a search per system body and kind, so that
    /// each of a thousand small islands does not scan the world's whole memory.
    std::vector<AlConstraint> constraints_in(const AlContactMemory& memory) const;

  private:
    const ContactSurface& surface_;
    std::vector<int> bodies_;
    int num_planes_ = 0;
    std::vector<int> face_begin_, edge_begin_;  ///< first face / edge of each system body
};

/// Little-endian bytes (a checkpoint's extension) and back; throws std::runtime_error on
/// malformed bytes.
std::vector<std::uint8_t> al_memory_bytes(const AlContactMemory& m);
AlContactMemory al_memory_from_bytes(const std::vector<std::uint8_t>& bytes);

}  // namespace concord
