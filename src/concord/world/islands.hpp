// Islands: groups of bodies that may interact during a step and can be solved independently.
//
// The step's motion is bounded first (step_motion_bounds): every vertex is assumed to stay in
// a box around its start and predicted end positions. A broad phase over those boxes gives the
// contact candidates of the whole step, and the islands are the connected components of the
// graph of movable bodies linked by candidates (and by joints, when the world has any).
// Static bodies never link two islands: they join each island they may touch as obstacles.
// After the solves, within_bounds checks the assumption; when it fails the step is solved
// again as one system, so the result never depends on the bound being right.
#pragma once

#include <utility>
#include <vector>

#include "concord/collision/broad_phase/candidates.hpp"
#include "concord/energy/contact_surface.hpp"

namespace concord {

struct Island {
    std::vector<int> movable;    ///< its unknown bodies, sorted
    std::vector<int> obstacles;  ///< static bodies it may touch, sorted
    /// Every body of the island, sorted (the key of its solver system).
    std::vector<int> bodies() const;
};

/// Connected components of the movable bodies under `pairs` (pairs of different bodies, in any
/// order, duplicates allowed). A movable body without pairs is an island of its own; a pair
/// with one static body makes it an obstacle of the other's island; pairs of two static bodies
/// are ignored. Islands are ordered by their smallest body.
std::vector<Island> find_islands(const std::vector<bool>& movable,
                                 const std::vector<std::pair<int, int>>& pairs);

/// Per-vertex boxes [lo, hi] a step's motion is assumed to stay in.
struct MotionBounds {
    Vertices lo, hi;
};

/// The box of each vertex over its positions at q_start and q_predicted (the predicted end
/// state: inertia target of dynamic bodies, prescribed pose of kinematic ones), grown on every
/// side by its body's margin: the largest displacement of any of the body's vertices between
/// the two states, and at least min_margin. Contacts can slow a body (it stays inside) or
/// push it by about as much as its neighbour's predicted motion, which the margin absorbs.
MotionBounds step_motion_bounds(const ContactSurface& surface, const VecX& q_start,
                                const VecX& q_predicted, double min_margin);

/// True when every vertex position of x lies in its box.
bool within_bounds(const MotionBounds& bounds, const Vertices& x);

}  // namespace concord
