// Stable parallel least-significant-digit radix sort of 64-bit keys.
#pragma once

#include <cstdint>
#include <vector>

namespace concord {

/// Work buffers of a sort, kept by callers that sort repeatedly to avoid reallocation.
struct RadixSortScratch {
    std::vector<std::uint64_t> keys;
    std::vector<std::uint32_t> values;
};

/// Sorts `keys` ascending, moving `values` along, looking only at the low `key_bits` bits
/// (higher bits must be zero). Stable: equal keys keep their input order, so the result is the
/// same whatever the thread count. Digit passes in which every key has the same digit are
/// skipped. `values` must have the size of `keys`.
void radix_sort_pairs(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& values,
                      int key_bits = 64, RadixSortScratch* scratch = nullptr);

/// Sorts `keys` ascending, looking only at the low `key_bits` bits (higher bits must be zero).
void radix_sort(std::vector<std::uint64_t>& keys, int key_bits = 64,
                RadixSortScratch* scratch = nullptr);

}  // namespace concord
