// Newton's method: convergence modes and stopping conditions, line searches capped by the
// maximum step, PSD-projection policies on an indefinite problem, explosion control.
#include <gtest/gtest.h>

#include <cmath>

#include "concord/solver/newton_solver.hpp"

using namespace concord;

namespace {

// E(x) = sum_i (x_i - c_i)^4 / 4 + (x_i - c_i)^2 / 2 with an optional wall: the step may never
// take x_0 past `wall` (what CCD does for contact), and the energy is infinite beyond it.
class QuarticProblem : public NewtonProblem {
  public:
    VecX c;
    double wall = std::numeric_limits<double>::infinity();
    bool touched_wall = false;  // some evaluated point reached the wall
    ResidualGroups groups;

    void begin_iteration(const VecX&) override {}
    double energy(const VecX& x) override {
        if (x[0] >= wall) {
            touched_wall = true;
            return std::numeric_limits<double>::infinity();
        }
        const VecX d = x - c;
        return (d.array().pow(4) / 4 + d.array().square() / 2).sum();
    }
    void gradient(const VecX& x, VecX& g) override {
        const VecX d = x - c;
        g += (d.array().pow(3) + d.array()).matrix();
    }
    void hessian(const VecX& x, HessianBlocks& H, bool) override {
        const VecX d = x - c;
        for (Eigen::Index i = 0; i < x.size(); ++i) H.add(i, i, 3 * d[i] * d[i] + 1);
    }
    double max_step(const VecX& x, const VecX& dx) override {
        if (dx[0] <= 0 || !std::isfinite(wall)) return 1.0;
        return std::min(1.0, 0.9 * (wall - x[0]) / dx[0]);
    }
    double step_measure(const VecX& dx) override { return dx.cwiseAbs().maxCoeff(); }
    void accepted(const VecX&) override {}
    ResidualGroups residual_groups() const override { return groups; }
};

// E(x) = sum_i (x_i - c)^2 / 2 + x_i^4 / 4 - 2 x_i^2: the second part is a double well whose
// Hessian (3 x^2 - 4) is negative near 0 unless projected (to max(3 x^2 - 4, 0)), as the
// barrier and orthogonality blocks of the real potential are.
class DoubleWellProblem final : public NewtonProblem {
  public:
    double c = 0.3;
    std::vector<bool> projected_calls;

    void begin_iteration(const VecX&) override {}
    double energy(const VecX& x) override {
        return ((x.array() - c).square() / 2 + x.array().pow(4) / 4 - 2 * x.array().square()).sum();
    }
    void gradient(const VecX& x, VecX& g) override {
        g += ((x.array() - c) + x.array().cube() - 4 * x.array()).matrix();
    }
    void hessian(const VecX& x, HessianBlocks& H, bool project) override {
        projected_calls.push_back(project);
        for (Eigen::Index i = 0; i < x.size(); ++i) {
            const double well = 3 * x[i] * x[i] - 4;
            H.add(i, i, 1.0 + (project ? std::max(well, 0.0) : well));
        }
    }
    double max_step(const VecX&, const VecX&) override { return 1.0; }
    double step_measure(const VecX& dx) override { return dx.cwiseAbs().maxCoeff(); }
    void accepted(const VecX&) override {}
};

double gradient_norm(NewtonProblem& p, const VecX& x) {
    VecX g = VecX::Zero(x.size());
    p.gradient(x, g);
    return g.norm();
}

SolverParams tight() {
    SolverParams p;
    p.abs_tol = 1e-10;
    p.rel_tol = 0.0;
    return p;
}

}  // namespace

TEST(NewtonSolver, ConvergesQuadraticallyToTheMinimum) {
    QuarticProblem p;
    p.c = VecX::LinSpaced(24, -2.0, 3.0);
    VecX x = VecX::Zero(24);
    const NewtonStats r = newton_solve(p, x, std::vector<bool>(24, true), tight());
    EXPECT_EQ(r.status, ConvergenceStatus::Converged);
    EXPECT_EQ(r.stop_reason, StopReason::Residual);
    EXPECT_LT(r.iterations, 15);
    EXPECT_LT((x - p.c).norm(), 1e-9);
    ASSERT_EQ(r.residual_history.size(), static_cast<std::size_t>(r.iterations) + 1);
    ASSERT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations));
    // Quadratic convergence near the end: each residual at most ~ the square of the previous.
    const auto& h = r.residual_history;
    const std::size_t n = h.size();
    EXPECT_LT(h[n - 1], 10 * h[n - 2] * h[n - 2]);
    EXPECT_LE(h.back(), 1e-10);
    for (const auto& it : r.history) {
        EXPECT_TRUE(it.psd_projected);  // Always
        EXPECT_FALSE(it.fallback_direction);
        EXPECT_GT(it.step, 0.0);
    }
}

TEST(NewtonSolver, FixedDofsNeverChange) {
    QuarticProblem p;
    p.c = VecX::Ones(6);
    VecX x = VecX::Zero(6);
    std::vector<bool> free{true, false, true, true, false, true};
    newton_solve(p, x, free, tight());
    EXPECT_EQ(x[1], 0.0);
    EXPECT_EQ(x[4], 0.0);
    EXPECT_NEAR(x[0], 1.0, 1e-6);
}

TEST(NewtonSolver, GlobalModeTestsTheRawNormAndRelativeTolerance) {
    QuarticProblem p;
    p.c = VecX::Constant(4, 3.0);
    SolverParams params;
    params.convergence_mode = ConvergenceMode::Global;
    params.abs_tol = 0.0;  // only the relative criterion can stop it
    params.rel_tol = 1e-8;
    VecX x = VecX::Zero(4);
    const NewtonStats r = newton_solve(p, x, std::vector<bool>(4, true), params);
    EXPECT_EQ(r.status, ConvergenceStatus::Converged);
    EXPECT_LE(r.residual_history.back(), 1e-8 * r.residual_history.front());
    EXPECT_NEAR(r.residual_history.front(), gradient_norm(p, VecX::Zero(4)), 1e-12);
}

TEST(NewtonSolver, PerBodyWeightedModeRequiresEveryGroupToConverge) {
    // Two groups of three unknowns; the second weighs 1e12 times more, so it keeps the solve
    // going until its own weighted residual meets abs_tol.
    QuarticProblem p;
    p.c = VecX::Constant(6, 2.0);
    p.groups.begin = {0, 3, 6};
    p.groups.weight = VecX::Ones(6);
    p.groups.weight.tail(3).setConstant(1e12);
    SolverParams params;
    params.abs_tol = 1e-3;
    params.rel_tol = 0.0;
    VecX x = VecX::Zero(6);
    const NewtonStats weighted = newton_solve(p, x, std::vector<bool>(6, true), params);
    EXPECT_EQ(weighted.status, ConvergenceStatus::Converged);
    VecX g = VecX::Zero(6);
    p.gradient(x, g);
    EXPECT_LE(1e6 * g.tail(3).norm(), 1e-3);
    p.groups = {};
    x.setZero();
    const NewtonStats plain = newton_solve(p, x, std::vector<bool>(6, true), params);
    EXPECT_LT(plain.iterations, weighted.iterations);
}

TEST(NewtonSolver, StepNormModeStopsOnTheDirectionSize) {
    QuarticProblem p;
    p.c = VecX::Constant(3, 1.0);
    SolverParams params;
    params.convergence_mode = ConvergenceMode::StepNorm;
    params.step_tol = 1e-6;
    VecX x = VecX::Zero(3);
    const NewtonStats r = newton_solve(p, x, std::vector<bool>(3, true), params);
    EXPECT_EQ(r.status, ConvergenceStatus::Converged);
    EXPECT_EQ(r.stop_reason, StopReason::StepNorm);
    EXPECT_LT(r.last_step_measure, 1e-6);
    EXPECT_LT((x - p.c).cwiseAbs().maxCoeff(), 1e-6);
}

// One affine body's 12 unknowns (p, A) as a quartic, with the rates of a time step h; the CCD
// cuts the first `capped` directions to half.
class RatedQuartic final : public QuarticProblem {
  public:
    double h = 0.01;
    int capped = 0;
    double max_step(const VecX&, const VecX&) override { return capped-- > 0 ? 0.5 : 1.0; }
    StepRates step_rates(const VecX& dx) override {
        return {dx.head<3>().cwiseAbs().maxCoeff() / h, dx.tail<9>().cwiseAbs().maxCoeff() / h};
    }
};

TEST(NewtonSolver, StepRateModeStopsOnTranslationAndAffineRatesWithAWholeStep) {
    SolverParams params;
    params.convergence_mode = ConvergenceMode::StepRate;
    auto solve = [&](RatedQuartic& p, VecX x) {
        return newton_solve(p, x, std::vector<bool>(12, true), params);
    };
    RatedQuartic p;
    // Each tolerance binds where its part converges last: a tighter one then takes more
    // iterations.
    p.c = VecX::LinSpaced(12, 7.0, 3.0);  // the translation farthest
    const NewtonStats loose = solve(p, VecX::Zero(12));
    EXPECT_EQ(loose.status, ConvergenceStatus::Converged);
    EXPECT_EQ(loose.stop_reason, StopReason::StepRate);
    params.translation_rate_tol = 1e-8;
    const NewtonStats tight_p = solve(p, VecX::Zero(12));
    EXPECT_GT(tight_p.iterations, loose.iterations);
    EXPECT_EQ(tight_p.stop_reason, StopReason::StepRate);
    params.translation_rate_tol = 0.05;
    p.c = VecX::LinSpaced(12, 3.0, 7.0);  // the affine entries farthest
    const NewtonStats loose_a = solve(p, VecX::Zero(12));
    params.affine_rate_tol = 1e-8;
    const NewtonStats tight_a = solve(p, VecX::Zero(12));
    EXPECT_GT(tight_a.iterations, loose_a.iterations);
    EXPECT_EQ(tight_a.stop_reason, StopReason::StepRate);
    // A direction within both tolerances that the CCD cuts short is taken and the solve goes
    // on; the first whole step ends it.
    params.affine_rate_tol = 0.1;
    VecX near = p.c;
    near[0] += 1e-7;
    EXPECT_EQ(solve(p, near).iterations, 1);
    p.capped = 3;
    const NewtonStats cut = solve(p, near);
    EXPECT_EQ(cut.iterations, 4);
    EXPECT_EQ(cut.stop_reason, StopReason::StepRate);
}

TEST(NewtonSolver, StopsAtMaxIterationsMaxTimeAndRelativeStep) {
    QuarticProblem p;
    p.c = VecX::Constant(3, 5.0);
    VecX x = VecX::Zero(3);
    SolverParams params;
    params.max_iterations = 2;
    NewtonStats r = newton_solve(p, x, std::vector<bool>(3, true), params);
    EXPECT_EQ(r.status, ConvergenceStatus::Stopped);
    EXPECT_EQ(r.stop_reason, StopReason::MaxIterations);
    EXPECT_EQ(r.iterations, 2);
    EXPECT_EQ(r.residual_history.size(), 3u);  // the final iterate is examined too

    x.setZero();
    params = SolverParams{};
    params.max_time = 1e-12;  // already past when the first direction would be computed
    r = newton_solve(p, x, std::vector<bool>(3, true), params);
    EXPECT_EQ(r.stop_reason, StopReason::MaxTime);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(x, VecX::Zero(3));

    // A minimum 1e-12 away from a point of norm 1e6: the Newton step is below 10 eps |x|.
    p.c = VecX::Constant(3, 1e6 + 1e-10);
    x = VecX::Constant(3, 1e6);
    params = SolverParams{};
    params.abs_tol = 0.0;
    params.rel_tol = 0.0;
    r = newton_solve(p, x, std::vector<bool>(3, true), params);
    EXPECT_EQ(r.status, ConvergenceStatus::Stopped);
    EXPECT_EQ(r.stop_reason, StopReason::RelativeStep);
}

TEST(NewtonSolver, EveryLineSearchRespectsTheMaximumStep) {
    // The minimum lies beyond the wall: every accepted iterate stays strictly before it.
    for (LineSearchType ls :
         {LineSearchType::Backtracking, LineSearchType::ResidualNorm, LineSearchType::StrongWolfe})
        for (PsdProjectionMode psd :
             {PsdProjectionMode::Always, PsdProjectionMode::Never, PsdProjectionMode::IfFailRetry,
              PsdProjectionMode::IfFailAlways}) {
            QuarticProblem p;
            p.c = VecX::Constant(3, 2.0);
            p.wall = 1.0;
            VecX x = VecX::Zero(3);
            SolverParams params;
            params.line_search = ls;
            params.psd_projection = psd;
            params.max_iterations = 30;
            const NewtonStats r = newton_solve(p, x, std::vector<bool>(3, true), params);
            EXPECT_LT(x[0], 1.0);
            EXPECT_GT(x[0], 0.99);
            EXPECT_GT(r.ccd_limited, 0);
            EXPECT_NE(r.status, ConvergenceStatus::Converged);
            for (const auto& it : r.history) EXPECT_LE(it.step, it.max_step);
        }
}

TEST(NewtonSolver, EveryLineSearchConverges) {
    for (LineSearchType ls : {LineSearchType::Backtracking, LineSearchType::ResidualNorm,
                              LineSearchType::StrongWolfe}) {
        QuarticProblem p;
        p.c = VecX::LinSpaced(12, -4.0, 6.0);
        VecX x = VecX::Zero(12);
        SolverParams params = tight();
        params.line_search = ls;
        const NewtonStats r = newton_solve(p, x, std::vector<bool>(12, true), params);
        EXPECT_EQ(r.status, ConvergenceStatus::Converged) << static_cast<int>(ls);
        EXPECT_LT((x - p.c).norm(), 1e-8);
        if (ls == LineSearchType::ResidualNorm) {  // monitors the residual: it never grows
            for (std::size_t k = 1; k < r.residual_history.size(); ++k)
                EXPECT_LT(r.residual_history[k], r.residual_history[k - 1]);
        }
    }
}

TEST(NewtonSolver, EveryLinearSolverDrivesNewton) {
    for (LinearSolverType type :
         {LinearSolverType::Auto, LinearSolverType::LDLT, LinearSolverType::CG,
          LinearSolverType::MINRES, LinearSolverType::GMRES}) {
        QuarticProblem p;
        p.c = VecX::LinSpaced(24, -2.0, 3.0);
        VecX x = VecX::Zero(24);
        SolverParams params = tight();
        params.linear.type = type;
        const NewtonStats r = newton_solve(p, x, std::vector<bool>(24, true), params);
        EXPECT_EQ(r.status, ConvergenceStatus::Converged);
        EXPECT_LT((x - p.c).norm(), 1e-9);
        for (const auto& it : r.history)
            EXPECT_EQ(it.linear_solver,
                      type == LinearSolverType::Auto ? LinearSolverType::LDLT : type);
    }
}

TEST(NewtonSolver, PsdProjectionModesOnAnIndefiniteProblem) {
    const VecX x0 = VecX::Constant(4, 0.1);  // in the concave part of the double well
    auto run = [&](PsdProjectionMode mode, LinearSolverType linear, DoubleWellProblem& p) {
        VecX x = x0;
        SolverParams params = tight();
        params.psd_projection = mode;
        params.linear.type = linear;
        NewtonStats r = newton_solve(p, x, std::vector<bool>(4, true), params);
        EXPECT_EQ(r.status, ConvergenceStatus::Converged)
            << static_cast<int>(mode) << " " << static_cast<int>(linear) << " reason "
            << static_cast<int>(r.stop_reason) << " after " << r.iterations;
        EXPECT_LT(gradient_norm(p, x), 1e-9);
        return r;
    };
    for (LinearSolverType linear : {LinearSolverType::LDLT, LinearSolverType::CG,
                                    LinearSolverType::MINRES, LinearSolverType::GMRES}) {
        {
            DoubleWellProblem p;
            const NewtonStats r = run(PsdProjectionMode::Always, linear, p);
            EXPECT_EQ(r.psd_retries, 0);
            for (bool b : p.projected_calls) EXPECT_TRUE(b);
        }
        {
            // Unprojected: the first direction is an ascent (or CG breaks down) and is replaced
            // by steepest descent.
            DoubleWellProblem p;
            const NewtonStats r = run(PsdProjectionMode::Never, linear, p);
            EXPECT_GT(r.fallback_directions, 0);
            EXPECT_TRUE(r.history.front().fallback_direction);
            for (bool b : p.projected_calls) EXPECT_FALSE(b);
        }
        {
            // The failed first iteration is redone projected; later ones start unprojected.
            DoubleWellProblem p;
            const NewtonStats r = run(PsdProjectionMode::IfFailRetry, linear, p);
            EXPECT_GE(r.psd_retries, 1);
            EXPECT_TRUE(r.history.front().psd_retry);
            EXPECT_TRUE(r.history.front().psd_projected);
            ASSERT_GE(p.projected_calls.size(), 3u);
            EXPECT_FALSE(p.projected_calls[0]);
            EXPECT_TRUE(p.projected_calls[1]);
            EXPECT_FALSE(p.projected_calls[2]);
        }
        {
            // After the first failure, projection stays on.
            DoubleWellProblem p;
            const NewtonStats r = run(PsdProjectionMode::IfFailAlways, linear, p);
            EXPECT_EQ(r.psd_retries, 1);
            ASSERT_GE(p.projected_calls.size(), 3u);
            EXPECT_FALSE(p.projected_calls[0]);
            for (std::size_t k = 1; k < p.projected_calls.size(); ++k)
                EXPECT_TRUE(p.projected_calls[k]);
        }
    }
}

namespace {

// A gradient that contradicts the energy (the quartic's energy negated): the energy grows
// along every direction the gradient calls descent, so no line search can improve.
class InconsistentProblem final : public QuarticProblem {
  public:
    double energy(const VecX& x) override { return -QuarticProblem::energy(x); }
};

// E = -|x|^2 / 2: unbounded below. Unprojected, the Hessian is negative, the steepest-descent
// fallback doubles x every iteration and the residual |x| explodes.
class UnboundedProblem final : public NewtonProblem {
  public:
    void begin_iteration(const VecX&) override {}
    double energy(const VecX& x) override { return -0.5 * x.squaredNorm(); }
    void gradient(const VecX& x, VecX& g) override { g -= x; }
    void hessian(const VecX& x, HessianBlocks& H, bool) override {
        for (Eigen::Index i = 0; i < x.size(); ++i) H.add(i, i, -1.0);
    }
    double max_step(const VecX&, const VecX&) override { return 1.0; }
    double step_measure(const VecX& dx) override { return dx.norm(); }
    void accepted(const VecX&) override {}
};

}  // namespace

TEST(NewtonSolver, NoImprovementStopsWithOrWithoutTheOption) {
    for (bool stop : {true, false}) {
        InconsistentProblem p;
        p.c = VecX::Constant(3, 1.0);
        VecX x = VecX::Zero(3);
        SolverParams params;
        params.stop_on_no_improvement = stop;
        const NewtonStats r = newton_solve(p, x, std::vector<bool>(3, true), params);
        EXPECT_EQ(r.status, ConvergenceStatus::Stopped);
        EXPECT_EQ(r.stop_reason, StopReason::NoImprovement);
        EXPECT_EQ(r.iterations, 1);
        EXPECT_EQ(x, VecX::Zero(3));
        // Without the option the solver first tries steepest descent.
        EXPECT_EQ(r.fallback_directions, stop ? 0 : 1);
    }
}

// E(x) = 1 + |x|^2 / 2 whose value at the minimiser rounds 1e-12 high, as the sum of an
// incremental potential's cancelling terms does (relative noise far above e0's resolution).
class NoisyBowlProblem final : public NewtonProblem {
  public:
    void begin_iteration(const VecX&) override {}
    double energy(const VecX& x) override {
        return 1.0 + 0.5 * x.squaredNorm() + (x.isZero() ? 1e-12 : 0.0);
    }
    void gradient(const VecX& x, VecX& g) override { g += x; }
    void hessian(const VecX& x, HessianBlocks& H, bool) override {
        for (Eigen::Index i = 0; i < x.size(); ++i) H.add(i, i, 1.0);
    }
    double max_step(const VecX&, const VecX&) override { return 1.0; }
    double step_measure(const VecX& dx) override { return dx.norm(); }
    void accepted(const VecX&) override {}
};

TEST(NewtonSolver, AStepWithinTheEnergysRoundingNoiseIsJudgedByTheResidual) {
    // The whole Newton step is predicted to lower E by 5e-13 (relative), less than the noise of
    // its value: the exact minimiser must be taken at once, not backtracked from.
    for (LineSearchType ls : {LineSearchType::Backtracking, LineSearchType::StrongWolfe}) {
        NoisyBowlProblem p;
        VecX x = VecX::Constant(2, 1e-6 / std::sqrt(2.0));
        SolverParams params;
        params.line_search = ls;
        params.convergence_mode = ConvergenceMode::Global;
        params.abs_tol = 1e-15;
        const NewtonStats r = newton_solve(p, x, std::vector<bool>(2, true), params);
        EXPECT_EQ(r.status, ConvergenceStatus::Converged);
        EXPECT_EQ(r.iterations, 1);
        EXPECT_EQ(r.line_search_trials, 1);
        EXPECT_EQ(x, VecX::Zero(2));
    }
}

TEST(NewtonSolver, ExplosionControlReportsDivergence) {
    UnboundedProblem p;
    VecX x = VecX::Ones(2);
    SolverParams params;
    params.psd_projection = PsdProjectionMode::Never;
    params.divergence_factor = 1e3;
    NewtonStats r = newton_solve(p, x, std::vector<bool>(2, true), params);
    EXPECT_EQ(r.status, ConvergenceStatus::Diverged);
    EXPECT_EQ(r.stop_reason, StopReason::Diverged);
    EXPECT_GT(r.residual_history.back(), 1e3 * r.residual_history.front());
    EXPECT_LT(r.iterations, 20);
    // Without explosion control it runs into the iteration limit.
    x = VecX::Ones(2);
    params.explosion_control = false;
    params.max_iterations = 15;
    r = newton_solve(p, x, std::vector<bool>(2, true), params);
    EXPECT_EQ(r.stop_reason, StopReason::MaxIterations);

    // A non-finite gradient is Diverged at once, leaving x as it was.
    QuarticProblem q;
    q.c = VecX::Constant(2, std::numeric_limits<double>::quiet_NaN());
    VecX y = VecX::Zero(2);
    r = newton_solve(q, y, std::vector<bool>(2, true), SolverParams{});
    EXPECT_EQ(r.status, ConvergenceStatus::Diverged);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(y, VecX::Zero(2));
}
