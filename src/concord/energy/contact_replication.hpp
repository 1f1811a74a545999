// Replication of bodies across the workers of a distributed solve, as the contact terms see it.
//
// Worker i's share of the global objective weights every contact pair c by 1/kappa_c, kappa_c
// the number of workers that hold both of its bodies (paper Eq. 3), so that the workers' shares
// add up to the single-machine objective exactly. A body's holders are a bit set over workers;
// static bodies and half-spaces are held by every worker.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace concord {

struct ContactReplication {
    /// Bit w set: worker w holds the body (indexed like the contact surface's bodies).
    std::vector<std::uint64_t> holders;

    /// 1 / kappa_c for a pair between surface bodies a and b.
    double pair_weight(int a, int b) const {
        const int n = std::popcount(holders[static_cast<std::size_t>(a)] &
                                    holders[static_cast<std::size_t>(b)]);
        return n > 0 ? 1.0 / n : 1.0;
    }
    /// 1 / kappa_c for a pair between surface body a and a half-space (held by every worker).
    double plane_weight(int a) const {
        const int n = std::popcount(holders[static_cast<std::size_t>(a)]);
        return n > 0 ? 1.0 / n : 1.0;
    }
};

}  // namespace concord
