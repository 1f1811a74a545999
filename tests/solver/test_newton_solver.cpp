#include <gtest/gtest.h>

#include "concord/solver/newton_solver.hpp"

using namespace concord;

namespace {

// E(x) = sum_i (x_i - c_i)^4 / 4 + (x_i - c_i)^2 / 2 with an optional wall: the step may never
// take x_0 past `wall` (what CCD does for contact), and the energy is infinite beyond it.
class QuarticProblem final : public NewtonProblem {
public:
    VecX c;
    double wall = std::numeric_limits<double>::infinity();
    int max_step_calls = 0;

    void begin_iteration(const VecX&) override {}
    double energy(const VecX& x) override {
        if (x[0] >= wall) return std::numeric_limits<double>::infinity();
        const VecX d = x - c;
        return (d.array().pow(4) / 4 + d.array().square() / 2).sum();
    }
    void gradient(const VecX& x, VecX& g) override {
        const VecX d = x - c;
        g += (d.array().pow(3) + d.array()).matrix();
    }
    void hessian(const VecX& x, std::vector<Eigen::Triplet<double>>& H) override {
        const VecX d = x - c;
        for (Eigen::Index i = 0; i < x.size(); ++i) H.emplace_back(i, i, 3 * d[i] * d[i] + 1);
    }
    double max_step(const VecX& x, const VecX& dx) override {
        ++max_step_calls;
        if (dx[0] <= 0 || !std::isfinite(wall)) return 1.0;
        return std::min(1.0, 0.9 * (wall - x[0]) / dx[0]);
    }
    double step_measure(const VecX& dx) override { return dx.cwiseAbs().maxCoeff(); }
    void accepted(const VecX&) override {}
};

}  // namespace

TEST(NewtonSolver, ConvergesQuadraticallyToTheMinimum) {
    QuarticProblem p;
    p.c = VecX::LinSpaced(24, -2.0, 3.0);
    VecX x = VecX::Zero(24);
    NewtonParams params;
    params.tolerance = 1e-10;
    const NewtonResult r = newton_solve(p, x, std::vector<bool>(24, true), params);
    EXPECT_TRUE(r.converged);
    EXPECT_LT(r.iterations, 15);
    EXPECT_LT((x - p.c).norm(), 1e-9);
}

TEST(NewtonSolver, FixedDofsNeverChange) {
    QuarticProblem p;
    p.c = VecX::Ones(6);
    VecX x = VecX::Zero(6);
    std::vector<bool> free{true, false, true, true, false, true};
    NewtonParams params;
    params.tolerance = 1e-10;
    newton_solve(p, x, free, params);
    EXPECT_EQ(x[1], 0.0);
    EXPECT_EQ(x[4], 0.0);
    EXPECT_NEAR(x[0], 1.0, 1e-6);
}

TEST(NewtonSolver, MaxStepIsNeverExceeded) {
    // The minimum lies beyond the wall: every accepted iterate stays strictly before it and
    // the iterates approach it. (Without a barrier the capped step also slows the other DoFs,
    // which is why the contact energy, not the cap alone, must shape the Newton direction.)
    QuarticProblem p;
    p.c = VecX::Constant(3, 2.0);
    p.wall = 1.0;
    VecX x = VecX::Zero(3);
    NewtonParams params;
    params.max_iterations = 30;
    const NewtonResult r = newton_solve(p, x, std::vector<bool>(3, true), params);
    EXPECT_LT(x[0], 1.0);
    EXPECT_GT(x[0], 0.99);
    EXPECT_GT(r.ccd_limited, 0);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.stop_reason, "max iterations");
}
