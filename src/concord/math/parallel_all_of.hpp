// Whether a predicate holds for every index of a range, tested in parallel: for the input checks
// that run on every query (finite positions, valid mesh indices), which report the first failure
// with a serial pass only once one is known to exist.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <functional>

namespace concord {

/// Whether ok(i) holds for every i in [0, n); blocks of `grain` indices in parallel.
template <class Ok>
bool parallel_all_of(long n, Ok&& ok, long grain = 8192) {
    if (n <= 0) return true;
    return tbb::parallel_reduce(
        tbb::blocked_range<long>(0, n, grain), true,
        [&](const tbb::blocked_range<long>& r, bool good) {
            for (long i = r.begin(); good && i != r.end(); ++i) good = ok(i);
            return good;
        },
        std::logical_and<>());
}

}  // namespace concord
