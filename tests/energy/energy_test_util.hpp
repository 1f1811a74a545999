// Helpers shared by the energy tests: an energy's gradient and dense Hessian, and the relative
// error used to compare them with finite differences.
#pragma once

#include <Eigen/SparseCore>
#include <algorithm>

#include "concord/body/body_builder.hpp"
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

// Two boxes, one above the other at a small gap, plus the ground plane, with every contact kind.
struct ContactFixture {
    std::vector<AffineBody> bodies;
    ContactSurface surface;
    std::vector<HalfSpace> planes{HalfSpace{Vec3(0, -0.6, 0), Vec3::UnitY()}};
    VecX q;
    double dhat = 0.05;

    ContactFixture() {
        BodySpec a;
        a.name = "a";
        a.shape.kind = ShapeKind::Box;
        BodySpec b = a;
        b.name = "b";
        bodies.push_back(build_body(a));
        bodies.push_back(build_body(b));
        surface = build_contact_surface(bodies);
        q.resize(24);
        // b above a by a 0.02 gap, rotated slightly about y so edges cross (edge-edge pairs).
        const Mat3 R = Eigen::AngleAxisd(0.3, Vec3::UnitY()).toRotationMatrix() *
                       Eigen::AngleAxisd(0.01, Vec3::UnitX()).toRotationMatrix();
        q << affine_state(Vec3(0, -0.085, 0), Mat3::Identity()), affine_state(Vec3(0.1, 0.935, 0), R);
    }

    ContactSet contacts() const { return test::contacts_at(surface, q, planes, dhat); }
};


}  // namespace concord::test
