// Every option of the time-step solve (scene key "solver"), with its default. docs/solver.md
// documents each one and when to change it; scene/solver_params_json.hpp reads and writes them.
#pragma once

#include <limits>
#include <string>

#include "concord/solver/linear_solver_params.hpp"

namespace concord {

/// How the residual r = dE/dq of the incremental potential is tested for convergence.
enum class ConvergenceMode {
    /// Every body b must satisfy rho_b <= abs_tol or (after the first iteration)
    /// rho_b <= rel_tol rho_b^(0), with rho_b the body's residual in a norm weighted by its
    /// characteristic inertial force and torque, so that gravity loading has norm ~1
    /// (docs/solver.md derives the weights). Default.
    PerBodyWeighted,
    /// The raw l2 norm of the whole residual against abs_tol / rel_tol.
    Global,
    /// IPC's criterion: max_b (|dp_b|_inf + |dA_b|_inf r_b) / (h l) < step_tol on the Newton
    /// direction (r_b the body's bounding radius, l the scene scale).
    StepNorm,
    /// libuipc's criterion for affine bodies, on the Newton direction before the line search:
    /// every translation change |dp_b|_inf <= translation_rate_tol h and every change of an
    /// affine entry |dA_b,ij| <= affine_rate_tol h, and the CCD allows the whole step.
    StepRate,
};

enum class LineSearchType {
    Backtracking,  ///< Armijo sufficient decrease of the incremental potential (default)
    ResidualNorm,  ///< sufficient decrease of the residual norm (no energy comparison)
    StrongWolfe,   ///< Armijo plus the strong curvature condition on the potential
};

/// When the Hessian is assembled from PSD-projected local blocks.
enum class PsdProjectionMode {
    Always,        ///< every iteration (default)
    Never,         ///< never; a failed iteration falls back to preconditioned steepest descent
    IfFailRetry,   ///< unprojected; a failed iteration is retried once with projection
    IfFailAlways,  ///< as IfFailRetry, and projection stays on for the rest of that solve
};

/// What World::step does when a step's solve is not Converged.
enum class FailurePolicy {
    Continue,      ///< keep a Stopped step (default); a Diverged one leaves the state unchanged
    RetryHalving,  ///< redo a Stopped or Diverged step from the captured state with half the
                   ///< time step, up to max_halvings times, then grow the step back
};

enum class Verbosity {
    Silent,   ///< nothing (default)
    Info,     ///< one line per step through spdlog (status, stop reason, iterations, residual)
    Verbose,  ///< and one line per Newton iteration (residual, step sizes, linear solve)
};

struct SolverParams {
    // --- stopping ------------------------------------------------------------------------
    int max_iterations = 100;  ///< nonlinear updates per Newton solve
    double abs_tol = 1e-3;     ///< absolute residual tolerance (PerBodyWeighted, Global)
    double rel_tol = 1e-6;     ///< relative residual tolerance, against the solve's first residual
    /// Stop when ||dq||_2 <= rel_step_tol ||q||_2 over the unknowns (dq before line search).
    double rel_step_tol = 10.0 * std::numeric_limits<double>::epsilon();
    double max_time = 0.0;  ///< wall-clock seconds per step and island; 0 disables the limit
    bool stop_on_no_improvement = false;  ///< stop when a line search cannot improve at all
    ConvergenceMode convergence_mode = ConvergenceMode::PerBodyWeighted;
    double step_tol = 1e-2;  ///< StepNorm tolerance on ||dq||_inf / (h l)
    double translation_rate_tol = 0.05;  ///< StepRate: m/s, on |dp|_inf / h (libuipc's default)
    double affine_rate_tol = 0.1;        ///< StepRate: 1/s, on |dA_ij| / h (libuipc's default)
    /// Updates taken before a convergence criterion may end the solve (C++ only): a solve
    /// whose problem moved a little since its last solve (the consensus anchor of ADMM) still
    /// follows it instead of stopping at once within its tolerance. A StepNorm direction below
    /// the tolerance is still taken, and then ends the solve.
    int min_iterations = 0;

    // --- explosion control ------------------------------------------------------------------
    /// A non-finite residual, or one above divergence_factor * max(rho^(0), abs_tol), is Diverged.
    bool explosion_control = true;
    double divergence_factor = 1e12;  ///< C++ only (no scene key)

    // --- Newton direction and step ----------------------------------------------------------
    LineSearchType line_search = LineSearchType::Backtracking;
    PsdProjectionMode psd_projection = PsdProjectionMode::Always;
    LinearSolverParams linear;        ///< scene key "linear_solver"
    double armijo = 1e-4;             ///< sufficient-decrease constant (C++ only)
    double wolfe_curvature = 0.9;     ///< c2 of the strong Wolfe condition (C++ only)
    double backtrack_factor = 0.5;    ///< step shrink per rejected trial (C++ only)
    int max_line_search_trials = 60;  ///< per line search (C++ only)

    // --- the world's step ------------------------------------------------------------------
    bool islands = true;  ///< solve independent groups of bodies separately, in parallel
    FailurePolicy on_failure = FailurePolicy::Continue;
    int max_halvings = 4;  ///< RetryHalving: smallest time step is time_step / 2^max_halvings
    Verbosity verbosity = Verbosity::Silent;

    bool operator==(const SolverParams&) const = default;
};

/// Throws InputError "<prefix>.<key>: ..." (prefix "solver" names the scene object) for a
/// value outside its range: negative or non-finite tolerances and times, iteration counts
/// below their minimum, factors outside (0, 1), a restart length below 1.
void validate_solver_params(const SolverParams& params, const std::string& prefix = "solver");

}  // namespace concord
