// Sweep-and-prune broad phase: boxes sorted by their minimum along one axis, then scanned.
#pragma once

#include <span>

#include "concord/collision/broad_phase/body_pair_filter.hpp"
#include "concord/collision/broad_phase/candidates.hpp"
#include "concord/collision/broad_phase/collision_mesh.hpp"
#include "concord/geometry/aabb.hpp"

namespace concord {

/// Sweep-and-prune over the same boxes; same contract as point_triangle_candidates and
/// edge_edge_candidates (broad_phase.hpp) together. The sweep axis is the one along which the
/// box centres spread most. Cost grows with the number of pairs that overlap on that axis
/// alone, so it is quadratic in dense three-dimensional piles.
Candidates sweep_and_prune_candidates(const CollisionMesh& mesh, std::span<const AABB> vertex_boxes,
                                      std::span<const AABB> edge_boxes,
                                      std::span<const AABB> face_boxes,
                                      const BodyPairFilter& filter = {});

}  // namespace concord
