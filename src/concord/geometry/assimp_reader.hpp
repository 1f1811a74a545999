// STL reading through assimp, behind load_mesh.
#pragma once

#include <string>

#include "concord/geometry/mesh.hpp"

namespace concord {

/// Reads an ascii or binary STL file into a mesh without connectivity. STL stores each facet's
/// corners separately; exactly coincident corners are joined into one vertex, numbered in order
/// of first appearance, so the facets form a connected surface. Facets keep their file order.
/// Several solids in one file are concatenated.
///
/// Throws InputError "PATH: ..." with assimp's message when assimp cannot read the file, and
/// "PATH: facet F has a non-finite coordinate (x, y, z)" (F from 0) before any joining.
TriMesh read_stl_file(const std::string& path);

}  // namespace concord
