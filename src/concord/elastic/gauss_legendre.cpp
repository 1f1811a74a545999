#include "concord/elastic/gauss_legendre.hpp"

#include <cmath>
#include <numbers>

#include "concord/math/error.hpp"

namespace concord {

QuadratureRule gauss_legendre(int n) {
    if (n < 1) throw InputError("gauss_legendre: number of points must be >= 1");
    QuadratureRule rule;
    rule.nodes.assign(static_cast<std::size_t>(n), 0.0);
    rule.weights.assign(static_cast<std::size_t>(n), 0.0);
    for (int i = 0; i < (n + 1) / 2; ++i) {
        // i-th largest root, then mirrored.
        double x = std::cos(std::numbers::pi * (i + 0.75) / (n + 0.5));
        double dp = 1.0;
        for (int iter = 0; iter < 100; ++iter) {
            double p0 = 1.0, p1 = x;  // P_0, P_1
            for (int k = 2; k <= n; ++k) {
                const double p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            const double pn = n == 1 ? x : p1;
            const double pnm1 = n == 1 ? 1.0 : p0;
            dp = n * (x * pn - pnm1) / (x * x - 1.0);
            const double dx = pn / dp;
            x -= dx;
            if (std::abs(dx) < 1e-16) break;
        }
        // Recompute the derivative at the converged root for the weight.
        {
            double p0 = 1.0, p1 = x;
            for (int k = 2; k <= n; ++k) {
                const double p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            const double pn = n == 1 ? x : p1;
            const double pnm1 = n == 1 ? 1.0 : p0;
            dp = n * (x * pn - pnm1) / (x * x - 1.0);
        }
        const double w = 2.0 / ((1.0 - x * x) * dp * dp);
        rule.nodes[static_cast<std::size_t>(n - 1 - i)] = x;
        rule.nodes[static_cast<std::size_t>(i)] = -x;
        rule.weights[static_cast<std::size_t>(n - 1 - i)] = w;
        rule.weights[static_cast<std::size_t>(i)] = w;
    }
    if (n % 2 == 1) rule.nodes[static_cast<std::size_t>(n / 2)] = 0.0;
    return rule;
}

}  // namespace concord
