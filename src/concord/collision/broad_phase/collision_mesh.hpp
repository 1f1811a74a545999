// The scene's collision surface: every body's triangles concatenated into flat arrays.
#pragma once

#include <vector>

#include "concord/math/types.hpp"

namespace concord {

/// All bodies' surfaces in one structure-of-arrays, indices global over the scene.
/// Vertex positions are passed separately (they change every Newton iteration).
struct CollisionMesh {
    Faces faces;                   ///< F x 3 global vertex indices
    Edges edges;                   ///< E x 2 global vertex indices
    std::vector<int> vertex_body;  ///< body of each vertex (size V)
    std::vector<int> edge_body;    ///< body of each edge (size E)
    std::vector<int> face_body;    ///< body of each face (size F)

    int num_vertices() const { return static_cast<int>(vertex_body.size()); }
    int num_edges() const { return static_cast<int>(edges.rows()); }
    int num_faces() const { return static_cast<int>(faces.rows()); }
};

}  // namespace concord
