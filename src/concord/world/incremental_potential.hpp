// The incremental potential of one implicit-Euler time step of affine bodies with IPC contact:
//   E(q) = 1/2 ||q - q~||_M^2 + h^2 E_orth(q) + kappa B(q) + D(q) + E_kinematic(q)
// (B the barrier sum, D the lagged friction; kappa and D absorb the h^2 factor as in IPC, and
// E_kinematic pulls kinematic bodies onto their prescribed pose). It is the NewtonProblem the
// solver minimises: energies, their derivatives, and a CCD-certified maximum step.
//
// With augmented-Lagrangian contact (use_al_contact) the barrier term is replaced by the
// constraints' augmented Lagrangian (energy/al_contact_energy.hpp): every state has a finite
// energy, and the CCD certifies the admissible state that follows the iterates instead
// (ConstrainedNewtonProblem, solver/al_newton_solver.hpp).
#pragma once

#include <memory>
#include <vector>

#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/collision/broad_phase/envelope_broad_phase.hpp"
#include "concord/collision/ccd/ccd_params.hpp"
#include "concord/energy/al_contact_energy.hpp"
#include "concord/energy/barrier_energy.hpp"
#include "concord/energy/contact_set.hpp"
#include "concord/energy/friction_energy.hpp"
#include "concord/energy/inertia_energy.hpp"
#include "concord/energy/orthogonality_energy.hpp"
#include "concord/solver/newton_problem.hpp"

namespace concord {

struct IncrementalPotentialConfig {
    double time_step = 0.01;
    double dhat = 1e-3;
    double scene_scale = 1.0;         ///< l, the scene's bounding-box diagonal
    std::vector<double> body_radius;  ///< converts a change of A into a displacement
    std::vector<bool> body_movable;   ///< dynamic or kinematic
    /// Body pairs (a, b), a < b, sorted, in system numbering, that never touch (contact.exclude).
    std::vector<std::pair<int, int>> excluded_pairs;
    /// Per-body convergence weights (PerBodyWeighted, docs/solver.md): mass m_b, lever arm
    /// L_b (largest |X| of a vertex) and the characteristic acceleration g* (|gravity|, or
    /// standard gravity when there is none).
    std::vector<double> body_mass;
    std::vector<double> body_lever_arm;
    double characteristic_acceleration = 9.81;
    /// Modal coordinates of elastic bodies (after the 12 per body, in order): the largest
    /// displacement a unit change moves a vertex, and the system body each belongs to.
    std::vector<double> modal_scale;
    std::vector<int> modal_body;
    CCDParams ccd;
};

class IncrementalPotential final : public ConstrainedNewtonProblem {
  public:
    IncrementalPotential(const ContactSurface& surface, const std::vector<HalfSpace>& planes,
                         IncrementalPotentialConfig config, InertiaEnergy& inertia,
                         OrthogonalityEnergy& orthogonality, InertiaEnergy& kinematic_target,
                         BarrierEnergy& barrier, FrictionEnergy& friction);

    /// Adds a further term to the potential, in its own (already h^2-scaled) units, e.g. the
    /// consensus penalty of a distributed solve. Kept by reference; must outlive the potential.
    void add_term(const Energy& term) { extra_terms_.push_back(&term); }
    /// Contact by augmented Lagrangian instead of the barrier (kept by reference; null: the
    /// barrier).
    void use_al_contact(AlContactEnergy* al) { al_ = al; }
    bool al_contact() const { return al_ != nullptr; }
    /// Hybrid contact: the barrier, and `al` (kept by reference) between constrain_contacts
    /// and release_contacts (solver/hybrid_newton_solver.hpp).
    void use_hybrid_contact(AlContactEnergy* al) { hybrid_al_ = al; }

    /// Forget cached candidates (call at the start of every Newton solve).
    void reset();
    /// Seeds the broad phase's envelope from another potential's over a surface that shares
    /// bodies with this one (EnvelopeBroadPhase::adopt; donor_body[b]: body b's index in the
    /// donor's surface, -1 where it has none). Answers are unchanged; only their cost is.
    /// q: the system state where the next query starts (EnvelopeBroadPhase::adopt's x).
    void adopt_broad_phase(const IncrementalPotential& donor, std::span<const int> donor_body,
                           const VecX& q) {
        const Vertices x = surface_.positions(q);
        broad_phase_.adopt(donor.broad_phase_, donor.surface_.mesh, surface_.mesh, donor_body, &x);
    }
    /// The broad phase (for tests and statistics).
    const EnvelopeBroadPhase& broad_phase() const { return broad_phase_; }
    /// The time step h of the potential (its h^2 factors, the step measure and the weights).
    void set_time_step(double h) { config_.time_step = h; }
    /// New per-body convergence masses (IncrementalPotentialConfig::body_mass), same bodies.
    void set_body_mass(std::vector<double> mass) { config_.body_mass = std::move(mass); }
    double time_step() const { return config_.time_step; }
    /// Candidates and contacts at q from a fresh static broad phase. `ahead` (optional): where
    /// the step is expected to go (its predicted q), so that the broad phase's envelope, when
    /// this query builds one, also covers the first Newton step (same contacts either way).
    /// Without `ahead`, at the very q where the contact set was last built from candidates
    /// known to hold every pair within dhat there (a refresh, or an accepted iterate on the
    /// last line-search segment), nothing is queried again: the contacts are those already
    /// held (the same pairs a fresh query finds; their order may differ).
    void refresh_contacts(const VecX& q, const VecX* ahead = nullptr);
    const ContactSet& contacts() const { return contacts_; }
    std::size_t num_candidates() const { return candidates_.size() + plane_candidates_.size(); }
    std::size_t peak_candidates() const { return peak_candidates_; }
    /// refresh_contacts calls that queried the broad phase (for tests and statistics).
    int contact_queries() const { return contact_queries_; }
    /// Largest collision-free step from q0 to q1 (fraction in (0, 1]) by CCD over the swept
    /// candidates; also leaves those candidates cached for energies along the segment.
    double ccd_step(const VecX& q0, const VecX& q1);

    /// Gradient of everything but the barrier, and of the barrier with unit stiffness, at q
    /// (for the IPC barrier-stiffness initialisation).
    void split_gradients(const VecX& q, VecX& g_rest, VecX& g_barrier_unit);

    // NewtonProblem
    void begin_iteration(const VecX& x) override;
    double energy(const VecX& x) override;
    void gradient(const VecX& x, VecX& g) override;
    void hessian(const VecX& x, HessianBlocks& H, bool project_psd) override;
    bool trial_gradient(const VecX& x, VecX& g) override;
    double max_step(const VecX& x, const VecX& dx) override;
    double step_measure(const VecX& dx) override;
    StepRates step_rates(const VecX& dx) override;
    void accepted(const VecX& x) override;
    ResidualGroups residual_groups() const override;
    // ConstrainedNewtonProblem (augmented-Lagrangian contact)
    void linearize_constraints(const VecX& x_admissible, const VecX& x) override;
    void update_multipliers(const VecX& x) override;
    double advance_admissible(const VecX& x_admissible, const VecX& x) override;
    void constrain_contacts(const VecX& x) override;
    void release_contacts() override;
    /// Cumulative over the potential's lifetime (never reset).
    double collision_seconds() const override { return t_collision_; }

    /// Barrier stiffness adaptation (IPC): doubles kappa (up to max) when the minimum distance
    /// keeps shrinking below a small fraction of the scene scale.
    void set_stiffness_bounds(double kappa_max) { kappa_max_ = kappa_max; }
    double min_distance() const;

  private:
    /// ccd_step over the chords of the vertex paths, each pair certified to stay `dev` (per
    /// vertex, summed over the pair) further apart than the CCD's own separation.
    double ccd_chord_step(const VecX& q0, const VecX& q1, const VecX& dev);
    ContactSet contact_set_at(const VecX& q) const;
    double extra_value(const VecX& x) const;
    /// The contact term: the barrier, or the augmented Lagrangian.
    const Energy& contact_term() const;

    const ContactSurface& surface_;
    const std::vector<HalfSpace>& planes_;
    IncrementalPotentialConfig config_;
    InertiaEnergy& inertia_;
    OrthogonalityEnergy& orthogonality_;
    InertiaEnergy& kinematic_target_;
    BarrierEnergy& barrier_;
    FrictionEnergy& friction_;
    AlContactEnergy* al_ = nullptr;
    AlContactEnergy* hybrid_al_ = nullptr;  ///< hybrid contact's constraints (use_hybrid_contact)
    /// Pairs the last ccd_chord_step found on the way (CCD hits); filled when collect_hits_.
    std::vector<AlPairKey> hits_;
    bool collect_hits_ = false;

    std::vector<const Energy*> extra_terms_;

    /// Answers the many nearby queries of a solve from one cached envelope query.
    EnvelopeBroadPhase broad_phase_;
    Candidates candidates_;
    std::vector<PointPlaneCandidate> plane_candidates_;
    bool candidates_valid_ = false;
    bool contacts_current_ = false;  ///< contacts_ already evaluated at the latest iterate
    ContactSet contacts_;
    /// Where contacts_ was built from candidates_ that hold every pair within dhat there
    /// (valid while covered_valid_): a refresh_contacts there needs no query.
    VecX covered_at_;
    bool covered_valid_ = false;
    /// Records that contacts_ is the contact set at q from candidates covering q.
    void mark_covered(const VecX& q);
    std::size_t peak_candidates_ = 0;
    int contact_queries_ = 0;
    double t_collision_ = 0.0;
    double kappa_max_ = 0.0;
    double previous_min_distance_sq_ = std::numeric_limits<double>::infinity();
    std::vector<std::uint8_t> body_static_;
    BodyPairFilter pair_filter_;  ///< static pairs and config_.excluded_pairs skipped
};

}  // namespace concord
