#include "concord/solver/newton_solver.hpp"

#include <chrono>
#include <cmath>

namespace concord {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}
}  // namespace

NewtonResult newton_solve(NewtonProblem& problem, VecX& x, const std::vector<bool>& free_dof,
                          const NewtonParams& params) {
    NewtonResult res;
    const Eigen::Index n = x.size();
    std::vector<int> free_index(static_cast<std::size_t>(n), -1);
    int num_free = 0;
    for (Eigen::Index i = 0; i < n; ++i)
        if (free_dof[static_cast<std::size_t>(i)]) free_index[static_cast<std::size_t>(i)] = num_free++;
    if (num_free == 0) {
        res.converged = true;
        res.stop_reason = "no free degrees of freedom";
        return res;
    }

    VecX g(n), dx(n), dx_free(num_free), rhs(num_free);
    std::vector<Eigen::Triplet<double>> triplets, free_triplets;
    SparseMatrix H(num_free, num_free);

    for (int it = 0; it < params.max_iterations; ++it) {
        auto t0 = Clock::now();
        problem.begin_iteration(x);
        g.setZero();
        problem.gradient(x, g);
        triplets.clear();
        problem.hessian(x, triplets);
        free_triplets.clear();
        free_triplets.reserve(triplets.size());
        for (const auto& t : triplets) {
            const int r = free_index[static_cast<std::size_t>(t.row())];
            const int c = free_index[static_cast<std::size_t>(t.col())];
            if (r >= 0 && c >= 0) free_triplets.emplace_back(r, c, t.value());
        }
        H.setFromTriplets(free_triplets.begin(), free_triplets.end());
        for (Eigen::Index i = 0; i < n; ++i)
            if (free_index[static_cast<std::size_t>(i)] >= 0) rhs[free_index[static_cast<std::size_t>(i)]] = -g[i];
        res.t_assembly += seconds_since(t0);

        t0 = Clock::now();
        const LinearSolveResult ls = solve_linear_system(H, rhs, dx_free, params.linear);
        res.t_linear += seconds_since(t0);
        res.linear_iterations += ls.iterations;
        if (!ls.success) {
            // Fall back to gradient descent scaled by the diagonal: still a descent direction.
            for (int i = 0; i < num_free; ++i) {
                const double d = H.coeff(i, i);
                dx_free[i] = rhs[i] / (d > 0 ? d : 1.0);
            }
        }
        dx.setZero();
        for (Eigen::Index i = 0; i < n; ++i)
            if (free_index[static_cast<std::size_t>(i)] >= 0) dx[i] = dx_free[free_index[static_cast<std::size_t>(i)]];

        res.iterations = it + 1;
        res.last_step_measure = problem.step_measure(dx);
        if (!std::isfinite(res.last_step_measure)) {
            res.stop_reason = "non-finite Newton direction";
            return res;
        }
        if (res.last_step_measure < params.tolerance) {
            res.converged = true;
            res.stop_reason = "step below tolerance";
            return res;
        }

        t0 = Clock::now();
        double alpha = problem.max_step(x, dx);
        res.t_ccd += seconds_since(t0);
        if (alpha < 1.0) ++res.ccd_limited;

        t0 = Clock::now();
        const double e0 = problem.energy(x);
        const double slope = g.dot(dx);  // < 0 for a descent direction
        VecX trial(n);
        bool accepted = false;
        for (int k = 0; k < params.max_line_search_trials && alpha > 0.0; ++k) {
            trial = x + alpha * dx;
            const double e = problem.energy(trial);
            ++res.line_search_trials;
            if (std::isfinite(e) && e <= e0 + params.armijo * alpha * std::min(slope, 0.0)) {
                accepted = true;
                break;
            }
            alpha *= params.backtrack;
        }
        res.t_line_search += seconds_since(t0);
        if (!accepted) {
            res.stop_reason = "line search failed";
            return res;
        }
        x = trial;
        problem.accepted(x);
    }
    res.stop_reason = "max iterations";
    return res;
}

}  // namespace concord
