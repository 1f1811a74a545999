// Closed triangle surface meshes with the connectivity that contact needs.
#pragma once

#include <string>
#include <vector>

#include "concord/geometry/aabb.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// A triangle surface mesh. Faces are oriented counter-clockwise seen from outside.
/// Connectivity (edges and adjacency) is derived from the faces by build_connectivity() and kept
/// in plain arrays so that hot loops can index them directly.
struct TriMesh {
    Vertices vertices;  ///< V x 3 positions
    Faces faces;        ///< F x 3 vertex indices
    Edges edges;        ///< E x 2 unique undirected edges, smaller vertex index first, sorted

    /// F x 3: face_edges(f, k) is the index of the edge from faces(f,k) to faces(f,(k+1)%3).
    Faces face_edges;
    /// E x 2: the (up to) two faces sharing an edge; -1 where there is none (boundary edge).
    /// For non-manifold edges (more than two faces) only the first two are stored here.
    Edges edge_faces;
    /// Compressed adjacency: faces around vertex v are vertex_faces[vertex_face_offsets[v] ..
    /// vertex_face_offsets[v+1]).
    std::vector<int> vertex_face_offsets, vertex_faces;
    /// Compressed adjacency: edges incident to vertex v, same layout.
    std::vector<int> vertex_edge_offsets, vertex_edges;

    int num_vertices() const { return static_cast<int>(vertices.rows()); }
    int num_faces() const { return static_cast<int>(faces.rows()); }
    int num_edges() const { return static_cast<int>(edges.rows()); }

    /// Recomputes edges and every adjacency array from `faces`. Call after changing faces.
    /// Deterministic: edges are sorted by (v0, v1); every adjacency list is in increasing index
    /// order. A face that repeats a vertex (degenerate) is listed once per distinct vertex and
    /// once per distinct edge. Throws InputError if a face index is outside [0, V).
    void build_connectivity();

    /// Box around all vertices; empty() for a mesh without vertices.
    AABB bounds() const;
};

/// Builds a mesh from vertices and faces and computes its connectivity.
/// Throws InputError ("mesh: face 3 references vertex 9 but the mesh has 8 vertices") for a
/// face index outside [0, V).
TriMesh make_mesh(Vertices vertices, Faces faces);

/// Throws InputError "NAME: face F references vertex I but the mesh has V vertices" (or "...has
/// negative vertex index I") for the first face with an index outside [0, num_vertices).
void check_face_indices(const Faces& faces, int num_vertices, const std::string& name);

}  // namespace concord
