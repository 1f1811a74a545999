#include "concord/fluid/sph_kernel.hpp"

#include <gtest/gtest.h>

namespace concord {
namespace {

TEST(CubicSplineKernel, IntegratesToOneOverItsSupport) {
    const double H = 0.04;
    const CubicSplineKernel W(H);
    // Midpoint rule on a grid of 80^3 cells over [-H, H]^3: relative error ~ (2H/80)^2 / H^2.
    const int n = 80;
    const double c = 2.0 * H / n;
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < n; ++k)
                sum += W.value(Vec3(-H + (i + 0.5) * c, -H + (j + 0.5) * c, -H + (k + 0.5) * c));
    EXPECT_NEAR(sum * c * c * c, 1.0, 2e-3);
}

TEST(CubicSplineKernel, IsZeroFromTheSupportRadiusOnAndContinuousAtHalf) {
    const CubicSplineKernel W(2.0);
    EXPECT_EQ(W.value(2.0), 0.0);
    EXPECT_EQ(W.value(3.0), 0.0);
    EXPECT_EQ(W.gradient(Vec3(0, 2.5, 0)), Vec3::Zero());
    EXPECT_NEAR(W.value(1.0 - 1e-12), W.value(1.0 + 1e-12), 1e-10);
    EXPECT_GT(W.value(0.0), W.value(0.5));
}

TEST(CubicSplineKernel, GradientMatchesFiniteDifferences) {
    const CubicSplineKernel W(1.0);
    const double eps = 1e-6;
    for (const Vec3& x : {Vec3(0.1, 0.2, -0.05), Vec3(0.4, -0.3, 0.2), Vec3(-0.6, 0.1, 0.3),
                         Vec3(0.0, 0.0, 0.49), Vec3(0.0, 0.51, 0.0)}) {
        Vec3 fd;
        for (int a = 0; a < 3; ++a) {
            Vec3 e = Vec3::Zero();
            e[a] = eps;
            fd[a] = (W.value(x + e) - W.value(x - e)) / (2 * eps);
        }
        EXPECT_LT((W.gradient(x) - fd).norm(), 1e-6 * (1.0 + fd.norm())) << x.transpose();
    }
}

}  // namespace
}  // namespace concord
