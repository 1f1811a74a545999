// Morton (Z-order) codes: interleaved bits of quantised 3D coordinates.
#pragma once

#include <cstdint>

namespace concord {

/// Spreads the low 21 bits of x so that bit i lands on bit 3i.
constexpr std::uint64_t spread_bits_by_3(std::uint64_t x) {
    x &= 0x1fffff;
    x = (x | x << 32) & 0x1f00000000ffffULL;
    x = (x | x << 16) & 0x1f0000ff0000ffULL;
    x = (x | x << 8) & 0x100f00f00f00f00fULL;
    x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
    x = (x | x << 2) & 0x1249249249249249ULL;
    return x;
}

/// Number of bits per axis of a 63-bit Morton code.
inline constexpr int kMortonBitsPerAxis = 21;

/// 63-bit Morton code of a point whose coordinates are quantised to [0, 2^21).
constexpr std::uint64_t morton_code(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return spread_bits_by_3(x) << 2 | spread_bits_by_3(y) << 1 | spread_bits_by_3(z);
}

}  // namespace concord
