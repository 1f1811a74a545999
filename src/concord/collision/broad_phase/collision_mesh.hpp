// The scene's collision surface: every body's triangles concatenated into flat arrays.
#pragma once

#include <span>
#include <vector>

#include "concord/geometry/mesh.hpp"
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

/// Checks that the per-element body arrays match the element counts, that every index is in
/// range, that body ids are non-negative and that each edge and face lies on the vertices of its
/// own body (a pair inside one body is never a contact, so a face that borrowed another body's
/// vertex would silently produce a self-contact). Throws InputError naming the first bad element.
void validate_collision_mesh(const CollisionMesh& mesh);

/// Appends one body's surface given with body-local vertex indices 0..num_vertices-1 and with
/// its unique undirected edges; the indices are shifted past the vertices already present.
void append_body(CollisionMesh& mesh, int body, int num_vertices, const Faces& local_faces,
                 const Edges& local_edges);

/// Appends bodies first_body, first_body + 1, ... with these meshes' faces and edges (built
/// connectivity), as append_body one by one would, but sizing every array once: appending body by
/// body reallocates the face and edge arrays per body, quadratic in the number of bodies.
void append_bodies(CollisionMesh& mesh, int first_body, std::span<const TriMesh* const> meshes);

/// Same as the first append_body, deriving the unique undirected edges (smaller index first, sorted) from the faces.
void append_body(CollisionMesh& mesh, int body, int num_vertices, const Faces& local_faces);

/// Unique undirected edges of a face list, smaller vertex index first, sorted lexicographically.
Edges unique_edges(const Faces& faces);

}  // namespace concord
