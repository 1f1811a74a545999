// STL and PLY reading through assimp, behind load_mesh.
#pragma once

#include <string>

#include "concord/geometry/mesh.hpp"

namespace concord {

/// Reads every mesh in the file (STL may hold several solids) into one mesh without
/// connectivity, in file order. Normals, colours and texture coordinates are dropped before
/// exactly coincident vertices are joined, so triangle soups (STL) become connected. Node
/// transforms are ignored (STL and PLY have none).
///
/// Throws InputError "PATH: ..." with assimp's message when assimp cannot read the file or its
/// data-structure validation fails (e.g. a face index out of range), and when a face is a point
/// or a line rather than a polygon.
TriMesh read_with_assimp(const std::string& path);

}  // namespace concord
