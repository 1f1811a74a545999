// The scene's "distributed" object: how a scene is split across workers and how the consensus
// ADMM of the distributed solver (docs/distributed.md) is tuned. Plain data with the defaults of
// the source paper (Sec. 4-5); read and written by scene/distributed_json.hpp.
#pragma once

#include <array>

namespace concord {

/// Initial consensus penalty rho of a shared body (Sec. 4.3).
enum class PenaltyRule {
    Mass,       ///< rho_b = beta m_b (the paper's mass-aware rule)
    Fixed,      ///< rho_b = beta, whatever the body
    Stiffness,  ///< rho_{i,b} = beta lambda_max(H_{i,b}) (Hessian-stiffness proxy of prior work)
};

/// What the load balancer equalises between the two sides of a plane.
enum class LoadMeasure {
    Work,  ///< a deterministic cost model: sum over local solves of Newton iterations x
           ///< (bodies + active contacts); same input, same planes, same output
    Time,  ///< measured compute time of each worker (the paper's choice; runs then depend on
           ///< timing and are no longer reproducible bit for bit)
};

/// How rho adapts to the residuals (Sec. 4.3).
enum class AdaptRule {
    /// Residual balancing with a dual residual that responds to rho (Boyd et al. 2011,
    /// Sec. 3.4.1: s = rho (z^{k+1} - z^k)), normalised per body: s_b = (rho_b / rho_b^0) |dz_b|.
    Normalized,
    Paper,  ///< the paper's Eq. 12 literally: s_b = |dz_b|, which lowering rho does not lower
    /// Per replica spectral penalty of adaptive consensus ADMM (Xu et al. 2017): rho_{i,b} =
    /// sqrt(alpha beta), curvatures of the local objective and of the consensus estimated from
    /// the iterates' changes (Barzilai-Borwein), every other iteration.
    Spectral,
};

/// How wide the overlap region around a plane is (Sec. 4).
enum class WidthRule {
    Contact,  ///< w = 2 (dhat + alpha v_max h): the contact range plus the swept motion
    Paper,    ///< w = max(alpha v_max h, w_min), w_min the smallest body box diagonal
};

/// Which speed v the overlap width's spare alpha v h takes (WidthRule).
enum class WidthSpeed {
    Fastest,  ///< the scene's fastest body's, one width for every body (the paper's v_max)
    /// Per body: the largest speed, relative to it, of a body, static triangle or ground plane
    /// that can reach it within the step, speeds measured on the bodies' boxes
    /// (distributed/approach_speed.hpp). Bodies that move together, or rest, keep the narrow
    /// width whatever else moves. Not the default: on the spheres benchmark it ties with Fastest
    /// and leaves bodies near the planes shared at rest (docs/benchmarks.md).
    Approach,
};

/// Where the planes start.
enum class InitialPlanes {
    Quantile,  ///< at equal-count quantiles of the movable bodies' centres, between two centres
    Even,      ///< evenly spaced over the movable bodies' bounding box
};

/// The consensus z^1 of a shared body at the start of a step (Algorithm 1's initial z).
/// ADMM stops a few theta h l short of the consensus solution, on the side of z^1, so z^1 is
/// both a cost (iterations) and a bias (docs/distributed.md, "Initial consensus").
enum class InitialConsensus {
    /// q~ = q + h q_dot + h^2 M^-1 f (the paper's z^1): exact for free flight and sliding;
    /// a body at rest in a pile is pulled h^2 g into its supports, which costs iterations.
    Predicted,
    /// q, the step's start, where the local solves start: a body at rest is agreed upon at
    /// once (one ADMM iteration), but a moving body is held back (a box sliding at 2 m/s loses
    /// about 5e-5 m per shared step at theta 1e-4).
    Start,
    /// Per body (the default): q for a body at rest (it ended its last step in contact, every
    /// body it touched moved no more than a body at rest does, and over the step its velocity
    /// would move it no farther than its external forces would, h^2 |a|, or than theta h l),
    /// q~ for the others. A pile at rest is agreed upon at once; a moving body, one a settling
    /// pile still pushes, one released from rest and one floating free are not held back.
    Resting,
};

/// How a plane the load balancer moves travels.
enum class PlaneMoves {
    /// From gap to gap (with DistributedSpec::plane_gaps and no fluid; otherwise as
    /// Controller): past the nearest bodies of the slower side to the quietest position beyond
    /// them, and only when the load those bodies carry narrows the imbalance without turning
    /// it round (load_balancer.hpp).
    Gaps,
    Controller,  ///< by the PD controller's l (K_P T + K_D (T - T_prev)) every step (Eq. 13-14)
};

struct LoadBalanceSpec {
    bool enabled = true;
    double kp = 0.05;  ///< proportional gain, in units of the scene scale l per unit imbalance
    double kd = 0.02;  ///< derivative gain, same units
    double smoothing = 0.3;  ///< weight of the newest frame in the exponential average of the load
    /// A plane holds still while its imbalance |T| (T = (t_a - t_b) / (t_a + t_b), smoothed
    /// loads) is at most this: every move changes which bodies are shared, and a body that
    /// becomes shared starts its consensus cold (docs/distributed.md, "Load balancing").
    double dead_band = 0.05;
    LoadMeasure measure = LoadMeasure::Work;
    PlaneMoves moves = PlaneMoves::Gaps;

    bool operator==(const LoadBalanceSpec&) const = default;
};

struct DistributedSpec {
    int workers = 1;  ///< N; 1 = the single-machine solver (no ADMM)
    /// Planes: N - 1 parallel planes normal to `axis` (0 = x, 1 = y, 2 = z) ...
    int axis = 0;
    /// ... or, when any entry is > 1, a grid of nx x ny x nz cells (their product = workers).
    std::array<int, 3> grid{1, 1, 1};
    double alpha = 2.0;  ///< the swept-motion factor of the overlap width (WidthRule)
    WidthRule width_rule = WidthRule::Contact;
    WidthSpeed width_speed = WidthSpeed::Fastest;
    InitialPlanes initial_planes = InitialPlanes::Quantile;
    /// Planes move to where the fewest bodies (their boxes grown by half the overlap width)
    /// cross them: a plane through a column of bodies makes every body of the column shared,
    /// one in the gap beside it none (partition.hpp, quietest_position). At the start each
    /// plane moves by at most half the smallest movable body's box diagonal; later a plane the
    /// balancer leaves still moves only between the body centres around it (no body changes
    /// cell). No effect with a fluid.
    bool plane_gaps = true;
    PenaltyRule penalty = PenaltyRule::Mass;
    double beta = 1.0;
    bool adapt = true;  ///< residual-driven rho adaptation (Eq. 12)
    AdaptRule adapt_rule = AdaptRule::Normalized;
    double tau = 2.0;
    double mu = 5.0;
    std::array<double, 2> clamp{1e-3, 1e3};  ///< rho stays within [lo, hi] x its initial value
    bool rescale_dual = true;  ///< u *= rho_old / rho_new when rho changes (Boyd et al. 3.4.1)
    double theta = 1e-3;       ///< threshold of Eq. 8 on |dq|, r and s over h l
    int max_iterations = 200;  ///< K
    /// Newton iterations of a local solve per ADMM iteration (warm-started from the last
    /// iterate); 0 solves every local problem to convergence (step norm theta / 10). A worker
    /// without shared bodies always solves to convergence: its problem does not depend on z.
    int local_iterations = 2;
    InitialConsensus initial_consensus = InitialConsensus::Resting;
    /// Split each local problem by islands: those without a shared body are solved once per
    /// friction lag round, the others at every ADMM iteration (distributed/local_problem.hpp).
    /// A worker that shares nothing then solves its islands as one machine does (1-worker ADMM
    /// takes the single machine's Newton iterations); docs/benchmarks.md has the measurements.
    bool local_islands = true;
    /// The multiplier rho u of a body shared by the same workers as in the last step starts
    /// from its value at the end of that step (else u = 0) ...
    bool warm_start = true;
    /// ... and so does rho (else rho^0).
    bool warm_start_penalty = false;
    /// Anderson acceleration of the consensus iteration over (z, rho u) of the shared bodies
    /// with a window of this many iterates (distributed/anderson.hpp); 0 = plain ADMM.
    int anderson_window = 0;
    LoadBalanceSpec load_balance;

    bool uses_grid() const { return grid[0] > 1 || grid[1] > 1 || grid[2] > 1; }
    bool operator==(const DistributedSpec&) const = default;
};

}  // namespace concord
