// What the Newton loops (newton_solver.cpp, al_newton_solver.cpp, hybrid_newton_solver.cpp)
// share: the unknowns' slice of the DoF vector with its assembled system, the fallback
// direction, and the solve's deadline.
#pragma once

#include <optional>
#include <vector>

#include "concord/solver/block_assembler.hpp"
#include "concord/solver/linear_solver.hpp"
#include "concord/solver/newton_problem.hpp"
#include "concord/solver/newton_solver.hpp"
#include "concord/solver/residual_norm.hpp"

namespace concord {

inline double solver_seconds_since(SolverClock::time_point t0) {
    return std::chrono::duration<double>(SolverClock::now() - t0).count();
}

/// The deadline of a solve starting at t_start: `deadline` if the caller gave one, else
/// params.max_time after t_start, else none.
inline std::optional<SolverClock::time_point> solve_deadline(
    std::optional<SolverClock::time_point> deadline, const SolverParams& params,
    SolverClock::time_point t_start) {
    if (deadline || !(params.max_time > 0.0)) return deadline;
    return t_start + std::chrono::duration_cast<SolverClock::duration>(
                         std::chrono::duration<double>(params.max_time));
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
inline VecX fallback_direction(const SparseMatrix& H, const VecX& rhs) {
    VecX d = H.diagonal().cwiseAbs();
    VecX dx(rhs.size());
    for (Eigen::Index i = 0; i < rhs.size(); ++i)
        dx[i] = rhs[i] / (d[i] > 0 && std::isfinite(d[i]) ? d[i] : 1.0);
    return dx;
}

// The residual at each iterate: its history, explosion control and the residual criteria
// (per body weighted, or global).
struct ResidualMonitor {
    const ResidualNorm& norm;
    const SolverParams& params;
    bool per_body = false;
    VecX rho{}, rho0{};  ///< group norms at the iterate and at the start
    double measure = 0.0, measure0 = 0.0;

    /// Measures the gradient g at iterate k (appended to st.residual_history); false when the
    /// solve has diverged: a non-finite residual or iterate, or an explosion.
    /// (Eigen's maxCoeff skips NaNs, so the group norms are checked themselves.)
    bool measure_at(int k, const VecX& g, const VecX& x, NewtonStats& st) {
        rho = norm.per_group(g);
        measure = per_body ? rho.maxCoeff() : norm.l2(g);
        st.residual_history.push_back(measure);
        if (!std::isfinite(measure) || !rho.allFinite() || !x.allFinite()) return false;
        if (k == 0) {
            rho0 = rho;
            measure0 = measure;
            return true;
        }
        return !(params.explosion_control &&
                 measure > params.divergence_factor * std::max(measure0, params.abs_tol));
    }
    /// The residual criterion at iterate k: absolute or relative to the start, per body.
    bool converged(int k) const {
        if (!per_body)
            return measure <= params.abs_tol || (k > 0 && measure <= params.rel_tol * measure0);
        for (Eigen::Index b = 0; b < rho.size(); ++b)
            if (!(rho[b] <= params.abs_tol || (k > 0 && rho[b] <= params.rel_tol * rho0[b])))
                return false;
        return true;
    }
};

// Phase timer: wall time of a phase minus the collision time the problem spent inside it.
struct PhaseTimer {
    NewtonProblem& problem;
    template <typename Fn>
    void operator()(double& phase, Fn&& fn) const {
        const auto t0 = SolverClock::now();
        const double c0 = problem.collision_seconds();
        fn();
        phase += solver_seconds_since(t0) - (problem.collision_seconds() - c0);
    }
};

// The Newton direction of one iteration: the (projected) Hessian solved against -g; a failed
// solve (no solution or no descent) is retried projected (IfFail*) or replaced by steepest
// descent. Keeps IfFailAlways's "project from now on" across iterations.
struct NewtonDirection {
    FreeSystem& sys;
    NewtonProblem& problem;
    const SolverParams& params;
    const PhaseTimer& timed;
    bool sticky_projection = false;

    /// dx_free from rhs = -g over the unknowns; fills the iteration's and the solve's counters.
    void compute(const VecX& x, const VecX& rhs, VecX& dx_free, NewtonStats& st,
                 NewtonIteration& it) {
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
    }
};

}  // namespace concord
