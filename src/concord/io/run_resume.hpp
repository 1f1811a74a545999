// Continuing an interrupted run (`concord run --resume`, issue 18): what in a scene decides the
// results, where an output directory's last complete frame is, and which checkpoint to restart
// from. The frame loop (frame_loop.hpp) writes the checkpoints; OutputWriter::resume appends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "concord/scene/scene_spec.hpp"
#include "concord/world/checkpoint.hpp"

namespace concord {

/// A fingerprint of everything in the resolved scene that a run's results depend on: the
/// scene as scene.json writes it, without `frames` and `checkpoint_every` (a resumed run may go
/// on longer, or checkpoint at another pace) and without the distributed layout (workers, grid,
/// slab axis: a run may be resumed on another number of workers; its results then differ from
/// an uninterrupted run's, as any two layouts do).
std::string scene_digest(const SceneSpec& scene);

/// The complete frames of DIR/frames.jsonl: a line is complete when it ends in a newline (the
/// writer ends each frame's line with one write, so a killed run can leave at most one partial
/// line, the last).
struct FramesOnDisk {
    int last_frame = -1;              ///< the last complete frame (-1: none)
    std::uint64_t complete_bytes = 0;  ///< bytes up to and including that frame's line
    bool partial_tail = false;        ///< a partial line follows the complete ones
};
/// Throws InputError when the file cannot be read or a complete line does not start with its
/// frame number.
FramesOnDisk scan_frames(const std::string& frames_path);

/// Where a resumed run starts.
struct ResumePoint {
    Checkpoint checkpoint;        ///< the newest usable checkpoint
    std::uint64_t frames_bytes = 0;  ///< frames.jsonl is cut back to here (the checkpoint's frame)
    int last_complete_frame = -1;    ///< in frames.jsonl before the cut
};

/// Finds the newest checkpoint in DIR/checkpoints whose frame is complete in frames.jsonl and
/// that loads (a damaged one is skipped for the one before); nullopt when there is none (the
/// run was killed before its first checkpoint: it starts again from frame 0). Throws
/// InputError, naming DIR and what to do, when DIR holds no run (scene.json missing), or the
/// scene differs from DIR/scene.json in something that changes results (naming the first
/// differing key), or a checkpoint was written for another scene.
std::optional<ResumePoint> find_resume_point(const std::string& dir, const SceneSpec& scene);

/// Whether DIR holds no earlier run to resume: missing, or an empty folder.
bool nothing_to_resume(const std::string& dir);

}  // namespace concord
