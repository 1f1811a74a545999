// Directed rounding helpers that keep boxes conservative (inline: they sit in hot loops,
// where a call to std::nextafter costs more than the box test it protects).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace concord {

/// Smallest double greater than x (x itself for +inf and NaN).
inline double next_up(double x) {
    if (!(x < std::numeric_limits<double>::infinity())) return x;
    if (x == 0) return std::numeric_limits<double>::denorm_min();
    const auto bits = std::bit_cast<std::uint64_t>(x);
    return std::bit_cast<double>(x > 0 ? bits + 1 : bits - 1);
}

/// Largest double smaller than x (x itself for -inf and NaN).
inline double next_down(double x) {
    return -next_up(-x);
}

inline float next_up(float x) {
    if (!(x < std::numeric_limits<float>::infinity())) return x;
    if (x == 0) return std::numeric_limits<float>::denorm_min();
    const auto bits = std::bit_cast<std::uint32_t>(x);
    return std::bit_cast<float>(x > 0 ? bits + 1 : bits - 1);
}

inline float next_down(float x) {
    return -next_up(-x);
}

/// Largest float not above x.
inline float float_below(double x) {
    const auto f = static_cast<float>(x);
    return static_cast<double>(f) > x ? next_down(f) : f;
}

/// Smallest float not below x.
inline float float_above(double x) {
    const auto f = static_cast<float>(x);
    return static_cast<double>(f) < x ? next_up(f) : f;
}

}  // namespace concord
