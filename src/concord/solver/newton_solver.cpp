#include "concord/solver/newton_solver.hpp"

#include <cmath>

#include "concord/solver/block_assembler.hpp"
#include "concord/solver/line_search.hpp"
#include "concord/solver/linear_solver.hpp"
#include "concord/solver/residual_norm.hpp"

namespace concord {

namespace {

double seconds_since(SolverClock::time_point t0) {
    return std::chrono::duration<double>(SolverClock::now() - t0).count();
}

// The unknowns' slice of the full DoF vector and the assembled Newton system over it. The
// blocks' buffer, the block accumulator and the LDLT's symbolic analysis live as long as
// the solve, so the iterations reuse them.
struct FreeSystem {
    std::vector<int> index;  ///< full DoF -> unknown, -1 when fixed
    int size = 0;
    HessianBlocks blocks;
    SparseMatrix H;
    std::optional<BlockAssembler> assembler;
    LinearSolverWorkspace linear;

    FreeSystem(const std::vector<bool>& free_dof, int block) : index(free_dof.size(), -1) {
        for (std::size_t i = 0; i < free_dof.size(); ++i)
            if (free_dof[i]) index[i] = size++;
        H.resize(size, size);
        assembler.emplace(index, size, block);
    }
    VecX gather(const VecX& full) const {
        VecX out(size);
        for (std::size_t i = 0; i < index.size(); ++i)
            if (index[i] >= 0) out[index[i]] = full[static_cast<Eigen::Index>(i)];
        return out;
    }
    VecX scatter(const VecX& free) const {
        VecX out = VecX::Zero(static_cast<Eigen::Index>(index.size()));
        for (std::size_t i = 0; i < index.size(); ++i)
            if (index[i] >= 0) out[static_cast<Eigen::Index>(i)] = free[index[i]];
        return out;
    }
    void assemble(NewtonProblem& problem, const VecX& x, bool project) {
        blocks.clear();
        problem.hessian(x, blocks, project);
        assembler->assemble(blocks, H);
    }
};

// Preconditioned steepest descent -D^-1 g with D = |diag H| (1 where that is not usable):
// a descent direction whatever H is.
VecX fallback_direction(const SparseMatrix& H, const VecX& rhs) {
    VecX d = H.diagonal().cwiseAbs();
    VecX dx(rhs.size());
    for (Eigen::Index i = 0; i < rhs.size(); ++i)
        dx[i] = rhs[i] / (d[i] > 0 && std::isfinite(d[i]) ? d[i] : 1.0);
    return dx;
}

}  // namespace

NewtonStats newton_solve(NewtonProblem& problem, VecX& x, const std::vector<bool>& free_dof,
                         const SolverParams& params,
                         std::optional<SolverClock::time_point> deadline) {
    NewtonStats st;
    const auto t_start = SolverClock::now();
    const double collision_start = problem.collision_seconds();
    if (!deadline && params.max_time > 0.0)
        deadline = t_start + std::chrono::duration_cast<SolverClock::duration>(
                                 std::chrono::duration<double>(params.max_time));
    auto finish = [&](ConvergenceStatus status, StopReason reason) {
        st.status = status;
        st.stop_reason = reason;
        st.t_collision = problem.collision_seconds() - collision_start;
        st.t_total = seconds_since(t_start);
        return st;
    };

    FreeSystem sys(free_dof, params.linear.block_size);
    if (sys.size == 0) return finish(ConvergenceStatus::Converged, StopReason::Residual);
    const ResidualNorm norm(problem.residual_groups(), free_dof);
    const bool per_body = params.convergence_mode == ConvergenceMode::PerBodyWeighted;
    const Eigen::Index n = x.size();
    VecX g(n), rhs, dx_free, dx, x_new;
    VecX rho0;
    double measure0 = 0.0;
    bool sticky_projection = false;  // IfFailAlways after a failure

    // Phase timer: wall time of a phase minus the collision time the problem spent inside it.
    auto timed = [&](double& phase, auto&& fn) {
        const auto t0 = SolverClock::now();
        const double c0 = problem.collision_seconds();
        fn();
        phase += seconds_since(t0) - (problem.collision_seconds() - c0);
    };

    for (int k = 0;; ++k) {
        timed(st.t_assembly, [&] {
            problem.begin_iteration(x);
            g.setZero();
            problem.gradient(x, g);
        });
        const VecX rho = norm.per_group(g);
        const double measure = per_body ? rho.maxCoeff() : norm.l2(g);
        st.residual_history.push_back(measure);

        // Explosion control, then convergence, then the limits.
        // (Eigen's maxCoeff skips NaNs, so the group norms are checked themselves.)
        if (!std::isfinite(measure) || !rho.allFinite() || !x.allFinite())
            return finish(ConvergenceStatus::Diverged, StopReason::Diverged);
        if (k == 0) {
            rho0 = rho;
            measure0 = measure;
        } else if (params.explosion_control &&
                   measure > params.divergence_factor * std::max(measure0, params.abs_tol)) {
            return finish(ConvergenceStatus::Diverged, StopReason::Diverged);
        }
        // A zero residual meets every criterion (StepNorm's too: the direction would be 0).
        if (measure == 0.0) return finish(ConvergenceStatus::Converged, StopReason::Residual);
        // The residual modes; StepNorm and StepRate test the direction below.
        const bool residual_mode = params.convergence_mode == ConvergenceMode::PerBodyWeighted ||
                                   params.convergence_mode == ConvergenceMode::Global;
        if (residual_mode && k >= params.min_iterations) {
            bool converged = true;
            if (per_body) {
                for (Eigen::Index b = 0; b < rho.size() && converged; ++b)
                    converged =
                        rho[b] <= params.abs_tol || (k > 0 && rho[b] <= params.rel_tol * rho0[b]);
            } else {
                converged =
                    measure <= params.abs_tol || (k > 0 && measure <= params.rel_tol * measure0);
            }
            if (converged) return finish(ConvergenceStatus::Converged, StopReason::Residual);
        }
        if (k >= params.max_iterations)
            return finish(ConvergenceStatus::Stopped, StopReason::MaxIterations);
        if (deadline && SolverClock::now() >= *deadline)
            return finish(ConvergenceStatus::Stopped, StopReason::MaxTime);

        NewtonIteration it;
        it.residual = measure;
        ++st.iterations;
        rhs = -sys.gather(g);

        // Direction: Newton on the (projected) Hessian; a failed iteration (solve failure or
        // no descent) is retried projected (IfFail*) or replaced by steepest descent.
        auto newton_direction = [&](bool project) {
            timed(st.t_assembly, [&] { sys.assemble(problem, x, project); });
            LinearSolveResult ls;
            timed(st.t_linear,
                  [&] { ls = solve_linear_system(sys.H, rhs, dx_free, params.linear, &sys.linear); });
            it.psd_projected = project;
            it.linear_solver = ls.used;
            it.linear_iterations += ls.iterations;
            it.linear_residual = ls.relative_residual;
            st.linear_iterations += ls.iterations;
            st.max_linear_residual = std::max(st.max_linear_residual, ls.relative_residual);
            // rhs = -g over the unknowns, so descent means rhs . dx > 0.
            return ls.success && dx_free.allFinite() && rhs.dot(dx_free) > 0.0;
        };
        const PsdProjectionMode mode = params.psd_projection;
        const bool project = mode == PsdProjectionMode::Always || sticky_projection;
        bool ok = newton_direction(project);
        if (!ok && !project &&
            (mode == PsdProjectionMode::IfFailRetry || mode == PsdProjectionMode::IfFailAlways)) {
            it.psd_retry = true;
            ++st.psd_retries;
            if (mode == PsdProjectionMode::IfFailAlways) sticky_projection = true;
            ok = newton_direction(true);
        }
        if (!ok) {
            dx_free = fallback_direction(sys.H, rhs);
            it.fallback_direction = true;
            ++st.fallback_directions;
        }

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
