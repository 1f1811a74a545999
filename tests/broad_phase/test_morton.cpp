#include <gtest/gtest.h>

#include <random>

#include "concord/collision/broad_phase/morton.hpp"

using namespace concord;

TEST(Morton, InterleavesBitsLikeTheDefinition) {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 2000; ++trial) {
        const std::uint32_t x = rng() & 0x1fffff, y = rng() & 0x1fffff, z = rng() & 0x1fffff;
        std::uint64_t expected = 0;
        for (int bit = 0; bit < kMortonBitsPerAxis; ++bit) {
            expected |= static_cast<std::uint64_t>((x >> bit) & 1) << (3 * bit + 2);
            expected |= static_cast<std::uint64_t>((y >> bit) & 1) << (3 * bit + 1);
            expected |= static_cast<std::uint64_t>((z >> bit) & 1) << (3 * bit);
        }
        ASSERT_EQ(morton_code(x, y, z), expected) << x << " " << y << " " << z;
    }
    EXPECT_EQ(morton_code(0x1fffff, 0x1fffff, 0x1fffff), (std::uint64_t{1} << 63) - 1);
}
