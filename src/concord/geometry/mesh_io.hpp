// Reading and writing triangle meshes (OBJ, STL, PLY).
#pragma once

#include <string>

#include "concord/geometry/mesh.hpp"

namespace concord {

/// Loads a triangle mesh, choosing the format by the (case-insensitive) extension:
/// - .obj: read by Concord's own strict reader (see obj_reader.hpp). Vertex order and indices are
///   exactly the file's; polygons are split into a fan (v0, vi, vi+1); normals, texture
///   coordinates, groups and materials are ignored. Coordinates are parsed correctly rounded, so
///   save_obj followed by load_mesh reproduces the arrays bit for bit.
/// - .stl (ascii or binary): read by assimp; exactly coincident facet corners are joined into one
///   vertex (numbered by first appearance) so that the triangle soup becomes a connected mesh.
/// - .ply (ascii or binary): read by Concord's own strict reader (see ply_reader.hpp), keeping the
///   file's vertex order, indices and coordinates exactly; polygons are split into fans.
/// Assimp stores single-precision coordinates, so STL carries about 7 significant digits.
/// The result has its connectivity built. No scaling or transform is applied.
///
/// Throws InputError "PATH: ..." for a missing or unreadable file, an unknown extension, a parse
/// failure, an empty mesh, a non-finite coordinate, or a face index out of range, naming the
/// line (OBJ), facet (STL) or face/vertex (PLY) at fault. OBJ messages count vertices and faces
/// from 1 as the file does; STL and PLY messages count from 0.
TriMesh load_mesh(const std::string& path);

/// Writes vertices ("v x y z", shortest decimal form that reads back to the same double) and
/// faces ("f a b c", 1-based) as OBJ. Throws InputError "PATH: ..." if the file cannot be written.
void save_obj(const TriMesh& mesh, const std::string& path);

}  // namespace concord
