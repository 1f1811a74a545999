// Maps derivatives with respect to the world positions of a few contact vertices to the
// affine coordinates of the bodies they belong to (x_k = p_b + A_b X_k, so dx_k/dq_b = J(X_k)).
#pragma once

#include <array>

#include "concord/energy/contact_surface.hpp"
#include "concord/energy/energy.hpp"

namespace concord {

/// The N vertices of one contact pair (1 for vertex-plane, 4 for point-triangle/edge-edge),
/// grouped by body. At most two bodies take part in one pair.
template <int N>
struct AffineStencil {
    std::array<int, N> vertex{};
    std::array<int, 2> body{-1, -1};  ///< distinct bodies, body[1] = -1 if only one
    int num_bodies = 0;
    /// G[k] (12 x 3N): transpose of d(stacked vertex positions)/d(q_body[k]).
    std::array<Eigen::Matrix<double, 12, 3 * N>, 2> G;

    /// Elastic bodies (x = p + A (X + Phi eta)): Gm[k] (m x 3N) = d(vertices)/d(eta)^T = (A Phi)^T
    /// per vertex, at modal_offset[k]; empty for affine bodies. G then uses the deformed local
    /// position Y = X + Phi eta. Only the first derivatives of the bilinear map are kept
    /// (Gauss-Newton: the term d2x/dA d eta contracted with the vertex gradient is dropped
    /// from Hessians, so they stay PSD whenever the vertex-space Hessian is).
    std::array<MatX, 2> Gm;
    std::array<int, 2> modal_offset{-1, -1};

    /// `q` is needed when the surface has elastic bodies (their Jacobians depend on the state).
    AffineStencil(const ContactSurface& s, const std::array<int, N>& v, const VecX* q = nullptr)
        : vertex(v) {
        for (int k = 0; k < N; ++k) {
            const int b = s.body_of_vertex(v[k]);
            if (num_bodies == 0 || (body[0] != b && num_bodies == 1)) body[num_bodies++] = b;
        }
        for (int j = 0; j < num_bodies; ++j) {
            G[j].setZero();
            const SurfaceModes* modes = s.elastic(body[j]);
            Mat3 A = Mat3::Zero();
            if (modes != nullptr) {
                A = affine_matrix(q->template segment<12>(12 * body[j]));
                modal_offset[j] = modes->modal_offset;
                Gm[j] = MatX::Zero(modes->num_modes, 3 * N);
            }
            for (int k = 0; k < N; ++k) {
                if (s.body_of_vertex(v[k]) != body[j]) continue;
                const Vec3 X = modes ? s.local_position(*q, v[k]) : Vec3(s.rest.row(v[k]).transpose());
                for (int i = 0; i < 3; ++i) {
                    G[j](i, 3 * k + i) = 1.0;
                    G[j].template block<3, 1>(affine_index(i, 0), 3 * k + i) = X;
                }
                if (modes) Gm[j].middleCols(3 * k, 3) = (A * s.vertex_phi(*modes, v[k])).transpose();
            }
        }
    }

    /// g_body += G g_vertex for every body of the stencil with `movable` set.
    template <typename Movable>
    void scatter_gradient(const Vec<3 * N>& g, VecX& out, const Movable& movable) const {
        for (int j = 0; j < num_bodies; ++j) {
            if (!movable(body[j])) continue;
            out.template segment<12>(12 * body[j]) += G[j] * g;
            if (modal_offset[j] >= 0) out.segment(modal_offset[j], Gm[j].rows()) += Gm[j] * g;
        }
    }

    /// Appends the body blocks G_i H G_j^T (for movable bodies) to the triplets.
    template <typename Movable>
    void scatter_hessian(const Mat<3 * N>& H, Triplets& out, const Movable& movable) const {
        for (int i = 0; i < num_bodies; ++i) {
            if (!movable(body[i])) continue;
            const Eigen::Matrix<double, 12, 3 * N> GH = G[i] * H;
            for (int j = 0; j < num_bodies; ++j) {
                if (!movable(body[j])) continue;
                const Mat12 B = GH * G[j].transpose();
                add_block(out, 12 * body[i], 12 * body[j], B);
                if (modal_offset[j] >= 0)  // affine(i) x modal(j) and its transpose
                    add_block(out, 12 * body[i], modal_offset[j], GH * Gm[j].transpose());
                if (modal_offset[i] >= 0) {
                    const MatX GmH = Gm[i] * H;
                    add_block(out, modal_offset[i], 12 * body[j], GmH * G[j].transpose());
                    if (modal_offset[j] >= 0)
                        add_block(out, modal_offset[i], modal_offset[j], GmH * Gm[j].transpose());
                }
            }
        }
    }
};

}  // namespace concord
