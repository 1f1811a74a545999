// What the Newton solver needs from the function it minimises (the incremental potential).
// It knows nothing about bodies: only energies, derivatives, a maximum safe step and, for the
// per-body convergence test, how the unknowns are grouped and weighted.
#pragma once

#include <Eigen/SparseCore>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "concord/math/hessian_blocks.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// Groups of unknowns (one per body) and their convergence weights: the residual norm of
/// group k is sqrt(sum_i weight_i r_i^2) over i in [begin[k], begin[k + 1]).
struct ResidualGroups {
    std::vector<int> begin;  ///< size groups + 1; empty: a single group of every unknown
    VecX weight;             ///< one per DoF; empty: all ones
};

class NewtonProblem {
  public:
    virtual ~NewtonProblem() = default;
    /// Called at the start of every iteration, before derivatives at x are requested.
    virtual void begin_iteration(const VecX& x) = 0;
    /// Energy at a trial point x on the segment of the last max_step; +inf where x is not
    /// admissible (e.g. intersecting), so a line search never accepts it.
    virtual double energy(const VecX& x) = 0;
    /// g += dE/dq at the iterate passed to begin_iteration.
    virtual void gradient(const VecX& x, VecX& g) = 0;
    /// Appends the Hessian's blocks over the full DoF vector at the iterate; every local block
    /// replaced by its PSD projection when project_psd.
    virtual void hessian(const VecX& x, HessianBlocks& H,
                         bool project_psd) = 0;
    /// g = dE/dq at a trial point on the segment of the last max_step (residual-based line
    /// searches); false when x is not admissible. The default suits problems whose gradient
    /// needs no per-iterate preparation.
    virtual bool trial_gradient(const VecX& x, VecX& g) {
        if (!std::isfinite(energy(x))) return false;
        g = VecX::Zero(x.size());
        gradient(x, g);
        return true;
    }
    /// Largest alpha in (0, 1] such that x + t dx is admissible (intersection-free) for all t in
    /// [0, alpha] (continuous collision detection). Also prepares what energy() needs along
    /// the segment.
    virtual double max_step(const VecX& x, const VecX& dx) = 0;
    /// Scale-free size of a Newton direction (the StepNorm criterion).
    virtual double step_measure(const VecX& dx) = 0;
    /// A direction as rates of change over the time step (the StepRate criterion).
    struct StepRates {
        double translation = std::numeric_limits<double>::infinity();  ///< max |dp|_inf / h, m/s
        double affine = std::numeric_limits<double>::infinity();       ///< max |dA_ij| / h, 1/s
    };
    /// Default: infinite (never met), for problems without bodies and a time step.
    virtual StepRates step_rates(const VecX& /*dx*/) { return {}; }
    /// Called after each accepted step with the new iterate.
    virtual void accepted(const VecX& x) = 0;
    /// Convergence groups and weights (PerBodyWeighted). Default: one group, unit weights.
    virtual ResidualGroups residual_groups() const { return {}; }
    /// Seconds spent so far in collision work (broad phase, CCD, contact sets), which the
    /// solver reports as its own phase. Monotone; 0 for problems without collisions.
    virtual double collision_seconds() const { return 0.0; }
};

/// What the augmented-Lagrangian contact solve (al_newton_solve) needs beyond a NewtonProblem:
/// the iterate may pass through obstacles (energy() is finite everywhere), while a second,
/// admissible state follows it as far as continuous collision detection certifies.
class ConstrainedNewtonProblem : public NewtonProblem {
  public:
    /// Linearises the constraints at the admissible state and freezes their slack at the
    /// iterate x (start of an iteration, before derivatives are requested).
    virtual void linearize_constraints(const VecX& x_admissible, const VecX& x) = 0;
    /// Multiplier update after a step to x.
    virtual void update_multipliers(const VecX& x) = 0;
    /// Largest t in [0, 1] with every state of x_admissible -> x_admissible + t (x -
    /// x_admissible) intersection-free (CCD); constraints met on the way join the set.
    virtual double advance_admissible(const VecX& x_admissible, const VecX& x) = 0;
    /// Hybrid contact (hybrid_newton_solve): the problem starts as a barrier problem (a plain
    /// NewtonProblem); constrain_contacts(x) turns its contact term into the constraints, taken
    /// over from the barrier's pairs at the admissible state x, and release_contacts() turns it
    /// back. Problems without a barrier to take over from do not support it.
    virtual void constrain_contacts(const VecX& /*x*/) {
        throw std::logic_error("constrain_contacts: this problem has no hybrid contact");
    }
    virtual void release_contacts() {}
};

}  // namespace concord
