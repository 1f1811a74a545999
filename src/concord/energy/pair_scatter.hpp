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
/// g += sum over pairs of their body gradients: body_gradient(i) (a StencilGradient) is
/// evaluated for every i of [0, n) in parallel chunks, and the results are added serially in
/// pair order (per-chunk dense partial gradients would cost O(chunks * DoFs)).
template <typename BodyGradient>
void add_pair_gradients(std::size_t n, BodyGradient&& body_gradient, VecX& g) {
    std::vector<StencilGradient> local(n);
    for_each_chunk(n, [&](std::size_t b, std::size_t e, std::size_t) {
        for (std::size_t i = b; i < e; ++i) local[i] = body_gradient(i);
    });
    for (const StencilGradient& l : local) l.add_to(g);
}

/// g += sum over pairs of G_pair^T local_gradient(pair) (add_pair_gradients).
template <int N, typename Pairs, typename LocalGradient, typename StencilOf>
void scatter_pair_gradients(const Pairs& pairs, const ContactSurface& s, const VecX& q,
                            LocalGradient&& local_gradient, StencilOf&& stencil_of,
                            const std::vector<bool>& movable, VecX& g) {
    auto is_movable = [&](int body) { return movable[static_cast<std::size_t>(body)]; };
    add_pair_gradients(
        pairs.size(),
        [&](std::size_t i) {
            const AffineStencil<N> st(s, stencil_of(pairs[i]), &q);
            return st.gradient(local_gradient(pairs[i]), is_movable);
        },
        g);
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
