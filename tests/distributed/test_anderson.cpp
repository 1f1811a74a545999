// Anderson acceleration of a fixed-point iteration split into blocks, with its safeguard: the
// controller's and the workers' parts as the distributed solver uses them.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "concord/distributed/anderson.hpp"

using namespace concord;

namespace {

struct Outcome {
    int iterations = 0;
    int rejected = 0;  ///< iterations where the safeguard restarted the histories
    VecX w;
};

// The distributed loop in miniature: w is split into `blocks` equal blocks, each with its own
// history; the normal equations are summed over blocks, as the controller sums the workers'.
// window 0 is the plain iteration. Stops when |G(w) - w| < tol.
Outcome iterate(const std::function<VecX(const VecX&)>& G, VecX w, int window, int blocks,
                double tol, int max_iterations) {
    const Eigen::Index n = w.size() / blocks;
    std::vector<AndersonHistory> hist(static_cast<std::size_t>(blocks), AndersonHistory(window));
    AndersonSafeguard guard;
    Outcome out;
    for (int k = 1; k <= max_iterations; ++k) {
        const VecX g = G(w);
        const VecX f = g - w;
        out.iterations = k;
        if (f.norm() < tol) {
            out.w = g;
            return out;
        }
        for (int b = 0; b < blocks; ++b)
            hist[static_cast<std::size_t>(b)].push(g.segment(b * n, n), f.segment(b * n, n));
        VecX gamma;
        if (window > 0 && guard.accept(f.norm())) {
            const int m = hist[0].columns();
            MatX gram = MatX::Zero(m, m);
            VecX rhs = VecX::Zero(m);
            for (const AndersonHistory& h : hist) h.add_normal_equations(gram, rhs);
            gamma = anderson_coefficients(gram, rhs);
        } else if (window > 0) {
            ++out.rejected;
            for (AndersonHistory& h : hist) h.clear();
        }
        for (int b = 0; b < blocks; ++b)
            w.segment(b * n, n) = gamma.size() > 0
                                      ? hist[static_cast<std::size_t>(b)].extrapolate(gamma)
                                      : VecX(g.segment(b * n, n));
    }
    out.w = w;
    return out;
}

// A slow linear contraction w <- M w + c (spectral radius 0.95), fixed point w*.
struct Linear {
    MatX M;
    VecX c, fixed_point;
    Linear() {
        const int n = 6;
        MatX Q = MatX::Zero(n, n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) Q(i, j) = std::cos(1.0 + i * 1.7 + j * 0.9);
        const Eigen::HouseholderQR<MatX> qr(Q);
        const MatX U = qr.householderQ();
        VecX lambda(n);
        lambda << 0.95, 0.9, 0.8, -0.5, 0.3, 0.1;
        M = U * lambda.asDiagonal() * U.transpose();
        c = VecX::LinSpaced(n, 1.0, 2.0);
        fixed_point = (MatX::Identity(n, n) - M).lu().solve(c);
    }
    VecX operator()(const VecX& w) const { return M * w + c; }
};

}  // namespace

TEST(Anderson, AcceleratesALinearContraction) {
    const Linear G;
    const VecX w0 = VecX::Zero(6);
    const Outcome plain = iterate(G, w0, 0, 1, 1e-10, 2000);
    const Outcome fast = iterate(G, w0, 6, 1, 1e-10, 2000);
    // Plain: about log(1e-10) / log(0.95) ~ 450 iterations; Anderson with a window as large as
    // the dimension is a Krylov method on this problem: dimension + a few.
    EXPECT_GT(plain.iterations, 400);
    EXPECT_LE(fast.iterations, 12);
    EXPECT_LT((fast.w - G.fixed_point).norm(), 1e-8);
    EXPECT_LT((plain.w - G.fixed_point).norm(), 1e-8);
    EXPECT_EQ(fast.rejected, 0);
}

TEST(Anderson, BlocksSummedAsOneVector) {
    // The controller sums per-block normal equations: three blocks of two give the same
    // iterates as one block of six (up to summation order).
    const Linear G;
    const VecX w0 = VecX::Zero(6);
    const Outcome one = iterate(G, w0, 3, 1, 0.0, 8);
    const Outcome three = iterate(G, w0, 3, 3, 0.0, 8);
    EXPECT_LT((one.w - three.w).norm(), 1e-10 * one.w.norm());
}

TEST(Anderson, WindowBoundsTheHistory) {
    AndersonHistory h(2);
    for (int k = 0; k < 5; ++k) h.push(VecX::Constant(3, k), VecX::Constant(3, 1.0 / (k + 1)));
    EXPECT_EQ(h.columns(), 2);
    MatX gram = MatX::Zero(2, 2);
    VecX rhs = VecX::Zero(2);
    h.add_normal_equations(gram, rhs);
    // Columns f_3 - f_2 and f_4 - f_3 of the last three pushes.
    const double d1 = 0.25 - 1.0 / 3.0, d2 = 0.2 - 0.25;
    EXPECT_NEAR(gram(0, 0), 3 * d1 * d1, 1e-15);
    EXPECT_NEAR(gram(0, 1), 3 * d1 * d2, 1e-15);
    EXPECT_NEAR(rhs(1), 3 * d2 * 0.2, 1e-15);
    EXPECT_EQ(h.plain(), VecX::Constant(3, 4.0));
    h.clear();
    EXPECT_EQ(h.columns(), -1);
}

TEST(Anderson, DegenerateSystemsGiveThePlainIterate) {
    EXPECT_EQ(anderson_coefficients(MatX::Zero(0, 0), VecX::Zero(0)).size(), 0);
    EXPECT_EQ(anderson_coefficients(MatX::Zero(2, 2), VecX::Ones(2)).size(), 0);
    MatX nan = MatX::Identity(2, 2);
    nan(0, 0) = std::nan("");
    EXPECT_EQ(anderson_coefficients(nan, VecX::Ones(2)).size(), 0);
    const VecX gamma = anderson_coefficients(2.0 * MatX::Identity(2, 2), VecX::Ones(2));
    ASSERT_EQ(gamma.size(), 2);
    EXPECT_NEAR(gamma[0], 0.5, 1e-9);
}

TEST(Anderson, SafeguardRejectsAGrowingResidual) {
    AndersonSafeguard guard;
    EXPECT_TRUE(guard.accept(1.0));
    EXPECT_TRUE(guard.accept(0.5));
    EXPECT_TRUE(guard.accept(0.5));  // equal is not growth
    EXPECT_FALSE(guard.accept(0.8));
    // Each iteration is compared with the one before it, rejected or not.
    EXPECT_FALSE(guard.accept(0.9));
    EXPECT_TRUE(guard.accept(0.7));
    // A residual that is not finite rejects, and the next iteration starts a new comparison.
    EXPECT_FALSE(guard.accept(std::nan("")));
    EXPECT_TRUE(guard.accept(2.0));
}

TEST(Anderson, SafeguardResetsOnADivergentSequence) {
    // A map that diverges (w <- -1.5 w outside the unit box): the residual grows at every
    // iteration, so after the first (nothing to extrapolate yet) every iteration is a
    // rejection, the histories restart each time, and the guarded iterates are the plain ones
    // bit for bit.
    auto G = [](const VecX& w) {
        VecX g = w;
        for (Eigen::Index i = 0; i < w.size(); ++i)
            g[i] = std::abs(w[i]) > 1.0 ? -1.5 * w[i] : 0.5 * w[i] + 0.1;
        return g;
    };
    VecX w0(2);
    w0 << 3.0, -4.0;
    const Outcome plain = iterate(G, w0, 0, 1, 0.0, 6);
    const Outcome guarded = iterate(G, w0, 3, 2, 0.0, 6);
    EXPECT_EQ(guarded.rejected, 5);
    EXPECT_EQ(plain.w, guarded.w);
    // Without the guard's rejections the extrapolation would have been used: the same map from
    // inside the box, where it contracts, is accelerated with no rejection.
    VecX w1(2);
    w1 << 0.3, -0.4;
    const Outcome inside = iterate(G, w1, 3, 2, 1e-12, 100);
    const Outcome inside_plain = iterate(G, w1, 0, 1, 1e-12, 100);
    EXPECT_EQ(inside.rejected, 0);
    EXPECT_LT(inside.iterations, inside_plain.iterations);
}
