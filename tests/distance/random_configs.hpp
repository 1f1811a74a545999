// Reproducible random primitives for the distance tests, with the conditioning measures used
// to keep random finite-difference checks away from degenerate geometry (degenerate geometry
// gets its own, explicitly scaled tests).
#pragma once

#include <algorithm>
#include <array>
#include <random>

#include "concord/math/types.hpp"

namespace concord::test {

class RandomPoints {
  public:
    explicit RandomPoints(std::uint64_t seed) : rng_(seed) {}
    Vec3 point(double lo = -1.0, double hi = 1.0) {
        std::uniform_real_distribution<double> u(lo, hi);
        return {u(rng_), u(rng_), u(rng_)};
    }
    double uniform(double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng_);
    }
    Vec3 unit_vector() {
        Vec3 v;
        do v = point();
        while (v.squaredNorm() > 1.0 || v.squaredNorm() < 1e-4);
        return v.normalized();
    }

  private:
    std::mt19937_64 rng_;
};

/// Sine of the angle between two edges' directions.
inline double sin_angle(const Vec3& u, const Vec3& v) {
    return u.cross(v).norm() / (u.norm() * v.norm());
}

/// Smallest altitude of a triangle over its longest edge: 0 for a degenerate triangle, √3/2
/// for an equilateral one.
inline double triangle_quality(const Vec3& t0, const Vec3& t1, const Vec3& t2) {
    const double area2 = (t1 - t0).cross(t2 - t0).norm();
    const double longest = std::max({(t1 - t0).norm(), (t2 - t1).norm(), (t0 - t2).norm()});
    return area2 / (longest * longest);
}

/// Stacks points into one coordinate vector (the layout of the derivatives).
template <int N>
Vec<3 * N> stack(const std::array<Vec3, N>& pts) {
    Vec<3 * N> x;
    for (int i = 0; i < N; ++i) x.template segment<3>(3 * i) = pts[i];
    return x;
}

/// Point i of a stacked coordinate vector.
template <int M>
Vec3 point_of(const Vec<M>& x, int i) {
    return x.template segment<3>(3 * i);
}

}  // namespace concord::test
