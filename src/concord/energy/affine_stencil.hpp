// Maps derivatives with respect to the world positions of a few contact vertices to the
// affine coordinates of the bodies they belong to (x_k = p_b + A_b X_k, so dx_k/dq_b = J(X_k)).
#pragma once

#include <array>

#include "concord/energy/contact_surface.hpp"
#include "concord/energy/energy.hpp"

namespace concord {

/// One pair's gradient in the coordinates of its (movable) bodies (AffineStencil::gradient),
/// kept so that pairs can be mapped in parallel and added in a fixed order.
struct StencilGradient {
    std::array<int, 2> body{-1, -1};  ///< -1: no (movable) body in this slot
    std::array<Vec12, 2> affine;
    std::array<int, 2> modal_offset{-1, -1};
    std::array<VecX, 2> modal;  ///< elastic bodies' modal part (at modal_offset)

    void add_to(VecX& out) const {
        for (std::size_t j = 0; j < 2; ++j) {
            if (body[j] < 0) continue;
            out.segment<12>(12 * body[j]) += affine[j];
            if (modal_offset[j] >= 0) out.segment(modal_offset[j], modal[j].size()) += modal[j];
        }
    }
};

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
                owner[k] = j;
                local[k] = X;
                for (int i = 0; i < 3; ++i) {
                    G[j](i, 3 * k + i) = 1.0;
                    G[j].template block<3, 1>(affine_index(i, 0), 3 * k + i) = X;
                }
                if (modes) Gm[j].middleCols(3 * k, 3) = (A * s.vertex_phi(*modes, v[k])).transpose();
            }
        }
    }

    /// G g_vertex for every body of the stencil with `movable` set.
    template <typename Movable>
    StencilGradient gradient(const Vec<3 * N>& g, const Movable& movable) const {
        StencilGradient out;
        for (int j = 0; j < num_bodies; ++j) {
            if (!movable(body[j])) continue;
            const auto jj = static_cast<std::size_t>(j);
            out.body[jj] = body[jj];
            out.affine[jj] = G[jj] * g;
            if (modal_offset[jj] >= 0) {
                out.modal_offset[jj] = modal_offset[jj];
                out.modal[jj] = Gm[jj] * g;
            }
        }
        return out;
    }

    /// Adds the body blocks G_i H G_j^T (for movable bodies) to the Hessian (summed into the
    /// last pair's where they meet the same bodies: HessianBlocks::add_summed).
    template <typename Movable>
    void scatter_hessian(const Mat<3 * N>& H, HessianBlocks& out, const Movable& movable) const {
        for (int i = 0; i < num_bodies; ++i) {
            if (!movable(body[i])) continue;
            const Eigen::Matrix<double, 12, 3 * N> GH = left(i, H);
            for (int j = 0; j < num_bodies; ++j) {
                if (!movable(body[j])) continue;
                out.add_summed(12 * body[i], 12 * body[j], right(GH, j));
                if (modal_offset[j] >= 0)  // affine(i) x modal(j) and its transpose
                    out.add(12 * body[i], modal_offset[j], GH * Gm[j].transpose());
                if (modal_offset[i] >= 0) {
                    const MatX GmH = Gm[i] * H;
                    out.add(modal_offset[i], 12 * body[j], right(GmH, j));
                    if (modal_offset[j] >= 0)
                        out.add(modal_offset[i], modal_offset[j], GmH * Gm[j].transpose());
                }
            }
        }
    }

  private:
    // G_i M and M G_j^T with G's structure: the column of vertex k's coordinate c holds 1 in
    // row c and its local position in rows affine_index(c, 0..2), so each product is a sum over
    // the body's vertices of rows (columns) of M weighted by (1, X): ~12 N^2 flops each where a
    // dense 12 x 3N product takes 36 N^2 (and Eigen sends these sizes to its blocked GEMM).
    Eigen::Matrix<double, 12, 3 * N> left(int i, const Mat<3 * N>& M) const {
        Eigen::Matrix<double, 12, 3 * N> R = Eigen::Matrix<double, 12, 3 * N>::Zero();
        for (int k = 0; k < N; ++k) {
            if (owner[k] != i) continue;
            for (int c = 0; c < 3; ++c) {
                const auto row = M.row(3 * k + c);
                R.row(c) += row;
                for (int d = 0; d < 3; ++d) R.row(affine_index(c, d)) += local[k][d] * row;
            }
        }
        return R;
    }
    template <typename Derived>
    Eigen::Matrix<double, Derived::RowsAtCompileTime, 12> right(const Eigen::MatrixBase<Derived>& M,
                                                               int j) const {
        Eigen::Matrix<double, Derived::RowsAtCompileTime, 12> R(M.rows(), 12);
        R.setZero();
        for (int l = 0; l < N; ++l) {
            if (owner[l] != j) continue;
            for (int c = 0; c < 3; ++c) {
                const auto col = M.col(3 * l + c);
                R.col(c) += col;
                for (int d = 0; d < 3; ++d) R.col(affine_index(c, d)) += local[l][d] * col;
            }
        }
        return R;
    }

    std::array<int, N> owner{};  ///< index into body[] of each vertex
    std::array<Vec3, N> local{};  ///< each vertex's local position (X, or X + Phi eta)
};

}  // namespace concord
