// Sweep-and-prune broad phase: boxes sorted by their minimum along one axis, then scanned.
#pragma once

#include <span>

#include "concord/collision/broad_phase/body_pair_filter.hpp"
#include "concord/collision/broad_phase/candidates.hpp"
#include "concord/collision/broad_phase/collision_mesh.hpp"
#include "concord/geometry/aabb.hpp"

namespace concord {

/// Sweep-and-prune over the same boxes; same contract as point_triangle_candidates and
/// edge_edge_candidates (broad_phase.hpp) together. The sweep axis is the longest axis of the
/// scene's bounding box. The cost grows with the number of pairs that overlap on that axis
/// alone, which in a dense three-dimensional pile grows much faster than n log n (about 30x
/// from 10k to 100k triangles in bench_broad_phase, against 15x for the LBVH); it is kept as a
/// second, independent implementation and for sparse, elongated scenes.
Candidates sweep_and_prune_candidates(const CollisionMesh& mesh, std::span<const AABB> vertex_boxes,
                                      std::span<const AABB> edge_boxes,
                                      std::span<const AABB> face_boxes,
                                      const BodyPairFilter& filter = {});

}  // namespace concord
