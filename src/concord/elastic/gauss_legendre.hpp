// Gauss-Legendre quadrature rules.
#pragma once

#include <vector>

namespace concord {

/// An n-point rule on [-1, 1]: exact for polynomials of degree <= 2n - 1.
struct QuadratureRule {
    std::vector<double> nodes;    // ascending
    std::vector<double> weights;  // positive, sum 2
};

/// Nodes are the roots of the Legendre polynomial P_n found by Newton's method from the
/// Tricomi initial guess (converges to machine precision for any n used here, n >= 1).
[[nodiscard]] QuadratureRule gauss_legendre(int n);

}  // namespace concord
