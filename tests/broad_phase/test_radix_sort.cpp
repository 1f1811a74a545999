#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "concord/collision/broad_phase/radix_sort.hpp"

using namespace concord;

namespace {

// Reference: stable sort of (key, value) by key.
void reference_sort(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& values) {
    std::vector<std::size_t> order(keys.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    std::vector<std::uint64_t> k(keys.size());
    std::vector<std::uint32_t> v(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        k[i] = keys[order[i]];
        v[i] = values[order[i]];
    }
    keys.swap(k);
    values.swap(v);
}

}  // namespace

TEST(RadixSort, PairsMatchStableSortIncludingDuplicates) {
    std::mt19937_64 rng(3);
    // Sizes below and above the parallel threshold; key ranges from few distinct keys (many
    // ties, testing stability) to the full 63 bits.
    for (const std::size_t n : {0, 1, 2, 17, 1000, 40000, 300000}) {
        for (const int bits : {3, 22, 63}) {
            std::vector<std::uint64_t> keys(n);
            std::vector<std::uint32_t> values(n);
            for (std::size_t i = 0; i < n; ++i) {
                keys[i] = rng() >> (64 - bits);
                values[i] = static_cast<std::uint32_t>(i);
            }
            auto expected_keys = keys;
            auto expected_values = values;
            reference_sort(expected_keys, expected_values);
            radix_sort_pairs(keys, values, bits);
            ASSERT_EQ(keys, expected_keys) << "n=" << n << " bits=" << bits;
            ASSERT_EQ(values, expected_values) << "n=" << n << " bits=" << bits;
        }
    }
}

TEST(RadixSort, KeysOnlyAndConstantDigits) {
    std::mt19937_64 rng(4);
    std::vector<std::uint64_t> keys(100000);
    // Keys differ only in bits 30..40, so the low digit passes are constant and skipped.
    for (auto& k : keys) k = (rng() & 0x7ff) << 30;
    auto expected = keys;
    std::sort(expected.begin(), expected.end());
    radix_sort(keys, 41);
    EXPECT_EQ(keys, expected);
}

TEST(RadixSort, RejectsMismatchedValues) {
    std::vector<std::uint64_t> keys(3, 1);
    std::vector<std::uint32_t> values(2, 0);
    EXPECT_THROW(radix_sort_pairs(keys, values), std::invalid_argument);
}
