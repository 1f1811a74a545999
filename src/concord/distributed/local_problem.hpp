// A worker's local problem within one step of consensus ADMM, solved by islands.
//
// The worker's system holds every body it holds this step. Its islands (as the single-machine
// World finds them: bodies linked by contact candidates over the step's motion bounds) fall in
// two groups: those that hold a shared body depend on the consensus z and u, and are solved
// again at every ADMM iteration (together: the coupled system, with the consensus penalty);
// the others do not, and are solved once per friction lag round, to convergence, each as a
// system of its own (a worker that shares nothing solves its islands as one machine does).
// When a solve leaves the motion bounds the islands were found with, bodies of different
// islands may have come within dhat of each other unseen: as World does, the bounds grow by the
// motion made, the islands are found again, and the systems of islands that merged start again
// from a state certified by CCD (after a few such rounds the whole system takes over), so the
// result never depends on the bounds being right. Vectors passed in and out are in the whole
// system's order.
//
// The systems come from the worker's cache (LocalSystemSource), as World keeps its islands'
// systems from step to step, and the step's start-of-step work is done once: while the problem
// is split, the whole system is prepared only when something needs it (a merge, kinematic
// bodies, the stiffness penalty rule); the stiffness balance and the end-of-step measure come
// from the systems in use.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "concord/energy/consensus_energy.hpp"
#include "concord/world/islands.hpp"
#include "concord/world/step_stats.hpp"
#include "concord/world/step_system.hpp"
#include "concord/world/world_model.hpp"

namespace concord {

/// A system of the local problem and the consensus penalty term it carries.
struct LocalSystemRef {
    StepSystem* system = nullptr;
    ConsensusEnergy* consensus = nullptr;
    /// For a system built for this step: the system (alive for the step) whose broad-phase
    /// envelope it starts from when first prepared (StepSystem::adopt_broad_phase); null: none.
    const StepSystem* donor = nullptr;
};
/// The worker's system over these world bodies (sorted) with these holder sets (replication
/// weights from them), kept by the worker across steps.
using LocalSystemSource = std::function<LocalSystemRef(const std::vector<int>& world_ids,
                                                       const std::vector<std::uint64_t>& masks)>;

/// This worker's share of IPC's barrier-stiffness balance at the step's start: the sums over
/// its bodies held by it alone, and per shared body the gradient pieces (the controller sums
/// them per body across holders first).
struct StiffnessShare {
    StiffnessBalance internal;  ///< has_contacts over every system in use
    struct Piece {
        int id;               ///< world body
        VecX g_rest, g_unit;  ///< over the body's coordinate block (modes included)
    };
    std::vector<Piece> shared;  ///< in body order
};

/// The end-of-step statistics of the local problem.
struct LocalMeasure {
    int contacts = 0;  ///< pairs counted here (see keep)
    std::vector<BodyContactCount> body_contacts;
    /// The bodies (indices of the whole system, sorted) in at least one contact pair of this
    /// worker's systems, whoever counts the pair: with touching_pairs, what a home worker
    /// reports as BodyRecord::supported.
    std::vector<int> touching;
    /// The pairs of bodies (indices of the whole system, a < b, sorted, each once) in at least
    /// one contact pair of this worker's systems.
    std::vector<std::pair<int, int>> touching_pairs;
    int candidates = 0;
    double min_distance = std::numeric_limits<double>::infinity();
    JointStepStats joints;  ///< largest joint violation over the systems (zero without joints)
};

class LocalProblem {
  public:
    /// `whole` is the worker's system over `ids` (world indices, sorted; `whole.consensus` its
    /// penalty term) with holder sets `masks`. `shared_local`: the whole system's indices of the
    /// shared bodies. With `islands` (and no joints in the scene, as World), the problem is split
    /// as above when it has an island without a shared body (and more than one island); the
    /// islands' systems come from `source`. Prepares the systems in use for the step `in` (kept by
    /// reference) at `kappa`.
    LocalProblem(const WorldModel& model, LocalSystemRef whole, const std::vector<int>& ids,
                 const std::vector<std::uint64_t>& masks, const std::vector<int>& shared_local,
                 const StepInput& in, double kappa, bool islands, const LocalSystemSource& source);
    /// True while the problem is solved by islands.
    bool split() const { return !internal_.empty() && !merged_; }
    /// The whole system, prepared for the step (done here if it was not).
    StepSystem& whole();
    /// The stiffness balance at the step's start over the systems in use.
    StiffnessShare stiffness_share();
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
    /// the islands, and internal_stats() is empty. When the solve leaves the islands' motion
    /// bounds, the merged systems are solved again within the same call (see settle), so what
    /// comes back is always a solve's result; the returned statistics then count every solve.
    NewtonStats solve(VecX& x, double kappa, const std::vector<ConsensusTerm>& terms,
                      const SolverParams& inexact, const SolverParams& exact);
    const NewtonStats& internal_stats() const { return internal_stats_; }
    /// Largest barrier stiffness over the systems in use (the stiffness may grow in a solve).
    double barrier_stiffness() const;
    /// Times this step's solves left the islands' motion bounds (each grew them and found the
    /// islands again).
    int island_rounds() const { return island_rounds_; }
    /// Movable bodies and active contacts of the system solve() solved last (the work measure).
    int solved_bodies() const;
    int solved_contacts() const;
    /// Largest collision-free fraction of the straight path x0 -> x1 (whole order; 1 when free),
    /// by CCD over the systems in use: while split, the coupled system alone when the bodies
    /// of the other islands do not move and every vertex of x1 lies in the islands' motion
    /// bounds (then no pair across islands comes within dhat on the path, the bounds being
    /// convex and the path linear in every vertex); the whole system otherwise.
    double ccd_fraction(const VecX& x0, const VecX& x1);
    /// Contacts, per-body counts, candidates and minimum distance at x (whole order), over the
    /// systems in use. keep(a, b) decides whether a pair between whole-system bodies a and b
    /// (b = -1 for a plane) is counted here.
    LocalMeasure measure(const VecX& x, const std::function<bool(int, int)>& keep);
    /// Augmented-Lagrangian contact: the active sets of the systems in use with their
    /// multipliers, named by world bodies, sorted (empty with the barrier).
    AlContactMemory al_memory() const;

  private:
    /// A system of islands: the whole system's indices of its bodies (sorted).
    struct Part {
        LocalSystemRef ref;
        std::vector<int> index;
    };
    /// The islands over bounds_: those with a shared body together (with their obstacles;
    /// empty when no body of it is movable), each of the others alone.
    struct Groups {
        std::vector<int> coupled;
        std::vector<std::vector<int>> internal;
        int coupled_movable = 0, internal_movable = 0;
    };
    Groups group_islands();
    static bool splits(const Groups& g);
    /// A system over these whole-system indices from the source, prepared for the step.
    Part make_part(std::vector<int> index, double kappa);
    /// Prepares a system for the step, its broad phase first seeded from its donor if it has
    /// none yet.
    void prepare(const LocalSystemRef& ref, double kappa);
    void set_coupled(Part part);
    NewtonStats solve_once(VecX& x, double kappa, const std::vector<ConsensusTerm>& terms,
                           const SolverParams& inexact, const SolverParams& exact);
    void settle(const VecX& x_prev, VecX& x, double kappa, const SolverParams& exact);
    void merge(double kappa);
    std::vector<const Part*> parts() const;

    const WorldModel& model_;
    const StepInput& in_;
    LocalSystemRef whole_;
    std::vector<int> ids_;
    std::vector<std::uint64_t> masks_;
    std::vector<int> shared_local_;  ///< sorted
    LocalSystemSource source_;
    bool whole_prepared_ = false;
    double kappa_start_ = 0.0;
    std::vector<Part> internal_;      ///< one per island without shared bodies
    Part coupled_;                    ///< the islands with shared bodies (null system: none)
    std::vector<int> coupled_index_;  ///< whole system index -> coupled index (-1: not there)
    MotionBounds bounds_;
    VecX start_;        ///< the step's start (whole order)
    VecX world_;        ///< world-size scratch for converting between system orders
    VecX round_start_;  ///< x at the start of the lag round (whole order)
    bool merged_ = false;
    bool internal_due_ = false;
    bool unsettled_ = false;  ///< a system took a state it has not solved from
    int island_rounds_ = 0;
    int internal_movable_ = 0, whole_movable_ = 0, coupled_movable_ = 0;
    NewtonStats internal_stats_;
    std::vector<int> scratch_;
};

}  // namespace concord
