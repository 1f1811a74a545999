// The cubic spline kernel of SPH (Monaghan 1992) in three dimensions, written with its support
// radius H (the kernel is zero for |x| >= H): with q = |x| / H and k = 8 / (pi H^3),
//     W(q) = k (6 q^3 - 6 q^2 + 1)   for q <= 1/2,
//     W(q) = 2 k (1 - q)^3           for 1/2 < q < 1,
// which integrates to 1 over space. Concord's fluids use H = 4 r for particle radius r, so that
// a particle on the lattice of spacing 2 r sees two lattice layers in every direction.
#pragma once

#include <cmath>
#include <numbers>

#include "concord/math/types.hpp"

namespace concord {

class CubicSplineKernel {
  public:
    explicit CubicSplineKernel(double support_radius)
        : H_(support_radius),
          k_(8.0 / (std::numbers::pi * support_radius * support_radius * support_radius)),
          l_(48.0 / (std::numbers::pi * support_radius * support_radius * support_radius)) {}

    double support_radius() const { return H_; }

    /// W(|x| = r).
    double value(double r) const {
        const double q = r / H_;
        if (q >= 1.0) return 0.0;
        if (q <= 0.5) return k_ * (6.0 * q * q * (q - 1.0) + 1.0);
        const double f = 1.0 - q;
        return 2.0 * k_ * f * f * f;
    }
    double value(const Vec3& x) const { return value(x.norm()); }

    /// grad_x W(x): zero at x = 0 and for |x| >= H.
    Vec3 gradient(const Vec3& x) const {
        const double r = x.norm();
        const double q = r / H_;
        if (q >= 1.0 || r <= 1e-12 * H_) return Vec3::Zero();
        // dW/dr = l q (3 q - 2) / H inside, -l (1 - q)^2 / H outside; times x / r.
        const double dq = q <= 0.5 ? q * (3.0 * q - 2.0) : -(1.0 - q) * (1.0 - q);
        return (l_ * dq / (H_ * r)) * x;
    }

    /// grad_x W(x), and W(x) into `value`: one square root for both (the same numbers as
    /// gradient(x) and value(x)).
    Vec3 gradient(const Vec3& x, double& w) const {
        const double r = x.norm();
        w = value(r);
        const double q = r / H_;
        if (q >= 1.0 || r <= 1e-12 * H_) return Vec3::Zero();
        const double dq = q <= 0.5 ? q * (3.0 * q - 2.0) : -(1.0 - q) * (1.0 - q);
        return (l_ * dq / (H_ * r)) * x;
    }

  private:
    double H_, k_, l_;
};

}  // namespace concord
