#include "concord/solver/newton_solver.hpp"

#include <cmath>

#include "concord/solver/line_search.hpp"
#include "concord/solver/newton_system.hpp"
#include "concord/solver/residual_norm.hpp"

namespace concord {

NewtonStats newton_solve(NewtonProblem& problem, VecX& x, const std::vector<bool>& free_dof,
                         const SolverParams& params,
                         std::optional<SolverClock::time_point> deadline) {
    NewtonStats st;
    const auto t_start = SolverClock::now();
    const double collision_start = problem.collision_seconds();
    deadline = solve_deadline(deadline, params, t_start);
    auto finish = [&](ConvergenceStatus status, StopReason reason) {
        st.status = status;
        st.stop_reason = reason;
        st.t_collision = problem.collision_seconds() - collision_start;
        st.t_total = solver_seconds_since(t_start);
        return st;
    };

    FreeSystem sys(free_dof, params.linear.block_size);
    if (sys.size == 0) return finish(ConvergenceStatus::Converged, StopReason::Residual);
    const ResidualNorm norm(problem.residual_groups(), free_dof);
    const bool per_body = params.convergence_mode == ConvergenceMode::PerBodyWeighted;
    const Eigen::Index n = x.size();
    VecX g(n), rhs, dx_free, dx, x_new;
    ResidualMonitor residual{norm, params, per_body};
    const PhaseTimer timed{problem};
    NewtonDirection direction{sys, problem, params, timed};

    for (int k = 0;; ++k) {
        timed(st.t_assembly, [&] {
            problem.begin_iteration(x);
            g.setZero();
            problem.gradient(x, g);
        });
        // Explosion control, then convergence, then the limits.
        if (!residual.measure_at(k, g, x, st))
            return finish(ConvergenceStatus::Diverged, StopReason::Diverged);
        const double measure = residual.measure;
        // A zero residual meets every criterion (StepNorm's too: the direction would be 0).
        if (measure == 0.0) return finish(ConvergenceStatus::Converged, StopReason::Residual);
        // The residual modes; StepNorm and StepRate test the direction below.
        const bool residual_mode = params.convergence_mode == ConvergenceMode::PerBodyWeighted ||
                                   params.convergence_mode == ConvergenceMode::Global;
        if (residual_mode && k >= params.min_iterations && residual.converged(k))
            return finish(ConvergenceStatus::Converged, StopReason::Residual);
        if (k >= params.max_iterations)
            return finish(ConvergenceStatus::Stopped, StopReason::MaxIterations);
        if (deadline && SolverClock::now() >= *deadline)
            return finish(ConvergenceStatus::Stopped, StopReason::MaxTime);

        NewtonIteration it;
        it.residual = measure;
        ++st.iterations;
        rhs = -sys.gather(g);

        direction.compute(x, rhs, dx_free, st, it);

        // The convergence criterion on the direction (StepNorm) before the limit on it.
        it.direction_norm = dx_free.norm();
        dx = sys.scatter(dx_free);
        st.last_step_measure = problem.step_measure(dx);
        it.step_measure = st.last_step_measure;
        if (!std::isfinite(st.last_step_measure)) {
            st.history.push_back(it);
            return finish(ConvergenceStatus::Diverged, StopReason::Diverged);
        }
        // Below the tolerance before min_iterations updates: take this small update, then stop.
        const bool step_converged = params.convergence_mode == ConvergenceMode::StepNorm &&
                                    st.last_step_measure < params.step_tol;
        // StepRate: the direction is small enough; the solve ends once the CCD allows all of it.
        bool rate_small = false;
        if (params.convergence_mode == ConvergenceMode::StepRate) {
            const NewtonProblem::StepRates rates = problem.step_rates(dx);
            rate_small = rates.translation <= params.translation_rate_tol &&
                         rates.affine <= params.affine_rate_tol;
        }
        if (step_converged && k >= params.min_iterations) {
            st.history.push_back(it);
            return finish(ConvergenceStatus::Converged, StopReason::StepNorm);
        }
        if (it.direction_norm <= params.rel_step_tol * sys.gather(x).norm()) {
            st.history.push_back(it);
            return finish(ConvergenceStatus::Stopped, StopReason::RelativeStep);
        }

        // CCD cap, then the line search along the capped segment.
        LineSearchResult ls;
        auto search = [&] {
            timed(st.t_line_search, [&] {
                it.max_step = problem.max_step(x, dx);
                ls = line_search(problem, params, norm, per_body, x, dx, g, it.max_step, x_new);
            });
            if (it.max_step < 1.0) ++st.ccd_limited;
            it.line_search_trials += ls.trials;
            st.line_search_trials += ls.trials;
        };
        search();
        const bool rate_converged = rate_small && it.max_step >= 1.0;
        if (!ls.improved && (step_converged || rate_converged)) {
            // The direction was within the tolerance already: nothing left to gain.
            st.history.push_back(it);
            return finish(ConvergenceStatus::Converged,
                          step_converged ? StopReason::StepNorm : StopReason::StepRate);
        }
        if (!ls.improved && !params.stop_on_no_improvement && !it.fallback_direction) {
            // Nothing along the Newton direction helps: try steepest descent once before
            // giving up, since repeating the iteration would compute the same direction.
            dx_free = fallback_direction(sys.H, rhs);
            dx = sys.scatter(dx_free);
            it.fallback_direction = true;
            ++st.fallback_directions;
            search();
        }
        if (!ls.improved) {
            st.history.push_back(it);
            return finish(ConvergenceStatus::Stopped, StopReason::NoImprovement);
        }
        it.step = ls.alpha;
        st.history.push_back(it);
        x = x_new;
        timed(st.t_line_search, [&] { problem.accepted(x); });
        if (step_converged) return finish(ConvergenceStatus::Converged, StopReason::StepNorm);
        if (rate_converged && k + 1 >= params.min_iterations)
            return finish(ConvergenceStatus::Converged, StopReason::StepRate);
    }
}

}  // namespace concord
