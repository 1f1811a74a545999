// The strict Wavefront OBJ reader behind load_mesh.
#pragma once

#include <string>

#include "concord/geometry/mesh.hpp"

namespace concord {

/// Reads the vertices ("v") and polygons ("f", "fo") of an OBJ file into a mesh without
/// connectivity; every other statement (vn, vt, g, o, s, usemtl, mtllib, l, p, ...) is ignored.
/// Polygons are split into the fan (v0, vi, vi+1). Supports "i", "i/t", "i//n", "i/t/n" corners,
/// negative (relative) indices, '#' comments and '\' line continuation.
///
/// Written instead of using tinyobjloader because load_mesh must reject bad numbers and keep
/// exact coordinates: tinyobjloader 2.0rc10 reads "nan" or "abc" as 0 without an error and its
/// number parser is not correctly rounded (values written with %.17g read back a few ulps off).
///
/// Throws InputError "PATH: line L: ..." for unreadable numbers, non-finite coordinates, vertices
/// with fewer than 3 coordinates, faces with fewer than 3 corners and indices that are 0, out of
/// range or malformed. Vertex and face numbers in messages count from 1, as in the file.
TriMesh read_obj_file(const std::string& path);

}  // namespace concord
