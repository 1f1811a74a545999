// `concord export --format obj|ply`: one world-space mesh file per saved frame, for research
// tools that read plain meshes (every body merged into one file, body order kept).
#pragma once

#include <string>

#include "concord/export/frame_selection.hpp"
#include "concord/io/output_reader.hpp"

namespace concord {

enum class MeshSequenceFormat { Obj, Ply };

struct MeshSequenceSummary {
    int files = 0;
    std::string first_file;
    std::string last_file;
    long vertices_per_frame = 0;
    long faces_per_frame = 0;
    int fluid_files = 0;  ///< PLY point clouds of the fluid written beside the meshes
};

/// "fluid_00042.ply": frame 42's fluid particles as a point cloud (PLY export of a run with a
/// fluid).
std::string fluid_point_cloud_file_name(int frame);

/// "frame_00042.obj" for frame 42 (at least five digits).
std::string mesh_sequence_file_name(int frame, MeshSequenceFormat format);

/// Writes out_dir/frame_NNNNN.{obj,ply} for every selected frame, creating out_dir.
/// OBJ: a comment with frame and time, then "o NAME" with the body's world vertices ("v", in the
/// shortest form that reads back to the same double) and faces ("f", 1-based, counting on from
/// the bodies before). PLY: binary little-endian with double x, y, z per vertex and, per face,
/// its vertex_indices and the index of its body ("body"); with a fluid, also
/// out_dir/fluid_NNNNN.ply per frame: binary little-endian float x, y, z, speed, pressure per
/// particle (the frame's fluid/NNNNNN.npy). Throws InputError for a bad
/// selection, a malformed frame, or a file that cannot be written.
MeshSequenceSummary export_mesh_sequence(const OutputReader& reader, const std::string& out_dir,
                                         MeshSequenceFormat format,
                                         const FrameSelection& selection);

}  // namespace concord
