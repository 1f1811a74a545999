// The loop and scatter every pair energy shares (ipc-toolkit's Potential): a pair term writes
// one pair's gradient or Hessian in the stacked coordinates of its N vertices; these map them
// to the bodies' coordinates (AffineStencil) and add them up in a fixed order, whatever the
// thread count.
#pragma once

#include <array>
#include <vector>

#include "concord/energy/affine_stencil.hpp"
#include "concord/energy/deterministic_parallel.hpp"

namespace concord {

/// `pairs`: a std::vector or std::span of pairs.
/// g += sum over pairs of G_pair^T local_gradient(pair). Local gradients are evaluated in
/// parallel chunks; the scatter runs serially in pair order (per-chunk dense partial gradients
/// would cost O(chunks * DoFs)).
template <int N, typename Pairs, typename LocalGradient, typename StencilOf>
void scatter_pair_gradients(const Pairs& pairs, const ContactSurface& s, const VecX& q,
                            LocalGradient&& local_gradient, StencilOf&& stencil_of,
                            const std::vector<bool>& movable, VecX& g) {
    std::vector<Vec<3 * N>> local(pairs.size());
    for_each_chunk(pairs.size(), [&](std::size_t b, std::size_t e, std::size_t) {
        for (std::size_t i = b; i < e; ++i) local[i] = local_gradient(pairs[i]);
    });
    auto is_movable = [&](int body) { return movable[static_cast<std::size_t>(body)]; };
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const AffineStencil<N> st(s, stencil_of(pairs[i]), &q);
        st.scatter_gradient(local[i], g, is_movable);
    }
}

/// Appends the body blocks of every pair's local Hessian (already projected if it must be),
/// chunk by chunk in pair order.
template <int N, typename Pairs, typename LocalHessian, typename StencilOf>
void scatter_pair_hessians(const Pairs& pairs, const ContactSurface& s, const VecX& q,
                           LocalHessian&& local_hessian, StencilOf&& stencil_of,
                           const std::vector<bool>& movable, HessianBlocks& H) {
    auto is_movable = [&](int body) { return movable[static_cast<std::size_t>(body)]; };
    add_blocks_in_chunks(pairs.size(), H, [&](std::size_t i, HessianBlocks& out) {
        const Mat<3 * N> h = local_hessian(pairs[i]);
        const AffineStencil<N> st(s, stencil_of(pairs[i]), &q);
        st.scatter_hessian(h, out, is_movable);
    });
}

}  // namespace concord
