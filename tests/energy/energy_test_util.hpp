// Helpers shared by the energy tests: an energy's gradient and dense Hessian, and the relative
// error used to compare them with finite differences.
#pragma once

#include <Eigen/SparseCore>
#include <algorithm>

#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/energy/contact_set.hpp"
#include "concord/energy/energy.hpp"

namespace concord::test {

inline MatX dense_hessian(const Energy& e, const VecX& q, bool project) {
    HessianBlocks t;
    e.add_hessian(q, t, project);
    return MatX(t.sparse(q.size()));
}

inline VecX gradient_of(const Energy& e, const VecX& q) {
    VecX g = VecX::Zero(q.size());
    e.add_gradient(q, g);
    return g;
}

/// Relative error of a against b, measured against the scale of b (with a floor of 1).
inline double rel_err(const MatX& a, const MatX& b) {
    return (a - b).norm() / std::max(1.0, b.norm());
}

/// Every pair within dhat at q (sweep and prune, both bodies movable against the planes).
inline ContactSet contacts_at(const ContactSurface& surface, const VecX& q,
                              const std::vector<HalfSpace>& planes, double dhat) {
    const Vertices x = surface.positions(q);
    BroadPhaseParams bp;
    bp.dhat = dhat;
    bp.method = BroadPhaseMethod::sweep_and_prune;
    const Candidates c = find_candidates(surface.mesh, x, x, bp);
    const auto pc = point_plane_candidates(surface, x, x, planes, {true, true}, dhat);
    return build_contact_set(surface, x, c, pc, planes, dhat);
}

}  // namespace concord::test
