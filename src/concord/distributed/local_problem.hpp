// A worker's local problem within one step of consensus ADMM, solved by islands.
//
// The worker's system holds every body it holds this step. Its islands (as the single-machine
// World finds them: bodies linked by contact candidates over the step's motion bounds) fall in
// two groups: those that hold a shared body depend on the consensus z and u, and are solved
// again at every ADMM iteration (together: the coupled system, with the consensus penalty);
// the others do not, and are solved once per friction lag round, to convergence, each as a
// system of its own (a worker that shares nothing solves its islands as one machine does).
// When a solve leaves the motion bounds the islands were found with, bodies of the two groups
// may have come within dhat of each other unseen: the rest of the step is solved with the whole
// system, so the result never depends on the bounds being right. Vectors passed in and out are
// in the whole system's order.
#pragma once

#include <memory>
#include <vector>

#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/energy/consensus_energy.hpp"
#include "concord/world/islands.hpp"
#include "concord/world/step_system.hpp"
#include "concord/world/world_model.hpp"

namespace concord {

class LocalProblem {
  public:
    /// `whole` is the worker's system over `ids` (world indices, sorted; its consensus penalty
    /// `whole_consensus` added as a term) with holder sets `masks`, prepared for the step `in`.
    /// `shared_local`: the whole system's indices of the shared bodies. With `islands`, the
    /// problem is split as above when it has an island without a shared body (and more than
    /// one island).
    LocalProblem(const WorldModel& model, StepSystem& whole, ConsensusEnergy& whole_consensus,
                 const std::vector<int>& ids, const std::vector<std::uint64_t>& masks,
                 const std::vector<int>& shared_local, const StepInput& in, double kappa,
                 bool islands, BroadPhase& broad_phase);

    /// True while the problem is solved by islands.
    bool split() const { return !internal_.empty() && !merged_; }
    /// Movable bodies and active contacts of the internal system (0 when not split).
    int internal_bodies() const { return internal_movable_; }
    int internal_contacts() const;

    /// Starts a friction lag round at x: stiffness kappa, friction lagged at x.
    void start_round(const VecX& x, double kappa);

    /// One ADMM iteration's local solve from x (updated in place). `terms` index the whole
    /// system. The first call of a round also solves the islands without shared bodies with
    /// `exact`; their statistics, folded as one machine folds its islands', are in
    /// internal_stats() (zero iterations otherwise). Returns the statistics of the solve that
    /// depends on z (the coupled system, or the whole one); when nothing depends on z, those of
    /// the islands, and internal_stats() is empty.
    NewtonStats solve(VecX& x, double kappa, const std::vector<ConsensusTerm>& terms,
                      const SolverParams& inexact, const SolverParams& exact);
    const NewtonStats& internal_stats() const { return internal_stats_; }

    /// Largest barrier stiffness over the systems in use (the stiffness may grow in a solve).
    double barrier_stiffness() const;
    /// Movable bodies and active contacts of the system solve() solved last (the work measure).
    int solved_bodies() const;
    int solved_contacts() const;

  private:
    void merge(double kappa);
    std::vector<StepSystem*> systems() const;
    static void fold(NewtonStats& total, const NewtonStats& s, bool first);

    StepSystem& whole_;
    ConsensusEnergy& whole_consensus_;
    std::vector<std::unique_ptr<StepSystem>> internal_;  ///< one per island without shared bodies
    std::unique_ptr<StepSystem> coupled_;  ///< the islands with shared bodies (null: none)
    ConsensusEnergy coupled_consensus_;
    std::vector<int> coupled_index_;  ///< whole system index -> coupled index (-1: not there)
    MotionBounds bounds_;
    VecX world_;        ///< world-size scratch for converting between system orders
    VecX round_start_;  ///< x at the start of the lag round (whole order)
    bool merged_ = false;
    bool internal_due_ = false;
    int internal_movable_ = 0, whole_movable_ = 0, coupled_movable_ = 0;
    NewtonStats internal_stats_;
};

}  // namespace concord
