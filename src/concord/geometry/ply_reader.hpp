// The strict PLY reader behind load_mesh.
#pragma once

#include <string>

#include "concord/geometry/mesh.hpp"

namespace concord {

/// Reads an ascii, binary_little_endian or binary_big_endian PLY file into a mesh without
/// connectivity: the `vertex` element's x, y, z properties (any scalar type, kept exactly in
/// double precision) and the `face` element's `vertex_indices` (or `vertex_index`) list, in file
/// order; a polygon becomes the fan (v0, vi, vi+1). Every other element and property is read past
/// and ignored; bytes after the last element are ignored. A file without a face element gives a
/// mesh without faces (which load_mesh refuses).
///
/// Written instead of using assimp (which read PLY until 2026-12): assimp 5.2.4 never returned on
/// a header without end_header, aborted the process on some malformed headers, allocated gigabytes
/// for a huge list count and corrupted the heap on some malformed binary bodies (all found by
/// fuzz_mesh_reader); it also read "nan" in ascii as 0 and rounded coordinates to float.
///
/// Throws InputError "PATH: cannot read mesh: ..." naming the header line, or the element and
/// property at fault in the data (ascii: also the line), for a malformed header, data that ends
/// early, a value that is not a number of its declared type, a missing x, y or z, a face index
/// out of range, and "PATH: face F has N vertices; points and lines are not surfaces". Vertex and
/// face numbers count from 0. Non-finite coordinates are passed through for load_mesh to report.
TriMesh read_ply_file(const std::string& path);

}  // namespace concord
