// Reference broad phase that tests every pair of boxes.
#pragma once

#include "concord/collision/broad_phase/broad_phase.hpp"

namespace concord {

/// O(V F + E^2) reference that tests every pair of boxes; for tests only. Same contract and
/// validation as find_candidates (the method in params is ignored).
Candidates brute_force_candidates(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                                  const BroadPhaseParams& params = {});

}  // namespace concord
