// A checkpoint: everything a run reads to continue from a saved frame exactly as if it had never
// stopped (issue 18, `concord run --resume`, World.save_checkpoint). The world's state
// (WorldState: q, q-dot, time, step count, adaptive barrier stiffness, retry level) and, for a
// distributed run, the controller's and workers' own state (planes, load balancer, carried
// penalties and multipliers) as the simulator encodes it.
//
// File format (little or big endian as the machine; the header records which): magic
// "CNCRDCKP", version, byte-order mark, the output frame, the scene digest, the world state in
// the world-state file format (world_state.hpp), the simulator's name and its bytes, and a
// 64-bit FNV-1a checksum of everything before it. Written atomically (write, fsync, rename).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "concord/world/world_state.hpp"

namespace concord {

struct Checkpoint {
    int frame = 0;             ///< the output frame (frames.jsonl) whose state this is
    std::string scene_digest;  ///< what results depend on (io/run_resume.hpp); may be empty
    WorldState world;
    /// Who wrote `extension`: "world" (nothing more) or "distributed" (DistributedSimulation).
    std::string simulator = "world";
    std::vector<std::uint8_t> extension;
};

/// Writes atomically and durably. Throws InputError naming the file when it cannot be written.
void save_checkpoint(const Checkpoint& c, const std::string& path);

/// Reads a file written by save_checkpoint, exactly. Throws InputError naming the file when it
/// cannot be read, is not a Concord checkpoint, has another version or byte order, is
/// truncated, or its checksum does not match.
Checkpoint load_checkpoint(const std::string& path);

/// 64-bit FNV-1a of `bytes` (the checkpoint's checksum, and the scene digest's hash).
std::uint64_t fnv1a64(const void* bytes, std::size_t size);

}  // namespace concord
