// Order-preserving selection in parallel: make(i) for every i of [0, n) with keep(i), in
// increasing i. For the filters over a dense pile's 10^5 candidate pairs that every CCD of a
// Newton iteration runs: each fixed piece of indices is counted, then written at its offset, so
// the result is the serial loop's on any thread count.
#pragma once

#include <tbb/parallel_for.h>

#include <cstddef>
#include <vector>

namespace concord {

template <class T, class Keep, class Make>
std::vector<T> parallel_select(std::size_t n, Keep&& keep, Make&& make, std::size_t piece = 8192) {
    const std::size_t pieces = (n + piece - 1) / piece;
    std::vector<std::size_t> offset(pieces + 1, 0);
    tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t p) {
        std::size_t count = 0;
        for (std::size_t i = p * piece, e = std::min(n, (p + 1) * piece); i < e; ++i)
            count += keep(i) ? 1 : 0;
        offset[p + 1] = count;
    });
    for (std::size_t p = 0; p < pieces; ++p) offset[p + 1] += offset[p];
    std::vector<T> out(offset.back());
    tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t p) {
        std::size_t o = offset[p];
        for (std::size_t i = p * piece, e = std::min(n, (p + 1) * piece); i < e; ++i)
            if (keep(i)) out[o++] = make(i);
    });
    return out;
}

}  // namespace concord
