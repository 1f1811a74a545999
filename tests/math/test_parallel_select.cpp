// parallel_select against the serial loop it replaces: every size around the piece boundaries,
// random and edge-case predicates, one and two threads.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <random>
#include <vector>

#include "concord/math/parallel_select.hpp"

using namespace concord;

namespace {

std::vector<long> serial_select(const std::vector<std::uint8_t>& keep) {
    std::vector<long> out;
    for (std::size_t i = 0; i < keep.size(); ++i)
        if (keep[i]) out.push_back(3 * static_cast<long>(i) + 1);
    return out;
}

}  // namespace

TEST(ParallelSelect, KeepsTheSerialLoopsElementsInOrderOnAnyThreadCount) {
    std::mt19937 rng(5);
    const std::size_t piece = 64;
    for (std::size_t n : {0, 1, 63, 64, 65, 127, 128, 129, 1000, 5000}) {
        for (double share : {0.0, 0.03, 0.5, 1.0}) {
            std::bernoulli_distribution pick(share);
            std::vector<std::uint8_t> keep(n);
            for (auto& k : keep) k = pick(rng) ? 1 : 0;
            const std::vector<long> expected = serial_select(keep);
            for (int threads : {1, 2}) {
                tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
                const std::vector<long> got = parallel_select<long>(
                    n, [&](std::size_t i) { return keep[i] != 0; },
                    [](std::size_t i) { return 3 * static_cast<long>(i) + 1; }, piece);
                EXPECT_EQ(got, expected)
                    << "n " << n << " share " << share << " threads " << threads;
            }
        }
    }
}
