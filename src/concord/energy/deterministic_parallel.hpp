// Parallel loops whose results do not depend on the thread count.
//
// Work is cut into fixed-size chunks (independent of how many threads run them); each chunk
// writes only its own output slot, and the caller combines slots in chunk order. Floating-point
// sums are therefore always formed in the same order.
#pragma once

#include <tbb/parallel_for.h>

#include <cstddef>
#include <vector>

#include "concord/math/hessian_blocks.hpp"

namespace concord {

constexpr std::size_t kDeterministicChunk = 256;

inline std::size_t num_chunks(std::size_t n, std::size_t chunk = kDeterministicChunk) {
    return (n + chunk - 1) / chunk;
}

/// Calls fn(begin, end, chunk_index) for every chunk of [0, n), in parallel.
template <typename Fn>
void for_each_chunk(std::size_t n, Fn&& fn, std::size_t chunk = kDeterministicChunk) {
    const std::size_t count = num_chunks(n, chunk);
    tbb::parallel_for(std::size_t(0), count, [&](std::size_t c) {
        const std::size_t begin = c * chunk;
        const std::size_t end = std::min(n, begin + chunk);
        fn(begin, end, c);
    });
}

/// Calls fn(i, out) for every i of [0, n), in parallel chunks that each write their own blocks,
/// then appends the chunks' blocks to H in chunk order: the blocks a serial loop would add.
template <typename Fn>
void add_blocks_in_chunks(std::size_t n, HessianBlocks& H, Fn&& fn) {
    std::vector<HessianBlocks> chunk(num_chunks(n));
    for_each_chunk(n, [&](std::size_t b, std::size_t e, std::size_t c) {
        for (std::size_t i = b; i < e; ++i) fn(i, chunk[c]);
    });
    H.append_all(chunk);
}

/// Sum of f(i) over [0, n) formed in a fixed order whatever the thread count.
template <typename F>
double deterministic_sum(std::size_t n, F&& f) {
    std::vector<double> partial(num_chunks(n), 0.0);
    for_each_chunk(n, [&](std::size_t b, std::size_t e, std::size_t c) {
        double s = 0.0;
        for (std::size_t i = b; i < e; ++i) s += f(i);
        partial[c] = s;
    });
    double total = 0.0;
    for (double s : partial) total += s;
    return total;
}

}  // namespace concord
