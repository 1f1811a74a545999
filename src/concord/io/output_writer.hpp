// Writes a simulation's output directory: scene.json, bodies.json, meshes/NAME.obj and
// frames.jsonl (see docs/cli.md, "Output directory").
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "concord/fluid/iisph.hpp"
#include "concord/geometry/mesh.hpp"
#include "concord/math/types.hpp"
#include "concord/scene/scene_spec.hpp"
#include "concord/world/checkpoint.hpp"
#include "concord/world/step_stats.hpp"

namespace concord {

class World;

/// One body as the output directory describes it.
struct OutputBody {
    std::string name;               ///< file-safe (is_file_safe_name); the mesh is meshes/NAME.obj
    const TriMesh* mesh = nullptr;  ///< local coordinates X
    MotionType motion = MotionType::Dynamic;
    /// Reduced elastic bodies: Phi at the mesh vertices (3n x m, rows 3v..3v+2 of vertex v),
    /// written to meshes/NAME.modes.json; null for affine bodies.
    const MatX* vertex_modes = nullptr;
};

/// Frames are streamed: each write_frame appends one line with one write and flushes it to the
/// operating system, so a killed process loses at most the frame being computed, and leaves at
/// most one partial line, the last, which every reader skips (FrameStream). The other files
/// (scene.json, bodies.json, meshes, checkpoints) are written whole or not at all (write, then
/// rename); scene.json is written last, so its presence means the header is complete.
class OutputWriter {
  public:
    /// Checks `dir` without touching it: it may be missing (then it is created by write_header,
    /// parents included) or an empty folder; a non-empty folder is accepted only with `force`,
    /// and then scene.json, bodies.json, frames.jsonl and meshes/*.obj are replaced while other
    /// files are left alone. Throws InputError "DIR: ..." otherwise.
    OutputWriter(std::string dir, bool force);

    /// Continues a run in `dir` (run_resume.hpp) instead of writing a header: rewrites
    /// scene.json (the resumed run's `frames`, checkpoint pace or workers may differ), cuts
    /// frames.jsonl back to `frames_bytes` (the end of frame `last_frame`'s line) and appends
    /// after it.
    void resume(const SceneSpec& scene, std::size_t num_bodies, int last_frame,
                std::uint64_t frames_bytes);

    /// Writes scene.json (scene_to_json of `scene`), meshes/NAME.obj and bodies.json, and
    /// starts an empty frames.jsonl. Throws InputError for a body name that is not file-safe or
    /// a file that cannot be written.
    void write_header(const SceneSpec& scene, const std::vector<OutputBody>& bodies);
    /// The same, with the bodies of `world` (their meshes in local coordinates).
    void write_header(const SceneSpec& scene, const World& world);

    /// Appends {"frame", "time", "q", "stats"}; q[b] lists body b's coordinates (12 for an
    /// affine body: p, then A row-major). `stats` null writes StepStats defaults (frame 0), with
    /// body_contacts all zero.
    /// Throws std::runtime_error when the line cannot be written (e.g. the disk is full).
    void write_frame(int frame, double time, const std::vector<VecX>& q, const StepStats* stats);
    /// The same, with the current state of every body of `world` (and its fluid file first).
    void write_frame(int frame, double time, const World& world, const StepStats* stats);

    /// Writes fluid/NNNNNN.npy (N = frame, six digits) whole or not at all: one row per particle,
    /// x, y, z, speed, pressure as float32. Call before write_frame of the same frame, so that a
    /// frame's line is never there without its fluid file.
    void write_fluid(int frame, const FluidParticles& fluid);
    /// Writes checkpoints/NNNNNN.ckpt (N = c.frame) atomically and removes all but the newest
    /// two. Throws InputError when it cannot be written.
    void write_checkpoint(const Checkpoint& c);

    const std::string& directory() const { return dir_; }
    int frames_written() const { return frames_written_; }

  private:
    std::string dir_;
    std::size_t num_bodies_ = 0;
    bool header_written_ = false;
    int frames_written_ = 0;
    std::ofstream frames_;
};

}  // namespace concord
