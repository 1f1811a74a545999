// Broad phase: contact candidates between different bodies from swept, inflated boxes.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "concord/collision/broad_phase/body_pair_filter.hpp"
#include "concord/collision/broad_phase/body_parts.hpp"
#include "concord/collision/broad_phase/candidates.hpp"
#include "concord/collision/broad_phase/collision_mesh.hpp"
#include "concord/collision/broad_phase/lbvh.hpp"
#include "concord/geometry/aabb.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// How candidate boxes are paired. Both give identical candidates; they differ in speed.
enum class BroadPhaseMethod {
    lbvh,             ///< linear BVH over faces and over edges (default; near n log n)
    sweep_and_prune,  ///< sort by box minimum along one axis and scan; fast only when sparse
};

struct BroadPhaseParams {
    /// Contact activation distance dhat (a distance, not squared; >= 0, finite). Every pair of
    /// primitives that comes within dhat of each other at some time of the step, both moving
    /// linearly from x0 to x1, is reported: each swept box is grown by dhat / 2 (see
    /// swept_boxes.hpp for the argument). 1e-3 matches the scene format's default.
    double dhat = 1e-3;
    BroadPhaseMethod method = BroadPhaseMethod::lbvh;
    BodyPairFilter body_pair_filter;  ///< empty: every pair of different bodies
};

/// Point-triangle and edge-edge candidates between different bodies for the step from x0 to x1
/// (V x 3 each; pass the same array twice for a static query). Never pairs two elements of one
/// body. The result is deduplicated, sorted, and identical on any number of threads and for
/// either method. Throws InputError on an invalid mesh, mismatched or non-finite positions, or
/// a negative or non-finite dhat.
Candidates find_candidates(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                           const BroadPhaseParams& params = {});

/// The same as a reusable object: the swept boxes and both trees are kept between calls, so
/// that calling it every step or Newton iteration reuses their storage instead of faulting in
/// fresh pages (a large share of the cost at a million triangles).
class BroadPhase {
  public:
    Candidates find(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                    const BroadPhaseParams& params = {});

    /// Vertex boxes of the last find() (grown by dhat / 2), for callers that re-query them. An
    /// edge's or face's box is the union of its vertices' (exactly its swept box: the padding
    /// and outward rounding are monotone): the LBVH method keeps no array of them, it forms
    /// each where needed.
    std::span<const AABB> vertex_boxes() const { return vertex_boxes_; }
    /// Gives the caller the vertex boxes of the last find() in exchange for its vector, whose
    /// storage the next find() reuses (no copy of arrays of millions of boxes).
    void exchange_vertex_boxes(std::vector<AABB>& vertex) { vertex_boxes_.swap(vertex); }
    /// Gives the caller the body boxes and parts of the last find() (LBVH method) in exchange
    /// for its own, as exchange_vertex_boxes does.
    void exchange_parts(std::vector<AABB>& body_boxes, std::array<BodyParts, 3>& parts) {
        body_boxes_.swap(body_boxes);
        parts_.swap(parts);
    }
    /// The LBVH method first keeps only the primitives whose box overlaps, in another body
    /// they may pair with, the box of a part of the primitives they can pair with (a vertex:
    /// faces; an edge: edges; a face: vertices; a body's primitives of a kind in BodyParts); its
    /// trees (bodies as groups) hold just those: the tree's primitive i is face active_faces()[i]
    /// (edge active_edges()[i]).
    const LBVH& face_tree() const { return face_tree_; }
    const LBVH& edge_tree() const { return edge_tree_; }
    std::span<const int> active_vertices() const { return active_vertices_; }
    std::span<const int> active_edges() const { return active_edges_; }
    std::span<const int> active_faces() const { return active_faces_; }

  private:
    void select_near_other_bodies(const CollisionMesh& mesh, const BodyPairFilter& filter);

    /// An edge's or face's box: the union of its vertices' in vertex_boxes_.
    AABB edge_box(const CollisionMesh& mesh, int e) const;
    AABB face_box(const CollisionMesh& mesh, int f) const;

    std::vector<AABB> vertex_boxes_;
    std::vector<AABB> edge_boxes_, face_boxes_;  // the sweep-and-prune method's only
    LBVH face_tree_, edge_tree_;
    std::vector<AABB> body_boxes_, active_face_boxes_, active_edge_boxes_;
    std::vector<int> near_begin_, near_bodies_;
    /// Per kind (vertices, edges, faces): the bodies' parts, and per body the parts of the
    /// kind its primitives of this kind pair with in the bodies near it.
    std::array<BodyParts, 3> parts_;
    std::array<NearParts, 3> near_parts_;
    std::vector<int> active_vertices_, active_edges_, active_faces_;
    std::vector<int> active_face_groups_, active_edge_groups_;
    std::vector<std::uint8_t> flags_;
};

/// The checks find_candidates runs on its input (see there).
void validate_broad_phase_input(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                                double dhat);
/// The same checks but the mesh's own (validate_collision_mesh): dhat and the positions, for a
/// caller that queries one mesh it has already checked.
void validate_broad_phase_positions(const CollisionMesh& mesh, const Vertices& x0,
                                    const Vertices& x1, double dhat);

/// Whether every vertex, edge and face of the mesh lies on one body (or there are none): then
/// no pair is a candidate, and the broad phases answer without boxing anything (an island of
/// one body, most of a falling scene's systems, keeps no box arrays).
bool one_body(const CollisionMesh& mesh);

/// Building blocks of the LBVH method, for callers that keep their own boxes or hierarchies
/// (e.g. re-querying one tree with other boxes). They trust their input (no validation).
/// Build the trees with the bodies as groups (mesh.face_body, mesh.edge_body): results are the
/// same without, but then every query also walks its own body's subtree.

/// Pairs (v, f) of different, filter-accepted bodies whose boxes overlap: vertex_boxes[v]
/// against the boxes face_bvh was built on. Sorted by (vertex, face).
std::vector<PointTriangleCandidate> point_triangle_candidates(const CollisionMesh& mesh,
                                                              std::span<const AABB> vertex_boxes,
                                                              const LBVH& face_bvh,
                                                              const BodyPairFilter& filter = {});

/// Pairs (a, b), a < b, of edges of different, filter-accepted bodies whose boxes (those
/// edge_bvh was built on) overlap. Sorted by (edge_a, edge_b).
std::vector<EdgeEdgeCandidate> edge_edge_candidates(const CollisionMesh& mesh, const LBVH& edge_bvh,
                                                    const BodyPairFilter& filter = {});

}  // namespace concord
