#include "concord/collision/broad_phase/radix_sort.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>

namespace concord {

namespace {

constexpr int kDigitBits = 11;  // 2048 buckets: six passes cover a 63-bit Morton code
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
// Below this size one thread sorts faster than the parallel bookkeeping costs.
constexpr std::size_t kParallelThreshold = 1 << 15;
// The chunking is fixed by the input size, never by the thread count.
constexpr std::size_t kChunkSize = 1 << 16;

template <bool kWithValues>
void radix_sort_impl(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>* values,
                     int key_bits, RadixSortScratch& scratch) {
    const std::size_t n = keys.size();
    if (n < 2) return;
    if (n < kParallelThreshold) {
        if constexpr (kWithValues) {
            std::vector<std::uint32_t> order(n);
            std::iota(order.begin(), order.end(), 0u);
            std::stable_sort(order.begin(), order.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
            std::vector<std::uint64_t> sorted_keys(n);
            std::vector<std::uint32_t> sorted_values(n);
            for (std::size_t i = 0; i < n; ++i) {
                sorted_keys[i] = keys[order[i]];
                sorted_values[i] = (*values)[order[i]];
            }
            keys.swap(sorted_keys);
            values->swap(sorted_values);
        } else {
            std::sort(keys.begin(), keys.end());
        }
        return;
    }

    const std::size_t num_chunks = (n + kChunkSize - 1) / kChunkSize;
    std::vector<std::array<std::size_t, kBuckets>> offsets(num_chunks);
    std::vector<std::uint64_t>& key_buffer = scratch.keys;
    std::vector<std::uint32_t>& value_buffer = scratch.values;
    key_buffer.resize(n);
    if constexpr (kWithValues) value_buffer.resize(n);
    std::uint64_t* src_keys = keys.data();
    std::uint64_t* dst_keys = key_buffer.data();
    std::uint32_t* src_values = kWithValues ? values->data() : nullptr;
    std::uint32_t* dst_values = kWithValues ? value_buffer.data() : nullptr;

    for (int shift = 0; shift < key_bits; shift += kDigitBits) {
        auto digit = [shift](std::uint64_t key) {
            return static_cast<std::size_t>((key >> shift) & (kBuckets - 1));
        };
        tbb::parallel_for(std::size_t{0}, num_chunks, [&](std::size_t c) {
            auto& histogram = offsets[c];
            histogram.fill(0);
            const std::size_t end = std::min(n, (c + 1) * kChunkSize);
            for (std::size_t i = c * kChunkSize; i < end; ++i) ++histogram[digit(src_keys[i])];
        });
        // Exclusive prefix sum in (bucket, chunk) order keeps the sort stable.
        std::size_t running = 0;
        bool single_bucket = false;
        for (std::size_t b = 0; b < kBuckets; ++b) {
            std::size_t bucket_total = 0;
            for (std::size_t c = 0; c < num_chunks; ++c) {
                const std::size_t count = offsets[c][b];
                offsets[c][b] = running;
                running += count;
                bucket_total += count;
            }
            if (bucket_total == n) single_bucket = true;
        }
        if (single_bucket) continue;
        tbb::parallel_for(std::size_t{0}, num_chunks, [&](std::size_t c) {
            auto& next = offsets[c];
            const std::size_t end = std::min(n, (c + 1) * kChunkSize);
            for (std::size_t i = c * kChunkSize; i < end; ++i) {
                const std::size_t to = next[digit(src_keys[i])]++;
                dst_keys[to] = src_keys[i];
                if constexpr (kWithValues) dst_values[to] = src_values[i];
            }
        });
        std::swap(src_keys, dst_keys);
        if constexpr (kWithValues) std::swap(src_values, dst_values);
    }
    if (src_keys != keys.data()) {
        keys.swap(key_buffer);
        if constexpr (kWithValues) values->swap(value_buffer);
    }
}

}  // namespace

void radix_sort_pairs(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& values,
                      int key_bits, RadixSortScratch* scratch) {
    if (values.size() != keys.size())
        throw std::invalid_argument("radix_sort_pairs: keys and values differ in size");
    RadixSortScratch local;
    radix_sort_impl<true>(keys, &values, key_bits, scratch ? *scratch : local);
}

void radix_sort(std::vector<std::uint64_t>& keys, int key_bits, RadixSortScratch* scratch) {
    RadixSortScratch local;
    radix_sort_impl<false>(keys, nullptr, key_bits, scratch ? *scratch : local);
}

}  // namespace concord
