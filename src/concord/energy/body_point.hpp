// A point attached to a body (affine or elastic) or fixed in the world, and the map from
// derivatives with respect to such points to the state vector q (docs/joints.md).
//
// Body b's affine part [p (3), A row-major (9)] is q.segment<12>(12 b); an elastic body also
// has m modal coordinates eta at q.segment(modal_offset, m). A body-local point X with mode
// values Phi(X) (3 x m) is at
//     x(q) = p + A (X + Phi eta),
// and its derivatives with respect to the body's DoFs in the order [p, A row-major, eta] are
//     dx/dp = I3,   dx_i/dA_ij = Y_j (Y = X + Phi eta),   dx/deta = A Phi,
// with the only second derivative d2 x_i / dA_ij deta_k = Phi_jk (the map is bilinear).
//
// Frame axes: the world direction of a body-local axis a is A a, from the frame only. Modes
// move attachment points translationally and never rotate a joint's axes (the floating frame
// of docs/elastic.md carries the orientation).
#pragma once

#include <array>
#include <vector>

#include "concord/energy/energy.hpp"

namespace concord {

using ModeMatrix = Eigen::Matrix<double, 3, Eigen::Dynamic>;

struct BodyPoint {
    int body = -1;             ///< body index; -1: a fixed world point (then `local` is its position)
    Vec3 local = Vec3::Zero();  ///< X, body-local coordinates (world coordinates for the world)
    ModeMatrix phi;            ///< Phi(X), 3 x m mode values at X; empty (3 x 0) for affine bodies
    int modal_offset = -1;     ///< index of eta_0 in q; -1 for affine bodies and the world

    bool is_world() const { return body < 0; }
    int num_modes() const { return static_cast<int>(phi.cols()); }
    /// 12 + m for a body, 0 for the world.
    int num_dofs() const { return is_world() ? 0 : 12 + num_modes(); }
};

/// A point of an affine body (no modes), or of the world when body is -1.
BodyPoint affine_body_point(int body, const Vec3& local);

/// Throws InputError naming `what` when the point is inconsistent with a state of size
/// `num_dofs` (body or modal block outside q, modes without a modal offset).
void validate_body_point(const BodyPoint& point, Eigen::Index num_dofs, const std::string& what);

/// The frame A of body b in q (row-major at q[12 b + 3 ..]); the identity for the world (b < 0).
Mat3 body_frame(int body, const VecX& q);

/// World direction A a of the body-local axis a (a itself for the world).
inline Vec3 body_axis(int body, const Vec3& a, const VecX& q) { return body_frame(body, q) * a; }

/// x(q) = p + A (X + Phi eta); the point itself for the world.
Vec3 body_point_position(const BodyPoint& point, const VecX& q);

/// dx/dq_body, 3 x num_dofs(), columns in the order [p (3), A row-major (9), eta (m)].
Eigen::Matrix<double, 3, Eigen::Dynamic> body_point_jacobian(const BodyPoint& point,
                                                             const VecX& q);

/// The degrees of freedom one joint touches: the [p, A, eta] blocks of its (at most two)
/// bodies laid end to end in a local vector (world points contribute none). Scatters local
/// gradients and Hessian blocks into the global vector and triplets, skipping bodies whose
/// `movable` entry is false (static bodies: their q never changes, so they get no entries).
class JointStencil {
public:
    JointStencil() = default;
    JointStencil(const BodyPoint& first, const BodyPoint& second);

    int size() const { return size_; }
    /// Local offset of point k's block (k = 0, 1); equal to size() of what precedes it.
    int offset(int k) const { return offset_[k]; }
    /// Global index in q of local DoF i.
    int global_index(int i) const;
    /// Local indices whose body is movable, ascending.
    std::vector<int> movable_indices(const std::vector<bool>& movable) const;

    /// g[global] += g_local for every movable local DoF.
    void scatter_gradient(const VecX& g_local, VecX& g, const std::vector<bool>& movable) const;
    /// Appends H_local's entries between movable local DoFs (a block per pair of contiguous ranges).
    void scatter_hessian(const MatX& H_local, HessianBlocks& H, const std::vector<bool>& movable) const;

private:
    /// A contiguous run of local DoFs that is also contiguous in q.
    struct Range {
        int body = -1;
        int local = 0, global = 0, length = 0;
    };
    std::vector<Range> ranges_;
    std::array<int, 2> offset_{0, 0};
    int size_ = 0;
};

}  // namespace concord
