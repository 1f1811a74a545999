#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "concord/elastic/node_interpolation.hpp"
#include "concord/math/error.hpp"

using namespace concord;

namespace {

Vertices random_cloud(int n, unsigned seed, bool planar = false) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Vertices V(n, 3);
    for (int i = 0; i < n; ++i) V.row(i) << u(rng), 0.5 * u(rng), planar ? 0.0 : 0.3 * u(rng);
    return V;
}

double interpolate(const NodeInterpolation& I, const VecX& values, const Vec3& X) {
    const InterpolationStencil s = I.stencil(X);
    double v = 0.0;
    for (std::size_t j = 0; j < s.nodes.size(); ++j) v += s.coefficients[j] * values(s.nodes[j]);
    return v;
}

}  // namespace

TEST(NodeInterpolation, ExactAtNodes) {
    const Vertices V = random_cloud(60, 1);
    const NodeInterpolation I(V);
    std::mt19937 rng(2);
    std::normal_distribution<double> g;
    VecX f(60);
    for (int i = 0; i < 60; ++i) f(i) = g(rng);
    for (int i = 0; i < 60; ++i) {
        EXPECT_EQ(interpolate(I, f, V.row(i).transpose()), f(i));
        // And continuously so: a point 1e-7 away is within O(1e-7 / spacing) of the node value.
        EXPECT_NEAR(interpolate(I, f, V.row(i).transpose() + Vec3(1e-7, -1e-7, 0)), f(i), 1e-4);
    }
}

TEST(NodeInterpolation, ReproducesAffineFieldsExactly) {
    // MLS with a linear basis reproduces any affine field (residual zero for every weighting).
    const Vertices V = random_cloud(80, 3);
    const NodeInterpolation I(V, 10);
    const Vec3 grad(0.7, -1.3, 2.1);
    VecX f(80);
    for (int i = 0; i < 80; ++i) f(i) = 0.4 + grad.dot(V.row(i).transpose());
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int t = 0; t < 500; ++t) {
        const Vec3 X(u(rng), 0.5 * u(rng), 0.3 * u(rng));
        EXPECT_NEAR(interpolate(I, f, X), 0.4 + grad.dot(X), 1e-10);
        // Partition of unity (reproduction of constants).
        const InterpolationStencil s = I.stencil(X);
        double sum = 0.0;
        for (double c : s.coefficients) sum += c;
        EXPECT_NEAR(sum, 1.0, 1e-12);
    }
}

TEST(NodeInterpolation, PlanarNodesReproduceInPlaneAffineFields) {
    // Shell-like node sets: the moment matrix is rank 3; in-plane affine fields are reproduced
    // in the plane and extended constantly along the normal.
    const Vertices V = random_cloud(50, 5, true);
    const NodeInterpolation I(V, 8);
    VecX f(50);
    for (int i = 0; i < 50; ++i) f(i) = 1.0 + 2.0 * V(i, 0) - 3.0 * V(i, 1);
    std::mt19937 rng(6);
    std::uniform_real_distribution<double> u(-0.8, 0.8);
    for (int t = 0; t < 200; ++t) {
        const double x = u(rng), y = 0.5 * u(rng);
        EXPECT_NEAR(interpolate(I, f, Vec3(x, y, 0.0)), 1.0 + 2.0 * x - 3.0 * y, 1e-9);
        EXPECT_NEAR(interpolate(I, f, Vec3(x, y, 0.05)), 1.0 + 2.0 * x - 3.0 * y, 1e-9);
    }
}

TEST(NodeInterpolation, ContinuousAlongALine) {
    // No jumps when the neighbour set changes: consecutive values along a finely sampled line
    // differ by at most a Lipschitz bound (the field has unit-size variation over the cloud).
    const Vertices V = random_cloud(40, 7);
    const NodeInterpolation I(V, 8);
    VecX f(40);
    for (int i = 0; i < 40; ++i) f(i) = std::sin(3 * V(i, 0)) + V(i, 1) * V(i, 2);
    const int N = 20000;
    double prev = interpolate(I, f, Vec3(-1, -0.2, 0.1)), maxjump = 0.0;
    for (int i = 1; i <= N; ++i) {
        const double t = static_cast<double>(i) / N;
        const double v = interpolate(I, f, Vec3(-1 + 2 * t, -0.2 + 0.4 * t, 0.1 - 0.2 * t));
        maxjump = std::max(maxjump, std::abs(v - prev));
        prev = v;
    }
    EXPECT_LT(maxjump, 5e-3);  // step length 1.1e-4; a jump from a neighbour change would be O(0.1)
}

TEST(NodeInterpolation, DeterministicAndSmallSets) {
    const Vertices V = random_cloud(30, 8);
    const NodeInterpolation I(V);
    const InterpolationStencil a = I.stencil(Vec3(0.1, 0.2, 0.05)), b = I.stencil(Vec3(0.1, 0.2, 0.05));
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.coefficients, b.coefficients);
    // One node: its value everywhere. Two nodes: linear along the segment.
    Vertices one(1, 3);
    one << 1, 2, 3;
    EXPECT_EQ(NodeInterpolation(one).stencil(Vec3(5, 5, 5)).nodes, std::vector<int>{0});
    Vertices two(2, 3);
    two << 0, 0, 0, 1, 0, 0;
    VecX f(2);
    f << 1.0, 3.0;
    EXPECT_NEAR(interpolate(NodeInterpolation(two), f, Vec3(0.25, 0, 0)), 1.5, 1e-12);
}

TEST(NodeInterpolation, FieldEvaluatesAllModes) {
    const Vertices V = random_cloud(20, 9);
    MatX vals(60, 2);
    for (int i = 0; i < 20; ++i) {
        vals.block<3, 1>(3 * i, 0) = V.row(i).transpose();              // u = X (affine)
        vals.block<3, 1>(3 * i, 1) = Vec3(1, 2, 3) * V(i, 0) + Vec3(0, 0, 1);
    }
    const InterpolatedModalField field(V, vals);
    EXPECT_EQ(field.num_modes(), 2);
    const Vec3 X(0.2, -0.1, 0.05);
    const Eigen::Matrix<double, 3, Eigen::Dynamic> phi = field.evaluate(X);
    EXPECT_TRUE(phi.col(0).isApprox(X, 1e-10));
    EXPECT_TRUE(phi.col(1).isApprox(Vec3(1, 2, 3) * X(0) + Vec3(0, 0, 1), 1e-10));
}

TEST(NodeInterpolation, BadInputThrows) {
    EXPECT_THROW((void)NodeInterpolation(Vertices(0, 3)), InputError);
    Vertices V = random_cloud(5, 10);
    EXPECT_THROW((void)NodeInterpolation(V, 0), InputError);
    V(2, 1) = std::nan("");
    EXPECT_THROW((void)NodeInterpolation(V), InputError);
    EXPECT_THROW((void)InterpolatedModalField(random_cloud(5, 11), MatX::Zero(14, 1)), InputError);
}
