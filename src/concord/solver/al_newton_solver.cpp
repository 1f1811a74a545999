#include "concord/solver/al_newton_solver.hpp"

#include <cmath>

#include "concord/solver/line_search.hpp"
#include "concord/solver/newton_system.hpp"
#include "concord/solver/residual_norm.hpp"

namespace concord {

NewtonStats al_newton_solve(ConstrainedNewtonProblem& problem, VecX& x,
                            const std::vector<bool>& free_dof, const SolverParams& params,
                            const AlSolveParams& al,
                            std::optional<SolverClock::time_point> deadline) {
    NewtonStats st;
    const auto t_start = SolverClock::now();
    const double collision_start = problem.collision_seconds();
    deadline = solve_deadline(deadline, params, t_start);
    VecX admissible = x;
    auto finish = [&](ConvergenceStatus status, StopReason reason) {
        st.status = status;
        st.stop_reason = reason;
        st.t_collision = problem.collision_seconds() - collision_start;
        st.t_total = solver_seconds_since(t_start);
        x = admissible;
        return st;
    };

    FreeSystem sys(free_dof, params.linear.block_size);
    if (sys.size == 0) return finish(ConvergenceStatus::Converged, StopReason::Residual);
    const ResidualNorm norm(problem.residual_groups(), free_dof);
    const bool per_body = params.convergence_mode == ConvergenceMode::PerBodyWeighted;
    VecX g(x.size()), rhs, dx_free, dx, x_new;
    ResidualMonitor residual{norm, params, per_body};
    double remaining = 1.0;  // prod_k (1 - t_k): the share of the way still to cover
    const PhaseTimer timed{problem};
    NewtonDirection direction{sys, problem, params, timed};

    for (int k = 0;; ++k) {
        // 1. Constraints linearised at the admissible state, slack frozen at the iterate.
        timed(st.t_assembly, [&] {
            problem.linearize_constraints(admissible, x);
            problem.begin_iteration(x);
            g.setZero();
            problem.gradient(x, g);
        });
        if (!residual.measure_at(k, g, x, st))
            return finish(ConvergenceStatus::Diverged, StopReason::Diverged);
        if (k >= params.max_iterations)
            return finish(ConvergenceStatus::Stopped, StopReason::MaxIterations);
        if (deadline && SolverClock::now() >= *deadline)
            return finish(ConvergenceStatus::Stopped, StopReason::MaxTime);

        // 2. Newton direction of the augmented Lagrangian at the iterate.
        NewtonIteration it;
        it.residual = residual.measure;
        ++st.iterations;
        rhs = -sys.gather(g);
        direction.compute(x, rhs, dx_free, st, it);
        it.direction_norm = dx_free.norm();
        dx = sys.scatter(dx_free);
        st.last_step_measure = problem.step_measure(dx);
        it.step_measure = st.last_step_measure;
        if (!std::isfinite(st.last_step_measure)) {
            st.history.push_back(it);
            return finish(ConvergenceStatus::Diverged, StopReason::Diverged);
        }
        // The solver's own convergence criterion, judged at this iterate (residual modes) or
        // on this direction (step modes): the cumulative step alone would end a solve whose
        // friction or rotation has not converged after its first full CCD step.
        bool newton_converged = false;
        switch (params.convergence_mode) {
        case ConvergenceMode::StepNorm:
            newton_converged = st.last_step_measure < params.step_tol;
            break;
        case ConvergenceMode::StepRate: {
            const NewtonProblem::StepRates r = problem.step_rates(dx);
            newton_converged =
                r.translation <= params.translation_rate_tol && r.affine <= params.affine_rate_tol;
            break;
        }
        default:  // the residual modes, at this iterate
            newton_converged = residual.converged(k);
            break;
        }

        // 3. Line search on the augmented Lagrangian alone: no CCD limits the iterate.
        LineSearchResult ls;
        timed(st.t_line_search, [&] {
            ls = line_search(problem, params, norm, per_body, x, dx, g, 1.0, x_new);
        });
        it.line_search_trials += ls.trials;
        st.line_search_trials += ls.trials;
        if (ls.improved) {
            x = x_new;
            it.step = ls.alpha;
            timed(st.t_line_search, [&] { problem.accepted(x); });
        }

        // 4. Multipliers from the new iterate.
        timed(st.t_assembly, [&] { problem.update_multipliers(x); });

        // 5. The admissible state follows as far as CCD certifies; pairs met join the set.
        const double t = problem.advance_admissible(admissible, x);
        if (t < 1.0) ++st.ccd_limited;
        if (t > al.min_advance) admissible += t * (x - admissible);
        if (t < al.restart_below) x = admissible;  // the pairs met are in the set now
        remaining *= 1.0 - std::clamp(t, 0.0, 1.0);
        it.max_step = t;  // here: the admissible state's certified fraction
        st.history.push_back(it);

        // 6. Cumulative-step termination, once the Newton criterion holds too or after
        //    al.iterations iterations (the multipliers change every iteration, so on a dense
        //    pile the Newton criterion alone may never be met).
        if (remaining <= al.toi_threshold && k + 1 >= params.min_iterations &&
            (newton_converged || k + 1 >= al.iterations))
            return finish(ConvergenceStatus::Converged, StopReason::CumulativeStep);
    }
}

}  // namespace concord
