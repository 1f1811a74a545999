#include <gtest/gtest.h>

#include <cmath>

#include "concord/elastic/gauss_legendre.hpp"
#include "concord/math/error.hpp"

using namespace concord;

TEST(GaussLegendre, ExactForPolynomialsUpToDegree2nMinus1) {
    for (int n = 1; n <= 12; ++n) {
        const QuadratureRule r = gauss_legendre(n);
        for (int deg = 0; deg <= 2 * n - 1; ++deg) {
            double sum = 0.0;
            for (int i = 0; i < n; ++i) sum += r.weights[i] * std::pow(r.nodes[i], deg);
            const double exact = deg % 2 == 1 ? 0.0 : 2.0 / (deg + 1);
            EXPECT_NEAR(sum, exact, 1e-14) << "n=" << n << " deg=" << deg;
        }
    }
}

TEST(GaussLegendre, IntegratesOscillationsOnceResolved) {
    // int_{-1}^{1} cos(40 t) dt = sin(40)/20; 40 points resolve wave number 40 (e*40/4 ~ 27).
    const QuadratureRule r = gauss_legendre(40);
    double sum = 0.0;
    for (int i = 0; i < 40; ++i) sum += r.weights[i] * std::cos(40.0 * r.nodes[i]);
    EXPECT_NEAR(sum, std::sin(40.0) / 20.0, 1e-13);
}

TEST(GaussLegendre, RejectsZeroPoints) { EXPECT_THROW((void)gauss_legendre(0), InputError); }
