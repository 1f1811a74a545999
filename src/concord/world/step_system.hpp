// The bodies one Newton solve moves together for a time step: the whole world, or one island.
// It owns the energies and incremental potential over exactly those bodies (its static ones
// are obstacles), so that independent systems can be solved at the same time.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "concord/collision/broad_phase/body_pairs.hpp"
#include "concord/energy/barrier_energy.hpp"
#include "concord/energy/friction_energy.hpp"
#include "concord/energy/inertia_energy.hpp"
#include "concord/energy/joint_energy.hpp"
#include "concord/energy/modal_elasticity_energy.hpp"
#include "concord/energy/orthogonality_energy.hpp"
#include "concord/energy/reduced_inertia_energy.hpp"
#include "concord/solver/al_newton_solver.hpp"
#include "concord/solver/newton_solver.hpp"
#include "concord/world/al_contact_memory.hpp"
#include "concord/world/body_contact_count.hpp"
#include "concord/world/incremental_potential.hpp"
#include "concord/world/world_model.hpp"

namespace concord {

/// The world-wide inputs of one implicit step (vectors over every body of the world).
struct StepInput {
    const VecX& q;        ///< state at the step's start
    const VecX& q_tilde;  ///< predicted state q + h q_dot + h^2 M^-1 f (dynamic bodies)
    const VecX& target;   ///< prescribed pose at the step's end (kinematic bodies)
    double time_step;
    double time_end = 0.0;  ///< the step's end time (joint drive targets)
    /// Augmented-Lagrangian contact: the multipliers carried from the last step (null: none).
    const AlContactMemory* contact_multipliers = nullptr;
};

/// One system's share of IPC's barrier-stiffness balance at the step's start:
/// kappa = -sum(dot) / sum(norm_sq) over all systems (g_B the unit-stiffness barrier gradient,
/// g_E the rest: dot = g_B . g_E, norm_sq = |g_B|^2). Sums over systems equal the whole
/// world's because the gradients of different systems live on disjoint bodies.
struct StiffnessBalance {
    bool has_contacts = false;
    double dot = 0.0, norm_sq = 0.0;

    StiffnessBalance& operator+=(const StiffnessBalance& o) {
        has_contacts = has_contacts || o.has_contacts;
        dot += o.dot;
        norm_sq += o.norm_sq;
        return *this;
    }
};

/// The barrier stiffness a step starts with: the scene's fixed stiffness if it sets one, else
/// the carried `kappa`, raised to IPC's balance -dot / norm_sq (clamped to the model's bounds)
/// when the scene's total balance `total` has contacts.
double starting_barrier_stiffness(const WorldModel& model, double kappa,
                                  const StiffnessBalance& total);

struct SystemStepResult {
    VecX x;  ///< end state of the system's bodies, in system order
    ConvergenceStatus status = ConvergenceStatus::Converged;
    StopReason stop_reason = StopReason::Residual;
    std::vector<NewtonStats> solves;  ///< one per friction lag round
    int iterations = 0;
    int contacts = 0;
    /// Active pairs per body at the end (world indices, sorted; bodies without pairs left out).
    std::vector<BodyContactCount> body_contacts;
    int candidates = 0;  ///< peak over the step
    double min_distance = std::numeric_limits<double>::infinity();
    double barrier_stiffness = 0.0;  ///< after the solve's adaptation
    double t_collision = 0.0;        ///< collision work outside the Newton solves, s
    /// Largest joint violation at the end (joints of this system; all zero without joints).
    JointResidual joint_residual;
    /// Augmented-Lagrangian contact: the active set and multipliers at the end (world names,
    /// sorted), for the next step; empty with the barrier.
    AlContactMemory al_memory;
};

/// A worker's share of the world in a distributed solve (paper Eq. 3): per-body weights
/// 1/kappa_b on inertia and orthogonality (kappa_b = workers holding the body) and per-pair
/// weights 1/kappa_c on contacts, so that the shares of all workers sum to the whole objective.
struct SystemReplication {
    std::vector<double> body_weight;  ///< per system body; 1 for bodies held once
    ContactReplication contacts;      ///< holder sets per system body
};

class StepSystem {
  public:
    /// `bodies`: world body indices, sorted. `surface`: the contact surface of exactly these
    /// bodies in this order, kept by reference; null builds the system's own. `replication`:
    /// this system is one worker's share of a distributed solve (copied).
    StepSystem(const WorldModel& model, std::vector<int> bodies,
               const ContactSurface* surface = nullptr,
               const SystemReplication* replication = nullptr);
    StepSystem(const StepSystem&) = delete;
    StepSystem& operator=(const StepSystem&) = delete;

    const std::vector<int>& bodies() const { return bodies_; }
    /// Replaces the replication shares of a system built with one (same bodies; holder sets
    /// and weights may change), keeping its surface and broad-phase caches. Systems with
    /// reduced elastic bodies or joints keep the shares they were built with (logic_error).
    void set_replication(const SystemReplication& replication);
    /// Seeds this system's broad-phase envelope from `donor`'s, for the bodies both hold that
    /// lie inside their envelope at the world state q (the start of the step about to be
    /// prepared; EnvelopeBroadPhase::adopt): a system built for a new set of bodies then
    /// queries only the other bodies instead of every primitive. Returns the bodies taken over
    /// (none when the others hold many of the vertices: the first query rebuilds anyway). The
    /// step's answers are the same as without.
    int adopt_broad_phase(const StepSystem& donor, const VecX& q);
    /// Whether the broad phase holds an envelope another system can adopt.
    bool broad_phase_cached() const;
    /// Whether system body k is movable.
    bool movable(int k) const { return movable_[static_cast<std::size_t>(k)]; }
    /// Whether set_replication() is available for this system.
    bool replication_settable() const;
    /// World indices of the movable bodies (the unknowns).
    std::vector<int> movable_bodies() const;

    /// Starts a step: gathers the system's part of the input, forgets the previous step's
    /// friction and contacts, and returns its share of the stiffness balance at `kappa`.
    /// With augmented-Lagrangian contact, the entries of in.contact_multipliers on this
    /// system's bodies are its starting active set; with hybrid contact, the loads its
    /// friction is lagged with where the last step ended with the constraints.
    StiffnessBalance prepare(const StepInput& in, double kappa);
    /// Solves the step prepared last with barrier stiffness kappa (friction lag rounds, then
    /// kinematic bodies put on their prescribed pose when CCD allows).
    SystemStepResult solve(double kappa, const SolverParams& params,
                           std::optional<SolverClock::time_point> deadline);
    /// Writes the movable bodies of x (system order) into x_world.
    void scatter(const VecX& x, VecX& x_world) const;
    /// The system's part of a world vector (affine parts, then the modal coordinates of its
    /// elastic bodies, in system order).
    void gather(const VecX& world, VecX& sys) const;
    /// System body k's coordinates in a system vector x (12 affine numbers, then its modal
    /// coordinates; WorldModel::body_coordinates in system order), and its inverse.
    VecX body_coordinates(const VecX& x, int k) const;
    void set_body_coordinates(VecX& x, int k, const VecX& block) const;
    /// Where system body k's modal coordinates start in system vectors (-1: none).
    int modal_offset(int k) const { return modal_offsets_[static_cast<std::size_t>(k)]; }

    // The pieces solve() is made of, for solvers that drive the system themselves (the
    // consensus ADMM of a distributed solve). Vectors are in system order.
    /// Adds a term to the system's potential (kept by reference), e.g. a consensus penalty.
    void add_term(const Energy& term) { potential_->add_term(term); }
    /// State at the step's start, prescribed end pose (kinematic bodies), predicted state.
    const VecX& start() const { return q_start_; }
    const VecX& predicted() const { return inertia_->predicted(); }
    /// At the step's start (after prepare): the gradient of everything but the barrier and the
    /// barrier's gradient at unit stiffness, per system DoF, whether or not there are contacts
    /// (a distributed solve sums them per body across workers for the exact balance).
    void start_gradients(VecX& g_rest, VecX& g_barrier_unit) {
        potential_->split_gradients(q_start_, g_rest, g_barrier_unit);
    }
    /// Lags the friction at x (no-op without friction).
    void lag_friction(const VecX& x);
    /// One Newton solve of the potential from x (updated in place) at barrier stiffness kappa;
    /// the stiffness may grow during the solve (see barrier_stiffness()).
    NewtonStats newton(VecX& x, double kappa, const SolverParams& params,
                       std::optional<SolverClock::time_point> deadline);
    double barrier_stiffness() const { return barrier_->stiffness(); }
    void set_barrier_stiffness(double kappa) { barrier_->set_stiffness(kappa); }
    /// Largest collision-free fraction of the straight path x0 -> x1 (1 when free), by CCD.
    double ccd_fraction(const VecX& x0, const VecX& x1);
    /// x with every kinematic body on its prescribed end pose, if CCD allows the move (x itself
    /// when there is nothing to move); nullopt when the move is blocked.
    std::optional<VecX> snapped_kinematic(const VecX& x);
    /// The potential's value at x (contacts found afresh); +inf when x intersects.
    double objective(const VecX& x);
    /// Contacts (also per body), candidates and minimum distance at x (the end-of-step
    /// statistics).
    void measure(const VecX& x, SystemStepResult& r);
    /// Hessian of the potential at x (PSD-projected), for stiffness estimates.
    void hessian_blocks(const VecX& x, HessianBlocks& H);
    /// Active contacts at the last evaluated state (after measure()) and the surface they index:
    /// the pairs within dhat (barrier), or those holding a positive multiplier (augmented
    /// Lagrangian).
    const ContactSet& contacts() const { return al_ ? al_contacts_ : potential_->contacts(); }
    /// Contact refreshes that queried the broad phase (IncrementalPotential::refresh_contacts;
    /// for tests and statistics).
    int contact_queries() const;
    /// Augmented-Lagrangian contact: the active set with its multipliers, named by world bodies
    /// (sorted; what the next step takes back through StepInput::contact_multipliers). Hybrid
    /// contact: the same of the last solve's constraints if it handed over to them. Empty with
    /// the barrier.
    AlContactMemory al_memory() const;
    const ContactSurface& surface() const { return *surface_; }
    /// interacting_body_pairs over this system's surface (the island search): its primitives by
    /// body are listed at the first search and kept.
    std::vector<std::pair<int, int>> interacting_pairs(const Vertices& x0, const Vertices& x1,
                                                       const BroadPhaseParams& params);
    bool has_kinematic() const { return any_kinematic_; }
    bool has_joints() const { return joints_ != nullptr; }
    /// The joint energy (null without joints) and where model joint j is in it (-1: nowhere,
    /// no movable body of the joint is in this system).
    JointEnergy* joints() { return joints_.get(); }
    const JointEnergy* joints() const { return joints_.get(); }
    int joint_slot(int j) const {
        return j >= 0 && static_cast<std::size_t>(j) < joint_slots_.size()
                   ? joint_slots_[static_cast<std::size_t>(j)]
                   : -1;
    }

  private:
    /// The joint energy over the joints that touch this system's movable bodies.
    void build_joints(const IncrementalPotentialConfig& cfg);
    /// Per system body, the quantities weighted by its share 1/kappa_b (1 without
    /// replication): affine mass matrix, kinematic-target mass, orthogonality weight, mass.
    struct ShareWeighted {
        std::vector<Mat12> masses, kinematic_masses;
        std::vector<double> orthogonality, body_mass;
    };
    ShareWeighted share_weighted() const;
    /// An augmented-Lagrangian contact energy over this system with the scene's settings.
    std::unique_ptr<AlContactEnergy> make_al_contact() const;
    AlSolveParams al_solve_params() const;

    const WorldModel& model_;
    std::vector<int> bodies_;
    std::optional<SystemReplication> replication_;
    ContactSurface own_surface_;
    const ContactSurface* surface_;
    std::optional<MeshByBody> mesh_by_body_;  ///< surface_->mesh by body, for interacting_pairs
    std::vector<bool> movable_, free_dof_;
    std::vector<int> modal_offsets_;  ///< per system body, in system vectors (-1: affine)
    bool any_kinematic_ = false;
    double time_step_ = 0.0;
    VecX q_start_, target_;
    double prepare_collision_seconds_ = 0.0;
    std::vector<int> contact_count_scratch_;  ///< count_body_contacts' work array

    std::unique_ptr<InertiaEnergy> inertia_, kinematic_target_;
    std::unique_ptr<OrthogonalityEnergy> orthogonality_;
    std::unique_ptr<BarrierEnergy> barrier_;
    std::unique_ptr<FrictionEnergy> friction_;
    std::unique_ptr<ReducedInertiaEnergy> reduced_inertia_;
    std::unique_ptr<ModalElasticityEnergy> modal_elasticity_;
    std::unique_ptr<JointEnergy> joints_;  ///< null when no joint touches the system
    std::vector<int> joint_slots_;         ///< per model joint: its index in joints_, or -1
    std::unique_ptr<IncrementalPotential> potential_;
    std::unique_ptr<AlContactEnergy> al_;  ///< augmented-Lagrangian contact; null: barrier
    /// Hybrid contact: the constraints that take a solve over from the barrier; null otherwise.
    std::unique_ptr<AlContactEnergy> hybrid_al_;
    ContactSet al_contacts_;  ///< its pairs with a positive multiplier at the last measure()
    std::optional<AlMemoryNames> al_names_;
};

/// Systems whose broad-phase envelopes a system built for a new set of bodies can start from
/// (StepSystem::adopt_broad_phase), indexed by their movable bodies: World and the ADMM worker
/// list the systems of the last step and those of this one as they come, and ask for the donor
/// of each new system. Finding one costs a look-up per movable body of the new system.
class BroadPhaseDonors {
  public:
    /// Forgets every system (at the start of a step: the last step's systems may be gone).
    void clear();
    /// Lists a system (kept by pointer: it must outlive the next clear()).
    void add(const StepSystem& system);
    /// Of the listed systems whose broad phase holds an envelope, the one that has the most of
    /// the movable bodies among `bodies` (sorted world indices); ties go to the first listed.
    /// Null when none shares a movable body.
    const StepSystem* donor_for(const std::vector<int>& bodies) const;

  private:
    std::vector<const StepSystem*> systems_;
    std::vector<std::vector<int>> holding_;  ///< per world body: indices into systems_
};

}  // namespace concord
