// The Newton loop of augmented-Lagrangian contact (Zheng, Luo and Li 2026; libuipc's
// advance_AL): the iterate minimises the incremental potential plus the constraints'
// augmented Lagrangian and may pass through obstacles; an admissible state follows it as far
// as CCD certifies. The step ends once the admissible state has covered the cumulative
// fraction 1 - toi_threshold of the way (prod_k (1 - t_k) <= toi_threshold, t_k the
// certified fraction of iteration k) and either the solver's convergence criterion
// (convergence_mode) holds at the iterate or `iterations` iterations were made; the admissible
// state is the result.
#pragma once

#include "concord/solver/newton_solver.hpp"

namespace concord {

struct AlSolveParams {
    /// epsilon of the cumulative-step termination (libuipc's toi_threshold).
    double toi_threshold = 0.1;
    /// A certified fraction below this does not move the admissible state (libuipc's
    /// alpha_lower_bound); it still counts towards the cumulative step.
    double min_advance = 1e-6;
    /// When CCD certifies less than this fraction of the way, the iterate restarts from the
    /// admissible state: the constraints, linearised there, let the iterate pass where the
    /// surfaces do not, and an iterate left far ahead makes every later segment cross more
    /// pairs (each joining the set) while the admissible state stays put.
    double restart_below = 0.1;
    /// With the cumulative step covered, the solve also ends after this many iterations even
    /// if the Newton criterion does not hold (the paper's K_min with friction).
    int iterations = 6;
};

/// Minimises from x (admissible on entry); on return x is the admissible state. Limits as in
/// newton_solve (max_iterations, max_time, divergence of the iterate's residual); the
/// residual history and per-iteration records are those of the iterate.
NewtonStats al_newton_solve(ConstrainedNewtonProblem& problem, VecX& x,
                            const std::vector<bool>& free_dof, const SolverParams& params,
                            const AlSolveParams& al,
                            std::optional<SolverClock::time_point> deadline = std::nullopt);

}  // namespace concord
