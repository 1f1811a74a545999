// Reads an output directory written by OutputWriter (used by `concord audit`, and meant for
// viewers and scripts): the body list, the meshes, the planes of scene.json and the frames.
#pragma once

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "concord/geometry/mesh.hpp"
#include "concord/io/npy_file.hpp"
#include "concord/math/types.hpp"
#include "concord/scene/scene_spec.hpp"
#include "concord/world/step_stats.hpp"

namespace concord {

/// One entry of bodies.json.
struct OutputBodyInfo {
    std::string name;
    std::string mesh;  ///< relative to the output directory, e.g. "meshes/box.obj"
    MotionType motion = MotionType::Dynamic;
    int dofs = 12;  ///< coordinates per frame row (optional "dofs" key; 12 for affine bodies)
    /// Reduced elastic bodies: meshes/NAME.modes.json, the mode values at the mesh vertices
    /// (required when dofs > 12; empty otherwise).
    std::string modes;
};

/// World positions of a body's mesh vertices from its frames.jsonl row:
/// x = p + A (X + Phi eta) with eta = row[12..] (Phi empty for an affine body).
Vertices row_world_vertices(const TriMesh& mesh, const MatX& vertex_modes, const VecX& row);

/// One line of frames.jsonl.
struct FrameRecord {
    int frame = 0;
    double time = 0.0;
    std::vector<VecX> q;  ///< one row per body, in body order
    StepStats stats;
};

/// Reads frames.jsonl one line at a time, so that long runs need not fit in memory.
class FrameStream {
  public:
    /// Opens `path`; each row of q must have dofs[b] numbers.
    FrameStream(std::string path, std::vector<int> dofs);

    /// Reads the next frame into `out`; false at the end of the file. Throws InputError
    /// "PATH: line N: ..." for a line that is not valid JSON, lacks a key, has a wrong row count or
    /// length, holds a non-number, or repeats or goes back in frame number.
    bool next(FrameRecord& out);

    int lines_read() const { return line_number_; }
    /// After next() returned false: the file ended in a partial line (a run killed while
    /// writing a frame), which was skipped. An unterminated last line that is a whole frame is
    /// read as one.
    bool partial_tail() const { return partial_tail_; }

  private:
    std::string path_;
    std::vector<int> dofs_;
    std::ifstream in_;
    int line_number_ = 0;
    int last_frame_ = -1;
    bool partial_tail_ = false;
};

class OutputReader {
  public:
    /// Reads bodies.json and the planes of scene.json and checks that every mesh file exists.
    /// Throws InputError "DIR/FILE: ..." for a missing or malformed file.
    explicit OutputReader(std::string dir);

    const std::string& directory() const { return dir_; }
    const std::vector<OutputBodyInfo>& bodies() const { return bodies_; }
    const std::vector<PlaneSpec>& planes() const { return planes_; }
    /// scene.json's contact.exclude as body index pairs (a, b), a < b, sorted: the pairs that
    /// never touch (their surfaces may overlap).
    const std::vector<std::pair<int, int>>& contact_exclusions() const { return exclude_; }
    /// scene.json as written (the resolved scene).
    const nlohmann::json& scene() const { return scene_; }

    /// Body i's mesh in local coordinates (read from disk on each call).
    TriMesh load_mesh(int i) const;
    std::vector<TriMesh> load_meshes() const;
    /// Body i's mode values at its mesh vertices (3n x m, rows 3v..3v+2 of vertex v); an empty
    /// matrix for affine bodies. Throws InputError for a malformed file.
    MatX load_modes(int i) const;
    /// The fluid's particles at saved frame `frame` (fluid/NNNNNN.npy: rows x, y, z, speed,
    /// pressure), or nullopt when the run has no fluid file for it. Throws InputError naming the
    /// file for a malformed one or one without 5 columns.
    std::optional<NpyMatrix> load_fluid(int frame) const;

    FrameStream frames() const;
    std::vector<FrameRecord> read_all_frames() const;

    /// A note when the run in the directory did not finish (killed, interrupted, failed or
    /// still running): "DIR: the run stopped after frame N of M ..." naming the last complete
    /// frame, whether a partial last line is skipped, and how to continue it. nullopt for a
    /// finished run.
    std::optional<std::string> unfinished_run_note() const;

  private:
    std::string dir_;
    std::vector<OutputBodyInfo> bodies_;
    std::vector<PlaneSpec> planes_;
    std::vector<std::pair<int, int>> exclude_;
    nlohmann::json scene_;
};

}  // namespace concord
