// Deterministic gathering of candidate pairs found by parallel queries (internal helpers).
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "concord/collision/broad_phase/radix_sort.hpp"

namespace concord::broad_phase_detail {

/// Queries are cut into blocks of this many; each block fills its own list, so the gathered
/// result depends on the block layout only, never on which thread ran which block.
inline constexpr int kQueryBlock = 256;

inline int num_blocks(int num_queries) {
    return (num_queries + kQueryBlock - 1) / kQueryBlock;
}

/// Throws InputError when `count` candidates of `bytes_each` bytes cannot be gathered, sorted and
/// kept (about four copies at once) in half of `memory_bytes`: a step whose swept boxes overlap
/// so much is refused with a message instead of exhausting the machine (issue 18).
void check_candidate_memory(std::size_t count, std::size_t bytes_each, std::size_t memory_bytes);
/// The machine's physical memory in bytes.
std::size_t physical_memory_bytes();

/// Concatenates the per-block lists in block order (in parallel), after check_candidate_memory.
template <class T>
std::vector<T> concatenate(const std::vector<std::vector<T>>& blocks) {
    std::vector<std::size_t> offset(blocks.size() + 1, 0);
    for (std::size_t b = 0; b < blocks.size(); ++b) offset[b + 1] = offset[b] + blocks[b].size();
    check_candidate_memory(offset.back(), sizeof(T), physical_memory_bytes());
    std::vector<T> all(offset.back());
    tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
        std::copy(blocks[b].begin(), blocks[b].end(),
                  all.begin() + static_cast<std::ptrdiff_t>(offset[b]));
    });
    return all;
}

/// Number of bits that hold any index in [0, count).
inline int index_bits(int count) {
    return count <= 1 ? 1 : static_cast<int>(std::bit_width(static_cast<unsigned>(count - 1)));
}

/// A pair (first, second) as one integer whose order is the lexicographic order of the pairs,
/// second taking `second_bits` bits.
inline std::uint64_t pack_pair(int first, int second, int second_bits) {
    return static_cast<std::uint64_t>(first) << second_bits | static_cast<std::uint64_t>(second);
}

/// Sorts packed pairs, drops duplicates, and unpacks them into Pair{first, second}.
template <class Pair>
std::vector<Pair> sorted_unique_pairs(std::vector<std::uint64_t> keys, int first_bits,
                                      int second_bits) {
    radix_sort(keys, first_bits + second_bits);
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::vector<Pair> pairs(keys.size());
    const std::uint64_t second_mask = (std::uint64_t{1} << second_bits) - 1;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, keys.size(), 4096),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                          for (std::size_t i = range.begin(); i != range.end(); ++i)
                              pairs[i] = Pair{static_cast<int>(keys[i] >> second_bits),
                                              static_cast<int>(keys[i] & second_mask)};
                      });
    return pairs;
}

}  // namespace concord::broad_phase_detail
