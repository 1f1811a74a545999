// A tiny deterministic pseudo-random generator (SplitMix64, Steele, Lea and Flood 2014).
//
// Scene features such as body-array jitter must give the same numbers on every platform and
// standard library. std::uniform_real_distribution is implementation-defined, so Concord draws
// its own numbers: 64-bit integer arithmetic only, and doubles built exactly from 53 bits.
#pragma once

#include <cstdint>

namespace concord {

class SplitMix64 {
  public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        state_ += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = state_;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    /// Uniform in [0, 1): the top 53 bits scaled by 2^-53, which is exact in a double.
    double next_unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    /// Uniform in [-1, 1).
    double next_signed_unit() { return 2.0 * next_unit() - 1.0; }

  private:
    std::uint64_t state_;
};

}  // namespace concord
