// Swept, inflated bounding boxes of the vertices, edges and faces of a collision mesh.
#pragma once

#include <vector>

#include "concord/collision/broad_phase/collision_mesh.hpp"
#include "concord/geometry/aabb.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// Inflation guarantee. A primitive moving linearly from x0 to x1 stays, at every time of the
/// step, inside the box of its vertices over both positions: each point of it is a convex
/// combination of its vertices, each of which is a convex combination of its two positions.
/// If two primitives come within distance d of each other at some time, then on every axis the
/// intervals of their unpadded boxes are at most d apart. Growing each of the two boxes by d/2
/// on every side therefore makes them overlap. Hence every box below is grown by
/// `inflation = dhat / 2` and, in addition, rounded outward by one unit in the last place so
/// that the rounding of the subtraction/addition itself cannot lose a pair.
///
/// The helpers take the per-box inflation (already halved), not dhat.

/// x0 and x1 are V x 3 row-major arrays; indices are trusted (see validate_broad_phase_input).
/// The overloads taking an output vector reuse its storage.

/// Box of vertex v over x0.row(v) and x1.row(v), grown by `inflation` on every side.
AABB swept_vertex_box(const Vertices& x0, const Vertices& x1, int v, double inflation);

/// Box of edge e (both end points at both positions) and of face f (three corners), grown by
/// `inflation`: the entries swept_edge_boxes / swept_face_boxes compute, bit for bit.
AABB swept_edge_box(const Edges& edges, const Vertices& x0, const Vertices& x1, int e,
                    double inflation);
AABB swept_face_box(const Faces& faces, const Vertices& x0, const Vertices& x1, int f,
                    double inflation);

/// Boxes of all vertices (size V), computed in parallel.
std::vector<AABB> swept_vertex_boxes(const Vertices& x0, const Vertices& x1, double inflation);
void swept_vertex_boxes(const Vertices& x0, const Vertices& x1, double inflation,
                        std::vector<AABB>& boxes);

/// Boxes of all edges (size E): both end points at both positions, grown by `inflation`.
std::vector<AABB> swept_edge_boxes(const Edges& edges, const Vertices& x0, const Vertices& x1,
                                   double inflation);
void swept_edge_boxes(const Edges& edges, const Vertices& x0, const Vertices& x1, double inflation,
                      std::vector<AABB>& boxes);

/// Boxes of all faces (size F): three corners at both positions, grown by `inflation`.
std::vector<AABB> swept_face_boxes(const Faces& faces, const Vertices& x0, const Vertices& x1,
                                   double inflation);
void swept_face_boxes(const Faces& faces, const Vertices& x0, const Vertices& x1, double inflation,
                      std::vector<AABB>& boxes);

}  // namespace concord
